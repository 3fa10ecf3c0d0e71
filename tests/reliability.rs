//! Reliability: bad input of every kind, limits, regressions found by fuzzing, and the
//! fuzz seed writer.
//!
//! The bad-input and limit tests are written against a [`Dialect`] (how to write a
//! stream of one format) and run for every entry of [`DIALECTS`]: covering a new format
//! is one more entry. Every test checks the event contract and split invariance
//! (`assert_split_invariant`); openai-chat tests also check that nothing was lost
//! ([`check_accounted`]: the text, argument and error bytes account for the payloads).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::*;
use serde_json::{Value, json};
use toolstream::{ErrorKind, Event, Format, Framing, Limits, Parser, ParserConfig, merge_deltas};

// ---------------------------------------------------------------------------------------
// Dialects: how to write a stream of each format.
// ---------------------------------------------------------------------------------------

/// How to write the parts of a stream of one format, for format-generic tests.
struct Dialect {
    format: Format,
    /// A framed message carrying visible text.
    text: fn(&str) -> Vec<u8>,
    /// The first message of call `index`: id, name and a first arguments piece.
    start: fn(usize, &str, &str, &str) -> Vec<u8>,
    /// A further arguments piece of call `index`.
    args: fn(usize, &str) -> Vec<u8>,
    /// The end of the response (stop reason and end marker).
    end: fn() -> Vec<u8>,
    /// A provider error event with this message.
    error: fn(&str) -> Vec<u8>,
    /// A framed message whose text field holds these raw bytes (maybe not UTF-8).
    text_bytes: fn(&[u8]) -> Vec<u8>,
}

fn sse_data(payload: &[u8]) -> Vec<u8> {
    let mut v = b"data: ".to_vec();
    v.extend_from_slice(payload);
    v.extend_from_slice(b"\n\n");
    v
}

fn oa_chunk(delta: Value) -> Vec<u8> {
    sse_data(
        json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]})
            .to_string()
            .as_bytes(),
    )
}

const OPENAI_CHAT: Dialect = Dialect {
    format: Format::OpenAiChat,
    text: |s| oa_chunk(json!({ "content": s })),
    start: |i, id, name, args| {
        oa_chunk(
            json!({"tool_calls": [{"index": i, "id": id, "type": "function",
            "function": {"name": name, "arguments": args}}]}),
        )
    },
    args: |i, a| oa_chunk(json!({"tool_calls": [{"index": i, "function": {"arguments": a}}]})),
    end: || {
        let mut v = sse_data(
            json!({"object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
            .to_string()
            .as_bytes(),
        );
        v.extend_from_slice(b"data: [DONE]\n\n");
        v
    },
    error: |m| {
        let mut v = b"event: error\n".to_vec();
        v.extend(sse_data(
            json!({"error": {"message": m, "type": "server_error"}})
                .to_string()
                .as_bytes(),
        ));
        v
    },
    text_bytes: |b| {
        let mut p = br#"{"choices":[{"index":0,"delta":{"content":""#.to_vec();
        p.extend_from_slice(b);
        p.extend_from_slice(br#""}}]}"#);
        sse_data(&p)
    },
};

/// Every dialect the generic tests run over. A new format: one more entry.
const DIALECTS: &[Dialect] = &[OPENAI_CHAT];

fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}

fn maker_for(d: &Dialect, limits: Limits) -> impl Fn() -> Parser {
    let f = d.format;
    move || Parser::with_config(f, common::with_limits(limits))
}

/// Runs `body` at every chunking (contract + split invariance), then checks that nothing
/// was lost (openai-chat) and returns the merged events.
fn run(d: &Dialect, limits: Limits, body: &[u8]) -> Vec<Event> {
    let make = maker_for(d, limits);
    let events = assert_split_invariant(&make, body, 20);
    if d.format == Format::OpenAiChat {
        check_accounted(body, &events);
    }
    events
}

fn errors_of(events: &[Event], kind: ErrorKind) -> Vec<(Option<usize>, String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Error {
                path: _,
                kind: k,
                message,
                index,
                raw,
            } if *k == kind => Some((*index, message.clone(), raw.clone())),
            _ => None,
        })
        .collect()
}

/// Concatenated argument deltas of call `index`.
fn args_of(events: &[Event], index: usize) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs { index: i, delta } if *i == index => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

fn ends(events: &[Event]) -> Vec<(usize, String, Value)> {
    let mut v: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallEnd {
                index,
                name,
                arguments,
                ..
            } => Some((*index, name.clone(), arguments.clone())),
            _ => None,
        })
        .collect();
    v.sort_by_key(|(i, ..)| *i);
    v
}

// ---------------------------------------------------------------------------------------
// Nothing lost: the accounting checker for openai-chat.
// ---------------------------------------------------------------------------------------

/// SSE messages `(event, data)` of a body, read naively (LF line ends, as our fixtures).
fn naive_sse(body: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let (mut event, mut data, mut has) = (String::new(), Vec::new(), false);
    let lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    for line in lines.iter().chain([&&b""[..]]) {
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.is_empty() {
            if has {
                out.push((std::mem::take(&mut event), std::mem::take(&mut data)));
            }
            event.clear();
            has = false;
        } else if let Some(v) = line.strip_prefix(b"data:") {
            if has {
                data.push(b'\n');
            }
            data.extend_from_slice(v.strip_prefix(b" ").unwrap_or(v));
            has = true;
        } else if let Some(v) = line.strip_prefix(b"event:") {
            event = String::from_utf8_lossy(v.strip_prefix(b" ").unwrap_or(v)).into_owned();
        }
    }
    out
}

/// Checks that every byte of content in an openai-chat body shows up in the events: the
/// `content` / reasoning strings as Text / Reasoning (exactly, in order); each provider
/// call's argument text as its call's Args deltas, or in the Error that replaced its End
/// (whole, or the kept prefix of a limit error), with anything after the value in a
/// `trailing_arguments` error or made only of end-of-turn tokens; each payload that is
/// not JSON, and each provider error, in an Error's `raw`.
fn check_accounted(body: &[u8], events: &[Event]) {
    let (mut text, mut reasoning) = (String::new(), String::new());
    // The provider's calls (by index, a new id at the same index is a new call) and
    // their argument text, in order of first appearance.
    struct ProviderCall {
        index: Option<i64>,
        id: String,
        args: String,
    }
    let mut provider: Vec<ProviderCall> = Vec::new();
    let raws: Vec<(&ErrorKind, &str, &str)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Error {
                kind, raw, message, ..
            } => Some((kind, raw.as_str(), message.as_str())),
            _ => None,
        })
        .collect();
    let has_raw = |kinds: &[ErrorKind], raw: &str| {
        raws.iter()
            .any(|(k, r, _)| kinds.contains(k) && (*r == raw || r.contains(raw)))
    };
    let mut current: Option<usize> = None;
    for (event, data) in naive_sse(body) {
        let trimmed = data.trim_ascii();
        if trimmed.is_empty() || trimmed == b"[DONE]" {
            continue;
        }
        let lossy = String::from_utf8_lossy(&data).into_owned();
        // A payload that is not UTF-8 is reported (invalid_utf8, carrying it) and read
        // with U+FFFD in place of each invalid sequence.
        let parsed = if std::str::from_utf8(trimmed).is_ok() {
            serde_json::from_slice::<Value>(trimmed)
        } else {
            assert!(
                has_raw(&[ErrorKind::InvalidUtf8], &lossy),
                "invalid UTF-8 not reported: {lossy:?}"
            );
            serde_json::from_str::<Value>(lossy.trim_ascii())
        };
        let Ok(v) = parsed else {
            assert!(
                has_raw(
                    &[
                        ErrorKind::InvalidJson,
                        ErrorKind::InvalidUtf8,
                        ErrorKind::Provider,
                        ErrorKind::LimitExceeded
                    ],
                    lossy.get(..lossy.len().min(64)).unwrap_or(&lossy)
                ),
                "payload not in any error: {lossy:?}"
            );
            continue;
        };
        if !v["error"].is_null() || event == "error" {
            assert!(
                has_raw(&[ErrorKind::Provider], &lossy),
                "provider error not kept: {lossy}"
            );
        }
        let Some(choice) = v["choices"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["index"].as_i64().unwrap_or(0) == 0))
        else {
            continue;
        };
        let delta = &choice["delta"];
        if let Some(s) = delta["content"].as_str() {
            text.push_str(s);
        }
        for k in ["reasoning_content", "reasoning"] {
            if let Some(s) = delta[k].as_str() {
                reasoning.push_str(s);
            }
        }
        let tcs = match &delta["tool_calls"] {
            Value::Array(a) => a.clone(),
            Value::Object(_) => vec![delta["tool_calls"].clone()],
            _ => Vec::new(),
        };
        for tc in tcs {
            let idx = tc["index"].as_i64();
            let id = tc["id"].as_str().unwrap_or("").to_owned();
            let fits =
                |p: &usize| id.is_empty() || provider[*p].id.is_empty() || provider[*p].id == id;
            let pos = match idx {
                Some(i) => provider.iter().rposition(|c| c.index == Some(i)),
                None => current,
            }
            .filter(fits);
            let p = pos.unwrap_or_else(|| {
                provider.push(ProviderCall {
                    index: idx,
                    id: String::new(),
                    args: String::new(),
                });
                provider.len() - 1
            });
            if provider[p].id.is_empty() {
                provider[p].id = id;
            }
            current = Some(p);
            match &tc["function"]["arguments"] {
                Value::String(s) => provider[p].args.push_str(s),
                Value::Null => {}
                other => provider[p].args.push_str(&other.to_string()),
            }
        }
    }
    assert_eq!(common::text(events), text, "text lost or changed");
    assert_eq!(
        common::reasoning(events),
        reasoning,
        "reasoning lost or changed"
    );

    // What each started call accounts for: its Args deltas, or the raw of its Error.
    let mut accounted: Vec<(String, Option<(ErrorKind, String)>)> = Vec::new();
    for e in events {
        match e {
            Event::ToolCallStart { .. } => accounted.push((String::new(), None)),
            Event::ToolCallArgs { index, delta } => accounted[*index].0.push_str(delta),
            Event::Error {
                index: Some(i),
                kind,
                raw,
                ..
            } => accounted[*i].1 = Some((*kind, raw.clone())),
            _ => {}
        }
    }
    let calls_capped = raws
        .iter()
        .any(|(k, _, m)| **k == ErrorKind::LimitExceeded && m.contains("max_calls"));
    let mut used = vec![false; accounted.len()];
    for ProviderCall { index, id, args } in &provider {
        let found = accounted.iter().enumerate().position(|(i, (d, err))| {
            if used[i] {
                return false;
            }
            match err {
                Some((ErrorKind::LimitExceeded, raw)) => args.starts_with(raw.as_str()),
                Some((_, raw)) => raw == args || raw.is_empty() && args.trim().is_empty(),
                None => {
                    d == args
                        || (args.trim().is_empty() && d == "{}")
                        || (args.starts_with(d.as_str()) && {
                            let rest = args[d.len()..].trim();
                            rest.is_empty()
                                || has_raw(&[ErrorKind::TrailingArguments], rest)
                                || ["</s>", "<|eot_id|>", "<|im_end|>"]
                                    .iter()
                                    .any(|t| rest.contains(t))
                        })
                }
            }
        });
        match found {
            Some(i) => used[i] = true,
            None => assert!(
                calls_capped
                    || args.trim().is_empty()
                    || has_raw(
                        &[ErrorKind::MissingName, ErrorKind::TrailingArguments],
                        args
                    ),
                "arguments of provider call {index:?}/{id} not accounted for: {args:?}\nevents: {events:#?}"
            ),
        }
    }
}
// ---------------------------------------------------------------------------------------
// Bad input, one test each, for every dialect.
// ---------------------------------------------------------------------------------------

