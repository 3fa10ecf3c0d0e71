//! Throughput of the SSE framer against `eventsource-stream` on a realistic
//! OpenAI chat-completions body, fed whole, in 16-byte chunks and one event
//! per chunk. Also the NDJSON framer on the same payloads as JSON lines.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::convert::Infallible;
use std::hint::black_box;
use std::time::Duration;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use toolstream::framing::ndjson::{NdjsonFramer, NdjsonItem};
use toolstream::framing::sse::{SseFramer, SseItem};

const WORDS: &[&str] = &[
    "The",
    " quick",
    " brown",
    " fox",
    " jumps",
    " over",
    " the",
    " lazy",
    " dog",
    ".",
    " Streaming",
    " parsers",
    " should",
    " never",
    " copy",
    " bytes",
    " they",
    " do",
    " not",
    " need",
    " to",
];

/// One OpenAI `chat.completion.chunk` JSON object (~320 bytes).
fn chunk_json(i: usize) -> String {
    let word = WORDS[i % WORDS.len()];
    format!(
        concat!(
            r#"{{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","#,
            r#""created":1741569952,"model":"gpt-4o-2024-08-06","service_tier":"default","#,
            r#""system_fingerprint":"fp_eb9dce56a8","choices":[{{"index":0,"delta":{{"content":"{}"}},"#,
            r#""logprobs":null,"finish_reason":null}}],"usage":null,"obfuscation":"{}"}}"#
        ),
        word,
        &"a1B2c3D4e5F6g7H8"[..16 - word.len().min(15)],
    )
}

/// ~200 events, ending with `data: [DONE]`. Returns the body and the
/// per-event chunks.
fn openai_body() -> (Vec<u8>, Vec<Vec<u8>>) {
    let mut events: Vec<Vec<u8>> = (0..200)
        .map(|i| format!("data: {}\n\n", chunk_json(i)).into_bytes())
        .collect();
    events.push(b"data: [DONE]\n\n".to_vec());
    (events.concat(), events)
}

fn run_framer(chunks: &[&[u8]]) -> usize {
    let mut framer = SseFramer::new();
    let mut n = 0;
    for chunk in chunks {
        let mut rest = *chunk;
        while let Some(item) = framer.feed(&mut rest) {
            if let SseItem::Event { event, data } = item {
                black_box((event, data));
                n += 1;
            }
        }
    }
    while let Some(item) = framer.finish() {
        black_box(item);
        n += 1;
    }
    n
}

fn run_eventsource(chunks: &[Bytes]) -> usize {
    let stream = futures::stream::iter(chunks.iter().cloned().map(Ok::<_, Infallible>));
    futures::executor::block_on(stream.eventsource().fold(0, |n, event| {
        let event = black_box(event);
        async move { n + usize::from(event.is_ok()) }
    }))
}

fn run_ndjson(chunks: &[&[u8]]) -> usize {
    let mut framer = NdjsonFramer::new();
    let mut n = 0;
    for chunk in chunks {
        let mut rest = *chunk;
        while let Some(item) = framer.feed(&mut rest) {
            if let NdjsonItem::Line(line) = item {
                black_box(line);
                n += 1;
            }
        }
    }
    while let Some(item) = framer.finish() {
        black_box(item);
        n += 1;
    }
    n
}

fn bench_sse(c: &mut Criterion) {
    let (body, events) = openai_body();
    let n_events = events.len();
    eprintln!(
        "SSE body: {} bytes, {} events, {:.0} bytes/event",
        body.len(),
        n_events,
        body.len() as f64 / n_events as f64
    );

    let whole: Vec<&[u8]> = vec![&body];
    let small: Vec<&[u8]> = body.chunks(16).collect();
    let per_event: Vec<&[u8]> = events.iter().map(Vec::as_slice).collect();
    for chunks in [&whole, &small, &per_event] {
        assert_eq!(run_framer(chunks), n_events);
        let bytes: Vec<Bytes> = chunks.iter().map(|c| Bytes::copy_from_slice(c)).collect();
        assert_eq!(run_eventsource(&bytes), n_events);
    }

    let mut group = c.benchmark_group("sse_openai");
    group.throughput(Throughput::Bytes(body.len() as u64));
    for (name, chunks) in [
        ("whole", &whole),
        ("16B", &small),
        ("per_event", &per_event),
    ] {
        group.bench_function(format!("toolstream/{name}"), |b| {
            b.iter(|| run_framer(black_box(chunks)))
        });
        let bytes: Vec<Bytes> = chunks.iter().map(|c| Bytes::copy_from_slice(c)).collect();
        group.bench_function(format!("eventsource-stream/{name}"), |b| {
            b.iter(|| run_eventsource(black_box(&bytes)))
        });
    }
    group.finish();
}

fn bench_ndjson(c: &mut Criterion) {
    let lines: Vec<Vec<u8>> = (0..200)
        .map(|i| format!("{}\n", chunk_json(i)).into_bytes())
        .collect();
    let body = lines.concat();
    let whole: Vec<&[u8]> = vec![&body];
    let small: Vec<&[u8]> = body.chunks(16).collect();
    let per_line: Vec<&[u8]> = lines.iter().map(Vec::as_slice).collect();
    for chunks in [&whole, &small, &per_line] {
        assert_eq!(run_ndjson(chunks), lines.len());
    }
    let mut group = c.benchmark_group("ndjson_openai");
    group.throughput(Throughput::Bytes(body.len() as u64));
    for (name, chunks) in [("whole", &whole), ("16B", &small), ("per_line", &per_line)] {
        group.bench_function(format!("toolstream/{name}"), |b| {
            b.iter(|| run_ndjson(black_box(chunks)))
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_sse, bench_ndjson
}
criterion_main!(benches);
