//! Events → an OpenAI Responses API stream (`POST /v1/responses` with `stream: true`).
//!
//! Every event is `event: <type>` / `data: {"type": <type>, "sequence_number": n, ..}`,
//! `sequence_number` counting from 0.
//!
//! | event | written as |
//! |---|---|
//! | the first event | `response.created`, `response.in_progress` (the Response object: `id` `resp_…`, `object: "response"`, `created_at`, `status: "in_progress"`, `model`, `output: []`, `usage: null`, ...) |
//! | [`Event::Text`] | a `message` item: `response.output_item.added`, `response.content_part.added` (`output_text`), `response.output_text.delta`s; when something else starts, `response.output_text.done`, `response.content_part.done`, `response.output_item.done` |
//! | [`Event::Reasoning`] | a `reasoning` item: `response.content_part.added` (`reasoning_text`) and `response.reasoning_text.delta`s (what gpt-oss servers send), or with [`reasoning_summary`](OpenAiResponsesEmitter::reasoning_summary) `response.reasoning_summary_part.added` and `response.reasoning_summary_text.delta`s (what OpenAI's reasoning models send); the matching `.done` events when it ends |
//! | [`Event::ToolCallStart`] | a `function_call` item (`id` `fc_…`, `call_id` see [`ids::to_responses_call_id`], `name`, `arguments: ""`, `status: "in_progress"`) |
//! | [`Event::ToolCallArgs`] | `response.function_call_arguments.delta`; a value that is not an object goes inside `{"input": ..}`, a call that sent none gets `{}` |
//! | [`Event::ToolCallEnd`] | `response.function_call_arguments.done`, `response.output_item.done` (`status: "completed"`) |
//! | [`Event::Finish`] | remembered: its reason and usage go out at `finish`, unless the stream turns out cut |
//! | `finish`, the stream complete | `response.completed` (`status: "completed"`); for a `length` reason `response.incomplete` (`incomplete_details.reason: "max_output_tokens"`), for `content_filter` `response.incomplete` (`"content_filter"`), for an `error` reason `response.failed`; each with the full `output` and `usage` |
//! | [`Event::Error`] that [ends the stream](super::ends_the_stream) (`truncated`, `provider`, `unrecognized_input`) | `response.failed` (`status: "failed"`, `error: {"code": "server_error", "message"}`, the output so far, an unfinished item `status: "incomplete"`), with the extension field `toolstream_error`; nothing follows |
//! | any other [`Event::Error`] | `event: keepalive` with `{"type": "keepalive", "sequence_number", "toolstream_error": {"type", "message", "index"?, "raw"}}`; the stream goes on |
//!
//! `output_index` numbers the items from 0 in the order they are added; `item_id` is the
//! item's `id`; `content_index` / `summary_index` is 0 (one part per item).
//!
//! **Clients.** Codex reads `response.output_item.done` items (it runs a function call
//! when its item is done), the text and reasoning deltas (`summary_index` /
//! `content_index` required), and needs `response.completed` with the response `id`; a
//! stream without it is an error ("stream closed before response.completed"), and
//! `response.failed`'s `error.message` is what it reports. The openai SDKs'
//! `responses.stream()` needs `response.created` first and raises from
//! `get_final_response()` without `response.completed`; they raise at once on a payload
//! with a top-level `error` key, which is why the extension fields are named
//! `toolstream_error`. A recoverable error rides on a `keepalive` event, which every
//! client skips: unknown event types are skipped by Codex and typed loosely by the Python
//! SDK, but the Node SDK's `responses.stream()` fails on one ("Unhandled response stream
//! event"), while it passes `keepalive` by (tests/fronts.rs runs them).
//!
//! **Usage.** `usage` is `null` when the response sent none; otherwise it is the object
//! the SDKs and Codex require whole: `input_tokens`, `input_tokens_details.cached_tokens`,
//! `output_tokens`, `output_tokens_details.reasoning_tokens`, `total_tokens`, each count
//! that is not known written as 0 (the total as input + output).
//!
//! **Parallel calls** are written one item at a time, as the Responses API does (see
//! [`anthropic`](super::anthropic) for how: a later call's events wait for the earlier
//! call's end).
//!
//! **A call that failed** (invalid arguments, a limit): its argument text as sent is
//! forwarded (not valid JSON), then no `response.output_item.done`: Codex runs a function
//! call when its item is done, so the failed call is never handed to it as one. In the
//! final `output` it is an item with `status: "incomplete"`; the `keepalive` event's
//! `toolstream_error` names it (`index`).

