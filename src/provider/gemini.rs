//! Google Gemini `generateContent` streaming (`streamGenerateContent`), from Google AI
//! (generativelanguage.googleapis.com) and Vertex AI.
//!
//! The default framing is [`Framing::Auto`](crate::Framing::Auto): `alt=sse` bodies are
//! SSE, bodies without it are one streamed JSON array (`[{..}\n,\r\n{..}]`), recorded
//! payloads are NDJSON; the parser picks from the first significant byte.
//!
//! Only candidate 0 is decoded. Quirks handled, each with a test named after the server
//! that shows it:
//!
//! - `candidates[0].content.parts[]`: `text` → [`Event::Text`]; `thought: true` parts →
//!   [`Event::Reasoning`]; `thoughtSignature` (often kilobytes of base64, on its own part
//!   or beside a call) never reaches the text;
//! - `functionCall` parts are whole calls (name + `args` object): Start, the `args` JSON
//!   text as the server sent it (spacing and key order kept), End; several in one chunk
//!   (Gemini 2.x parallel calls); `args` missing or `{}` → `{}`; Gemini 3 call `id`s
//!   kept, generated ids otherwise;
//! - Vertex streamed arguments (`streamFunctionCallArguments`): `functionCall {name,
//!   willContinue: true}` starts a call, following `functionCall {partialArgs: [..]}`
//!   parts carry `jsonPath` (`$.a.b[0].c`) + typed value (`stringValue`, `numberValue`,
//!   `boolValue`, `nullValue`); a string entry with `willContinue` continues in the next
//!   entry for the same path. They are turned into JSON text as they arrive (append-only:
//!   objects, arrays and strings opened as the paths demand, strings escaped with
//!   `serde_json`). Bare `functionCall {willContinue: true}` keep-alives are ignored. The
//!   call ends at the first `functionCall` part without `willContinue` — normally the
//!   empty `functionCall {}` closer; one Vertex capture omits it and ends on the last
//!   `partialArgs` part — or at `finishReason`, a new named call, or end of input (then
//!   reported truncated). An entry that cannot be placed append-only (going back to an
//!   earlier array element, a path below a scalar) is an [`Event::Error`] with the entry;
//!   the call goes on;
//! - `finishReason` (`STOP` despite calls → `tool_calls`, `MAX_TOKENS`, `SAFETY`,
//!   `RECITATION`, `MALFORMED_FUNCTION_CALL`, ...) normalised; `promptFeedback.blockReason`
//!   (prompt blocked, no candidates) → `content_filter`-like reasons;
//! - `usageMetadata` on every chunk (cumulative; the last one wins):
//!   `promptTokenCount` / `candidatesTokenCount` / `totalTokenCount`;
//! - `error` objects (`{"error": {"code", "message", "status"}}`, as an SSE event or an
//!   array element) → [`Event::Error`] of kind provider with the payload.
//!
//! [`Event::Text`]: crate::Event::Text
//! [`Event::Reasoning`]: crate::Event::Reasoning
//! [`Event::Error`]: crate::Event::Error

