//! Workload generators shared by `benches/suite.rs` and `tests/alloc.rs`: for every
//! format, a realistic stream and a stream carrying one call with a long string argument,
//! written the way that format's servers (or models) send them.
//!
//! A provider format has its own generator function; every text format has the same one,
//! driven by the call template of its syntax's registry row (`example` in
//! `src/text/row.rs`, read through `toolstream::testing::call_template`), so a new syntax
//! needs nothing here. [`generator`] maps a [`Format`] to its generator and returns `None`
//! for a format without one (a test in `tests/alloc.rs` fails on that).

#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::{Value, json};
use toolstream::{Event, Format, Parser};

/// The shape of a generated stream.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Visible text deltas before the call.
    pub text_deltas: usize,
    /// Bytes of the call's arguments (their JSON text), about.
    pub arg_len: usize,
    /// Argument bytes per provider delta (envelopes) or per token (text formats).
    pub piece: usize,
}

impl Shape {
    /// A chat turn: ~120 text deltas, then a ~1.2 KB call in 6-byte deltas.
    pub const STREAM: Shape = Shape {
        text_deltas: 120,
        arg_len: 1200,
        piece: 6,
    };

    /// One call whose arguments hold one long string, in 4-byte deltas.
    pub fn long_arg(arg_len: usize) -> Shape {
        Shape {
            text_deltas: 1,
            arg_len,
            piece: 4,
        }
    }
}

/// A generated input.
#[derive(Debug, Clone)]
pub struct Workload {
    /// The input as a server flushes it: one provider event per element (envelope
    /// formats), or one token-sized piece of text per element (text formats).
    pub events: Vec<Vec<u8>>,
    /// The JSON payload of each provider event (empty for text formats): what a client
    /// that frames the stream itself would hand to serde.
    pub payloads: Vec<Vec<u8>>,
    /// Bytes of the call's arguments as JSON text.
    pub arg_bytes: usize,
    /// Tool calls in the stream.
    pub calls: usize,
}

impl Workload {
    /// The whole body.
    pub fn body(&self) -> Vec<u8> {
        self.events.concat()
    }
}

/// The generator of `format`'s workloads, `None` if it has none yet: a provider format's
/// own, or the one text generator rendering the format's call template.
pub fn generator(format: Format) -> Option<impl Fn(Shape) -> Workload + Copy> {
    let provider = provider_generator(format);
    let template = toolstream::testing::call_template(format);
    if provider.is_none() && template.is_none() {
        return None;
    }
    Some(move |shape| match (provider, template) {
        (Some(make), _) => make(shape),
        (None, Some(t)) => templated(t, shape),
        (None, None) => unreachable!("checked above"),
    })
}

