//! `anthropic`: own fixtures (one per server quirk) at every chunking, every Anthropic
//! capture against a one-shot oracle, and generated streams cut anywhere.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::sse_typed as sse;
use common::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use toolstream::{ErrorKind, Event, FinishReason, Format, Framing, Parser, ParserConfig};

fn anthropic() -> Parser {
    common::parser(Format::Anthropic)
}

fn start(id: &str, input_tokens: u64) -> Value {
    json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant", "content": [],
        "model": "claude-sonnet-4-5-20250929", "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1}}})
}

fn text_block(index: u64) -> Value {
    json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
}

fn tool_block(index: u64, id: &str, name: &str) -> Value {
    json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})
}

fn text(index: u64, t: &str) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": t}})
}

fn thinking(index: u64, t: &str) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": t}})
}

fn json_delta(index: u64, j: &str) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": j}})
}

fn stop(index: u64) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

fn message_delta(reason: &str, output_tokens: u64) -> Value {
    json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null}, "usage": {"output_tokens": output_tokens}})
}

fn ping() -> Value {
    json!({"type": "ping"})
}

fn message_stop() -> Value {
    json!({"type": "message_stop"})
}

fn all_args(ev: &[Event], index: usize) -> String {
    ev.iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs { index: i, delta } if *i == index => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn gptel_text_then_call_with_ping_and_usage() {
    let body = sse(&[
        start("msg_1", 25),
        text_block(0),
        ping(),
        text(0, "Let me check "),
        text(0, "the weather. é😀"),
        stop(0),
        tool_block(1, "toolu_01", "get_weather"),
        json_delta(1, ""),
        json_delta(1, "{\"city\""),
        json_delta(1, ": \"Par"),
        json_delta(1, "is\"}"),
        stop(1),
        message_delta("tool_use", 42),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 50);
    assert_eq!(common::text(&ev), "Let me check the weather. é😀");
    assert_eq!(
        calls(&ev),
        vec![call("toolu_01", "get_weather", json!({"city": "Paris"}))]
    );
    assert_eq!(all_args(&ev, 0), "{\"city\": \"Paris\"}");
    match ev.last() {
        Some(Event::Finish { reason, usage }) => {
            assert_eq!(reason, &Some(FinishReason::ToolCalls));
            let u = usage.as_ref().unwrap();
            assert_eq!(
                (u.input_tokens, u.output_tokens, u.total_tokens),
                (Some(25), Some(42), Some(67))
            );
        }
        other => panic!("last event {other:?}"),
    }
    assert!(errors(&ev).is_empty());
}

#[test]
fn anthropic_end_is_emitted_when_arguments_close_not_at_block_stop() {
    let body = sse(&[
        start("m", 1),
        tool_block(0, "t", "f"),
        json_delta(0, "{\"a\":"),
        json_delta(0, "1}"),
    ]);
    let mut p = anthropic();
    let mut out = Vec::new();
    p.feed(&body, &mut out).unwrap();
    assert!(
        matches!(out.last(), Some(Event::ToolCallEnd { index: 0, .. })),
        "{out:?}"
    );
}

#[test]
fn anthropic_start_is_emitted_by_the_feed_that_completes_content_block_start() {
    let mut body = sse(&[start("m", 1)]);
    let prefix = body.len();
    body.extend(sse(&[tool_block(0, "toolu_x", "write_file")]));
    for cut in prefix..body.len() {
        let mut p = anthropic();
        let mut out = Vec::new();
        p.feed(&body[..cut], &mut out).unwrap();
        assert!(
            out.is_empty(),
            "start before the event was complete (cut {cut}): {out:?}"
        );
        p.feed(&body[cut..], &mut out).unwrap();
        assert_eq!(
            out,
            vec![Event::ToolCallStart {
                index: 0,
                id: "toolu_x".into(),
                name: "write_file".into()
            }]
        );
    }
}

#[test]
fn mirascope_sonnet_4_whitespace_padding_inside_data_json() {
    // Real bodies pad the JSON with spaces before the closing brace; a ping mid-text.
    let body = concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}       }\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}    }\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}           }\n\n",
        "event: ping\n",
        "data: {\"type\": \"ping\"}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0   }\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"secret\",\"input\":{}}  }\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}   }\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"p\\\": 1}\"}  }\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":1 }\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":30}     }\n\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"       }\n\n",
    );
    let ev = assert_split_invariant(&anthropic, body.as_bytes(), 30);
    assert_eq!(common::text(&ev), "Hi");
    assert_eq!(calls(&ev), vec![call("toolu_a", "secret", json!({"p": 1}))]);
    assert!(errors(&ev).is_empty(), "{ev:?}");
}

