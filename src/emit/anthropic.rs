//! Events → an Anthropic Messages stream (`POST /v1/messages` with `stream: true`).
//!
//! | event | written as |
//! |---|---|
//! | the first event | `message_start` (`id` `msg_…`, `type: "message"`, `role: "assistant"`, `model`, `content: []`, `stop_reason: null`, `stop_sequence: null`, `usage: {input_tokens: 0, output_tokens: 0}`: the counts are not known yet) |
//! | [`Event::Text`] | a `text` block (`content_block_start`, then `content_block_delta` `text_delta`) |
//! | [`Event::Reasoning`] | a `thinking` block (`thinking_delta`); before it stops, a `signature_delta` with an empty signature (there is none to give; the SDKs take any string) |
//! | [`Event::ToolCallStart`] | a `tool_use` block: `id` (see [`ids::to_anthropic`]), `name`, `input: {}` |
//! | [`Event::ToolCallArgs`] | `input_json_delta` with `partial_json`; a value that is not an object goes inside `{"input": ..}`, and a call that sent none gets `{}` |
//! | [`Event::ToolCallEnd`] | `content_block_stop` |
//! | [`Event::Finish`] | remembered: its reason and usage go out at `finish`, unless the stream turns out cut |
//! | `finish`, the stream complete | the open block stops, `message_delta` (`stop_reason`, `usage`), `message_stop` |
//! | [`Event::Error`] that [ends the stream](super::ends_the_stream) (`truncated`, `provider`, `unrecognized_input`) | `event: error` with `{"type": "error", "error": {"type": "api_error" \| "overloaded_error" \| "rate_limit_error", "message"}, "toolstream_error": {..}}`; nothing follows: no `content_block_stop`, no `message_delta`, no `message_stop` |
//! | any other [`Event::Error`] (one call failed, an undeclared tool, a payload skipped) | `event: ping` with `{"type": "ping", "toolstream_error": {"type", "message", "index"?, "raw"}}`; the stream goes on |
//!
//! A text block is closed when something else starts; blocks are numbered from 0 in the
//! order they start, as Anthropic does.
//!
//! **Parallel calls.** Anthropic content blocks never interleave (the SDKs' accumulators
//! and most clients assume one open block), while an OpenAI-style stream may interleave
//! the argument deltas of two calls. The emitter writes one call at a time: while a
//! `tool_use` block is open, other calls, text and reasoning are held back and written, in
//! their order, when its call ends. The first call streams live; a later one is written
//! the moment the earlier ones are done. (Closing a block early instead would tell the
//! client the earlier call is complete while its input is not.)
//!
//! **Errors.** The SDKs raise on `event: error` (`anthropic.APIStatusError` in Python,
//! `APIError` in TypeScript), so a cut stream or a provider error never reads as a complete
//! reply. A recoverable error goes out as a `ping` event carrying the extension field
//! `toolstream_error`: visible to `curl`, logs and hand-written readers, and skipped by every
//! client, which an event of a type of our own is not: the Anthropic SDKs skip event names
//! they do not know, but the Vercel AI SDK's `@ai-sdk/anthropic` validates every payload
//! against the types it knows and fails the stream on any other ("Type validation failed"),
//! while its `ping` schema lets extra fields through (tests/fronts.rs runs them). A call that failed keeps its argument text as sent (forwarded like the
//! [`openai_chat`](super::openai_chat) emitter does: not valid JSON), then its block stops:
//! the Python SDK's `messages.stream()` raises "Unable to parse tool parameter JSON", as it
//! does when Anthropic itself sends bad JSON; the `ping`'s `toolstream_error` after the block
//! names the call (`index`), and [`AnthropicEmitter::message`] leaves it out.
//!
//! **Usage.** Anthropic's `input_tokens` leave out prompt-cache reads and writes; the
//! emitter writes the input count minus the cached tokens as `input_tokens`, the cached
//! tokens as `cache_read_input_tokens` (and `cache_creation_input_tokens` when the
//! provider's own usage object named it), all in `message_delta`'s `usage` (which the SDKs
//! merge into the message). Counts that are not known are left out, except
//! `output_tokens`, which the SDKs require: 0.

