//! Events → an OpenAI Chat Completions stream (`chat.completion.chunk` SSE).
//!
//! | event | written as |
//! |---|---|
//! | [`Event::Text`] | `delta.content` |
//! | [`Event::Reasoning`] | `delta.reasoning_content` (DeepSeek / vLLM convention) |
//! | [`Event::ToolCallStart`] | `delta.tool_calls: [{index, id, type: "function", function: {name, arguments: ""}}]` |
//! | [`Event::ToolCallArgs`] | `delta.tool_calls: [{index, function: {arguments}}]`; free-form input wrapped, see below |
//! | [`Event::ToolCallEnd`] | nothing (the arguments' closing byte already went out), or the `}` closing a wrapped free-form input |
//! | [`Event::Finish`] | remembered: its reason and usage go out at `finish`, unless the stream turns out cut |
//! | `finish`, the stream complete | a chunk with `finish_reason` (and `usage`, see below), then `data: [DONE]` |
//! | [`Event::Error`] that ends the stream ([`ends_the_stream`](super::ends_the_stream): `truncated`, `provider`, `unrecognized_input`) | `event: error` with `{"error": {"message", "type", "index"?, "raw"}}`; nothing follows, no `finish_reason`, no `[DONE]` |
//! | any other [`Event::Error`] (recoverable: one call failed, an undeclared tool, a payload skipped) | an SSE comment `: toolstream_error {..}`, then a chunk with an empty delta and the extension field `"toolstream_error": {"message", "type", "index"?, "raw"}`; the stream goes on |
//!
//! The first chunk's delta also carries `"role": "assistant"`.
//!
//! **Never a clean ending for a cut stream.** A stream the parser reports `truncated`
//! (a call cut mid-way, or a provider stream that ended without its terminal event) ends in
//! `event: error`, which every OpenAI client library raises as an error: the OpenAI Python
//! and Node SDKs (`APIError`), and what is built on them (LangChain, LiteLLM, Pydantic AI);
//! the Vercel AI SDK reports an error part. A provider's own error is fatal the same way.
//!
//! **Recoverable errors do not abort the client.** OpenAI clients stop at the first
//! payload with an `error` key, losing the calls and text after it; so a recoverable
//! error is written where a client can find it without dying: an SSE comment (which every
//! SSE reader skips; `curl` and logs show it) and a chunk whose only content is the
//! top-level extension field `toolstream_error` (which typed clients ignore or keep as an
//! extra: `chunk.toolstream_error` in the Node SDK and in a hand loop over raw chunks,
//! `chunk.model_extra["toolstream_error"]` in the OpenAI Python SDK). A call that failed
//! keeps its argument text as sent (not valid JSON), so a client cannot run it: LangChain
//! lists it under `invalid_tool_calls`, the SDKs' `json.loads` / `JSON.parse` of it fails.
//!
//! **Usage.** OpenAI sends a usage-only chunk (`"choices": []`) only when the request set
//! `stream_options.include_usage`, and code written against OpenAI (the function-calling
//! guide's `chunk.choices[0].delta`) crashes on it otherwise. So by default usage rides on
//! the finish chunk (as vLLM, Ollama and many compatible servers do), and
//! [`include_usage`](OpenAiChatEmitter::include_usage)`(true)` (CLI: `--include-usage`)
//! gives OpenAI's separate usage chunk.
//!
//! **Free-form input** (a custom tool's raw text, whose arguments are a JSON string, see
//! [`Format::OpenAiResponses`](crate::Format::OpenAiResponses)) goes out as function
//! arguments `{"input": "<text>"}` (the field OpenAI's custom tool calls name `input`): the
//! clients' function-call readers accept only an object of arguments (LangChain moves any
//! other value to `invalid_tool_calls`, Pydantic AI fails), and none of them reads a
//! `type: "custom"` delta. Any argument value that is not an object is wrapped the same way.

use crate::event::{Event, FinishReason, ResponseMeta, Usage};
use serde::Serialize;
use serde_json::Value;

