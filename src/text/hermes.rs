//! `hermes`: `<tool_call>{"name": .., "arguments": ..}</tool_call>` (Hermes 2/3, Qwen 2.5
//! and Qwen3, many fine-tunes), and [`JsonCall`], the streaming walker of a call object
//! that every JSON-call syntax shares. The `hermes` scanner is the
//! [`json_calls`](super::json_calls) scanner with its [`HERMES`] table:
//!
//! ```text
//!   Text ──<tool_call>──> Open ──'{'──> Object ──object closed──> After ──</tool_call>──> Text
//!                          │ </tool_call> or end: empty, dropped   │ other text: back to Text
//!                          └─ anything else ──> Skip (malformed) ──</tool_call>──> Error ──> Text
//! ```
//!
//! Quirks and rules:
//!
//! - With or without newlines around the JSON, several calls in a row, text around them;
//!   the text stage ([`reasoning`](super::reasoning)) handles `<think>` and drops the
//!   whitespace before `<tool_call>` and the end-of-turn tokens `<|im_end|>` /
//!   `<|endoftext|>`.
//! - `ToolCallStart` is emitted by the feed that completes the `"name"` string; the
//!   arguments are the model's own bytes: the value of `"arguments"` (or `"parameters"`)
//!   sliced out of the JSON text, its end found with [`JsonScanner`]. Arguments written
//!   before the name are buffered (bounded by `max_argument_bytes`) and flushed after the
//!   Start. An `"id"` before the name is used as the call id. Other keys are skipped.
//! - `ToolCallEnd` when the arguments value closes; a call without arguments gets `{}`
//!   when its object closes.
//! - `</tool_call>` ends the call; when it is missing, text after the closed JSON object
//!   is text again, and at the end of input a call whose JSON closed is complete.
//! - An empty `<tool_call>` (only whitespace up to `</tool_call>` or the end of the text)
//!   is no call and is dropped: watsonx granite-3-8b leaks the bare tag into `content`
//!   right before the server's own parsed calls.
//! - Malformed call text (not a JSON object, broken JSON, no name) → an `Error` carrying
//!   the call's raw text from `<tool_call>` through `</tool_call>`; for a call whose
//!   Start was emitted it is the call's error (with its index). A call cut off by the end
//!   of input → `Error` of kind `Truncated` with its bytes.

use crate::calls::{Calls, Slot, split_at_room};
use crate::event::ErrorKind;
use crate::event::EventSink;
use crate::limits::Limits;
use crate::scan::json::{JsonError, JsonScanner, JsonStatus};
use crate::scan::marker::{Expect, Expected, MarkerSet};
use crate::text::call::{Raw, to_call};
use crate::text::json_calls::{HERMES, JsonCalls};
use crate::text::reasoning::ReasoningOptions;
use crate::text::util::ReadsChars;

