//! OpenAI Responses API streaming (`POST /v1/responses` with `stream: true`), and the
//! servers that speak it: Azure OpenAI, the ChatGPT Codex backend, AWS bedrock-mantle,
//! DeepSeek, LM Studio's Open Responses, llama-stack.
//!
//! The event is read from the `type` field inside each JSON payload, never from the SSE
//! `event:` line (bedrock-mantle sends the `data:` line *before* the `event:` line; the
//! SSE framer dispatches at the blank line either way). Output items are found by
//! `item_id`, else by `output_index`.
//!
//! ```text
//!   response.created ─> (output_item.added ─> ...delta* ─> ...done ─> output_item.done)*
//!                    ─> response.completed | .failed | .incomplete        (error anywhere)
//! ```
//!
//! Quirks and choices, each with a test named after the server that shows it:
//!
//! - `response.output_item.added` of a `function_call` opens a call: its `call_id` is the
//!   id (the item `id` only when there is no `call_id`) and its `name` emits
//!   [`Event::ToolCallStart`] at once;
//! - `response.function_call_arguments.delta` streams the arguments;
//! - servers that send the arguments only in the done events (LM Studio, and any server
//!   that skips deltas): when no delta arrived, the arguments are taken from
//!   `response.function_call_arguments.done`, else from `response.output_item.done`
//!   (else from a non-empty `arguments` in `output_item.added`). When deltas did arrive,
//!   a done text is never appended again: it is compared with what streamed, and if it
//!   differs an [`Event::Error`] (kind `unexpected_payload`, naming the call) carries the
//!   done text in `raw`; the call keeps the streamed text (and if that never closed, it
//!   is reported truncated as usual). The streamed text is not kept for this comparison
//!   (only its length and CRC-32: a copy would double the memory of a long call), so it
//!   is not repeated in the error — the call's `ToolCallArgs` events carry it. Function
//!   arguments are compared without the whitespace outside JSON strings (a server that
//!   re-serialises `{"b":1}` as `{"b": 1}` is not reported); a done text that differs in
//!   any other way (key order, string escapes) is;
//! - `response.output_item.done` closes the call (`{}` when no argument text came);
//! - **custom (free-form, grammar) tools** — `custom_tool_call` items, whose input is
//!   free text streamed by `response.custom_tool_call_input.delta`: the input is
//!   represented as a JSON *string*. The call's args deltas are its JSON-escaped text:
//!   `"` when the item is added, each input fragment escaped as it arrives, and the
//!   closing `"` at `response.custom_tool_call_input.done` (or `output_item.done`).
//!   So the args deltas concatenated are still JSON text, and the
//!   [`Event::ToolCallEnd`] `arguments` is a JSON string holding the raw input;
//! - `response.output_text.delta` (and `response.refusal.delta`) → [`Event::Text`];
//!   reasoning summary and reasoning text deltas (`response.reasoning_summary_text.delta`,
//!   `response.reasoning_text.delta`) → [`Event::Reasoning`]; the `.done` repeats of text
//!   are ignored;
//! - other output items (`message`, `reasoning`, `web_search_call`, `file_search_call`,
//!   `mcp_call`, tool search, ...) produce no call;
//! - `response.completed` / `.failed` / `.incomplete` → [`Event::Finish`] with the
//!   status normalised (`completed` → `stop`, or `tool_calls` when a call was made;
//!   `incomplete` → its `incomplete_details.reason`, e.g. `max_output_tokens` →
//!   `length`; `failed` → `error`, plus a provider [`Event::Error`] with the response's
//!   error) and usage from `input_tokens` / `output_tokens`;
//! - `error` events → [`Event::Error`] of kind provider with the payload as `raw`;
//! - unknown event types and fields (`obfuscation`, `logprobs`, `namespace`,
//!   `sequence_number`, ...) are ignored; `[DONE]` is ignored;
//! - the stream's end is `response.completed` / `.incomplete` / `.failed` / `.cancelled`
//!   (or an `error` event); without it, `finish` reports the stream `truncated` (see
//!   [`Sink::cut_off`]).