/// Writes events as an OpenAI `chat.completion.chunk` SSE stream.
///
/// ```
/// use toolstream::{Event, FinishReason, emit::OpenAiChatEmitter};
///
/// let mut emitter = OpenAiChatEmitter::new().id("chatcmpl-1").model("m").created(1);
/// let mut sse = String::new();
/// emitter.event(&Event::ToolCallStart { index: 0, id: "call_a".into(), name: "ls".into() }, &mut sse);
/// emitter.event(&Event::ToolCallArgs { index: 0, delta: "{}".into() }, &mut sse);
/// emitter.event(&Event::Finish { reason: Some(FinishReason::ToolCalls), usage: None }, &mut sse);
/// emitter.finish(&mut sse);
/// let lines: Vec<&str> = sse.lines().filter(|l| !l.is_empty()).collect();
/// assert_eq!(lines, [
///     r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"ls","arguments":""}}]},"finish_reason":null}]}"#,
///     r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":null}]}"#,
///     r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
///     "data: [DONE]",
/// ]);
/// ```
///
/// Reading the output back with [`Format::OpenAiChat`](crate::Format::OpenAiChat) gives the
/// same events (merged, see [`merge_deltas`](crate::merge_deltas)) except where the OpenAI
/// format has no way to say what an event says:
///
/// - **Errors**: one that ends the stream comes back as an
///   [`ErrorKind::Provider`](crate::ErrorKind::Provider) error not tied to a call, with the
///   same `message` and the error payload as `raw` (our kind, call index and raw text are
///   inside that payload, so nothing is lost). A recoverable error is only in the
///   `toolstream_error` extension field and the comment, which the reader skips.
/// - **A call that failed**: the OpenAI format cannot fail one call. Its argument text that
///   was held back (not valid JSON) is forwarded as arguments, so a client sees what the
///   provider sent and cannot parse it. The rest of the error's `raw` is forwarded only
///   when `raw` begins with the argument text already sent (provider formats; and a
///   text-format call that failed before any argument text went out, whose `raw` is the
///   model's own text of the call); otherwise only the error carries it. The reader
///   reports the call's own failure when it closes the call (the next call, the finish
///   reason or the end of the stream), possibly with another
///   [`ErrorKind`](crate::ErrorKind).
/// - **Free-form input** comes back as the object `{"input": "<text>"}`.
/// - **Usage**: the counts survive; `raw` is the provider's object when it was already
///   OpenAI-shaped (`prompt_tokens` / `completion_tokens`), else an OpenAI-shaped object made
///   from the counts.
/// - **The end**: a complete stream always ends the way OpenAI's does, with a
///   `finish_reason` chunk and `data: [DONE]`. When the input had no finish reason (every
///   raw-text format), the reason is `tool_calls` if a call went out, else `stop`; a
///   provider's `tool_calls` becomes `stop` when no call went out (every call was
///   rejected, e.g. as undeclared). A stream that ends in an error ends without them.
#[derive(Debug, Clone)]
pub struct OpenAiChatEmitter {
    id: String,
    model: String,
    created: u64,
    include_usage: bool,
    role_sent: bool,
    /// The stream has ended: `[DONE]` or a fatal `event: error` written.
    done: bool,
    /// A tool call went out (the made-up finish reason is then `tool_calls`).
    any_call: bool,
    /// Open calls.
    calls: Vec<OpenCall>,
    /// The [`Event::Finish`] received: written at `finish`.
    reason: Option<FinishReason>,
    usage: Option<Usage>,
    /// `data: {"id":…,"choices":[{"index":0,"delta":{`, the same for every chunk of the
    /// stream: written with the first chunk, then copied (see `write_chunk`).
    head: String,
}

/// A call started and not yet ended.
#[derive(Debug, Clone)]
struct OpenCall {
    index: usize,
    /// Its argument text as received.
    sent: String,
    /// Whether its first non-whitespace argument byte has been seen.
    decided: bool,
    /// Its arguments are not an object: written inside `{"input": ..}`.
    wrapped: bool,
}

impl Default for OpenAiChatEmitter {
    fn default() -> Self {
        Self::new()
    }
}

impl OpenAiChatEmitter {
    /// An emitter with a fresh unique id (`chatcmpl-` and 32 random hex digits), model
    /// `toolstream` and `created` the current time; set them with the builder methods, or
    /// pass on the provider's with [`response_meta`](Self::response_meta).
    pub fn new() -> Self {
        OpenAiChatEmitter {
            id: format!("chatcmpl-{}", super::fresh_uuid().replace('-', "")),
            model: "toolstream".into(),
            created: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            include_usage: false,
            role_sent: false,
            done: false,
            any_call: false,
            calls: Vec::new(),
            reason: None,
            usage: None,
            head: String::new(),
        }
    }

