//! `bedrock`: own fixtures (one per server quirk) as binary event-stream frames built
//! by a small test encoder, at every chunking; every Bedrock capture against a one-shot
//! oracle; the decoded NDJSON companions against their binary originals; generated
//! streams.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use serde_json::{Value, json};
use toolstream::{ErrorKind, Event, FinishReason, Format, Framing, Parser, ParserConfig};

fn bedrock() -> Parser {
    common::parser(Format::Bedrock)
}

fn bedrock_ndjson() -> Parser {
    Parser::with_config(
        Format::Bedrock,
        ParserConfig::new().framing(Framing::Ndjson),
    )
}

/// One event-stream message with string headers and correct CRCs.
fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (k, v) in headers {
        h.push(k.len() as u8);
        h.extend_from_slice(k.as_bytes());
        h.push(7);
        h.extend_from_slice(&(v.len() as u16).to_be_bytes());
        h.extend_from_slice(v.as_bytes());
    }
    let total = 12 + h.len() + payload.len() + 4;
    let mut m = Vec::new();
    m.extend_from_slice(&(total as u32).to_be_bytes());
    m.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let crc = crc32fast::hash(&m);
    m.extend_from_slice(&crc.to_be_bytes());
    m.extend_from_slice(&h);
    m.extend_from_slice(payload);
    let crc = crc32fast::hash(&m);
    m.extend_from_slice(&crc.to_be_bytes());
    m
}

/// A ConverseStream event (with a `p` padding field, as Bedrock sends).
fn ev(kind: &str, mut payload: Value) -> (String, Value) {
    if let Value::Object(m) = &mut payload {
        m.insert("p".into(), json!("abcdefghijklmnopqrstuvwxyzABCDEFGH"));
    }
    (kind.to_string(), payload)
}

fn exception(kind: &str, message: &str) -> (String, Value) {
    (format!("exception:{kind}"), json!({"message": message}))
}