/// Longest key kept while walking a call object.
const MAX_KEY: usize = 64;

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Where the walker is in `{"name": .., "arguments": ..}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum W {
    /// Before `{`.
    Open,
    /// After `{`: a key or `}`.
    KeyOrEnd,
    /// After `,`: a key.
    Key,
    /// Inside a key string.
    KeyStr { esc: bool },
    /// After a key: `:`.
    Colon,
    /// After `:`: the value.
    Value,
    /// Inside the name or id string.
    Str { esc: bool },
    /// Inside the arguments value.
    Args,
    /// Inside a value that is skipped.
    Skip,
    /// After a value: `,` or `}`.
    After,
    /// The object closed.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Id,
    Args,
    Other,
}

impl Keys {
    fn field(&self, key: &str) -> Field {
        if self.name.contains(&key) {
            Field::Name
        } else if self.id.contains(&key) {
            Field::Id
        } else if self.args.contains(&key) {
            Field::Args
        } else {
            Field::Other
        }
    }
}

/// What [`JsonCall::feed`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Walk {
    /// All input consumed; the object is still open.
    NeedMore,
    /// The object closed (its `}` consumed).
    Done,
    /// Not a call object; the offending byte was not consumed.
    Invalid(ErrorKind),
}

/// The key names of a `{"name": .., "arguments": ..}` call object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Keys {
    /// Keys whose string value is the tool name.
    pub(crate) name: &'static [&'static str],
    /// Keys whose value is the arguments (the first one seen is used).
    pub(crate) args: &'static [&'static str],
    /// Keys whose string value, before the name, is the call id.
    pub(crate) id: &'static [&'static str],
}

/// `{"name": .., "arguments": ..}` with `"parameters"` accepted, and `"id"`.
pub(crate) const NAME_ARGUMENTS: Keys = Keys {
    name: &["name"],
    args: &["arguments", "parameters"],
    id: &["id"],
};

/// How a call object says which tool it calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Named fields: the name, the arguments and the id under these keys.
    Fields(Keys),
    /// The object's one key is the tool name, its value the arguments:
    /// `{"get_weather": {"city": "Paris"}}` (Apertus). A second key is malformed.
    NameKey,
}

/// Streams one call object (`{"name": .., "arguments": ..}`, or a [`Shape`]) into
/// [`Calls`]: Start when the name string closes, the arguments value's own bytes as
/// argument deltas.
#[derive(Debug)]
pub(crate) struct JsonCall {
    shape: Shape,
    w: W,
    field: Field,
    key: String,
    /// The raw name / id string, quotes included.
    sbuf: String,
    value: JsonScanner,
    id: String,
    args_seen: bool,
    args_done: bool,
    named: bool,
    slot: Option<Slot>,
    /// Within one [`feed`](JsonCall::feed): the bytes of its input already in the raw text.
    synced: usize,
    max_str: usize,
    max_depth: usize,
}

impl JsonCall {
    /// A walker for call objects of `shape`.
    pub(crate) fn with_shape(shape: Shape, limits: &Limits) -> Self {
        JsonCall {
            shape,
            w: W::Open,
            field: Field::Other,
            key: String::new(),
            sbuf: String::new(),
            value: JsonScanner::with_max_depth(limits.max_depth),
            id: String::new(),
            args_seen: false,
            args_done: false,
            named: false,
            slot: None,
            synced: 0,
            max_str: limits.max_held_bytes,
            max_depth: limits.max_depth,
        }
    }

    /// Starts over for the next object.
    pub(crate) fn reset(&mut self) {
        self.w = W::Open;
        self.key.clear();
        self.sbuf.clear();
        self.value = JsonScanner::with_max_depth(self.max_depth);
        self.id.clear();
        self.args_seen = false;
        self.args_done = false;
        self.named = false;
        self.slot = None;
    }

    /// The call's slot once it was opened: at its name, or at arguments written before
    /// its name (`None` before, or when the name came past the call limit).
    pub(crate) fn slot(&self) -> Option<Slot> {
        self.slot
    }

    /// Whether the name was seen (Start emitted, unless past the call limit).
    pub(crate) fn named(&self) -> bool {
        self.named
    }

    /// Whether the arguments value closed.
    pub(crate) fn args_done(&self) -> bool {
        self.args_done
    }

    /// Bytes retained.
    pub(crate) fn retained(&self) -> usize {
        self.sbuf.len() + self.key.len()
    }

    fn start(&mut self, name: &str, raw: &Raw, calls: &mut Calls, out: &mut dyn EventSink) {
        self.named = true;
        if self.slot.is_none() {
            self.slot = calls.open_raw(out);
        }
        if let Some(slot) = self.slot {
            calls.set_id(slot, &self.id);
            // Emits the arguments the call held since before its name (kept in `raw`).
            calls.set_name_with_args(slot, name, raw.args(), out);
        }
    }

    /// Hands argument bytes `piece`, at `at` in this feed's input `s` (scanned by
    /// `self.value`), to the call and to the raw text (the bytes of `s` before it first);
    /// `complete`: the value closed with them. Arguments before the name open the call,
    /// which holds them (bounded: past the bound, `Err` with the bytes of `piece` that
    /// fit, none taken; the call breaks right there, however the arguments were cut).
    #[allow(clippy::too_many_arguments)]
    fn deliver(
        &mut self,
        s: &str,
        at: usize,
        piece: &str,
        complete: bool,
        raw: &mut Raw,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Result<(), usize> {
        if !self.named && self.slot.is_none() {
            self.slot = Some(calls.open_unnamed());
        }
        raw.push(s.get(self.synced..at).unwrap_or_default());
        self.synced = at;
        let Some(slot) = self.slot else {
            // No call (named past the call limit): the bytes are only call text.
            return Ok(());
        };
        to_call(calls, slot, raw, piece, complete, out)?;
        self.synced = at + piece.len();
        Ok(())
    }

    /// The hot path of [`feed`](Self::feed) inside the arguments: when all of `s` is more
    /// of a string in the named call's arguments ([`JsonScanner::string_run`]), hands it
    /// to the call as `feed` would and returns `true`; otherwise returns `false` having
    /// done nothing.
    #[inline]
    pub(crate) fn args_run(
        &mut self,
        s: &str,
        raw: &mut Raw,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> bool {
        if self.w != W::Args || !self.named || !self.value.string_run(s.as_bytes()) {
            return false;
        }
        match self.slot {
            // Named: the call never refuses argument bytes.
            Some(slot) => drop(to_call(calls, slot, raw, s, false, out)),
            None => raw.push(s),
        }
        true
    }

    /// Walks `s`, the bytes it consumes going to the call's raw text `raw` (the arguments
    /// with [`Raw::push_args`], where the call reads them); returns the bytes consumed
    /// and what was found.
    pub(crate) fn feed(
        &mut self,
        s: &str,
        raw: &mut Raw,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> (usize, Walk) {
        self.synced = 0;
        let (n, walk) = self.walk(s, raw, calls, out);
        raw.push(s.get(self.synced..n).unwrap_or_default());
        (n, walk)
    }

    fn walk(
        &mut self,
        s: &str,
        raw: &mut Raw,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> (usize, Walk) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let Some(&b) = bytes.get(i) else { break };
            match self.w {
                W::Open | W::KeyOrEnd | W::Key | W::Colon | W::Value | W::After if is_ws(b) => {
                    i += 1;
                }
                W::Open => {
                    if b != b'{' {
                        return (i, Walk::Invalid(ErrorKind::InvalidJson));
                    }
                    self.w = W::KeyOrEnd;
                    i += 1;
                }
                W::KeyOrEnd | W::Key => {
                    if b == b'"' && self.shape == Shape::NameKey {
                        // The key is the name: read like a name string.
                        if self.named {
                            return (i, Walk::Invalid(ErrorKind::InvalidJson));
                        }
                        self.field = Field::Name;
                        self.sbuf.clear();
                        self.sbuf.push('"');
                        self.w = W::Str { esc: false };
                    } else if b == b'"' {
                        self.key.clear();
                        self.w = W::KeyStr { esc: false };
                    } else if b == b'}' && self.w == W::KeyOrEnd {
                        self.w = W::Done;
                        return (i + 1, Walk::Done);
                    } else {
                        return (i, Walk::Invalid(ErrorKind::InvalidJson));
                    }
                    i += 1;
                }
                W::KeyStr { esc } => {
                    let rest = bytes.get(i..).unwrap_or_default();
                    let (n, closed, esc) = string_run(rest, esc);
                    if self.key.len() + n <= MAX_KEY {
                        self.key.push_str(s.get(i..i + n).unwrap_or_default());
                    } else {
                        // Too long to be a field we read: not kept (bounded in one
                        // piece too). A bare `"` cannot occur in key text, so the
                        // key matches no field name however it continues.
                        self.key.clear();
                        self.key.push('"');
                    }
                    i += n;
                    if closed {
                        i += 1;
                        self.field = match self.shape {
                            Shape::Fields(k) => k.field(&self.key),
                            Shape::NameKey => Field::Other,
                        };
                        self.w = W::Colon;
                    } else {
                        self.w = W::KeyStr { esc };
                    }
                }
                W::Colon => {
                    if b != b':' {
                        return (i, Walk::Invalid(ErrorKind::InvalidJson));
                    }
                    self.w = W::Value;
                    i += 1;
                }
                W::Value => {
                    self.value = JsonScanner::with_max_depth(self.max_depth);
                    match self.field {
                        Field::Name | Field::Id
                            if b == b'"' && !(self.field == Field::Name && self.named) =>
                        {
                            self.sbuf.clear();
                            self.sbuf.push('"');
                            self.w = W::Str { esc: false };
                            i += 1;
                        }
                        Field::Args if !self.args_seen => {
                            self.args_seen = true;
                            self.w = W::Args;
                        }
                        _ => self.w = W::Skip,
                    }
                }
                W::Str { esc } => {
                    let rest = bytes.get(i..).unwrap_or_default();
                    let (n, closed, esc) = string_run(rest, esc);
                    let run = s.get(i..i + n).unwrap_or_default();
                    if self.sbuf.len() + n > self.max_str {
                        // The call breaks at the first character past the bound, however
                        // the string arrived (what fits is consumed up to there).
                        let (fit, _) =
                            split_at_room(run, self.max_str.saturating_sub(self.sbuf.len()));
                        self.sbuf.push_str(fit);
                        return (i + fit.len(), Walk::Invalid(ErrorKind::LimitExceeded));
                    }
                    self.sbuf.push_str(run);
                    i += n;
                    if closed {
                        i += 1;
                        self.sbuf.push('"');
                        self.w = W::After;
                        if self.shape == Shape::NameKey {
                            // `{"name": args}`: the value is the arguments.
                            self.w = W::Colon;
                        }
                        let decoded = serde_json::from_str::<String>(&self.sbuf).ok();
                        match (self.field, decoded) {
                            (Field::Name, Some(name)) if !name.is_empty() => {
                                self.start(&name, raw, calls, out);
                            }
                            (Field::Id, Some(id)) if !self.named => self.id = id,
                            _ => {}
                        }
                        if self.shape == Shape::NameKey {
                            self.field = Field::Args;
                        }
                    } else {
                        self.w = W::Str { esc };
                    }
                }
                W::Args | W::Skip => {
                    let rest = s.get(i..).unwrap_or_default();
                    let args = self.w == W::Args;
                    match self.value.feed(rest.as_bytes()) {
                        JsonStatus::NeedMore => {
                            if args
                                && let Err(fit) = self.deliver(s, i, rest, false, raw, calls, out)
                            {
                                return (i + fit, Walk::Invalid(ErrorKind::LimitExceeded));
                            }
                            i = bytes.len();
                        }
                        JsonStatus::Complete { consumed } => {
                            if args {
                                let value = rest.get(..consumed).unwrap_or_default();
                                if let Err(fit) = self.deliver(s, i, value, true, raw, calls, out) {
                                    return (i + fit, Walk::Invalid(ErrorKind::LimitExceeded));
                                }
                                self.args_done = true;
                            }
                            i += consumed;
                            self.w = W::After;
                        }
                        JsonStatus::Invalid { at, error } => {
                            // The valid prefix streams as it would have in smaller pieces.
                            if args
                                && let Err(fit) = self.deliver(
                                    s,
                                    i,
                                    rest.get(..at).unwrap_or_default(),
                                    false,
                                    raw,
                                    calls,
                                    out,
                                )
                            {
                                return (i + fit, Walk::Invalid(ErrorKind::LimitExceeded));
                            }
                            let kind = match error {
                                JsonError::TooDeep => ErrorKind::LimitExceeded,
                                _ if args => ErrorKind::InvalidArguments,
                                _ => ErrorKind::InvalidJson,
                            };
                            return (i + at, Walk::Invalid(kind));
                        }
                    }
                }
                W::After => {
                    match b {
                        b',' => self.w = W::Key,
                        b'}' => {
                            self.w = W::Done;
                            return (i + 1, Walk::Done);
                        }
                        _ => return (i, Walk::Invalid(ErrorKind::InvalidJson)),
                    }
                    i += 1;
                }
                W::Done => return (i, Walk::Done),
            }
        }
        (bytes.len(), Walk::NeedMore)
    }
}

