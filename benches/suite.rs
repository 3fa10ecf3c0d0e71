//! The performance suite: every format × chunking, beside baselines, with a summary
//! table at the end (`target/criterion/suite-summary.md`). See PERFORMANCE.md.
//!
//! Groups (all `Throughput::Bytes` of the input fed, unless said otherwise):
//!
//! - `stream_<format>`: a realistic turn (~120 text deltas, then a ~1.2 KB call in 6-byte
//!   argument deltas) fed `whole`, in `16B`, `4B` and `1B` chunks, and (envelopes) one
//!   provider event per feed (`event`); `serde_value` is the envelope floor every client
//!   pays: `serde_json::from_slice::<Value>` of every payload.
//! - `long_arg_<format>`: one call whose arguments hold a 64 KB string, in 4-byte
//!   argument deltas, one provider event each (envelopes; Ollama sends whole calls and
//!   Gemini streams only via Vertex `partialArgs`), or as raw text (text formats); same
//!   chunkings and `serde_value`.
//! - `args_baselines`: the same 64 KB arguments (69 KB of JSON text) parsed by serde_json
//!   in one shot (`serde_oneshot`, Throughput = argument bytes), and what peers do on
//!   every delta: append the 4-byte delta and re-parse the accumulated text with
//!   serde_json (`naive_serde_reparse_16k`) or jiter in partial mode
//!   (`jiter_partial_reparse_16k`). The re-parse baselines are quadratic, so they are
//!   CAPPED at the first 16 KB of the arguments (4096 deltas); at 64 KB they take 16×
//!   as long (e.g. ~1–2 s per run).
//! - `prose_<format>` (text formats): 64 KB of prose with `<`, `[` and non-ASCII but no
//!   call, `whole` and in `4B` chunks.
//! - `scaling_<format>`: the long-argument workload at 1 KB and 1 MB of arguments, fed
//!   one provider event per feed (envelopes) or in 4-byte chunks (text); Throughput =
//!   argument bytes, to compare per-byte cost across sizes.
//! - `framing_sse`: our SSE framer against `eventsource-stream` on the openai-chat
//!   stream body, whole and in 16-byte chunks (ns per event = time / events).
//!
//! Defaults keep the run to a few minutes: 0.3 s warm-up, 1 s measurement, 10 samples.
//! `cargo bench --bench suite -- <filter>` runs a subset; criterion flags
//! (`--warm-up-time`, `--measurement-time`, `--sample-size`) override the defaults.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support {
    pub mod workloads;
}

use std::convert::Infallible;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use criterion::{Criterion, Throughput};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use jiter::{JsonValue, PartialMode};
use serde_json::Value;
use support::workloads::{self, Shape, Workload, generator, is_text, run_chunks};
use toolstream::framing::sse::{SseFramer, SseItem};
use toolstream::{Event, Format, Parser};

const CHUNKINGS: [(&str, usize); 4] = [("whole", 0), ("16B", 16), ("4B", 4), ("1B", 1)];
const LONG_ARG: usize = 65_536;
const REPARSE_CAP: usize = 16_384;

/// One provider event per feed.
fn run_events(format: Format, events: &[Vec<u8>], out: &mut Vec<Event>) -> usize {
    let mut p = Parser::new(format);
    let mut n = 0;
    for e in events {
        p.feed(e, out).unwrap();
        n += out.len();
        out.clear();
    }
    p.finish(out).unwrap();
    n += out.len();
    out.clear();
    n
}

fn serde_values(payloads: &[Vec<u8>]) -> usize {
    payloads
        .iter()
        .map(|p| usize::from(serde_json::from_slice::<Value>(p).is_ok()))
        .sum()
}

/// Sizes recorded for the summary.
#[derive(Default)]
struct Sizes {
    rows: Vec<(String, u64, u64, usize)>, // (group, input bytes, argument bytes, provider events)
}

