//! `openai-responses`: own fixtures (one per server quirk) at every chunking, every
//! Responses-API capture against a one-shot oracle, and generated streams cut anywhere.

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

fn responses() -> Parser {
    common::parser(Format::OpenAiResponses)
}

fn created() -> Value {
    json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "object": "response",
        "status": "in_progress", "output": [], "usage": null, "tools": [{"type": "function", "name": "f", "parameters": {}}]}})
}

fn fc_added(oi: u64, item_id: &str, call_id: &str, name: &str) -> Value {
    json!({"type": "response.output_item.added", "output_index": oi, "item": {"id": item_id, "type": "function_call",
        "status": "in_progress", "arguments": "", "call_id": call_id, "name": name}})
}

fn fc_delta(oi: u64, item_id: &str, d: &str) -> Value {
    json!({"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": oi, "delta": d, "obfuscation": "xyz"})
}

fn fc_args_done(oi: u64, item_id: &str, a: &str) -> Value {
    json!({"type": "response.function_call_arguments.done", "item_id": item_id, "output_index": oi, "arguments": a})
}

fn fc_done(oi: u64, item_id: &str, call_id: &str, name: &str, a: &str) -> Value {
    json!({"type": "response.output_item.done", "output_index": oi, "item": {"id": item_id, "type": "function_call",
        "status": "completed", "arguments": a, "call_id": call_id, "name": name}})
}

fn ct_added(oi: u64, item_id: &str, call_id: &str, name: &str) -> Value {
    json!({"type": "response.output_item.added", "output_index": oi, "item": {"id": item_id, "type": "custom_tool_call",
        "status": "in_progress", "call_id": call_id, "input": "", "name": name}})
}

fn ct_delta(oi: u64, item_id: &str, d: &str) -> Value {
    json!({"type": "response.custom_tool_call_input.delta", "item_id": item_id, "output_index": oi, "delta": d})
}

fn ct_input_done(oi: u64, item_id: &str, input: &str) -> Value {
    json!({"type": "response.custom_tool_call_input.done", "item_id": item_id, "output_index": oi, "input": input})
}

fn ct_done(oi: u64, item_id: &str, call_id: &str, name: &str, input: &str) -> Value {
    json!({"type": "response.output_item.done", "output_index": oi, "item": {"id": item_id, "type": "custom_tool_call",
        "status": "completed", "call_id": call_id, "input": input, "name": name}})
}

fn item(kind: &str, oi: u64, item_id: &str, done: bool) -> Value {
    let t = if done {
        "response.output_item.done"
    } else {
        "response.output_item.added"
    };
    json!({"type": t, "output_index": oi, "item": {"id": item_id, "type": kind, "status": "in_progress", "content": [], "summary": []}})
}

fn text_delta(oi: u64, item_id: &str, d: &str) -> Value {
    json!({"type": "response.output_text.delta", "item_id": item_id, "output_index": oi, "content_index": 0, "delta": d, "logprobs": []})
}

fn summary_delta(oi: u64, item_id: &str, d: &str) -> Value {
    json!({"type": "response.reasoning_summary_text.delta", "item_id": item_id, "output_index": oi, "summary_index": 0, "delta": d})
}

fn reasoning_text_delta(oi: u64, item_id: &str, d: &str) -> Value {
    json!({"type": "response.reasoning_text.delta", "item_id": item_id, "output_index": oi, "content_index": 0, "delta": d})
}

