//! Throughput of the Llama text scanners through `Parser`: one call with a 64 KB string
//! argument in 4-byte chunks and whole, and 64 KB of prose (full of `[`, `{`, `<`,
//! quotes) with no call in 4-byte chunks and whole.

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

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use support::workloads::run_chunks;
use toolstream::{Event, Format, Parser};

/// About 64 KiB of prose: words, brackets and braces that are not calls, quotes,
/// non-ASCII.
fn prose() -> String {
    let words = [
        "the",
        "quick",
        "brown",
        "fox",
        "[1, 2]",
        "[link](url)",
        "{\"a\": 1}",
        "(y)",
        "'q'",
        "\"q\"",
        "a,b",
        "[see",
        "{x}",
        "<b>",
        "東京",
        "é",
        "tool_call",
        "stream",
        "[ x ]",
        "{}",
    ];
    let mut body = String::new();
    let mut i = 0usize;
    while body.len() < 64 * 1024 {
        body.push_str(words[i % words.len()]);
        body.push(if i % 13 == 12 { '\n' } else { ' ' });
        i += 1;
    }
    body
}

/// About 64 KiB of string content with an escape every ~60 bytes (`quote` escaped).
fn long_string(quote: char) -> String {
    let words = [
        "the", "quick", "brown", "fox", "[x]", "(y)", "a,b", "東京", "stream",
    ];
    let escapes = ["\\n", "\\\\", "\\t"];
    let mut body = String::new();
    let mut i = 0usize;
    while body.len() < 64 * 1024 {
        body.push_str(words[i % words.len()]);
        body.push(' ');
        if i % 10 == 9 {
            body.push_str(escapes[(i / 10) % escapes.len()]);
        }
        if i % 37 == 36 {
            body.push('\\');
            body.push(quote);
        }
        i += 1;
    }
    body
}

fn bench(c: &mut Criterion) {
    let pythonic_call = format!(
        "Let me write it. [write_file(path='a.txt', content='{}')]",
        long_string('\'')
    );
    let json_call = format!(
        "Let me write it. {{\"name\": \"write_file\", \"parameters\": {{\"path\": \"a.txt\", \"content\": \"{}\"}}}}",
        long_string('"')
    );
    let prose = prose();
    let mut out = Vec::with_capacity(64);

    // Sanity: the calls are found, the prose is text.
    for (f, input) in [
        (Format::LlamaPythonic, &pythonic_call),
        (Format::LlamaJson, &json_call),
    ] {
        let mut p = Parser::new(f);
        let mut ev = Vec::new();
        p.feed(input.as_bytes(), &mut ev).unwrap();
        p.finish(&mut ev).unwrap();
        assert!(
            ev.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })),
            "{f}"
        );
        let mut p = Parser::new(f);
        let mut ev = Vec::new();
        p.feed(prose.as_bytes(), &mut ev).unwrap();
        p.finish(&mut ev).unwrap();
        assert!(ev.iter().all(|e| matches!(e, Event::Text { .. })), "{f}");
    }

    for (label, format, call) in [
        ("llama_pythonic", Format::LlamaPythonic, &pythonic_call),
        ("llama_json", Format::LlamaJson, &json_call),
        ("auto_pythonic", Format::Auto, &pythonic_call),
    ] {
        let mut group = c.benchmark_group(label);
        group.throughput(Throughput::Bytes(call.len() as u64));
        group.bench_function("call_64k_chunks_4", |b| {
            b.iter(|| run_chunks(format, black_box(call.as_bytes()), 4, &mut out))
        });
        group.bench_function("call_64k_whole", |b| {
            b.iter(|| run_chunks(format, black_box(call.as_bytes()), usize::MAX, &mut out))
        });
        group.throughput(Throughput::Bytes(prose.len() as u64));
        group.bench_function("prose_64k_chunks_4", |b| {
            b.iter(|| run_chunks(format, black_box(prose.as_bytes()), 4, &mut out))
        });
        group.bench_function("prose_64k_whole", |b| {
            b.iter(|| run_chunks(format, black_box(prose.as_bytes()), usize::MAX, &mut out))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