fn bench_format(c: &mut Criterion, format: Format, sizes: &mut Sizes) {
    let make = generator(format).expect("a workload generator (benches/support/workloads.rs)");
    let mut out = Vec::with_capacity(256);
    for (kind, shape) in [
        ("stream", Shape::STREAM),
        ("long_arg", Shape::long_arg(LONG_ARG)),
    ] {
        let w: Workload = make(shape);
        let body = w.body();
        let group = format!("{kind}_{}", format.name());
        sizes.rows.push((
            group.clone(),
            body.len() as u64,
            w.arg_bytes as u64,
            w.events.len(),
        ));
        assert!(run_chunks(format, &body, 0, &mut out) > 0);
        let mut g = c.benchmark_group(&group);
        g.throughput(Throughput::Bytes(body.len() as u64));
        for (name, chunk) in CHUNKINGS {
            g.bench_function(name, |b| {
                b.iter(|| run_chunks(format, black_box(&body), chunk, &mut out))
            });
        }
        if !is_text(format) {
            g.bench_function("event", |b| {
                b.iter(|| run_events(format, black_box(&w.events), &mut out))
            });
            g.bench_function("serde_value", |b| {
                b.iter(|| serde_values(black_box(&w.payloads)))
            });
        }
        g.finish();
    }

    if is_text(format) {
        // Prose without a call: the text path alone.
        let prose = workloads::prose_text(LONG_ARG);
        let group = format!("prose_{}", format.name());
        sizes.rows.push((group.clone(), prose.len() as u64, 0, 0));
        let mut g = c.benchmark_group(&group);
        g.throughput(Throughput::Bytes(prose.len() as u64));
        for (name, chunk) in [("whole", 0), ("4B", 4)] {
            g.bench_function(name, |b| {
                b.iter(|| run_chunks(format, black_box(prose.as_bytes()), chunk, &mut out))
            });
        }
        g.finish();
    }

    let mut g = c.benchmark_group(format!("scaling_{}", format.name()));
    for (name, len) in [("1KB", 1024usize), ("1MB", 1 << 20)] {
        let w = make(Shape::long_arg(len));
        let body = w.body();
        g.throughput(Throughput::Bytes(w.arg_bytes as u64));
        sizes.rows.push((
            format!("scaling_{}/{name}", format.name()),
            body.len() as u64,
            w.arg_bytes as u64,
            w.events.len(),
        ));
        if is_text(format) {
            g.bench_function(name, |b| {
                b.iter(|| run_chunks(format, black_box(&body), 4, &mut out))
            });
        } else {
            g.bench_function(name, |b| {
                b.iter(|| run_events(format, black_box(&w.events), &mut out))
            });
        }
    }
    g.finish();
}

fn bench_baselines(c: &mut Criterion, sizes: &mut Sizes) {
    let args = workloads::shape_args(Shape::long_arg(LONG_ARG));
    let mut cut = REPARSE_CAP;
    while !args.is_char_boundary(cut) {
        cut -= 1;
    }
    let capped = &args[..cut];
    let deltas = workloads::pieces(capped, 4);
    sizes.rows.push((
        "args_baselines".into(),
        args.len() as u64,
        args.len() as u64,
        0,
    ));
    let mut g = c.benchmark_group("args_baselines");
    g.throughput(Throughput::Bytes(args.len() as u64));
    g.bench_function("serde_oneshot", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&args)).unwrap())
    });
    g.bench_function("jiter_oneshot", |b| {
        b.iter(|| JsonValue::parse(black_box(args.as_bytes()), false).unwrap())
    });
    g.throughput(Throughput::Bytes(capped.len() as u64));
    g.bench_function("naive_serde_reparse_16k", |b| {
        b.iter(|| {
            let mut acc = String::new();
            let mut ok = 0;
            for d in &deltas {
                acc.push_str(d);
                ok += usize::from(serde_json::from_str::<Value>(black_box(&acc)).is_ok());
            }
            ok
        })
    });
    g.bench_function("jiter_partial_reparse_16k", |b| {
        b.iter(|| {
            let mut acc = String::new();
            for d in &deltas {
                acc.push_str(d);
                let v = JsonValue::parse_with_config(
                    black_box(acc.as_bytes()),
                    false,
                    PartialMode::TrailingStrings,
                );
                black_box(v.is_ok());
            }
        })
    });
    g.finish();
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

