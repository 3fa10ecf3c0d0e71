//! `qwen-xml`: the XML-ish call syntax of Qwen3-Coder and Qwen3.5:
//!
//! ```text
//! <tool_call>
//! <function=web_search>
//! <parameter=query>
//! Python 3.14 new features
//! </parameter>
//! </function>
//! </tool_call>
//! ```
//!
//! ```text
//!   Text ──<tool_call>──> Wrap ──<function=──> Name ──'>'──> Body ──<parameter=──> Key ──'>'──> Value
//!     └──<function=───────────────┘               ^  │                                         │
//!                                                 │  └──</function>──> After ──</tool_call>──> Text
//!                                                 └──────────────────</parameter>──────────────┘
//! ```
//!
//! Rules:
//!
//! - `ToolCallStart` at the `>` that ends the function name. The arguments are converted
//!   to JSON as they stream: `{"key":` as soon as a parameter name is complete, the
//!   closing `}` at `</function>` (`{}` when there were no parameters); `ToolCallEnd`
//!   follows right there.
//! - Parameter values are typed without a schema: a value is a JSON string unless its
//!   complete trimmed text parses as a JSON non-string (number, `true`/`false`/`null`,
//!   object, array), which is then copied as is. A value whose first non-space character
//!   cannot start a number, literal, object or array is certainly a string and streams
//!   (escaped) as it arrives; otherwise the value is held (bounded by
//!   `max_argument_bytes`) until it is decided — early, when it stops being valid JSON,
//!   or at its end. A value that is JSON text of a string (`"quoted"`) stays the string
//!   of its raw text, quotes included.
//! - Exactly one leading and one trailing newline of a value are stripped.
//! - Lenient: `<function=..>` without `<tool_call>`; a missing `</parameter>` (the next
//!   `<parameter=`, `</function>` or `</tool_call>` ends the value); a missing
//!   `</function>` (`</tool_call>` ends the call); a missing `</tool_call>` (text after
//!   `</function>` is text again). `<tool_call>` with nothing in it is dropped.
//! - Text outside parameters inside a function (other than whitespace) is reported as an
//!   `Error` without index after the call, carrying it. A malformed call (a function or
//!   parameter name running past a line or a limit, other text inside `<tool_call>`) →
//!   `Error` with the raw call text; a call cut off by the end of input → `Error`
//!   (`Truncated`) with its raw text.
//! - Text, `<think>` reasoning and whitespace before markers: see
//!   [`reasoning`](super::reasoning).

use crate::calls::{Calls, Slot};
use crate::event::{ErrorKind, Event};
use crate::limits::Limits;
use crate::scan::json::{JsonScanner, JsonStatus};
use crate::scan::marker::{Expect, Expected, Found, MarkerMatcher, MarkerSet};
use crate::scan::utf8::Utf8Holder;
use crate::text::hermes::{Raw, report};
use crate::text::reasoning::{ReasoningOptions, THINK, TextStage};

const TOOL_CALL: &str = "<tool_call>";
const END_TOOL_CALL: &str = "</tool_call>";
const FUNCTION: &str = "<function=";
const END_FUNCTION: &str = "</function>";
const PARAMETER: &str = "<parameter=";
const END_PARAMETER: &str = "</parameter>";

/// Longest function or parameter name.
const MAX_NAME: usize = 256;

/// Markers inside `<tool_call>` before the function: `<function=`, then `</tool_call>`.
const WRAP_FN: usize = 0;
/// Markers inside a function (and ending a value).
const B_END_PARAM: usize = 0;
const B_PARAM: usize = 1;
const B_END_FN: usize = 2;
const B_END_CALL: usize = 3;

#[inline]
fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Text,
    /// After `<tool_call>`.
    Wrap,
    /// Inside the function name (after `<function=`).
    Name,
    /// Inside the function, between parameters.
    Body,
    /// Inside a parameter name (after `<parameter=`).
    Key,
    /// Inside a parameter value.
    Value,
    /// After `</function>`: `</tool_call>` expected.
    After,
    /// Malformed: collecting raw text until the end marker.
    Skip(ErrorKind),
}

/// How a value is being emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum V {
    /// Only whitespace so far (held).
    Undecided,
    /// Could be JSON: held and scanned.
    Json,
    /// A string: streamed escaped.
    Str,
}