use super::{ObjectArgs, Sequencer, error_object, ids, push_sse};
use crate::event::{ErrorKind, Event, FinishReason, ResponseMeta, Usage};
use crate::translate::ToolOrigin;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// Writes events as an OpenAI Responses API SSE stream, and keeps the whole Response for
/// a non-streamed reply ([`response`](OpenAiResponsesEmitter::response)).
///
/// Methods: builders ([`new`](OpenAiResponsesEmitter::new),
/// [`id`](OpenAiResponsesEmitter::id), [`model`](OpenAiResponsesEmitter::model),
/// [`created_at`](OpenAiResponsesEmitter::created_at),
/// [`reasoning_summary`](OpenAiResponsesEmitter::reasoning_summary)), input
/// ([`response_meta`](OpenAiResponsesEmitter::response_meta),
/// [`event`](OpenAiResponsesEmitter::event), [`finish`](OpenAiResponsesEmitter::finish)),
/// getters ([`is_done`](OpenAiResponsesEmitter::is_done),
/// [`response`](OpenAiResponsesEmitter::response)).
///
/// ```
/// use toolstream::{Event, FinishReason, emit::OpenAiResponsesEmitter};
///
/// let mut emitter = OpenAiResponsesEmitter::new().id("resp_1").model("m").created_at(1);
/// let mut sse = String::new();
/// emitter.event(&Event::ToolCallStart { index: 0, id: "a".into(), name: "ls".into() }, &mut sse);
/// emitter.event(&Event::ToolCallArgs { index: 0, delta: "{}".into() }, &mut sse);
/// emitter.event(&Event::ToolCallEnd { index: 0, id: "a".into(), name: "ls".into(), arguments: serde_json::json!({}) }, &mut sse);
/// emitter.finish(&mut sse);
/// let types: Vec<&str> = sse.lines().filter_map(|l| l.strip_prefix("event: ")).collect();
/// assert_eq!(types, [
///     "response.created",
///     "response.in_progress",
///     "response.output_item.added",
///     "response.function_call_arguments.delta",
///     "response.function_call_arguments.done",
///     "response.output_item.done",
///     "response.completed",
/// ]);
/// let response = emitter.response();
/// assert_eq!(response["status"], "completed");
/// assert_eq!(response["output"][0]["call_id"], "call_a");
/// assert_eq!(response["output"][0]["arguments"], "{}");
/// ```
///
/// Reading the output back with [`Format::OpenAiResponses`](crate::Format::OpenAiResponses)
/// gives the same text, reasoning and calls (ids in their `call_id` form, see [`ids`]; a
/// value that is not an object as `{"input": ..}`), the finish reason (`tool_calls` when a
/// call was made, else `stop`; `length`; `content_filter`) and the known usage counts. An
/// error that ends the stream reads back as an `error` finish and a provider error with
/// its message.
#[derive(Debug, Clone)]
pub struct OpenAiResponsesEmitter {
    id: String,
    model: String,
    created_at: u64,
    /// Item ids are `<kind>_<item_base>_<n>`.
    item_base: String,
    summary: bool,
    /// The next `sequence_number`.
    sequence: u64,
    started: bool,
    done: bool,
    seq: Sequencer,
    /// The items written so far (the open one last, updated when it closes).
    output: Vec<Value>,
    open: Open,
    reason: Option<FinishReason>,
    usage: Option<Usage>,
    any_call: bool,
    errors: Vec<Value>,
    /// `completed`, `incomplete`, `failed` once ended.
    status: &'static str,
    incomplete_reason: Option<&'static str>,
    error: Option<Value>,
    final_usage: Value,
    /// Functions standing for a client tool of another kind, by function name.
    origins: BTreeMap<String, ToolOrigin>,
}

#[derive(Debug, Clone)]
enum Open {
    None,
    Message { item_id: String, text: String },
    Reasoning { item_id: String, text: String },
    Call(Box<CallItem>),
}

