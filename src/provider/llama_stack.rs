//! Llama Stack's native inference stream (`/v1/inference/chat-completion`, SSE `data:`
//! payloads of `ChatCompletionResponseStreamChunk`).
//!
//! ```text
//! {"event": {"event_type": "start"|"progress"|"complete",
//!            "delta": {"type": "text", "text": ".."}
//!                   | {"type": "tool_call", "parse_status": "..", "tool_call": ..},
//!            "stop_reason": null|"end_of_turn"|"end_of_message"|"out_of_tokens"},
//!  "metrics": null|[{"metric": "prompt_tokens", "value": 37}, ..]}
//! ```
//!
//! Quirks handled, each with a test named after the server that shows it:
//!
//! - text deltas (`delta.type: "text"`; older servers send `delta` as a bare string) →
//!   [`Event::Text`];
//! - tool calls stream as `parse_status` `started` → `in_progress` (`tool_call` is a
//!   *raw text fragment* of the model's call: JSON `{"type": "function", ...}`,
//!   pythonic `brave_search.call(query="...")`, or Python source for
//!   `code_interpreter`) → `succeeded` (`tool_call` is the parsed call: `call_id`,
//!   `tool_name`, `arguments` as an object, or a JSON string, or `arguments_json`) or
//!   `failed`. The raw fragments are not JSON arguments, so they are never streamed as
//!   [`Event::ToolCallArgs`]: the call's Start, Args (the arguments' JSON) and End are
//!   emitted when `succeeded` arrives (only it carries the call's id). The fragments are
//!   kept (bounded by `max_held_bytes`) until the verdict, then freed. `failed` → [`Event::Error`] carrying the raw
//!   fragments (older servers: `failure` / `success`, and `content` instead of
//!   `tool_call`; `tool_name` as `{"value": ..}`);
//! - **calls written as text** (Fireworks-backed Llama 3.x: the call streams as TEXT
//!   deltas, then only a final `succeeded` call). The server parses the whole text of the
//!   turn at its end, and a parsed call replaces it (its message content becomes empty).
//!   Rule: the turn's text is held back while it could be such a call — after leading
//!   whitespace it starts with `{`, `[`, `<|python_tag|>` or `<function=` (or is still a
//!   prefix of one of these), bounded by [`Limits::max_held_bytes`](crate::Limits) — and
//!   is dropped when a `succeeded` call follows, released as text at `started` (text
//!   before a streamed call), at the end of the turn, or when the bound is hit. Text that
//!   starts otherwise streams at once. So there is no duplicate call and no call syntax
//!   in the text;
//! - `stop_reason` (on the `succeeded` progress event and on `complete`) normalised —
//!   `end_of_turn` / `end_of_message` with calls are `tool_calls`, `out_of_tokens` is
//!   `length` — and `metrics` (`prompt_tokens`, `completion_tokens`, `total_tokens`) →
//!   usage, the metrics array kept as `raw`; one [`Event::Finish`] at `complete`;
//! - an `error` object → [`Event::Error`] of kind `provider`;
//! - the stream's end is the `complete` event (or an error); without it, `finish` reports
//!   the stream `truncated` (see [`Sink::cut_off`]).

use crate::event::{ErrorKind, Event, Usage};
use crate::limits::Limits;
use crate::provider::{Ending, Incoming, Raw, RawStr, Sink, Str, json_string, raw};
use serde::Deserialize;
use serde::de::Deserializer;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

#[derive(Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
struct Chunk<'a> {
    event: Option<ResponseEvent<'a>>,
    metrics: Option<Value>,
    error: Option<Raw<'a>>,
}

#[derive(Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
struct ResponseEvent<'a> {
    event_type: Option<Str<'a>>,
    delta: Option<StrOr<'a, Delta<'a>>>,
    stop_reason: Option<Str<'a>>,
}