/// The binary body.
fn bin(events: &[(String, Value)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (k, p) in events {
        let body = p.to_string();
        match k.strip_prefix("exception:") {
            Some(x) => out.extend(frame(
                &[
                    (":exception-type", x),
                    (":content-type", "application/json"),
                    (":message-type", "exception"),
                ],
                body.as_bytes(),
            )),
            None => out.extend(frame(
                &[
                    (":event-type", k),
                    (":content-type", "application/json"),
                    (":message-type", "event"),
                ],
                body.as_bytes(),
            )),
        }
    }
    out
}

/// The recorded form: one `{"<eventType>": payload}` per line.
fn lines(events: &[(String, Value)]) -> Vec<u8> {
    let mut out = String::new();
    for (k, p) in events {
        let k = k.strip_prefix("exception:").unwrap_or(k);
        out.push_str(&json!({ k: p }).to_string());
        out.push('\n');
    }
    out.into_bytes()
}

fn start(i: i64, id: &str, name: &str) -> (String, Value) {
    ev(
        "contentBlockStart",
        json!({"contentBlockIndex": i, "start": {"toolUse": {"toolUseId": id, "name": name}}}),
    )
}

fn input(i: i64, s: &str) -> (String, Value) {
    ev(
        "contentBlockDelta",
        json!({"contentBlockIndex": i, "delta": {"toolUse": {"input": s}}}),
    )
}

fn text_delta(i: i64, s: &str) -> (String, Value) {
    ev(
        "contentBlockDelta",
        json!({"contentBlockIndex": i, "delta": {"text": s}}),
    )
}

fn stop(i: i64) -> (String, Value) {
    ev("contentBlockStop", json!({"contentBlockIndex": i}))
}

fn message_start() -> (String, Value) {
    ev("messageStart", json!({"role": "assistant"}))
}

fn message_stop(reason: &str) -> (String, Value) {
    ev("messageStop", json!({"stopReason": reason}))
}

fn metadata() -> (String, Value) {
    ev(
        "metadata",
        json!({"usage": {"inputTokens": 605, "outputTokens": 26, "totalTokens": 631}, "metrics": {"latencyMs": 331}}),
    )
}

/// Runs both encodings at every chunking and checks they agree.
fn both(events: &[(String, Value)]) -> Vec<Event> {
    let a = assert_split_invariant(&bedrock, &bin(events), 30);
    let b = assert_split_invariant(&bedrock_ndjson, &lines(events), 30);
    assert_eq!(a, b, "binary and NDJSON forms differ");
    a
}

/// A payload that is not UTF-8, in the binary event stream and in its NDJSON form: an
/// `invalid_utf8` error carrying it (lossily), then the payload read with U+FFFD (SSE's
/// rule), never `invalid_json`; at every chunking.
#[test]
fn invalid_utf8_payload_is_reported_then_read_lossily() {
    let bad = [
        &br#"{"contentBlockIndex":0,"delta":{"text":"caf"#[..],
        b"\xC3 \xFF",
        br#"!"}}"#,
    ]
    .concat();
    let headers = [
        (":event-type", "contentBlockDelta"),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ];
    let before = [message_start(), text_delta(0, "ok ")];
    let after = [
        text_delta(0, " after"),
        stop(0),
        message_stop("end_turn"),
        metadata(),
    ];
    let binary = [bin(&before), frame(&headers, &bad), bin(&after)].concat();
    let ndjson = [
        lines(&before),
        [&br#"{"contentBlockDelta":"#[..], &bad, b"}\n"].concat(),
        lines(&after),
    ]
    .concat();
    let a = assert_split_invariant(&bedrock, &binary, 30);
    let b = assert_split_invariant(&bedrock_ndjson, &ndjson, 30);
    for (got, lossy) in [
        (&a, String::from_utf8_lossy(&bad).into_owned()),
        (
            &b,
            String::from_utf8_lossy(
                &ndjson[lines(&before).len()..ndjson.len() - lines(&after).len() - 1],
            )
            .into_owned(),
        ),
    ] {
        assert_eq!(text(got), "ok caf\u{FFFD} \u{FFFD}! after", "{got:?}");
        assert_eq!(kinds(got), vec![(ErrorKind::InvalidUtf8, None, lossy)]);
    }
}

#[test]
fn nova_micro_whole_input_in_one_delta() {
    let events = [
        message_start(),
        start(0, "tooluse_roHJ1p6nRuyemwcpS0cqgw", "get_book_info"),
        input(0, "{\"isbn\":\"0-7653-1178-X\"}"),
        stop(0),
        message_stop("tool_use"),
        metadata(),
    ];
    let got = both(&events);
    assert_eq!(
        calls(&got),
        vec![call(
            "tooluse_roHJ1p6nRuyemwcpS0cqgw",
            "get_book_info",
            json!({"isbn": "0-7653-1178-X"})
        )]
    );
    match got.last() {
        Some(Event::Finish { reason, usage }) => {
            assert_eq!(reason, &Some(FinishReason::ToolCalls));
            let u = usage.as_ref().unwrap();
            assert_eq!(
                (u.input_tokens, u.output_tokens, u.total_tokens),
                (Some(605), Some(26), Some(631))
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(!format!("{got:?}").contains("abcdefghij"), "padding leaked");
}

#[test]
fn vercel_redacted_reasoning_then_input_in_small_deltas() {
    let pieces = [
        "{\"", "groups", "\":[", "{\"", "name", "\":\"", "Sales", "\",\"", "parent", "\":", "\"\"",
        "}", "]}",
    ];
    let mut events = vec![
        message_start(),
        ev(
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": "cnNuX3BVUGgxNnRv"}}}),
        ),
        ev(
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "sig=="}}}),
        ),
        stop(0),
        start(1, "call_75be1097", "propose"),
    ];
    events.extend(pieces.iter().map(|p| input(1, p)));
    events.extend([stop(1), message_stop("tool_use"), metadata()]);
    let got = both(&events);
    assert_eq!(reasoning(&got), "");
    assert_eq!(
        calls(&got),
        vec![call(
            "call_75be1097",
            "propose",
            json!({"groups": [{"name": "Sales", "parent": ""}]})
        )]
    );
    // The model's own argument bytes.
    assert!(got.contains(&Event::ToolCallArgs {
        index: 0,
        delta: pieces.concat()
    }));
    assert!(!format!("{got:?}").contains("cnNuX3BV"));
}

#[test]
fn kimi_k2_reasoning_content_and_empty_text_blocks() {
    let events = [
        message_start(),
        text_delta(0, ""),
        stop(0),
        ev(
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"reasoningContent": {"text": " The user wants é😀"}}}),
        ),
        ev(
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"reasoningContent": {"text": " step by step."}}}),
        ),
        stop(1),
        text_delta(2, ""),
        stop(2),
        start(3, "functions.glob_search:0", "glob_search"),
        input(3, "{\"pattern\": \"**/*cursor*\"}"),
        stop(3),
        text_delta(4, ""),
        stop(4),
        message_stop("tool_use"),
        metadata(),
    ];
    let got = both(&events);
    assert_eq!(reasoning(&got), " The user wants é😀 step by step.");
    assert_eq!(text(&got), "");
    assert_eq!(
        calls(&got),
        vec![call(
            "functions.glob_search:0",
            "glob_search",
            json!({"pattern": "**/*cursor*"})
        )]
    );
}