/// Bodies of the bad-input tests (also fuzz seeds).
fn bad_inputs() -> Vec<Vec<u8>> {
    DIALECTS
        .iter()
        .flat_map(|d| {
            [
                invalid_utf8_body(d),
                nul_body(d),
                never_closes_body(d),
                deep_body(d, 1000),
                interleaved_body(d),
                provider_error_body(d, true),
                cat(&[
                    (d.start)(0, "c1", "get_weather", "{\"city\": \"Par"),
                    (d.text)("x"),
                ]),
            ]
        })
        .collect()
}

fn invalid_utf8_body(d: &Dialect) -> Vec<u8> {
    cat(&[
        (d.text)("ok "),
        (d.text_bytes)(b"caf\xC3 \xFF!"),
        (d.text)("after"),
        (d.start)(0, "c1", "f", "{\"a\":1}"),
        (d.end)(),
    ])
}

#[test]
fn invalid_utf8_in_text_is_kept_lossily() {
    for d in DIALECTS {
        let ev = run(d, Limits::default(), &invalid_utf8_body(d));
        let lossy = "caf\u{FFFD} \u{FFFD}!";
        let in_error = errors(&ev)
            .iter()
            .any(|e| matches!(e, Event::Error { raw, .. } if raw.contains(lossy)));
        // Envelope formats: an invalid_utf8 error carrying the payload (lossily) and the
        // payload read with U+FFFD; text formats: U+FFFD in the text.
        assert!(
            in_error || text(&ev).contains(lossy),
            "{}: {ev:?}",
            d.format
        );
        assert!(text(&ev).starts_with("ok ") && text(&ev).ends_with("after"));
        assert_eq!(ends(&ev), vec![(0, "f".into(), json!({"a": 1}))]);
    }
}

/// SSE's rule for a payload that is not UTF-8 holds in every message framing (NDJSON,
/// JSON array, JSON values; the event stream in tests/bedrock.rs): an `invalid_utf8`
/// error carrying the payload (lossily), then the payload read with U+FFFD, never
/// `invalid_json`; the same events whole, byte by byte and at every split.
#[test]
fn invalid_utf8_payload_is_reported_then_read_lossily_in_every_framing() {
    let chunk = |content: &str| {
        json!({"choices": [{"index": 0, "delta": {"content": content}}]})
            .to_string()
            .into_bytes()
    };
    let bad = [
        &br#"{"choices":[{"index":0,"delta":{"content":"caf"#[..],
        b"\xC3 \xFF",
        br#"!"}}]}"#,
    ]
    .concat();
    let finish = br#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#.to_vec();
    let payloads = [chunk("ok "), bad.clone(), chunk(" after"), finish];
    let lossy = String::from_utf8_lossy(&bad).into_owned();
    for framing in [
        Framing::Sse,
        Framing::Ndjson,
        Framing::JsonArray,
        Framing::Json,
    ] {
        let body: Vec<u8> = match framing {
            Framing::Sse => payloads.iter().flat_map(|p| sse_data(p)).collect(),
            Framing::Ndjson | Framing::Json => payloads.join(&b"\n"[..]),
            _ => [&b"["[..], &payloads.join(&b","[..]), b"]"].concat(),
        };
        let make =
            move || Parser::with_config(Format::OpenAiChat, ParserConfig::new().framing(framing));
        let ev = assert_split_invariant(&make, &body, 20);
        assert_eq!(
            text(&ev),
            "ok caf\u{FFFD} \u{FFFD}! after",
            "{framing:?}: {ev:?}"
        );
        assert_eq!(
            kinds(&ev),
            vec![(ErrorKind::InvalidUtf8, None, lossy.clone())],
            "{framing:?}"
        );
        // The error comes before what was read from the payload.
        let at = ev
            .iter()
            .position(|e| matches!(e, Event::Error { .. }))
            .unwrap();
        assert!(
            matches!(&ev[at + 1], Event::Text { delta } if delta.starts_with("caf")),
            "{framing:?}: {ev:?}"
        );
    }
}

#[test]
fn invalid_utf8_in_arguments_is_replaced_and_reported() {
    // The arguments string of an openai-chat delta holds bytes that are not UTF-8: the
    // payload is read with U+FFFD in their place (nothing dropped), and an invalid_utf8
    // error carries it.
    let body = cat(&[
        (OPENAI_CHAT.start)(0, "c1", "f", "{\"a\": \""),
        sse_data(b"{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\xFF\xFE\"}}]}}]}"),
        (OPENAI_CHAT.args)(0, "x\"}"),
        (OPENAI_CHAT.end)(),
    ]);
    let ev = run(&OPENAI_CHAT, Limits::default(), &body);
    assert!(errors_of(&ev, ErrorKind::InvalidJson).is_empty());
    let bad = errors_of(&ev, ErrorKind::InvalidUtf8);
    assert_eq!(bad.len(), 1);
    assert!(bad[0].2.contains("\u{FFFD}\u{FFFD}"));
    assert_eq!(
        ends(&ev),
        vec![(0, "f".into(), json!({"a": "\u{FFFD}\u{FFFD}x"}))]
    );
}

#[test]
fn bom_mid_stream_does_not_lose_the_event() {
    for d in DIALECTS {
        let body = cat(&[
            (d.text)("a"),
            b"\xEF\xBB\xBF".to_vec(),
            (d.text)("b"),
            (d.text)("\u{feff}c"),
            (d.end)(),
        ]);
        let ev = run(d, Limits::default(), &body);
        assert_eq!(text(&ev), "ab\u{feff}c", "{}", d.format);
        assert!(errors(&ev).is_empty());
    }
}

fn nul_body(d: &Dialect) -> Vec<u8> {
    cat(&[
        (d.text)("a\0b"),
        (d.text_bytes)(b"x\0y"),
        (d.start)(0, "c1", "f", "{\"k\":\"\\u0000\"}"),
        b"data: \0\n\n".to_vec(),
        (d.end)(),
    ])
}

#[test]
fn nul_bytes_are_text_or_kept_in_an_error() {
    for d in DIALECTS {
        let ev = run(d, Limits::default(), &nul_body(d));
        assert!(text(&ev).starts_with("a\0b"), "{}", d.format);
        let kept = |s: &str| {
            text(&ev).contains(s)
                || errors(&ev)
                    .iter()
                    .any(|e| matches!(e, Event::Error { raw, .. } if raw.contains(s)))
        };
        assert!(kept("x\0y") && kept("\0"));
        assert_eq!(ends(&ev), vec![(0, "f".into(), json!({"k": "\0"}))]);
    }
}

#[test]
fn truncated_mid_name_is_reported_with_its_bytes() {
    for d in DIALECTS {
        let full = cat(&[(d.text)("hi"), (d.start)(0, "c1", "get_weather", "{}")]);
        let cut = full.windows(7).position(|w| w == b"get_wea").unwrap() + 7;
        let ev = run(d, Limits::default(), &full[..cut]);
        assert_eq!(text(&ev), "hi");
        assert!(
            errors(&ev)
                .iter()
                .any(|e| matches!(e, Event::Error { raw, .. } if raw.ends_with("get_wea"))),
            "{}: {ev:?}",
            d.format
        );
        assert!(ends(&ev).is_empty());
    }
}

#[test]
fn truncated_mid_arguments_is_reported_by_finish() {
    for d in DIALECTS {
        let body = cat(&[
            (d.start)(0, "c1", "get_weather", "{\"city\": "),
            (d.args)(0, "\"Par"),
        ]);
        let ev = run(d, Limits::default(), &body);
        let t = errors_of(&ev, ErrorKind::Truncated);
        assert_eq!(t.len(), 1, "{}: {ev:?}", d.format);
        assert_eq!(t[0].0, Some(0));
        assert_eq!(t[0].2, "{\"city\": \"Par");
        assert_eq!(args_of(&ev, 0), "{\"city\": \"Par");
    }
}

#[test]
fn truncated_mid_line_reports_the_line_and_the_call() {
    for d in DIALECTS {
        let full = cat(&[
            (d.start)(0, "c1", "f", "{\"a\":"),
            (d.args)(0, "[1, 2, 3]}"),
        ]);
        let cut = full.windows(4).rposition(|w| w == b"2, 3").unwrap();
        let ev = run(d, Limits::default(), &full[..cut]);
        // The partial message, kept in an error...
        assert!(
            errors(&ev).iter().any(
                |e| matches!(e, Event::Error { index: None, raw, .. } if raw.ends_with("[1, "))
            ),
            "{}: {ev:?}",
            d.format
        );
        // ...and the call with what had arrived.
        let t = errors_of(&ev, ErrorKind::Truncated);
        assert_eq!(t, vec![(Some(0), t[0].1.clone(), "{\"a\":".to_owned())]);
    }
}

fn never_closes_body(d: &Dialect) -> Vec<u8> {
    cat(&[
        (d.start)(0, "c1", "f", "{\"a\": [1, {\"b\": "),
        (d.args)(0, "2}"),
        (d.start)(1, "c2", "g", "{\"ok\": true}"),
        (d.text)("done"),
        (d.end)(),
    ])
}

#[test]
fn json_that_never_closes_is_truncated_and_the_next_call_decodes() {
    for d in DIALECTS {
        let ev = run(d, Limits::default(), &never_closes_body(d));
        let t = errors_of(&ev, ErrorKind::Truncated);
        assert_eq!(t.len(), 1, "{}: {ev:?}", d.format);
        assert_eq!(t[0].0, Some(0));
        assert_eq!(t[0].2, "{\"a\": [1, {\"b\": 2}");
        assert_eq!(ends(&ev), vec![(1, "g".into(), json!({"ok": true}))]);
        assert_eq!(text(&ev), "done");
    }
}

fn deep_body(d: &Dialect, depth: usize) -> Vec<u8> {
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(depth), "]".repeat(depth));
    cat(&[
        (d.start)(0, "c1", "deep", &deep),
        (d.start)(1, "c2", "g", "{\"ok\": 1}"),
        (d.end)(),
    ])
}

#[test]
fn deeply_nested_arguments_hit_max_depth() {
    for d in DIALECTS {
        let ev = run(d, Limits::default(), &deep_body(d, 1000));
        let l = errors_of(&ev, ErrorKind::LimitExceeded);
        assert_eq!(l.len(), 1, "{}: {ev:?}", d.format);
        assert_eq!(l[0].0, Some(0));
        assert!(l[0].1.contains("max_depth"), "{}", l[0].1);
        assert!(l[0].2.starts_with("{\"a\":[[[[") && l[0].2.len() > 2000);
        assert_eq!(ends(&ev), vec![(1, "g".into(), json!({"ok": 1}))]);
        // Within the limit: fine.
        let ev = run(d, Limits::default(), &deep_body(d, 120));
        assert_eq!(ends(&ev).len(), 2);
    }
}

#[test]
fn an_event_type_never_seen_is_ignored_but_its_payload_read() {
    let body = cat(&[
        b"event: brand_new_event\n".to_vec(),
        (OPENAI_CHAT.text)("a"),
        b"event: ping\ndata: {\"type\": \"ping\"}\n\n".to_vec(),
        b": comment\nid: 7\nretry: 10\nweird-field: x\n".to_vec(),
        (OPENAI_CHAT.text)("b"),
        (OPENAI_CHAT.end)(),
    ]);
    let ev = run(&OPENAI_CHAT, Limits::default(), &body);
    assert_eq!(text(&ev), "ab");
    assert!(errors(&ev).is_empty());
}

fn interleaved_body(d: &Dialect) -> Vec<u8> {
    cat(&[
        (d.start)(0, "a", "f", "{\"x\": "),
        (d.start)(1, "b", "g", "{\"y\": "),
        (d.args)(0, "[1, "),
        (d.args)(1, "\"é\"}"),
        (d.args)(0, "2]}"),
        (d.end)(),
    ])
}

#[test]
fn interleaved_deltas_of_two_calls() {
    for d in DIALECTS {
        let ev = run(d, Limits::default(), &interleaved_body(d));
        assert_eq!(
            ends(&ev),
            vec![
                (0, "f".into(), json!({"x": [1, 2]})),
                (1, "g".into(), json!({"y": "é"}))
            ],
            "{}",
            d.format
        );
        assert!(errors(&ev).is_empty());
    }
}