#[derive(Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
struct Delta<'a> {
    #[serde(rename = "type")]
    kind: Option<Str<'a>>,
    text: Option<RawStr<'a>>,
    parse_status: Option<Str<'a>>,
    tool_call: Option<StrOr<'a, ToolCall<'a>>>,
    /// Older servers: the tool-call delta's payload.
    content: Option<StrOr<'a, ToolCall<'a>>>,
}

#[derive(Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
struct ToolCall<'a> {
    call_id: Option<Str<'a>>,
    tool_name: Option<StrOr<'a, EnumValue<'a>>>,
    arguments: Option<Raw<'a>>,
    arguments_json: Option<Str<'a>>,
}

/// A serialized enum: `{"__enum__": "BuiltinTool", "value": "brave_search"}`.
#[derive(Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
struct EnumValue<'a> {
    value: Option<Str<'a>>,
}

/// A field that is a string or an object. The string is kept as its raw JSON literal
/// (quotes included) and decoded where it is used, into a reused buffer: raw call
/// fragments are full of escapes, and a decoded `Cow` would allocate for each.
enum StrOr<'a, T> {
    Str(&'a str),
    Obj(T),
    /// `null`, or anything else.
    Neither,
}

impl<'de: 'a, 'a, T: Deserialize<'a>> Deserialize<'de> for StrOr<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'a RawValue>::deserialize(d)?;
        let text = raw.get();
        match text.as_bytes().first() {
            Some(b'"') => Ok(StrOr::Str(text)),
            Some(b'{') => serde_json::from_str(text)
                .map(StrOr::Obj)
                .map_err(serde::de::Error::custom),
            _ => Ok(StrOr::Neither),
        }
    }
}

/// What the turn's text is, as far as it is known.
///
/// ```text
///   Undecided ──starts with `{` `[` `<|python_tag|>` `<function=`──> Holding
///       │  (whitespace, or a prefix of a marker: stay)        │ succeeded call: dropped
///       └──anything else──> Passing <──released (started, end, bound)──┘
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextMode {
    /// Only whitespace, or a prefix of a marker, so far (held).
    Undecided,
    /// Looks like a call written as text (held).
    Holding,
    /// Plain text: streams as it comes.
    Passing,
}

/// Markers that start a call written as text, besides `{` and `[`.
const MARKERS: &[&str] = &["<|python_tag|>", "<function="];

/// Decoder state for one `llama-stack` response.
#[derive(Debug)]
pub(crate) struct LlamaStack {
    mode: TextMode,
    /// Text held back while it could be a call.
    held: String,
    /// A streamed call is under way (`started` / `in_progress` seen).
    in_call: bool,
    /// The raw fragments of the streamed call (kept for a `failed` call's error).
    raw: String,
    raw_dropped: usize,
    ending: Ending,
    /// The `complete` event or an error arrived: the stream has its end. Without it the
    /// stream was cut off (see [`Sink::cut_off`]).
    ended: bool,
    max_held: usize,
    /// Reused buffer for decoding strings that have escapes.
    scratch: String,
}

impl LlamaStack {
    pub(crate) fn new(limits: &Limits) -> Self {
        LlamaStack {
            mode: TextMode::Undecided,
            held: String::new(),
            in_call: false,
            raw: String::new(),
            raw_dropped: 0,
            ending: Ending::default(),
            ended: false,
            max_held: limits.max_held_bytes,
            scratch: String::new(),
        }
    }

    /// Bytes held back (text and raw call fragments).
    pub(crate) fn retained(&self) -> usize {
        self.held.len() + self.raw.len()
    }

    pub(crate) fn message(&mut self, event: &str, data: &[u8], sink: &mut Sink<'_>) {
        let what = "payload is not a llama-stack stream chunk";
        let Incoming::Payload(chunk) =
            super::read_message::<Chunk<'_>>(event, what, data, None, sink)
        else {
            return;
        };
        self.ended |= sink.payload_error(event, raw(chunk.error), data);
        if let Some(m) = chunk.metrics.filter(|m| !m.is_null()) {
            self.ending.usage = Some(usage_from(m));
        }
        let Some(ev) = chunk.event else { return };
        if let Some(r) = ev.stop_reason {
            self.ending.reason = Some(r.into_owned());
        }
        match ev.delta {
            Some(StrOr::Str(t)) => self.with_text(t, data, sink, Self::text),
            Some(StrOr::Obj(d)) => self.delta(d, data, sink),
            Some(StrOr::Neither) | None => {}
        }
        if ev.event_type.as_deref() == Some("complete") {
            self.ended = true;
            self.end(sink);
            self.ending.send(sink);
        }
    }

