//! Throughput of the `anthropic` and `openai-responses` decoders (framing included).
//!
//! - `*/stream`: a stream of recorded size and shape (text, thinking / reasoning, two
//!   calls, the real envelope fields and padding), fed one SSE event per chunk (how
//!   streaming servers flush) and in 16-byte chunks. Divide the time by the event count
//!   printed at start for ns per provider event.
//! - `*/args_*`: one call whose arguments (16 KB and 64 KB, with escapes and non-ASCII)
//!   arrive in small deltas (`input_json_delta` / `function_call_arguments.delta`, 6 to
//!   23 bytes, token-sized), fed one event per chunk, beside `envelope_parse`: just
//!   `serde_json::from_slice::<serde_json::Value>` on each payload. Throughput is in
//!   argument bytes, so the difference of the two times divided by the argument size is
//!   the decoder's cost per argument byte on top of the envelope parse.

#![allow(clippy::indexing_slicing)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolstream::{Event, Format, Parser};

/// Token-sized delta lengths, cycled.
const DELTA_SIZES: &[usize] = &[6, 11, 17, 9, 14, 23, 8, 12];

/// One SSE event per element.
struct Body {
    events: Vec<Vec<u8>>,
    /// The `data:` payload of each event (for the baseline).
    payloads: Vec<Vec<u8>>,
    bytes: Vec<u8>,
}

impl Body {
    fn new() -> Self {
        Body {
            events: Vec::new(),
            payloads: Vec::new(),
            bytes: Vec::new(),
        }
    }

    /// An SSE event, with `pad` spaces before the closing brace (Anthropic's padding).
    fn push(&mut self, event: &str, v: &Value, pad: usize) {
        let mut data = v.to_string();
        if pad > 0 {
            data.pop();
            data.push_str(&" ".repeat(pad));
            data.push('}');
        }
        let e = format!("event: {event}\ndata: {data}\n\n").into_bytes();
        self.bytes.extend_from_slice(&e);
        self.events.push(e);
        self.payloads.push(data.into_bytes());
    }
}

/// `len` bytes of argument text: a JSON object with one long string of prose with
/// escapes (quotes, newlines, backslashes) and non-ASCII.
fn long_arguments(len: usize) -> String {
    let prose =
        "fn main() {\n    println!(\"héllo, wörld — 😀\");\n    let p = \"C:\\\\tmp\";\n}\n";
    let mut content = String::new();
    // Grow the decoded string until its JSON text reaches `len`.
    while serde_json::to_string(&json!({"content": content})).map_or(0, |s| s.len()) < len {
        content.push_str(prose);
    }
    serde_json::to_string(&json!({"path": "src/main.rs", "content": content})).unwrap_or_default()
}

/// Cuts `s` into token-sized pieces at char boundaries.
fn pieces(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    let mut i = 0;
    while !rest.is_empty() {
        let mut n = DELTA_SIZES[i % DELTA_SIZES.len()].min(rest.len());
        while !rest.is_char_boundary(n) {
            n += 1;
        }
        let (a, b) = rest.split_at(n);
        out.push(a);
        rest = b;
        i += 1;
    }
    out
}