/// Scanner for `qwen-xml`. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct QwenXml {
    utf8: Utf8Holder,
    scratch: String,
    text: TextStage,
    st: St,
    wrap_set: MarkerSet,
    body_set: MarkerSet,
    after_set: MarkerSet,
    skip_call: MarkerSet,
    skip_fn: MarkerSet,
    matcher: MarkerMatcher,
    expect: Expect,
    raw: Raw,
    /// `<tool_call>` was seen for the current call.
    wrapped: bool,
    slot: Option<Slot>,
    started: bool,
    /// Name being collected (function or parameter).
    name: String,
    params: usize,
    v: V,
    /// Value start: the one leading newline is still to be stripped.
    lead: bool,
    /// A `\n` held at the end of a string value (stripped before its end marker).
    nl: bool,
    held: String,
    json: JsonScanner,
    json_end: Option<usize>,
    /// Converted argument text for this step.
    buf: String,
    /// Stray text inside a function.
    stray: Raw,
    max_args: usize,
    max_depth: usize,
}

impl QwenXml {
    pub(crate) fn new(limits: &Limits, opts: &ReasoningOptions) -> Self {
        QwenXml {
            utf8: Utf8Holder::new(),
            scratch: String::new(),
            text: TextStage::new(
                &[TOOL_CALL, FUNCTION],
                &["<|im_end|>", "<|endoftext|>"],
                THINK,
                opts,
                limits,
            ),
            st: St::Text,
            wrap_set: MarkerSet::new([FUNCTION, END_TOOL_CALL]),
            body_set: MarkerSet::new([END_PARAMETER, PARAMETER, END_FUNCTION, END_TOOL_CALL]),
            after_set: MarkerSet::new([END_TOOL_CALL]),
            skip_call: MarkerSet::new([END_TOOL_CALL]),
            skip_fn: MarkerSet::new([END_FUNCTION]),
            matcher: MarkerMatcher::new(),
            expect: Expect::default(),
            raw: Raw::new(limits.max_argument_bytes),
            wrapped: false,
            slot: None,
            started: false,
            name: String::new(),
            params: 0,
            v: V::Undecided,
            lead: true,
            nl: false,
            held: String::new(),
            json: JsonScanner::with_max_depth(limits.max_depth),
            json_end: None,
            buf: String::new(),
            stray: Raw::new(limits.max_argument_bytes),
            max_args: limits.max_argument_bytes,
            max_depth: limits.max_depth,
        }
    }

    pub(crate) fn retained(&self) -> usize {
        self.utf8.held()
            + self.text.retained()
            + self.matcher.held()
            + self.raw.len()
            + self.name.len()
            + self.held.len()
            + self.stray.len()
    }