#[test]
fn vertex_block_indices_map_to_dense_call_indices() {
    // Text at block 0, calls at blocks 1 and 2 (Vertex ids `toolu_vrtx_`): calls 0 and 1.
    let body = sse(&[
        start("msg_vrtx_1", 3),
        text_block(0),
        text(0, "two calls"),
        stop(0),
        tool_block(1, "toolu_vrtx_a", "secret_retrieval_tool"),
        json_delta(1, ""),
        json_delta(1, "{\"password\": \"mellon\"}"),
        stop(1),
        tool_block(2, "toolu_vrtx_b", "secret_retrieval_tool"),
        json_delta(2, ""),
        json_delta(2, "{\"password\": \"radiance\"}"),
        stop(2),
        message_delta("tool_use", 50),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 30);
    assert!(ev.contains(&Event::ToolCallStart {
        index: 0,
        id: "toolu_vrtx_a".into(),
        name: "secret_retrieval_tool".into()
    }));
    assert!(ev.contains(&Event::ToolCallStart {
        index: 1,
        id: "toolu_vrtx_b".into(),
        name: "secret_retrieval_tool".into()
    }));
    assert_eq!(
        calls(&ev),
        vec![
            call(
                "toolu_vrtx_a",
                "secret_retrieval_tool",
                json!({"password": "mellon"})
            ),
            call(
                "toolu_vrtx_b",
                "secret_retrieval_tool",
                json!({"password": "radiance"})
            ),
        ]
    );
}

#[test]
fn llm_anthropic_noarg_tools_with_caller_field_get_empty_object() {
    let mk = |i: u64, id: &str| {
        json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": id,
            "name": "pelican_name_generator", "input": {}, "caller": {"type": "direct"}}})
    };
    let body = sse(&[
        start("m", 1),
        mk(0, "toolu_1"),
        json_delta(0, ""),
        stop(0),
        mk(1, "toolu_2"),
        json_delta(1, ""),
        stop(1),
        message_delta("tool_use", 5),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 30);
    assert_eq!(
        calls(&ev),
        vec![
            call("toolu_1", "pelican_name_generator", json!({})),
            call("toolu_2", "pelican_name_generator", json!({}))
        ]
    );
    assert_eq!(all_args(&ev, 0), "{}");
    // `{}` is emitted at the block's stop, before the next call starts.
    let end0 = ev
        .iter()
        .position(|e| matches!(e, Event::ToolCallEnd { index: 0, .. }))
        .unwrap();
    let start1 = ev
        .iter()
        .position(|e| matches!(e, Event::ToolCallStart { index: 1, .. }))
        .unwrap();
    assert!(end0 < start1);
}

#[test]
fn llm_anthropic_thinking_block_then_tool() {
    let body = sse(&[
        start("m", 1),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        ping(),
        thinking(0, "The user wants "),
        thinking(0, "a version."),
        thinking(0, ""),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EoQDCm0IDhgCKkCD"}}),
        stop(0),
        tool_block(1, "toolu_t", "fixed_version"),
        json_delta(1, ""),
        stop(1),
        message_delta("tool_use", 92),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 30);
    assert_eq!(reasoning(&ev), "The user wants a version.");
    assert_eq!(common::text(&ev), "");
    assert_eq!(
        calls(&ev),
        vec![call("toolu_t", "fixed_version", json!({}))]
    );
}

#[test]
fn anthropic_redacted_thinking_and_server_tool_use() {
    let body = sse(&[
        start("m", 1),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}}),
        stop(0),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}}),
        json_delta(1, "{\"query\": \"weather"),
        json_delta(1, " in Paris\"}"),
        stop(1),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "title": "x", "url": "https://x"}]}}),
        stop(2),
        text_block(3),
        text(3, "It is sunny."),
        stop(3),
        message_delta("end_turn", 9),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 30);
    assert_eq!(
        calls(&ev),
        vec![call(
            "srvtoolu_1",
            "web_search",
            json!({"query": "weather in Paris"})
        )]
    );
    assert_eq!(common::text(&ev), "It is sunny.");
    assert_eq!(reasoning(&ev), "");
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::ToolCalls),
            ..
        })
    ));
    assert!(errors(&ev).is_empty());
}