#[test]
fn call_index_going_backwards() {
    let d = &OPENAI_CHAT;
    // Index 0 again with a new id: a new call (a server that reuses indices).
    let body = cat(&[
        (d.start)(0, "a", "f", "{}"),
        (d.start)(1, "b", "g", "{}"),
        (d.start)(0, "c", "h", "{\"z\": 3}"),
        (d.end)(),
    ]);
    let ev = run(d, Limits::default(), &body);
    assert_eq!(
        ends(&ev),
        vec![
            (0, "f".into(), json!({})),
            (1, "g".into(), json!({})),
            (2, "h".into(), json!({"z": 3}))
        ]
    );
    // Index 0 again without an id while call 0 is still open: its arguments go on.
    let body = cat(&[
        (d.start)(0, "a", "f", "{\"p\": "),
        (d.start)(1, "b", "g", "{}"),
        (d.args)(0, "1}"),
        (d.end)(),
    ]);
    let ev = run(d, Limits::default(), &body);
    assert_eq!(
        ends(&ev),
        vec![(0, "f".into(), json!({"p": 1})), (1, "g".into(), json!({}))]
    );
    // Arguments for call 0 after it closed: an error carrying them, never silence.
    let body = cat(&[
        (d.start)(0, "a", "f", "{}"),
        (d.start)(1, "b", "g", "{}"),
        (d.args)(0, "{\"late\": 1}"),
        (d.end)(),
    ]);
    let ev = run(d, Limits::default(), &body);
    assert_eq!(ends(&ev).len(), 2);
    let late = errors_of(&ev, ErrorKind::TrailingArguments);
    assert_eq!(late.len(), 1, "{ev:?}");
    assert_eq!(late[0].2, "{\"late\": 1}");
}

#[test]
fn duplicate_ids_on_different_calls_are_kept() {
    let d = &OPENAI_CHAT;
    let body = cat(&[
        (d.start)(0, "dup", "f", "{\"a\": 1}"),
        (d.start)(1, "dup", "g", "{\"b\": 2}"),
        (d.end)(),
    ]);
    let ev = run(d, Limits::default(), &body);
    let got: Vec<(String, String)> = calls(&ev).into_iter().map(|c| (c.id, c.name)).collect();
    assert_eq!(
        got,
        vec![("dup".into(), "f".into()), ("dup".into(), "g".into())]
    );
}

fn provider_error_body(d: &Dialect, continues: bool) -> Vec<u8> {
    let mut parts = vec![
        (d.text)("thinking"),
        (d.start)(0, "c1", "f", "{\"a\": "),
        (d.error)("upstream overloaded"),
    ];
    if continues {
        parts.push((d.args)(0, "1}"));
        parts.push((d.end)());
    }
    cat(&parts)
}

#[test]
fn provider_error_mid_call() {
    for d in DIALECTS {
        // The stream ends after the error: the error, then the cut-off call.
        let ev = run(d, Limits::default(), &provider_error_body(d, false));
        let p = errors_of(&ev, ErrorKind::Provider);
        assert_eq!(p.len(), 1, "{}: {ev:?}", d.format);
        assert!(p[0].1.contains("upstream overloaded") && p[0].2.contains("upstream overloaded"));
        let t = errors_of(&ev, ErrorKind::Truncated);
        assert_eq!(t, vec![(Some(0), t[0].1.clone(), "{\"a\": ".to_owned())]);
        let perr = ev.iter().position(|e| {
            matches!(
                e,
                Event::Error {
                    kind: ErrorKind::Provider,
                    ..
                }
            )
        });
        let terr = ev.iter().position(|e| {
            matches!(
                e,
                Event::Error {
                    kind: ErrorKind::Truncated,
                    ..
                }
            )
        });
        assert!(perr < terr);
        // The stream goes on after the error: the call completes.
        let ev = run(d, Limits::default(), &provider_error_body(d, true));
        assert_eq!(errors_of(&ev, ErrorKind::Provider).len(), 1);
        assert_eq!(ends(&ev), vec![(0, "f".into(), json!({"a": 1}))]);
    }
}

#[test]
fn long_text_after_closed_arguments_is_reported_with_what_was_dropped() {
    // The text kept for the trailing_arguments error is bounded (4 KiB); the error says
    // how much more there was instead of dropping it silently.
    let d = &OPENAI_CHAT;
    let mut parts = vec![(d.start)(0, "c1", "f", "{\"a\": 1}")];
    for _ in 0..100 {
        parts.push((d.args)(0, &"é-junk-é ".repeat(10)));
    }
    parts.push((d.end)());
    let body = cat(&parts);
    let make = maker_for(d, Limits::default());
    let ev = assert_split_invariant(&make, &body, 5);
    assert_eq!(ends(&ev), vec![(0, "f".into(), json!({"a": 1}))]);
    let t = errors_of(&ev, ErrorKind::TrailingArguments);
    assert_eq!(t.len(), 1, "{ev:?}");
    let total = 100 * "é-junk-é ".repeat(10).len();
    assert!(t[0].2.len() <= 4096 && t[0].2.len() > 4000);
    assert!(
        t[0].1
            .contains(&format!("{} dropped", total - t[0].2.len())),
        "{}",
        t[0].1
    );
}

// ---------------------------------------------------------------------------------------
// Limits: each one yields a limit_exceeded error naming it, keeps what it can, and the
// parser recovers.
// ---------------------------------------------------------------------------------------

fn small(f: impl Fn(&mut Limits)) -> Limits {
    let mut l = Limits::default();
    f(&mut l);
    l
}

/// Feeds `body` in `chunk`-byte pieces, asserting after every feed that the parser holds
/// at most `bound` bytes; returns the merged events.
fn run_bounded(make: &dyn Fn() -> Parser, body: &[u8], chunk: usize, bound: usize) -> Vec<Event> {
    let mut p = make();
    let mut out = Vec::new();
    let mut peak = 0;
    for c in body.chunks(chunk) {
        p.feed(c, &mut out).unwrap();
        peak = peak.max(p.retained_bytes());
        assert!(
            p.retained_bytes() <= bound,
            "retained {} > {bound}",
            p.retained_bytes()
        );
    }
    p.finish(&mut out).unwrap();
    merge_deltas(&mut out);
    check_contract(&out);
    eprintln!("peak retained: {peak} bytes (bound {bound})");
    out
}

#[test]
fn limits_defaults_are_as_documented() {
    let l = Limits::default();
    assert_eq!(l.max_argument_bytes, 16 << 20);
    assert_eq!(l.max_calls, 1024);
    assert_eq!(l.max_held_bytes, 64 << 10);
    assert_eq!(l.max_line_bytes, 16 << 20);
    assert_eq!(l.max_depth, 128);
    assert_eq!(l.max_line_bytes, toolstream::framing::sse::DEFAULT_MAX_LINE);
    assert_eq!(
        l.max_line_bytes,
        toolstream::framing::eventstream::DEFAULT_MAX_MESSAGE
    );
    assert_eq!(l.max_depth, toolstream::scan::json::DEFAULT_MAX_DEPTH);
    let p = Parser::with_config(
        Format::OpenAiChat,
        ParserConfig::new()
            .max_argument_bytes(1)
            .max_calls(2)
            .max_held_bytes(3)
            .max_line_bytes(4)
            .max_depth(5),
    );
    let l = p.limits();
    assert_eq!(
        (
            l.max_argument_bytes,
            l.max_calls,
            l.max_held_bytes,
            l.max_line_bytes,
            l.max_depth
        ),
        (1, 2, 3, 4, 5)
    );
}

#[test]
fn limit_max_argument_bytes() {
    for d in DIALECTS {
        let limits = small(|l| l.max_argument_bytes = 32);
        let body = cat(&[
            (d.start)(0, "c1", "big", "{\"data\": \"0123456789"),
            (d.args)(0, "0123456789"),
            (d.args)(0, "0123456789"),
            (d.args)(0, "0123456789\"}"),
            (d.start)(1, "c2", "small", "{\"ok\": 1}"),
            (d.end)(),
        ]);
        let ev = run(d, limits, &body);
        let l = errors_of(&ev, ErrorKind::LimitExceeded);
        assert_eq!(l.len(), 1, "{}: {ev:?}", d.format);
        assert_eq!(l[0].0, Some(0));
        assert!(l[0].1.contains("max_argument_bytes"), "{}", l[0].1);
        // What fitted is kept: a prefix of the arguments, within the limit.
        assert!(l[0].2.starts_with("{\"data\": \"0123456789") && l[0].2.len() <= 32);
        assert_eq!(ends(&ev), vec![(1, "small".into(), json!({"ok": 1}))]);
        let make = maker_for(d, limits);
        run_bounded(&make, &body, 7, 32 + 4096);
    }
}

#[test]
fn limit_max_calls() {
    for d in DIALECTS {
        let limits = small(|l| l.max_calls = 2);
        let body = cat(&[
            (d.start)(0, "a", "f", "{}"),
            (d.start)(1, "b", "g", "{}"),
            (d.start)(2, "c", "h", "{\"x\": 1}"),
            (d.start)(3, "d", "i", "{}"),
            (d.text)("still here"),
            (d.end)(),
        ]);
        let ev = run(d, limits, &body);
        assert_eq!(ends(&ev).len(), 2, "{}", d.format);
        // Each call past the limit: an error without an index, carrying what it received.
        let l = errors_of(&ev, ErrorKind::LimitExceeded);
        assert_eq!(l.len(), 2, "{ev:?}");
        for ((index, message, raw), (name, args)) in
            l.iter().zip([("h", "{\"x\": 1}"), ("i", "{}")])
        {
            assert_eq!(*index, None);
            assert!(
                message.contains("max_calls") && message.contains(name),
                "{message}"
            );
            assert_eq!(raw, args);
        }
        assert_eq!(text(&ev), "still here");
        assert!(matches!(ev.last(), Some(Event::Finish { .. })));
    }
}

#[test]
fn calls_past_twice_max_calls_are_dropped_and_reported_once() {
    // As many calls past the limit as the limit are kept (their raw reported); after
    // those, calls are dropped with one error and an empty raw: the table stays bounded.
    for d in DIALECTS {
        let limits = small(|l| l.max_calls = 1);
        let body = cat(&[
            (d.start)(0, "a", "f", "{}"),
            (d.start)(1, "b", "g", "{\"kept\": 1}"),
            (d.start)(2, "c", "h", "{\"lost\": 2}"),
            (d.start)(3, "d", "i", "{\"lost\": 3}"),
            (d.end)(),
        ]);
        let ev = run(d, limits, &body);
        assert_eq!(ends(&ev).len(), 1, "{}", d.format);
        let l = errors_of(&ev, ErrorKind::LimitExceeded);
        assert_eq!(l.len(), 2, "{ev:?}");
        assert_eq!(l[0].2, "{\"kept\": 1}");
        assert!(l[1].1.contains("further calls are ignored"), "{}", l[1].1);
        assert_eq!(l[1].2, "");
    }
}

#[test]
fn limit_max_depth() {
    for d in DIALECTS {
        let limits = small(|l| l.max_depth = 4);
        let body = cat(&[
            (d.start)(0, "c1", "f", "{\"a\":{\"b\":{\"c\":{\"d\":{}}}}}"),
            (d.start)(1, "c2", "g", "{\"a\":{\"b\":{\"c\":{}}}}"),
            (d.end)(),
        ]);
        let ev = run(d, limits, &body);
        let l = errors_of(&ev, ErrorKind::LimitExceeded);
        assert_eq!(l.len(), 1, "{}: {ev:?}", d.format);
        assert_eq!(l[0].0, Some(0));
        assert!(l[0].1.contains("max_depth"), "{}", l[0].1);
        assert_eq!(l[0].2, "{\"a\":{\"b\":{\"c\":{\"d\":{}}}}}");
        assert_eq!(
            ends(&ev),
            vec![(1, "g".into(), json!({"a":{"b":{"c":{}}}}))]
        );
    }
}