    /// The completion id written on every chunk.
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self.head.clear();
        self
    }

    /// The model name written on every chunk.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self.head.clear();
        self
    }

    /// The `created` Unix timestamp written on every chunk.
    pub fn created(mut self, unix_seconds: u64) -> Self {
        self.created = unix_seconds;
        self.head.clear();
        self
    }

    /// OpenAI's `stream_options.include_usage` behaviour: usage goes out in a chunk of its
    /// own with `"choices": []` after the finish chunk (only when usage is known). Off by
    /// default: usage then rides on the finish chunk, and every chunk has a choice (code
    /// reading `chunk.choices[0]` does not crash).
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser, emit::OpenAiChatEmitter};
    /// let body = concat!(
    ///     r#"data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}"#, "\n\n",
    ///     r#"data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#, "\n\n",
    ///     "data: [DONE]\n\n",
    /// );
    /// let mut events = Vec::new();
    /// let mut parser = Parser::new(Format::OpenAiChat);
    /// parser.feed(body.as_bytes(), &mut events)?;
    /// parser.finish(&mut events)?;
    /// for include in [false, true] {
    ///     let mut emitter = OpenAiChatEmitter::new().include_usage(include);
    ///     let mut sse = String::new();
    ///     for e in &events {
    ///         emitter.event(e, &mut sse);
    ///     }
    ///     emitter.finish(&mut sse);
    ///     assert_eq!(sse.contains(r#""choices":[]"#), include);
    ///     assert!(sse.contains(r#""usage":{"#) && sse.contains(r#""prompt_tokens":3"#));
    /// }
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn include_usage(mut self, yes: bool) -> Self {
        self.include_usage = yes;
        self
    }

    /// Passes on the provider's response id, model and creation time
    /// ([`Parser::response_meta`](crate::Parser::response_meta)): each one the response sent
    /// replaces the emitter's own. Call it before handing over each batch of events; it
    /// takes effect until the first chunk is written (every chunk of a stream carries the
    /// same id, model and time), and is ignored after.
    ///
    /// ```
    /// use toolstream::{Format, Parser, emit::OpenAiChatEmitter};
    /// let anthropic = concat!(
    ///     "event: message_start\n",
    ///     r#"data: {"type":"message_start","message":{"id":"msg_01","model":"claude-sonnet-4-5","usage":{"input_tokens":5}}}"#, "\n\n",
    ///     "event: content_block_delta\n",
    ///     r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#, "\n\n",
    /// );
    /// let mut parser = Parser::new(Format::Anthropic);
    /// let mut emitter = OpenAiChatEmitter::new();
    /// let (mut events, mut sse) = (Vec::new(), String::new());
    /// parser.feed(anthropic.as_bytes(), &mut events)?;
    /// emitter.response_meta(parser.response_meta());
    /// for e in events.drain(..) {
    ///     emitter.event(&e, &mut sse);
    /// }
    /// assert!(sse.starts_with(r#"data: {"id":"msg_01","object":"chat.completion.chunk","created":"#));
    /// assert!(sse.contains(r#""model":"claude-sonnet-4-5""#));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn response_meta(&mut self, meta: &ResponseMeta) {
        if self.role_sent {
            return;
        }
        if let Some(id) = &meta.id {
            id.clone_into(&mut self.id);
        }
        if let Some(model) = &meta.model {
            model.clone_into(&mut self.model);
        }
        if let Some(created) = meta.created {
            self.created = created;
        }
    }

    /// Whether the stream has ended: `data: [DONE]` written, or an error that ends the
    /// stream (nothing is written after either).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Appends the SSE text for one event to `out` (nothing for events with no OpenAI
    /// equivalent, e.g. variants added later, and nothing once the stream has ended).
    pub fn event(&mut self, event: &Event, out: &mut String) {
        if self.done {
            return;
        }
        match event {
            Event::Text { delta } if !delta.is_empty() => {
                self.delta(
                    Delta {
                        content: Some(delta),
                        ..Delta::default()
                    },
                    None,
                    out,
                );
            }
            Event::Reasoning { delta } if !delta.is_empty() => {
                self.delta(
                    Delta {
                        reasoning_content: Some(delta),
                        ..Delta::default()
                    },
                    None,
                    out,
                );
            }
            Event::ToolCallStart { index, id, name } => {
                self.calls.push(OpenCall {
                    index: *index,
                    sent: String::new(),
                    decided: false,
                    wrapped: false,
                });
                self.any_call = true;
                let call = ToolCallDelta {
                    index: *index,
                    id: Some(id),
                    kind: Some("function"),
                    function: FunctionDelta {
                        name: Some(name),
                        arguments: "",
                    },
                };
                self.tool_call(call, out);
            }
            Event::ToolCallArgs { index, delta } if !delta.is_empty() => {
                self.call_arguments(*index, delta, out);
            }
            Event::ToolCallEnd { index, .. } => {
                if let Some(pos) = self.calls.iter().position(|c| c.index == *index) {
                    let call = self.calls.remove(pos);
                    if call.wrapped {
                        self.arguments(*index, "}", out);
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
                if let Some(i) = index
                    && let Some(pos) = self.calls.iter().position(|c| c.index == *i)
                {
                    // The call's argument text the parser did not pass on (it is not
                    // valid JSON): forward it, so the client sees what the provider sent
                    // and cannot parse it. Only when `raw` continues the argument text
                    // sent: a text format's error carries the model's own text of the
                    // call (e.g. pythonic), which is not argument JSON.
                    let sent = self
                        .calls
                        .get_mut(pos)
                        .map(|c| std::mem::take(&mut c.sent))
                        .unwrap_or_default();
                    if let Some(rest) = raw.strip_prefix(sent.as_str()).filter(|r| !r.is_empty()) {
                        self.call_arguments(*i, rest, out);
                    }
                    self.calls.remove(pos);
                }
                let body = ErrorObject {
                    message,
                    kind: kind.as_str(),
                    index: *index,
                    raw,
                };
                if super::ends_the_stream(*kind) {
                    out.push_str("event: error\ndata: ");
                    push_json(out, &ErrorBody { error: body });
                    out.push_str("\n\n");
                    self.done = true;
                } else {
                    out.push_str(": toolstream_error ");
                    push_json(out, &body);
                    out.push('\n');
                    self.chunk(Delta::default(), None, None, Some(&body), out);
                }
            }
            // Empty deltas, and variants added later.
            _ => {}
        }
    }

    /// Ends the stream, unless an error already ended it: the closing chunk OpenAI always
    /// sends, with the [`Event::Finish`]'s reason (or, when none came, `tool_calls` if a
    /// call went out, else `stop`) and its usage, then `data: [DONE]`. Nothing after that.
    pub fn finish(&mut self, out: &mut String) {
        if self.done {
            return;
        }
        let reason = match self.reason.take() {
            Some(FinishReason::ToolCalls) | None if self.any_call => "tool_calls".to_owned(),
            Some(FinishReason::ToolCalls) | None => "stop".to_owned(),
            Some(r) => r.as_str().to_owned(),
        };
        let usage = self.usage.take().map(|u| openai_usage(&u));
        self.close(&reason, usage.as_ref(), out);
    }

    /// The finish chunk (with usage unless OpenAI's separate usage chunk was asked for),
    /// the usage chunk if asked for, `[DONE]`.
    fn close(&mut self, reason: &str, usage: Option<&Value>, out: &mut String) {
        if self.include_usage {
            self.chunk(Delta::default(), Some(reason), None, None, out);
            if let Some(usage) = usage {
                let chunk = Chunk {
                    id: &self.id,
                    object: "chat.completion.chunk",
                    created: self.created,
                    model: &self.model,
                    choices: &[],
                    usage: Some(usage),
                    toolstream_error: None,
                };
                out.push_str("data: ");
                push_json(out, &chunk);
                out.push_str("\n\n");
            }
        } else {
            self.chunk(Delta::default(), Some(reason), usage, None, out);
        }
        out.push_str("data: [DONE]\n\n");
        self.done = true;
    }

    /// A call's argument text, wrapped in `{"input": ..}` when it is not an object.
    fn call_arguments(&mut self, index: usize, delta: &str, out: &mut String) {
        let Some(call) = self.calls.iter_mut().find(|c| c.index == index) else {
            self.arguments(index, delta, out);
            return;
        };
        call.sent.push_str(delta);
        if call.decided {
            self.arguments(index, delta, out);
            return;
        }
        let Some(at) = delta.find(|c: char| !c.is_ascii_whitespace()) else {
            self.arguments(index, delta, out);
            return;
        };
        call.decided = true;
        let (space, value) = delta.split_at_checked(at).unwrap_or(("", delta));
        call.wrapped = !value.starts_with('{');
        if call.wrapped {
            let text = format!("{space}{{\"input\":{value}");
            self.arguments(index, &text, out);
        } else {
            self.arguments(index, delta, out);
        }
    }

    fn arguments(&mut self, index: usize, arguments: &str, out: &mut String) {
        let call = ToolCallDelta {
            index,
            id: None,
            kind: None,
            function: FunctionDelta {
                name: None,
                arguments,
            },
        };
        self.tool_call(call, out);
    }

    /// A chunk whose delta is one tool call's.
    fn tool_call(&mut self, call: ToolCallDelta<'_>, out: &mut String) {
        let calls = [call];
        self.delta(
            Delta {
                tool_calls: Some(&calls),
                ..Delta::default()
            },
            None,
            out,
        );
    }

    fn delta(&mut self, delta: Delta<'_>, finish_reason: Option<&str>, out: &mut String) {
        self.chunk(delta, finish_reason, None, None, out);
    }

    fn chunk(
        &mut self,
        mut delta: Delta<'_>,
        finish_reason: Option<&str>,
        usage: Option<&Value>,
        toolstream_error: Option<&ErrorObject<'_>>,
        out: &mut String,
    ) {
        if !self.role_sent {
            delta.role = Some("assistant");
            self.role_sent = true;
        }
        if usage.is_none() && toolstream_error.is_none() && super::json::fast() {
            self.write_chunk(&delta, finish_reason, out);
            return;
        }
        let choice = [Choice {
            index: 0,
            delta,
            finish_reason,
        }];
        let chunk = Chunk {
            id: &self.id,
            object: "chat.completion.chunk",
            created: self.created,
            model: &self.model,
            choices: &choice,
            usage,
            toolstream_error,
        };
        out.push_str("data: ");
        push_json(out, &chunk);
        out.push_str("\n\n");
    }
}

impl OpenAiChatEmitter {
    /// A chunk without usage or error written by hand: what `serde_json` writes for
    /// [`Chunk`], byte for byte, without its walk over the structs. The part before the
    /// delta is the same for every chunk of the stream (its id, model and time are fixed
    /// once the first chunk is out), so it is written once and copied.
    fn write_chunk(&mut self, delta: &Delta<'_>, finish_reason: Option<&str>, out: &mut String) {
        use super::json::{push_str, push_u64, push_usize};
        if self.head.is_empty() {
            let head = &mut self.head;
            head.push_str("data: {\"id\":");
            push_str(head, &self.id);
            head.push_str(",\"object\":\"chat.completion.chunk\",\"created\":");
            push_u64(head, self.created);
            head.push_str(",\"model\":");
            push_str(head, &self.model);
            head.push_str(",\"choices\":[{\"index\":0,\"delta\":{");
        }
        out.push_str(&self.head);
        let mut sep = "";
        let mut field = |out: &mut String, key: &str| {
            out.push_str(sep);
            out.push_str(key);
            sep = ",";
        };
        if let Some(role) = delta.role {
            field(out, "\"role\":");
            push_str(out, role);
        }
        if let Some(content) = delta.content {
            field(out, "\"content\":");
            push_str(out, content);
        }
        if let Some(reasoning) = delta.reasoning_content {
            field(out, "\"reasoning_content\":");
            push_str(out, reasoning);
        }
        if let Some(calls) = delta.tool_calls {
            field(out, "\"tool_calls\":[");
            for (i, call) in calls.iter().enumerate() {
                out.push_str(if i == 0 {
                    "{\"index\":"
                } else {
                    ",{\"index\":"
                });
                push_usize(out, call.index);
                if let Some(id) = call.id {
                    out.push_str(",\"id\":");
                    push_str(out, id);
                }
                if let Some(kind) = call.kind {
                    out.push_str(",\"type\":");
                    push_str(out, kind);
                }
                out.push_str(",\"function\":{");
                if let Some(name) = call.function.name {
                    out.push_str("\"name\":");
                    push_str(out, name);
                    out.push(',');
                }
                out.push_str("\"arguments\":");
                push_str(out, call.function.arguments);
                out.push_str("}}");
            }
            out.push(']');
        }
        out.push_str("},\"finish_reason\":");
        match finish_reason {
            Some(reason) => push_str(out, reason),
            None => out.push_str("null"),
        }
        out.push_str("}]}\n\n");
    }
}

/// OpenAI's usage object from the normalised counts, so that `prompt_tokens +
/// completion_tokens = total_tokens`, reasoning tokens counted in `completion_tokens` and
/// named in `completion_tokens_details.reasoning_tokens`, cached input in
/// `prompt_tokens_details.cached_tokens`. A provider object that is already OpenAI-shaped
/// keeps its other fields (costs, timings, other details), its counts set to these.
fn openai_usage(u: &Usage) -> Value {
    let mut o = match &u.raw {
        Value::Object(o)
            if o.contains_key("prompt_tokens") || o.contains_key("completion_tokens") =>
        {
            o.clone()
        }
        _ => serde_json::Map::new(),
    };
    if let Value::Object(counts) =
        super::usage_counts(u, ["prompt_tokens", "completion_tokens", "total_tokens"])
    {
        o.extend(counts);
    }
    let mut detail = |object: &str, key: &str, count: Option<u64>| {
        let Some(n) = count else { return };
        let entry = o
            .entry(object)
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(serde_json::Map::new());
        }
        if let Value::Object(d) = entry {
            d.insert(key.into(), Value::from(n));
        }
    };
    detail(
        "completion_tokens_details",
        "reasoning_tokens",
        u.reasoning_tokens,
    );
    detail(
        "prompt_tokens_details",
        "cached_tokens",
        u.cached_input_tokens,
    );
    Value::Object(o)
}