#[derive(Debug, Clone)]
struct CallItem {
    /// What client tool the call's function stands for (`None`: a plain function).
    origin: Option<ToolOrigin>,
    index: usize,
    item_id: String,
    call_id: String,
    name: String,
    /// Argument text as received.
    sent: String,
    /// Argument text as written.
    written: String,
    args: ObjectArgs,
}

impl Default for OpenAiResponsesEmitter {
    fn default() -> Self {
        Self::new()
    }
}

impl OpenAiResponsesEmitter {
    /// An emitter with a fresh unique response id (`resp_` and 32 random hex digits), model
    /// `toolstream`, `created_at` the current time, reasoning written as reasoning text.
    pub fn new() -> Self {
        let base = super::fresh_uuid().replace('-', "");
        OpenAiResponsesEmitter {
            id: format!("resp_{}", super::fresh_uuid().replace('-', "")),
            model: "toolstream".into(),
            created_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            item_base: base,
            summary: false,
            sequence: 0,
            started: false,
            done: false,
            seq: Sequencer::default(),
            output: Vec::new(),
            open: Open::None,
            reason: None,
            usage: None,
            any_call: false,
            errors: Vec::new(),
            status: "in_progress",
            incomplete_reason: None,
            error: None,
            final_usage: Value::Null,
            origins: BTreeMap::new(),
        }
    }

