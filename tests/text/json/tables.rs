//! The JSON-call text syntaxes (`command-r`, `granite`, `jamba`, `hunyuan`, `nemotron`,
//! `phi4-mini`, `longcat`, `internlm`, `apertus`, `gigachat3`) and `kimi-k2`: a fixture
//! table per syntax run whole, byte by byte, at every split point and at random splits
//! against a one-shot oracle (serde_json over the whole text), generated text and calls
//! cut anywhere (proptest), and malformed / truncated calls whose errors carry the
//! model's own bytes from the call's first marker byte.
//!
//! Peers' chunking bugs covered here: vLLM's Kimi K2 parser leaked markers and the text
//! between `<|tool_calls_section_begin|>` and `<|tool_call_begin|>` into the content
//! (vllm#28543, #31207, #37184), lost text before the section marker in the same delta
//! (#38353), truncated arguments when one delta held `<|tool_call_end|><|tool_call_begin|>`
//! (#38274) and capped a tool section at 8 KB: here every fixture runs whole, byte by
//! byte and at every split, and a 64 KB argument streams. vLLM's InternLM parser finds
//! the new argument text with `str.index` in the re-serialised arguments and reads one
//! call per response: fixtures repeat argument text over several calls. A greedy
//! `functools\[(.*)\]` (vllm-rust's Phi-4-mini port) swallows text with `]` after the
//! call: a fixture has it. `functools` in prose stays text.

use crate::common::*;
use proptest::prelude::*;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig};

// ------------------------------------------------------------------ the syntaxes

/// How calls are written after the marker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Payload {
    /// One object per marker.
    Object,
    /// An array of objects per marker.
    Array,
    /// `functools[`: the marker opens the array.
    ArrayBody,
    /// Kimi K2's special tokens.
    Kimi,
}

/// One syntax as the test (and its oracle) sees it: written independently of the
/// scanner's own table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Syn {
    pub(crate) format: Format,
    pub(crate) open: &'static str,
    pub(crate) close: Option<&'static str>,
    pub(crate) payload: Payload,
    /// Name key; `None`: the object's one key is the name (Apertus).
    pub(crate) name: Option<&'static str>,
    pub(crate) args: &'static str,
    pub(crate) id: Option<&'static str>,
    /// Text that must not appear in generated text (markers, tags, tokens).
    pub(crate) reserved: &'static [&'static str],
}

/// Every syntax's descriptors (each syntax file's `SYN`, listed in its family's
/// `JSON_TABLE`).
fn syntaxes() -> Vec<Syn> {
    [crate::json::JSON_TABLE, crate::sections::JSON_TABLE]
        .iter()
        .flat_map(|l| l.iter().flat_map(|s| s.iter().copied()))
        .collect()
}
const KIMI_CALL: &str = "<|tool_call_begin|>";
const KIMI_SEP: &str = "<|tool_call_argument_begin|>";
const KIMI_END: &str = "<|tool_call_end|>";

/// A call to write: name and the exact argument text.
type Spec<'a> = (&'a str, &'a str);

/// Writes one call object.
fn object(syn: &Syn, index: usize, name: &str, args: &str) -> String {
    let name_json = Value::from(name).to_string();
    match (syn.name, syn.id) {
        (None, _) => format!("{{{name_json}: {args}}}"),
        (Some(k), Some(id)) => format!(
            "{{\"{id}\": \"{index}\", \"{k}\": {name_json}, \"{}\": {args}}}",
            syn.args
        ),
        (Some(k), None) => format!("{{\"{k}\": {name_json}, \"{}\": {args}}}", syn.args),
    }
}