/// Runs over string bytes: returns (bytes of content, whether the closing quote follows
/// them, escape state at the end).
#[inline]
fn string_run(rest: &[u8], mut esc: bool) -> (usize, bool, bool) {
    let mut i = 0;
    loop {
        if esc {
            if i >= rest.len() {
                return (i, false, true);
            }
            esc = false;
            i += 1;
            continue;
        }
        match crate::scan::find::find2(b'"', b'\\', rest.get(i..).unwrap_or_default()) {
            None => return (rest.len(), false, false),
            Some(off) => {
                i += off;
                if rest.get(i) == Some(&b'"') {
                    return (i, true, false);
                }
                esc = true;
                i += 1;
            }
        }
    }
}

/// After a call's value closed: whitespace, then the call's closing marker (the only
/// marker of `close`). Consumes from `s`. `None`: more input is needed; `Some(0)`: the
/// marker came; `Some(n)`: other text came, and the marker's first `n` bytes, held so
/// far, are text again (the rest of `s` too).
pub(crate) fn closing(expect: &mut Expect, close: &MarkerSet, s: &mut &str) -> Option<usize> {
    if expect.matched() == 0 {
        let n = s.bytes().take_while(|b| is_ws(*b)).count();
        *s = s.get(n..).unwrap_or_default();
        if s.is_empty() {
            return None;
        }
    }
    match expect.feed(close, s) {
        Expected::NeedMore => {
            *s = "";
            None
        }
        Expected::Matched { consumed, .. } => {
            *s = s.get(consumed..).unwrap_or_default();
            Some(0)
        }
        Expected::Mismatch { len, consumed, .. } => {
            *s = s.get(consumed..).unwrap_or_default();
            Some(len)
        }
    }
}