#[test]
fn nova_micro_thinking_tags_stay_text() {
    let events = [
        message_start(),
        text_delta(0, "<thinking"),
        text_delta(0, "> To find the temperature</"),
        text_delta(0, "thinking>\n"),
        stop(0),
        start(1, "tooluse_lAG", "get_temperature"),
        input(1, "{\"city\":\"Paris\"}"),
        stop(1),
        message_stop("tool_use"),
        metadata(),
    ];
    let got = both(&events);
    assert_eq!(
        text(&got),
        "<thinking> To find the temperature</thinking>\n"
    );
    assert_eq!(
        calls(&got),
        vec![call(
            "tooluse_lAG",
            "get_temperature",
            json!({"city": "Paris"})
        )]
    );
}

#[test]
fn nova_2_lite_server_tool_use_and_tool_result_block() {
    let events = [
        message_start(),
        ev(
            "contentBlockStart",
            json!({"contentBlockIndex": 0, "start": {"toolUse": {"name": "nova_code_interpreter", "toolUseId": "tooluse_VQ", "type": "server_tool_use"}}}),
        ),
        input(0, "{\"snippet\":\"1234 * 5678\"}"),
        stop(0),
        ev(
            "contentBlockStart",
            json!({"contentBlockIndex": 1, "start": {"toolResult": {"status": "success", "toolUseId": "tooluse_VQ"}}}),
        ),
        ev(
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"toolResult": [{"json": {"stdOut": "7006652"}}]}}),
        ),
        stop(1),
        start(2, "tooluse_pt", "final_result"),
        input(2, "{\"result\":7006652.0}"),
        stop(2),
        message_stop("tool_use"),
        metadata(),
    ];
    let got = both(&events);
    assert_eq!(
        calls(&got),
        vec![
            call(
                "tooluse_VQ",
                "nova_code_interpreter",
                json!({"snippet": "1234 * 5678"})
            ),
            call("tooluse_pt", "final_result", json!({"result": 7006652.0})),
        ]
    );
    assert_eq!(text(&got), "");
}

#[test]
fn tool_without_input_gets_an_empty_object() {
    let events = [
        message_start(),
        start(0, "t1", "now"),
        stop(0),
        message_stop("tool_use"),
        metadata(),
    ];
    let got = both(&events);
    assert_eq!(calls(&got), vec![call("t1", "now", json!({}))]);
}

#[test]
fn call_ends_when_its_input_closes_before_content_block_stop() {
    let events = [
        message_start(),
        start(0, "t1", "f"),
        input(0, "{\"a\":"),
        input(0, "1}"),
        stop(0),
    ];
    let body = bin(&events);
    let upto = body.len() - bin(&events[4..]).len();
    let mut p = bedrock();
    let mut out = Vec::new();
    p.feed(&body[..upto], &mut out).unwrap();
    assert!(
        out.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })),
        "End as soon as the input closes"
    );
}