fn anthropic_body(args: &str, text_deltas: usize) -> Body {
    let mut b = Body::new();
    b.push(
        "message_start",
        &json!({"type": "message_start", "message": {"model": "claude-sonnet-4-5-20250929", "id": "msg_01JdU4xqNHXL9QCFWkwCDKGr",
            "type": "message", "role": "assistant", "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 598, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}, "output_tokens": 8, "service_tier": "standard"}}}),
        13,
    );
    b.push("ping", &json!({"type": "ping"}), 0);
    let mut block = 0;
    if text_deltas > 0 {
        b.push(
            "content_block_start",
            &json!({"type": "content_block_start", "index": block, "content_block": {"type": "text", "text": ""}}),
            4,
        );
        for i in 0..text_deltas {
            let t = [
                "I'll", " look", " that", " up", " for", " you", " — one", " moment.",
            ][i % 8];
            b.push(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": block, "delta": {"type": "text_delta", "text": t}}),
                9,
            );
        }
        b.push(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": block}),
            7,
        );
        block += 1;
    }
    b.push(
        "content_block_start",
        &json!({"type": "content_block_start", "index": block, "content_block": {"type": "tool_use",
            "id": "toolu_01825dXWLSoJwCst1qTsiWdb", "name": "write_file", "input": {}, "caller": {"type": "direct"}}}),
        13,
    );
    b.push(
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": block, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        13,
    );
    for p in pieces(args) {
        b.push(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": block, "delta": {"type": "input_json_delta", "partial_json": p}}),
            11,
        );
    }
    b.push(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": block}),
        7,
    );
    b.push(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
            "usage": {"input_tokens": 598, "output_tokens": 92}}),
        0,
    );
    b.push("message_stop", &json!({"type": "message_stop"}), 4);
    b
}

fn responses_body(args: &str, text_deltas: usize) -> Body {
    let mut b = Body::new();
    let response = |status: &str| {
        json!({"id": "resp_05ed6c8b322854d8006a024b53ca4c81968b3db3716edd47c6", "object": "response", "created_at": 1778535251,
            "status": status, "background": false, "error": null, "incomplete_details": null,
            "instructions": "You are a helpful assistant. Use the tools when they help answer the question.",
            "model": "gpt-5.4-mini-2026-03-17", "output": [], "parallel_tool_calls": true, "temperature": 1.0,
            "tools": [{"type": "function", "name": "write_file", "description": "Write a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"], "additionalProperties": false}, "strict": true}],
            "usage": if status == "completed" { json!({"input_tokens": 429, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 26, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 455}) } else { Value::Null }})
    };
    let mut seq = 0;
    let mut push = |b: &mut Body, mut v: Value| {
        v["sequence_number"] = json!(seq);
        seq += 1;
        let t = v["type"].as_str().unwrap_or_default().to_owned();
        b.push(&t, &v, 0);
    };
    push(
        &mut b,
        json!({"type": "response.created", "response": response("in_progress")}),
    );
    push(
        &mut b,
        json!({"type": "response.in_progress", "response": response("in_progress")}),
    );
    let mut oi = 0;
    if text_deltas > 0 {
        let rs = "rs_0d6d0acf28b8b1c4016a5fc92ef2a88191ac58c918e598831e";
        push(
            &mut b,
            json!({"type": "response.output_item.added", "output_index": oi, "item": {"id": rs, "type": "reasoning", "summary": []}}),
        );
        for i in 0..text_deltas {
            let t = ["The", " user", " asks", " to", " write", " a", " file", "."][i % 8];
            push(
                &mut b,
                json!({"type": "response.reasoning_summary_text.delta", "item_id": rs, "output_index": oi, "summary_index": 0, "delta": t, "obfuscation": "ZeIqFLdgSgptWI"}),
            );
        }
        push(
            &mut b,
            json!({"type": "response.output_item.done", "output_index": oi, "item": {"id": rs, "type": "reasoning", "summary": []}}),
        );
        oi += 1;
        let msg = "msg_0d6d0acf28b8b1c4016a5fc92ef2a88191ac58c918e598832f";
        push(
            &mut b,
            json!({"type": "response.output_item.added", "output_index": oi, "item": {"id": msg, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}}),
        );
        for i in 0..text_deltas {
            let t = [
                "I'll", " write", " that", " file", " for", " you", " — one", " moment.",
            ][i % 8];
            push(
                &mut b,
                json!({"type": "response.output_text.delta", "item_id": msg, "output_index": oi, "content_index": 0, "delta": t, "logprobs": [], "obfuscation": "KZ5MTfXYmXT6"}),
            );
        }
        push(
            &mut b,
            json!({"type": "response.output_item.done", "output_index": oi, "item": {"id": msg, "type": "message", "status": "completed", "content": [], "role": "assistant"}}),
        );
        oi += 1;
    }
    let fc = "fc_05ed6c8b322854d8006a024b54762c8196a2c818225078288b";
    let call_id = "call_gkRScKqY5kWYzIi8VeJfbRp4";
    push(
        &mut b,
        json!({"type": "response.output_item.added", "output_index": oi, "item": {"id": fc, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": call_id, "name": "write_file"}}),
    );
    for p in pieces(args) {
        push(
            &mut b,
            json!({"type": "response.function_call_arguments.delta", "delta": p, "item_id": fc, "obfuscation": "lXA8KbI", "output_index": oi}),
        );
    }
    push(
        &mut b,
        json!({"type": "response.function_call_arguments.done", "arguments": args, "item_id": fc, "output_index": oi}),
    );
    push(
        &mut b,
        json!({"type": "response.output_item.done", "output_index": oi, "item": {"id": fc, "type": "function_call", "status": "completed", "arguments": args, "call_id": call_id, "name": "write_file"}}),
    );
    push(
        &mut b,
        json!({"type": "response.completed", "response": response("completed")}),
    );
    b
}

fn parse(format: Format, chunks: &[Vec<u8>]) -> usize {
    let mut p = Parser::new(format);
    let mut out: Vec<Event> = Vec::with_capacity(64);
    let mut n = 0;
    for c in chunks {
        let _ = p.feed(c, &mut out);
        n += out.len();
        out.clear();
    }
    let _ = p.finish(&mut out);
    n + out.len()
}

fn baseline(payloads: &[Vec<u8>]) -> usize {
    payloads
        .iter()
        .map(|p| serde_json::from_slice::<Value>(p).map_or(0, |v| usize::from(v.is_object())))
        .sum()
}

fn sixteen(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.chunks(16).map(<[u8]>::to_vec).collect()
}

fn bench_stream(c: &mut Criterion, name: &str, format: Format, body: &Body) {
    eprintln!(
        "{name}/stream: {} bytes, {} provider events",
        body.bytes.len(),
        body.events.len()
    );
    let mut g = c.benchmark_group(format!("{name}/stream"));
    g.throughput(Throughput::Bytes(body.bytes.len() as u64));
    g.bench_function("event_chunks", |b| {
        b.iter(|| parse(format, black_box(&body.events)))
    });
    let small = sixteen(&body.bytes);
    g.bench_function("16B_chunks", |b| {
        b.iter(|| parse(format, black_box(&small)))
    });
    g.bench_function("envelope_parse", |b| {
        b.iter(|| baseline(black_box(&body.payloads)))
    });
    g.finish();
}

fn bench_args(c: &mut Criterion, name: &str, format: Format, make: fn(&str, usize) -> Body) {
    let mut g = c.benchmark_group(format!("{name}/args"));
    for kb in [16usize, 64] {
        let args = long_arguments(kb << 10);
        let body = make(&args, 0);
        eprintln!(
            "{name}/args/{kb}KB: {} argument bytes in {} events, body {} bytes",
            args.len(),
            body.events.len(),
            body.bytes.len()
        );
        g.throughput(Throughput::Bytes(args.len() as u64));
        g.bench_with_input(
            BenchmarkId::new("decode", format!("{kb}KB")),
            &body,
            |b, body| b.iter(|| parse(format, black_box(&body.events))),
        );
        g.bench_with_input(
            BenchmarkId::new("envelope_parse", format!("{kb}KB")),
            &body,
            |b, body| b.iter(|| baseline(black_box(&body.payloads))),
        );
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    // Recorded sizes: Anthropic's longest capture is ~32 KB with 216 argument deltas;
    // Responses captures are 5-22 KB, mostly the repeated response object.
    let anthropic = anthropic_body(&long_arguments(2600), 40);
    bench_stream(c, "anthropic", Format::Anthropic, &anthropic);
    let responses = responses_body(&long_arguments(600), 30);
    bench_stream(c, "openai-responses", Format::OpenAiResponses, &responses);
    bench_args(c, "anthropic", Format::Anthropic, anthropic_body);
    bench_args(
        c,
        "openai-responses",
        Format::OpenAiResponses,
        responses_body,
    );
}

criterion_group! {
    name = group;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(group);