use super::{ObjectArgs, Sequencer, error_object, ids, push_sse};
use crate::event::{ErrorKind, Event, FinishReason, ResponseMeta, Usage};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// Writes events as an Anthropic Messages SSE stream, and keeps the whole message for a
/// non-streamed reply ([`message`](AnthropicEmitter::message)).
///
/// Methods: builders ([`new`](AnthropicEmitter::new), [`id`](AnthropicEmitter::id),
/// [`model`](AnthropicEmitter::model)), input ([`response_meta`](AnthropicEmitter::response_meta),
/// [`event`](AnthropicEmitter::event), [`finish`](AnthropicEmitter::finish)), getters
/// ([`is_done`](AnthropicEmitter::is_done), [`message`](AnthropicEmitter::message)).
///
/// ```
/// use toolstream::{Event, FinishReason, emit::AnthropicEmitter};
///
/// let mut emitter = AnthropicEmitter::new().id("msg_1").model("m");
/// let mut sse = String::new();
/// emitter.event(&Event::ToolCallStart { index: 0, id: "call_a".into(), name: "ls".into() }, &mut sse);
/// emitter.event(&Event::ToolCallArgs { index: 0, delta: "{}".into() }, &mut sse);
/// emitter.event(&Event::ToolCallEnd { index: 0, id: "call_a".into(), name: "ls".into(), arguments: serde_json::json!({}) }, &mut sse);
/// emitter.event(&Event::Finish { reason: Some(FinishReason::ToolCalls), usage: None }, &mut sse);
/// emitter.finish(&mut sse);
/// let data: Vec<&str> = sse.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
/// assert_eq!(data, [
///     r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}"#,
///     r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_call_a","name":"ls","input":{}}}"#,
///     r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
///     r#"{"type":"content_block_stop","index":0}"#,
///     r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":0}}"#,
///     r#"{"type":"message_stop"}"#,
/// ]);
/// assert_eq!(emitter.message().unwrap()["content"][0]["id"], "toolu_call_a");
/// ```
///
/// Reading the output back with [`Format::Anthropic`](crate::Format::Anthropic) gives the
/// same text, reasoning and calls (ids in their Anthropic form, see [`ids`]; a value that is
/// not an object as `{"input": ..}`), the finish reason (`stop` for `end_turn`), and the
/// usage counts that were known (an unknown input count reads back as 0). An error that
/// ends the stream reads back as a provider error carrying the `error` payload (our kind,
/// call index and raw text inside its `toolstream_error`); recoverable errors are not read.
#[derive(Debug, Clone)]
pub struct AnthropicEmitter {
    id: String,
    model: String,
    /// `message_start` written.
    started: bool,
    /// The stream has ended: `message_stop` or `event: error` written.
    done: bool,
    seq: Sequencer,
    /// The index of the next content block.
    next_block: usize,
    open: Open,
    reason: Option<FinishReason>,
    usage: Option<Usage>,
    /// A call completed (the made-up stop reason is then `tool_use`).
    any_call: bool,
    /// The whole message so far: the blocks that stopped (failed calls left out).
    content: Vec<Value>,
    /// Recoverable errors, for the whole message's `toolstream_errors`.
    errors: Vec<Value>,
    /// The error body, when an error ended the stream.
    failed: Option<Value>,
    /// The `stop_reason` written at the end.
    stop_reason: Option<&'static str>,
    /// The `usage` written at the end.
    final_usage: Option<Value>,
}

/// The content block open.
#[derive(Debug, Clone)]
enum Open {
    None,
    Text { block: usize, text: String },
    Thinking { block: usize, text: String },
    Tool(Box<ToolBlock>),
}