fn completed(input_tokens: u64, output_tokens: u64) -> Value {
    json!({"type": "response.completed", "response": {"id": "resp_1", "object": "response", "status": "completed",
        "error": null, "incomplete_details": null, "output": [{"type": "function_call", "arguments": "{\"ignored\":1}", "name": "zzz", "call_id": "zzz"}],
        "usage": {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": input_tokens + output_tokens}}})
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
fn openai_reasoning_summary_text_then_call_with_usage() {
    let body = sse(&[
        created(),
        item("reasoning", 0, "rs_1", false),
        summary_delta(0, "rs_1", "**Thinking** "),
        summary_delta(0, "rs_1", "about Paris"),
        item("reasoning", 0, "rs_1", true),
        item("message", 1, "msg_1", false),
        text_delta(1, "msg_1", "Checking é😀"),
        json!({"type": "response.output_text.done", "item_id": "msg_1", "output_index": 1, "content_index": 0, "text": "Checking é😀"}),
        item("message", 1, "msg_1", true),
        fc_added(2, "fc_1", "call_1", "get_weather"),
        fc_delta(2, "fc_1", "{\"city\""),
        fc_delta(2, "fc_1", ": \"Paris\"}"),
        fc_args_done(2, "fc_1", "{\"city\": \"Paris\"}"),
        fc_done(2, "fc_1", "call_1", "get_weather", "{\"city\": \"Paris\"}"),
        completed(20, 11),
    ]);
    let ev = assert_split_invariant(&responses, &body, 50);
    assert_eq!(reasoning(&ev), "**Thinking** about Paris");
    assert_eq!(text(&ev), "Checking é😀");
    assert_eq!(
        calls(&ev),
        vec![call("call_1", "get_weather", json!({"city": "Paris"}))]
    );
    assert_eq!(all_args(&ev, 0), "{\"city\": \"Paris\"}");
    assert!(errors(&ev).is_empty(), "{ev:?}");
    match ev.last() {
        Some(Event::Finish { reason, usage }) => {
            assert_eq!(reason, &Some(FinishReason::ToolCalls));
            let u = usage.as_ref().unwrap();
            assert_eq!(
                (u.input_tokens, u.output_tokens, u.total_tokens),
                (Some(20), Some(11), Some(31))
            );
        }
        other => panic!("last event {other:?}"),
    }
}

#[test]
fn openai_end_is_emitted_when_arguments_close() {
    let body = sse(&[
        fc_added(0, "fc_1", "call_1", "f"),
        fc_delta(0, "fc_1", "{\"a\":"),
        fc_delta(0, "fc_1", "1}"),
    ]);
    let mut p = responses();
    let mut out = Vec::new();
    p.feed(&body, &mut out).unwrap();
    assert!(
        matches!(out.last(), Some(Event::ToolCallEnd { index: 0, .. })),
        "{out:?}"
    );
}

#[test]
fn openai_start_is_emitted_by_the_feed_that_completes_output_item_added() {
    let mut body = sse(&[created()]);
    let prefix = body.len();
    body.extend(sse(&[fc_added(0, "fc_1", "call_abc", "write_file")]));
    for cut in prefix..body.len() {
        let mut p = responses();
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
                id: "call_abc".into(),
                name: "write_file".into()
            }]
        );
    }
}

#[test]
fn mirascope_gpt_4o_parallel_same_tool_twice_interleaved() {
    // Two calls of one tool; deltas interleaved (mapped by item_id, not by order).
    let body = sse(&[
        created(),
        fc_added(0, "fc_a", "call_a", "secret_retrieval_tool"),
        fc_added(1, "fc_b", "call_b", "secret_retrieval_tool"),
        fc_delta(0, "fc_a", "{\"password\":"),
        fc_delta(1, "fc_b", "{\"password\":"),
        fc_delta(1, "fc_b", " \"radiance\"}"),
        fc_delta(0, "fc_a", " \"mellon\"}"),
        fc_args_done(0, "fc_a", "{\"password\": \"mellon\"}"),
        fc_done(
            0,
            "fc_a",
            "call_a",
            "secret_retrieval_tool",
            "{\"password\": \"mellon\"}",
        ),
        fc_args_done(1, "fc_b", "{\"password\": \"radiance\"}"),
        fc_done(
            1,
            "fc_b",
            "call_b",
            "secret_retrieval_tool",
            "{\"password\": \"radiance\"}",
        ),
        completed(5, 5),
    ]);
    let ev = assert_split_invariant(&responses, &body, 30);
    let mut got = calls(&ev);
    got.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(
        got,
        vec![
            call(
                "call_a",
                "secret_retrieval_tool",
                json!({"password": "mellon"})
            ),
            call(
                "call_b",
                "secret_retrieval_tool",
                json!({"password": "radiance"})
            ),
        ]
    );
    assert!(errors(&ev).is_empty());
}

#[test]
fn lmstudio_arguments_only_in_done_events() {
    let body = sse(&[
        created(),
        item("reasoning", 0, "rs_1", false),
        reasoning_text_delta(0, "rs_1", "The user asks for weather."),
        json!({"type": "response.reasoning_text.done", "item_id": "rs_1", "output_index": 0, "content_index": 0, "text": "The user asks for weather."}),
        item("reasoning", 0, "rs_1", true),
        fc_added(1, "fc_z", "call_2025306790300011", "weather"),
        fc_args_done(1, "fc_z", "{\"location\":\"San Francisco\"}"),
        fc_done(
            1,
            "fc_z",
            "call_2025306790300011",
            "weather",
            "{\"location\":\"San Francisco\"}",
        ),
        completed(5, 5),
    ]);
    let ev = assert_split_invariant(&responses, &body, 30);
    assert_eq!(reasoning(&ev), "The user asks for weather.");
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_2025306790300011",
            "weather",
            json!({"location": "San Francisco"})
        )]
    );
    assert_eq!(all_args(&ev, 0), "{\"location\":\"San Francisco\"}");
    assert!(errors(&ev).is_empty());
    // The call ended at arguments.done, before output_item.done.
    let mut p = responses();
    let mut out = Vec::new();
    let upto = sse(&[
        fc_added(1, "fc_z", "c", "weather"),
        fc_args_done(1, "fc_z", "{}"),
    ]);
    p.feed(&upto, &mut out).unwrap();
    assert!(matches!(out.last(), Some(Event::ToolCallEnd { .. })));
}