use crate::calls::Slot;
use crate::event::{ErrorKind, Event, Usage};
use crate::limits::Limits;
use crate::provider::{
    Envelope, Raw, RawStr, Sink, Str, json_string, provider_error_message, raw, read_struct,
};
use crate::scan::json::escape_json_as_serde;
use serde::Deserialize;
use serde_json::Value;

/// One `data:` payload; fields a type does not have are absent.
#[derive(Debug, PartialEq, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
struct Payload<'a> {
    #[serde(rename = "type")]
    kind: Option<Str<'a>>,
    output_index: Option<u64>,
    item_id: Option<Str<'a>>,
    item: Option<Item<'a>>,
    /// Kept raw and decoded into a reused buffer: a fragment with an escape would
    /// otherwise allocate.
    delta: Option<RawStr<'a>>,
    arguments: Option<Raw<'a>>,
    input: Option<Raw<'a>>,
    response: Option<Response<'a>>,
    error: Option<Raw<'a>>,
}

#[derive(Debug, PartialEq, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
struct Item<'a> {
    #[serde(rename = "type")]
    kind: Option<Str<'a>>,
    id: Option<Str<'a>>,
    call_id: Option<Str<'a>>,
    name: Option<Str<'a>>,
    arguments: Option<Raw<'a>>,
    input: Option<Raw<'a>>,
}

#[derive(Debug, PartialEq, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
struct Response<'a> {
    status: Option<Str<'a>>,
    /// Kept raw, for the response's [`ResponseMeta`](crate::ResponseMeta).
    id: Option<Raw<'a>>,
    model: Option<Raw<'a>>,
    created_at: Option<Raw<'a>>,
    usage: Option<Raw<'a>>,
    incomplete_details: Option<Details<'a>>,
    error: Option<Raw<'a>>,
}

#[derive(Debug, PartialEq, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
struct Details<'a> {
    reason: Option<Str<'a>>,
}

read_struct!(r, Payload {
    b"type" => kind: r.opt_str()?,
    b"output_index" => output_index: r.opt_index()?.map(i64::unsigned_abs),
    b"item_id" => item_id: r.opt_str()?,
    b"item" => item: r.opt(Item::read)?,
    b"delta" => delta: r.opt_raw_str()?,
    b"arguments" => arguments: r.opt_raw()?,
    b"input" => input: r.opt_raw()?,
    b"response" => response: r.opt(Response::read)?,
    b"error" => error: r.opt_raw()?,
});

read_struct!(r, Item {
    b"type" => kind: r.opt_str()?,
    b"id" => id: r.opt_str()?,
    b"call_id" => call_id: r.opt_str()?,
    b"name" => name: r.opt_str()?,
    b"arguments" => arguments: r.opt_raw()?,
    b"input" => input: r.opt_raw()?,
});

read_struct!(r, Response {
    b"status" => status: r.opt_str()?,
    b"id" => id: r.opt_raw()?,
    b"model" => model: r.opt_raw()?,
    b"created_at" => created_at: r.opt_raw()?,
    b"usage" => usage: r.opt_raw()?,
    b"incomplete_details" => incomplete_details: r.opt(Details::read)?,
    b"error" => error: r.opt_raw()?,
});

read_struct!(r, Details {
    b"reason" => reason: r.opt_str()?,
});

/// Event types whose payload must fit [`Payload`]; any other type that does not is
/// skipped as a newer event this decoder does not know.
const DECODED: &[&str] = &[
    "response.output_item.added",
    "response.output_item.done",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.custom_tool_call_input.delta",
    "response.custom_tool_call_input.done",
    "response.output_text.delta",
    "response.completed",
    "response.failed",
    "response.incomplete",
];

