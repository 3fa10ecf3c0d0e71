//! The best-effort value of arguments still streaming, kept up to date incrementally.
//!
//! A UI that shows a tool call as a form wants the arguments as an object while they
//! arrive. The usual way — re-parse the accumulated text with a partial-JSON parser after
//! every delta (jiter's `partial_mode`, `parsePartialJson`) — is quadratic in the length
//! of the arguments. [`PartialValue`] reads each byte once and updates one
//! [`serde_json::Value`] in place: text is appended to the open string, elements are pushed
//! to the open array, members inserted into the open object. Reading the value after every
//! delta costs nothing extra, and [`take_touched`](PartialValue::take_touched) says which
//! values changed since the last look, so a UI re-renders only those.
//!
//! ```
//! use serde_json::json;
//! use toolstream::partial::PartialValue;
//!
//! let mut v = PartialValue::new();
//! v.push(r#"{"path": "a.txt", "content": "line 1\nli"#);
//! assert_eq!(v.value(), Some(&json!({"path": "a.txt", "content": "line 1\nli"})));
//! assert_eq!(v.take_touched(), ["", "/path", "/content"]);
//!
//! v.push(r#"ne 2", "tags": ["x", 1"#);
//! assert_eq!(v.value(), Some(&json!({"path": "a.txt", "content": "line 1\nline 2", "tags": ["x"]})));
//! assert_eq!(v.take_touched(), ["/content", "/tags", "/tags/0"]);
//!
//! v.push("2]}");
//! assert_eq!(v.value(), Some(&json!({"path": "a.txt", "content": "line 1\nline 2", "tags": ["x", 12]})));
//! assert_eq!(v.take_touched(), ["/tags/1"]);
//! assert!(v.is_complete());
//! ```
//!
//! With a [`Parser`](crate::Parser), push the [`ToolCallArgs`](crate::Event::ToolCallArgs)
//! deltas of a call into its own `PartialValue`.
//!
//! ## What a prefix shows
//!
//! The value of a prefix is what jiter's `PartialMode::TrailingStrings` parse of the same
//! prefix gives (the oracle test checks this on every prefix of every fixture):
//!
//! - an open string shows the text received so far, decoded; an escape cut by the end of
//!   the input (`"ab\`, `"\u00`, the first half of a surrogate pair) is left out until it
//!   is complete;
//! - open objects and arrays show as closed;
//! - an object member appears when its value starts (`{"a":"` shows `{"a":""}`); a key
//!   still being received, or a key without its value yet, is left out;
//! - `true`, `false` and `null` appear when complete; a prefix of one (`tr`) is left out;
//! - `None` until the first byte of the value (whitespace only is `None`);
//! - text after the top-level value is ignored.
//!
//! Deliberate differences from jiter:
//!
//! - **A number appears only when it has closed** — when the byte after it arrives, or at
//!   [`finish`](PartialValue::finish) for a top-level number. jiter shows `{"n":12` as
//!   `{"n":12}` though the number may still become `123` or `12.5`; a UI would show a value
//!   that was never sent. (A partial string is shown because a prefix of the text is true.)
//! - Invalid input does not make the whole value an error: the value stays as it was
//!   before the offending byte and [`is_failed`](PartialValue::is_failed) turns true.
//! - A lone surrogate escape (`"\ud83d"`) decodes to U+FFFD instead of failing.
//! - Numbers are converted as `serde_json` converts them (so the final value equals
//!   `serde_json::from_str` of the whole text, like the `ToolCallEnd` arguments): integers
//!   beyond 64 bits become floats and a number out of the `f64` range is left out, where
//!   jiter gives a big integer or infinity; and a float may differ from jiter's in the last
//!   bit (serde_json's default float parsing is not always correctly rounded).
//!
//! ## Touched paths
//!
//! [`take_touched`](PartialValue::take_touched) returns the JSON Pointers of the values
//! created or changed since the last call, in the order first touched, each once: a new
//! value (container, string, number, literal) at its own pointer, a string that grew at its
//! pointer. The containers around a touched value are not listed (they changed only by
//! holding it). A value whose key repeats in its object replaces the earlier one, as in
//! `serde_json`.
//!
//! ## Cost and bounds
//!
//! Each byte is looked at once; each update walks from the root to the open value (one
//! map lookup per level). Memory is the value itself, plus the current path and key; depth
//! is bounded by [`with_max_depth`](PartialValue::with_max_depth) (default 128).