    pub(crate) fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut Vec<Event>) {
        let mut scratch = std::mem::take(&mut self.scratch);
        let s = self.utf8.push(bytes, &mut scratch);
        self.run(&s, calls, out);
        drop(s);
        self.scratch = scratch;
    }

    fn begin(&mut self, wrapped: bool, marker: &str) {
        self.raw.start(marker);
        self.wrapped = wrapped;
        self.slot = None;
        self.started = false;
        self.name.clear();
        self.params = 0;
        self.stray.start("");
        self.matcher.clear();
        self.expect.reset();
    }

    /// Hands the converted argument text to the call. It is valid JSON by construction
    /// (escaped strings, values the value scanner accepted), so the call table does not
    /// scan it again; `complete`: it ends with the object's closing `}`.
    fn args_to(&mut self, complete: bool, calls: &mut Calls, out: &mut Vec<Event>) {
        if !self.buf.is_empty() || complete {
            if let Some(slot) = self.slot {
                calls.args_checked(slot, &self.buf, complete, out);
            }
            self.buf.clear();
        }
    }

    fn args(&mut self, calls: &mut Calls, out: &mut Vec<Event>) {
        self.args_to(false, calls, out);
    }

    fn run(&mut self, s: &str, calls: &mut Calls, out: &mut Vec<Event>) {
        self.steps(s, calls, out);
        self.args(calls, out);
    }

    fn steps(&mut self, mut s: &str, calls: &mut Calls, out: &mut Vec<Event>) {
        while !s.is_empty() {
            match self.st {
                St::Text => match self.text.run(&mut s, out) {
                    Some(0) => {
                        self.begin(true, TOOL_CALL);
                        self.st = St::Wrap;
                    }
                    Some(_) => {
                        self.begin(false, FUNCTION);
                        self.st = St::Name;
                    }
                    None => {}
                },
                St::Wrap => {
                    let Some(f) = self.matcher.next(&self.wrap_set, &mut s) else {
                        continue;
                    };
                    match f {
                        Found::Text(t) => {
                            self.raw.push(t);
                            if !t.trim_start_matches(is_ws).is_empty() {
                                self.st = St::Skip(ErrorKind::InvalidArguments);
                            }
                        }
                        Found::Marker(WRAP_FN) => {
                            self.raw.push(FUNCTION);
                            self.st = St::Name;
                        }
                        Found::Marker(_) => {
                            // `<tool_call></tool_call>`: no call.
                            self.end_call();
                        }
                    }
                }
                St::Name | St::Key => {
                    let stop = s.find(['>', '\n', '<']);
                    let (part, rest) = match stop {
                        Some(i) => (
                            s.get(..i).unwrap_or_default(),
                            s.get(i..).unwrap_or_default(),
                        ),
                        None => (s, ""),
                    };
                    self.raw.push(part);
                    s = rest;
                    if self.name.len() + part.len() > MAX_NAME {
                        // Not kept (the raw text has it): bounded in one piece too.
                        self.st = St::Skip(ErrorKind::InvalidArguments);
                        continue;
                    }
                    self.name.push_str(part);
                    match rest.as_bytes().first() {
                        Some(b'>') => {
                            self.raw.push(">");
                            s = rest.get(1..).unwrap_or_default();
                            self.name_done(calls, out);
                        }
                        Some(_) => self.st = St::Skip(ErrorKind::InvalidArguments),
                        None => {}
                    }
                }
                St::Body => {
                    let Some(f) = self.matcher.next(&self.body_set, &mut s) else {
                        continue;
                    };
                    match f {
                        Found::Text(t) => {
                            self.raw.push(t);
                            self.stray.push(t);
                        }
                        Found::Marker(m) => self.body_marker(m, calls, out),
                    }
                }
                St::Value => {
                    // The matcher is lent out so the text it returns can be used with `self`.
                    let mut matcher = std::mem::take(&mut self.matcher);
                    match matcher.next(&self.body_set, &mut s) {
                        None => {}
                        Some(Found::Text(t)) => {
                            self.raw.push(t);
                            self.value_text(t, calls, out);
                        }
                        Some(Found::Marker(m)) => {
                            self.value_end(calls, out);
                            self.body_marker(m, calls, out);
                        }
                    }
                    self.matcher = matcher;
                }
                St::After => {
                    if !self.wrapped {
                        self.end_call();
                        continue;
                    }
                    if self.expect.matched() == 0 {
                        let n = s.len() - s.trim_start_matches(is_ws).len();
                        s = s.get(n..).unwrap_or_default();
                        if s.is_empty() {
                            continue;
                        }
                    }
                    match self.expect.feed(&self.after_set, s) {
                        Expected::NeedMore => s = "",
                        Expected::Matched { consumed, .. } => {
                            s = s.get(consumed..).unwrap_or_default();
                            self.end_call();
                        }
                        Expected::Mismatch {
                            which,
                            len,
                            consumed,
                        } => {
                            s = s.get(consumed..).unwrap_or_default();
                            self.end_call();
                            let given = self.after_set.get(which).get(..len).unwrap_or_default();
                            self.text.give_back(given, out);
                        }
                    }
                }
                St::Skip(kind) => {
                    let set = if self.wrapped {
                        &self.skip_call
                    } else {
                        &self.skip_fn
                    };
                    let Some(f) = self.matcher.next(set, &mut s) else {
                        continue;
                    };
                    match f {
                        Found::Text(t) => self.raw.push(t),
                        Found::Marker(_) => {
                            self.raw.push(if self.wrapped {
                                END_TOOL_CALL
                            } else {
                                END_FUNCTION
                            });
                            report(
                                calls,
                                self.slot,
                                kind,
                                "a malformed <function=..> call",
                                &mut self.raw,
                                out,
                            );
                            self.end_call();
                        }
                    }
                }
            }
        }
    }

    /// A function or parameter name ended with `>`.
    fn name_done(&mut self, calls: &mut Calls, out: &mut Vec<Event>) {
        let name = self.name.trim_matches(is_ws);
        if self.st == St::Name {
            if name.is_empty() {
                self.st = St::Skip(ErrorKind::MissingName);
                return;
            }
            self.started = true;
            self.slot = calls.open(out);
            if let Some(slot) = self.slot {
                calls.set_name(slot, name, out);
            }
            self.name.clear();
            self.st = St::Body;
            return;
        }
        self.buf.clear();
        self.buf.push_str(if self.params == 0 { "{" } else { "," });
        self.params += 1;
        push_json_string(&mut self.buf, name);
        self.buf.push(':');
        self.name.clear();
        self.args(calls, out);
        self.v = V::Undecided;
        self.lead = true;
        self.nl = false;
        self.held.clear();
        self.json_end = None;
        self.st = St::Value;
    }

    /// A marker inside a function (after a value, or between parameters).
    fn body_marker(&mut self, m: usize, calls: &mut Calls, out: &mut Vec<Event>) {
        match m {
            B_END_PARAM => {
                self.raw.push(END_PARAMETER);
                self.st = St::Body;
            }
            B_PARAM => {
                self.raw.push(PARAMETER);
                self.st = St::Key;
            }
            _ => {
                self.raw.push(if m == B_END_FN {
                    END_FUNCTION
                } else {
                    END_TOOL_CALL
                });
                self.buf.push_str(if self.params == 0 { "{}" } else { "}" });
                self.args_to(true, calls, out);
                if let Some(slot) = self.slot {
                    calls.close_with_raw(slot, self.raw.as_str(), out);
                }
                let (stray, note) = self.stray.take();
                let kept = stray.trim_matches(is_ws);
                if !kept.is_empty() || !note.is_empty() {
                    out.push(Event::Error {
                        kind: ErrorKind::UnexpectedPayload,
                        message: format!(
                            "text outside the parameters of a <function=..> call{note}"
                        ),
                        index: None,
                        raw: kept.to_owned(),
                    });
                }
                if m == B_END_CALL {
                    self.wrapped = false;
                }
                self.st = St::After;
            }
        }
    }

    /// More text of a value.
    fn value_text(&mut self, mut t: &str, calls: &mut Calls, out: &mut Vec<Event>) {
        if self.lead {
            self.lead = false;
            t = t.strip_prefix('\n').unwrap_or(t);
        }
        if t.is_empty() {
            return;
        }
        match self.v {
            V::Undecided => {
                let body = t.trim_start_matches(is_ws);
                let Some(first) = body.chars().next() else {
                    // Only whitespace: held, and past the limit a string (the same
                    // value it would be at its end).
                    self.held.push_str(t);
                    if self.held.len() > self.max_args {
                        self.make_string(calls, out);
                    }
                    return;
                };
                if matches!(first, '-' | '0'..='9' | 't' | 'f' | 'n' | '{' | '[') {
                    self.v = V::Json;
                    // One level less: the value sits inside the arguments object.
                    self.json = JsonScanner::with_max_depth(self.max_depth.saturating_sub(1));
                    self.json_end = None;
                    let ws = t.len() - body.len();
                    self.held.push_str(t.get(..ws).unwrap_or_default());
                    let base = self.held.len();
                    self.held.push_str(body);
                    self.scan_held(base, calls, out);
                } else {
                    self.make_string(calls, out);
                    self.string_text(t);
                }
            }
            V::Json => {
                let base = self.held.len();
                self.held.push_str(t);
                self.scan_held(base, calls, out);
            }
            V::Str => self.string_text(t),
        }
    }

    /// A possibly-JSON value grew by `held[base..]`: over the argument limit it is a
    /// string (whatever the pieces it came in), otherwise the new text is scanned.
    fn scan_held(&mut self, base: usize, calls: &mut Calls, out: &mut Vec<Event>) {
        if self.held.len() > self.max_args {
            self.make_string(calls, out);
        } else {
            self.scan_json(base, calls, out);
        }
    }

    /// Scans `held[base..]` as JSON; turns the value into a string once it cannot be JSON.
    fn scan_json(&mut self, base: usize, calls: &mut Calls, out: &mut Vec<Event>) {
        let new = self.held.get(base..).unwrap_or_default();
        let bad = match self.json_end {
            // The value closed earlier: only whitespace may follow.
            Some(_) => !new.trim_start_matches(is_ws).is_empty(),
            None => match self.json.feed(new.as_bytes()) {
                JsonStatus::NeedMore => false,
                JsonStatus::Invalid { .. } => true,
                JsonStatus::Complete { consumed } => {
                    self.json_end = Some(base + consumed);
                    !new.get(consumed..)
                        .unwrap_or_default()
                        .trim_start_matches(is_ws)
                        .is_empty()
                }
            },
        };
        if bad {
            self.make_string(calls, out);
        }
    }

    /// The value is a string: open it and stream the held text.
    fn make_string(&mut self, calls: &mut Calls, out: &mut Vec<Event>) {
        self.v = V::Str;
        self.buf.push('"');
        let held = std::mem::take(&mut self.held);
        self.string_text(&held);
        self.held = held;
        self.held.clear();
        self.args(calls, out);
    }

    /// String text: escaped and streamed, holding one trailing newline.
    fn string_text(&mut self, t: &str) {
        if t.is_empty() {
            return;
        }
        if self.nl {
            self.buf.push_str("\\n");
            self.nl = false;
        }
        let t = match t.strip_suffix('\n') {
            Some(x) => {
                self.nl = true;
                x
            }
            None => t,
        };
        // Flushed at the end of the feed (or at the value's end): one delta per feed.
        escape_into(&mut self.buf, t);
    }

    /// The value ended (at a marker).
    fn value_end(&mut self, calls: &mut Calls, out: &mut Vec<Event>) {
        match self.v {
            V::Str => {}
            V::Undecided => {
                let mut held = std::mem::take(&mut self.held);
                if held.ends_with('\n') {
                    held.pop();
                }
                self.buf.push('"');
                escape_into(&mut self.buf, &held);
            }
            V::Json => {
                let complete = self.json_end.is_some() || self.json.finish();
                if complete {
                    self.buf.push_str(self.held.trim_matches(is_ws));
                    self.held.clear();
                    self.args(calls, out);
                    return;
                }
                self.make_string(calls, out);
            }
        }
        self.nl = false;
        self.buf.push('"');
        self.args(calls, out);
    }

    fn end_call(&mut self) {
        self.st = St::Text;
        self.slot = None;
        self.started = false;
        self.matcher.clear();
        self.expect.reset();
        self.raw.start("");
        self.name.clear();
        self.held.clear();
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut Vec<Event>) {
        if let Some(r) = self.utf8.finish() {
            self.run(r, calls, out);
        }
        let tail = self.matcher.finish().to_owned();
        match self.st {
            St::Text => {}
            St::Wrap if self.raw_is_blank() && tail.is_empty() => {
                // `<tool_call>` and nothing else: no call.
                self.end_call();
            }
            St::After => {
                let given = self.expect.text(&self.after_set).to_owned();
                self.end_call();
                self.text.give_back(&given, out);
            }
            St::Wrap | St::Name | St::Body | St::Key | St::Value | St::Skip(_) => {
                self.raw.push(&tail);
                let kind = match self.st {
                    St::Skip(k) => k,
                    _ => ErrorKind::Truncated,
                };
                report(
                    calls,
                    self.slot,
                    kind,
                    "the text ended inside a <function=..> call",
                    &mut self.raw,
                    out,
                );
                self.end_call();
            }
        }
        self.text.finish(out);
    }

    fn raw_is_blank(&self) -> bool {
        self.raw
            .as_str()
            .strip_prefix(TOOL_CALL)
            .is_some_and(|r| r.trim().is_empty())
    }
}