fn bench_framing(c: &mut Criterion, sizes: &mut Sizes) {
    let w = generator(Format::OpenAiChat).expect("openai-chat workload")(Shape::STREAM);
    let body = w.body();
    sizes
        .rows
        .push(("framing_sse".into(), body.len() as u64, 0, w.events.len()));
    let whole: Vec<&[u8]> = vec![&body];
    let small: Vec<&[u8]> = body.chunks(16).collect();
    let mut g = c.benchmark_group("framing_sse");
    g.throughput(Throughput::Bytes(body.len() as u64));
    for (name, chunks) in [("whole", &whole), ("16B", &small)] {
        assert_eq!(run_framer(chunks), w.events.len());
        g.bench_function(format!("toolstream_{name}"), |b| {
            b.iter(|| run_framer(black_box(chunks)))
        });
        let bytes: Vec<Bytes> = chunks.iter().map(|c| Bytes::copy_from_slice(c)).collect();
        g.bench_function(format!("eventsource-stream_{name}"), |b| {
            b.iter(|| run_eventsource(black_box(&bytes)))
        });
    }
    g.finish();
}

// ---------------------------------------------------------------------------------------
// Summary: medians from criterion's output, as a markdown table.

fn criterion_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("criterion")
}

/// Median time in ns of `group/id`, if it ran.
fn median(group: &str, id: &str) -> Option<f64> {
    let path = criterion_dir()
        .join(group)
        .join(id)
        .join("new/estimates.json");
    let v: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn summary(sizes: &Sizes) -> String {
    let size = |g: &str| sizes.rows.iter().find(|r| r.0 == g);
    let mut s = String::new();
    let fmt_row = |s: &mut String, g: &str, id: &str, input: u64, args: u64, events: usize| {
        let Some(ns) = median(g, id) else { return };
        let per_in = ns / input as f64;
        let per_arg = if args > 0 {
            format!("{:.2}", ns / args as f64)
        } else {
            "–".into()
        };
        let per_ev = if events > 0 {
            format!("{:.0}", ns / events as f64)
        } else {
            "–".into()
        };
        let _ = writeln!(
            s,
            "| {g} | {id} | {:.1} µs | {per_in:.2} | {:.2} | {per_arg} | {per_ev} |",
            ns / 1000.0,
            input as f64 / ns,
        );
    };
    let _ = writeln!(
        s,
        "| group | run | median | ns/input B | GB/s | ns/arg B | ns/provider event |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for f in Format::all() {
        for kind in ["stream", "long_arg"] {
            let g = format!("{kind}_{}", f.name());
            let Some(&(_, input, args, events)) = size(&g) else {
                continue;
            };
            for id in ["whole", "16B", "4B", "1B", "event", "serde_value"] {
                fmt_row(&mut s, &g, id, input, args, events);
            }
        }
    }
    for f in Format::all() {
        let g = format!("prose_{}", f.name());
        if let Some(&(_, input, _, _)) = size(&g) {
            for id in ["whole", "4B"] {
                fmt_row(&mut s, &g, id, input, 0, 0);
            }
        }
    }
    for f in Format::all() {
        for id in ["1KB", "1MB"] {
            let g = format!("scaling_{}", f.name());
            let Some(&(_, input, args, events)) = size(&format!("{g}/{id}")) else {
                continue;
            };
            fmt_row(&mut s, &g, id, input, args, events);
        }
    }
    if let Some(&(_, input, _, events)) = size("framing_sse") {
        for id in [
            "toolstream_whole",
            "eventsource-stream_whole",
            "toolstream_16B",
            "eventsource-stream_16B",
        ] {
            fmt_row(&mut s, "framing_sse", id, input, 0, events);
        }
    }
    if let Some(&(_, input, _, _)) = size("args_baselines") {
        for id in ["serde_oneshot", "jiter_oneshot"] {
            fmt_row(&mut s, "args_baselines", id, input, input, 0);
        }
        let capped = REPARSE_CAP as u64;
        for id in ["naive_serde_reparse_16k", "jiter_partial_reparse_16k"] {
            fmt_row(&mut s, "args_baselines", id, capped, capped, 0);
        }
    }
    s
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
        .configure_from_args();
    let mut sizes = Sizes::default();
    for f in Format::all() {
        if generator(f).is_none() {
            eprintln!("suite: no workload generator for {f}; skipped (tests/alloc.rs fails on it)");
            continue;
        }
        bench_format(&mut c, f, &mut sizes);
    }
    bench_baselines(&mut c, &mut sizes);
    bench_framing(&mut c, &mut sizes);
    c.final_summary();
    let table = summary(&sizes);
    let path = criterion_dir().join("suite-summary.md");
    if std::fs::write(&path, &table).is_ok() {
        eprintln!("summary written to {}", path.display());
    }
    println!("{table}");
}
