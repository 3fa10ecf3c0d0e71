//! Shared test harness: drive a parser at every chunking, check the event contract,
//! find the recorded captures.
#![allow(dead_code, unreachable_pub)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use toolstream::{
    Event, FinishReason, Format, Framing, Limits, Parser, ParserConfig, Usage, merge_deltas,
};

mod contract;
pub use contract::check_contract;

/// A parser for `format` with the default options (generated call ids `call_<index>`).
pub fn parser(format: Format) -> Parser {
    Parser::new(format)
}

/// The configuration with `limits` (each limit set by its [`ParserConfig`] setter), for
/// tests that vary one [`Limits`] field.
pub fn with_limits(limits: Limits) -> ParserConfig {
    ParserConfig::new()
        .max_argument_bytes(limits.max_argument_bytes)
        .max_calls(limits.max_calls)
        .max_held_bytes(limits.max_held_bytes)
        .max_line_bytes(limits.max_line_bytes)
        .max_depth(limits.max_depth)
}

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

/// Events as the parser yields them (unmerged), feeding `input` in `chunk`-byte pieces.
pub fn events_of(make: &dyn Fn() -> Parser, input: &[u8], chunk: usize) -> Vec<Event> {
    let mut p = make();
    let mut out = Vec::new();
    for c in input.chunks(chunk.max(1)) {
        p.feed(c, &mut out).expect("feed");
    }
    p.finish(&mut out).expect("finish");
    out
}

/// The formats the captures' FORMATS.json names (none without the captures).
pub fn capture_formats() -> Vec<String> {
    let Some(dir) = captures_dir() else {
        return Vec::new();
    };
    let bytes = std::fs::read(dir.join("FORMATS.json")).expect("FORMATS.json");
    let table: BTreeMap<String, Value> = serde_json::from_slice(&bytes).expect("FORMATS.json");
    let set: std::collections::BTreeSet<String> = table
        .values()
        .filter_map(|v| v["format"].as_str().map(str::to_owned))
        .collect();
    set.into_iter().collect()
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

/// Feeds `input` and returns the events emitted before `finish`, whenever the
/// feed ends at `cut`.
pub fn events_before(format: Format, input: &str, cut: usize) -> Vec<Event> {
    let mut p = Parser::new(format);
    let mut out = Vec::new();
    p.feed(&input.as_bytes()[..cut], &mut out).unwrap();
    out
}

/// Start is emitted by the feed that completes the name: cut after the byte that
/// settles the name → Start present; cut one byte earlier → absent.
pub fn assert_start_at(format: Format, input: &str, settled_by: &str) {
    let end = input.find(settled_by).expect("marker in input") + settled_by.len();
    let has_start = |ev: &[Event]| ev.iter().any(|e| matches!(e, Event::ToolCallStart { .. }));
    assert!(
        has_start(&events_before(format, input, end)),
        "no Start after {settled_by:?}"
    );
    assert!(
        !has_start(&events_before(format, input, end - 1)),
        "Start before {settled_by:?} completed"
    );
}

/// A finished call, for comparisons.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// The calls that ended, in index order; a non-integer number in the arguments as the
/// f64 it denotes (with `exact-numbers` a number keeps the model's text, so `-1.5e3` would
/// not equal `json!(-1500.0)`; tests/exact_values.rs checks the text itself).
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
                arguments: by_value(arguments.clone()),
            }),
            _ => None,
        })
        .collect()
}

/// `v` with each non-integer number as the f64 it denotes (kept when it has none).
pub fn by_value(v: Value) -> Value {
    match v {
        Value::Number(n) if !n.is_u64() && !n.is_i64() => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Number(n), Value::Number),
        Value::Array(a) => Value::Array(a.into_iter().map(by_value).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, by_value(v))).collect()),
        other => other,
    }
}

/// The concatenated argument deltas of call `index`.
pub fn args_text(ev: &[Event], index: usize) -> String {
    ev.iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs { index: i, delta } if *i == index => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

/// The error events as (kind, index, raw).
pub fn kinds(ev: &[Event]) -> Vec<(toolstream::ErrorKind, Option<usize>, String)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Error {
                kind, index, raw, ..
            } => Some((*kind, *index, raw.clone())),
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

/// Writes `message` (a line) to the process's real stderr, past libtest's output capture:
/// `eprintln!` goes through the capture and is shown only for failing tests, while a
/// write to `std::io::stderr()` is not captured, so `cargo test` shows it by default.
pub fn visible(message: &str) {
    use std::io::Write;
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("{message}\n").as_bytes());
}