/// Serializing these borrowed structs cannot fail (string keys, no maps with non-string
/// keys); a failure would only lose the chunk.
fn push_json<T: Serialize>(out: &mut String, value: &T) {
    if let Ok(s) = serde_json::to_string(value) {
        out.push_str(&s);
    }
}

#[derive(Serialize)]
struct Chunk<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'a str,
    choices: &'a [Choice<'a>],
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<&'a Value>,
    /// A recoverable error (the extension field; see the module docs).
    #[serde(skip_serializing_if = "Option::is_none")]
    toolstream_error: Option<&'a ErrorObject<'a>>,
}

#[derive(Serialize)]
struct Choice<'a> {
    index: u32,
    delta: Delta<'a>,
    finish_reason: Option<&'a str>,
}

#[derive(Serialize, Default)]
struct Delta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<&'a [ToolCallDelta<'a>]>,
}

#[derive(Serialize)]
struct ToolCallDelta<'a> {
    index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    function: FunctionDelta<'a>,
}

#[derive(Serialize)]
struct FunctionDelta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    arguments: &'a str,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    message: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
    raw: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorKind, Format, Parser, merge_deltas};

    fn round_trip(events: &[Event]) -> Vec<Event> {
        let mut em = OpenAiChatEmitter::new();
        let mut sse = String::new();
        for e in events {
            em.event(e, &mut sse);
        }
        em.finish(&mut sse);
        let mut p = Parser::new(Format::OpenAiChat);
        let mut out = Vec::new();
        p.feed(sse.as_bytes(), &mut out).unwrap_or_default();
        p.finish(&mut out).unwrap_or_default();
        merge_deltas(&mut out);
        out
    }

    #[test]
    fn text_reasoning_call_finish_round_trip() {
        let events = vec![
            Event::Reasoning {
                delta: "think".into(),
            },
            Event::Text { delta: "Hi".into() },
            Event::ToolCallStart {
                index: 0,
                id: "c1".into(),
                name: "f".into(),
            },
            Event::ToolCallArgs {
                index: 0,
                delta: "{\"a\":1}".into(),
            },
            Event::ToolCallEnd {
                index: 0,
                id: "c1".into(),
                name: "f".into(),
                arguments: serde_json::json!({"a": 1}),
            },
            Event::Finish {
                reason: Some(FinishReason::ToolCalls),
                usage: Some(Usage::from_value(
                    serde_json::json!({"input_tokens": 3, "output_tokens": 4}),
                    &["input_tokens"],
                    &["output_tokens"],
                )),
            },
        ];
        let back = round_trip(&events);
        assert_eq!(back.len(), events.len());
        assert_eq!(back.get(..5), events.get(..5));
        match back.get(5) {
            Some(Event::Finish {
                reason: Some(FinishReason::ToolCalls),
                usage: Some(u),
            }) => {
                assert_eq!(
                    (u.input_tokens, u.output_tokens, u.total_tokens),
                    (Some(3), Some(4), Some(7))
                );
            }
            other => panic!("{other:?}"),
        }
    }

    fn lines(events: &[Event], em: OpenAiChatEmitter) -> Vec<String> {
        let mut em = em.id("c").model("m").created(1);
        let mut sse = String::new();
        for e in events {
            em.event(e, &mut sse);
        }
        em.finish(&mut sse);
        em.finish(&mut sse);
        assert!(em.is_done());
        sse.lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    }

    fn chunk(delta: &str, reason: &str) -> String {
        format!(
            r#"data: {{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{delta},"finish_reason":{reason}}}]}}"#
        )
    }

    fn error(kind: ErrorKind, index: Option<usize>, raw: &str) -> Event {
        Event::Error {
            path: None,
            kind,
            message: "bad \"x\"".into(),
            index,
            raw: raw.into(),
        }
    }

    #[test]
    fn a_recoverable_error_is_a_comment_and_an_extension_field_and_the_stream_goes_on() {
        let got = lines(
            &[
                error(ErrorKind::InvalidJson, None, "{oops"),
                Event::Text { delta: "x".into() },
            ],
            OpenAiChatEmitter::new(),
        );
        let err = r#"{"message":"bad \"x\"","type":"invalid_json","raw":"{oops"}"#;
        assert_eq!(
            got,
            [
                format!(": toolstream_error {err}"),
                format!(
                    r#"data: {{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{"role":"assistant"}},"finish_reason":null}}],"toolstream_error":{err}}}"#
                ),
                chunk(r#"{"content":"x"}"#, "null"),
                chunk("{}", r#""stop""#),
                "data: [DONE]".into(),
            ]
        );
    }

    #[test]
    fn an_error_that_ends_the_stream_is_fatal_and_nothing_follows() {
        for kind in [
            ErrorKind::Truncated,
            ErrorKind::Provider,
            ErrorKind::UnrecognizedInput,
        ] {
            let got = lines(
                &[
                    Event::Text { delta: "x".into() },
                    Event::Finish {
                        reason: Some(FinishReason::Stop),
                        usage: None,
                    },
                    error(kind, None, "r"),
                    Event::Text { delta: "y".into() },
                ],
                OpenAiChatEmitter::new(),
            );
            assert_eq!(
                got,
                [
                    chunk(r#"{"role":"assistant","content":"x"}"#, "null"),
                    "event: error".into(),
                    format!(
                        r#"data: {{"error":{{"message":"bad \"x\"","type":"{}","raw":"r"}}}}"#,
                        kind.as_str()
                    ),
                ],
                "{kind:?}"
            );
        }
    }

    /// Every complete stream ends with a finish reason and `[DONE]`; a cut one never does.
    #[test]
    fn closed_the_openai_way_when_complete() {
        let call = Event::ToolCallStart {
            index: 0,
            id: "a".into(),
            name: "f".into(),
        };
        let text = Event::Text { delta: "x".into() };
        let no_reason = Event::Finish {
            reason: None,
            usage: None,
        };
        let start = r#"{"role":"assistant","tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":""}}]}"#;
        let cases: Vec<(&str, Vec<Event>, Vec<String>)> = vec![
            (
                "nothing at all",
                vec![],
                vec![chunk(r#"{"role":"assistant"}"#, r#""stop""#)],
            ),
            (
                "text, no finish",
                vec![text.clone()],
                vec![
                    chunk(r#"{"role":"assistant","content":"x"}"#, "null"),
                    chunk("{}", r#""stop""#),
                ],
            ),
            (
                "a finish without a reason",
                vec![text.clone(), no_reason],
                vec![
                    chunk(r#"{"role":"assistant","content":"x"}"#, "null"),
                    chunk("{}", r#""stop""#),
                ],
            ),
            (
                "tool_calls, but every call was rejected",
                vec![
                    text,
                    error(ErrorKind::UndeclaredTool, None, "[f()]"),
                    Event::Finish {
                        reason: Some(FinishReason::ToolCalls),
                        usage: None,
                    },
                ],
                vec![
                    chunk(r#"{"role":"assistant","content":"x"}"#, "null"),
                    r#": toolstream_error {"message":"bad \"x\"","type":"undeclared_tool","raw":"[f()]"}"#.into(),
                    r#"data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":null}],"toolstream_error":{"message":"bad \"x\"","type":"undeclared_tool","raw":"[f()]"}}"#.into(),
                    chunk("{}", r#""stop""#),
                ],
            ),
            (
                "a call with invalid arguments: its text, the error, tool_calls",
                vec![call.clone(), error(ErrorKind::InvalidArguments, Some(0), "{x")],
                vec![
                    chunk(start, "null"),
                    chunk(r#"{"tool_calls":[{"index":0,"function":{"arguments":"{x"}}]}"#, "null"),
                    r#": toolstream_error {"message":"bad \"x\"","type":"invalid_arguments","index":0,"raw":"{x"}"#.into(),
                    r#"data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":null}],"toolstream_error":{"message":"bad \"x\"","type":"invalid_arguments","index":0,"raw":"{x"}}"#.into(),
                    chunk("{}", r#""tool_calls""#),
                ],
            ),
        ];
        for (name, events, mut want) in cases {
            want.push("data: [DONE]".into());
            assert_eq!(lines(&events, OpenAiChatEmitter::new()), want, "{name}");
        }
        // A call cut off: its text so far, then the error; no finish, no [DONE].
        let got = lines(
            &[call, error(ErrorKind::Truncated, Some(0), "{")],
            OpenAiChatEmitter::new(),
        );
        assert_eq!(
            got,
            [
                chunk(start, "null"),
                chunk(
                    r#"{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}"#,
                    "null"
                ),
                "event: error".into(),
                r#"data: {"error":{"message":"bad \"x\"","type":"truncated","index":0,"raw":"{"}}"#
                    .into(),
            ]
        );
    }

    #[test]
    fn usage_rides_on_the_finish_chunk_unless_include_usage() {
        let usage = Usage::from_value(
            serde_json::json!({"input_tokens": 3, "output_tokens": 4}),
            &["input_tokens"],
            &["output_tokens"],
        );
        let events = [Event::Finish {
            reason: Some(FinishReason::Stop),
            usage: Some(usage),
        }];
        // Compared as JSON: the usage object's key order is serde_json's.
        let json = |lines: Vec<String>| -> Vec<Value> {
            lines
                .iter()
                .map(|l| serde_json::from_str(l.trim_start_matches("data: ")).unwrap_or_default())
                .collect()
        };
        let counts =
            serde_json::json!({"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7});
        let chunk = |choices: Value, usage: Option<&Value>| {
            let mut c = serde_json::json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": choices});
            if let Some(u) = usage {
                c["usage"] = u.clone();
            }
            c
        };
        let finish = serde_json::json!([{"index": 0, "delta": {"role": "assistant"}, "finish_reason": "stop"}]);
        assert_eq!(
            json(lines(&events, OpenAiChatEmitter::new())),
            [chunk(finish.clone(), Some(&counts)), Value::Null]
        );
        assert_eq!(
            json(lines(&events, OpenAiChatEmitter::new().include_usage(true))),
            [
                chunk(finish, None),
                chunk(serde_json::json!([]), Some(&counts)),
                Value::Null
            ]
        );
    }

    #[test]
    fn free_form_input_is_wrapped_as_an_input_object() {
        let events = [
            Event::ToolCallStart {
                index: 0,
                id: "a".into(),
                name: "exec".into(),
            },
            Event::ToolCallArgs {
                index: 0,
                delta: " ".into(),
            },
            Event::ToolCallArgs {
                index: 0,
                delta: "\"ls \\\"".into(),
            },
            Event::ToolCallArgs {
                index: 0,
                delta: "-l\"".into(),
            },
            Event::ToolCallEnd {
                index: 0,
                id: "a".into(),
                name: "exec".into(),
                arguments: Value::from("ls \"-l"),
            },
        ];
        let back = round_trip(&events);
        let args: Vec<&str> = back
            .iter()
            .filter_map(|e| match e {
                Event::ToolCallEnd { arguments, .. } => arguments["input"].as_str(),
                _ => None,
            })
            .collect();
        assert_eq!(args, ["ls \"-l"]);
    }

    #[test]
    fn response_meta_replaces_the_made_up_values_until_the_first_chunk() {
        let meta = ResponseMeta {
            id: Some("chatcmpl-provider".into()),
            model: None,
            created: Some(42),
        };
        let mut em = OpenAiChatEmitter::new().model("mine");
        em.response_meta(&meta);
        let mut sse = String::new();
        em.event(&Event::Text { delta: "a".into() }, &mut sse);
        let later = ResponseMeta {
            id: Some("other".into()),
            model: Some("other".into()),
            created: Some(7),
        };
        em.response_meta(&later);
        em.finish(&mut sse);
        for line in sse.lines().filter(|l| l.starts_with("data: {")) {
            let v: Value = serde_json::from_str(&line[6..]).unwrap_or_default();
            assert_eq!(
                (&v["id"], &v["model"], &v["created"]),
                (
                    &Value::from("chatcmpl-provider"),
                    &Value::from("mine"),
                    &Value::from(42)
                ),
                "{line}"
            );
        }
    }

    /// A builder called between chunks changes the chunks after it, as it did before the
    /// chunk head was kept between chunks.
    #[test]
    fn a_builder_between_chunks_changes_the_later_chunks() {
        let mut em = OpenAiChatEmitter::new().id("a").model("m").created(1);
        let mut sse = String::new();
        em.event(&Event::Text { delta: "x".into() }, &mut sse);
        em = em.id("b").model("n").created(2);
        em.event(&Event::Text { delta: "y".into() }, &mut sse);
        let ids: Vec<Value> = sse
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|l| serde_json::from_str::<Value>(l).unwrap_or_default())
            .map(|v| serde_json::json!([v["id"], v["model"], v["created"]]))
            .collect();
        assert_eq!(
            ids,
            [
                serde_json::json!(["a", "m", 1]),
                serde_json::json!(["b", "n", 2])
            ]
        );
    }

    #[test]
    fn made_up_ids_are_unique_and_created_is_now() {
        let (a, b) = (OpenAiChatEmitter::new(), OpenAiChatEmitter::new());
        assert_ne!(a.id, b.id);
        assert!(
            a.id.starts_with("chatcmpl-") && a.id.len() == 9 + 32,
            "{}",
            a.id
        );
        // Any date after this code was written.
        assert!(a.created > 1_750_000_000, "{}", a.created);
    }
}