#[test]
fn arguments_only_in_output_item_done() {
    let body = sse(&[
        fc_added(0, "fc_1", "call_1", "f"),
        fc_done(0, "fc_1", "call_1", "f", "{\"k\": [1, 2]}"),
        completed(1, 1),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert_eq!(calls(&ev), vec![call("call_1", "f", json!({"k": [1, 2]}))]);
    assert!(errors(&ev).is_empty());
}

#[test]
fn bedrock_mantle_data_line_before_event_line_and_whole_args_in_one_delta() {
    let payloads = [
        fc_added(0, "fc_8189", "call_0", "first_tool"),
        fc_delta(0, "fc_8189", "{}"),
        fc_args_done(0, "fc_8189", "{}"),
        fc_done(0, "fc_8189", "call_0", "first_tool", "{}"),
        completed(3, 4),
    ];
    let mut body = String::new();
    for p in &payloads {
        body.push_str(&format!(
            "data: {p}\nevent: {}\n\n",
            p["type"].as_str().unwrap()
        ));
    }
    let ev = assert_split_invariant(&responses, body.as_bytes(), 30);
    assert_eq!(calls(&ev), vec![call("call_0", "first_tool", json!({}))]);
    assert!(errors(&ev).is_empty());
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::ToolCalls),
            ..
        })
    ));
}

#[test]
fn done_arguments_differing_from_deltas_are_reported_with_the_done_text() {
    let body = sse(&[
        fc_added(0, "fc_1", "call_1", "f"),
        fc_delta(0, "fc_1", "{\"a\": 1}"),
        fc_args_done(0, "fc_1", "{\"a\": 2}"),
        fc_done(0, "fc_1", "call_1", "f", "{\"a\": 2}"),
        // Same value, other spacing: not reported.
        fc_added(1, "fc_2", "call_2", "g"),
        fc_delta(1, "fc_2", "{\"b\":1}"),
        fc_args_done(1, "fc_2", "{\"b\": 1}"),
        fc_done(1, "fc_2", "call_2", "g", "{\"b\": 1}"),
        completed(1, 1),
    ]);
    let ev = assert_split_invariant(&responses, &body, 30);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_1", "f", json!({"a": 1})),
            call("call_2", "g", json!({"b": 1}))
        ]
    );
    let errs = errors(&ev);
    assert_eq!(errs.len(), 2, "{errs:?}"); // arguments.done and output_item.done
    for e in errs {
        match e {
            Event::Error {
                kind: ErrorKind::UnexpectedPayload,
                message,
                raw,
                ..
            } => {
                assert!(message.contains("call_1"), "{message}");
                // The done text; the streamed one is in the call's ToolCallArgs events
                // (it is not kept: only its length and CRC-32 are).
                assert!(raw.contains("{\"a\": 2}"), "{raw}");
                assert!(!raw.contains("{\"a\": 1}"), "{raw}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn done_arguments_when_deltas_never_closed_report_the_call_truncated() {
    let body = sse(&[
        fc_added(0, "fc_1", "call_1", "f"),
        fc_delta(0, "fc_1", "{\"a\": "),
        fc_args_done(0, "fc_1", "{\"a\": 1}"),
        fc_done(0, "fc_1", "call_1", "f", "{\"a\": 1}"),
        completed(1, 1),
    ]);
    let ev = assert_split_invariant(&responses, &body, 30);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Error {
            kind: ErrorKind::UnexpectedPayload,
            index: None,
            ..
        }
    )));
    assert!(ev.iter().any(|e| matches!(e, Event::Error { kind: ErrorKind::Truncated, index: Some(0), raw, .. } if raw == "{\"a\": ")));
}