#[derive(Debug, Clone)]
struct ToolBlock {
    block: usize,
    index: usize,
    /// The Anthropic id written.
    id: String,
    name: String,
    /// Argument text as received.
    sent: String,
    args: ObjectArgs,
}

impl Default for AnthropicEmitter {
    fn default() -> Self {
        Self::new()
    }
}

impl AnthropicEmitter {
    /// An emitter with a fresh unique message id (`msg_` and 32 random hex digits) and
    /// model `toolstream`; set them with the builder methods or keep the provider's with
    /// [`response_meta`](Self::response_meta).
    pub fn new() -> Self {
        AnthropicEmitter {
            id: format!("msg_{}", super::fresh_uuid().replace('-', "")),
            model: "toolstream".into(),
            started: false,
            done: false,
            seq: Sequencer::default(),
            next_block: 0,
            open: Open::None,
            reason: None,
            usage: None,
            any_call: false,
            content: Vec::new(),
            errors: Vec::new(),
            failed: None,
            stop_reason: None,
            final_usage: None,
        }
    }

    /// The message id written in `message_start`.
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }

    /// The model name written in `message_start`.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Passes on the provider's response id and model
    /// ([`Parser::response_meta`](crate::Parser::response_meta)): each one the response
    /// sent replaces the emitter's own, until `message_start` is written (ignored after).
    pub fn response_meta(&mut self, meta: &ResponseMeta) {
        if self.started {
            return;
        }
        if let Some(id) = &meta.id {
            id.clone_into(&mut self.id);
        }
        if let Some(model) = &meta.model {
            model.clone_into(&mut self.model);
        }
    }

    /// Whether the stream has ended: `message_stop` written, or an error that ends the
    /// stream (nothing is written after either).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Appends the SSE text for one event to `out` (nothing for events with no Anthropic
    /// equivalent, and nothing once the stream has ended). Events of a call other than
    /// the one whose block is open are held back (see the module docs).
    pub fn event(&mut self, event: &Event, out: &mut String) {
        if self.done {
            return;
        }
        let mut seq = std::mem::take(&mut self.seq);
        seq.push(event, &mut |e: &Event| self.write(e, out));
        self.seq = seq;
    }

    /// Ends the stream, unless an error already ended it: the open block stops, then
    /// `message_delta` with the stop reason (the [`Event::Finish`]'s, or when none came
    /// `tool_use` if a call completed, else `end_turn`) and the usage, then
    /// `message_stop`. A call still open (events that ended mid-call, which a parser never
    /// gives) ends the stream as `truncated` instead.
    pub fn finish(&mut self, out: &mut String) {
        if self.done {
            return;
        }
        if let Some(index) = self.seq.current() {
            let cut = Event::Error {
                path: None,
                kind: ErrorKind::Truncated,
                message: format!("the events ended inside tool call {index}"),
                index: Some(index),
                raw: String::new(),
            };
            self.write(&cut, out);
            return;
        }
        self.start(out);
        self.close_block(out);
        let stop = match self.reason.take() {
            Some(FinishReason::ToolCalls) | None if self.any_call => "tool_use",
            Some(FinishReason::Length) => "max_tokens",
            Some(FinishReason::ContentFilter) => "refusal",
            Some(FinishReason::Other(r)) => match r.as_str() {
                "stop_sequence" => "stop_sequence",
                "pause_turn" => "pause_turn",
                "model_context_window_exceeded" => "model_context_window_exceeded",
                _ => "end_turn",
            },
            _ => "end_turn",
        };
        let usage = anthropic_usage(self.usage.as_ref());
        push_sse(
            out,
            "message_delta",
            &json!({
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": usage,
            }),
        );
        push_sse(out, "message_stop", &json!({"type": "message_stop"}));
        self.stop_reason = Some(stop);
        self.final_usage = Some(usage);
        self.done = true;
    }

    /// The non-streamed reply: `Ok` with the Message object (`{"id", "type": "message",
    /// "role", "model", "content": [..], "stop_reason", "stop_sequence", "usage"}`) of
    /// the blocks written so far (`stop_reason` null until [`finish`](Self::finish)), or
    /// `Err` with Anthropic's error body (`{"type": "error", "error": {..}}`, the status
    /// 500 or 529 kind) when an error ended the stream: a cut stream never gives a
    /// complete message. Calls that failed are not in `content` (a client must not run
    /// them); recoverable errors are listed in the extension field `toolstream_errors`
    /// (absent when there were none). Text and thinking are in the block they streamed in;
    /// a thinking block's `signature` is empty.
    pub fn message(&self) -> Result<Value, Value> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let mut content = self.content.clone();
        match &self.open {
            Open::Text { text, .. } => content.push(json!({"type": "text", "text": text})),
            Open::Thinking { text, .. } => {
                content.push(json!({"type": "thinking", "thinking": text, "signature": ""}));
            }
            Open::Tool(_) | Open::None => {}
        }
        let usage = self
            .final_usage
            .clone()
            .unwrap_or_else(|| json!({"input_tokens": 0, "output_tokens": 0}));
        let mut usage = match usage {
            Value::Object(o) => o,
            _ => Map::new(),
        };
        usage.entry("input_tokens").or_insert(Value::from(0));
        let mut m = json!({
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": self.stop_reason,
            "stop_sequence": null,
            "usage": usage,
        });
        if !self.errors.is_empty()
            && let Some(o) = m.as_object_mut()
        {
            o.insert(
                "toolstream_errors".into(),
                Value::Array(self.errors.clone()),
            );
        }
        Ok(m)
    }

    fn start(&mut self, out: &mut String) {
        if self.started {
            return;
        }
        self.started = true;
        push_sse(
            out,
            "message_start",
            &json!({
                "type": "message_start",
                "message": {
                    "id": self.id,
                    "type": "message",
                    "role": "assistant",
                    "model": self.model,
                    "content": [],
                    "stop_reason": null,
                    "stop_sequence": null,
                    "usage": {"input_tokens": 0, "output_tokens": 0},
                },
            }),
        );
    }

    /// One event, in the order the sequencer gives.
    fn write(&mut self, event: &Event, out: &mut String) {
        if self.done {
            return;
        }
        match event {
            Event::Text { delta } if !delta.is_empty() => {
                self.start(out);
                if !matches!(self.open, Open::Text { .. }) {
                    self.close_block(out);
                    let block = self.open_block(json!({"type": "text", "text": ""}), out);
                    self.open = Open::Text {
                        block,
                        text: String::new(),
                    };
                }
                if let Open::Text { block, text } = &mut self.open {
                    text.push_str(delta);
                    let d = BlockDelta {
                        kind: "content_block_delta",
                        index: *block,
                        delta: DeltaBody::Text { text: delta },
                    };
                    push_block_delta(out, &d);
                }
            }
            Event::Reasoning { delta } if !delta.is_empty() => {
                self.start(out);
                if !matches!(self.open, Open::Thinking { .. }) {
                    self.close_block(out);
                    let block = self.open_block(
                        json!({"type": "thinking", "thinking": "", "signature": ""}),
                        out,
                    );
                    self.open = Open::Thinking {
                        block,
                        text: String::new(),
                    };
                }
                if let Open::Thinking { block, text } = &mut self.open {
                    text.push_str(delta);
                    let d = BlockDelta {
                        kind: "content_block_delta",
                        index: *block,
                        delta: DeltaBody::Thinking { thinking: delta },
                    };
                    push_block_delta(out, &d);
                }
            }
            Event::ToolCallStart { index, id, name } => {
                self.start(out);
                self.close_block(out);
                let tool_id = ids::to_anthropic(id);
                let block = self.open_block(
                    json!({"type": "tool_use", "id": tool_id, "name": name, "input": {}}),
                    out,
                );
                self.open = Open::Tool(Box::new(ToolBlock {
                    block,
                    index: *index,
                    id: tool_id,
                    name: name.clone(),
                    sent: String::new(),
                    args: ObjectArgs::default(),
                }));
            }
            Event::ToolCallArgs { index, delta } if !delta.is_empty() => {
                if let Open::Tool(t) = &mut self.open
                    && t.index == *index
                {
                    t.sent.push_str(delta);
                    let text = t.args.delta(delta);
                    push_json_delta(out, t.block, &text);
                }
            }
            Event::ToolCallEnd {
                index, arguments, ..
            } => {
                if let Open::Tool(t) = &self.open
                    && t.index == *index
                {
                    let end = t.args.end();
                    if !end.is_empty() {
                        push_json_delta(out, t.block, end);
                    }
                    self.content.push(json!({
                        "type": "tool_use",
                        "id": t.id,
                        "name": t.name,
                        "input": ObjectArgs::value(arguments),
                    }));
                    let block = t.block;
                    self.open = Open::None;
                    push_stop(out, block);
                    self.any_call = true;
                }
            }
            Event::Finish { reason, usage } => {
                if self.reason.is_none() {
                    self.reason.clone_from(reason);
                }
                if usage.is_some() {
                    self.usage.clone_from(usage);
                }
            }
            Event::Error {
                path: _,
                kind,
                message,
                index,
                raw,
            } => {
                let object = error_object(*kind, message, *index, raw);
                if super::ends_the_stream(*kind) {
                    let error =
                        json!({"type": anthropic_error_type(*kind, raw), "message": message});
                    let body = json!({
                        "type": "error",
                        "error": error,
                        "toolstream_error": object,
                    });
                    push_sse(out, "error", &body);
                    self.failed = Some(json!({"type": "error", "error": error}));
                    self.done = true;
                    return;
                }
                if let Open::Tool(t) = &mut self.open
                    && Some(t.index) == *index
                {
                    // Forward the argument text the parser held back (not valid JSON), so
                    // the client cannot take the call for a complete one; only when `raw`
                    // continues what was sent (see the openai_chat emitter).
                    if let Some(rest) = raw.strip_prefix(t.sent.as_str()).filter(|r| !r.is_empty())
                    {
                        let text = t.args.delta(rest);
                        push_json_delta(out, t.block, &text);
                    }
                    let block = t.block;
                    self.open = Open::None;
                    push_stop(out, block);
                }
                // A `ping`, which every client skips (see the module docs).
                push_sse(
                    out,
                    "ping",
                    &json!({"type": "ping", "toolstream_error": object}),
                );
                self.errors.push(object);
            }
            // Empty deltas, field events, variants added later.
            _ => {}
        }
    }

    /// Writes `content_block_start` for `block` and returns its index.
    fn open_block(&mut self, block: Value, out: &mut String) -> usize {
        let index = self.next_block;
        self.next_block += 1;
        push_sse(
            out,
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": block}),
        );
        index
    }

    /// Stops the open text or thinking block (a tool block stops at its call's end).
    fn close_block(&mut self, out: &mut String) {
        match std::mem::replace(&mut self.open, Open::None) {
            Open::Text { block, text } => {
                self.content.push(json!({"type": "text", "text": text}));
                push_stop(out, block);
            }
            Open::Thinking { block, text } => {
                let d = BlockDelta {
                    kind: "content_block_delta",
                    index: block,
                    delta: DeltaBody::Signature { signature: "" },
                };
                push_block_delta(out, &d);
                self.content
                    .push(json!({"type": "thinking", "thinking": text, "signature": ""}));
                push_stop(out, block);
            }
            other => self.open = other,
        }
    }
}