/// Scanner for `hermes`: the [`JsonCalls`] scanner with the [`HERMES`] table. See the
/// [module docs](self).
#[derive(Debug)]
pub(crate) struct Hermes(JsonCalls);

impl Hermes {
    pub(crate) fn new(limits: &Limits, opts: &ReasoningOptions) -> Self {
        Hermes(JsonCalls::new(&HERMES, limits, opts))
    }

    pub(crate) fn retained(&self) -> usize {
        self.0.retained()
    }

    pub(crate) fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        self.0.feed(bytes, calls, out);
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.0.finish(calls, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, merge_deltas};
    use serde_json::json;

    fn run(pieces: &[&str]) -> Vec<Event> {
        let mut calls = Calls::new(Limits::default());
        let mut h = Hermes::new(&Limits::default(), &ReasoningOptions::default());
        let mut out = Vec::new();
        for p in pieces {
            h.feed(p.as_bytes(), &mut calls, &mut out);
        }
        h.finish(&mut calls, &mut out);
        calls.close_all(&mut out);
        merge_deltas(&mut out);
        out
    }

    #[test]
    fn one_call_with_text() {
        let ev = run(&[
            "Hi \n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\nbye",
        ]);
        assert_eq!(
            ev,
            vec![
                Event::Text { delta: "Hi".into() },
                Event::ToolCallStart {
                    index: 0,
                    id: "call_0".into(),
                    name: "f".into()
                },
                Event::ToolCallArgs {
                    index: 0,
                    delta: "{\"a\": 1}".into()
                },
                Event::ToolCallEnd {
                    index: 0,
                    id: "call_0".into(),
                    name: "f".into(),
                    arguments: json!({"a": 1})
                },
                Event::Text {
                    delta: "\nbye".into()
                },
            ]
        );
    }