use crate::calls::Slot;
use crate::event::{ErrorKind, Event, Usage};
use crate::provider::Sink;
use crate::provider::openai_chat::{clean_name, normalise_reason, provider_error_message};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use std::borrow::Cow;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Chunk<'a> {
    #[serde(borrow, default)]
    candidates: Option<Vec<Candidate<'a>>>,
    #[serde(default)]
    usage_metadata: Option<serde_json::Value>,
    #[serde(borrow, default)]
    prompt_feedback: Option<PromptFeedback<'a>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback<'a> {
    #[serde(borrow, default, deserialize_with = "crate::provider::opt_cow")]
    block_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate<'a> {
    #[serde(default)]
    index: Option<i64>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(borrow, default, deserialize_with = "crate::provider::opt_cow")]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(borrow, default)]
    parts: Option<Vec<Part<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part<'a> {
    #[serde(borrow, default, deserialize_with = "crate::provider::opt_cow")]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    thought: Option<bool>,
    #[serde(borrow, default)]
    function_call: Option<FunctionCall<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FunctionCall<'a> {
    #[serde(borrow, default, deserialize_with = "crate::provider::opt_cow")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::provider::opt_cow")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
    /// Kept raw, so an entry that cannot be placed is reported as sent.
    #[serde(borrow, default)]
    partial_args: Option<Vec<&'a RawValue>>,
    #[serde(default)]
    will_continue: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartialArg<'a> {
    #[serde(borrow, default, deserialize_with = "crate::provider::opt_cow")]
    json_path: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::provider::opt_cow")]
    string_value: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    number_value: Option<&'a RawValue>,
    #[serde(default)]
    bool_value: Option<bool>,
    /// `"nullValue": null` (or `"NULL_VALUE"`): present means null.
    #[serde(default, deserialize_with = "present")]
    null_value: bool,
    #[serde(default)]
    will_continue: Option<bool>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(d).map(|_| true)
}

/// Decoder state for one `gemini` response.
#[derive(Debug)]
pub(crate) struct Gemini {
    /// The Vertex streamed call receiving `partialArgs`.
    stream: Option<Streamed>,
    reason: Option<String>,
    usage: Option<Usage>,
    finished: bool,
    /// Reused buffer for argument text built from `partialArgs`.
    scratch: String,
}

#[derive(Debug)]
struct Streamed {
    slot: Slot,
    writer: PathWriter,
}

impl Gemini {
    pub(crate) fn new() -> Self {
        Gemini {
            stream: None,
            reason: None,
            usage: None,
            finished: false,
            scratch: String::new(),
        }
    }

    /// Bytes retained (the open JSON path of a streamed call).
    pub(crate) fn retained(&self) -> usize {
        self.stream.as_ref().map_or(0, |s| s.writer.retained())
    }

