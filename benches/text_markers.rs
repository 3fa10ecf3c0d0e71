//! Throughput of the marker-based text scanners (`hermes`, `qwen-xml`, `mistral`,
//! `deepseek`, `harmony`), per syntax:
//!
//! - `64k_arg/4B`: one call whose arguments hold a 64 KB string, fed 4 bytes at a time
//!   (token-sized pieces; goal ≤ 10 ns/byte);
//! - `prose/4B`: 64 KB of prose with `<`, `[` and non-ASCII but no call, 4 bytes at a
//!   time (goal ≤ 5 ns/byte);
//! - `64k_arg/whole`: the call input in one piece (goal ≥ 1 GB/s).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use toolstream::{Event, Format, Parser};

const FORMATS: [Format; 5] = [
    Format::Hermes,
    Format::QwenXml,
    Format::Mistral,
    Format::DeepSeek,
    Format::Harmony,
];

/// About 64 KB of argument text (JSON-safe, some escapes and non-ASCII).
fn big_string() -> String {
    let unit = "The quick brown fox \\\"jumps\\\" over the lazy dog; déjà vu 😀 <b>[x]</b>\\n";
    unit.repeat(65_536 / unit.len() + 1)
}

/// One call with a 64 KB string argument, in the syntax of `format`.
fn call_input(format: Format) -> String {
    let s = big_string();
    let json = format!("{{\"path\": \"notes.txt\", \"content\": \"{s}\"}}");
    match format {
        Format::Hermes => format!(
            "Writing it.\n<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {json}}}\n</tool_call>"
        ),
        Format::QwenXml => {
            // XML values are raw text: unescape the JSON-ish escapes.
            let raw = s.replace("\\\"", "\"").replace("\\n", "\n");
            format!(
                "Writing it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.txt\n</parameter>\n<parameter=content>\n{raw}\n</parameter>\n</function>\n</tool_call>"
            )
        }
        Format::Mistral => format!("Writing it.[TOOL_CALLS]write_file[ARGS]{json}"),
        Format::DeepSeek => format!(
            "Writing it.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>{json}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        Format::Harmony => format!(
            "<|channel|>analysis<|message|>Write it.<|end|><|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{json}<|call|>"
        ),
        _ => String::new(),
    }
}

/// About 64 KB of prose without a call, with the characters markers start with.
fn prose() -> String {
    let unit = "Streaming parsers hold back only what could still be a marker: a < b, x[0] = 1, déjà vu 😀.\n";
    unit.repeat(65_536 / unit.len() + 1)
}

/// Feeds `input` in `chunk`-byte pieces, handling (counting) the events of each feed
/// before the next, as a consumer does.
fn run(format: Format, input: &[u8], chunk: usize, out: &mut Vec<Event>) -> usize {
    let mut p = Parser::new(format);
    let mut n = 0;
    for c in input.chunks(chunk) {
        out.clear();
        p.feed(c, out).ok();
        n += black_box(out.len());
    }
    out.clear();
    p.finish(out).ok();
    n + out.len()
}

fn bench(c: &mut Criterion) {
    for format in FORMATS {
        let call = call_input(format);
        let text = prose();
        let mut all = Vec::new();
        let mut p = Parser::new(format);
        for c in call.as_bytes().chunks(4) {
            p.feed(c, &mut all).ok();
        }
        p.finish(&mut all).ok();
        let out = &all;
        let ok = out.iter().any(|e| matches!(e, Event::ToolCallEnd { .. }))
            && !out.iter().any(|e| matches!(e, Event::Error { .. }));
        if !ok {
            eprintln!(
                "{}: the benchmark input did not decode to one call: {:?}",
                format.name(),
                out.last()
            );
        }
        let mut out = Vec::with_capacity(64);
        let mut g = c.benchmark_group(format!("text_{}", format.name()));
        g.throughput(Throughput::Bytes(call.len() as u64));
        g.bench_function("64k_arg/4B", |b| {
            b.iter(|| run(format, black_box(call.as_bytes()), 4, &mut out))
        });
        g.bench_function("64k_arg/whole", |b| {
            b.iter(|| run(format, black_box(call.as_bytes()), call.len(), &mut out))
        });
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function("prose/4B", |b| {
            b.iter(|| run(format, black_box(text.as_bytes()), 4, &mut out))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