    /// The response id.
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }

    /// The model name.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// The `created_at` Unix timestamp.
    pub fn created_at(mut self, unix_seconds: u64) -> Self {
        self.created_at = unix_seconds;
        self
    }

    /// Write reasoning as a reasoning *summary* (`response.reasoning_summary_text.delta`,
    /// the item's `summary`), as OpenAI's own reasoning models stream it, instead of
    /// reasoning text (`response.reasoning_text.delta`, the item's `content`; the default,
    /// as gpt-oss servers stream it). Codex shows summaries by default and raw reasoning
    /// text only with `show_raw_agent_reasoning`.
    pub fn reasoning_summary(mut self, yes: bool) -> Self {
        self.summary = yes;
        self
    }

    /// Functions that stand for client tools of another kind
    /// ([`Translated::tool_origins`](crate::translate::Translated::tool_origins)): a call
    /// of a [`ToolOrigin::Namespaced`] function is written as a `function_call` with the
    /// function's own `name` and its `namespace`; a call of a [`ToolOrigin::Custom`] one as
    /// a `custom_tool_call` whose `input` is the call's `input` argument, written whole
    /// when the call ends (`response.output_item.added` and `.done`, no argument deltas).
    pub fn tool_origins(mut self, origins: BTreeMap<String, ToolOrigin>) -> Self {
        self.origins = origins;
        self
    }

    /// Passes on the provider's response id, model and creation time
    /// ([`Parser::response_meta`](crate::Parser::response_meta)), until `response.created`
    /// is written (ignored after).
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
        if let Some(created) = meta.created {
            self.created_at = created;
        }
    }

    /// Whether the stream has ended: `response.completed` / `.incomplete` / `.failed`
    /// written (nothing is written after).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Appends the SSE text for one event to `out` (nothing once the stream has ended).
    /// Events of a call other than the one whose item is open are held back (see the
    /// module docs).
    pub fn event(&mut self, event: &Event, out: &mut String) {
        if self.done {
            return;
        }
        let mut seq = std::mem::take(&mut self.seq);
        seq.push(event, &mut |e: &Event| self.write(e, out));
        self.seq = seq;
    }

    /// Ends the stream, unless an error already ended it: the open item is done, then
    /// `response.completed` (or `.incomplete` / `.failed` as the finish reason says, see
    /// the module docs). A call still open (events that ended mid-call, which a parser
    /// never gives) fails the response as `truncated` instead.
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
        self.close_item(out);
        self.final_usage = self.usage.as_ref().map_or(Value::Null, responses_usage);
        let (kind, status) = match self.reason.take() {
            Some(FinishReason::Length) => {
                self.incomplete_reason = Some("max_output_tokens");
                ("response.incomplete", "incomplete")
            }
            Some(FinishReason::ContentFilter) => {
                self.incomplete_reason = Some("content_filter");
                ("response.incomplete", "incomplete")
            }
            Some(FinishReason::Error) => {
                self.error = Some(json!({
                    "code": "server_error",
                    "message": "the provider ended the response with finish reason `error`",
                }));
                ("response.failed", "failed")
            }
            _ => ("response.completed", "completed"),
        };
        self.status = status;
        if super::json::fast() {
            self.push_response(out, kind, None);
        } else {
            let response = self.response();
            self.push(out, kind, json!({"response": response}));
        }
        self.done = true;
    }

    /// The non-streamed reply: the Response object (`{"id", "object": "response",
    /// "created_at", "status", "model", "output": [..], "usage", ...}`) of what was written
    /// so far. `status` is `in_progress` until [`finish`](Self::finish), then `completed`,
    /// `incomplete` (with `incomplete_details.reason`) or `failed` (with `error`): a cut
    /// stream is `failed`, never `completed`. A call that failed is an item with `status:
    /// "incomplete"`, as is an item left open by an error; recoverable errors are listed in
    /// the extension field `toolstream_errors` (absent when there were none).
    pub fn response(&self) -> Value {
        let mut output = self.output.clone();
        if let Some(item) = self.open_item("incomplete") {
            output.push(item);
        }
        let mut r = json!({
            "id": self.id,
            "object": "response",
            "created_at": self.created_at,
            "status": self.status,
            "error": self.error,
            "incomplete_details": self.incomplete_reason.map(|r| json!({"reason": r})),
            "instructions": null,
            "model": self.model,
            "output": output,
            "parallel_tool_calls": true,
            "tool_choice": "auto",
            "tools": [],
            "usage": self.final_usage,
            "metadata": {},
        });
        if !self.errors.is_empty()
            && let Some(o) = r.as_object_mut()
        {
            o.insert(
                "toolstream_errors".into(),
                Value::Array(self.errors.clone()),
            );
        }
        r
    }

    /// Writes one event: `{"type": kind, "sequence_number": n, ..fields}`.
    fn push(&mut self, out: &mut String, kind: &str, fields: Value) {
        let mut o = Map::new();
        o.insert("type".into(), Value::from(kind));
        o.insert("sequence_number".into(), Value::from(self.sequence));
        if let Value::Object(f) = fields {
            o.extend(f);
        }
        self.sequence += 1;
        push_sse(out, kind, &o);
    }

    fn start(&mut self, out: &mut String) {
        if self.started {
            return;
        }
        self.started = true;
        if super::json::fast() {
            self.push_response(out, "response.created", None);
            self.push_response(out, "response.in_progress", None);
            return;
        }
        let response = self.response();
        self.push(out, "response.created", json!({"response": response}));
        self.push(out, "response.in_progress", json!({"response": response}));
    }

    /// Writes `{"type": kind, "sequence_number": n, "response": <response()>}` (with
    /// `"toolstream_error": error` after it when given) by hand: what [`push`](Self::push)
    /// writes for it, byte for byte, without building the response's `Value` (and a copy of
    /// every item in it) first.
    fn push_response(&mut self, out: &mut String, kind: &str, error: Option<&Value>) {
        use super::json::{push_str, push_u64};
        let value = |out: &mut String, v: &Value| {
            if let Ok(json) = serde_json::to_string(v) {
                out.push_str(&json);
            }
        };
        out.push_str("event: ");
        out.push_str(kind);
        out.push_str("\ndata: {\"type\":");
        push_str(out, kind);
        out.push_str(",\"sequence_number\":");
        push_u64(out, self.sequence);
        self.sequence += 1;
        out.push_str(",\"response\":{\"id\":");
        push_str(out, &self.id);
        out.push_str(",\"object\":\"response\",\"created_at\":");
        push_u64(out, self.created_at);
        out.push_str(",\"status\":");
        push_str(out, self.status);
        out.push_str(",\"error\":");
        match &self.error {
            Some(e) => value(out, e),
            None => out.push_str("null"),
        }
        out.push_str(",\"incomplete_details\":");
        match self.incomplete_reason {
            Some(r) => {
                out.push_str("{\"reason\":");
                push_str(out, r);
                out.push('}');
            }
            None => out.push_str("null"),
        }
        out.push_str(",\"instructions\":null,\"model\":");
        push_str(out, &self.model);
        out.push_str(",\"output\":[");
        let open = self.open_item("incomplete");
        for (i, item) in self.output.iter().chain(open.as_ref()).enumerate() {
            if i > 0 {
                out.push(',');
            }
            value(out, item);
        }
        out.push_str(
            "],\"parallel_tool_calls\":true,\"tool_choice\":\"auto\",\"tools\":[],\"usage\":",
        );
        value(out, &self.final_usage);
        out.push_str(",\"metadata\":{}");
        if !self.errors.is_empty() {
            out.push_str(",\"toolstream_errors\":[");
            for (i, e) in self.errors.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                value(out, e);
            }
            out.push(']');
        }
        out.push('}');
        if let Some(e) = error {
            out.push_str(",\"toolstream_error\":");
            value(out, e);
        }
        out.push_str("}\n\n");
    }

    fn next_item_id(&self, kind: &str) -> String {
        format!("{kind}_{}_{}", self.item_base, self.output.len())
    }

    /// The open item as it stands, with `status` when unfinished.
    fn open_item(&self, status: &str) -> Option<Value> {
        Some(match &self.open {
            Open::None => return None,
            Open::Message { item_id, text } => message_item(item_id, status, text),
            Open::Reasoning { item_id, text } => reasoning_item(item_id, self.summary, text),
            Open::Call(c) => call_item(c, status),
        })
    }

    fn write(&mut self, event: &Event, out: &mut String) {
        if self.done {
            return;
        }
        match event {
            Event::Text { delta } if !delta.is_empty() => {
                self.start(out);
                if !matches!(self.open, Open::Message { .. }) {
                    self.close_item(out);
                    let item_id = self.next_item_id("msg");
                    let index = self.output.len();
                    self.push(
                        out,
                        "response.output_item.added",
                        json!({"output_index": index, "item": message_item(&item_id, "in_progress", "")}),
                    );
                    self.push(
                        out,
                        "response.content_part.added",
                        json!({"item_id": item_id, "output_index": index, "content_index": 0, "part": output_text("")}),
                    );
                    self.open = Open::Message {
                        item_id,
                        text: String::new(),
                    };
                }
                let index = self.output.len();
                if let Open::Message { item_id, text } = &mut self.open {
                    text.push_str(delta);
                    let d = TextDelta {
                        kind: "response.output_text.delta",
                        sequence_number: self.sequence,
                        item_id,
                        output_index: index,
                        content_index: Some(0),
                        summary_index: None,
                        delta,
                        logprobs: Some(&[]),
                    };
                    push_text_delta(out, &d);
                    self.sequence += 1;
                }
            }
            Event::Reasoning { delta } if !delta.is_empty() => {
                self.start(out);
                if !matches!(self.open, Open::Reasoning { .. }) {
                    self.close_item(out);
                    let item_id = self.next_item_id("rs");
                    let index = self.output.len();
                    let mut item = reasoning_item(&item_id, self.summary, "");
                    if let Some(o) = item.as_object_mut() {
                        o.remove("content");
                        o.insert("summary".into(), json!([]));
                    }
                    self.push(
                        out,
                        "response.output_item.added",
                        json!({"output_index": index, "item": item}),
                    );
                    if self.summary {
                        self.push(
                            out,
                            "response.reasoning_summary_part.added",
                            json!({"item_id": item_id, "output_index": index, "summary_index": 0, "part": {"type": "summary_text", "text": ""}}),
                        );
                    } else {
                        self.push(
                            out,
                            "response.content_part.added",
                            json!({"item_id": item_id, "output_index": index, "content_index": 0, "part": {"type": "reasoning_text", "text": ""}}),
                        );
                    }
                    self.open = Open::Reasoning {
                        item_id,
                        text: String::new(),
                    };
                }
                let index = self.output.len();
                if let Open::Reasoning { item_id, text } = &mut self.open {
                    text.push_str(delta);
                    let d = TextDelta {
                        kind: if self.summary {
                            "response.reasoning_summary_text.delta"
                        } else {
                            "response.reasoning_text.delta"
                        },
                        sequence_number: self.sequence,
                        item_id,
                        output_index: index,
                        content_index: (!self.summary).then_some(0),
                        summary_index: self.summary.then_some(0),
                        delta,
                        logprobs: None,
                    };
                    push_text_delta(out, &d);
                    self.sequence += 1;
                }
            }
            Event::ToolCallStart { index, id, name } => {
                self.start(out);
                self.close_item(out);
                let call = CallItem {
                    origin: self.origins.get(name.as_str()).cloned(),
                    index: *index,
                    item_id: self.next_item_id("fc"),
                    call_id: ids::to_responses_call_id(id),
                    name: name.clone(),
                    sent: String::new(),
                    written: String::new(),
                    args: ObjectArgs::default(),
                };
                let output_index = self.output.len();
                // A custom tool's call is written whole at its end.
                if !matches!(call.origin, Some(ToolOrigin::Custom { .. })) {
                    self.push(
                        out,
                        "response.output_item.added",
                        json!({"output_index": output_index, "item": call_item(&call, "in_progress")}),
                    );
                }
                self.open = Open::Call(Box::new(call));
            }
            Event::ToolCallArgs { index, delta } if !delta.is_empty() => {
                if let Open::Call(c) = &mut self.open
                    && c.index == *index
                {
                    c.sent.push_str(delta);
                    let text = c.args.delta(delta);
                    self.call_delta(&text, out);
                }
            }
            Event::ToolCallEnd { index, .. } => {
                if let Open::Call(c) = &self.open
                    && c.index == *index
                {
                    let end = c.args.end();
                    if !end.is_empty() {
                        self.call_delta(end, out);
                    }
                    if let Open::Call(c) = std::mem::replace(&mut self.open, Open::None) {
                        let output_index = self.output.len();
                        if matches!(c.origin, Some(ToolOrigin::Custom { .. })) {
                            self.push(
                                out,
                                "response.output_item.added",
                                json!({"output_index": output_index, "item": call_item(&c, "in_progress")}),
                            );
                            let item = call_item(&c, "completed");
                            self.push(
                                out,
                                "response.output_item.done",
                                json!({"output_index": output_index, "item": item}),
                            );
                            self.output.push(item);
                            self.any_call = true;
                            return;
                        }
                        self.push(
                            out,
                            "response.function_call_arguments.done",
                            json!({"item_id": c.item_id, "output_index": output_index, "name": c.name, "arguments": c.written}),
                        );
                        let item = call_item(&c, "completed");
                        self.push(
                            out,
                            "response.output_item.done",
                            json!({"output_index": output_index, "item": item}),
                        );
                        self.output.push(item);
                        self.any_call = true;
                    }
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
                    self.start(out);
                    self.status = "failed";
                    self.error = Some(json!({"code": "server_error", "message": message}));
                    self.final_usage = self.usage.as_ref().map_or(Value::Null, responses_usage);
                    if super::json::fast() {
                        self.push_response(out, "response.failed", Some(&object));
                    } else {
                        let response = self.response();
                        self.push(
                            out,
                            "response.failed",
                            json!({"response": response, "toolstream_error": object}),
                        );
                    }
                    self.done = true;
                    return;
                }
                if let Open::Call(c) = &mut self.open
                    && Some(c.index) == *index
                {
                    // Forward the argument text the parser held back (see the module docs).
                    if let Some(rest) = raw.strip_prefix(c.sent.as_str()).filter(|r| !r.is_empty())
                    {
                        let text = c.args.delta(rest).into_owned();
                        self.call_delta(&text, out);
                    }
                    if let Open::Call(c) = std::mem::replace(&mut self.open, Open::None) {
                        self.output.push(call_item(&c, "incomplete"));
                    }
                }
                // A `keepalive`, which every client skips (see the module docs).
                self.push(out, "keepalive", json!({"toolstream_error": object}));
                self.errors.push(object);
            }
            _ => {}
        }
    }

    /// `response.function_call_arguments.delta` for the open call.
    fn call_delta(&mut self, text: &str, out: &mut String) {
        let output_index = self.output.len();
        if let Open::Call(c) = &mut self.open {
            c.written.push_str(text);
            if matches!(c.origin, Some(ToolOrigin::Custom { .. })) {
                return;
            }
            let d = TextDelta {
                kind: "response.function_call_arguments.delta",
                sequence_number: self.sequence,
                item_id: &c.item_id,
                output_index,
                content_index: None,
                summary_index: None,
                delta: text,
                logprobs: None,
            };
            push_text_delta(out, &d);
            self.sequence += 1;
        }
    }

    /// The three events that end a message item (`response.output_text.done`,
    /// `response.content_part.done`, `response.output_item.done`), each repeating its whole
    /// text, written by hand (what [`push`](Self::push) writes for them, byte for byte) with
    /// the text escaped once for the three.
    fn push_message_done(&mut self, out: &mut String, item_id: &str, index: usize, text: &str) {
        use super::json::{push_str, push_u64, push_usize};
        let mut escaped = String::with_capacity(text.len() + 2);
        push_str(&mut escaped, text);
        let head = |out: &mut String, kind: &str, sequence: u64| {
            out.push_str("event: ");
            out.push_str(kind);
            out.push_str("\ndata: {\"type\":");
            push_str(out, kind);
            out.push_str(",\"sequence_number\":");
            push_u64(out, sequence);
        };
        let part = |out: &mut String| {
            out.push_str("{\"type\":\"output_text\",\"text\":");
            out.push_str(&escaped);
            out.push_str(",\"annotations\":[],\"logprobs\":[]}");
        };
        head(out, "response.output_text.done", self.sequence);
        out.push_str(",\"item_id\":");
        push_str(out, item_id);
        out.push_str(",\"output_index\":");
        push_usize(out, index);
        out.push_str(",\"content_index\":0,\"text\":");
        out.push_str(&escaped);
        out.push_str(",\"logprobs\":[]}\n\n");
        head(out, "response.content_part.done", self.sequence + 1);
        out.push_str(",\"item_id\":");
        push_str(out, item_id);
        out.push_str(",\"output_index\":");
        push_usize(out, index);
        out.push_str(",\"content_index\":0,\"part\":");
        part(out);
        out.push_str("}\n\n");
        head(out, "response.output_item.done", self.sequence + 2);
        out.push_str(",\"output_index\":");
        push_usize(out, index);
        out.push_str(",\"item\":{\"id\":");
        push_str(out, item_id);
        out.push_str(
            ",\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[",
        );
        part(out);
        out.push_str("]}}\n\n");
        self.sequence += 3;
    }

    /// Finishes the open message or reasoning item (a call's item ends at its call's end).
    fn close_item(&mut self, out: &mut String) {
        let index = self.output.len();
        match std::mem::replace(&mut self.open, Open::None) {
            Open::Message { item_id, text } if super::json::fast() => {
                self.push_message_done(out, &item_id, index, &text);
                self.output.push(message_item(&item_id, "completed", &text));
            }
            Open::Message { item_id, text } => {
                self.push(
                    out,
                    "response.output_text.done",
                    json!({"item_id": item_id, "output_index": index, "content_index": 0, "text": text, "logprobs": []}),
                );
                self.push(
                    out,
                    "response.content_part.done",
                    json!({"item_id": item_id, "output_index": index, "content_index": 0, "part": output_text(&text)}),
                );
                let item = message_item(&item_id, "completed", &text);
                self.push(
                    out,
                    "response.output_item.done",
                    json!({"output_index": index, "item": item}),
                );
                self.output.push(item);
            }
            Open::Reasoning { item_id, text } => {
                if self.summary {
                    self.push(
                        out,
                        "response.reasoning_summary_text.done",
                        json!({"item_id": item_id, "output_index": index, "summary_index": 0, "text": text}),
                    );
                    self.push(
                        out,
                        "response.reasoning_summary_part.done",
                        json!({"item_id": item_id, "output_index": index, "summary_index": 0, "part": {"type": "summary_text", "text": text}}),
                    );
                } else {
                    self.push(
                        out,
                        "response.reasoning_text.done",
                        json!({"item_id": item_id, "output_index": index, "content_index": 0, "text": text}),
                    );
                    self.push(
                        out,
                        "response.content_part.done",
                        json!({"item_id": item_id, "output_index": index, "content_index": 0, "part": {"type": "reasoning_text", "text": text}}),
                    );
                }
                let item = reasoning_item(&item_id, self.summary, &text);
                self.push(
                    out,
                    "response.output_item.done",
                    json!({"output_index": index, "item": item}),
                );
                self.output.push(item);
            }
            other => self.open = other,
        }
    }
}

fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
}

fn message_item(id: &str, status: &str, text: &str) -> Value {
    let content = if status == "in_progress" {
        json!([])
    } else {
        json!([output_text(text)])
    };
    json!({"id": id, "type": "message", "status": status, "role": "assistant", "content": content})
}

fn reasoning_item(id: &str, summary: bool, text: &str) -> Value {
    if summary {
        json!({"id": id, "type": "reasoning", "summary": [{"type": "summary_text", "text": text}]})
    } else {
        json!({"id": id, "type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": text}]})
    }
}

fn call_item(c: &CallItem, status: &str) -> Value {
    match &c.origin {
        Some(ToolOrigin::Custom { name }) => {
            let input = if status == "in_progress" {
                String::new()
            } else {
                serde_json::from_str::<Value>(&c.written)
                    .ok()
                    .and_then(|v| v.get("input").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_default()
            };
            return json!({
                "id": c.item_id,
                "type": "custom_tool_call",
                "status": status,
                "call_id": c.call_id,
                "name": name,
                "input": input,
            });
        }
        Some(ToolOrigin::Namespaced { namespace, name }) => {
            return json!({
                "id": c.item_id,
                "type": "function_call",
                "status": status,
                "arguments": if status == "in_progress" { "" } else { c.written.as_str() },
                "call_id": c.call_id,
                "name": name,
                "namespace": namespace,
            });
        }
        None => {}
    }
    json!({
        "id": c.item_id,
        "type": "function_call",
        "status": status,
        "arguments": if status == "in_progress" { "" } else { c.written.as_str() },
        "call_id": c.call_id,
        "name": c.name,
    })
}

/// The usage object the SDKs and Codex require whole (see the module docs).
fn responses_usage(u: &Usage) -> Value {
    let input = u.input_tokens.unwrap_or(0);
    let output = u.output_tokens.unwrap_or(0);
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": u.cached_input_tokens.unwrap_or(0)},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens.unwrap_or(0)},
        "total_tokens": u.total_tokens.unwrap_or(input.saturating_add(output)),
    })
}

