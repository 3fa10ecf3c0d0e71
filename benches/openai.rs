//! `openai-chat` end to end, against baselines measured in the same groups.
//!
//! - `openai_stream`: a realistic ~200-event stream (text deltas, then a call whose
//!   arguments arrive in small fragments) fed whole, one SSE event per feed, and in 16-byte
//!   chunks (and one event per feed into a borrowed-event sink, `per_event_borrowed`);
//!   beside a borrowed serde parse and a validate-only parse of the same payloads
//!   (the floor any client pays to read the envelopes).
//! - `openai_64k_args`: one call whose 64 KB argument string arrives as 4-byte deltas (one
//!   SSE event each), against the naive approach every peer uses: append the fragment and
//!   re-parse the accumulated arguments with serde_json on every delta.
//! - `json_kernel_64k`: the incremental JSON kernel alone on those 64 KB, in 4-byte pieces.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde::Deserialize;
use serde_json::json;
use std::borrow::Cow;
use std::hint::black_box;
use std::time::Duration;
use toolstream::scan::json::JsonScanner;
use toolstream::{Event, EventRef, EventSink, Format, Parser};

fn sse_event(delta: serde_json::Value, finish: Option<&str>) -> String {
    let c = json!({
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", "object": "chat.completion.chunk",
        "created": 1_741_570_283, "model": "gpt-4o-2024-08-06", "service_tier": "default",
        "system_fingerprint": "fp_f9f4fb6dbf",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
    });
    format!("data: {c}\n\n")
}

/// ~200 events of ~330 bytes: 120 text deltas, then a call with 80 argument fragments.
fn realistic_stream() -> (Vec<u8>, usize) {
    let words = [
        "The", " weather", " in", " Paris", " is", " mild", " today", ",", " with", " light",
        " rain", ".",
    ];
    let mut events = Vec::new();
    events.push(sse_event(json!({"role": "assistant", "content": ""}), None));
    for i in 0..120 {
        events.push(sse_event(json!({"content": words[i % words.len()]}), None));
    }
    events.push(sse_event(
        json!({"tool_calls": [{"index": 0, "id": "call_LwxJUB9KppVyogRRLQsamRJv", "type": "function",
            "function": {"name": "get_weather", "arguments": ""}}]}),
        None,
    ));
    // Make the arguments one valid object: {"k":"v", ... "end":1}
    let mut args = String::from("{");
    for i in 0..39 {
        args.push_str(&format!("\"k{i}\":\"Mexico City\","));
    }
    args.push_str("\"end\":1}");
    for piece in args.as_bytes().chunks(args.len().div_ceil(80)) {
        let p = String::from_utf8_lossy(piece).into_owned();
        events.push(sse_event(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}),
            None,
        ));
    }
    events.push(sse_event(json!({}), Some("tool_calls")));
    events.push("data: [DONE]\n\n".to_owned());
    let n = events.len();
    (events.concat().into_bytes(), n)
}

/// One call whose 64 KB string argument arrives in 4-byte deltas, one SSE event each.
fn big_args_stream() -> (Vec<u8>, Vec<String>) {
    let mut deltas = vec!["{\"content\": \"".to_owned()];
    let body: String = "lorem ipsum dolor sit amet, \\\"quoted\\\" \\n ".repeat(1600);
    let body = &body[..65_536];
    for piece in body.as_bytes().chunks(4) {
        deltas.push(String::from_utf8_lossy(piece).into_owned());
    }
    deltas.push("\"}".to_owned());
    let mut s = sse_event(
        json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "write_file", "arguments": ""}}]}),
        None,
    );
    for d in &deltas {
        // A compact event, as servers send for argument deltas.
        s.push_str(&format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": d}}]}}]})
        ));
    }
    s.push_str("data: [DONE]\n\n");
    (s.into_bytes(), deltas)
}

/// A sink that counts the borrowed events (no allocation per event).
struct Count(usize);

impl EventSink for Count {
    fn event(&mut self, e: EventRef<'_>) {
        black_box(e);
        self.0 += 1;
    }
}

fn parse_all(body: &[u8], chunk: usize) -> usize {
    let mut p = Parser::new(Format::OpenAiChat);
    let mut out = Vec::with_capacity(256);
    let mut n = 0;
    for c in body.chunks(chunk) {
        p.feed(c, &mut out).unwrap();
        n += out.len();
        out.clear();
    }
    p.finish(&mut out).unwrap();
    n + out.len()
}