#[test]
fn limit_max_line_bytes() {
    for d in DIALECTS {
        let limits = small(|l| l.max_line_bytes = 200);
        let long = "x".repeat(1000);
        let body = cat(&[
            (d.text)("before "),
            (d.text)(&long),
            (d.text)("after"),
            (d.start)(0, "c1", "f", "{}"),
            (d.end)(),
        ]);
        let make = maker_for(d, limits);
        let ev = assert_split_invariant(&make, &body, 20);
        let l = errors_of(&ev, ErrorKind::LimitExceeded);
        assert_eq!(l.len(), 1, "{}: {ev:?}", d.format);
        assert!(l[0].1.contains("max_line_bytes"), "{}", l[0].1);
        assert_eq!(l[0].2.len(), 200, "the first max_line_bytes bytes are kept");
        assert_eq!(text(&ev), "before after");
        assert_eq!(ends(&ev).len(), 1);
        run_bounded(&make, &body, 13, 3 * 200 + 64);
    }
}

#[test]
fn sixteen_megabyte_single_sse_line() {
    let d = &OPENAI_CHAT;
    let huge = "y".repeat((16 << 20) + 100);
    let body = cat(&[
        (d.text)("before "),
        (d.text)(&huge),
        (d.text)("after"),
        (d.start)(0, "c1", "f", "{\"ok\": true}"),
        (d.end)(),
    ]);
    drop(huge);
    // Default limits: the line is over 16 MiB: an error, then recovery.
    let make = maker_for(d, Limits::default());
    let ev = run_bounded(&make, &body, 64 << 10, (16 << 20) + 64);
    let l = errors_of(&ev, ErrorKind::LimitExceeded);
    assert_eq!(l.len(), 1);
    assert!(l[0].1.contains("max_line_bytes"));
    assert_eq!(l[0].2.len(), 16 << 20);
    assert_eq!(text(&ev), "before after");
    assert_eq!(ends(&ev), vec![(0, "f".into(), json!({"ok": true}))]);
    // Whole in one feed: the same events.
    let mut whole = run_chunks(&make, &[&body]);
    merge_deltas(&mut whole);
    assert_eq!(whole, ev);
    // A 1 MiB limit: memory stays within it while the 16 MB line streams through.
    let make = maker_for(d, small(|l| l.max_line_bytes = 1 << 20));
    let ev = run_bounded(&make, &body, 64 << 10, (1 << 20) + 64);
    assert_eq!(text(&ev), "before after");
    assert_eq!(errors_of(&ev, ErrorKind::LimitExceeded)[0].2.len(), 1 << 20);
}

#[test]
fn many_short_data_lines_are_bounded_too() {
    // Fuzz regression: each `data:` line within the limit, no blank line, the event
    // grew without bound.
    let mut body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"".to_vec();
    for _ in 0..10_000 {
        body.extend_from_slice(b"\ndata: 0123456789");
    }
    body.extend_from_slice(b"\n\n");
    body.extend((OPENAI_CHAT.text)("after"));
    let make = maker_for(&OPENAI_CHAT, small(|l| l.max_line_bytes = 1000));
    let ev = run_bounded(&make, &body, 100, 3 * 1000 + 64);
    let l = errors_of(&ev, ErrorKind::LimitExceeded);
    assert_eq!(l.len(), 1, "{ev:?}");
    assert!(l[0].1.contains("SSE event data") && l[0].1.contains("max_line_bytes"));
    assert_eq!(text(&ev), "after");
    assert_split_invariant(&make, &body[..body.len().min(2500)], 10);
}

/// Adversarial bodies for held-back text: long runs of what might start a call in some
/// syntax, never finished.
fn held_back_bodies() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = [
        "<",
        "[",
        "{",
        "<tool_call>",
        "[TOOL_CALLS]",
        "<|python_tag|>",
        "<function=",
        "<|tool▁calls▁begin|>",
        "<|channel|>commentary to=functions.f <|message|>{\"a\": ",
        " ",
        "\"",
        "\\",
    ]
    .iter()
    .map(|m| m.repeat(20_000 / m.len().max(1)).into_bytes())
    .collect();
    v.push(b"[f(a=".repeat(3000));
    v.push(b"{\"name\": \"f\", \"arguments\": {\"a\": ".repeat(500));
    v
}