#[test]
fn throttling_exception_is_a_provider_error() {
    let events = [
        message_start(),
        text_delta(0, "par"),
        exception("throttlingException", "Too many requests, please wait."),
    ];
    let got = both(&events);
    assert_eq!(text(&got), "par");
    match errors(&got).as_slice() {
        [
            Event::Error {
                path: _,
                kind: ErrorKind::Provider,
                message,
                raw,
                index: None,
            },
        ] => {
            assert!(
                message.contains("throttlingException") && message.contains("Too many requests"),
                "{message}"
            );
            assert!(raw.contains("Too many requests"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn model_stream_error_mid_call_then_end_of_input_is_truncated() {
    let events = [
        message_start(),
        start(0, "t1", "write_file"),
        input(0, "{\"path\": \"a.txt\", \"content\": \"hel"),
        exception("modelStreamErrorException", "Model stream error"),
    ];
    let got = both(&events);
    assert!(got.iter().any(|e| matches!(
        e,
        Event::Error {
            kind: ErrorKind::Provider,
            ..
        }
    )));
    match got.last() {
        Some(Event::Error {
            kind: ErrorKind::Truncated,
            index: Some(0),
            raw,
            ..
        }) => {
            assert_eq!(raw, "{\"path\": \"a.txt\", \"content\": \"hel");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_crc_is_a_framing_error_not_a_guess() {
    let good = [
        message_start(),
        start(0, "t1", "f"),
        input(0, "{\"a\":1}"),
        stop(0),
        message_stop("tool_use"),
    ];
    let mut body = bin(&good[..1]);
    let mut bad = bin(&[text_delta(0, "SECRET")]);
    let n = bad.len();
    bad[n - 10] ^= 0x20; // a payload byte: the message CRC no longer matches
    body.extend(&bad);
    body.extend(bin(&good[1..]));
    let got = assert_split_invariant(&bedrock, &body, 30);
    assert_eq!(text(&got), "", "the corrupt frame's text must not be used");
    match errors(&got).as_slice() {
        [
            Event::Error {
                kind: ErrorKind::Framing,
                index: None,
                ..
            },
        ] => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(
        calls(&got),
        vec![call("t1", "f", json!({"a": 1}))],
        "framing resumes after the bad message"
    );
    // A corrupt prelude: nothing after it is trusted.
    let mut body = bin(&good[..1]);
    let mut bad = bin(&good[1..]);
    bad[5] ^= 1;
    body.extend(&bad);
    let got = assert_split_invariant(&bedrock, &body, 30);
    assert!(calls(&got).is_empty());
    // Framing errors, then, as `messageStop` was in the untrusted bytes, the stream's
    // `truncated` error.
    let (last, framing) = errors(&got)
        .split_last()
        .map(|(l, f)| (*l, f.to_vec()))
        .unwrap();
    assert!(matches!(
        last,
        Event::Error {
            kind: ErrorKind::Truncated,
            index: None,
            ..
        }
    ));
    assert!(framing.iter().all(|e| matches!(
        e,
        Event::Error {
            kind: ErrorKind::Framing,
            ..
        }
    )));
    assert!(!framing.is_empty());
}

#[test]
fn input_without_a_block_start_is_a_call_without_a_name() {
    let events = [
        message_start(),
        input(0, "{\"a\":1}"),
        stop(0),
        message_stop("end_turn"),
        metadata(),
    ];
    let got = both(&events);
    assert!(calls(&got).is_empty());
    assert!(got.iter().any(|e| matches!(e, Event::Error { kind: ErrorKind::MissingName, raw, .. } if raw == "{\"a\":1}")));
}

#[test]
fn finish_waits_for_metadata_or_end_of_input() {
    let events = [
        message_start(),
        text_delta(0, "hi"),
        stop(0),
        message_stop("max_tokens"),
    ];
    let got = both(&events);
    assert!(matches!(
        got.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::Length),
            usage: None
        })
    ));
    let body = bin(&[
        message_start(),
        text_delta(0, "hi"),
        message_stop("end_turn"),
        metadata(),
    ]);
    let mut p = bedrock();
    let mut out = Vec::new();
    p.feed(&body, &mut out).unwrap();
    assert!(matches!(
        out.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::Stop),
            usage: Some(_)
        })
    ));
    p.finish(&mut out).unwrap();
    assert_eq!(
        out.iter()
            .filter(|e| matches!(e, Event::Finish { .. }))
            .count(),
        1
    );
}

#[test]
fn guardrail_intervened_is_content_filter() {
    let got = both(&[
        message_start(),
        text_delta(0, "x"),
        message_stop("guardrail_intervened"),
        metadata(),
    ]);
    assert!(matches!(
        got.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::ContentFilter),
            ..
        })
    ));
}