#[test]
fn rust_genai_custom_grammar_tool_streams_input_as_a_json_string() {
    let input = "*** Begin Patch\n*** Update File: hello.py\n@@\n-def greet(name):\n+def welcome(name):\n     print(f\"Hello, {name}!\")\n*** End Patch\n";
    let mut payloads = vec![
        created(),
        item("reasoning", 0, "rs_1", false),
        item("reasoning", 0, "rs_1", true),
        ct_added(1, "ctc_1", "call_dnK", "apply_patch"),
    ];
    for piece in [
        "***",
        " Begin",
        " Patch",
        "\n",
        "*** Update File: hello.py\n@@\n-def greet(name):\n+def welcome(name):\n     print(f\"Hello, {name}!\")\n",
        "*** End",
        " Patch",
        "\n",
    ] {
        payloads.push(ct_delta(1, "ctc_1", piece));
    }
    payloads.push(ct_input_done(1, "ctc_1", input));
    payloads.push(ct_done(1, "ctc_1", "call_dnK", "apply_patch", input));
    payloads.push(completed(9, 9));
    let ev = assert_split_invariant(&responses, &sse(&payloads), 30);
    assert_eq!(
        calls(&ev),
        vec![call("call_dnK", "apply_patch", Value::String(input.into()))]
    );
    // The args deltas are the JSON-escaped input: `"` first, escaped text, `"` last.
    assert_eq!(all_args(&ev, 0), serde_json::to_string(input).unwrap());
    assert!(errors(&ev).is_empty(), "{ev:?}");
    // The opening quote goes out with the Start; the closing one at input.done.
    let mut p = responses();
    let mut out = Vec::new();
    p.feed(
        &sse(&[ct_added(1, "ctc_1", "call_dnK", "apply_patch")]),
        &mut out,
    )
    .unwrap();
    assert_eq!(
        out.last(),
        Some(&Event::ToolCallArgs {
            index: 0,
            delta: "\"".into()
        })
    );
    p.feed(
        &sse(&[
            ct_delta(1, "ctc_1", "a\"b"),
            ct_input_done(1, "ctc_1", "a\"b"),
        ]),
        &mut out,
    )
    .unwrap();
    assert!(
        matches!(out.last(), Some(Event::ToolCallEnd { arguments: Value::String(s), .. }) if s == "a\"b")
    );
}

