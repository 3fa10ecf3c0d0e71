//! The NDJSON framer: split invariance, bounded buffer, the too-long contract, and (with
//! the default limit) equality with a naive whole-input split.
//!
//! Header: one byte for the line limit (255: the default), then a chunking pattern.
#![no_main]

use toolstream::framing::ndjson::{NdjsonFramer, NdjsonItem};
use toolstream_fuzz::{chunks, take_pattern};

#[derive(Debug, PartialEq, Eq)]
enum Item {
    Line(Vec<u8>),
    TooLong(Vec<u8>, usize),
}

fn own(item: NdjsonItem<'_>, max: usize) -> Item {
    match item {
        NdjsonItem::Line(l) => {
            assert!(l.len() <= max);
            Item::Line(l.to_vec())
        }
        NdjsonItem::LineTooLong { prefix, len } => {
            assert_eq!(prefix.len(), max, "prefix must be exactly max bytes");
            assert!(len > max);
            Item::TooLong(prefix.to_vec(), len)
        }
    }
}

fn run(parts: &[&[u8]], max: Option<usize>) -> Vec<Item> {
    let mut f = max.map_or_else(NdjsonFramer::new, NdjsonFramer::with_max_line);
    let m = max.unwrap_or(toolstream::framing::sse::DEFAULT_MAX_LINE);
    let mut out = Vec::new();
    for p in parts {
        let mut rest = *p;
        while let Some(item) = f.feed(&mut rest) {
            out.push(own(item, m));
        }
        assert!(rest.is_empty());
        assert!(f.buffered() <= m + 3, "buffered {} > {m} + 3", f.buffered());
    }
    while let Some(item) = f.finish() {
        out.push(own(item, m));
    }
    assert_eq!(f.buffered(), 0);
    out
}

fn reference(mut body: &[u8]) -> Vec<Item> {
    if let Some(rest) = body.strip_prefix(b"\xEF\xBB\xBF") {
        body = rest;
    }
    body.split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| {
            !l.iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\x0C' | b'\r'))
        })
        .map(|l| Item::Line(l.to_vec()))
        .collect()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&m, rest)) = data.split_first() else {
        return;
    };
    let max = (m != 255).then_some(usize::from(m));
    let (pattern, body) = take_pattern(rest);
    let whole = run(&[body], max);
    let cut = chunks(pattern, body);
    assert_eq!(run(&cut, max), whole, "chunked {pattern:?} differs");
    if max.is_none() {
        assert_eq!(whole, reference(body), "differs from the naive split");
    }
});