#[test]
fn ndjson_line_that_is_not_a_wrapper_is_an_error() {
    let got = assert_split_invariant(
        &bedrock_ndjson,
        b"{\"contentBlockIndex\":0}\nnot json\n",
        10,
    );
    // The two lines' errors, then the stream's: no `messageStop` came.
    assert_eq!(errors(&got).len(), 3);
    assert!(matches!(
        got[0],
        Event::Error {
            kind: ErrorKind::UnexpectedPayload,
            ..
        }
    ));
    assert!(matches!(
        got[1],
        Event::Error {
            kind: ErrorKind::InvalidJson,
            ..
        }
    ));
    assert!(matches!(
        got[2],
        Event::Error {
            kind: ErrorKind::Truncated,
            index: None,
            ..
        }
    ));
}

// ---------------------------------------------------------------------------------
// Captures.

/// The simplest possible event-stream reader: length-prefixed messages, CRCs checked,
/// string headers only. Returns (event type or exception key, payload).
fn oracle_frames(mut b: &[u8]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while b.len() >= 16 {
        let total = u32::from_be_bytes(b[0..4].try_into().unwrap()) as usize;
        let hlen = u32::from_be_bytes(b[4..8].try_into().unwrap()) as usize;
        let msg = &b[..total];
        assert_eq!(
            crc32fast::hash(&msg[..8]),
            u32::from_be_bytes(msg[8..12].try_into().unwrap())
        );
        assert_eq!(
            crc32fast::hash(&msg[..total - 4]),
            u32::from_be_bytes(msg[total - 4..].try_into().unwrap())
        );
        let mut h = &msg[12..12 + hlen];
        let mut kind = String::new();
        while !h.is_empty() {
            let n = h[0] as usize;
            let name = std::str::from_utf8(&h[1..1 + n]).unwrap().to_string();
            assert_eq!(h[1 + n], 7, "string headers only");
            let vl = u16::from_be_bytes([h[2 + n], h[3 + n]]) as usize;
            let value = std::str::from_utf8(&h[4 + n..4 + n + vl])
                .unwrap()
                .to_string();
            if name == ":event-type" || name == ":exception-type" {
                kind = value;
            }
            h = &h[4 + n + vl..];
        }
        out.push((
            kind,
            serde_json::from_slice(&msg[12 + hlen..total - 4]).unwrap(),
        ));
        b = &b[total..];
    }
    assert!(b.is_empty());
    out
}

fn oracle_lines(b: &[u8]) -> Vec<(String, Value)> {
    String::from_utf8_lossy(b)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let (k, p) = v.as_object().unwrap().iter().next().unwrap();
            (k.clone(), p.clone())
        })
        .collect()
}

/// The one-shot reference: per block index, toolUse start + concatenated input; all
/// text; all reasoning text.
fn oracle(events: &[(String, Value)]) -> (String, String, Vec<Call>) {
    let (mut text, mut reasoning) = (String::new(), String::new());
    let mut blocks: Vec<(i64, String, String, String)> = Vec::new();
    for (k, p) in events {
        let i = p["contentBlockIndex"].as_i64().unwrap_or(-1);
        match k.as_str() {
            "contentBlockStart" if !p["start"]["toolUse"].is_null() => {
                let t = &p["start"]["toolUse"];
                blocks.push((
                    i,
                    t["toolUseId"].as_str().unwrap().into(),
                    t["name"].as_str().unwrap().into(),
                    String::new(),
                ));
            }
            "contentBlockDelta" => {
                let d = &p["delta"];
                text.push_str(d["text"].as_str().unwrap_or(""));
                reasoning.push_str(d["reasoningContent"]["text"].as_str().unwrap_or(""));
                if let Some(s) = d["toolUse"]["input"].as_str() {
                    blocks.iter_mut().find(|b| b.0 == i).unwrap().3.push_str(s);
                }
            }
            _ => {}
        }
    }
    let calls = blocks
        .into_iter()
        .map(|(_, id, name, args)| Call {
            id,
            name,
            arguments: if args.is_empty() {
                json!({})
            } else {
                serde_json::from_str(&args).unwrap()
            },
        })
        .collect();
    (text, reasoning, calls)
}