#[test]
fn custom_tool_input_only_in_done_events() {
    let body = sse(&[
        ct_added(0, "ctc_1", "call_c", "run_sql"),
        ct_done(0, "ctc_1", "call_c", "run_sql", "SELECT 'é' \\ 1;\n"),
        completed(1, 1),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert_eq!(
        calls(&ev),
        vec![call("call_c", "run_sql", json!("SELECT 'é' \\ 1;\n"))]
    );
    // Empty custom input: an empty string.
    let body = sse(&[
        ct_added(0, "ctc_1", "call_c", "noop"),
        ct_done(0, "ctc_1", "call_c", "noop", ""),
        completed(1, 1),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert_eq!(calls(&ev), vec![call("call_c", "noop", json!(""))]);
}

#[test]
fn custom_tool_input_done_differing_from_deltas_is_reported() {
    let body = sse(&[
        ct_added(0, "ctc_1", "call_c", "patch"),
        ct_delta(0, "ctc_1", "abc"),
        ct_input_done(0, "ctc_1", "abd"),
        ct_done(0, "ctc_1", "call_c", "patch", "abd"),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert_eq!(calls(&ev), vec![call("call_c", "patch", json!("abc"))]);
    assert!(ev.iter().any(|e| matches!(e, Event::Error { kind: ErrorKind::UnexpectedPayload, raw, .. } if raw.contains("abd"))));
}

#[test]
fn pydantic_ai_web_search_and_message_items_make_no_call() {
    let body = sse(&[
        created(),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}}),
        json!({"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "x"}}}),
        item("message", 1, "msg_1", false),
        json!({"type": "response.content_part.added", "item_id": "msg_1", "output_index": 1, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
        text_delta(1, "msg_1", "Found it."),
        json!({"type": "response.output_text.annotation.added", "item_id": "msg_1", "output_index": 1, "annotation": {"type": "url_citation", "url": "https://x"}}),
        item("message", 1, "msg_1", true),
        completed(1, 1),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert!(calls(&ev).is_empty());
    assert_eq!(text(&ev), "Found it.");
    assert!(errors(&ev).is_empty(), "{ev:?}");
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::Stop),
            ..
        })
    ));
}

#[test]
fn deepseek_reasoning_text_deltas() {
    let body = sse(&[
        item("reasoning", 0, "fa6f", false),
        reasoning_text_delta(0, "fa6f", "The"),
        reasoning_text_delta(0, "fa6f", " user asks"),
        item("reasoning", 0, "fa6f", true),
        fc_added(1, "fc_d", "call_00_x", "get_temperature"),
        fc_delta(1, "fc_d", "{\"city\": \"Tokyo\"}"),
        fc_done(
            1,
            "fc_d",
            "call_00_x",
            "get_temperature",
            "{\"city\": \"Tokyo\"}",
        ),
        completed(1, 1),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert_eq!(reasoning(&ev), "The user asks");
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_00_x",
            "get_temperature",
            json!({"city": "Tokyo"})
        )]
    );
}

#[test]
fn incomplete_max_output_tokens_is_length_and_the_open_call_truncated() {
    let body = sse(&[
        fc_added(0, "fc_1", "call_1", "write_file"),
        fc_delta(0, "fc_1", "{\"content\": \"hel"),
        json!({"type": "response.incomplete", "response": {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
            "usage": {"input_tokens": 3, "output_tokens": 100}}}),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Error {
            kind: ErrorKind::Truncated,
            index: Some(0),
            ..
        }
    )));
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::Length),
            usage: Some(_)
        })
    ));
}

#[test]
fn failed_response_is_a_provider_error_and_finish_error() {
    let body = sse(&[
        created(),
        json!({"type": "response.failed", "response": {"status": "failed", "error": {"code": "server_error", "message": "The model failed"}, "usage": null}}),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert!(ev.iter().any(|e| matches!(e, Event::Error { kind: ErrorKind::Provider, message, .. } if message.contains("The model failed") && message.contains("server_error"))));
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::Error),
            usage: None
        })
    ));
}

#[test]
fn error_event_is_a_provider_error_with_the_payload() {
    let body = sse(&[
        item("message", 0, "msg_1", false),
        text_delta(0, "msg_1", "partial"),
        json!({"type": "error", "code": "rate_limit_exceeded", "message": "Slow down", "param": null, "sequence_number": 4}),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
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
                message.contains("Slow down") && message.contains("rate_limit_exceeded"),
                "{message}"
            );
            assert!(raw.contains("\"sequence_number\":4"));
            assert_eq!(*index, None);
        }
        _ => unreachable!(),
    }
    assert_eq!(text(&ev), "partial");
    assert!(!ev.iter().any(|e| matches!(e, Event::Finish { .. })));
}