/// Writes a `content_block_delta` event: by hand (what `serde_json` writes for `d`, byte
/// for byte; see [`super::json`]), as it is written once per streamed chunk.
fn push_block_delta(out: &mut String, d: &BlockDelta<'_>) {
    use super::json::{push_str, push_usize};
    if !super::json::fast() {
        push_sse(out, "content_block_delta", d);
        return;
    }
    let (kind, key, value) = match d.delta {
        DeltaBody::Text { text } => ("text_delta", "text", text),
        DeltaBody::Thinking { thinking } => ("thinking_delta", "thinking", thinking),
        DeltaBody::Signature { signature } => ("signature_delta", "signature", signature),
        DeltaBody::InputJson { partial_json } => ("input_json_delta", "partial_json", partial_json),
    };
    out.push_str("event: content_block_delta\ndata: {\"type\":");
    push_str(out, d.kind);
    out.push_str(",\"index\":");
    push_usize(out, d.index);
    out.push_str(",\"delta\":{\"type\":\"");
    out.push_str(kind);
    out.push_str("\",\"");
    out.push_str(key);
    out.push_str("\":");
    push_str(out, value);
    out.push_str("}}\n\n");
}

fn push_json_delta(out: &mut String, block: usize, partial_json: &str) {
    let d = BlockDelta {
        kind: "content_block_delta",
        index: block,
        delta: DeltaBody::InputJson { partial_json },
    };
    push_block_delta(out, &d);
}

