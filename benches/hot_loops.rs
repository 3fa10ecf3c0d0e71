//! The text scanners' hot loops, per syntax, through both event paths side by side
//! (issue 16's goals; PERFORMANCE.md "Borrowed sink and hot loops"):
//!
//! - `hot_<format>/prose_4B_ref` and `prose_4B_vec`: 64 KB of prose with `<`, `[` and
//!   non-ASCII but no call, fed 4 bytes at a time (goal ≤ 5 ns/B);
//! - `args_4B_ref` / `args_4B_vec`: one call whose arguments hold a 64 KB string
//!   (`benches/support/workloads.rs`' `long_arg`), 4 bytes at a time (goal ≤ 8 ns/B);
//! - `args_whole_ref` / `args_whole_vec`: the same input in one feed (goal ≥ 1.5 GB/s,
//!   llama-pythonic ≥ 1 GB/s).
//!
//! `_ref` drives [`Parser::feed_into`] with a sink that only counts events and their
//! bytes (no allocation per event); `_vec` drives [`Parser::feed`] into a `Vec<Event>`
//! cleared after every feed, as a consumer does. `Throughput::Bytes` of the input.
//!
//! `cargo bench --bench hot_loops -- hot_hermes/` runs one syntax (each group takes
//! about 10 s with the defaults below).
//!
//! Instruction counts: with `HOT_LOOPS_PROFILE="<format> <prose|args|plain|stream> <chunk|event>
//! <ref|vec|spec> <runs>"` set (`spec`: the format's syntax written as a spec and read back), the binary runs that workload `runs` times and exits, for callgrind
//! (the figures in PERFORMANCE.md are the total at runs = 2 minus runs = 1, so making
//! the workload is not counted):
//!
//! ```sh
//! cargo bench --bench hot_loops --no-run
//! HOT_LOOPS_PROFILE="hermes args 4 ref 2" valgrind --tool=callgrind target/release/deps/hot_loops-*
//! ```

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support {
    pub mod workloads;
}

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use support::workloads::{self, Shape, generator, is_text, run_chunks};
use toolstream::{EventRef, EventSink, Format, Parser, ParserConfig, Syntax};

const LEN: usize = 65_536;

/// A sink that only looks at the events: counts them and their text bytes.
#[derive(Default)]
struct Count {
    events: usize,
    bytes: usize,
}

impl EventSink for Count {
    fn event(&mut self, e: EventRef<'_>) {
        self.events += 1;
        if let EventRef::Text { delta }
        | EventRef::Reasoning { delta }
        | EventRef::ToolCallArgs { delta, .. } = e
        {
            self.bytes += delta.len();
        }
    }
}

/// Feeds `body` in `chunk`-byte pieces (0: whole) through `feed_into`.
fn run_ref(format: Format, body: &[u8], chunk: usize) -> usize {
    run_parser(Parser::new(format), body, chunk)
}

/// [`run_ref`] with a parser already made (one built from a syntax spec).
fn run_parser(mut p: Parser, body: &[u8], chunk: usize) -> usize {
    let mut sink = Count::default();
    for c in body.chunks(if chunk == 0 { body.len().max(1) } else { chunk }) {
        p.feed_into(c, &mut sink).unwrap();
    }
    p.finish_into(&mut sink).unwrap();
    sink.events + sink.bytes
}

/// The prose and the long-argument input of `format`.
fn inputs(format: Format) -> (Vec<u8>, Vec<u8>) {
    let make = generator(format).expect("a workload generator");
    (
        workloads::prose_text(LEN).into_bytes(),
        make(Shape::long_arg(LEN)).body(),
    )
}

/// One call whose arguments hold a 64 KB string of plain text (letters, spaces and
/// punctuation: nothing to escape, no byte a marker begins with), for the syntaxes whose
/// whole-input figures PERFORMANCE.md follows (hermes, llama-pythonic, gemma4; other
/// formats get hermes' call).
fn plain_call(format: Format) -> Vec<u8> {
    let unit = "Plain text of a file the model writes, with nothing to escape at all. ";
    let text = unit.repeat(LEN / unit.len() + 1);
    let text = text.get(..LEN).unwrap_or(&text);
    match format {
        Format::LlamaPythonic => {
            format!("[write_file(path='notes.txt', content='{text}')]")
        }
        Format::Gemma4 => {
            let q = "<|\"|>";
            format!("<|tool_call>call:write_file{{path:{q}notes.txt{q},content:{q}{text}{q}}}<tool_call|>")
        }
        _ => format!(
            "<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"notes.txt\", \"content\": \"{text}\"}}}}\n</tool_call>"
        ),
    }
    .into_bytes()
}