/// A provider format's generator.
fn provider_generator(format: Format) -> Option<fn(Shape) -> Workload> {
    Some(match format {
        Format::OpenAiChat => openai_chat,
        Format::OpenAiResponses => openai_responses,
        Format::Anthropic => anthropic,
        Format::Gemini => gemini,
        Format::Bedrock => bedrock,
        Format::Cohere => cohere,
        Format::Ollama => ollama,
        Format::LlamaStack => llama_stack,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------
// Shared pieces

const WORDS: [&str; 12] = [
    "The", " weather", " in", " Paris", " is", " mild", " today", ",", " with", " light", " rain",
    ".",
];

/// Decoded string content: prose with quotes, newlines, a backslash, `<`, `[` and
/// non-ASCII, so its JSON text has escapes. Sized so the arguments' JSON text is about
/// `arg_len` bytes.
pub fn content(arg_len: usize) -> String {
    let unit = "The quick brown fox \"jumps\" over the lazy dog; déjà vu 😀 a<b, x[0]\\1\n";
    let mut s = String::new();
    while s.len() + 40 < arg_len {
        s.push_str(unit);
    }
    let mut cut = arg_len.saturating_sub(40).min(s.len());
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    s
}

/// The arguments object as JSON text.
pub fn args_json(content: &str) -> String {
    serde_json::to_string(&json!({"path": "notes.txt", "content": content})).unwrap()
}

/// The arguments of `shape` as JSON text.
pub fn shape_args(shape: Shape) -> String {
    args_json(&content(shape.arg_len))
}

/// Cuts `s` into pieces of about `n` bytes, on char boundaries.
pub fn pieces(s: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let mut cut = n.max(1).min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (a, b) = rest.split_at(cut);
        out.push(a);
        rest = b;
    }
    out
}

fn word(i: usize) -> &'static str {
    WORDS[i % WORDS.len()]
}

/// SSE events (`event:` line when `name` is given) from payloads.
fn sse(items: Vec<(Option<String>, Value)>) -> Workload {
    let mut events = Vec::new();
    let mut payloads = Vec::new();
    for (name, v) in items {
        let data = v.to_string();
        let e = match name {
            Some(n) => format!("event: {n}\ndata: {data}\n\n"),
            None => format!("data: {data}\n\n"),
        };
        events.push(e.into_bytes());
        payloads.push(data.into_bytes());
    }
    Workload {
        events,
        payloads,
        arg_bytes: 0,
        calls: 1,
    }
}

/// SSE events typed by the payload's own `type` field.
fn sse_typed(items: Vec<Value>) -> Workload {
    sse(items
        .into_iter()
        .map(|v| (v["type"].as_str().map(str::to_owned), v))
        .collect())
}

fn ndjson(items: Vec<Value>) -> Workload {
    let payloads: Vec<Vec<u8>> = items.iter().map(|v| v.to_string().into_bytes()).collect();
    let events = payloads
        .iter()
        .map(|p| [p.as_slice(), b"\n"].concat())
        .collect();
    Workload {
        events,
        payloads,
        arg_bytes: 0,
        calls: 1,
    }
}

/// Text cut into `piece`-byte tokens (prose into word-sized ones).
fn text(parts: &[(&str, usize)], arg_bytes: usize) -> Workload {
    let mut events = Vec::new();
    for (s, n) in parts {
        events.extend(pieces(s, *n).into_iter().map(|p| p.as_bytes().to_vec()));
    }
    Workload {
        events,
        payloads: Vec::new(),
        arg_bytes,
        calls: 1,
    }
}

fn prose(shape: Shape) -> String {
    (0..shape.text_deltas).map(word).collect()
}

// ---------------------------------------------------------------------------------------
// Envelope formats

fn openai_chat(shape: Shape) -> Workload {
    let chunk = |delta: Value, finish: Option<&str>| {
        (
            None,
            json!({"id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", "object": "chat.completion.chunk",
                "created": 1_741_570_283, "model": "gpt-4o-2024-08-06", "service_tier": "default",
                "system_fingerprint": "fp_f9f4fb6dbf",
                "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
                "usage": null, "obfuscation": "a1B2c3"}),
        )
    };
    let args = shape_args(shape);
    let mut items = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for i in 0..shape.text_deltas {
        items.push(chunk(json!({"content": word(i)}), None));
    }
    items.push(chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_LwxJUB9KppVyogRRLQsamRJv", "type": "function",
            "function": {"name": "write_file", "arguments": ""}}]}),
        None,
    ));
    for p in pieces(&args, shape.piece) {
        items.push(chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}),
            None,
        ));
    }
    items.push(chunk(json!({}), Some("tool_calls")));
    let mut w = sse(items);
    w.events.push(b"data: [DONE]\n\n".to_vec());
    w.arg_bytes = args.len();
    w
}