/// The captures directory: `$TOOLSTREAM_CAPTURES`, else `../shared/captures` beside the
/// crate. `None` when absent, said once per test binary on the real stderr (see
/// [`visible`]), so a run without captures shows what it skipped.
pub fn captures_dir() -> Option<PathBuf> {
    static SAID: std::sync::Once = std::sync::Once::new();
    let dir = std::env::var_os("TOOLSTREAM_CAPTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/captures"));
    if dir.join("FORMATS.json").is_file() {
        Some(dir)
    } else {
        SAID.call_once(|| {
            let binary = std::env::current_exe()
                .ok()
                .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .unwrap_or_default();
            let binary = binary.split('-').next().unwrap_or_default();
            visible(&format!(
                "SKIPPED ({binary}): recorded captures not found at {} (set TOOLSTREAM_CAPTURES \
                 to the captures directory); the tests that read them pass without checking them",
                dir.display()
            ));
        });
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
    move || Parser::with_config(f, ParserConfig::new().framing(framing))
}

// ---------------------------------------------------------------------------------
// Building streams and expected calls.

/// A call as the tests expect it.
pub fn call(id: &str, name: &str, arguments: Value) -> Call {
    Call {
        id: id.into(),
        name: name.into(),
        arguments,
    }
}

/// Payloads as NDJSON lines.
pub fn ndjson(payloads: &[Value]) -> Vec<u8> {
    let mut s = String::new();
    for p in payloads {
        s.push_str(&p.to_string());
        s.push('\n');
    }
    s.into_bytes()
}

/// Payloads as SSE `data:` events.
pub fn sse_data(payloads: &[Value]) -> Vec<u8> {
    sse_events(payloads, |_| None)
}

/// Payloads as SSE events whose `event:` line names the payload's `type` (`message`
/// when it has none), as Anthropic and the Responses API send them.
pub fn sse_typed(payloads: &[Value]) -> Vec<u8> {
    sse_events(payloads, |p| Some(p["type"].as_str().unwrap_or("message")))
}

/// Payloads as SSE events, with the `event:` line `event` gives.
fn sse_events(payloads: &[Value], event: impl Fn(&Value) -> Option<&str>) -> Vec<u8> {
    let mut s = String::new();
    for p in payloads {
        if let Some(e) = event(p) {
            s.push_str("event: ");
            s.push_str(e);
            s.push('\n');
        }
        s.push_str("data: ");
        s.push_str(&p.to_string());
        s.push_str("\n\n");
    }
    s.into_bytes()
}