    #[test]
    fn nameless_call_with_arguments_does_not_count_against_max_calls() {
        let limits = Limits {
            max_calls: 1,
            ..Limits::default()
        };
        let text = "<tool_call>{\"arguments\": {\"a\": 1}}</tool_call>\
                    <tool_call>{\"arguments\": {}, \"name\": \"f\"}</tool_call>";
        // Whole and byte by byte: the same events.
        for piece in [text.len(), 1] {
            let mut calls = Calls::new(limits);
            let mut h = Hermes::new(&limits, &ReasoningOptions::default());
            let mut out = Vec::new();
            for p in text.as_bytes().chunks(piece) {
                h.feed(p, &mut calls, &mut out);
            }
            h.finish(&mut calls, &mut out);
            calls.close_all(&mut out);
            merge_deltas(&mut out);
            assert!(
                matches!(&out[..], [
                    Event::Error { kind: ErrorKind::MissingName, index: None, raw, .. },
                    Event::ToolCallStart { index: 0, .. },
                    Event::ToolCallArgs { .. },
                    Event::ToolCallEnd { index: 0, .. },
                ] if raw.starts_with("<tool_call>{") && raw.ends_with("</tool_call>")),
                "{out:?}"
            );
            assert_eq!(calls.retained(), 0);
        }
    }

