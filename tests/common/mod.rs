//! Shared test harness: drive a parser at every chunking, check the event contract,
//! find the recorded captures.
#![allow(dead_code, unreachable_pub)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use toolstream::{Event, Format, Framing, Parser, merge_deltas};

/// Feeds `chunks` and finishes; returns the merged events.
pub fn run_chunks(make: &dyn Fn() -> Parser, chunks: &[&[u8]]) -> Vec<Event> {
    let mut p = make();
    let mut out = Vec::new();
    for c in chunks {
        p.feed(c, &mut out).expect("feed");
    }
    p.finish(&mut out).expect("finish");
    merge_deltas(&mut out);
    out
}

/// Feeds `input` whole.
pub fn run_whole(make: &dyn Fn() -> Parser, input: &[u8]) -> Vec<Event> {
    run_chunks(make, &[input])
}

/// Feeds `input` in pieces of `n` bytes.
pub fn run_sized(make: &dyn Fn() -> Parser, input: &[u8], n: usize) -> Vec<Event> {
    let chunks: Vec<&[u8]> = input.chunks(n.max(1)).collect();
    run_chunks(make, &chunks)
}

/// Cuts `input` at the given (sorted, clamped) points.
pub fn cut_at<'a>(input: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| (*c).min(input.len())).collect();
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut prev = 0;
    for c in cuts {
        out.push(&input[prev..c]);
        prev = c;
    }
    out.push(&input[prev..]);
    out
}

/// A tiny deterministic PRNG (xorshift) so random splits are reproducible.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Asserts that whole, 1-byte, every two-piece split (inputs up to `every_split_max`
/// bytes), and `random` random chunkings all give the same merged events, and that
/// those events keep the contract. Returns the events.
pub fn assert_split_invariant(
    make: &dyn Fn() -> Parser,
    input: &[u8],
    random: usize,
) -> Vec<Event> {
    let whole = run_whole(make, input);
    check_contract(&whole);
    let bytes = run_sized(make, input, 1);
    assert_eq!(bytes, whole, "byte-by-byte differs from whole");
    if input.len() <= 3000 {
        for cut in 0..=input.len() {
            let got = run_chunks(make, &[&input[..cut], &input[cut..]]);
            assert_eq!(got, whole, "split at {cut} differs from whole");
        }
    }
    let mut rng = Rng::new(input.len() as u64 + 7);
    for _ in 0..random {
        let n = 1 + rng.below(12);
        let cuts: Vec<usize> = (0..n).map(|_| rng.below(input.len() + 1)).collect();
        let got = run_chunks(make, &cut_at(input, &cuts));
        assert_eq!(got, whole, "random split {cuts:?} differs from whole");
    }
    whole
}

/// The event contract of DESIGN.md, checked on merged events.
pub fn check_contract(events: &[Event]) {
    #[derive(PartialEq, Debug)]
    enum St {
        Started,
        Done,
    }
    let mut calls: BTreeMap<usize, (St, String, String, String)> = BTreeMap::new();
    let mut next = 0usize;
    let mut finishes = 0;
    for e in events {
        match e {
            Event::Text { delta } | Event::Reasoning { delta } => {
                assert!(!delta.is_empty(), "empty text delta");
            }
            Event::ToolCallStart { index, id, name } => {
                assert_eq!(*index, next, "indices must be dense and in order");
                assert!(!name.is_empty(), "empty tool name");
                assert!(!id.is_empty(), "empty id");
                next += 1;
                calls.insert(
                    *index,
                    (St::Started, id.clone(), name.clone(), String::new()),
                );
            }
            Event::ToolCallArgs { index, delta } => {
                let c = calls.get_mut(index).expect("args before start");
                assert_eq!(c.0, St::Started, "args after end for call {index}");
                c.3.push_str(delta);
            }
            Event::ToolCallEnd {
                index,
                id,
                name,
                arguments,
            } => {
                let c = calls.get_mut(index).expect("end before start");
                assert_eq!(c.0, St::Started, "second end for call {index}");
                assert_eq!(&c.1, id, "id changed between start and end");
                assert_eq!(&c.2, name, "name changed between start and end");
                let parsed: Value = serde_json::from_str(&c.3).unwrap_or_else(|e| {
                    panic!("args of call {index} are not JSON ({e}): {:?}", c.3)
                });
                assert_eq!(
                    &parsed, arguments,
                    "args deltas != end arguments for call {index}"
                );
                c.0 = St::Done;
            }
            Event::Error {
                index: Some(index), ..
            } => {
                let c = calls.get_mut(index).expect("call error before start");
                assert_eq!(c.0, St::Started, "error after end for call {index}");
                c.0 = St::Done;
            }
            Event::Finish { .. } => finishes += 1,
            _ => {}
        }
    }
    for (i, c) in &calls {
        assert_eq!(c.0, St::Done, "call {i} never ended");
    }
    assert!(finishes <= 1, "more than one finish event");
}

/// A finished call, for comparisons.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// The calls that ended, in index order.
pub fn calls(events: &[Event]) -> Vec<Call> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallEnd {
                id,
                name,
                arguments,
                ..
            } => Some(Call {
                id: id.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// All visible text.
pub fn text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Text { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

/// All reasoning text.
pub fn reasoning(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Reasoning { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

/// Error events.
pub fn errors(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| matches!(e, Event::Error { .. }))
        .collect()
}

/// The captures directory: `$TOOLSTREAM_CAPTURES`, else `../shared/captures` beside the
/// crate. `None` (with a visible message) when absent.
pub fn captures_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLSTREAM_CAPTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/captures"));
    if dir.join("FORMATS.json").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: captures not found at {} (set TOOLSTREAM_CAPTURES); capture conformance not run",
            dir.display()
        );
        None
    }
}

/// One recorded capture.
pub struct Capture {
    pub path: String,
    pub format: String,
    pub framing: Framing,
    pub bytes: Vec<u8>,
}

/// Every capture whose FORMATS.json format is `format` (bodies ready to feed: a
/// pretty-printed single object is compacted to one NDJSON line, as FORMATS.json says).
pub fn captures(format: &str) -> Vec<Capture> {
    let Some(dir) = captures_dir() else {
        return Vec::new();
    };
    let table: BTreeMap<String, Value> =
        serde_json::from_slice(&std::fs::read(dir.join("FORMATS.json")).expect("FORMATS.json"))
            .expect("FORMATS.json parses");
    let mut out = Vec::new();
    for (path, v) in table {
        if v["format"] != format {
            continue;
        }
        let framing: Framing = v["framing"]
            .as_str()
            .unwrap_or("sse")
            .parse()
            .expect("framing name");
        let mut bytes = std::fs::read(dir.join(&path)).expect("capture readable");
        if v["note"].as_str().is_some_and(|n| n.contains("compact")) {
            let value: Value = serde_json::from_slice(&bytes).expect("note: single JSON object");
            bytes = serde_json::to_vec(&value).expect("compact");
            bytes.push(b'\n');
        }
        out.push(Capture {
            path,
            format: format.to_owned(),
            framing,
            bytes,
        });
    }
    out
}

/// A parser maker for a capture.
pub fn maker(format: &str, framing: Framing) -> impl Fn() -> Parser {
    let f: Format = format.parse().expect("format name");
    move || Parser::new(f).framing(framing)
}