/// The one finish event's reason and usage (asserts there is exactly one).
pub fn finish(ev: &[Event]) -> (Option<FinishReason>, Option<Usage>) {
    let f: Vec<_> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Finish { reason, usage } => Some((reason.clone(), usage.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(f.len(), 1, "{ev:?}");
    f.into_iter().next().unwrap()
}

/// Cuts `s` into pieces at char boundaries, `pieces` of roughly equal size.
pub fn split_chars(s: &str, pieces: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars
        .chunks(chars.len().div_ceil(pieces.max(1)).max(1))
        .map(|c| c.iter().collect())
        .collect()
}

/// JSON values with escapes, non-ASCII and nesting.
pub fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        "[\\PC\"\\\\\n\t\u{1}/]{0,12}".prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
        (-1000i32..1000).prop_map(|i| serde_json::json!(f64::from(i) / 8.0)),
    ];
    leaf.prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map("\\PC{0,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Argument objects of [`arb_value`]s, keys with escapes and non-ASCII.
pub fn arb_args() -> impl Strategy<Value = Value> {
    proptest::collection::btree_map("[\\PC\"\\\\]{0,8}", arb_value(), 0..4)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

// ---------------------------------------------------------------------------------
// Shared checks: generated streams, captures against a one-shot oracle, mutated captures.

/// What a stream should decode to.
#[derive(Debug, Clone, PartialEq)]
pub struct Want {
    /// The calls that end, in index order.
    pub calls: Vec<Call>,
    /// All visible text.
    pub text: String,
    /// All reasoning text, when checked.
    pub reasoning: Option<String>,
}

impl From<(String, String, Vec<Call>)> for Want {
    /// An oracle's `(text, reasoning, calls)`.
    fn from((text, reasoning, calls): (String, String, Vec<Call>)) -> Self {
        Want {
            calls,
            text,
            reasoning: Some(reasoning),
        }
    }
}

impl From<(String, Vec<Call>)> for Want {
    /// An oracle's `(text, calls)`: reasoning not checked.
    fn from((text, calls): (String, Vec<Call>)) -> Self {
        Want {
            calls,
            text,
            reasoning: None,
        }
    }
}

/// For a proptest of generated streams: `body` fed whole keeps the contract and decodes
/// to `want` without errors, and cut at `cuts` gives the same events. Returns the events.
pub fn generated_stream_decodes(
    make: &dyn Fn() -> Parser,
    body: &[u8],
    cuts: &[usize],
    want: Want,
) -> Result<Vec<Event>, TestCaseError> {
    let whole = run_whole(make, body);
    check_contract(&whole);
    prop_assert!(errors(&whole).is_empty(), "{:?}", errors(&whole));
    prop_assert_eq!(calls(&whole), want.calls);
    prop_assert_eq!(text(&whole), want.text);
    if let Some(r) = want.reasoning {
        prop_assert_eq!(reasoning(&whole), r);
    }
    prop_assert_eq!(run_chunks(make, &cut_at(body, cuts)), whole.clone());
    Ok(whole)
}

/// How one dialect's captures are checked against its one-shot oracle.
pub struct CaptureOracle<'a> {
    /// The FORMATS.json format, also the parser's format name.
    pub format: &'a str,
    /// The dialect's name in the message when captures are missing (`Anthropic`).
    pub name: &'a str,
    /// Captures expected at the least (when the captures are there at all).
    pub min_captures: usize,
    /// Calls expected in all of them together at the least.
    pub min_calls: usize,
    /// The one-shot oracle: what a capture decodes to.
    pub oracle: &'a dyn Fn(&Capture) -> Want,
    /// The dialect's own assertions on a capture's events fed whole (errors, finish).
    pub check: &'a dyn Fn(&Capture, &[Event]),
    /// The parser fed the capture in pieces, when it is not the capture's format and
    /// framing (Gemini: the default, auto framing).
    pub chunked: Option<&'a dyn Fn() -> Parser>,
}

impl CaptureOracle<'_> {
    /// Every capture of the format, fed whole, byte by byte and in 5 random chunkings:
    /// the contract holds, the events match the oracle and pass `check`, and every
    /// chunking gives the events fed whole. Skipped (with a visible message) when the
    /// captures are absent.
    pub fn run(&self) {
        let caps = captures(self.format);
        if caps.is_empty() {
            return;
        }
        assert!(
            caps.len() >= self.min_captures,
            "expected the {} captures, found {}",
            self.name,
            caps.len()
        );
        let mut total_calls = 0;
        for cap in &caps {
            let want = (self.oracle)(cap);
            let make = maker(self.format, cap.framing);
            let whole = run_whole(&make, &cap.bytes);
            check_contract(&whole);
            assert_eq!(calls(&whole), want.calls, "{}", cap.path);
            assert_eq!(text(&whole), want.text, "{}", cap.path);
            if let Some(r) = &want.reasoning {
                assert_eq!(&reasoning(&whole), r, "{}", cap.path);
            }
            (self.check)(cap, &whole);
            let chunked = self.chunked.unwrap_or(&make);
            assert_eq!(
                run_sized(chunked, &cap.bytes, 1),
                whole,
                "{} byte by byte",
                cap.path
            );
            let mut rng = Rng::new(cap.bytes.len() as u64);
            for _ in 0..5 {
                let cuts: Vec<usize> = (0..1 + rng.below(40))
                    .map(|_| rng.below(cap.bytes.len() + 1))
                    .collect();
                assert_eq!(
                    run_chunks(chunked, &cut_at(&cap.bytes, &cuts)),
                    whole,
                    "{} random split",
                    cap.path
                );
            }
            total_calls += want.calls.len();
        }
        assert!(total_calls >= self.min_calls, "{total_calls}");
    }
}

/// Asserts that a capture's events hold no error.
pub fn no_errors(cap: &Capture, events: &[Event]) {
    assert!(
        errors(events).is_empty(),
        "{}: {:?}",
        cap.path,
        errors(events)
    );
}

/// Asserts that a capture's events end with a finish of `reason` whose usage passes
/// `usage`.
pub fn ends_with_finish(
    cap: &Capture,
    events: &[Event],
    reason: FinishReason,
    usage: fn(&Usage) -> bool,
) {
    assert!(
        matches!(events.last(), Some(Event::Finish { reason: Some(r), usage: Some(u) })
            if *r == reason && usage(u)),
        "{}: {:?}",
        cap.path,
        events.last()
    );
}

/// The check of captures that end in tool calls and count tokens both ways: no error,
/// and a finish of reason `tool_calls` whose usage has input and output tokens.
pub fn tool_calls_with_token_counts(cap: &Capture, events: &[Event]) {
    no_errors(cap, events);
    ends_with_finish(cap, events, FinishReason::ToolCalls, |u| {
        u.input_tokens.is_some() && u.output_tokens.is_some()
    });
}

/// Bytes a mutation writes.
const MUTATIONS: &[u8] = b"{}[]\\\",:0a\n \xff";

/// Every capture of `format` with bytes flipped, dropped and duplicated (50 mutants
/// each): never a panic, always the contract, and a random chunking gives the events
/// fed whole.
/// Applies 1 to 8 random mutations to `bytes` (non-empty): a byte replaced by one of
/// [`MUTATIONS`], a byte removed, or a piece of up to 64 bytes repeated.
pub fn mutate(bytes: &mut Vec<u8>, rng: &mut Rng) {
    for _ in 0..1 + rng.below(8) {
        if bytes.is_empty() {
            return;
        }
        let at = rng.below(bytes.len());
        match rng.below(3) {
            0 => bytes[at] = MUTATIONS[rng.below(MUTATIONS.len())],
            1 => {
                bytes.remove(at);
            }
            _ => {
                let end = (at + 1 + rng.below(64)).min(bytes.len());
                let piece = bytes[at..end].to_vec();
                bytes.splice(at..at, piece);
            }
        }
    }
}

/// Mutates a copy of `input` ([`mutate`]) and checks the event contract on it whole and
/// that a random chunking (up to `max_cuts` cuts) gives the same events. Returns the
/// mutant and its events.
pub fn assert_mutant_keeps_contract(
    make: &dyn Fn() -> Parser,
    input: &[u8],
    rng: &mut Rng,
    max_cuts: usize,
    what: &str,
) -> (Vec<u8>, Vec<Event>) {
    let mut bytes = input.to_vec();
    mutate(&mut bytes, rng);
    let whole = run_whole(make, &bytes);
    check_contract(&whole);
    let cuts: Vec<usize> = (0..1 + rng.below(max_cuts))
        .map(|_| rng.below(bytes.len() + 1))
        .collect();
    assert_eq!(
        run_chunks(make, &cut_at(&bytes, &cuts)),
        whole,
        "{what} mutated {:?}, cut at {cuts:?}",
        String::from_utf8_lossy(&bytes)
    );
    (bytes, whole)
}

pub fn mutated_captures_keep_the_contract(format: &str) {
    for cap in captures(format) {
        let make = maker(format, cap.framing);
        let mut rng = Rng::new(cap.bytes.len() as u64 ^ 0x5eed);
        for _ in 0..50 {
            assert_mutant_keeps_contract(&make, &cap.bytes, &mut rng, 20, &cap.path);
        }
    }
}

/// `rounds` random mutations of `input` (bytes replaced, removed, runs duplicated), each
/// fed whole (the contract holds) and at random splits (the same events).
pub fn mutations_keep_the_contract(
    make: &dyn Fn() -> Parser,
    input: &[u8],
    rounds: usize,
    label: &str,
) {
    let mut rng = Rng::new(input.len() as u64 ^ 0x5eed);
    for _ in 0..rounds {
        assert_mutant_keeps_contract(make, input, &mut rng, 20, label);
    }
}

/// The README's section under `## {title}`, up to the next `## ` heading.
pub fn readme_section(title: &str) -> &'static str {
    include_str!("../../README.md")
        .split(&format!("\n## {title}\n"))
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_else(|| panic!("README has no `## {title}` section"))
}

/// The ```` ```console ```` block of `section` that contains `containing`: its command (the
/// first line, without its `$ ` prompt) and the output it shows (the lines after it).
pub fn console_block(section: &str, containing: &str) -> (String, String) {
    let block = section
        .split("```console\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .find(|b| b.contains(containing))
        .unwrap_or_else(|| panic!("no console block with `{containing}`"));
    let (command, output) = block.split_once('\n').unwrap();
    let command = command
        .strip_prefix("$ ")
        .unwrap_or_else(|| panic!("`{command}`: not a `$ ` command line"));
    (command.to_owned(), output.to_owned())
}