use crate::scan::fields::{FieldDecoder, FieldVisitor, Path, Segment};
use serde_json::{Map, Value};

/// The incrementally updated best-effort value of a JSON text that is still arriving.
/// See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct PartialValue {
    decoder: FieldDecoder,
    value: Option<Value>,
    touched: Vec<String>,
}

impl PartialValue {
    /// An empty partial value (no input yet), with the default depth limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty partial value whose input may nest at most `max_depth` containers deep;
    /// deeper input fails it.
    pub fn with_max_depth(max_depth: usize) -> Self {
        PartialValue {
            decoder: FieldDecoder::with_max_depth(max_depth),
            value: None,
            touched: Vec::new(),
        }
    }

    /// Consumes the next piece of the JSON text (e.g. a `ToolCallArgs` delta).
    pub fn push(&mut self, delta: &str) {
        let mut b = Build {
            root: &mut self.value,
            touched: &mut self.touched,
        };
        self.decoder.feed(delta, &mut b);
    }

    /// End of input: a top-level number (the only value whose end is not marked) closes.
    pub fn finish(&mut self) {
        let mut b = Build {
            root: &mut self.value,
            touched: &mut self.touched,
        };
        self.decoder.finish(&mut b);
    }

    /// The current best-effort value; `None` before the value has started.
    pub fn value(&self) -> Option<&Value> {
        self.value.as_ref()
    }

    /// The current value, consuming `self`.
    pub fn into_value(self) -> Option<Value> {
        self.value
    }

    /// The JSON Pointers of the values created or changed since the last call (see the
    /// [module docs](self#touched-paths)).
    pub fn take_touched(&mut self) -> Vec<String> {
        std::mem::take(&mut self.touched)
    }

    /// Whether the top-level value has closed: the value is final.
    pub fn is_complete(&self) -> bool {
        self.decoder.is_complete()
    }

    /// Whether the input turned out not to be JSON; the value stays as it was before.
    pub fn is_failed(&self) -> bool {
        self.decoder.is_failed()
    }

    /// Where the number still being received starts (a byte offset in the input pushed
    /// so far), if the input ends inside a number. That number is not in the value yet.
    pub fn open_number(&self) -> Option<usize> {
        self.decoder.open_number()
    }
}

/// Applies the decoder's findings to the value.
struct Build<'a> {
    root: &'a mut Option<Value>,
    touched: &'a mut Vec<String>,
}

fn child<'v>(v: &'v mut Value, seg: Segment<'_>) -> Option<&'v mut Value> {
    match (v, seg) {
        (Value::Object(m), Segment::Key(k)) => m.get_mut(k),
        (Value::Array(a), Segment::Index(i)) => a.get_mut(i),
        _ => None,
    }
}

impl Build<'_> {
    fn touch(&mut self, path: Path<'_>) {
        if self.touched.last().map(String::as_str) != Some(path.pointer()) {
            self.touched.push(path.pointer().to_owned());
        }
    }

    /// The value at `path`, if present.
    fn get(&mut self, path: Path<'_>) -> Option<&mut Value> {
        let mut cur = self.root.as_mut()?;
        for seg in path.segments() {
            cur = child(cur, seg)?;
        }
        Some(cur)
    }

    /// Puts a new value at `path` (its container exists).
    fn set(&mut self, path: Path<'_>, v: Value) {
        self.touch(path);
        let n = path.len();
        if n == 0 {
            *self.root = Some(v);
            return;
        }
        let Some(mut cur) = self.root.as_mut() else {
            return;
        };
        let mut segs = path.segments();
        for seg in segs.by_ref().take(n - 1) {
            match child(cur, seg) {
                Some(c) => cur = c,
                None => return,
            }
        }
        match (cur, segs.next()) {
            (Value::Object(m), Some(Segment::Key(k))) => {
                m.insert(k.to_owned(), v);
            }
            (Value::Array(a), Some(Segment::Index(i))) => {
                if i == a.len() {
                    a.push(v);
                } else if let Some(slot) = a.get_mut(i) {
                    *slot = v;
                }
            }
            _ => {}
        }
    }
}