/// Splits the body at event boundaries (one SSE event per feed).
fn per_event(body: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + 1 < body.len() {
        if body[i] == b'\n' && body[i + 1] == b'\n' {
            out.push(&body[start..i + 2]);
            start = i + 2;
            i += 2;
        } else {
            i += 1;
        }
    }
    if start < body.len() {
        out.push(&body[start..]);
    }
    out
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct BChunk<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    choices: Vec<BChoice<'a>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct BChoice<'a> {
    #[serde(borrow)]
    delta: BDelta<'a>,
    #[serde(borrow)]
    finish_reason: Option<Cow<'a, str>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct BDelta<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<BTool<'a>>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct BTool<'a> {
    index: u32,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function: Option<BFunc<'a>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct BFunc<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
}

fn payloads(body: &[u8]) -> Vec<&[u8]> {
    per_event(body)
        .into_iter()
        .filter_map(|e| e.strip_prefix(b"data: "))
        .map(|e| e.trim_ascii_end())
        .filter(|p| *p != b"[DONE]")
        .collect()
}

fn bench_stream(c: &mut Criterion) {
    let (body, n_events) = realistic_stream();
    let events = per_event(&body);
    assert_eq!(events.len(), n_events);
    assert!(parse_all(&body, body.len()) > 100);
    let pl = payloads(&body);
    let mut g = c.benchmark_group("openai_stream");
    g.throughput(Throughput::Bytes(body.len() as u64));
    g.bench_function("toolstream/whole", |b| {
        b.iter(|| parse_all(black_box(&body), body.len()))
    });
    g.bench_function("toolstream/per_event", |b| {
        b.iter(|| {
            let mut p = Parser::new(Format::OpenAiChat);
            let mut out = Vec::with_capacity(8);
            for e in &events {
                p.feed(black_box(e), &mut out).unwrap();
                out.clear();
            }
            p.finish(&mut out).unwrap();
        })
    });
    g.bench_function("toolstream/per_event_borrowed", |b| {
        b.iter(|| {
            let mut p = Parser::new(Format::OpenAiChat);
            let mut sink = Count(0);
            for e in &events {
                p.feed_into(black_box(e), &mut sink).unwrap();
            }
            p.finish_into(&mut sink).unwrap();
            sink.0
        })
    });
    g.bench_function("toolstream/16B", |b| {
        b.iter(|| parse_all(black_box(&body), 16))
    });
    g.bench_function("baseline/serde_borrowed", |b| {
        b.iter(|| {
            for p in &pl {
                let c: BChunk<'_> = serde_json::from_slice(black_box(p)).unwrap();
                black_box(c);
            }
        })
    });
    g.bench_function("baseline/serde_validate_only", |b| {
        b.iter(|| {
            for p in &pl {
                let c: serde::de::IgnoredAny = serde_json::from_slice(black_box(p)).unwrap();
                black_box(c);
            }
        })
    });
    g.finish();
    eprintln!(
        "openai_stream: {} events, {} bytes ({} bytes/event)",
        n_events,
        body.len(),
        body.len() / n_events
    );
}

fn bench_big_args(c: &mut Criterion) {
    let (body, deltas) = big_args_stream();
    let events = per_event(&body);
    let mut g = c.benchmark_group("openai_64k_args");
    g.throughput(Throughput::Bytes(65_536));
    g.bench_function("toolstream/per_event", |b| {
        b.iter(|| {
            let mut p = Parser::new(Format::OpenAiChat);
            let mut out = Vec::with_capacity(8);
            let mut ended = false;
            for e in &events {
                p.feed(black_box(e), &mut out).unwrap();
                ended |= out.iter().any(|e| matches!(e, Event::ToolCallEnd { .. }));
                out.clear();
            }
            assert!(ended);
        })
    });
    // The peers' approach: append each fragment, re-parse the whole accumulated text.
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(8));
    g.bench_function("baseline/naive_reparse_serde", |b| {
        b.iter(|| {
            let mut acc = String::new();
            let mut done = false;
            for e in &events {
                let Some(p) = e.strip_prefix(b"data: ") else {
                    continue;
                };
                let p = p.trim_ascii_end();
                if p == b"[DONE]" {
                    continue;
                }
                let v: serde_json::Value = serde_json::from_slice(p).unwrap();
                if let Some(a) =
                    v["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str()
                {
                    acc.push_str(a);
                    done = serde_json::from_str::<serde_json::Value>(&acc).is_ok();
                }
            }
            assert!(done);
        })
    });
    g.finish();

    let mut g = c.benchmark_group("json_kernel_64k");
    let text: String = deltas.concat();
    g.throughput(Throughput::Bytes(text.len() as u64));
    for size in [4usize, 16, 65_536 + 64] {
        g.bench_with_input(BenchmarkId::new("chunks", size), &size, |b, &size| {
            b.iter(|| {
                let mut s = JsonScanner::new();
                for piece in text.as_bytes().chunks(size) {
                    black_box(s.feed(piece));
                }
                assert!(s.is_complete());
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = bench_stream, bench_big_args
}
criterion_main!(benches);