/// Writes a group of calls (one marker for array syntaxes, one each otherwise);
/// `first` is the index of the group's first call.
fn render(syn: &Syn, first: usize, calls: &[Spec<'_>]) -> String {
    let close = syn.close.unwrap_or_default();
    match syn.payload {
        Payload::Object => calls
            .iter()
            .enumerate()
            .map(|(i, (n, a))| {
                let nl = if syn.format == Format::InternLm || syn.format == Format::GigaChat3 {
                    "\n"
                } else {
                    ""
                };
                format!("{}{nl}{}{close}", syn.open, object(syn, first + i, n, a))
            })
            .collect(),
        Payload::Array | Payload::ArrayBody => {
            let items: Vec<String> = calls
                .iter()
                .enumerate()
                .map(|(i, (n, a))| object(syn, first + i, n, a))
                .collect();
            let bracket = if syn.payload == Payload::Array {
                "["
            } else {
                ""
            };
            format!("{}{bracket}{}]{close}", syn.open, items.join(", "))
        }
        Payload::Kimi => {
            let mut s = syn.open.to_owned();
            for (i, (n, a)) in calls.iter().enumerate() {
                s.push_str(&format!(
                    "{KIMI_CALL}functions.{n}:{}{KIMI_SEP}{a}{KIMI_END}",
                    first + i
                ));
            }
            s.push_str(close);
            s
        }
    }
}

// ------------------------------------------------------------------ the oracle

/// What the whole text holds: visible text and the calls (id, name, the model's own
/// argument text), read in one shot with serde_json.
#[derive(Debug, PartialEq)]
struct Want {
    text: String,
    calls: Vec<(String, String, String)>,
}

fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// The first JSON value of `s` (after whitespace) and the bytes it took.
fn first_value(s: &str) -> (&str, usize) {
    let mut it = serde_json::Deserializer::from_str(s).into_iter::<&RawValue>();
    let v = it.next().expect("a value").expect("valid JSON");
    (v.get(), it.byte_offset())
}

fn oracle_object(syn: &Syn, raw: &str, index: usize, calls: &mut Vec<(String, String, String)>) {
    let map: BTreeMap<String, &RawValue> = serde_json::from_str(raw).expect("call object");
    let (name, args) = match syn.name {
        None => {
            let (k, v) = map.iter().next().expect("one key");
            (k.clone(), v.get().to_owned())
        }
        Some(k) => (
            serde_json::from_str::<String>(map[k].get()).unwrap(),
            map.get(syn.args)
                .map_or("{}".to_owned(), |v| v.get().to_owned()),
        ),
    };
    let id = match syn.id {
        Some(k) => serde_json::from_str::<String>(map[k].get()).unwrap(),
        None => format!("call_{index}"),
    };
    calls.push((id, name, args));
}

/// The one-shot reference reading of a well-formed text.
fn oracle(syn: &Syn, input: &str) -> Want {
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut rest = input;
    while let Some(at) = rest.find(syn.open) {
        text.push_str(&rest[..at]);
        rest = &rest[at + syn.open.len()..];
        match syn.payload {
            Payload::Kimi => {
                while let Some(r) = rest.strip_prefix(KIMI_CALL) {
                    let sep = r.find(KIMI_SEP).unwrap();
                    let head = &r[..sep];
                    let name = head
                        .strip_prefix("functions.")
                        .unwrap()
                        .rsplit_once(':')
                        .unwrap()
                        .0;
                    let (args, n) = first_value(&r[sep + KIMI_SEP.len()..]);
                    calls.push((head.to_owned(), name.to_owned(), args.to_owned()));
                    rest = r[sep + KIMI_SEP.len() + n..]
                        .strip_prefix(KIMI_END)
                        .unwrap();
                }
            }
            Payload::ArrayBody => {
                let body = format!("[{rest}");
                let (arr, n) = first_value(&body);
                for item in serde_json::from_str::<Vec<&RawValue>>(arr).unwrap() {
                    oracle_object(syn, item.get(), calls.len(), &mut calls);
                }
                rest = &rest[n - 1..];
            }
            Payload::Object | Payload::Array => {
                let (v, n) = first_value(rest);
                if v.starts_with('[') {
                    for item in serde_json::from_str::<Vec<&RawValue>>(v).unwrap() {
                        oracle_object(syn, item.get(), calls.len(), &mut calls);
                    }
                } else {
                    oracle_object(syn, v, calls.len(), &mut calls);
                }
                rest = &rest[n..];
            }
        }
        if let Some(c) = syn.close {
            rest = rest.trim_start_matches(is_ws).strip_prefix(c).unwrap();
        }
    }
    text.push_str(rest);
    Want { text, calls }
}

fn make(format: Format) -> impl Fn() -> Parser {
    move || Parser::new(format)
}

/// `format`'s events for `input` at every chunking ([`assert_split_invariant`] with
/// `random` random splits); a format that can be written as a spec (`kimi-k2` and the
/// JSON family's) gives the same events from its spec.
pub(crate) fn split_both(format: Format, input: &str, random: usize) -> Vec<Event> {
    let got = assert_split_invariant(&make(format), input.as_bytes(), random);
    if let Some(syntax) = crate::exact::spec_of(format) {
        let via = assert_split_invariant(
            &|| Parser::with_syntax(syntax.clone(), ParserConfig::new()),
            input.as_bytes(),
            random.min(8),
        );
        assert_eq!(via, got, "{format} (spec): {input:?}");
    }
    got
}

/// Streams `input` at every chunking and compares with the oracle: text, ids, names,
/// the model's own argument bytes, parsed arguments; no error.
fn check(syn: &Syn, input: &str) -> Vec<Event> {
    let want = oracle(syn, input);
    let ev = split_both(syn.format, input, 20);
    assert!(errors(&ev).is_empty(), "{}: {input:?}: {ev:?}", syn.format);
    assert_eq!(text(&ev), want.text, "{}: {input:?}", syn.format);
    let got = calls(&ev);
    assert_eq!(
        got.len(),
        want.calls.len(),
        "{}: {input:?}: {ev:?}",
        syn.format
    );
    for (i, (c, (id, name, args))) in got.iter().zip(&want.calls).enumerate() {
        assert_eq!(&c.id, id, "{}: {input:?}", syn.format);
        assert_eq!(&c.name, name, "{}: {input:?}", syn.format);
        assert_eq!(&args_text(&ev, i), args, "{}: {input:?}", syn.format);
        let value: Value = serde_json::from_str(args).unwrap();
        assert_eq!(c.arguments, by_value(value), "{}: {input:?}", syn.format);
    }
    ev
}

// ------------------------------------------------------------------ fixtures

const NESTED: &str = r#"{"q": "é 😀 \"quoted\" \\ \n line", "n": {"a": [1, -2.5e3, {"b": null}]}, "u": "\u00e9\ud83d\ude00", "t": true}"#;

/// The fixture table: each entry is text and call groups, rendered per syntax.
fn fixtures(syn: &Syn) -> Vec<String> {
    let one: &[Spec<'_>] = &[("get_weather", r#"{"city": "Paris"}"#)];
    let several: &[Spec<'_>] = &[
        ("get_weather", r#"{"city": "aaaa"}"#),
        ("get_weather", r#"{"city": "aaaa"}"#),
        ("search", r#"{"q": "a]a"}"#),
    ];
    let nested: &[Spec<'_>] = &[("edit_file", NESTED)];
    let empty: &[Spec<'_>] = &[("now", "{}")];
    let unicode_name: &[Spec<'_>] = &[("wetter_abfragen", r#"{"ort": "Zürich ☀"}"#)];
    let mut out = vec![
        render(syn, 0, one),
        render(syn, 0, several),
        format!("Let me check. {}", render(syn, 0, one)),
        format!("Let me check.\n\n{} Done ] here.", render(syn, 0, one)),
        format!("Weather: {}", render(syn, 0, nested)),
        render(syn, 0, empty),
        render(syn, 0, unicode_name),
        format!(
            "First {} then {}",
            render(syn, 0, one),
            render(syn, 1, &several[..2])
        ),
        "Plain text with functools.partial, <tags>, [brackets] and {braces}.".to_owned(),
    ];
    if syn.payload == Payload::Object || syn.payload == Payload::Kimi {
        // Whitespace and newlines inside the payload.
        out.push(render(syn, 0, one).replacen('{', "\n  {", 1));
    }
    out
}

#[test]
fn fixtures_decode_at_every_chunking() {
    for syn in &syntaxes() {
        for input in fixtures(syn) {
            check(syn, &input);
        }
    }
}

#[test]
fn missing_arguments_become_an_empty_object() {
    for syn in syntaxes().iter().filter(|s| s.name.is_some()) {
        let k = syn.name.unwrap();
        let id = syn
            .id
            .map(|i| format!("\"{i}\": \"7\", "))
            .unwrap_or_default();
        let obj = format!("{{{id}\"{k}\": \"ping\"}}");
        let input = match syn.payload {
            Payload::Array => format!("{}[{obj}]{}", syn.open, syn.close.unwrap_or_default()),
            Payload::ArrayBody => format!("{}{obj}]", syn.open),
            _ => format!("{}{obj}{}", syn.open, syn.close.unwrap_or_default()),
        };
        let ev = check(syn, &input);
        assert_eq!(calls(&ev)[0].arguments, json!({}), "{}", syn.format);
    }
}

/// Start is emitted by the feed that delivers the byte settling the name, before the
/// arguments arrive; argument bytes stream as they arrive.
#[test]
fn start_in_the_feed_that_settles_the_name_and_arguments_stream() {
    for syn in &syntaxes() {
        let input = render(syn, 0, &[("get_weather", r#"{"city": "Paris, France"}"#)]);
        let settled = match syn.payload {
            Payload::Kimi => input.find(KIMI_SEP).unwrap() + KIMI_SEP.len(),
            _ => input.find("get_weather").unwrap() + "get_weather\"".len(),
        };
        let fed = |cut: usize| {
            let mut p = Parser::new(syn.format);
            let mut out = Vec::new();
            p.feed(&input.as_bytes()[..cut], &mut out).unwrap();
            out
        };
        let started = |ev: &[Event]| ev.iter().any(|e| matches!(e, Event::ToolCallStart { .. }));
        assert!(started(&fed(settled)), "{}: {input}", syn.format);
        assert!(!started(&fed(settled - 1)), "{}: {input}", syn.format);
        let mid = input.find("Paris, F").unwrap() + "Paris, F".len();
        let ev = fed(mid);
        let mut merged = ev.clone();
        toolstream::merge_deltas(&mut merged);
        assert!(
            args_text(&merged, 0).ends_with("\"Paris, F"),
            "{}: {merged:?}",
            syn.format
        );
    }
}

/// A call cut off by the end of the text: one error (the call's own, when its Start was
/// emitted) carrying the model's bytes from the first marker byte.
#[test]
fn truncated_calls_carry_their_bytes_from_the_marker() {
    for syn in &syntaxes() {
        let call = render(syn, 0, &[("get_weather", r#"{"city": "Paris"}"#)]);
        let before = "Checking. ";
        // Cut inside the arguments, inside the name, right after the marker's payload start.
        let cuts = [
            call.find("Par").unwrap(),
            call.find("weat").unwrap(),
            call.find(['{', '[']).unwrap() + 1,
        ];
        for cut in cuts {
            let input = format!("{before}{}", &call[..cut]);
            let ev = split_both(syn.format, &input, 10);
            let errs: Vec<_> = ev
                .iter()
                .filter_map(|e| match e {
                    Event::Error {
                        kind, index, raw, ..
                    } => Some((*kind, *index, raw.clone())),
                    _ => None,
                })
                .collect();
            assert_eq!(errs.len(), 1, "{}: {input:?}: {ev:?}", syn.format);
            let (kind, index, raw) = &errs[0];
            assert_eq!(*kind, ErrorKind::Truncated, "{}: {input:?}", syn.format);
            // From the call's first marker byte (Kimi K2: its `<|tool_call_begin|>`).
            let from = match syn.payload {
                Payload::Kimi => call.find(KIMI_CALL).unwrap(),
                _ => 0,
            };
            assert_eq!(raw, &call[from..cut], "{}: {input:?}", syn.format);
            let started = ev.iter().any(|e| matches!(e, Event::ToolCallStart { .. }));
            assert_eq!(index.is_some(), started, "{}: {ev:?}", syn.format);
            assert_eq!(text(&ev), "Checking. ", "{}", syn.format);
        }
    }
}

/// Broken call text: one error carrying the model's bytes from the marker (through the
/// close marker when the syntax has one, else through the offending character); the
/// text after it is text again, and a later call still counts.
#[test]
fn malformed_calls_are_errors_with_the_raw_text() {
    for syn in &syntaxes() {
        let good = render(syn, 1, &[("ok", "{}")]);
        let bad_bodies: Vec<(String, ErrorKind)> = match syn.payload {
            Payload::Kimi => vec![
                (
                    format!("{KIMI_CALL}functions.f:0{KIMI_SEP}{{\"a\": tru}}{KIMI_END}"),
                    ErrorKind::InvalidArguments,
                ),
                (
                    format!("{KIMI_CALL}functions.f:0{KIMI_END}"),
                    ErrorKind::MissingName,
                ),
            ],
            _ => {
                let bad_args = object(syn, 0, "f", "{\"a\": tru}");
                let bracket = if syn.payload == Payload::Array {
                    "["
                } else {
                    ""
                };
                let end = if syn.payload == Payload::Object {
                    ""
                } else {
                    "]"
                };
                let mut bad = vec![(
                    format!("{bracket}{bad_args}{end}"),
                    ErrorKind::InvalidArguments,
                )];
                if matches!(syn.payload, Payload::Object | Payload::ArrayBody) {
                    // Nothing after the marker can begin a call object: the marker was
                    // text, and so is all of it (the recovery rule; `functools[` opens
                    // the array itself, so `nope` is its first element).
                    let lit = format!("{}nope{end}{}", syn.open, syn.close.unwrap_or_default());
                    let input = format!("Hi {lit} {good}");
                    let ev = split_both(syn.format, &input, 10);
                    assert!(errors(&ev).is_empty(), "{}: {ev:?}", syn.format);
                    assert_eq!(text(&ev), format!("Hi {lit} "), "{}", syn.format);
                    assert_eq!(calls(&ev).len(), 1, "{}: {ev:?}", syn.format);
                } else {
                    bad.push((format!("{bracket}nope{end}"), ErrorKind::InvalidJson));
                }
                bad
            }
        };
        for (body, kind) in bad_bodies {
            let close = syn.close.unwrap_or_default();
            let bad = format!("{}{body}{close}", syn.open);
            let input = format!("Hi {bad} {good}");
            // Kimi K2: the call's own marker is its `<|tool_call_begin|>`.
            let (open, bad) = match syn.payload {
                Payload::Kimi => (KIMI_CALL, body.clone()),
                _ => (syn.open, bad),
            };
            let ev = split_both(syn.format, &input, 10);
            let errs: Vec<_> = ev
                .iter()
                .filter_map(|e| match e {
                    Event::Error { kind, raw, .. } => Some((*kind, raw.clone())),
                    _ => None,
                })
                .collect();
            assert_eq!(errs.len(), 1, "{}: {input:?}: {ev:?}", syn.format);
            assert_eq!(errs[0].0, kind, "{}: {input:?}", syn.format);
            let raw = &errs[0].1;
            assert!(bad.starts_with(raw.as_str()), "{}: {raw:?}", syn.format);
            assert!(raw.len() > open.len(), "{}: {raw:?}", syn.format);
            if syn.close.is_some() {
                assert_eq!(raw, &bad, "{}", syn.format);
            }
            let ok = calls(&ev);
            assert_eq!(ok.len(), 1, "{}: {input:?}: {ev:?}", syn.format);
            assert_eq!(ok[0].name, "ok", "{}", syn.format);
            assert!(text(&ev).starts_with("Hi"), "{}: {ev:?}", syn.format);
        }
    }
}

/// In an array, a call object without a name is reported at its `}`; the calls beside
/// it still count.
#[test]
fn a_nameless_element_does_not_take_its_neighbours_down() {
    for syn in syntaxes()
        .iter()
        .filter(|s| matches!(s.payload, Payload::Array | Payload::ArrayBody))
    {
        let a = object(syn, 0, "a", "{}");
        let c = object(syn, 1, "c", "{\"x\": 1}");
        let bracket = if syn.payload == Payload::Array {
            "["
        } else {
            ""
        };
        let input = format!(
            "{}{bracket}{a}, {{}}, {c}]{}",
            syn.open,
            syn.close.unwrap_or_default()
        );
        let ev = split_both(syn.format, &input, 10);
        let names: Vec<_> = calls(&ev).into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["a", "c"], "{}: {ev:?}", syn.format);
        assert_eq!(errors(&ev).len(), 1, "{}: {ev:?}", syn.format);
    }
}

#[test]
fn an_empty_call_block_is_no_call() {
    for syn in syntaxes().iter().filter(|s| s.close.is_some()) {
        let input = format!("a{}{}b", syn.open, syn.close.unwrap());
        let ev = split_both(syn.format, &input, 10);
        assert!(calls(&ev).is_empty() && errors(&ev).is_empty(), "{ev:?}");
        assert_eq!(text(&ev), "ab", "{}", syn.format);
    }
    for syn in &syntaxes() {
        let input = format!("a {}", syn.open);
        let ev = split_both(syn.format, &input, 10);
        assert!(calls(&ev).is_empty(), "{ev:?}");
    }
}

/// Reasoning wrappers and end-of-turn tokens around calls: `(format, input, reasoning,
/// text, calls)` rows (each syntax's file holds its own).
pub(crate) fn check_wrappers(cases: &[(Format, &str, &str, &str, usize)]) {
    for (format, input, reasoning_want, text_want, n) in cases {
        let ev = split_both(*format, input, 20);
        assert!(errors(&ev).is_empty(), "{format}: {ev:?}");
        assert_eq!(reasoning(&ev), *reasoning_want, "{format}: {ev:?}");
        assert_eq!(text(&ev), *text_want, "{format}: {ev:?}");
        assert_eq!(calls(&ev).len(), *n, "{format}: {ev:?}");
    }
}

/// `auto` picks each syntax from its marker and reads it like the format itself.
#[test]
fn auto_detects_each_syntax() {
    for syn in &syntaxes() {
        let input = format!(
            "Hello there.{} bye",
            render(syn, 0, &[("get_weather", r#"{"city": "Paris"}"#)])
        );
        let want = split_both(syn.format, &input, 0);
        let got = split_both(Format::Auto, &input, 10);
        assert_eq!(calls(&got), calls(&want), "{}: {got:?}", syn.format);
        assert_eq!(text(&got), text(&want), "{}", syn.format);
        assert_eq!(calls(&got).len(), 1, "{}", syn.format);
    }
}

/// A long argument in 4-byte pieces is streamed as it arrives, not held until the
/// call ends; what is retained is bounded (the raw call text kept for an error report
/// is bounded by `max_argument_bytes`).
#[test]
fn long_arguments_stream_as_they_arrive() {
    for syn in &syntaxes() {
        let long = format!("{{\"text\": \"{}\"}}", "abcd".repeat(16 * 1024));
        let input = render(syn, 0, &[("write", &long)]);
        let at = input.find(&long).unwrap();
        let mut p = Parser::new(syn.format);
        let mut out = Vec::new();
        for (i, c) in input.as_bytes().chunks(4).enumerate() {
            p.feed(c, &mut out).unwrap();
            let fed = (i + 1) * 4;
            if fed > at + 64 && fed < at + long.len() {
                let streamed: usize = out
                    .iter()
                    .map(|e| match e {
                        Event::ToolCallArgs { delta, .. } => delta.len(),
                        _ => 0,
                    })
                    .sum();
                assert!(
                    streamed + 8 >= fed - at,
                    "{}: {streamed} of {}",
                    syn.format,
                    fed - at
                );
            }
            assert!(p.retained_bytes() <= 2 * input.len(), "{}", syn.format);
        }
        p.finish(&mut out).unwrap();
        toolstream::merge_deltas(&mut out);
        assert_eq!(args_text(&out, 0), long, "{}", syn.format);
    }
}

/// Arguments over `max_argument_bytes`: the call's own error (kind `LimitExceeded`),
/// whatever the chunking; with a close marker, the text after it is text again.
#[test]
fn arguments_over_the_limit_are_the_calls_error() {
    for syn in &syntaxes() {
        let long = format!("{{\"text\": \"{}\"}}", "x".repeat(300));
        let input = format!("{} after", render(syn, 0, &[("write", &long)]));
        let format = syn.format;
        let mk = move || Parser::with_config(format, ParserConfig::new().max_argument_bytes(100));
        let ev = assert_split_invariant(&mk, input.as_bytes(), 10);
        let errs: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Error { kind, index, .. } => Some((*kind, *index)),
                _ => None,
            })
            .collect();
        assert_eq!(
            errs,
            [(ErrorKind::LimitExceeded, Some(0))],
            "{format}: {ev:?}"
        );
        assert!(calls(&ev).is_empty(), "{format}: {ev:?}");
        if syn.close.is_some() {
            assert_eq!(text(&ev), " after", "{format}: {ev:?}");
        }
    }
}

// ------------------------------------------------------------------ generated

fn text_piece() -> impl Strategy<Value = String> {
    let parts = vec![
        "a",
        "é",
        "😀",
        " ",
        "\n",
        "<",
        "[",
        "]",
        "|",
        "{",
        "}",
        "\"",
        "f",
        "functools",
        "function",
        " call",
        "<|",
        "<tool",
        "_call",
        "s>",
        "<TOOL",
        "</",
        "<|tool",
        "<|START",
        "<|tools",
        "<longcat",
        "<|action_start|>",
        "x",
    ];
    proptest::collection::vec(proptest::sample::select(parts), 0..8).prop_map(|v| v.concat())
}

fn arg_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        "\\PC{0,12}".prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
        Just(json!({"k": ["é", 1.5, null, {"d": "]}"}]})),
    ]
}

fn generated(
    syn: &Syn,
    texts: &[String],
    groups: &[Vec<(String, String)>],
    cuts: &[usize],
) -> Result<(), TestCaseError> {
    let clean = |t: &String| {
        if syn.reserved.iter().any(|m| t.contains(m)) || t.contains(syn.open) {
            String::new()
        } else {
            t.clone()
        }
    };
    let mut input = String::new();
    let mut first = 0;
    for (i, group) in groups.iter().enumerate() {
        input.push_str(&clean(texts.get(i).unwrap_or(&String::new())));
        let specs: Vec<Spec<'_>> = group
            .iter()
            .map(|(n, a)| (n.as_str(), a.as_str()))
            .collect();
        input.push_str(&render(syn, first, &specs));
        first += group.len();
    }
    input.push_str(&clean(texts.get(groups.len()).unwrap_or(&String::new())));
    let want = oracle(syn, &input);
    let mk = make(syn.format);
    let whole = run_whole(&mk, input.as_bytes());
    check_contract(&whole);
    prop_assert!(
        errors(&whole).is_empty(),
        "{}: {input:?}: {whole:?}",
        syn.format
    );
    prop_assert_eq!(text(&whole), want.text, "{}: {:?}", syn.format, input);
    let got: Vec<_> = calls(&whole)
        .into_iter()
        .enumerate()
        .map(|(i, c)| (c.id, c.name, args_text(&whole, i)))
        .collect();
    prop_assert_eq!(got, want.calls, "{}: {:?}", syn.format, input);
    prop_assert_eq!(
        &run_chunks(&mk, &cut_at(input.as_bytes(), cuts)),
        &whole,
        "{}: {:?} cut at {:?}",
        syn.format,
        input,
        cuts
    );
    prop_assert_eq!(&run_sized(&mk, input.as_bytes(), 1), &whole);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn generated_text_and_calls_any_split(
        texts in proptest::collection::vec(text_piece(), 0..4),
        groups in proptest::collection::vec(
            proptest::collection::vec(
                ("[a-z_][a-z0-9_.]{0,10}", proptest::collection::btree_map("[a-z]{1,6}", arg_value(), 0..4)),
                1..3,
            ),
            0..3,
        ),
        cuts in proptest::collection::vec(0usize..800, 0..12),
    ) {
        let groups: Vec<Vec<(String, String)>> = groups
            .into_iter()
            .map(|g| {
                g.into_iter()
                    .map(|(n, m)| (n, serde_json::to_string(&m).unwrap()))
                    .collect()
            })
            .collect();
        for syn in &syntaxes() {
            generated(syn, &texts, &groups, &cuts)?;
        }
    }
}

/// Cuts pieces of the syntax's markers and JSON punctuation into a fixture: whatever
/// the damage, the events keep the contract and do not depend on the chunking.
fn mutated(syn: &Syn, base: &str, edits: &[(usize, usize, usize)], cuts: &[usize]) {
    let pieces: Vec<&str> = [
        syn.open,
        syn.close.unwrap_or("]"),
        KIMI_CALL,
        KIMI_SEP,
        KIMI_END,
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\\",
        "é",
        " ",
        "<think>",
        "</think>",
    ]
    .into_iter()
    .collect();
    let mut input = base.as_bytes().to_vec();
    for (at, kind, piece) in edits {
        let at = at % (input.len() + 1);
        let piece = pieces[piece % pieces.len()].as_bytes();
        match kind % 3 {
            0 => {
                input.splice(at..at, piece.iter().copied());
            }
            1 => {
                let end = (at + piece.len()).min(input.len());
                input.drain(at..end);
            }
            _ => {
                // Cut a marker short: insert only its first half.
                let half = &piece[..piece.len() / 2];
                input.splice(at..at, half.iter().copied());
            }
        }
    }
    let mk = make(syn.format);
    let whole = run_whole(&mk, &input);
    check_contract(&whole);
    assert_eq!(
        run_chunks(&mk, &cut_at(&input, cuts)),
        whole,
        "{}: {:?} cut at {cuts:?}",
        syn.format,
        String::from_utf8_lossy(&input)
    );
    assert_eq!(run_sized(&mk, &input, 1), whole, "{}", syn.format);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn mutated_fixtures_keep_the_contract_at_any_split(
        which in 0usize..10,
        edits in proptest::collection::vec((0usize..400, 0usize..3, 0usize..32), 1..5),
        cuts in proptest::collection::vec(0usize..400, 0..8),
    ) {
        for syn in &syntaxes() {
            let fx = fixtures(syn);
            mutated(syn, &fx[which % fx.len()], &edits, &cuts);
        }
    }
}