/// How a payload that does not fit [`Payload`] is reported.
const ENVELOPE: Envelope = Envelope {
    decoded: DECODED,
    event: "Responses stream event",
    not: "payload is not a Responses stream event",
    error_message: |trimmed, _| {
        provider_error_message(std::str::from_utf8(trimmed).unwrap_or_default())
    },
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallKind {
    /// `function_call`: JSON arguments.
    Function,
    /// `custom_tool_call`: free text, streamed as a JSON string.
    Custom,
}

/// One tool-call output item.
///
/// ```text
///   added ──delta*──> (done text: applied if no delta came, else compared) ──> closed
/// ```
#[derive(Debug)]
struct CallItem {
    output_index: Option<u64>,
    item_id: String,
    kind: CallKind,
    slot: Slot,
    /// What the call was given: the streamed argument text (function) or the raw input
    /// (custom), or the done text when nothing streamed. Its digest, to compare done
    /// texts with.
    given: Digest,
    /// Argument deltas arrived.
    streamed: bool,
    /// A done text was applied or compared: later deltas are not appended.
    settled: bool,
    /// Deltas that arrived after the arguments were settled (their digest).
    late: Digest,
    /// Custom: the closing `"` was sent.
    quoted: bool,
    closed: bool,
}

/// Length and CRC-32 of a text received in pieces, to compare a whole text with
/// without keeping the pieces. For function arguments (`json`), whitespace outside JSON
/// strings is left out, so a re-serialised text with other spacing digests the same.
#[derive(Debug, Clone)]
struct Digest {
    json: bool,
    /// Bytes digested (whitespace outside strings excluded for `json`).
    len: usize,
    crc: crc32fast::Hasher,
    /// `json`: inside a string, and just after a `\` in it.
    in_string: bool,
    escaped: bool,
}

impl Digest {
    fn new(kind: CallKind) -> Self {
        Digest {
            json: kind == CallKind::Function,
            len: 0,
            crc: crc32fast::Hasher::new(),
            in_string: false,
            escaped: false,
        }
    }

    /// The digest of `text` alone, in the same mode.
    fn of(&self, text: &str) -> Self {
        let mut d = Digest {
            json: self.json,
            ..Digest::new(CallKind::Custom)
        };
        d.push(text);
        d
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn update(&mut self, bytes: &[u8]) {
        self.len += bytes.len();
        self.crc.update(bytes);
    }

    fn push(&mut self, text: &str) {
        if !self.json {
            self.update(text.as_bytes());
            return;
        }
        let mut rest = text.as_bytes();
        while !rest.is_empty() {
            if self.in_string {
                if self.escaped {
                    // The escaped character (`\uXXXX` digits need no tracking).
                    self.escaped = false;
                    let (c, tail) = rest.split_at(1);
                    self.update(c);
                    rest = tail;
                    continue;
                }
                // Up to and including the next `"` or `\`.
                let Some(at) = memchr::memchr2(b'"', b'\\', rest) else {
                    self.update(rest);
                    break;
                };
                let (run, tail) = rest.split_at(at + 1);
                self.update(run);
                match run.last() {
                    Some(b'"') => self.in_string = false,
                    _ => self.escaped = true,
                }
                rest = tail;
            } else {
                // Up to the next whitespace or `"`; whitespace is skipped.
                let at = rest
                    .iter()
                    .position(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'"'))
                    .unwrap_or(rest.len());
                let (run, tail) = rest.split_at(at);
                self.update(run);
                match tail.split_first() {
                    Some((b'"', after)) => {
                        self.update(b"\"");
                        self.in_string = true;
                        rest = after;
                    }
                    Some((_, after)) => rest = after,
                    None => rest = tail,
                }
            }
        }
    }

    fn same(&self, other: &Digest) -> bool {
        self.len == other.len && self.crc.clone().finalize() == other.crc.clone().finalize()
    }
}

/// Decoder state for one `openai-responses` response.
#[derive(Debug)]
pub(crate) struct OpenAiResponses {
    items: Vec<CallItem>,
    /// Scratch for JSON-escaping custom tool input.
    escaped: String,
    /// Scratch for decoding delta strings that have escapes.
    unescaped: String,
    finished: bool,
    /// A terminal event (`response.completed` / `.incomplete` / `.failed` /
    /// `.cancelled`) or an `error` event arrived. Without it the stream was cut off (see
    /// [`Sink::cut_off`]).
    ended: bool,
    max_argument_bytes: usize,
}

impl OpenAiResponses {
    pub(crate) fn new(limits: &Limits) -> Self {
        OpenAiResponses {
            items: Vec::new(),
            escaped: String::new(),
            unescaped: String::new(),
            finished: false,
            ended: false,
            max_argument_bytes: limits.max_argument_bytes,
        }
    }

    /// Bytes retained beyond the call table: none that grow with the arguments (done
    /// texts are compared by digest); the items' ids.
    pub(crate) fn retained(&self) -> usize {
        self.items.iter().map(|i| i.item_id.len()).sum()
    }

    pub(crate) fn message(&mut self, event: &str, data: &[u8], sink: &mut Sink<'_>) {
        let Some(p) = ENVELOPE.read(event, data, Payload::read, sink) else {
            return;
        };
        let Some(kind) = p.kind.as_deref() else {
            self.ended |= p.error.is_some();
            ENVELOPE.untyped(p.error, provider_error_message, data, sink);
            return;
        };
        if let Some(r) = &p.response {
            sink.meta.fill(raw(r.id), raw(r.model), raw(r.created_at));
        }
        let item_id = p.item_id.as_deref();
        match kind {
            "response.function_call_arguments.delta" => {
                if let Some(d) = &p.delta {
                    let mut scratch = std::mem::take(&mut self.unescaped);
                    let d = d.decode(&mut scratch);
                    self.delta(CallKind::Function, item_id, p.output_index, d, sink);
                    self.unescaped = scratch;
                }
            }
            "response.custom_tool_call_input.delta" => {
                if let Some(d) = &p.delta {
                    let mut scratch = std::mem::take(&mut self.unescaped);
                    let d = d.decode(&mut scratch);
                    self.delta(CallKind::Custom, item_id, p.output_index, d, sink);
                    self.unescaped = scratch;
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                if let Some(d) = &p.delta {
                    sink.text(d.decode(&mut self.unescaped));
                }
            }
            "response.function_call_arguments.done" => {
                let mut buf = String::new();
                if let Some(a) = p.arguments.and_then(|a| string_value(a, &mut buf)) {
                    self.done_text(CallKind::Function, item_id, p.output_index, a, sink);
                }
            }
            "response.custom_tool_call_input.done" => {
                let mut buf = String::new();
                if let Some(a) = p.input.and_then(|a| string_value(a, &mut buf)) {
                    self.done_text(CallKind::Custom, item_id, p.output_index, a, sink);
                }
            }
            "response.output_item.added" => {
                if let Some(item) = p.item {
                    self.item_added(item, p.output_index, sink);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = p.item {
                    self.item_done(item, p.output_index, sink);
                }
            }
            "response.completed"
            | "response.failed"
            | "response.incomplete"
            | "response.cancelled" => {
                self.ended = true;
                self.terminal(kind, p.response, data, sink);
            }
            "error" => {
                let error = match p.error {
                    Some(e) => e.get(),
                    None => std::str::from_utf8(data.trim_ascii()).unwrap_or_default(),
                };
                sink.provider_error(error, data);
                self.ended = true;
            }
            k if k.starts_with("response.reasoning") && k.ends_with(".delta") => {
                if let Some(d) = &p.delta {
                    sink.reasoning(d.decode(&mut self.unescaped));
                }
            }
            // response.created / in_progress / content_part.* / *.done repeats / newer types.
            _ => {}
        }
    }

    fn find(&self, item_id: Option<&str>, output_index: Option<u64>) -> Option<usize> {
        let item_id = item_id.filter(|s| !s.is_empty());
        self.items.iter().rposition(|i| match item_id {
            Some(id) if !i.item_id.is_empty() => i.item_id == id,
            _ => output_index.is_some() && i.output_index == output_index,
        })
    }

    /// The call item of `item_id` (else `output_index`), or a new one (for a custom tool
    /// the opening `"` is sent now).
    fn find_or_open(
        &mut self,
        kind: CallKind,
        item_id: Option<&str>,
        output_index: Option<u64>,
        sink: &mut Sink<'_>,
    ) -> Option<usize> {
        if let Some(i) = self.find(item_id, output_index) {
            return Some(i);
        }
        let slot = sink.calls.open(sink.out)?;
        self.items.push(CallItem {
            output_index,
            item_id: item_id.unwrap_or_default().to_owned(),
            kind,
            slot,
            given: Digest::new(kind),
            streamed: false,
            settled: false,
            late: Digest::new(kind),
            quoted: false,
            closed: false,
        });
        if kind == CallKind::Custom {
            sink.calls.args(slot, "\"", sink.out);
        }
        Some(self.items.len() - 1)
    }

    /// The call item of an output item (`None` for other items): found, or opened (an
    /// item seen before, by deltas that came first, is completed, not opened twice),
    /// and given the item's id and name. Its index, and the text the item gives it (its
    /// arguments or input, `buf` decoding it; see [`string_value`]).
    fn item<'b>(
        &mut self,
        item: &Item<'b>,
        output_index: Option<u64>,
        buf: &'b mut String,
        sink: &mut Sink<'_>,
    ) -> Option<(usize, Option<&'b str>)> {
        let kind = call_kind(item.kind.as_deref())?;
        let i = self.find_or_open(kind, item.id.as_deref(), output_index, sink)?;
        self.identify(i, item, sink);
        let given = match kind {
            CallKind::Function => item.arguments,
            CallKind::Custom => item.input,
        };
        Some((i, given.and_then(|g| string_value(g, buf))))
    }

    fn item_added(&mut self, item: Item<'_>, output_index: Option<u64>, sink: &mut Sink<'_>) {
        let mut buf = String::new();
        let Some((i, given)) = self.item(&item, output_index, &mut buf, sink) else {
            return;
        };
        // A server that sends the whole arguments with the item: a done text.
        if let Some(text) = given.filter(|t| !t.is_empty()) {
            self.settle(i, text, sink);
        }
    }

    /// Records the id and name of an item; the name emits ToolCallStart.
    fn identify(&mut self, i: usize, item: &Item<'_>, sink: &mut Sink<'_>) {
        let Some(it) = self.items.get_mut(i) else {
            return;
        };
        if let Some(id) = item.id.as_deref().filter(|_| it.item_id.is_empty()) {
            it.item_id.push_str(id);
        }
        let id = item
            .call_id
            .as_deref()
            .filter(|s| !s.is_empty())
            .or(item.id.as_deref());
        sink.identify(it.slot, id, item.name.as_deref());
    }

    fn delta(
        &mut self,
        kind: CallKind,
        item_id: Option<&str>,
        output_index: Option<u64>,
        delta: &str,
        sink: &mut Sink<'_>,
    ) {
        if delta.is_empty() {
            return;
        }
        let Some(i) = self.find_or_open(kind, item_id, output_index, sink) else {
            return;
        };
        let Some(it) = self.items.get_mut(i) else {
            return;
        };
        if it.settled || it.closed {
            it.late.push(delta);
            return;
        }
        it.streamed = true;
        it.given.push(delta);
        pass_on(it, delta, &mut self.escaped, sink);
    }

    fn done_text(
        &mut self,
        kind: CallKind,
        item_id: Option<&str>,
        output_index: Option<u64>,
        text: &str,
        sink: &mut Sink<'_>,
    ) {
        if let Some(i) = self.find_or_open(kind, item_id, output_index, sink) {
            self.settle(i, text, sink);
        }
    }

    /// A done text for item `i`: applied when nothing streamed, else compared.
    fn settle(&mut self, i: usize, text: &str, sink: &mut Sink<'_>) {
        let Some(it) = self.items.get_mut(i) else {
            return;
        };
        if it.closed {
            return;
        }
        if !it.streamed && !it.settled {
            it.settled = true;
            it.given.push(text);
            pass_on(it, text, &mut self.escaped, sink);
        } else {
            it.settled = true;
            // Deltas that came after an applied done text are what is compared.
            let streamed = if it.late.is_empty() {
                &it.given
            } else {
                &it.late
            };
            // Past the argument limit the call failed anyway: not compared.
            if streamed.len <= self.max_argument_bytes && !streamed.same(&streamed.of(text)) {
                let id = sink.calls.id(it.slot).unwrap_or(&it.item_id);
                let what = match it.kind {
                    CallKind::Function => "arguments",
                    CallKind::Custom => "input",
                };
                sink.out.push(Event::Error { path: None,
                    kind: ErrorKind::UnexpectedPayload,
                    message: format!(
                        "the done {what} of tool call `{id}` differ from the {} bytes that streamed; the streamed {what} were kept (their ToolCallArgs events carry them)",
                        streamed.len
                    ),
                    index: None,
                    raw: format!("done: {text}"),
                });
            }
            it.late = Digest::new(it.kind);
        }
        if it.kind == CallKind::Custom && !it.quoted {
            it.quoted = true;
            sink.calls.args(it.slot, "\"", sink.out);
        }
    }

    fn item_done(&mut self, item: Item<'_>, output_index: Option<u64>, sink: &mut Sink<'_>) {
        let mut buf = String::new();
        let Some((i, given)) = self.item(&item, output_index, &mut buf, sink) else {
            return;
        };
        match given {
            Some(text) => self.settle(i, text, sink),
            None => {
                // No text in the done item: the call is what it got.
                if let Some(it) = self
                    .items
                    .get_mut(i)
                    .filter(|it| it.kind == CallKind::Custom && !it.quoted)
                {
                    it.quoted = true;
                    sink.calls.args(it.slot, "\"", sink.out);
                }
            }
        }
        if let Some(it) = self.items.get_mut(i) {
            it.closed = true;
            sink.calls.close(it.slot, sink.out);
        }
    }

    fn terminal(
        &mut self,
        kind: &str,
        response: Option<Response<'_>>,
        data: &[u8],
        sink: &mut Sink<'_>,
    ) {
        let (status, usage, reason, error) = match &response {
            Some(r) => (
                r.status.as_deref(),
                r.usage,
                r.incomplete_details
                    .as_ref()
                    .and_then(|d| d.reason.as_deref()),
                r.error.filter(|e| e.get() != "null"),
            ),
            None => (None, None, None, None),
        };
        let status = status.unwrap_or_else(|| kind.trim_start_matches("response."));
        if let Some(e) = error {
            sink.provider_error(e.get(), data);
        } else if status == "failed" {
            sink.error(ErrorKind::Provider, "the response failed".into(), data);
        }
        let reason = match status {
            "completed" => "stop",
            "failed" => "error",
            "incomplete" => reason.unwrap_or("incomplete"),
            other => other,
        };
        let usage = usage
            .and_then(|u| serde_json::from_str::<Value>(u.get()).ok())
            .filter(|u| u.is_object())
            .map(|u| {
                Usage::from_value(
                    u,
                    &["input_tokens", "prompt_tokens"],
                    &["output_tokens", "completion_tokens"],
                )
            });
        self.close_all(sink);
        sink.finish(&mut self.finished, Some(reason), usage);
    }

    fn close_all(&mut self, sink: &mut Sink<'_>) {
        sink.end_text();
        for it in &mut self.items {
            it.closed = true;
        }
        sink.calls.close_all(sink.out);
    }

    pub(crate) fn finish(&mut self, sink: &mut Sink<'_>) {
        if !self.ended {
            return sink.cut_off("`response.completed`, `.incomplete` or `.failed`", |sink| {
                self.close_all(sink)
            });
        }
        self.close_all(sink);
    }
}

/// Passes `text` on as the arguments of call item `it`: function arguments as they are,
/// custom input JSON-escaped (into `escaped`, reused).
fn pass_on(it: &CallItem, text: &str, escaped: &mut String, sink: &mut Sink<'_>) {
    match it.kind {
        CallKind::Function => sink.calls.args(it.slot, text, sink.out),
        CallKind::Custom => {
            escaped.clear();
            escape_json_as_serde(text, escaped);
            sink.calls.args(it.slot, escaped, sink.out);
        }
    }
}

fn call_kind(kind: Option<&str>) -> Option<CallKind> {
    match kind {
        Some("function_call") => Some(CallKind::Function),
        Some("custom_tool_call") => Some(CallKind::Custom),
        _ => None,
    }
}

/// The text of a JSON string value (decoded into `buf`, sized at once, when it has
/// escapes); `None` for `null` or a malformed string. Any other value (arguments sent as
/// an object instead of a string) is taken as its JSON text.
fn string_value<'a>(raw: Raw<'a>, buf: &'a mut String) -> Option<&'a str> {
    let text = raw.get();
    if text.starts_with('"') {
        if memchr::memchr(b'\\', text.as_bytes()).is_some() {
            buf.reserve_exact(text.len());
        }
        json_string(text, buf)
    } else if text == "null" {
        None
    } else {
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::json::check;

    #[test]
    fn field_scan_agrees_with_serde() {
        let extra = [
            r#"{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc","call_id":"c","name":"f","arguments":""}}"#,
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc","output_index":1,"delta":"{\"a\": \"\u00e9"}"#,
            r#"{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":1},"error":null}}"#,
        ];
        let rejects = [
            r#"{"type":"x","type":"y"}"#,
            r#"{"output_index":-1}"#,
            r#"{"delta":1}"#,
            r#"{"response":{"incomplete_details":[]}}"#,
        ];
        check::agrees("openai-responses", &extra, &rejects, 99, |t| {
            check::same_as_serde(t, Payload::read)
        });
    }

    fn digest_in_pieces(kind: CallKind, text: &str, piece: usize) -> Digest {
        let mut d = Digest::new(kind);
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = piece.min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            let (a, b) = rest.split_at(cut);
            d.push(a);
            rest = b;
        }
        d
    }

    #[test]
    fn digest_ignores_json_whitespace_only() {
        let streamed = "{\"a\": \"x y\\\" \\\\\", \"b\" :\n[1, 2]}";
        let same = "{\"a\":\"x y\\\" \\\\\",\"b\":[1,2]}";
        for piece in [1, 2, 3, 7, 100] {
            let d = digest_in_pieces(CallKind::Function, streamed, piece);
            assert!(d.same(&d.of(same)), "{piece}");
            assert!(d.same(&d.of(streamed)), "{piece}");
            // Spaces inside strings count.
            assert!(!d.same(&d.of("{\"a\":\"xy\\\" \\\\\",\"b\":[1,2]}")));
            assert!(!d.same(&d.of("{\"a\":\"x y\\\" \\\\\",\"b\":[1,3]}")));
            // Custom input is compared exactly.
            let c = digest_in_pieces(CallKind::Custom, streamed, piece);
            assert!(c.same(&c.of(streamed)));
            assert!(!c.same(&c.of(same)));
        }
    }
}
