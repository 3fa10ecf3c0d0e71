//! Throughput of `PyArgs` on one call with a 64 KB string argument.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use toolstream::scan::pythonic::{PyArgs, PyStatus};

/// `content='...')` with a 64 KiB body: prose with an escape (`\n`, `\'`,
/// `\\`, `\t`) roughly every 60 bytes, some `"` and brackets.
fn input() -> Vec<u8> {
    let words = [
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "lazy",
        "dog",
        "[x]",
        "(y)",
        "\"q\"",
        "a,b",
        "tool_call",
        "stream",
    ];
    let escapes = ["\\n", "\\'", "\\\\", "\\t"];
    let mut body = String::new();
    let mut i = 0usize;
    while body.len() < 64 * 1024 {
        body.push_str(words[i % words.len()]);
        body.push(' ');
        if i % 10 == 9 {
            body.push_str(escapes[(i / 10) % escapes.len()]);
        }
        i += 1;
    }
    format!("content='{body}')").into_bytes()
}

fn bench(c: &mut Criterion) {
    let input = input();
    let mut group = c.benchmark_group("pythonic_64k_string");
    group.throughput(Throughput::Bytes(input.len() as u64));
    let mut out = String::with_capacity(input.len() * 2);
    let mut args = PyArgs::new();

    group.bench_function("whole", |b| {
        b.iter(|| {
            args.reset();
            out.clear();
            let st = args.feed(black_box(&input), &mut out);
            assert!(matches!(st, PyStatus::Done { .. }));
            black_box(out.len())
        })
    });
    group.bench_function("chunks_4", |b| {
        b.iter(|| {
            args.reset();
            out.clear();
            let mut st = PyStatus::NeedMore;
            for chunk in black_box(&input).chunks(4) {
                st = args.feed(chunk, &mut out);
            }
            assert!(matches!(st, PyStatus::Done { .. }));
            black_box(out.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