    pub(crate) fn message(&mut self, event: &str, data: &[u8], sink: &mut Sink<'_>) {
        let trimmed = data.trim_ascii();
        if trimmed.is_empty() || trimmed == b"[DONE]" {
            return;
        }
        let chunk: Chunk<'_> = match super::from_payload(trimmed) {
            Ok(c) => c,
            Err(e) => {
                let kind = if event == "error" {
                    ErrorKind::Provider
                } else {
                    ErrorKind::InvalidJson
                };
                sink.error(
                    kind,
                    format!("payload is not a GenerateContentResponse: {e}"),
                    data,
                );
                return;
            }
        };
        if let Some(err) = chunk.error {
            sink.error(ErrorKind::Provider, provider_error_message(err.get()), data);
        } else if event == "error" {
            sink.error(
                ErrorKind::Provider,
                "the server sent an error event".into(),
                data,
            );
        }
        if let Some(u) = chunk.usage_metadata.filter(serde_json::Value::is_object) {
            self.usage = Some(Usage::from_value(
                u,
                &["promptTokenCount"],
                &["candidatesTokenCount"],
            ));
        }
        if let Some(r) = chunk.prompt_feedback.and_then(|f| f.block_reason) {
            self.reason.get_or_insert_with(|| r.into_owned());
        }
        for cand in chunk.candidates.unwrap_or_default() {
            if cand.index.unwrap_or(0) != 0 {
                continue;
            }
            let parts = cand.content.and_then(|c| c.parts).unwrap_or_default();
            for part in parts {
                if let Some(fc) = part.function_call {
                    self.function_call(fc, sink);
                }
                if let Some(t) = part.text {
                    if part.thought == Some(true) {
                        sink.reasoning(&t);
                    } else {
                        sink.text(&t);
                    }
                }
            }
            if let Some(r) = cand.finish_reason {
                if self.reason.is_none() {
                    self.reason = gemini_reason(&r).map(str::to_owned);
                }
                self.end_stream(sink);
                sink.calls.close_all(sink.out);
            }
        }
    }

    fn function_call(&mut self, fc: FunctionCall<'_>, sink: &mut Sink<'_>) {
        let name = fc.name.as_deref().map(clean_name).filter(|n| !n.is_empty());
        let id = fc.id.as_deref().filter(|s| !s.is_empty());
        let args = fc.args.filter(|a| a.get() != "null");
        let partials = fc.partial_args.unwrap_or_default();
        let more = fc.will_continue == Some(true);
        let mut st = match (name, self.stream.take()) {
            (Some(name), open) => {
                // A new call: the streamed one (if any) is over.
                if let Some(st) = open {
                    self.close_stream(st, sink);
                }
                let Some(slot) = sink.calls.open(sink.out) else {
                    return;
                };
                if let Some(id) = id {
                    sink.calls.set_id(slot, id);
                }
                sink.calls.set_name(slot, name, sink.out);
                Streamed {
                    slot,
                    writer: PathWriter::default(),
                }
            }
            (None, Some(st)) => st,
            (None, None) => {
                if args.is_none() && partials.is_empty() {
                    // The `{}` closer or a keep-alive with no call open.
                    return;
                }
                // Arguments without a name: the call table reports it.
                let Some(slot) = sink.calls.open(sink.out) else {
                    return;
                };
                if let Some(id) = id {
                    sink.calls.set_id(slot, id);
                }
                Streamed {
                    slot,
                    writer: PathWriter::default(),
                }
            }
        };
        if let Some(a) = args {
            if st.writer.is_empty() {
                // Whole arguments, as the server sent them.
                sink.calls.args(st.slot, a.get(), sink.out);
                st.writer.closed = true;
            } else {
                sink.error(
                    ErrorKind::UnexpectedPayload,
                    "functionCall `args` after streamed partialArgs; ignored".into(),
                    a.get().as_bytes(),
                );
            }
        }
        for raw in partials {
            self.partial(&mut st, raw, sink);
        }
        if more && !st.writer.closed {
            self.stream = Some(st);
        } else {
            self.close_stream(st, sink);
        }
    }

    /// One `partialArgs` entry → argument text.
    fn partial(&mut self, st: &mut Streamed, raw: &RawValue, sink: &mut Sink<'_>) {
        let entry: PartialArg<'_> = match serde_json::from_str(raw.get()) {
            Ok(e) => e,
            Err(e) => {
                sink.error(
                    ErrorKind::UnexpectedPayload,
                    format!("partialArgs entry is not an object: {e}"),
                    raw.get().as_bytes(),
                );
                return;
            }
        };
        let value = if let Some(s) = &entry.string_value {
            Value::Str(s)
        } else if let Some(n) = entry.number_value {
            Value::Number(n.get())
        } else if let Some(b) = entry.bool_value {
            Value::Raw(if b { "true" } else { "false" })
        } else if entry.null_value {
            Value::Raw("null")
        } else {
            // A keep-alive entry without a value.
            return;
        };
        let Some(steps) = entry.json_path.as_deref().and_then(parse_path) else {
            sink.error(
                ErrorKind::UnexpectedPayload,
                "partialArgs entry without a usable jsonPath; ignored".into(),
                raw.get().as_bytes(),
            );
            return;
        };
        self.scratch.clear();
        let more = entry.will_continue == Some(true);
        match st.writer.write(steps, value, more, &mut self.scratch) {
            Ok(()) => sink.calls.args(st.slot, &self.scratch, sink.out),
            Err(why) => sink.error(
                ErrorKind::InvalidArguments,
                format!("partialArgs entry cannot be added to the arguments streamed so far ({why}); ignored"),
                raw.get().as_bytes(),
            ),
        }
    }

    /// Completes a streamed call: closes what its paths opened, then the call.
    fn close_stream(&mut self, mut st: Streamed, sink: &mut Sink<'_>) {
        self.scratch.clear();
        st.writer.close(&mut self.scratch);
        if !self.scratch.is_empty() {
            sink.calls.args(st.slot, &self.scratch, sink.out);
        }
        sink.calls.close(st.slot, sink.out);
    }

    /// The turn ended: a streamed call still open is complete.
    fn end_stream(&mut self, sink: &mut Sink<'_>) {
        if let Some(st) = self.stream.take() {
            self.close_stream(st, sink);
        }
    }

    pub(crate) fn finish(&mut self, sink: &mut Sink<'_>) {
        sink.end_text();
        if let Some(mut st) = self.stream.take() {
            // Cut off mid-call: whatever was built, without closing it (truncated).
            self.scratch.clear();
            st.writer.open_root(&mut self.scratch);
            if !self.scratch.is_empty() {
                sink.calls.args(st.slot, &self.scratch, sink.out);
            }
            sink.calls.close(st.slot, sink.out);
        }
        sink.calls.close_all(sink.out);
        if self.finished || (self.reason.is_none() && self.usage.is_none()) {
            return;
        }
        self.finished = true;
        let reason = normalise_reason(self.reason.as_deref(), sink.calls.any_started());
        sink.out.push(Event::Finish {
            reason,
            usage: self.usage.take(),
        });
    }
}