    fn delta(&mut self, d: Delta<'_>, data: &[u8], sink: &mut Sink<'_>) {
        let is_call = d.kind.as_deref() == Some("tool_call") || d.parse_status.is_some();
        if !is_call {
            if d.kind.as_deref().is_none_or(|k| k == "text")
                && let Some(t) = &d.text
            {
                self.with_text(t.0, data, sink, Self::text);
            }
            return;
        }
        let payload = d.tool_call.or(d.content);
        match d.parse_status.as_deref().unwrap_or("") {
            "succeeded" | "success" => match payload {
                Some(StrOr::Obj(call)) => {
                    // The call accounts for the text held back and the raw fragments.
                    self.held.clear();
                    self.mode = TextMode::Undecided;
                    self.clear_raw();
                    self.emit_call(call, sink);
                }
                _ => {
                    sink.error(
                        ErrorKind::UnexpectedPayload,
                        "a succeeded tool call without the parsed call".into(),
                        data,
                    );
                    self.clear_raw();
                }
            },
            "failed" | "failure" => {
                let mut raw = std::mem::take(&mut self.raw);
                if let Some(StrOr::Str(s)) = &payload
                    && raw.is_empty()
                {
                    // Reported raw: a string that cannot be decoded stays as sent.
                    raw.push_str(json_string(s, &mut self.scratch).unwrap_or(s));
                }
                if raw.is_empty() && self.mode == TextMode::Holding {
                    raw = std::mem::take(&mut self.held);
                    self.mode = TextMode::Undecided;
                }
                let message = format!(
                    "the server could not parse the tool call{}",
                    self.dropped_note()
                );
                sink.out.push(Event::Error {
                    path: None,
                    kind: ErrorKind::InvalidArguments,
                    message,
                    index: None,
                    raw,
                });
                self.in_call = false;
            }
            // started, in_progress, or unknown: raw call text.
            _ => {
                if !self.in_call {
                    // Text before a streamed call was not the call.
                    self.release(sink);
                    self.mode = TextMode::Undecided;
                    self.in_call = true;
                }
                if let Some(StrOr::Str(s)) = payload {
                    // Kept only for an error's raw text: a string that cannot be decoded
                    // stays as sent.
                    let s = json_string(s, &mut self.scratch).unwrap_or(s);
                    if self.raw.len() + s.len() <= self.max_held {
                        self.raw.push_str(s);
                    } else {
                        self.raw_dropped += s.len();
                    }
                }
            }
        }
    }

    /// The streamed call is resolved: its raw text is freed (not just cleared: it is
    /// as long as the call).
    fn clear_raw(&mut self) {
        self.raw = String::new();
        self.raw_dropped = 0;
        self.in_call = false;
    }

    /// A parsed call: Start, Args (the arguments' JSON), End.
    fn emit_call(&mut self, call: ToolCall<'_>, sink: &mut Sink<'_>) {
        let mut buf = String::new();
        let name = match &call.tool_name {
            Some(StrOr::Str(s)) => json_string(s, &mut buf),
            Some(StrOr::Obj(e)) => e.value.as_deref(),
            _ => None,
        };
        let Some(slot) = sink.open_call(call.call_id.as_deref(), name) else {
            return;
        };
        // Arguments as a JSON string (its contents are the JSON text) or as an object;
        // else `arguments_json`.
        match call.arguments.map(Raw::get).filter(|a| *a != "null") {
            Some(raw) => sink.arguments(slot, raw, &mut buf),
            None => {
                if let Some(j) = call.arguments_json.as_deref() {
                    sink.calls.args(slot, j, sink.out);
                }
            }
        }
        sink.calls.close(slot, sink.out);
    }