fn openai_responses(shape: Shape) -> Workload {
    let args = shape_args(shape);
    let response = |status: &str| {
        json!({"id": "resp_05ed6c8b322854d8006a024b53ca4c81968b3db3716edd47c6", "object": "response",
            "created_at": 1778535251, "status": status, "error": null, "model": "gpt-5.4-mini-2026-03-17",
            "output": [], "parallel_tool_calls": true, "temperature": 1.0,
            "usage": if status == "completed" { json!({"input_tokens": 429, "output_tokens": 26, "total_tokens": 455}) } else { Value::Null }})
    };
    let mut v = vec![
        json!({"type": "response.created", "response": response("in_progress")}),
        json!({"type": "response.in_progress", "response": response("in_progress")}),
    ];
    let msg = "msg_0d6d0acf28b8b1c4016a5fc92ef2a88191ac58c918e598832f";
    v.push(json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": msg, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}}));
    for i in 0..shape.text_deltas {
        v.push(json!({"type": "response.output_text.delta", "item_id": msg, "output_index": 0, "content_index": 0, "delta": word(i), "logprobs": [], "obfuscation": "KZ5MTfXYmXT6"}));
    }
    v.push(json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": msg, "type": "message", "status": "completed", "content": [], "role": "assistant"}}));
    let fc = "fc_05ed6c8b322854d8006a024b54762c8196a2c818225078288b";
    let call_id = "call_gkRScKqY5kWYzIi8VeJfbRp4";
    v.push(json!({"type": "response.output_item.added", "output_index": 1, "item": {"id": fc, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": call_id, "name": "write_file"}}));
    for p in pieces(&args, shape.piece) {
        v.push(json!({"type": "response.function_call_arguments.delta", "delta": p, "item_id": fc, "obfuscation": "lXA8KbI", "output_index": 1}));
    }
    v.push(json!({"type": "response.function_call_arguments.done", "arguments": args, "item_id": fc, "output_index": 1}));
    v.push(json!({"type": "response.output_item.done", "output_index": 1, "item": {"id": fc, "type": "function_call", "status": "completed", "arguments": args, "call_id": call_id, "name": "write_file"}}));
    v.push(json!({"type": "response.completed", "response": response("completed")}));
    for (i, x) in v.iter_mut().enumerate() {
        x["sequence_number"] = json!(i);
    }
    let mut w = sse_typed(v);
    w.arg_bytes = args.len();
    w
}

fn anthropic(shape: Shape) -> Workload {
    let args = shape_args(shape);
    let mut v = vec![
        json!({"type": "message_start", "message": {"model": "claude-sonnet-4-5-20250929", "id": "msg_01JdU4xqNHXL9QCFWkwCDKGr",
            "type": "message", "role": "assistant", "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 598, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 8}}}),
        json!({"type": "ping"}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ];
    for i in 0..shape.text_deltas {
        v.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": word(i)}}));
    }
    v.push(json!({"type": "content_block_stop", "index": 0}));
    v.push(
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use",
        "id": "toolu_01825dXWLSoJwCst1qTsiWdb", "name": "write_file", "input": {}}}),
    );
    v.push(json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}));
    for p in pieces(&args, shape.piece) {
        v.push(json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": p}}));
    }
    v.push(json!({"type": "content_block_stop", "index": 1}));
    v.push(
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
        "usage": {"input_tokens": 598, "output_tokens": 92}}),
    );
    v.push(json!({"type": "message_stop"}));
    let mut w = sse_typed(v);
    w.arg_bytes = args.len();
    w
}

/// Google AI SSE for the stream (whole `args` object in one chunk, as Google AI sends
/// them); Vertex AI streamed `partialArgs` (NDJSON) for the long argument, the only
/// Gemini wire form that streams arguments.
fn gemini(shape: Shape) -> Workload {
    let meta = json!({"usageMetadata": {"promptTokenCount": 135, "candidatesTokenCount": 39, "totalTokenCount": 400},
        "modelVersion": "gemini-3.1-pro-preview", "responseId": "VYEPauj2Noe3jMcP_dvjoQg"});
    let chunk = |parts: Value, finish: Option<&str>| {
        let mut v = meta.clone();
        let mut cand = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
        if let Some(f) = finish {
            cand["finishReason"] = json!(f);
        }
        v["candidates"] = json!([cand]);
        v
    };
    let text = content(shape.arg_len);
    let args = args_json(&text);
    let mut v: Vec<Value> = (0..shape.text_deltas)
        .map(|i| chunk(json!([{"text": word(i)}]), None))
        .collect();
    if shape.piece >= 6 {
        let a: Value = serde_json::from_str(&args).unwrap();
        v.push(chunk(
            json!([{"functionCall": {"name": "write_file", "args": a, "id": "u959pftr"}}]),
            None,
        ));
        v.push(chunk(json!([{"text": ""}]), Some("STOP")));
        let payloads: Vec<Vec<u8>> = v.iter().map(|p| p.to_string().into_bytes()).collect();
        let events = payloads
            .iter()
            .map(|p| [b"data: ".as_slice(), p, b"\r\n\r\n"].concat())
            .collect();
        return Workload {
            events,
            payloads,
            arg_bytes: args.len(),
            calls: 1,
        };
    }
    let fc = |f: Value| chunk(json!([{"functionCall": f}]), None);
    v.push(fc(json!({"name": "write_file", "willContinue": true})));
    v.push(fc(
        json!({"partialArgs": [{"jsonPath": "$.path", "stringValue": "notes.txt"}], "willContinue": true}),
    ));
    for p in pieces(&text, shape.piece) {
        v.push(fc(
            json!({"partialArgs": [{"jsonPath": "$.content", "stringValue": p, "willContinue": true}], "willContinue": true}),
        ));
    }
    v.push(fc(
        json!({"partialArgs": [{"jsonPath": "$.content", "stringValue": ""}], "willContinue": true}),
    ));
    v.push(fc(json!({})));
    v.push(chunk(json!([{"text": ""}]), Some("STOP")));
    let mut w = ndjson(v);
    w.arg_bytes = args.len();
    w
}

/// One AWS event-stream frame.
fn frame(event_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (k, v) in [
        (":event-type", event_type),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ] {
        h.push(k.len() as u8);
        h.extend_from_slice(k.as_bytes());
        h.push(7);
        h.extend_from_slice(&(v.len() as u16).to_be_bytes());
        h.extend_from_slice(v.as_bytes());
    }
    let total = 12 + h.len() + payload.len() + 4;
    let mut m = Vec::with_capacity(total);
    m.extend_from_slice(&(total as u32).to_be_bytes());
    m.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let crc = crc32fast::hash(&m);
    m.extend_from_slice(&crc.to_be_bytes());
    m.extend_from_slice(&h);
    m.extend_from_slice(payload);
    let crc = crc32fast::hash(&m);
    m.extend_from_slice(&crc.to_be_bytes());
    m
}

fn bedrock(shape: Shape) -> Workload {
    let args = shape_args(shape);
    let mut ev: Vec<(&str, Value)> = vec![("messageStart", json!({"role": "assistant"}))];
    for i in 0..shape.text_deltas {
        ev.push((
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"text": word(i)}}),
        ));
    }
    ev.push(("contentBlockStop", json!({"contentBlockIndex": 0})));
    ev.push(("contentBlockStart", json!({"contentBlockIndex": 1, "start": {"toolUse": {"name": "write_file", "toolUseId": "tooluse_roHJ1p6nRuyemwcpS0cqgw"}}})));
    for p in pieces(&args, shape.piece) {
        ev.push((
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": p}}}),
        ));
    }
    ev.push(("contentBlockStop", json!({"contentBlockIndex": 1})));
    ev.push(("messageStop", json!({"stopReason": "tool_use"})));
    ev.push((
        "metadata",
        json!({"metrics": {"latencyMs": 4485}, "usage": {"inputTokens": 67, "outputTokens": 78, "totalTokens": 145}}),
    ));
    let pad = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut events = Vec::new();
    let mut payloads = Vec::new();
    for (i, (k, mut p)) in ev.into_iter().enumerate() {
        p["p"] = json!(&pad[..(i * 7) % pad.len()]);
        let bytes = p.to_string().into_bytes();
        events.push(frame(k, &bytes));
        payloads.push(bytes);
    }
    Workload {
        events,
        payloads,
        arg_bytes: args.len(),
        calls: 1,
    }
}

fn cohere(shape: Shape) -> Workload {
    let args = shape_args(shape);
    let mut v = vec![
        json!({"id": "25e47b2c", "type": "message-start", "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}}),
    ];
    for i in 0..shape.text_deltas {
        v.push(json!({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": word(i)}}}));
    }
    v.push(json!({"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {"id": "python_interpreter_b5vx2qmxbbe4", "type": "function", "function": {"name": "write_file", "arguments": ""}}}}}));
    for p in pieces(&args, shape.piece) {
        v.push(json!({"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": p}}}}}));
    }
    v.push(json!({"type": "tool-call-end", "index": 0}));
    v.push(json!({"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {"billed_units": {"input_tokens": 477, "output_tokens": 182}, "tokens": {"input_tokens": 1359, "output_tokens": 216}}}}));
    let mut w = sse_typed(v);
    w.arg_bytes = args.len();
    w
}

/// Ollama never streams arguments: a call arrives whole in one line (`piece` unused).
fn ollama(shape: Shape) -> Workload {
    let args = shape_args(shape);
    let line = |message: Value| json!({"model": "qwen3:8b", "created_at": "2025-06-01T12:00:00.000000Z", "message": message, "done": false});
    let mut v: Vec<Value> = (0..shape.text_deltas)
        .map(|i| line(json!({"role": "assistant", "content": word(i)})))
        .collect();
    let a: Value = serde_json::from_str(&args).unwrap();
    v.push(line(
        json!({"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "write_file", "arguments": a}}]}),
    ));
    v.push(json!({"model": "qwen3:8b", "created_at": "2025-06-01T12:00:01.000000Z", "message": {"role": "assistant", "content": ""},
        "done_reason": "stop", "done": true, "total_duration": 1_000_000, "prompt_eval_count": 664, "eval_count": 74}));
    let mut w = ndjson(v);
    w.arg_bytes = args.len();
    w
}

/// Llama Stack streams the call's raw text in `in_progress` fragments and the parsed
/// arguments once, in `succeeded`.
fn llama_stack(shape: Shape) -> Workload {
    let text = content(shape.arg_len);
    let args = args_json(&text);
    let raw =
        format!("{{\"type\": \"function\", \"name\": \"write_file\", \"parameters\": {args}}}");
    let ev = |delta: Value, event_type: &str, stop: Value| {
        (
            None,
            json!({"event": {"delta": delta, "event_type": event_type, "logprobs": null, "stop_reason": stop}, "metrics": null}),
        )
    };
    let mut items = vec![ev(
        json!({"text": "", "type": "text"}),
        "start",
        Value::Null,
    )];
    for i in 0..shape.text_deltas {
        items.push(ev(
            json!({"text": word(i), "type": "text"}),
            "progress",
            Value::Null,
        ));
    }
    items.push(ev(
        json!({"parse_status": "started", "tool_call": "", "type": "tool_call"}),
        "progress",
        Value::Null,
    ));
    for p in pieces(&raw, shape.piece) {
        items.push(ev(
            json!({"parse_status": "in_progress", "tool_call": p, "type": "tool_call"}),
            "progress",
            Value::Null,
        ));
    }
    let a: Value = serde_json::from_str(&args).unwrap();
    items.push(ev(
        json!({"parse_status": "succeeded", "tool_call": {"arguments": a, "call_id": "6e8a3719", "tool_name": "write_file"}, "type": "tool_call"}),
        "progress",
        json!("end_of_turn"),
    ));
    let mut done = ev(
        json!({"text": "", "type": "text"}),
        "complete",
        json!("end_of_turn"),
    );
    done.1["metrics"] = json!([{"metric": "prompt_tokens", "value": 40}, {"metric": "completion_tokens", "value": 10}]);
    items.push(done);
    let mut w = sse(items);
    w.arg_bytes = args.len();
    w
}

// ---------------------------------------------------------------------------------------
// Text formats: one generator, driven by the syntax's own example call template
// (`toolstream::testing::call_template`, the `example` of its registry row).

/// How a call template writes the content: its content placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// `{args}`: the whole arguments object as JSON text.
    Json,
    /// `{content}`: the content as it is.
    Raw,
    /// `{py}`: the content inside a Python single-quoted string literal.
    Python,
}

const PROSE: &str = "{prose}";
const CALL: &str = "{call}";
const PLACEHOLDERS: [(&str, Encoding); 3] = [
    ("{args}", Encoding::Json),
    ("{content}", Encoding::Raw),
    ("{py}", Encoding::Python),
];

/// The content placeholder of `format`'s call template, `None` for a provider format.
pub fn encoding(format: Format) -> Option<Encoding> {
    let template = toolstream::testing::call_template(format)?;
    let found = PLACEHOLDERS.iter().find(|(p, _)| template.contains(p));
    Some(found.expect("a content placeholder in the call template").1)
}

/// `template` rendered around `prose` and a call writing `content`: the text before the
/// prose, the prose, the text after it up to the call, and the call (`{call}` onwards).
/// Panics when the template lacks a placeholder.
pub fn render(template: &str, prose: &str, content: &str) -> [String; 4] {
    let (head, call) = template.split_once(CALL).expect("`{call}` in the template");
    let (before, after) = head.split_once(PROSE).expect("`{prose}` before `{call}`");
    let (placeholder, encoding) = PLACEHOLDERS
        .iter()
        .find(|(p, _)| call.contains(p))
        .expect("a content placeholder after `{call}`");
    let value = match encoding {
        Encoding::Json => args_json(content),
        Encoding::Raw => content.to_owned(),
        Encoding::Python => python_str(content),
    };
    [
        before.to_owned(),
        prose.to_owned(),
        after.to_owned(),
        call.replacen(placeholder, &value, 1),
    ]
}

/// `s` as the inside of a Python single-quoted string literal.
fn python_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            other => out.push(other),
        }
    }
    out
}

/// A text format's workload: its call template rendered with the shape's prose and
/// content; the call in `piece`-byte tokens, the rest in 5-byte ones (the prose its own).
fn templated(template: &str, shape: Shape) -> Workload {
    let c = content(shape.arg_len);
    let [before, prose, after, call] = render(template, &prose(shape), &c);
    text(
        &[(&before, 5), (&prose, 5), (&after, 5), (&call, shape.piece)],
        args_json(&c).len(),
    )
}

/// About `len` bytes of prose with no call, with the characters markers start with.
pub fn prose_text(len: usize) -> String {
    let unit = "Streaming parsers hold back only what could still be a marker: a < b, x[0] = 1, déjà vu 😀.\n";
    let mut s = unit.repeat(len / unit.len() + 1);
    let mut cut = len.min(s.len());
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    s
}

/// Feeds `body` in `chunk`-byte pieces (0: whole), handling each feed's events before
/// the next (as a consumer does). Returns the events seen.
pub fn run_chunks(format: Format, body: &[u8], chunk: usize, out: &mut Vec<Event>) -> usize {
    let mut p = Parser::new(format);
    let mut n = 0;
    let size = if chunk == 0 { body.len().max(1) } else { chunk };
    for c in body.chunks(size) {
        p.feed(c, out).unwrap();
        n += out.len();
        out.clear();
    }
    p.finish(out).unwrap();
    n += out.len();
    out.clear();
    n
}

/// Whether `format` reads raw model text.
pub fn is_text(format: Format) -> bool {
    format.default_framing() == toolstream::Framing::Text
}