/// Gemini finish / block reasons with no common spelling, mapped before
/// [`normalise_reason`]. `None` for "unspecified".
fn gemini_reason(r: &str) -> Option<&str> {
    match r {
        "FINISH_REASON_UNSPECIFIED" | "BLOCKED_REASON_UNSPECIFIED" => None,
        "IMAGE_SAFETY" | "IMAGE_PROHIBITED_CONTENT" | "IMAGE_RECITATION" | "IMAGE_OTHER" => {
            Some("content_filter")
        }
        "UNEXPECTED_TOOL_CALL" | "TOO_MANY_TOOL_CALLS" | "MISSING_THOUGHT_SIGNATURE" => {
            Some("error")
        }
        other => Some(other),
    }
}

/// One `jsonPath` step.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// A typed `partialArgs` value.
#[derive(Debug, Clone, Copy)]
enum Value<'a> {
    /// String contents (unescaped).
    Str(&'a str),
    /// A number's JSON text, checked before writing.
    Number(&'a str),
    /// JSON text written as is (`true`, `false`, `null`).
    Raw(&'a str),
}

/// Parses `$.a.b[0]['c.d']` into steps; `None` when malformed or just `$`.
fn parse_path(p: &str) -> Option<Vec<Step>> {
    let mut rest = p.trim().strip_prefix('$')?;
    let mut steps = Vec::new();
    while let Some(c) = rest.chars().next() {
        match c {
            '.' => {
                let body = rest.get(1..)?;
                let end = body.find(['.', '[']).unwrap_or(body.len());
                let key = body.get(..end)?;
                if key.is_empty() {
                    return None;
                }
                steps.push(Step::Key(key.to_owned()));
                rest = body.get(end..)?;
            }
            '[' => {
                let body = rest.get(1..)?;
                match body.chars().next()? {
                    q @ ('\'' | '"') => {
                        let mut key = String::new();
                        let mut chars = body.char_indices().skip(1);
                        let mut end = None;
                        while let Some((i, ch)) = chars.next() {
                            if ch == '\\' {
                                key.push(chars.next()?.1);
                            } else if ch == q {
                                end = Some(i);
                                break;
                            } else {
                                key.push(ch);
                            }
                        }
                        let after = body.get(end? + 1..)?;
                        rest = after.strip_prefix(']')?;
                        steps.push(Step::Key(key));
                    }
                    _ => {
                        let close = body.find(']')?;
                        let n: usize = body.get(..close)?.trim().parse().ok()?;
                        steps.push(Step::Index(n));
                        rest = body.get(close + 1..)?;
                    }
                }
            }
            _ => return None,
        }
    }
    if steps.is_empty() { None } else { Some(steps) }
}

/// Most `null`s written to fill a skipped array index.
const MAX_PAD: usize = 1024;

/// Builds JSON text, append-only, from `(jsonPath, value)` entries.
///
/// ```text
///   $.a.b[0].c = 1   →  {"a":{"b":[{"c":1
///   $.a.b[1]   = "x" →  },"x"            (closes what the new path leaves)
///   close            →  ]}}
/// ```
/// `path` is the path of the last value written: the open containers are the values
/// at its proper prefixes, the kind of each given by the step below it.
#[derive(Debug, Default)]
struct PathWriter {
    path: Vec<Step>,
    /// The root container is written (`{`, or `[` for a `$[0]` path).
    opened: bool,
    root_array: bool,
    /// The last value is a string left open (`willContinue`).
    in_string: bool,
    /// The arguments are complete (closed, or sent whole).
    closed: bool,
}

fn open_char(step: &Step) -> char {
    match step {
        Step::Key(_) => '{',
        Step::Index(_) => '[',
    }
}

fn close_char(step: &Step) -> char {
    match step {
        Step::Key(_) => '}',
        Step::Index(_) => ']',
    }
}

/// Appends `s` JSON-escaped, without quotes.
fn escape_into(s: &str, out: &mut String) {
    let quoted = serde_json::to_string(s).unwrap_or_default();
    out.push_str(
        quoted
            .get(1..quoted.len().saturating_sub(1))
            .unwrap_or_default(),
    );
}

impl PathWriter {
    fn is_empty(&self) -> bool {
        !self.opened && !self.closed
    }

    fn retained(&self) -> usize {
        self.path
            .iter()
            .map(|s| match s {
                Step::Key(k) => k.len() + 8,
                Step::Index(_) => 8,
            })
            .sum()
    }

    fn open_root(&mut self, out: &mut String) {
        if !self.opened && !self.closed {
            self.opened = true;
            out.push(if self.root_array { '[' } else { '{' });
        }
    }

    /// Writes one entry; `more`: a string value continues in the next entry.
    fn write(
        &mut self,
        steps: Vec<Step>,
        value: Value<'_>,
        more: bool,
        out: &mut String,
    ) -> Result<(), &'static str> {
        if self.closed {
            return Err("the arguments are already complete");
        }
        if self.in_string && steps == self.path {
            let Value::Str(s) = value else {
                return Err("a non-string value for a string still open");
            };
            escape_into(s, out);
            if !more {
                out.push('"');
                self.in_string = false;
            }
            return Ok(());
        }
        if let Value::Number(n) = value
            && serde_json::from_str::<serde_json::Number>(n).is_err()
        {
            return Err("numberValue is not a JSON number");
        }
        let first = steps.first().ok_or("empty path")?;
        let root_array = matches!(first, Step::Index(_));
        if self.opened && root_array != self.root_array {
            return Err("the path's root is of the other kind");
        }
        let common = self
            .path
            .iter()
            .zip(&steps)
            .take_while(|(a, b)| a == b)
            .count();
        if common == steps.len() || (common == self.path.len() && !self.path.is_empty()) {
            return Err("the path is at or below a value already written");
        }
        let new = steps.get(common).ok_or("empty path")?;
        let pad = match (self.path.get(common), new) {
            (Some(Step::Key(_)), Step::Key(_)) | (None, Step::Key(_)) => 0,
            (Some(Step::Index(a)), Step::Index(b)) if b > a => b - a - 1,
            (None, Step::Index(b)) => *b,
            (Some(Step::Index(_)), Step::Index(_)) => {
                return Err("the array element was already written");
            }
            _ => return Err("an object key where an array index was used, or the reverse"),
        };
        let deeper_pad = steps
            .iter()
            .skip(common + 1)
            .any(|s| matches!(s, Step::Index(n) if *n > MAX_PAD));
        if pad > MAX_PAD || deeper_pad {
            return Err("the array index skips too far ahead");
        }
        // Emit (nothing above changed any state).
        if self.in_string {
            out.push('"');
            self.in_string = false;
        }
        if !self.opened {
            self.opened = true;
            self.root_array = root_array;
            out.push(open_char(first));
        }
        for step in self.path.iter().skip(common + 1).rev() {
            out.push(close_char(step));
        }
        if self.path.get(common).is_some() {
            out.push(',');
        }
        Self::member(new, pad, out);
        for step in steps.iter().skip(common + 1) {
            out.push(open_char(step));
            let pad = match step {
                Step::Index(n) => *n,
                Step::Key(_) => 0,
            };
            Self::member(step, pad, out);
        }
        match value {
            Value::Str(s) => {
                out.push('"');
                escape_into(s, out);
                if more {
                    self.in_string = true;
                } else {
                    out.push('"');
                }
            }
            Value::Number(t) | Value::Raw(t) => out.push_str(t.trim()),
        }
        self.path = steps;
        Ok(())
    }

    /// The key of an object member, or the `null`s before an array element.
    fn member(step: &Step, pad: usize, out: &mut String) {
        match step {
            Step::Key(k) => {
                out.push('"');
                escape_into(k, out);
                out.push_str("\":");
            }
            Step::Index(_) => {
                for _ in 0..pad {
                    out.push_str("null,");
                }
            }
        }
    }

    /// Closes the open string and containers.
    fn close(&mut self, out: &mut String) {
        if self.closed {
            return;
        }
        self.closed = true;
        if !self.opened {
            return;
        }
        if self.in_string {
            out.push('"');
            self.in_string = false;
        }
        for step in self.path.iter().skip(1).rev() {
            out.push(close_char(step));
        }
        out.push(if self.root_array { ']' } else { '}' });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(entries: &[(&str, Value<'_>, bool)]) -> Result<String, &'static str> {
        let mut w = PathWriter::default();
        let mut out = String::new();
        for (p, v, more) in entries {
            w.write(parse_path(p).ok_or("path")?, *v, *more, &mut out)?;
        }
        w.close(&mut out);
        Ok(out)
    }

    #[test]
    fn paths() {
        assert_eq!(
            parse_path("$.a.b[0]['c.d'][\"e\\\"\"]"),
            Some(vec![
                Step::Key("a".into()),
                Step::Key("b".into()),
                Step::Index(0),
                Step::Key("c.d".into()),
                Step::Key("e\"".into()),
            ])
        );
        assert_eq!(parse_path("$"), None);
        assert_eq!(parse_path("a.b"), None);
        assert_eq!(parse_path("$.a["), None);
        assert_eq!(parse_path("$..a"), None);
    }

    #[test]
    fn nested_arrays_and_objects() {
        let out = build(&[
            ("$.r.ing[0].amount", Value::Str("16 oz"), true),
            ("$.r.ing[0].amount", Value::Str(""), false),
            ("$.r.ing[0].name", Value::Str("a\"b"), false),
            ("$.r.ing[1].amount", Value::Number("0.5"), false),
            ("$.r.name", Value::Str("L"), false),
            ("$.r.steps[0]", Value::Str("x"), false),
            ("$.r.steps[2]", Value::Raw("true"), false),
            ("$.z", Value::Raw("null"), false),
        ])
        .unwrap_or_default();
        assert_eq!(
            out,
            r#"{"r":{"ing":[{"amount":"16 oz","name":"a\"b"},{"amount":0.5}],"name":"L","steps":["x",null,true]},"z":null}"#
        );
        assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
    }

    #[test]
    fn not_append_only() {
        assert!(
            build(&[
                ("$.a[1]", Value::Raw("1"), false),
                ("$.a[0]", Value::Raw("1"), false)
            ])
            .is_err()
        );
        assert!(
            build(&[
                ("$.a", Value::Raw("1"), false),
                ("$.a.b", Value::Raw("1"), false)
            ])
            .is_err()
        );
        assert!(
            build(&[
                ("$.a.b", Value::Raw("1"), false),
                ("$.a", Value::Raw("1"), false)
            ])
            .is_err()
        );
        assert!(build(&[("$.a", Value::Number("NaN"), false)]).is_err());
    }
}