    /// Decodes the string literal `lit` (into the reused buffer) for `f`; a string with
    /// a lone surrogate escape, which has no text, is an error carrying the payload.
    fn with_text(
        &mut self,
        lit: &str,
        data: &[u8],
        sink: &mut Sink<'_>,
        f: impl FnOnce(&mut Self, &str, &mut Sink<'_>),
    ) {
        let mut scratch = std::mem::take(&mut self.scratch);
        match json_string(lit, &mut scratch) {
            Some(t) => f(self, t, sink),
            None => sink.error(
                ErrorKind::InvalidJson,
                "payload is not a llama-stack stream chunk: a string with a lone surrogate escape"
                    .into(),
                data,
            ),
        }
        self.scratch = scratch;
    }

    /// Visible text of the turn, held while it could be a call written as text.
    fn text(&mut self, t: &str, sink: &mut Sink<'_>) {
        if t.is_empty() {
            return;
        }
        if self.mode == TextMode::Passing {
            sink.text(t);
            return;
        }
        self.held.push_str(t);
        if self.mode == TextMode::Undecided {
            let s = self.held.trim_start();
            if !s.is_empty() {
                if s.starts_with('{')
                    || s.starts_with('[')
                    || MARKERS.iter().any(|m| s.starts_with(m))
                {
                    self.mode = TextMode::Holding;
                } else if !MARKERS.iter().any(|m| m.starts_with(s)) {
                    self.mode = TextMode::Passing;
                    self.release(sink);
                    return;
                }
            }
        }
        if self.held.len() > self.max_held {
            self.release(sink);
            self.mode = TextMode::Passing;
        }
    }

    /// Held text becomes visible text.
    fn release(&mut self, sink: &mut Sink<'_>) {
        if !self.held.is_empty() {
            let held = std::mem::take(&mut self.held);
            sink.text(&held);
            self.held = held;
            self.held.clear();
        }
    }

    /// End of the turn: held text is text; a streamed call never resolved is reported.
    fn end(&mut self, sink: &mut Sink<'_>) {
        self.release(sink);
        self.mode = TextMode::Undecided;
        if self.in_call {
            sink.out.push(Event::Error {
                path: None,
                kind: ErrorKind::Truncated,
                message: format!(
                    "the stream ended before the server reported the tool call's outcome{}",
                    self.dropped_note()
                ),
                index: None,
                raw: std::mem::take(&mut self.raw),
            });
            self.in_call = false;
        }
        sink.end();
    }

    /// What the error about the streamed call adds when fragments were over the bound
    /// (and forgets that count).
    fn dropped_note(&mut self) -> String {
        match std::mem::take(&mut self.raw_dropped) {
            0 => String::new(),
            dropped => format!(" ({dropped} bytes over the held-bytes limit dropped)"),
        }
    }

    pub(crate) fn finish(&mut self, sink: &mut Sink<'_>) {
        if !self.ended {
            return sink.cut_off("the `complete` event", |sink| self.end(sink));
        }
        self.end(sink);
        if self.ending.known() {
            self.ending.send(sink);
        }
    }
}

/// `[{"metric": "prompt_tokens", "value": 37}, ..]` → usage; the array kept as raw.
fn usage_from(metrics: Value) -> Usage {
    let mut counts = Map::new();
    if let Some(list) = metrics.as_array() {
        for m in list {
            if let (Some(name), Some(v)) = (m.get("metric").and_then(Value::as_str), m.get("value"))
            {
                counts.insert(name.to_owned(), v.clone());
            }
        }
    } else if let Some(obj) = metrics.as_object() {
        counts = obj.clone();
    }
    let mut u = Usage::from_value(
        Value::Object(counts),
        &["prompt_tokens"],
        &["completion_tokens"],
    );
    u.raw = metrics;
    u
}