/// Appends `s` as a quoted JSON string.
fn push_json_string(buf: &mut String, s: &str) {
    buf.push('"');
    escape_into(buf, s);
    buf.push('"');
}

/// Appends `s` escaped for a JSON string (no quotes): runs of plain bytes are copied
/// whole, only the bytes that need it are escaped.
pub(crate) fn escape_into(buf: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(off) = bytes
        .get(start..)
        .and_then(crate::scan::find::find_json_special)
    {
        let i = start + off;
        buf.push_str(s.get(start..i).unwrap_or_default());
        let b = bytes.get(i).copied().unwrap_or_default();
        match b {
            b'"' => buf.push_str("\\\""),
            b'\\' => buf.push_str("\\\\"),
            b'\n' => buf.push_str("\\n"),
            b'\r' => buf.push_str("\\r"),
            b'\t' => buf.push_str("\\t"),
            0x08 => buf.push_str("\\b"),
            0x0C => buf.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                buf.push_str("\\u00");
                buf.push(char::from(
                    HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0'),
                ));
                buf.push(char::from(
                    HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0'),
                ));
            }
        }
        start = i + 1;
    }
    buf.push_str(s.get(start..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        let mut b = String::new();
        escape_into(&mut b, "a\"b\\c\nd\u{1}é");
        assert_eq!(b, "a\\\"b\\\\c\\nd\\u0001é");
        let v: String = serde_json::from_str(&format!("\"{b}\"")).unwrap_or_default();
        assert_eq!(v, "a\"b\\c\nd\u{1}é");
    }
}