#[test]
fn vercel_ndjson_payloads_without_event_lines_and_escaped_quotes_split() {
    let payloads = [
        start("m", 1),
        tool_block(0, "toolu_w", "website_update"),
        ping(),
        json_delta(0, ""),
        json_delta(0, "{\"content\": \"<a href=\\"),
        json_delta(0, "\"x\\\""),
        json_delta(0, ">é</a>\\n\"}"),
        stop(0),
        message_delta("tool_use", 5),
        message_stop(),
    ];
    let mut body = String::new();
    for p in &payloads {
        body.push_str(&p.to_string());
        body.push('\n');
    }
    let make = || {
        Parser::with_config(
            Format::Anthropic,
            ParserConfig::new().framing(Framing::Ndjson),
        )
    };
    let ev = assert_split_invariant(&make, body.as_bytes(), 30);
    assert_eq!(
        calls(&ev),
        vec![call(
            "toolu_w",
            "website_update",
            json!({"content": "<a href=\"x\">é</a>\n"})
        )]
    );
}

#[test]
fn anthropic_event_line_is_not_trusted() {
    // The `event:` lines lie (or are missing); the `type` inside the JSON decides.
    let body = concat!(
        "event: ping\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n",
        "event: error\n",
        "data: {\"type\":\"message_stop\"}\n\n",
    );
    let ev = assert_split_invariant(&anthropic, body.as_bytes(), 20);
    assert_eq!(calls(&ev), vec![call("t", "f", json!({}))]);
    assert!(errors(&ev).is_empty());
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::ToolCalls),
            usage: None
        })
    ));
}

#[test]
fn proxy_tool_use_with_whole_input_in_content_block_start() {
    let body = sse(&[
        start("m", 1),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_p", "name": "get_weather", "input": {"city": "Oslo", "days": [1, 2]}}}),
        stop(0),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_q", "name": "get_time", "input": {"tz": "UTC"}}}),
        // The same input streamed again (as text with other spacing): not an error.
        json_delta(1, "{\"tz\": "),
        json_delta(1, "\"UTC\"}"),
        stop(1),
        message_delta("tool_use", 5),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 30);
    assert_eq!(
        calls(&ev),
        vec![
            call(
                "toolu_p",
                "get_weather",
                json!({"city": "Oslo", "days": [1, 2]})
            ),
            call("toolu_q", "get_time", json!({"tz": "UTC"}))
        ]
    );
    assert!(errors(&ev).is_empty(), "{ev:?}");
}

#[test]
fn proxy_whole_input_then_different_deltas_is_reported() {
    let body = sse(&[
        start("m", 1),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_p", "name": "f", "input": {"a": 1}}}),
        json_delta(0, "{\"a\": 2}"),
        stop(0),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 20);
    assert_eq!(calls(&ev), vec![call("toolu_p", "f", json!({"a": 1}))]);
    assert!(ev.iter().any(|e| matches!(e, Event::Error { kind: ErrorKind::UnexpectedPayload, raw, .. } if raw == "{\"a\": 2}")));
}

#[test]
fn anthropic_overloaded_error_event() {
    let mut body = sse(&[start("m", 1), text_block(0), text(0, "Hel")]);
    body.extend_from_slice(b"event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n");
    let ev = assert_split_invariant(&anthropic, &body, 20);
    let errs = errors(&ev);
    assert_eq!(errs.len(), 1);
    match errs[0] {
        Event::Error {
            path: _,
            kind,
            message,
            raw,
            index,
        } => {
            assert_eq!(*kind, ErrorKind::Provider);
            assert!(
                message.contains("overloaded_error") && message.contains("Overloaded"),
                "{message}"
            );
            assert!(raw.contains("\"overloaded_error\""));
            assert_eq!(*index, None);
        }
        _ => unreachable!(),
    }
    assert_eq!(common::text(&ev), "Hel");
    // The stream ended without a stop reason: no Finish.
    assert!(!ev.iter().any(|e| matches!(e, Event::Finish { .. })));
}

#[test]
fn anthropic_max_tokens_mid_arguments_is_truncated() {
    let body = sse(&[
        start("m", 1),
        tool_block(0, "toolu_l", "write_file"),
        json_delta(0, "{\"path\": \"a.txt\", \"content\": \"hel"),
        stop(0),
        message_delta("max_tokens", 4096),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 20);
    assert!(ev.iter().any(
        |e| matches!(e, Event::Error { kind: ErrorKind::Truncated, index: Some(0), raw, .. }
        if raw == "{\"path\": \"a.txt\", \"content\": \"hel")
    ));
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::Length),
            ..
        })
    ));
}