    #[test]
    fn arguments_before_name() {
        let ev = run(&["<tool_call>{\"arguments\": {\"a\": [1]}, \"name\": \"g\"}</tool_call>"]);
        assert!(
            matches!(ev.get(2), Some(Event::ToolCallEnd { arguments, .. }) if arguments == &json!({"a": [1]})),
            "{ev:?}"
        );
    }

    /// `text` fed whole and byte by byte under `limits` (and declared tools): the same
    /// events, deltas merged; the call table keeps none of the argument bytes.
    fn run_limited(text: &str, limits: Limits, tools: Option<&str>) -> Vec<Event> {
        let mut all: Vec<Vec<Event>> = Vec::new();
        for piece in [text.len(), 1] {
            let declared = tools.map(|t| {
                std::sync::Arc::new(crate::tools::Tools::from_json(t).unwrap_or_default())
            });
            let mut calls = Calls::new(limits).with_declared(declared);
            let mut h = Hermes::new(&limits, &ReasoningOptions::default());
            let mut out = Vec::new();
            for p in text.as_bytes().chunks(piece) {
                h.feed(p, &mut calls, &mut out);
                assert_eq!(calls.retained(), 0);
            }
            h.finish(&mut calls, &mut out);
            calls.close_all(&mut out);
            merge_deltas(&mut out);
            all.push(out);
        }
        assert_eq!(all[0], all[1]);
        all.swap_remove(0)
    }

    /// The text before the arguments is longer than the raw text's bound: the error text
    /// would be cut there, but the call still has all its argument bytes.
    #[test]
    fn arguments_after_a_head_past_the_bound_are_kept() {
        let limits = Limits {
            max_argument_bytes: 32,
            ..Limits::default()
        };
        let pad = "x".repeat(40);
        let text = format!(
            "<tool_call>{{\"pad\": \"{pad}\", \"name\": \"f\", \"arguments\": {{\"a\": \"é€\"}}}}</tool_call>"
        );
        let ev = run_limited(&text, limits, None);
        assert!(
            matches!(&ev[..], [
                Event::ToolCallStart { index: 0, .. },
                Event::ToolCallArgs { delta, .. },
                Event::ToolCallEnd { arguments, .. },
            ] if delta == "{\"a\": \"é€\"}" && arguments == &json!({"a": "é€"})),
            "{ev:?}"
        );
        // Before the name too.
        let text = format!(
            "<tool_call>{{\"pad\": \"{pad}\", \"arguments\": {{\"a\": 1}}, \"name\": \"f\"}}</tool_call>"
        );
        let ev = run_limited(&text, limits, None);
        assert!(
            matches!(ev.get(2), Some(Event::ToolCallEnd { arguments, .. }) if arguments == &json!({"a": 1})),
            "{ev:?}"
        );
    }

    /// Arguments past `max_argument_bytes`: the call's error carries their first bytes;
    /// an undeclared call's error carries the call's text (its first bytes).
    #[test]
    fn arguments_past_the_bound() {
        let limits = Limits {
            max_argument_bytes: 16,
            ..Limits::default()
        };
        let text = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"0123456789abcdef\"}}</tool_call>";
        let ev = run_limited(text, limits, None);
        assert!(
            matches!(ev.last(), Some(Event::Error { kind: ErrorKind::LimitExceeded, index: Some(0), raw, message })
                if raw == "{\"a\": \"012345678" && message.ends_with("the first 16 bytes are kept, 9 dropped")),
            "{ev:?}"
        );
        let ev = run_limited(text, limits, Some(r#"[{"name": "g"}]"#));
        assert!(
            matches!(&ev[..], [Event::Error { kind: ErrorKind::UndeclaredTool, index: None, raw, .. }]
                if raw == "<tool_call>{\"nam"),
            "{ev:?}"
        );
    }
}