#[test]
fn deltas_before_output_item_added_are_kept_until_the_name() {
    let body = sse(&[
        fc_delta(0, "fc_1", "{\"a\":"),
        fc_delta(0, "fc_1", " 1}"),
        fc_added(0, "fc_1", "call_late", "f"),
        fc_done(0, "fc_1", "call_late", "f", "{\"a\": 1}"),
        completed(1, 1),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert_eq!(calls(&ev), vec![call("call_late", "f", json!({"a": 1}))]);
    assert!(errors(&ev).is_empty(), "{ev:?}");
}

#[test]
fn noarg_call_gets_empty_object() {
    let body = sse(&[
        fc_added(0, "fc_1", "call_1", "get_time"),
        fc_done(0, "fc_1", "call_1", "get_time", ""),
        completed(1, 1),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert_eq!(calls(&ev), vec![call("call_1", "get_time", json!({}))]);
    assert_eq!(all_args(&ev, 0), "{}");
}

#[test]
fn responses_bad_json_and_unknown_events() {
    let mut body = b"data: {\"type\":\"response.output_text.delta\",\n\n".to_vec();
    body.extend(sse(&[
        json!({"type": "response.future_thing.delta", "delta": {"not": "a string"}}),
        json!({"type": "response.output_text.delta", "delta": 5}),
        text_delta(0, "m", "ok"),
        // The stream's end (without it, `finish` would add a `truncated` error).
        completed(1, 1),
    ]));
    let ev = assert_split_invariant(&responses, &body, 10);
    assert_eq!(text(&ev), "ok");
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

// ---------------------------------------------------------------------------------
// Captures: every Responses-API recording, against a one-shot oracle.

/// The one-shot reference decoder: every payload parsed whole; per tool-call item (by
/// item id) the argument deltas concatenated, or, with no delta, the `arguments` of its
/// done item; custom tool input as a JSON string; text and reasoning deltas concatenated.
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
    // (item id, call id, name, custom, deltas, done text)
    let mut items: Vec<(String, String, String, bool, String, String)> = Vec::new();
    for p in payloads {
        let t = p["type"].as_str().unwrap_or("");
        let it = &p["item"];
        match t {
            "response.output_item.added" | "response.output_item.done" => {
                let custom = match it["type"].as_str() {
                    Some("function_call") => false,
                    Some("custom_tool_call") => true,
                    _ => continue,
                };
                let id = it["id"].as_str().unwrap().to_string();
                if t.ends_with("added") {
                    items.push((
                        id,
                        it["call_id"].as_str().unwrap().into(),
                        it["name"].as_str().unwrap().into(),
                        custom,
                        String::new(),
                        String::new(),
                    ));
                } else {
                    let entry = items.iter_mut().find(|x| x.0 == id).unwrap();
                    let key = if custom { "input" } else { "arguments" };
                    entry.5 = it[key].as_str().unwrap().into();
                }
            }
            "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
                let id = p["item_id"].as_str().unwrap();
                items
                    .iter_mut()
                    .find(|x| x.0 == id)
                    .unwrap()
                    .4
                    .push_str(p["delta"].as_str().unwrap());
            }
            "response.output_text.delta" => text.push_str(p["delta"].as_str().unwrap()),
            t if t.starts_with("response.reasoning") && t.ends_with(".delta") => {
                reasoning.push_str(p["delta"].as_str().unwrap())
            }
            _ => {}
        }
    }
    let calls = items
        .into_iter()
        .map(|(_, id, name, custom, deltas, done)| {
            let given = if deltas.is_empty() { done } else { deltas };
            let arguments = if custom {
                Value::String(given)
            } else if given.is_empty() {
                json!({})
            } else {
                serde_json::from_str(&given).expect("oracle: args parse")
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
fn captures_openai_responses_match_the_oracle_at_every_chunking() {
    CaptureOracle {
        format: "openai-responses",
        name: "Responses",
        min_captures: 14,
        min_calls: 16,
        oracle: &|cap| oracle(&cap.bytes, cap.framing).into(),
        check: &tool_calls_with_token_counts,
        chunked: None,
    }
    .run();
}

// ---------------------------------------------------------------------------------
// Generated streams.

/// How a generated call sends its arguments.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Deltas, then both done events.
    Deltas,
    /// Only `arguments.done` / `input.done` and `output_item.done` (LM Studio).
    DoneOnly,
    /// Only `output_item.done`.
    ItemDoneOnly,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Random function and custom calls (arbitrary names, arguments / free-form input with
    /// escapes and non-ASCII), sent as deltas or only in the done events, with text and
    /// reasoning items between them, the body cut at random points: the decoded calls
    /// are the generated ones.
    #[test]
    fn generated_streams_decode_to_the_generated_calls(
        texts in proptest::collection::vec("\\PC{0,12}", 0..3),
        think in "\\PC{0,12}",
        gen_calls in proptest::collection::vec(
            ("[^\\s<\\p{C}]{1,16}", arb_args(), "[\\PC\"\\\\\n\t]{0,30}", any::<bool>(), 0usize..3, 1usize..9),
            0..4,
        ),
        cuts in proptest::collection::vec(0usize..6000, 0..20),
    ) {
        let mut payloads = vec![created()];
        let mut oi = 0u64;
        if !think.is_empty() {
            payloads.push(item("reasoning", oi, "rs_0", false));
            payloads.push(summary_delta(oi, "rs_0", &think));
            payloads.push(item("reasoning", oi, "rs_0", true));
            oi += 1;
        }
        let mut want = Vec::new();
        for (i, (name, args, input, custom, mode, pieces)) in gen_calls.iter().enumerate() {
            if let Some(t) = texts.get(i) {
                let id = format!("msg_{i}");
                payloads.push(item("message", oi, &id, false));
                payloads.push(text_delta(oi, &id, t));
                payloads.push(item("message", oi, &id, true));
                oi += 1;
            }
            let mode = [Mode::Deltas, Mode::DoneOnly, Mode::ItemDoneOnly][*mode];
            let item_id = format!("it_{i}");
            let call_id = format!("call_{i}_x");
            if *custom {
                payloads.push(ct_added(oi, &item_id, &call_id, name));
                if matches!(mode, Mode::Deltas) {
                    for piece in split_chars(input, *pieces) {
                        payloads.push(ct_delta(oi, &item_id, &piece));
                    }
                }
                if !matches!(mode, Mode::ItemDoneOnly) {
                    payloads.push(ct_input_done(oi, &item_id, input));
                }
                payloads.push(ct_done(oi, &item_id, &call_id, name, input));
                want.push(call(&call_id, name, Value::String(input.clone())));
            } else {
                let args_text = serde_json::to_string(args).unwrap();
                payloads.push(fc_added(oi, &item_id, &call_id, name));
                if matches!(mode, Mode::Deltas) {
                    for piece in split_chars(&args_text, *pieces) {
                        payloads.push(fc_delta(oi, &item_id, &piece));
                    }
                }
                if !matches!(mode, Mode::ItemDoneOnly) {
                    payloads.push(fc_args_done(oi, &item_id, &args_text));
                }
                payloads.push(fc_done(oi, &item_id, &call_id, name, &args_text));
                want.push(call(&call_id, name, args.clone()));
            }
            oi += 1;
        }
        let rest: String = texts.iter().skip(gen_calls.len()).cloned().collect();
        payloads.push(item("message", oi, "msg_last", false));
        payloads.push(text_delta(oi, "msg_last", &rest));
        payloads.push(item("message", oi, "msg_last", true));
        payloads.push(completed(10, 20));
        let body = sse(&payloads);
        let want = Want { calls: want, text: texts.concat(), reasoning: Some(think) };
        generated_stream_decodes(&responses, &body, &cuts, want)?;
    }
}

#[test]
fn arguments_sent_as_an_object_in_the_done_item() {
    let body = sse(&[
        fc_added(0, "fc_1", "call_1", "f"),
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "fc_1", "type": "function_call",
            "status": "completed", "arguments": {"a": [1, "é"]}, "call_id": "call_1", "name": "f"}}),
        completed(1, 1),
    ]);
    let ev = assert_split_invariant(&responses, &body, 20);
    assert_eq!(
        calls(&ev),
        vec![call("call_1", "f", json!({"a": [1, "é"]}))]
    );
    assert!(errors(&ev).is_empty());
}

#[test]
fn responses_call_limit_drops_further_calls_once() {
    let body = sse(&[
        fc_added(0, "fc_0", "call_0", "a"),
        fc_delta(0, "fc_0", "{}"),
        fc_done(0, "fc_0", "call_0", "a", "{}"),
        ct_added(1, "ctc_1", "call_1", "b"),
        ct_delta(1, "ctc_1", "text"),
        ct_done(1, "ctc_1", "call_1", "b", "text"),
        completed(1, 1),
    ]);
    let make = || Parser::with_config(Format::OpenAiResponses, ParserConfig::new().max_calls(1));
    let ev = assert_split_invariant(&make, &body, 20);
    assert_eq!(calls(&ev), vec![call("call_0", "a", json!({}))]);
    let errs = errors(&ev);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(matches!(
        errs[0],
        Event::Error {
            kind: ErrorKind::LimitExceeded,
            ..
        }
    ));
}

/// Captures with bytes flipped, dropped and duplicated: never a panic, always the contract.
#[test]
fn mutated_captures_keep_the_contract() {
    common::mutated_captures_keep_the_contract("openai-responses");
}