/// `HOT_LOOPS_PROFILE="<format> <prose|args|plain|stream> <chunk> <ref|vec|spec> <runs>"`;
/// `spec`: `ref` through a parser built from the format's spec (`Syntax::builtin(format)`
/// written out and read back), which must cost what the built-in costs. `stream`: the
/// format's chat turn (`Shape::STREAM`: ~120 text deltas, a ~1.2 KB call in 6-byte deltas);
/// chunk `event`: one feed per provider event (envelopes) or token piece (text).
fn profile(spec: &str) {
    let parts: Vec<&str> = spec.split_whitespace().collect();
    let [format, kind, chunk, api, runs] = parts[..] else {
        panic!(
            "HOT_LOOPS_PROFILE: <format> <prose|args|plain|stream> <chunk> <ref|vec|spec> <runs>"
        );
    };
    let format: Format = format.parse().unwrap();
    let make = generator(format).expect("a workload generator");
    let work = match kind {
        "stream" => make(Shape::STREAM),
        _ => make(Shape::long_arg(LEN)),
    };
    let body = match kind {
        "prose" => workloads::prose_text(LEN).into_bytes(),
        "plain" => plain_call(format),
        _ => work.body(),
    };
    if chunk == "event" {
        let events = &work.events;
        let mut n = 0;
        for _ in 0..runs.parse::<usize>().unwrap() {
            let mut p = Parser::new(format);
            let mut sink = Count::default();
            for e in black_box(events) {
                p.feed_into(e, &mut sink).unwrap();
            }
            p.finish_into(&mut sink).unwrap();
            n += sink.events + sink.bytes;
        }
        println!("{n} events+bytes, {} input bytes", body.len());
        return;
    }
    let chunk: usize = chunk.parse().unwrap();
    let mut out = Vec::with_capacity(256);
    let mut n = 0;
    // Read once, as a program does (not counted per run).
    let syntax = (api == "spec").then(|| {
        let written = Syntax::builtin(format)
            .expect("a spec-able format")
            .to_json();
        Syntax::from_value(&written).unwrap()
    });
    for _ in 0..runs.parse::<usize>().unwrap() {
        n += match (api, &syntax) {
            ("vec", _) => run_chunks(format, black_box(&body), chunk, &mut out),
            (_, Some(syntax)) => run_parser(
                Parser::with_syntax(syntax.clone(), ParserConfig::new()),
                black_box(&body),
                chunk,
            ),
            _ => run_ref(format, black_box(&body), chunk),
        };
    }
    println!("{n} events+bytes, {} input bytes", body.len());
}

fn main() {
    if let Ok(spec) = std::env::var("HOT_LOOPS_PROFILE") {
        return profile(&spec);
    }
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
        .configure_from_args();
    let mut out = Vec::with_capacity(256);
    for format in Format::all().filter(|&f| is_text(f) && generator(f).is_some()) {
        let (prose, args) = inputs(format);
        // Both paths see the same events.
        assert_eq!(
            run_ref(format, &args, 4) > 0,
            run_chunks(format, &args, 4, &mut out) > 0
        );
        let mut g = c.benchmark_group(format!("hot_{}", format.name()));
        for (name, body, chunk) in [
            ("prose_4B", &prose, 4),
            ("args_4B", &args, 4),
            ("args_whole", &args, 0),
        ] {
            g.throughput(Throughput::Bytes(body.len() as u64));
            g.bench_function(format!("{name}_ref"), |b| {
                b.iter(|| run_ref(format, black_box(body), chunk))
            });
            g.bench_function(format!("{name}_vec"), |b| {
                b.iter(|| run_chunks(format, black_box(body), chunk, &mut out))
            });
        }
        g.finish();
    }
    c.final_summary();
}