/// Writes a delta event: by hand (what `serde_json` writes for `d`, byte for byte; see
/// [`super::json`]), as it is written once per streamed chunk.
fn push_text_delta(out: &mut String, d: &TextDelta<'_>) {
    use super::json::{push_str, push_u64, push_usize};
    if !super::json::fast() {
        push_sse(out, d.kind, d);
        return;
    }
    out.push_str("event: ");
    out.push_str(d.kind);
    out.push_str("\ndata: {\"type\":");
    push_str(out, d.kind);
    out.push_str(",\"sequence_number\":");
    push_u64(out, d.sequence_number);
    out.push_str(",\"item_id\":");
    push_str(out, d.item_id);
    out.push_str(",\"output_index\":");
    push_usize(out, d.output_index);
    if let Some(i) = d.content_index {
        out.push_str(",\"content_index\":");
        push_u64(out, u64::from(i));
    }
    if let Some(i) = d.summary_index {
        out.push_str(",\"summary_index\":");
        push_u64(out, u64::from(i));
    }
    out.push_str(",\"delta\":");
    push_str(out, d.delta);
    if let Some(logprobs) = d.logprobs {
        if logprobs.is_empty() {
            out.push_str(",\"logprobs\":[]");
        } else if let Ok(json) = serde_json::to_string(logprobs) {
            out.push_str(",\"logprobs\":");
            out.push_str(&json);
        }
    }
    out.push_str("}\n\n");
}

/// The delta events of text, reasoning and arguments, written without building a `Value`.
#[derive(Serialize)]
struct TextDelta<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    sequence_number: u64,
    item_id: &'a str,
    output_index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    content_index: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary_index: Option<u32>,
    delta: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    logprobs: Option<&'a [Value]>,
}