#[test]
fn anthropic_stream_cut_off_reports_the_open_call() {
    let body = sse(&[
        start("m", 1),
        tool_block(0, "toolu_c", "f"),
        json_delta(0, "{\"a\": [1,"),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 20);
    assert!(matches!(
        ev.last(),
        Some(Event::Error {
            kind: ErrorKind::Truncated,
            index: Some(0),
            ..
        })
    ));
    assert!(!ev.iter().any(|e| matches!(e, Event::Finish { .. })));
}

#[test]
fn spliced_second_message_start_restarts_block_indices() {
    let body = sse(&[
        start("m1", 1),
        tool_block(0, "toolu_1", "a"),
        json_delta(0, "{\"x\": 1"),
        start("m2", 1),
        tool_block(0, "toolu_2", "b"),
        json_delta(0, "{\"y\": 2}"),
        stop(0),
        message_delta("tool_use", 3),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 20);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Error {
            kind: ErrorKind::Truncated,
            index: Some(0),
            ..
        }
    )));
    assert_eq!(calls(&ev), vec![call("toolu_2", "b", json!({"y": 2}))]);
    assert!(ev.contains(&Event::ToolCallStart {
        index: 1,
        id: "toolu_2".into(),
        name: "b".into()
    }));
}

#[test]
fn delta_for_a_block_that_never_started_is_not_lost() {
    let body = sse(&[
        start("m", 1),
        json_delta(4, "{\"q\": 1}"),
        stop(4),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 20);
    assert!(ev.iter().any(|e| matches!(e, Event::Error { kind: ErrorKind::MissingName, raw, .. } if raw == "{\"q\": 1}")));
}

#[test]
fn anthropic_bad_json_payload_is_an_error_and_parsing_goes_on() {
    let mut body =
        b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\n\n".to_vec();
    body.extend(sse(&[
        text_block(0),
        json!({"type": "content_block_delta", "index": 0, "delta": "not an object"}),
        text(0, "ok"),
        stop(0),
        // The stream's end (without it, `finish` would add a `truncated` error).
        message_stop(),
    ]));
    let ev = assert_split_invariant(&anthropic, &body, 10);
    assert_eq!(common::text(&ev), "ok");
    let kinds: Vec<ErrorKind> = errors(&ev)
        .iter()
        .map(|e| match e {
            Event::Error { kind, .. } => *kind,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![ErrorKind::InvalidJson, ErrorKind::UnexpectedPayload]
    );
}

#[test]
fn anthropic_unknown_events_and_delta_types_are_ignored() {
    let body = sse(&[
        start("m", 1),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "", "citations": []}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {"type": "char_location", "cited_text": "x"}}}),
        json!({"type": "some_future_event", "payload": [1, 2, 3]}),
        json!({"type": "another_future_event", "index": "zero", "delta": "a string"}),
        text(0, "fine"),
        stop(0),
        message_delta("end_turn", 2),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 10);
    assert_eq!(common::text(&ev), "fine");
    assert!(errors(&ev).is_empty());
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::Stop),
            ..
        })
    ));
}

// ---------------------------------------------------------------------------------
// Captures: every Anthropic recording, against a one-shot oracle.