#[test]
fn held_back_text_and_everything_else_stays_bounded_for_every_format() {
    // For every format (text formats read the body as model output; envelope formats
    // route their text through the scanner formats via content_format): small limits,
    // and the retained bytes stay within them after every feed.
    let limits = small(|l| {
        l.max_argument_bytes = 512;
        l.max_calls = 4;
        l.max_held_bytes = 256;
        l.max_line_bytes = 1024;
        l.max_depth = 16;
    });
    let bound = 3 * 1024 + 4 * 2 * 512 + 256 + 256;
    for f in Format::all() {
        for body in held_back_bodies() {
            let make = || Parser::with_config(f, common::with_limits(limits));
            run_bounded(&make, &body, 97, bound);
            // The same text inside an envelope's content.
            let wrapped = (OPENAI_CHAT.text)(&String::from_utf8_lossy(&body[..900]));
            let make = || {
                Parser::with_config(
                    Format::OpenAiChat,
                    common::with_limits(limits).content_format(f),
                )
            };
            run_bounded(&make, &wrapped.repeat(20), 97, bound);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Regressions found by fuzzing (fuzz/artifacts, minimised).
// ---------------------------------------------------------------------------------------

#[test]
fn fuzz_utf8_overlong_lead_split_matches_lossy() {
    use toolstream::scan::utf8::Utf8Holder;
    for input in [
        &b"\x00\x8e\xe0\x80"[..],
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xf0\x80",
    ] {
        let want = String::from_utf8_lossy(input).into_owned();
        let mut h = Utf8Holder::new();
        let (mut got, mut scratch) = (String::new(), String::new());
        for b in input.chunks(1) {
            got.push_str(&h.push(b, &mut scratch));
        }
        got.extend(h.finish());
        assert_eq!(got, want, "{input:?}");
    }
}

#[test]
fn fuzz_json_array_errors_do_not_depend_on_chunking() {
    let make = || {
        Parser::with_config(
            Format::OpenAiChat,
            ParserConfig::new().framing(Framing::JsonArray),
        )
    };
    for body in [
        &b"\x00\x00/"[..],
        b"[{}, x yz]",
        b"[{} ]  tail",
        b"[{\"a\": tru ]",
    ] {
        let ev = assert_split_invariant(&make, body, 20);
        let raw: String = errors(&ev)
            .iter()
            .map(|e| match e {
                Event::Error { raw, .. } => raw.as_str(),
                _ => "",
            })
            .collect();
        assert!(!raw.is_empty(), "{body:?}");
    }
}

#[test]
fn fuzz_text_framing_on_an_envelope_format_does_not_depend_on_chunking() {
    let make = || {
        Parser::with_config(
            Format::OpenAiChat,
            ParserConfig::new()
                .framing(Framing::Text)
                .max_line_bytes(64),
        )
    };
    let body = b"\x00\x0e not a text format; some bytes ".repeat(5);
    let ev = assert_split_invariant(&make, &body, 20);
    let raw: String = errors(&ev)
        .iter()
        .map(|e| match e {
            Event::Error { raw, .. } => raw.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(raw.as_bytes(), &body[..], "every byte in an error");
}

#[test]
fn fuzz_serde_json_raw_value_magic_key_in_arguments_is_not_lost() {
    // Found by the json_kernel target: with serde_json's `raw_value` feature (which the
    // envelope decoders need), an object whose key is serde_json's private RawValue token
    // does not parse as a Value although it is valid JSON. Such arguments cannot become a
    // ToolCallEnd; they must still not vanish: an error carries them.
    let args = r#"{"$serde_json::private::RawValue": " -x"}"#;
    let body = cat(&[
        (OPENAI_CHAT.start)(0, "c1", "f", args),
        (OPENAI_CHAT.start)(1, "c2", "g", "{}"),
        (OPENAI_CHAT.end)(),
    ]);
    let ev = run(&OPENAI_CHAT, Limits::default(), &body);
    let bad = errors_of(&ev, ErrorKind::InvalidArguments);
    assert_eq!(bad, vec![(Some(0), bad[0].1.clone(), args.to_owned())]);
    assert_eq!(ends(&ev), vec![(1, "g".into(), json!({}))]);
}

// ---------------------------------------------------------------------------------------
// Fuzz seeds: `TOOLSTREAM_FUZZ_SEEDS=fuzz/corpus cargo test --test reliability
// write_fuzz_seeds -- --ignored` writes seed corpora for the fuzz targets from the recorded
// captures (never copied into the repository) and this file's own fixtures. The header
// bytes follow fuzz/src/lib.rs (`Config::read`, `take_pattern`).
// ---------------------------------------------------------------------------------------

/// Framing selector of the `parser` fuzz target: 0 = the format's default, else 1 + the
/// position in `toolstream_fuzz::FRAMINGS`.
fn framing_code(f: Framing) -> u8 {
    match f {
        Framing::Sse => 1,
        Framing::Ndjson => 2,
        Framing::JsonArray => 3,
        Framing::EventStream => 4,
        _ => 5,
    }
}

#[test]
#[ignore = "writes fuzz seed corpora; run by .ci/fuzz-smoke"]
fn write_fuzz_seeds() {
    let Some(dir) = std::env::var_os("TOOLSTREAM_FUZZ_SEEDS").map(std::path::PathBuf::from) else {
        visible("SKIPPED: set TOOLSTREAM_FUZZ_SEEDS to the corpus directory (.ci/fuzz-smoke does)");
        return;
    };
    let mut n = 0usize;
    let mut write = |target: &str, header: &[u8], body: &[u8]| {
        let d = dir.join(target);
        std::fs::create_dir_all(&d).unwrap();
        let mut bytes = header.to_vec();
        bytes.extend_from_slice(body);
        std::fs::write(d.join(format!("seed-{n:05}")), bytes).unwrap();
        n += 1;
    };
    let formats: Vec<Format> = Format::all().collect();
    // Every capture, for the framer of its framing and (when its format is built) the
    // parser, with default and with small limits, whole and cut every 7 bytes.
    if let Some(cap) = captures_dir() {
        let table: std::collections::BTreeMap<String, Value> =
            serde_json::from_slice(&std::fs::read(cap.join("FORMATS.json")).unwrap()).unwrap();
        for (path, v) in table {
            let bytes = std::fs::read(cap.join(&path)).unwrap();
            let framing: Framing = v["framing"].as_str().unwrap_or("sse").parse().unwrap();
            match framing {
                Framing::Sse => write("framing_sse", &[255, 0], &bytes),
                Framing::Ndjson => write("framing_ndjson", &[255, 0], &bytes),
                Framing::JsonArray => write("framing_json_array", &[255, 0], &bytes),
                Framing::EventStream => write("framing_eventstream", &[254, 0], &bytes),
                _ => {}
            }
            write("utf8", &[1, 3], &bytes[..bytes.len().min(2048)]);
            // The delimiter matcher: the qwen3 and inkling templates, default and tiny limits.
            write("pattern", &[0, 2, 3, 1], &bytes[..bytes.len().min(2048)]);
            write(
                "pattern",
                &[4 | (5 << 3), 1, 7],
                &bytes[..bytes.len().min(2048)],
            );
            let fmt = v["format"].as_str().unwrap_or("");
            if let Some(i) = formats.iter().position(|f| f.name() == fmt) {
                let i = i as u8;
                let fr = framing_code(framing);
                write("parser", &[i, fr, 255, 4, 0], &bytes);
                write("parser", &[i, fr, 0b1010_1010, 3, 1, 7], &bytes);
            }
            // JSON payloads of the captures for the kernel.
            for line in bytes.split(|&b| b == b'\n').take(40) {
                let line = line.strip_prefix(b"data: ").unwrap_or(line);
                if line.first() == Some(&b'{') {
                    write("json_kernel", &[255, 0], line);
                    write("json_kernel", &[3, 1, 5], line);
                }
            }
        }
    }
    // This file's own bad-input fixtures, for every format's parser.
    for body in bad_inputs() {
        for i in 0..formats.len() as u8 {
            write("parser", &[i, 0, 255, 4, 0], &body);
            write("parser", &[i, 0, 0, 0, 1, 1], &body);
        }
        write("framing_sse", &[255, 1, 1], &body);
    }
    eprintln!("wrote {n} seeds to {}", dir.display());
}

/// Fuzz regression (CI fuzz smoke, parser target): a broken pythonic call whose raw text
/// runs past `max_argument_bytes` kept a different part of it depending on the chunking
/// (the limit dropped whole deltas). The limit now cuts at exactly the same byte.
#[test]
fn fuzz_argument_limit_cuts_at_the_same_byte_however_chunked() {
    let body: &[u8] = b"[book_flight(flight={\"flight_number\": \"AA101\", \"d\xff\xff\xff\xffture\": \"New York\", \"arrival\": \"Los Angeles\", \"passengers\": [{\"name\": \"John Doe\", \"email\": \"johndoe@example.com\"}], \"payment\": {\"met=od\": \"credit_card\", \"caqd_number\": \"1234567890123456\"}})]";
    let mut limits = toolstream::Limits::default();
    limits.max_argument_bytes = 256;
    limits.max_held_bytes = 256;
    for format in [toolstream::Format::LlamaPythonic, toolstream::Format::Auto] {
        let make = move || Parser::with_config(format, common::with_limits(limits));
        let whole = common::run_whole(&make, body);
        for n in 1..16 {
            assert_eq!(
                common::run_sized(&make, body, n),
                whole,
                "{format} in {n}-byte pieces"
            );
        }
    }
}

/// Fuzz regression (CI fuzz smoke, parser target, `auto` with tiny limits): a delta with
/// valid argument bytes followed by an invalid one streamed the valid part only when it
/// arrived in a separate chunk. The valid prefix is now streamed either way.
#[test]
fn fuzz_valid_prefix_before_an_invalid_byte_streams_however_chunked() {
    let body: &[u8] =
        b"text <tool_call>{\"name\": \"f\", \"arguments\": {\"order\": {p}}</tool_call> after";
    let make = || common::parser(toolstream::Format::Hermes);
    common::assert_split_invariant(&make, body, 40);
    let body: &[u8] = b"[process_order(order_data={order_id=1, name='x'})] after";
    let mut limits = toolstream::Limits::default();
    limits.max_argument_bytes = 16;
    limits.max_held_bytes = 16;
    limits.max_depth = 1;
    let make = move || Parser::with_config(toolstream::Format::Auto, common::with_limits(limits));
    common::assert_split_invariant(&make, body, 40);
}

/// Fuzz regression (CI fuzz smoke, parser target, `qwen-xml` with 256-byte limits, 7-byte
/// chunks): the raw text kept for a cut-off call dropped a whole piece that did not fit
/// and kept a later, smaller one, so what the error carried depended on the chunking. The
/// kept raw text is now always the longest prefix within the limit.
#[test]
fn fuzz_raw_call_text_kept_for_an_error_is_a_prefix_however_chunked() {
    let mut body = b"Some text.\n<tool_call>\n<function=web_search>\n".to_vec();
    body.extend_from_slice("garbage é ".repeat(40).as_bytes());
    body.extend_from_slice(b"<parameter=query>\nPython 3.14\n</parameter>\n</al");
    let mut limits = toolstream::Limits::default();
    limits.max_argument_bytes = 256;
    limits.max_held_bytes = 256;
    limits.max_calls = 4;
    // `hermes`: `<tool_call>` then `<function=` cannot begin a JSON call, so all of it is
    // text (the recovery rule), whatever the chunking.
    let make = move || Parser::with_config(toolstream::Format::Hermes, common::with_limits(limits));
    let events = common::assert_split_invariant(&make, &body, 40);
    assert_eq!(common::text(&events), String::from_utf8_lossy(&body));
    for format in [toolstream::Format::QwenXml, toolstream::Format::Auto] {
        let make = move || Parser::with_config(format, common::with_limits(limits));
        let events = common::assert_split_invariant(&make, &body, 40);
        let raw: Vec<&str> = errors(&events)
            .iter()
            .map(|e| match e {
                Event::Error { raw, .. } => raw.as_str(),
                _ => "",
            })
            .collect();
        let text = String::from_utf8_lossy(&body);
        assert!(
            !raw.is_empty() && raw.iter().all(|r| r.len() <= 256 && text.contains(r)),
            "{format}: {raw:?}"
        );
    }
    let make =
        move || Parser::with_config(toolstream::Format::QwenXml, common::with_limits(limits));
    let events = common::run_whole(&make, &body);
    let Some(Event::Error { raw, message, .. }) = errors(&events).first().copied() else {
        panic!("no error: {events:?}");
    };
    let text = String::from_utf8_lossy(&body);
    let call = &text[text.find("<tool_call>").unwrap()..];
    assert!(call.starts_with(raw.as_str()), "{raw:?}");
    assert!(raw.len() > 250, "kept {} bytes", raw.len());
    assert!(
        message.contains(&format!("{} more not kept", call.len() - raw.len())),
        "{message}"
    );
}

/// Fuzz regression (parser target, `llama-json`, 256-byte limits, 7-byte chunks): members
/// after a call's arguments had closed were kept for the `trailing_arguments` error only
/// while each piece fit in the limit, so whole input lost them silently and 7-byte
/// pieces reported them. The error now always carries the first bytes up to the limit
/// (from the end of the ended call) and counts the rest.
#[test]
fn fuzz_trailing_members_after_arguments_are_reported_however_chunked() {
    let mut body =
        b"{\"name\": \"perform\", \"parameters\":\"name\": \"perform\", \"parameters\": {\"operat"
            .to_vec();
    body.extend_from_slice(&[0xff; 100]);
    body.extend_from_slice(b" 3}}");
    let mut limits = toolstream::Limits::default();
    limits.max_argument_bytes = 256;
    limits.max_held_bytes = 256;
    for format in [toolstream::Format::LlamaJson, toolstream::Format::Auto] {
        let make = move || Parser::with_config(format, common::with_limits(limits));
        let events = common::assert_split_invariant(&make, &body, 40);
        let trailing: Vec<_> = errors_of(&events, ErrorKind::TrailingArguments);
        assert_eq!(trailing.len(), 1, "{format}: {events:?}");
        let (_, message, raw) = &trailing[0];
        // The call's bytes after its ended part (issue 33: an index-less error never
        // repeats what the ended call delivered), the members after the arguments.
        assert!(
            raw.starts_with(": \"perform\", \"parameters\": {\"operat"),
            "{format}: {raw:?}"
        );
        assert!(raw.len() <= 256, "{format}: {}", raw.len());
        assert!(message.contains("more not kept"), "{message}");
    }
}

/// Fuzz regression (parser target, `qwen-xml`, 256-byte limits, 7-byte chunks): text
/// inside a function but outside its parameters was kept for its error only while each
/// piece fit in the limit, so whole input dropped it silently. The error now carries the
/// first bytes up to the limit and counts the rest.
#[test]
fn fuzz_stray_text_in_a_function_is_reported_however_chunked() {
    let mut body =
        b"Text.\n<tool_call>\n<function=web_search>\n<paramet\x81er=query>\nPython ".to_vec();
    body.extend_from_slice(
        b"\"tool_choice\":\"auto\",\"tools\":[{\"description\":null} "
            .repeat(6)
            .as_slice(),
    );
    body.extend_from_slice(b"\n</p\xff\xffzeter>\n</function>\n</tool_call>");
    let mut limits = toolstream::Limits::default();
    limits.max_argument_bytes = 256;
    limits.max_held_bytes = 256;
    let make =
        move || Parser::with_config(toolstream::Format::QwenXml, common::with_limits(limits));
    let events = common::assert_split_invariant(&make, &body, 40);
    let stray = errors_of(&events, ErrorKind::UnexpectedPayload);
    assert_eq!(stray.len(), 1, "{events:?}");
    let (index, message, raw) = &stray[0];
    assert_eq!(*index, None);
    assert!(raw.starts_with("<paramet\u{fffd}er=query>"), "{raw:?}");
    assert!(raw.len() <= 256, "{}", raw.len());
    assert!(message.contains("more not kept"), "{message}");
}

/// The same rule for DeepSeek: text after a call's arguments (before its end token) is
/// kept up to a bound for its error, the same bytes however the text is chunked.
#[test]
fn deepseek_text_after_arguments_is_kept_the_same_however_chunked() {
    let mut body = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1} "
        .as_bytes()
        .to_vec();
    body.extend_from_slice("junk é ".repeat(700).as_bytes());
    body.extend_from_slice("<｜tool▁call▁end｜><｜tool▁calls▁end｜> after".as_bytes());
    let make = || common::parser(toolstream::Format::DeepSeek);
    let events = common::assert_split_invariant(&make, &body, 20);
    let stray = errors_of(&events, ErrorKind::TrailingArguments);
    assert_eq!(stray.len(), 1, "{events:?}");
    let (_, message, raw) = &stray[0];
    assert!(raw.starts_with("junk é"), "{raw:?}");
    assert!(message.contains("more not kept"), "{message}");
}

/// And for harmony: text after a call's arguments, before `<|call|>`.
#[test]
fn harmony_text_after_arguments_is_kept_the_same_however_chunked() {
    let mut body =
        b"<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1} ".to_vec();
    body.extend_from_slice("junk é ".repeat(700).as_bytes());
    body.extend_from_slice(b"<|call|>");
    let make = || common::parser(toolstream::Format::Harmony);
    let events = common::assert_split_invariant(&make, &body, 20);
    let stray = errors_of(&events, ErrorKind::TrailingArguments);
    assert_eq!(stray.len(), 1, "{events:?}");
    let (_, message, raw) = &stray[0];
    assert!(raw.starts_with("junk é"), "{raw:?}");
    assert!(message.contains("not kept"), "{message}");
}

/// Fuzz regression (parser target, `harmony`, 16-byte limits): a message header was held
/// up to a fixed 4 KiB whatever `max_held_bytes` said (1,275 bytes retained under a
/// 624-byte bound). The header is now bounded by `max_held_bytes` too, cut at exactly
/// that byte however the text arrives; the header's bytes go with its error and the
/// rest is text.
#[test]
fn fuzz_harmony_header_is_bounded_by_max_held_bytes() {
    let mut body = b"<|channel|>commentary \"}, \"type\": ".to_vec();
    body.extend_from_slice("\"function\"é, ".repeat(60).as_bytes());
    body.extend_from_slice(b"<|start|>assistant<|channel|>final<|message|>done");
    let mut limits = toolstream::Limits::default();
    limits.max_held_bytes = 40;
    limits.max_argument_bytes = 16;
    let make =
        move || Parser::with_config(toolstream::Format::Harmony, common::with_limits(limits));
    let events = common::assert_split_invariant(&make, &body, 40);
    assert_eq!(
        errors_of(&events, ErrorKind::LimitExceeded).len(),
        1,
        "{events:?}"
    );
    assert!(common::text(&events).ends_with("done"), "{events:?}");
    let mut p = make();
    let mut out = Vec::new();
    for b in body.chunks(1) {
        p.feed(b, &mut out).unwrap();
        assert!(p.retained_bytes() <= 40 * 3 + 64, "{}", p.retained_bytes());
    }
}

/// Fuzz regression (parser target, `harmony` reached through `auto`, 256-byte limits):
/// a header whose recipient is settled within `max_held_bytes` but which runs past it
/// started its call when the header arrived in pieces (each piece, within the bound, was
/// read for a recipient) and not when the text crossing the bound came in one piece (the
/// kept bytes went to the error without being read). The kept bytes are now read like
/// any others, so the call starts (and the error is its own) however the header is cut.
#[test]
fn fuzz_harmony_recipient_in_an_overlong_header_starts_however_chunked() {
    /// Cuts `body` into chunks whose lengths cycle through `pattern`, as the fuzz target
    /// does (`toolstream_fuzz::chunks`).
    fn cycled<'a>(pattern: &[u8], mut body: &'a [u8]) -> Vec<&'a [u8]> {
        let mut out = Vec::new();
        for &n in pattern.iter().cycle() {
            if body.is_empty() {
                break;
            }
            let (a, b) = body.split_at(usize::from(n).min(body.len()));
            out.push(a);
            body = b;
        }
        out
    }
    let starts = |ev: &[Event]| -> Vec<String> {
        ev.iter()
            .filter_map(|e| match e {
                Event::ToolCallStart { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect()
    };

    // Small cases, 32-byte bound on the header's text (`<|start|>` not counted).
    let mut limits = Limits::default();
    limits.max_held_bytes = 32;
    let pad = "x".repeat(40);
    for (header, want) in [
        // Settled by the space well within the bound.
        ("assistant to=functions.f ", Some("f")),
        // By the bound's very last byte.
        ("assistant to=functions.abcdefgh ", Some("abcdefgh")),
        // By the byte just past it: never settled, no call.
        ("assistant to=functions.abcdefghi ", None),
        // The fuzz inputs' shape: junk after `to=`, settled later by a tab: a recipient
        // that names no tool (quotes, control characters), so no call.
        ("*\u{e4}ge to=\"a\"\u{1}\0\"e\"\t", None),
    ] {
        let body = format!("<|start|>{header}{pad}<|end|>after");
        for format in [Format::Harmony, Format::Auto] {
            let make = move || Parser::with_config(format, common::with_limits(limits));
            let ev = assert_split_invariant(&make, body.as_bytes(), 40);
            let over = errors_of(&ev, ErrorKind::LimitExceeded);
            assert_eq!(over.len(), 1, "{format:?} {header:?}: {ev:?}");
            match want {
                Some(name) => {
                    assert_eq!(starts(&ev), vec![name.to_owned()], "{format:?} {header:?}");
                    assert_eq!(over[0].0, Some(0), "the error closes the call: {ev:?}");
                }
                None => {
                    assert!(starts(&ev).is_empty(), "{format:?} {header:?}: {ev:?}");
                    assert_eq!(over[0].0, None, "{ev:?}");
                }
            }
            assert!(ends(&ev).is_empty(), "{ev:?}");
            assert!(common::text(&ev).ends_with("after"), "{ev:?}");
            for n in [7, 25, 41] {
                assert_eq!(run_sized(&make, body.as_bytes(), n), ev, "{n}-byte chunks");
            }
        }
    }

    // The eight fuzz inputs (format byte re-mapped to `auto`; limits from header byte
    // 0xaa: lines 1024, arguments 256, 4 calls, 256 held), with the chunking that failed.
    let cases: [(&[u8], &[u8]); 8] = [
        // crash-1310e4088197
        (
            &[244, 210, 12, 12, 12],
            b"z\x0c\x13\x8a\x00\x8c\x0c\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\xfa\x1c\x0c\xfa<|start|>\x0c*\xe4/iyyyyyyyy\x80yy\x00\xff\
              \xff\xff\xff]FF\x00\x0a[\x01\x00\x00\x00:gerokt{_=\x22e\x22>to=\x22a\x22>\x0c\x01\
              \x00\x007\x0cz86\xc6\xc6\xc6{{{\x0c\x13\x8a\x00\x8c\x0c\x00\x00\x00\xfa\x1c\x0c\xfa<\
              \xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\
              \xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff|start|>\x0c*\
              \xe4gerokt{_=\x22a\x22>to\x1f\x00\x00\x00\x00\x00\x00\x00\x008\x0cz86\xc6\xc6\xc6{{{\
              \xaa",
        ),
        // crash-3a857e31c8a8
        (
            &[67],
            b"ALL_P\x0c\x8c\xf4\xd2\x0c\x0c\x0cz\x0c\x13\x8a\x00\x8c\x0c\x00\x00??????????????????\
              ????????????????????#???????????????????????????????????????????????????????????????\
              ????????????\x00\xfa\x1c\x0c\xfa<|start|>\x0c*\xe4ge_rk{to=ba\x22>to=\x22a\x22\xff\
              \xff\xff\x00\x00\x00\x00\x00\xef8GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG\x0d(\xff\xffca\
              \x0d\x0d[\x0d\x0d\x0d\x0d\x0d\x0d\x0dGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG\x0dGGGGGGGGGG\
              GGGGGGG\x06\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff>\x0c\x01\x00\x000\x0cz86\xc6\
              \xc6\xc6{{[ARGS][TOOLTOOL_CALLS]g_ke[T[ARGS][TOOL_CA////////////////////////////////\
              ////_ke_key>city</arg_key>\x0a<er\x0a<dr\x13r{",
        ),
        // crash-5fade3469eb4
        (
            &[244, 210, 12, 12, 12],
            b"z\x0c\x13\x8a\x00\x8c\x0c\x00\x00\x00\xfa\x1c\x0c\xfa<|start|>\x0c*\xe4ge_rk{to=\x22\
              a\x22>to=\x22a\x22\xff\xff\xff\xff\x01\x00\x00\x22e\x22\x09\x09\x09\x09\xaa\xd5\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\
              \xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff+\xff\xff\xff\xff\xff\xff>\x0c\x01\x00\
              \x005\x0cz86\xc6\xc6\xc6{{{\xaa",
        ),
        // crash-61bd220712e4
        (
            &[255, 91, 84, 79, 79, 255],
            b"\xff\xff\xff\xff888]LOL_C<s[\xff\xff\xff\xff\xff\xff\xff=\x8c\x9d\x0c\x0cz\x0c\x13\
              \x8a\x00\x8c\x0c\x00\x00\x00\xfa\x1c\x0c\xfa<|start|>\x0c*\xe4ge_rk{to=\x22a\x22>to=\
              ]hhh\x22a\x22\xff\xff\xff\xff\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00<|u>\x22014ca>\xff\xff\xff\xff\xff\xffTOOL_C|s[TO.\
              \x5c_CALL]Sml_ca>[\x88OO666666666666666666666666666666666666\xda\xda\xda\xda\xda\xda\
              \xda\xda\xda\xda\xda\xda\xda6666666666666666</\xef\xbd\x9c666666666666m[TO(\x5c_C]\
              \x0c\x0c\x0c\x0c\x0c\x20\x0c\x0c\x0c\x0c\x0c@\x0c\x0c\xff\xff\xff\xff\xff\x00\x0a\
              \x0c\x0c\x0c\x0c\x0c\x20\x0c\x0c7>[[],[],]\x09\x00D\x00\x0a\xef\xbf\xbd\xef\xbf\xbd\
              \x0a\x0a\x03\xaa[[<\xefam\x9c<s[\xff\xff\xff\xff\xff\xff\xff=\x8c\x9due@>\x22014ca>\
              \xff\xff\xff\xff\xff\xffTOOL_C[[<s[[;T_C",
        ),
        // crash-cc7bb5e42757
        (
            &[67],
            b"ALL_\x00\x0c\x8c\xf4\xd2\x0c\x0c\x0cz\x0c\x13\x8a\x00\x8c\x09\x00\x00\x00\x00\x00\
              \x00\x80\x0c\x00\x00\x00\xfa\x1c\x0c\xfa<|start|>\x0c*1g\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00e_rk{to=\
              \x22a\x22>to=\x22a\x22\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x06\xff\xff\xff\xff\
              \xff\xff\xff\xff\xff\xffALL_\x00\x0c\x8c\xf4\xd2\x0c\x0c\x0cz\x0c\x13\x8a\x00\x8c\
              \x09\x00\x00\x00\x00\x00\x00\x80\x0c\x00\x00\x00</ss\xef\xbf\xbdeert|>\x0c*\xe4ge_rk\
              {to=\x22a\x22>to=\x22a\x22\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x06\xff\xff\xff\
              \xff\xff\xff\xff\xff\xff\xff\xff>\x0c\x01\x00\x000\x0cz86\xc6\xc6\xc6{\xff>\x0c\x01\
              \x00\x000\x0cz86\xc6\xc6\xc6{{{\xaa",
        ),
        // crash-dd1346db8980
        (
            &[67],
            b"ALL_P\x0c\x8c\xf4\xd2\x0c\x0c\x0cz\x0c\x13\x8a\x00\x8c\x0c\x00\x00??????????????????\
              ?????????????????????????????????????????????????????????????????????1\xfa\x1c\x0c\
              \xfa<|start|>\x0c\x0a\xe4ge_rk{to=\x22a\x22>to=\x22a\x22\xff\xff\xff\x00\x00\x00\x00\
              \x00\x00\x00GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG\x0d(\xff\xffca\x0d\x0d[\x0d\x0d\x0d\
              \x0d\x0d\x0d\x0dGGGGGGGGGGGGGGGGGGGGGGGGG\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\
              \xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffGGGGGGGG\x0dGGGGGGGGGGGGGGGGG\x06\xff\
              \xff\xff\xff\xff\xff\xff\xff\xff\xff\xff>\x0c\x01\x00\x000\x0cz86\xc6\xc6\xc6{{\x13r\
              {",
        ),
        // crash-e8ec178db430
        (
            &[244, 210, 12, 85, 12],
            b"\x0cz\x0c\x13\x8a\x00\x8c\x0c\x00\x00\x00\xfa\x1c\x0c\xfa<|start|>\x0c*\xe4ge_rk{to=\
              \x22a\x22>t!o</seed:tool=\x22a\x22\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfb\xff\xff\
              \xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfa<|st\
              art|>\x0c*\xe4ge_rk{to=\x22a\x22>to=\x22a\x22\xff\xff\xff\xff\xff\xff88O</tool_c\x10\
              .8j],too\x0d\x0d\x0d\x0d\x0d\x0d0\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\
              \x09\x09\x09\x09\x09\xa9\xaaN\xff\xff\xff\xaa\xaa\xaa\xaa\xaa\x0a\x0d\x0d\x0d\x0d\
              \x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x09:\x09\x09\x09\x0d\x0d\x0d\x0d\
              \x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x09\x09\x09\x09\x09\xa9\xaa\xaa\xaa\xaa\
              \xaa\xaa\x0a\x0d\x0d\x0d\x0d\x0d&\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x0d\x09:\x09\
              \x09\x09\x0d\x0d\xca\xe6GFF\x00}\x0a\x0aVFF[G\x00{\x22<seed:k\x22\x14:<R\xea\x03\x00\
              \x00\x00\x00\xff\x00\x06FF\x00\x0aV\xff\xff\x0a\xff\x22\xff{[s<eed:</to<R\xea\x03\
              \x00\x00\x00\x00\x00\x00l_c0.8j\x00\x00\x00\x00\x00\x00\xfc\xa6[\xfdE\x03R\x00888\
              \xff\xff\xff\xfb\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\
              \xff\xff\xff\xff\xff\xff\xff\xff\xff{{{\xaa",
        ),
        // crash-f7add2ed496c
        (
            &[244, 210, 12, 12, 19],
            b"\x0d\x8az\x0c\x00\x8c\x0c\x0a\x00\x00\xfa\x1c\x0c\xfa<|start|>\x0c*\xe4gerokt{_=\x22\
              a\x22>to=\x22a\x22>\x0c\x01;\x00\x008\x0cz86\xc6\xc6\xc6{{{\x0c\x13\x8a\x08\x8c\x0c\
              \x00\x00\x00\xfa\x1c\x0c\xfa<|start|>\x0c*\xe4\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\
              \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00gerokt{_=\x22a\x22>to=\x22a\x22>\x0c\x01\
              \x00\x008\x0cz86\xc6\xc6\xc6{{{\xaa\x0c\x8c\xf4\xd2\x0c\x0c\x13\x0d\x8az\x0c\x00\x8c\
              \x0c\x0a\x00\x00\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\
              \xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\
              \xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\
              \xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\
              \xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\
              \xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfb\xfa\x1c\x0c\xfa<|start|>\x0c*\xe4gerokt{_=\
              \x22a\x22>to=\x22a\x22>\x0c\x01;\x00\x008\x0cz86\xc6\xc6\xc6{{{\x0c\x13\x8a\x08\x8c\
              \x0c\x00\x00\x00\xfa\x1c\x0c\xfa<|start|",
        ),
    ];
    let mut limits = Limits::default();
    limits.max_line_bytes = 1024;
    limits.max_argument_bytes = 256;
    limits.max_calls = 4;
    limits.max_held_bytes = 256;
    limits.max_depth = 4;
    for (i, (pattern, body)) in cases.into_iter().enumerate() {
        for format in [Format::Auto, Format::Harmony] {
            let make = move || Parser::with_config(format, common::with_limits(limits));
            let ev = assert_split_invariant(&make, body, 10);
            assert_eq!(
                run_chunks(&make, &cycled(pattern, body)),
                ev,
                "case {i}, {format:?}: the fuzz chunking differs from whole"
            );
            // Every recipient here is quoted junk (`to="a"..`): it names no tool, so no
            // call starts, and the overlong header's error has no index.
            assert!(starts(&ev).is_empty(), "case {i}, {format:?}: {ev:?}");
            let over = errors_of(&ev, ErrorKind::LimitExceeded);
            assert_eq!(over.len(), 1, "case {i}, {format:?}: {ev:?}");
            assert_eq!(over[0].0, None, "case {i}, {format:?}: {ev:?}");
        }
    }
}

#[test]
fn fuzz_mistral_overlong_name_ends_where_its_text_does() {
    // Fuzz finding: a v11 name over 256 bytes broke the call at the end of the chunk
    // that crossed the bound (so a following `"` was text when cut there, part of the
    // call when fed whole). The call now ends where its text does, however chunked.
    let mut limits = toolstream::Limits::default();
    limits.max_argument_bytes = 256;
    let make =
        move || Parser::with_config(toolstream::Format::Mistral, common::with_limits(limits));
    let mut body = b"[TOOL_CALLS]".to_vec();
    body.extend_from_slice(&[b']'; 270]);
    body.extend_from_slice(b"s\" after");
    let events = common::assert_split_invariant(&make, &body, 20);
    let errs = errors_of(&events, ErrorKind::MissingName);
    assert_eq!(errs.len(), 1, "{events:?}");
    assert!(
        errs[0].1.contains("256 bytes are kept, 28 more"),
        "{errs:?}"
    );
    assert_eq!(common::text(&events), " after");

    // An overlong name that does reach `[ARGS]`: its value is read and reported with it,
    // nothing of the call comes out as text or as a call.
    let mut body = b"[TOOL_CALLS]".to_vec();
    body.extend_from_slice(&[b'n'; 300]);
    body.extend_from_slice(b"[ARGS]{\"a\": [1, \"]\"]} after");
    let make = || common::parser(toolstream::Format::Mistral);
    let events = common::assert_split_invariant(&make, &body, 20);
    let errs = errors_of(&events, ErrorKind::MissingName);
    assert_eq!(errs.len(), 1, "{events:?}");
    assert!(errs[0].2.ends_with("[ARGS]{\"a\": [1, \"]\"]}"), "{errs:?}");
    assert_eq!(errs[0].2.len(), body.len() - " after".len());
    assert_eq!(common::text(&events), " after");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::ToolCallStart { .. })),
        "{events:?}"
    );
}

#[test]
fn fuzz_qwen_xml_long_json_like_value_is_a_string_however_chunked() {
    // Fuzz finding: a parameter value that starts like JSON (`{`) and grows past
    // max_argument_bytes became a string only when a later piece crossed the limit; fed
    // in one piece it stayed held as JSON. Now the limit applies to every piece.
    let mut limits = toolstream::Limits::default();
    limits.max_argument_bytes = 256;
    let make =
        move || Parser::with_config(toolstream::Format::QwenXml, common::with_limits(limits));
    let long = "G".repeat(300);
    let spaces = " ".repeat(300);
    for value in [
        format!("{{\"k\": \"{long}\"}}"),
        format!("[1, 2, {long}"),
        format!("{spaces}{{}}"),
        spaces.clone(),
    ] {
        let body = format!(
            "<tool_call>\n<function=h>\n<parameter=p>\n{value}\n</parameter>\n</function>\n</tool_call>"
        );
        let events = common::assert_split_invariant(&make, body.as_bytes(), 20);
        // Typed as a string (the call then exceeds the same limit).
        assert!(
            args_of(&events, 0).starts_with("{\"p\":\""),
            "{value:?}: {events:?}"
        );
        assert_eq!(
            errors_of(&events, ErrorKind::LimitExceeded).len(),
            1,
            "{events:?}"
        );
    }
    // Cut off inside such a value: the same error whole or in pieces.
    let body = format!("<function=h><parameter=>{{\"i{long}\":");
    let events = common::assert_split_invariant(&make, body.as_bytes(), 20);
    assert_eq!(
        errors_of(&events, ErrorKind::Truncated).len(),
        1,
        "{events:?}"
    );
}

#[test]
fn fuzz_long_names_and_keys_fed_whole_stay_bounded() {
    // Fuzz finding (qwen-xml, 16-byte limits): a function name arriving in one piece was
    // copied whole before its length was checked (733 bytes retained under a 624-byte
    // bound). The same held for deepseek names and hermes object keys. (A deepseek name
    // that broke with its newline in the same piece also lost that newline.)
    let long = "n".repeat(20_000);
    let cases: [(Format, &str, &str); 4] = [
        (
            Format::QwenXml,
            "<tool_call>\n<function=",
            ">\n</function>\n</tool_call> after",
        ),
        (
            Format::QwenXml,
            "<function=f>\n<parameter=",
            ">\n1\n</parameter>\n</function> after",
        ),
        (
            Format::DeepSeek,
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>",
            "\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜> after",
        ),
        (
            Format::Hermes,
            "<tool_call>{\"",
            "\": 1, \"name\": \"f\", \"arguments\": {}}</tool_call> after",
        ),
    ];
    let mut limits = toolstream::Limits::default();
    limits.max_argument_bytes = 1024;
    for (format, head, tail) in cases {
        let make = move || Parser::with_config(format, common::with_limits(limits));
        let mut p = make();
        let mut out = Vec::new();
        p.feed(format!("{head}{long}").as_bytes(), &mut out)
            .unwrap();
        // The call's raw text (1024 bytes kept for its error) and a name-sized constant.
        assert!(
            p.retained_bytes() <= 1024 + 512,
            "{format:?}: {} bytes retained",
            p.retained_bytes()
        );
        let body = format!("{head}{long}{tail}");
        let events = common::assert_split_invariant(&make, body.as_bytes(), 5);
        assert!(
            common::text(&events).ends_with(" after"),
            "{format:?}: {events:?}"
        );
    }
}

#[test]
fn fuzz_whitespace_run_longer_than_the_hold_is_text_however_chunked() {
    // Fuzz finding (mistral, max_held_bytes 16): 18 newlines before `[TOOL_CALLS]` gave
    // 18 newlines of text fed whole but 17 fed byte by byte (the held run was released
    // at 17 bytes, then the 18th dropped before the marker). Whitespace before a call
    // marker is now text, all of it, whatever its length (the recovery rule).
    let mut limits = toolstream::Limits::default();
    limits.max_held_bytes = 16;
    for (format, marker) in [
        (Format::Mistral, "[TOOL_CALLS]"),
        (Format::Hermes, "<tool_call>"),
        (Format::QwenXml, "<tool_call>"),
    ] {
        let make = move || Parser::with_config(format, common::with_limits(limits));
        for (ws, kept) in [
            ("\n".repeat(18), true),
            (" \n".repeat(9), true),
            ("\n".repeat(16), true),
        ] {
            for before in ["", "text"] {
                let body = format!("{before}{ws}{marker}");
                let events = common::assert_split_invariant(&make, body.as_bytes(), 20);
                let want = if kept {
                    format!("{before}{ws}")
                } else {
                    before.to_owned()
                };
                assert_eq!(common::text(&events), want, "{format:?} {body:?}");
            }
        }
    }
}

#[test]
fn fuzz_call_object_breaks_at_the_byte_past_a_bound() {
    // Fuzz finding (auto → mistral, 16-byte limits): a call object's string field (`id`)
    // or arguments held before the name, past their bound, broke the call at the start
    // of the piece that crossed it, so the text after the break depended on the
    // chunking. The call now breaks at the first character past the bound.
    let mut limits = toolstream::Limits::default();
    limits.max_held_bytes = 16;
    limits.max_argument_bytes = 16;
    for format in [Format::Mistral, Format::Hermes, Format::Auto] {
        let make = move || Parser::with_config(format, common::with_limits(limits));
        for body in [
            "[TOOL_CALLS]{\"\":{\"\":\"\",\"\":\"\"},\"id\":\"\0\0\u{fffd}MU\u{fffd}é after",
            "[TOOL_CALLS]{\"id\": \"0123456789abcdefghijé\", \"name\": \"f\"} after",
            "[TOOL_CALLS]{\"arguments\": {\"a\": \"0123456789abcdefé\"}, \"name\": \"f\"} after",
            "[TOOL_CALLS]{\"arguments\": [1, 2, 3, 4, 5, 6, 7, 8, 9], \"name\": \"f\"} after",
            "<tool_call>{\"arguments\": {\"a\": \"0123456789abcdefé\"}, \"name\": \"f\"}</tool_call> after",
        ] {
            let events = common::assert_split_invariant(&make, body.as_bytes(), 20);
            let foreign = match format {
                Format::Mistral => body.starts_with('<'),
                Format::Hermes => body.starts_with('['),
                _ => false,
            };
            assert_eq!(
                errors(&events).is_empty(),
                foreign,
                "{format:?} {body:?}: {events:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Truncation at every event boundary of every capture.
// ---------------------------------------------------------------------------------------

/// The provider formats of the captures, each with a test of its own terminal event.
const PROVIDER_FORMATS: [&str; 8] = [
    "openai-chat",
    "anthropic",
    "openai-responses",
    "gemini",
    "bedrock",
    "cohere",
    "ollama",
    "llama-stack",
];

/// Byte offsets just after each complete framed message of `bytes` (a blank line ends an
/// SSE event; a non-blank line an NDJSON one; a closed top-level element a JSON array's;
/// the prelude's total length an event-stream message).
fn message_ends(bytes: &[u8], framing: Framing) -> Vec<usize> {
    let mut ends = Vec::new();
    match framing {
        Framing::Sse | Framing::Ndjson => {
            let mut start = 0;
            let mut blank_ends_event = false;
            for (i, &b) in bytes.iter().enumerate() {
                if b != b'\n' {
                    continue;
                }
                let line = bytes[start..i].trim_ascii();
                match framing {
                    Framing::Sse if line.is_empty() && blank_ends_event => {
                        ends.push(i + 1);
                        blank_ends_event = false;
                    }
                    Framing::Sse => blank_ends_event |= !line.is_empty(),
                    _ if !line.is_empty() => ends.push(i + 1),
                    _ => {}
                }
                start = i + 1;
            }
        }
        Framing::JsonArray => {
            let (mut depth, mut in_str, mut esc) = (0u32, false, false);
            for (i, &b) in bytes.iter().enumerate() {
                if in_str {
                    match (esc, b) {
                        (true, _) => esc = false,
                        (false, b'\\') => esc = true,
                        (false, b'"') => in_str = false,
                        _ => {}
                    }
                    continue;
                }
                match b {
                    b'"' => in_str = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 1 {
                            ends.push(i + 1);
                        }
                    }
                    _ => {}
                }
            }
        }
        Framing::EventStream => {
            let mut at = 0;
            while let Some(len) = bytes.get(at..at + 4) {
                at += u32::from_be_bytes(len.try_into().unwrap()) as usize;
                ends.push(at.min(bytes.len()));
            }
        }
        other => panic!("no message boundaries for {other:?}"),
    }
    ends
}

/// The oracle: whether `prefix` holds its format's terminal event (or a provider error,
/// which ends a stream too), found by a plain byte search.
fn holds_terminal(format: &str, prefix: &[u8]) -> bool {
    let has = |needle: &str| prefix.windows(needle.len()).any(|w| w == needle.as_bytes());
    let compact: Vec<u8> = prefix.iter().copied().filter(|b| *b != b' ').collect();
    let has_compact = |needle: &str| {
        compact
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
    };
    if has_compact("\"error\":{") {
        return true;
    }
    match format {
        "openai-chat" => has_compact("\"finish_reason\":\"") || has("[DONE]"),
        "anthropic" => has("\"message_stop\""),
        "openai-responses" => {
            has("\"response.completed\"")
                || has("\"response.incomplete\"")
                || has("\"response.failed\"")
        }
        "gemini" => has("\"finishReason\""),
        "bedrock" => has("messageStop"),
        "cohere" => has("\"message-end\""),
        "ollama" => has_compact("\"done\":true"),
        "llama-stack" => has_compact("\"event_type\":\"complete\""),
        other => panic!("no terminal event for {other}"),
    }
}

/// Events with every `Finish`'s usage taken out (usage may arrive after the terminal
/// event: Bedrock's `metadata`, OpenAI's usage chunk).
fn without_usage(events: &[Event]) -> Vec<Event> {
    events
        .iter()
        .map(|e| match e {
            Event::Finish { reason, .. } => Event::Finish {
                reason: reason.clone(),
                usage: None,
            },
            e => e.clone(),
        })
        .collect()
}

#[test]
fn every_capture_cut_at_every_message_boundary_is_complete_or_truncated() {
    let (mut cuts, mut truncated, mut complete) = (0, 0, 0);
    for format in PROVIDER_FORMATS {
        let caps = captures(format);
        for cap in &caps {
            let make = maker(&cap.format, cap.framing);
            let whole = run_whole(&make, &cap.bytes);
            // A whole capture is complete, unless its recording holds no terminal event
            // (two TGI recordings: no finish chunk, and `[DONE]` not kept).
            let whole_cut = whole.iter().any(|e| {
                matches!(
                    e,
                    Event::Error {
                        kind: ErrorKind::Truncated,
                        ..
                    }
                )
            });
            assert_eq!(
                whole_cut,
                !holds_terminal(format, &cap.bytes),
                "{}: {whole:?}",
                cap.path
            );
            if whole_cut {
                assert!(cap.path.starts_with("tgi/"), "{}", cap.path);
            }
            let ends = message_ends(&cap.bytes, cap.framing);
            assert!(!ends.is_empty(), "{}: {ends:?}", cap.path);
            for &end in ends.iter().filter(|&&e| e < cap.bytes.len()) {
                let prefix = &cap.bytes[..end];
                let got = run_whole(&make, prefix);
                let stream_cut = got.iter().filter(|e| {
                    matches!(
                        e,
                        Event::Error {
                            kind: ErrorKind::Truncated,
                            index: None,
                            ..
                        }
                    )
                });
                let call_cut = got.iter().any(|e| {
                    matches!(
                        e,
                        Event::Error {
                            kind: ErrorKind::Truncated,
                            index: Some(_),
                            ..
                        }
                    )
                });
                let what = format!("{} cut at {end} of {}: {got:?}", cap.path, cap.bytes.len());
                cuts += 1;
                if holds_terminal(format, prefix) {
                    complete += 1;
                    // What the whole stream says, but for usage sent after the end.
                    assert_eq!(stream_cut.count(), 0, "{what}");
                    assert!(!call_cut, "{what}");
                    assert_eq!(without_usage(&got), without_usage(&whole), "{what}");
                } else if got.is_empty()
                    || matches!(
                        got.as_slice(),
                        [Event::Error {
                            kind: ErrorKind::UnrecognizedInput,
                            ..
                        }]
                    )
                {
                    // Cut before anything of the response: no event, or only the error
                    // saying no event came ("...or was the stream cut off before its
                    // content?"); nothing that looks complete either way.
                } else {
                    truncated += 1;
                    // Nothing looks complete: no Finish, and the stream's cut is reported
                    // (once, or by the open call's own error), as the last events.
                    assert!(
                        !got.iter().any(|e| matches!(e, Event::Finish { .. })),
                        "{what}"
                    );
                    let stream_cuts = stream_cut.count();
                    assert!(stream_cuts + usize::from(call_cut) == 1, "{what}");
                    assert!(
                        matches!(
                            got.last(),
                            Some(Event::Error {
                                kind: ErrorKind::Truncated,
                                ..
                            })
                        ),
                        "{what}"
                    );
                }
            }
        }
    }
    if captures_dir().is_some() {
        eprintln!("{cuts} cuts: {complete} complete, {truncated} truncated");
        assert!(
            complete > 50 && truncated > 1000,
            "{cuts} {complete} {truncated}"
        );
    }
}

#[test]
fn finish_reason_is_stop_when_every_call_was_rejected_as_undeclared() {
    // Every provider capture that made calls, read with declared tools none of its calls
    // use: every call is rejected, so the Finish that said `tool_calls` says `stop`.
    let none = || {
        toolstream::Tools::from_json(
            r#"[{"type": "function", "function": {"name": "never_called", "parameters": {}}}]"#,
        )
        .unwrap()
    };
    let mut checked = 0;
    for format in PROVIDER_FORMATS {
        for cap in captures(format) {
            let make = maker(&cap.format, cap.framing);
            let whole = run_whole(&make, &cap.bytes);
            let said = whole.iter().find_map(|e| match e {
                Event::Finish { reason, .. } => Some(reason.clone()),
                _ => None,
            });
            if said != Some(Some(toolstream::FinishReason::ToolCalls)) {
                continue;
            }
            let format: Format = cap.format.parse().unwrap();
            let with = |tools: toolstream::Tools| {
                let config = ParserConfig::new().framing(cap.framing).tools(tools);
                move || Parser::with_config(format, config.clone())
            };
            let declared = run_whole(&with(none()), &cap.bytes);
            assert!(
                !declared
                    .iter()
                    .any(|e| matches!(e, Event::ToolCallStart { .. })),
                "{}",
                cap.path
            );
            // `stop`; or no reason where the provider sent none (OpenRouter's Kimi: its
            // `tool_calls` came only from the calls made).
            let reason = finish(&declared).0;
            assert!(
                reason == Some(toolstream::FinishReason::Stop)
                    || (reason.is_none() && cap.path.contains("no-finish-reason")),
                "{}: {reason:?}",
                cap.path
            );
            // Declaring the tools it called (each once: a name declared twice is an error)
            // keeps `tool_calls`.
            let mut names: Vec<String> = calls(&whole).into_iter().map(|c| c.name).collect();
            names.sort();
            names.dedup();
            let tools =
                serde_json::json!(names
                .iter()
                .map(|n| json!({"type": "function", "function": {"name": n, "parameters": {}}}))
                .collect::<Vec<_>>());
            let all = toolstream::Tools::from_json(&tools.to_string()).unwrap();
            let kept = run_whole(&with(all), &cap.bytes);
            assert_eq!(
                finish(&kept).0,
                Some(toolstream::FinishReason::ToolCalls),
                "{}",
                cap.path
            );
            checked += 1;
        }
    }
    if captures_dir().is_some() {
        assert!(checked > 80, "{checked}");
    }
}

#[test]
fn usage_adds_up_in_every_capture_and_in_its_openai_re_emission() {
    // Reasoning counted in the output, cached input in the input: input + output = total
    // wherever all three are known, and the OpenAI re-emission says the same, with the
    // reasoning and cached counts in its `*_details`.
    let (mut checked, mut reasoning, mut cached) = (0, 0, 0);
    for format in PROVIDER_FORMATS {
        for cap in captures(format) {
            let events = run_whole(&maker(&cap.format, cap.framing), &cap.bytes);
            let Some(u) = events.iter().find_map(|e| match e {
                Event::Finish { usage: Some(u), .. } => Some(u.clone()),
                _ => None,
            }) else {
                continue;
            };
            let (Some(i), Some(o), Some(t)) = (u.input_tokens, u.output_tokens, u.total_tokens)
            else {
                continue;
            };
            assert_eq!(i + o, t, "{}: {u:?}", cap.path);
            assert!(
                u.reasoning_tokens.is_none_or(|r| r <= o),
                "{}: {u:?}",
                cap.path
            );
            assert!(
                u.cached_input_tokens.is_none_or(|c| c <= i),
                "{}: {u:?}",
                cap.path
            );
            let mut em = toolstream::emit::OpenAiChatEmitter::new();
            let mut sse = String::new();
            for e in &events {
                em.event(e, &mut sse);
            }
            em.finish(&mut sse);
            let emitted: Vec<Value> = sse
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .filter_map(|d| serde_json::from_str::<Value>(d).ok())
                .filter_map(|c| c.get("usage").filter(|u| u.is_object()).cloned())
                .collect();
            assert_eq!(emitted.len(), 1, "{}: {sse}", cap.path);
            let e = &emitted[0];
            assert_eq!(e["prompt_tokens"], json!(i), "{}: {e}", cap.path);
            assert_eq!(e["completion_tokens"], json!(o), "{}: {e}", cap.path);
            assert_eq!(e["total_tokens"], json!(t), "{}: {e}", cap.path);
            if let Some(r) = u.reasoning_tokens {
                assert_eq!(e["completion_tokens_details"]["reasoning_tokens"], json!(r));
                reasoning += 1;
            }
            if let Some(c) = u.cached_input_tokens {
                assert_eq!(e["prompt_tokens_details"]["cached_tokens"], json!(c));
                cached += 1;
            }
            checked += 1;
        }
    }
    eprintln!("usage checked in {checked} captures: {reasoning} with reasoning, {cached} cached");
    if captures_dir().is_some() {
        assert!(
            checked > 80 && reasoning > 20 && cached > 20,
            "{checked} {reasoning} {cached}"
        );
    }
}

#[test]
fn gemini_thoughts_are_output_tokens_and_reasoning_tokens() {
    // The issue's numbers: prompt 55, candidates 16, thoughts 52, total 123.
    let Some(cap) = captures("gemini")
        .into_iter()
        .find(|c| c.path == "gemini/2.5-flash-thought-part-then-call.sse")
    else {
        return;
    };
    let (_, usage) = finish(&run_whole(&maker(&cap.format, cap.framing), &cap.bytes));
    let u = usage.unwrap();
    assert_eq!(
        (
            u.input_tokens,
            u.output_tokens,
            u.total_tokens,
            u.reasoning_tokens
        ),
        (Some(55), Some(68), Some(123), Some(52))
    );
    assert_eq!(u.raw["candidatesTokenCount"], json!(16), "raw as sent");
}

#[test]
fn a_text_call_past_max_calls_keeps_the_models_bytes() {
    // Raw model text: the error of the call past the limit carries the model's own bytes
    // of the call, from its first marker byte to its arguments' close (as an undeclared
    // call's error does).
    let make = || Parser::with_config(Format::Hermes, ParserConfig::new().max_calls(1));
    let body = "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\
                <tool_call>{\"name\": \"g\", \"arguments\": {\"a\": 1}}</tool_call>";
    let ev = assert_split_invariant(&make, body.as_bytes(), 20);
    assert_eq!(ends(&ev).len(), 1);
    let l = errors_of(&ev, ErrorKind::LimitExceeded);
    assert_eq!(l.len(), 1, "{ev:?}");
    assert_eq!(
        l[0].2,
        "<tool_call>{\"name\": \"g\", \"arguments\": {\"a\": 1}}"
    );
}