impl FieldVisitor for Build<'_> {
    fn open(&mut self, path: Path<'_>, array: bool) {
        let v = if array {
            Value::Array(Vec::new())
        } else {
            Value::Object(Map::new())
        };
        self.set(path, v);
    }

    fn string_start(&mut self, path: Path<'_>) {
        self.set(path, Value::String(String::new()));
    }

    fn string(&mut self, path: Path<'_>, chunk: &str) {
        self.touch(path);
        if let Some(Value::String(s)) = self.get(path) {
            s.push_str(chunk);
        }
    }

    fn scalar(&mut self, path: Path<'_>, text: &str) {
        let v = match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null,
            n => match n.parse::<serde_json::Number>() {
                Ok(n) => Value::Number(n),
                // Out of the f64 range: serde_json rejects it too.
                Err(_) => return,
            },
        };
        self.set(path, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn after(chunks: &[&str]) -> (Option<Value>, Vec<String>) {
        let mut p = PartialValue::new();
        for c in chunks {
            p.push(c);
        }
        (p.value().cloned(), p.take_touched())
    }

    #[test]
    fn members_appear_when_their_value_starts() {
        assert_eq!(after(&["{\"a"]).0, Some(json!({})));
        assert_eq!(after(&["{\"a\":"]).0, Some(json!({})));
        assert_eq!(after(&["{\"a\":\""]).0, Some(json!({"a": ""})));
        assert_eq!(after(&["{\"a\":[{"]).0, Some(json!({"a": [{}]})));
        assert_eq!(after(&["{\"a\":tru"]).0, Some(json!({})));
        assert_eq!(after(&["{\"a\":true"]).0, Some(json!({"a": true})));
        assert_eq!(after(&["{\"a\":12"]).0, Some(json!({})));
        assert_eq!(after(&["{\"a\":12 "]).0, Some(json!({"a": 12})));
        assert_eq!(after(&[" "]).0, None);
    }

    #[test]
    fn top_level_number_needs_finish() {
        let mut p = PartialValue::new();
        p.push("-1.5");
        assert_eq!(p.value(), None);
        assert_eq!(p.open_number(), Some(0));
        p.finish();
        assert_eq!(p.value(), Some(&json!(-1.5)));
        assert!(p.is_complete());
    }

    #[test]
    fn duplicate_key_replaces() {
        let (v, t) = after(&["{\"a\":[1],\"a\":\"x\"}"]);
        assert_eq!(v, Some(json!({"a": "x"})));
        assert_eq!(t, ["", "/a", "/a/0", "/a"]);
    }

    #[test]
    fn invalid_keeps_last_good_value() {
        let mut p = PartialValue::new();
        p.push("{\"a\":\"x\",\"b\" 1}");
        assert!(p.is_failed());
        assert_eq!(p.value(), Some(&json!({"a": "x"})));
    }

    #[test]
    fn touched_once_per_string_between_looks() {
        let mut p = PartialValue::new();
        for c in ["{\"s\":\"", "a", "b", "c"] {
            p.push(c);
        }
        assert_eq!(p.take_touched(), ["", "/s"]);
        p.push("d\"}");
        assert_eq!(p.take_touched(), ["/s"]);
        assert!(p.take_touched().is_empty());
    }
}