#[test]
fn captures_bedrock_match_the_oracle_at_every_chunking() {
    CaptureOracle {
        format: "bedrock",
        name: "Bedrock",
        min_captures: 11,
        min_calls: 9,
        oracle: &|cap| {
            let events = match cap.framing {
                Framing::EventStream => oracle_frames(&cap.bytes),
                _ => oracle_lines(&cap.bytes),
            };
            oracle(&events).into()
        },
        check: &|cap, whole| {
            no_errors(cap, whole);
            ends_with_finish(cap, whole, FinishReason::ToolCalls, |_| true);
        },
        chunked: None,
    }
    .run();
}

#[test]
fn captures_decoded_ndjson_give_the_same_events_as_the_binary_originals() {
    let caps = captures("bedrock");
    let mut pairs = 0;
    for cap in caps.iter().filter(|c| c.path.ends_with(".bin")) {
        let companion = cap.path.replace(".bin", ".decoded.ndjson");
        let Some(lines) = caps.iter().find(|c| c.path == companion) else {
            continue;
        };
        let from_bin = run_whole(&bedrock, &cap.bytes);
        let from_lines = run_whole(&bedrock_ndjson, &lines.bytes);
        assert_eq!(from_lines, from_bin, "{companion}");
        assert!(!calls(&from_bin).is_empty());
        pairs += 1;
    }
    if !caps.is_empty() {
        assert_eq!(pairs, 4);
    }
}

// ---------------------------------------------------------------------------------
// Generated streams.

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Random text, reasoning and calls (arguments with escapes and non-ASCII, cut into
    /// random deltas), binary or NDJSON, the body cut anywhere: the decoded calls are
    /// the generated ones.
    #[test]
    fn generated_streams_decode_to_the_generated_calls(
        texts in proptest::collection::vec("\\PC{0,12}", 0..3),
        think in "\\PC{0,20}",
        gen_calls in proptest::collection::vec((
            "[a-zA-Z_][a-zA-Z0-9_]{0,11}",
            proptest::collection::btree_map("[a-z]{1,6}", "(\\PC|\n|\t|\"|\\\\){0,20}", 0..4),
            1usize..9,
        ), 0..4),
        binary in proptest::bool::ANY,
        cuts in proptest::collection::vec(0usize..8000, 0..20),
    ) {
        let mut events = vec![message_start()];
        let mut block = 0;
        if !think.is_empty() {
            events.push(ev("contentBlockDelta", json!({"contentBlockIndex": block, "delta": {"reasoningContent": {"text": think}}})));
            events.push(stop(block));
            block += 1;
        }
        for t in &texts {
            events.push(text_delta(block, t));
        }
        events.push(stop(block));
        block += 1;
        let mut want = Vec::new();
        for (i, (name, args, pieces)) in gen_calls.iter().enumerate() {
            let id = format!("tooluse_{i}");
            events.push(start(block, &id, name));
            let args_text = serde_json::to_string(args).unwrap();
            for piece in split_chars(&args_text, *pieces) {
                events.push(input(block, &piece));
            }
            events.push(stop(block));
            block += 1;
            want.push(call(&id, name, json!(args)));
        }
        events.push(message_stop("tool_use"));
        events.push(metadata());
        let (make, body): (&dyn Fn() -> Parser, Vec<u8>) =
            if binary { (&bedrock, bin(&events)) } else { (&bedrock_ndjson, lines(&events)) };
        let want = Want { calls: want, text: texts.concat(), reasoning: Some(think) };
        generated_stream_decodes(make, &body, &cuts, want)?;
    }
}

#[test]
fn bedrock_cut_after_message_stop_is_complete_and_before_it_truncated() {
    let events = [
        message_start(),
        start(0, "t1", "f"),
        input(0, "{\"a\":1}"),
        stop(0),
        message_stop("tool_use"),
        metadata(),
    ];
    // Without `metadata` (usage only): complete, its Finish without usage.
    let ev = both(&events[..5]);
    assert!(errors(&ev).is_empty(), "{ev:?}");
    assert_eq!(finish(&ev), (Some(FinishReason::ToolCalls), None));
    // Without `messageStop`: the call stands, the stream is reported cut, no Finish.
    let ev = both(&events[..4]);
    assert_eq!(calls(&ev), vec![call("t1", "f", json!({"a": 1}))]);
    assert!(!ev.iter().any(|e| matches!(e, Event::Finish { .. })));
    assert!(matches!(
        errors(&ev).as_slice(),
        [Event::Error { kind: ErrorKind::Truncated, index: None, message, .. }] if message.contains("messageStop")
    ));
}
