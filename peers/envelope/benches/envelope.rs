//! What one OpenAI Chat Completions chunk costs through toolstream's envelope path, beside
//! what a client pays to read the same payloads with serde_json and with sonic-rs (issue 16:
//! "OpenAI chunk events ≤ 0.3 µs at ~330 B; try a faster JSON path for the envelope, e.g. a
//! borrowed field scan or sonic-rs, and justify the choice with numbers").
//!
//! The input is the `openai-chat` stream workload of `benches/support/workloads.rs` (the
//! one the main suite and `tests/alloc.rs` use): ~120 text deltas, then one call whose
//! ~1.2 KB of arguments arrive in 6-byte deltas, with the real envelope fields (id, model,
//! fingerprint, `obfuscation`, usage), ~330 bytes per event. Ids, per event:
//!
//! - `toolstream/feed_into`: `Parser::feed_into` one SSE event per feed into a counting
//!   `EventSink` (the field scan of `provider/json.rs`, serde_json as fallback);
//! - `toolstream/feed`: the same through `Parser::feed` into a reused `Vec<Event>`;
//! - `serde_json/borrowed`: `serde_json::from_slice` of each payload into borrowed structs
//!   of the fields a tool-call client reads (no framing, no events);
//! - `sonic_rs/borrowed`: the same structs through `sonic_rs::from_slice` (SIMD);
//! - `sonic_rs/get_lazy`: `sonic_rs::get_many` of the three paths a client reads
//!   (`choices[0].delta`, `choices[0].finish_reason`, `id`), sonic's lazy "skip what you
//!   don't ask for" mode.
//!
//! Instruction counts: `ENVELOPE_IR=<id> valgrind --tool=callgrind target/release/deps/envelope-*`
//! runs one id over the stream `ENVELOPE_IR_RUNS` times (default 100) and exits; divide the
//! difference of two run counts by the events.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../benches/support/workloads.rs"]
mod workloads;

use std::borrow::Cow;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use serde::Deserialize;
use toolstream::{Event, EventRef, EventSink, Format, Parser};
use workloads::{Shape, generator};

/// A sink that counts borrowed events (no allocation per event).
struct Count(usize);

impl EventSink for Count {
    fn event(&mut self, e: EventRef<'_>) {
        black_box(e);
        self.0 += 1;
    }
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Chunk<'a> {
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    choices: Vec<Choice<'a>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct Choice<'a> {
    #[serde(borrow)]
    delta: Delta<'a>,
    #[serde(borrow)]
    finish_reason: Option<Cow<'a, str>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct Delta<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<ToolCall<'a>>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct ToolCall<'a> {
    index: u32,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function: Option<Function<'a>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct Function<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
}

/// The ids of the runs, in the order they are benched.
const IDS: [&str; 5] = [
    "toolstream/feed_into",
    "toolstream/feed",
    "serde_json/borrowed",
    "sonic_rs/borrowed",
    "sonic_rs/get_lazy",
];

/// One pass of `id` over the stream: SSE events for toolstream, payloads for the others.
/// Returns something derived from what was read, so nothing is optimised away.
fn run(id: &str, events: &[Vec<u8>], payloads: &[Vec<u8>]) -> usize {
    match id {
        "toolstream/feed_into" => {
            let mut p = Parser::new(Format::OpenAiChat);
            let mut sink = Count(0);
            for e in events {
                p.feed_into(black_box(e), &mut sink).unwrap();
            }
            p.finish_into(&mut sink).unwrap();
            sink.0
        }
        "toolstream/feed" => {
            let mut p = Parser::new(Format::OpenAiChat);
            let mut out: Vec<Event> = Vec::with_capacity(8);
            let mut n = 0;
            for e in events {
                p.feed(black_box(e), &mut out).unwrap();
                n += out.len();
                out.clear();
            }
            p.finish(&mut out).unwrap();
            n + out.len()
        }
        "serde_json/borrowed" => payloads
            .iter()
            .map(|p| {
                let c: Chunk<'_> = serde_json::from_slice(black_box(p)).unwrap();
                c.choices.len()
            })
            .sum(),
        "sonic_rs/borrowed" => payloads
            .iter()
            .map(|p| {
                let c: Chunk<'_> = sonic_rs::from_slice(black_box(p)).unwrap();
                c.choices.len()
            })
            .sum(),
        "sonic_rs/get_lazy" => {
            let mut tree = sonic_rs::PointerTree::new();
            tree.add_path(&sonic_rs::pointer!["id"]);
            tree.add_path(&sonic_rs::pointer!["choices", 0, "delta"]);
            tree.add_path(&sonic_rs::pointer!["choices", 0, "finish_reason"]);
            payloads
                .iter()
                .map(|p| {
                    let got = sonic_rs::get_many(black_box(p.as_slice()), &tree).unwrap();
                    got.iter()
                        .map(|v| v.as_ref().map_or(0, |v| v.as_raw_str().len()))
                        .sum::<usize>()
                })
                .sum()
        }
        other => panic!("unknown id {other}; one of {IDS:?}"),
    }
}

fn main() {
    let w = generator(Format::OpenAiChat).expect("openai-chat workload")(Shape::STREAM);
    let n = w.events.len();
    let bytes: usize = w.events.iter().map(Vec::len).sum();
    assert!(run("toolstream/feed_into", &w.events, &w.payloads) > 100);
    assert_eq!(
        run("serde_json/borrowed", &w.events, &w.payloads),
        run("sonic_rs/borrowed", &w.events, &w.payloads)
    );

    if let Ok(id) = std::env::var("ENVELOPE_IR") {
        let runs: usize = std::env::var("ENVELOPE_IR_RUNS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(100);
        let mut total = 0;
        for _ in 0..runs {
            total += run(&id, &w.events, &w.payloads);
        }
        println!("{id}: {runs} runs over {n} events ({bytes} bytes): {total}");
        return;
    }

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let mut g = c.benchmark_group("openai_chat_envelope");
    g.throughput(Throughput::Elements(n as u64));
    for id in IDS {
        g.bench_function(id, |b| b.iter(|| run(id, &w.events, &w.payloads)));
    }
    g.finish();
    c.final_summary();
    println!(
        "openai-chat stream: {n} events, {bytes} bytes ({} bytes per event)",
        bytes / n
    );
}