fn push_stop(out: &mut String, block: usize) {
    if super::json::fast() {
        out.push_str(
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":",
        );
        super::json::push_usize(out, block);
        out.push_str("}\n\n");
        return;
    }
    #[derive(Serialize)]
    struct Stop {
        #[serde(rename = "type")]
        kind: &'static str,
        index: usize,
    }
    push_sse(
        out,
        "content_block_stop",
        &Stop {
            kind: "content_block_stop",
            index: block,
        },
    );
}

/// Anthropic's error type for an error that ends the stream: the provider's own when its
/// payload names one Anthropic has (`overloaded_error`, `rate_limit_error`, ...), else
/// `api_error` (Anthropic's "unexpected error internal to our systems").
fn anthropic_error_type(kind: ErrorKind, raw: &str) -> &'static str {
    if kind == ErrorKind::Provider {
        for t in [
            "overloaded_error",
            "rate_limit_error",
            "invalid_request_error",
            "authentication_error",
            "permission_error",
            "not_found_error",
            "request_too_large",
        ] {
            if raw.contains(t) {
                return t;
            }
        }
    }
    "api_error"
}

/// The `usage` of `message_delta`: `output_tokens` (0 when unknown: the SDKs require it),
/// and when known `input_tokens` without the cache reads and writes,
/// `cache_read_input_tokens`, `cache_creation_input_tokens`.
fn anthropic_usage(u: Option<&Usage>) -> Value {
    let mut o = Map::new();
    let Some(u) = u else {
        o.insert("output_tokens".into(), Value::from(0));
        return Value::Object(o);
    };
    let created = u.raw_count("cache_creation_input_tokens");
    if let Some(input) = u.input_tokens {
        let cached = u.cached_input_tokens.unwrap_or(0);
        let fresh = input
            .saturating_sub(cached)
            .saturating_sub(created.unwrap_or(0));
        o.insert("input_tokens".into(), Value::from(fresh));
        if let Some(c) = created {
            o.insert("cache_creation_input_tokens".into(), Value::from(c));
        }
        if let Some(c) = u.cached_input_tokens {
            o.insert("cache_read_input_tokens".into(), Value::from(c));
        }
    }
    o.insert(
        "output_tokens".into(),
        Value::from(u.output_tokens.unwrap_or(0)),
    );
    Value::Object(o)
}

#[derive(Serialize)]
struct BlockDelta<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    index: usize,
    delta: DeltaBody<'a>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum DeltaBody<'a> {
    #[serde(rename = "text_delta")]
    Text { text: &'a str },
    #[serde(rename = "thinking_delta")]
    Thinking { thinking: &'a str },
    #[serde(rename = "signature_delta")]
    Signature { signature: &'a str },
    #[serde(rename = "input_json_delta")]
    InputJson { partial_json: &'a str },
}