/// The one-shot reference decoder: every `data:` payload (or NDJSON line) parsed whole;
/// text, thinking and `partial_json` concatenated per content block; each tool block's
/// arguments parsed once at the end (`{}` when empty, else the start's non-empty input).
fn oracle(bytes: &[u8], framing: Framing) -> (String, String, Vec<Call>) {
    let body = String::from_utf8_lossy(bytes);
    let payloads: Vec<Value> = match framing {
        Framing::Sse => body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect(),
        Framing::Ndjson => body
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        _ => unreachable!(),
    };
    let (mut text, mut reasoning) = (String::new(), String::new());
    // (block index, id, name, args, start input)
    let mut blocks: Vec<(u64, String, String, String, Value)> = Vec::new();
    for p in payloads {
        match p["type"].as_str().unwrap_or("") {
            "content_block_start" => {
                let b = &p["content_block"];
                if matches!(b["type"].as_str(), Some("tool_use" | "server_tool_use")) {
                    blocks.push((
                        p["index"].as_u64().unwrap(),
                        b["id"].as_str().unwrap().into(),
                        b["name"].as_str().unwrap().into(),
                        String::new(),
                        b["input"].clone(),
                    ));
                }
            }
            "content_block_delta" => {
                let d = &p["delta"];
                match d["type"].as_str().unwrap_or("") {
                    "text_delta" => text.push_str(d["text"].as_str().unwrap()),
                    "thinking_delta" => reasoning.push_str(d["thinking"].as_str().unwrap()),
                    "input_json_delta" => {
                        let i = p["index"].as_u64().unwrap();
                        let b = blocks
                            .iter_mut()
                            .find(|b| b.0 == i)
                            .expect("delta for a tool block");
                        b.3.push_str(d["partial_json"].as_str().unwrap());
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let calls = blocks
        .into_iter()
        .map(|(_, id, name, args, input)| {
            let arguments = if input.as_object().is_some_and(|o| !o.is_empty()) {
                input
            } else if args.is_empty() {
                json!({})
            } else {
                serde_json::from_str(&args).expect("oracle: args parse")
            };
            Call {
                id,
                name,
                arguments,
            }
        })
        .collect();
    (text, reasoning, calls)
}

#[test]
fn captures_anthropic_match_the_oracle_at_every_chunking() {
    CaptureOracle {
        format: "anthropic",
        name: "Anthropic",
        min_captures: 15,
        min_calls: 21,
        oracle: &|cap| oracle(&cap.bytes, cap.framing).into(),
        check: &tool_calls_with_token_counts,
        chunked: None,
    }
    .run();
}

// ---------------------------------------------------------------------------------
// Generated streams.

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Random calls (arbitrary names, arguments with escapes and non-ASCII), text and
    /// thinking blocks between them, argument text cut into random deltas after the empty
    /// first one, the body cut at random points: the decoded calls are the generated ones.
    #[test]
    fn generated_streams_decode_to_the_generated_calls(
        texts in proptest::collection::vec("\\PC{0,12}", 0..3),
        think in "\\PC{0,12}",
        gen_calls in proptest::collection::vec(("[^\\s<\\p{C}]{1,16}", arb_args(), 1usize..9), 0..4),
        cuts in proptest::collection::vec(0usize..6000, 0..20),
    ) {
        let mut payloads = vec![start("msg_gen", 10)];
        let mut block = 0u64;
        if !think.is_empty() {
            payloads.push(json!({"type": "content_block_start", "index": block, "content_block": {"type": "thinking", "thinking": ""}}));
            payloads.push(thinking(block, &think));
            payloads.push(stop(block));
            block += 1;
        }
        let mut want = Vec::new();
        for (i, (name, args, pieces)) in gen_calls.iter().enumerate() {
            if let Some(t) = texts.get(i) {
                payloads.push(text_block(block));
                payloads.push(text(block, t));
                payloads.push(stop(block));
                block += 1;
            }
            let id = format!("toolu_{i}_x");
            payloads.push(tool_block(block, &id, name));
            payloads.push(json_delta(block, ""));
            if i % 2 == 1 {
                payloads.push(ping());
            }
            let args_text = serde_json::to_string(args).unwrap();
            for piece in split_chars(&args_text, *pieces) {
                payloads.push(json_delta(block, &piece));
            }
            payloads.push(stop(block));
            block += 1;
            want.push(call(&id, name, args.clone()));
        }
        let rest: String = texts.iter().skip(gen_calls.len()).cloned().collect();
        payloads.push(text_block(block));
        payloads.push(text(block, &rest));
        payloads.push(stop(block));
        payloads.push(message_delta(if want.is_empty() { "end_turn" } else { "tool_use" }, 7));
        payloads.push(message_stop());
        let body = sse(&payloads);
        let want = Want { calls: want, text: texts.concat(), reasoning: Some(think) };
        let whole = generated_stream_decodes(&anthropic, &body, &cuts, want)?;
        let make = || Parser::with_config(Format::Anthropic, ParserConfig::new().framing(Framing::Ndjson));
        prop_assert_eq!(run_chunks(&make, &cut_at(&ndjson(&payloads), &cuts)), whole);
    }
}

#[test]
fn anthropic_call_limit_drops_further_calls_once() {
    let body = sse(&[
        start("m", 1),
        tool_block(0, "t0", "a"),
        json_delta(0, "{\"x\": 1}"),
        stop(0),
        tool_block(1, "t1", "b"),
        json_delta(1, "{\"y\":"),
        json_delta(1, " 2}"),
        stop(1),
        message_stop(),
    ]);
    let make = || Parser::with_config(Format::Anthropic, ParserConfig::new().max_calls(1));
    let ev = assert_split_invariant(&make, &body, 20);
    assert_eq!(calls(&ev), vec![call("t0", "a", json!({"x": 1}))]);
    let errs = errors(&ev);
    assert_eq!(errs.len(), 1, "{errs:?}");
    // The call past the limit keeps what it received.
    assert!(matches!(
        errs[0],
        Event::Error {
            kind: ErrorKind::LimitExceeded,
            index: None,
            raw,
            ..
        } if raw == "{\"y\": 2}"
    ));
}

#[test]
fn input_json_delta_inside_a_text_block_is_reported() {
    let body = sse(&[
        start("m", 1),
        text_block(0),
        text(0, "hi"),
        json_delta(0, "{\"z\": 0}"),
        stop(0),
        message_stop(),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 20);
    assert_eq!(common::text(&ev), "hi");
    assert!(ev.iter().any(|e| matches!(e, Event::Error { kind: ErrorKind::MissingName, raw, .. } if raw == "{\"z\": 0}")));
}

/// Captures with bytes flipped, dropped and duplicated: never a panic, always the contract.
#[test]
fn mutated_captures_keep_the_contract() {
    common::mutated_captures_keep_the_contract("anthropic");
}

#[test]
fn anthropic_stream_cut_after_a_call_without_message_stop_is_truncated_with_no_finish() {
    // The first of three calls complete, then the connection drops: no more calls, no
    // `message_delta`, no `message_stop`. The call stands; the stream is reported cut.
    let body = sse(&[
        start("m", 1),
        tool_block(0, "toolu_1", "f"),
        json_delta(0, "{\"a\": 1}"),
        stop(0),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 20);
    assert_eq!(calls(&ev), vec![call("toolu_1", "f", json!({"a": 1}))]);
    assert!(!ev.iter().any(|e| matches!(e, Event::Finish { .. })));
    match ev.last() {
        Some(Event::Error {
            path: _,
            kind: ErrorKind::Truncated,
            index: None,
            message,
            raw,
        }) => {
            assert!(message.contains("`message_stop`"), "{message}");
            assert_eq!(raw, "");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(errors(&ev).len(), 1);
    // Cut after `message_delta` (the stop reason and usage came, `message_stop` did not):
    // still cut off, no Finish.
    let mut body = body;
    body.extend(sse(&[message_delta("tool_use", 3)]));
    let ev = assert_split_invariant(&anthropic, &body, 20);
    assert!(!ev.iter().any(|e| matches!(e, Event::Finish { .. })));
    assert!(matches!(
        ev.last(),
        Some(Event::Error {
            kind: ErrorKind::Truncated,
            index: None,
            ..
        })
    ));
    // With `message_stop`: complete, no error.
    body.extend(sse(&[message_stop()]));
    let ev = assert_split_invariant(&anthropic, &body, 20);
    assert!(errors(&ev).is_empty());
    assert_eq!(finish(&ev).0, Some(FinishReason::ToolCalls));
}

#[test]
fn anthropic_overloaded_error_ends_the_stream_without_a_truncated_error() {
    let body = sse(&[
        start("m", 1),
        text_block(0),
        text(0, "Hi"),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ]);
    let ev = assert_split_invariant(&anthropic, &body, 20);
    let kinds: Vec<ErrorKind> = errors(&ev)
        .iter()
        .map(|e| match e {
            Event::Error { kind, .. } => *kind,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(kinds, vec![ErrorKind::Provider]);
}
