//! `ollama`: own fixtures (one per quirk, named after the server that shows it) at
//! every chunking, every Ollama capture against a one-shot oracle, and a proptest of
//! generated streams.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    unreachable_pub
)]

mod common;

use common::*;
use serde_json::{Value, json};
use toolstream::{ErrorKind, Event, FinishReason, Format, Parser};

fn msg(message: Value) -> Value {
    json!({"model": "qwen3:0.6b", "created_at": "2025-07-29T17:37:08.301403Z", "message": message, "done": false})
}

fn done(reason: &str) -> Value {
    json!({"model": "qwen3:0.6b", "created_at": "2025-07-29T17:37:09Z", "message": {"role": "assistant", "content": ""},
        "done": true, "done_reason": reason, "total_duration": 609334000, "load_duration": 85744542,
        "prompt_eval_count": 339, "prompt_eval_duration": 102984708, "eval_count": 11, "eval_duration": 420012834})
}

fn generate(response: &str) -> Value {
    json!({"model": "llama3.2:3b-instruct-fp16", "created_at": "2025-07-29T17:37:08Z", "done": false, "done_reason": null,
        "total_duration": null, "prompt_eval_count": null, "eval_count": null, "response": response, "thinking": null, "context": null})
}

fn ollama() -> Parser {
    common::parser(Format::Ollama)
}

#[test]
fn ollama_chat_qwen3_thinking_then_whole_call_stop_is_tool_calls() {
    let body = ndjson(&[
        msg(json!({"role": "assistant", "content": "", "thinking": "The user wants"})),
        msg(json!({"role": "assistant", "content": "", "thinking": " the weather."})),
        msg(
            json!({"role": "assistant", "content": "", "tool_calls": [{"function": {"index": 0, "name": "get_weather", "arguments": {"city": "Tokyo"}}}]}),
        ),
        done("stop"),
    ]);
    let ev = assert_split_invariant(&ollama, &body, 40);
    assert_eq!(reasoning(&ev), "The user wants the weather.");
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "get_weather", json!({"city": "Tokyo"}))]
    );
    let (reason, usage) = finish(&ev);
    assert_eq!(reason, Some(FinishReason::ToolCalls));
    let usage = usage.unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (Some(339), Some(11), Some(350))
    );
    assert_eq!(usage.raw["eval_duration"], 420012834);
}

#[test]
fn ollama_chat_arguments_are_the_json_text_as_received() {
    // Ollama writes arguments as an object; its JSON text, as received, is the delta.
    let line = r#"{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"b": [1, 2.50], "a": "é\"\u00e9"}}}]},"done":false}"#;
    let mut body = line.as_bytes().to_vec();
    body.push(b'\n');
    let ev = assert_split_invariant(&ollama, &body, 20);
    assert_eq!(args_text(&ev, 0), r#"{"b": [1, 2.50], "a": "é\"\u00e9"}"#);
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "f", json!({"b": [1, 2.5], "a": "é\"é"}))]
    );
}

#[test]
fn ollama_chat_newer_server_ids_and_parallel_calls_in_one_line() {
    let body = ndjson(&[
        msg(
            json!({"role": "assistant", "content": "Checking both.", "tool_calls": [
                {"id": "call_wteop8bt", "function": {"index": 0, "name": "run_command", "arguments": {"command": "ls"}}},
                {"id": "call_rk2xye1l", "function": {"index": 1, "name": "run_command", "arguments": {"command": "ls -l"}}}
            ]}),
        ),
        done("stop"),
    ]);
    let ev = assert_split_invariant(&ollama, &body, 40);
    assert_eq!(text(&ev), "Checking both.");
    assert_eq!(
        calls(&ev),
        vec![
            call("call_wteop8bt", "run_command", json!({"command": "ls"})),
            call("call_rk2xye1l", "run_command", json!({"command": "ls -l"})),
        ]
    );
}

#[test]
fn ollama_chat_older_server_every_call_index_zero_in_separate_lines() {
    let body = ndjson(&[
        msg(
            json!({"role": "assistant", "content": "", "tool_calls": [{"function": {"index": 0, "name": "a", "arguments": {"x": 1}}}]}),
        ),
        msg(
            json!({"role": "assistant", "content": "", "tool_calls": [{"function": {"index": 0, "name": "b", "arguments": {"y": 2}}}]}),
        ),
        done("stop"),
    ]);
    let ev = assert_split_invariant(&ollama, &body, 40);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "a", json!({"x": 1})),
            call("call_1", "b", json!({"y": 2}))
        ]
    );
}

#[test]
fn ollama_chat_noarg_calls_get_empty_object() {
    let body = ndjson(&[
        msg(json!({"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "get_time", "arguments": {}}},
            {"function": {"name": "get_date"}},
            {"function": {"name": "get_zone", "arguments": null}}
        ]})),
        done("stop"),
    ]);
    let ev = assert_split_invariant(&ollama, &body, 40);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_time", json!({})),
            call("call_1", "get_date", json!({})),
            call("call_2", "get_zone", json!({}))
        ]
    );
}

#[test]
fn ollama_chat_arguments_as_a_json_string() {
    let body = ndjson(&[msg(
        json!({"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": "{\"q\": \"x\"}"}}]}),
    )]);
    let ev = assert_split_invariant(&ollama, &body, 20);
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"q": "x"}))]);
}

#[test]
fn ollama_chat_text_only_stop() {
    let body = ndjson(&[
        msg(json!({"role": "assistant", "content": "Hello"})),
        msg(json!({"role": "assistant", "content": ", wörld 😀"})),
        done("stop"),
    ]);
    let ev = assert_split_invariant(&ollama, &body, 40);
    assert_eq!(text(&ev), "Hello, wörld 😀");
    assert_eq!(finish(&ev).0, Some(FinishReason::Stop));
}

#[test]
fn ollama_length_done_reason_is_length() {
    let body = ndjson(&[
        msg(json!({"role": "assistant", "content": "abc"})),
        done("length"),
    ]);
    let ev = assert_split_invariant(&ollama, &body, 10);
    assert_eq!(finish(&ev).0, Some(FinishReason::Length));
}

#[test]
fn ollama_generate_raw_llama32_pythonic_call_is_text() {
    let mut lines: Vec<Value> = [
        "[",
        "get",
        "_weather",
        "(location",
        "=\"",
        "San",
        " Francisco",
        ",",
        " CA",
        "\")]",
    ]
    .iter()
    .map(|r| generate(r))
    .collect();
    let mut last = generate("");
    last["done"] = json!(true);
    last["done_reason"] = json!("stop");
    last["prompt_eval_count"] = json!(339);
    last["eval_count"] = json!(11);
    lines.push(last);
    let ev = assert_split_invariant(&ollama, &ndjson(&lines), 40);
    // The call is the model's raw text here; `--content llama-pythonic` scans it.
    assert_eq!(text(&ev), "[get_weather(location=\"San Francisco, CA\")]");
    assert!(calls(&ev).is_empty());
    assert_eq!(finish(&ev).0, Some(FinishReason::Stop));
}

#[test]
fn ollama_generate_thinking_field_is_reasoning() {
    let mut a = generate("");
    a["thinking"] = json!("hmm, ");
    let mut b = generate("");
    b["thinking"] = json!("ok");
    let body = ndjson(&[a, b, generate("Answer")]);
    let ev = assert_split_invariant(&ollama, &body, 20);
    assert_eq!(reasoning(&ev), "hmm, ok");
    assert_eq!(text(&ev), "Answer");
    assert!(
        !ev.iter().any(|e| matches!(e, Event::Finish { .. })),
        "no done line, no finish"
    );
}

#[test]
fn ollama_error_line_is_a_provider_error() {
    let mut body = ndjson(&[msg(json!({"role": "assistant", "content": "par"}))]);
    body.extend_from_slice(
        b"{\"error\":\"model requires more system memory (8.0 GiB) than is available\"}\n",
    );
    let ev = assert_split_invariant(&ollama, &body, 20);
    match errors(&ev).as_slice() {
        [
            Event::Error {
                path: _,
                kind: ErrorKind::Provider,
                message,
                raw,
                index: None,
            },
        ] => {
            assert!(message.starts_with("model requires more system memory"));
            assert!(raw.contains("\"error\""));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(text(&ev), "par");
}

#[test]
fn ollama_bad_line_is_an_error_and_parsing_goes_on() {
    let mut body = b"{\"message\": oops}\n".to_vec();
    body.extend(ndjson(&[
        msg(json!({"role": "assistant", "content": "ok"})),
        done("stop"),
    ]));
    let ev = assert_split_invariant(&ollama, &body, 10);
    assert_eq!(text(&ev), "ok");
    assert!(matches!(
        ev.first(),
        Some(Event::Error {
            kind: ErrorKind::InvalidJson,
            ..
        })
    ));
}

#[test]
fn ollama_call_without_name_is_an_error() {
    let body = ndjson(&[msg(
        json!({"role": "assistant", "content": "", "tool_calls": [{"function": {"arguments": {"a": 1}}}]}),
    )]);
    let ev = assert_split_invariant(&ollama, &body, 10);
    assert!(calls(&ev).is_empty());
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Error {
            kind: ErrorKind::MissingName,
            ..
        }
    )));
}

#[test]
fn ollama_whole_call_ends_in_the_feed_of_its_line() {
    let body = ndjson(&[msg(
        json!({"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}),
    )]);
    let mut p = ollama();
    let mut out = Vec::new();
    p.feed(&body, &mut out).unwrap();
    assert!(
        matches!(out.last(), Some(Event::ToolCallEnd { .. })),
        "{out:?}"
    );
}

// ---------------------------------------------------------------------------------
// Captures: every Ollama recording, against a one-shot oracle.

/// The one-shot reference: every line parsed; `message.content` and `response`
/// concatenated as text, `message.thinking` and `thinking` as reasoning, each
/// `message.tool_calls` entry one call.
fn oracle(bytes: &[u8]) -> (String, String, Vec<Call>) {
    let (mut text, mut reasoning, mut calls) = (String::new(), String::new(), Vec::new());
    for l in String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let v: Value = serde_json::from_str(l).expect("oracle: line parses");
        text.push_str(v["response"].as_str().unwrap_or(""));
        text.push_str(v["message"]["content"].as_str().unwrap_or(""));
        reasoning.push_str(v["thinking"].as_str().unwrap_or(""));
        reasoning.push_str(v["message"]["thinking"].as_str().unwrap_or(""));
        for c in v["message"]["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default()
        {
            let n = calls.len();
            calls.push(Call {
                id: c["id"]
                    .as_str()
                    .map_or_else(|| format!("call_{n}"), str::to_owned),
                name: c["function"]["name"].as_str().unwrap().to_owned(),
                arguments: match &c["function"]["arguments"] {
                    Value::Null => json!({}),
                    a => a.clone(),
                },
            });
        }
    }
    (text, reasoning, calls)
}

#[test]
fn captures_ollama_match_the_oracle_at_every_chunking() {
    CaptureOracle {
        format: "ollama",
        name: "Ollama",
        min_captures: 3,
        min_calls: 0,
        oracle: &|cap| oracle(&cap.bytes).into(),
        check: &|cap, whole| {
            let t = text(whole);
            assert!(
                t.starts_with('[') && t.ends_with(")]"),
                "{}: a raw pythonic call",
                cap.path
            );
            no_errors(cap, whole);
            let (reason, usage) = finish(whole);
            assert_eq!(reason, Some(FinishReason::Stop), "{}", cap.path);
            assert!(
                usage.and_then(|u| u.output_tokens).is_some(),
                "{}",
                cap.path
            );
        },
        chunked: None,
    }
    .run();
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Random thinking, text and whole calls (arguments with escapes and non-ASCII,
    /// several calls per line or one per line, ids or none), the body cut anywhere: the
    /// decoded calls are the generated ones and each call's Args is its JSON text.
    #[test]
    fn generated_streams_decode_to_the_generated_calls(
        thinking in proptest::collection::vec("\\PC{0,12}", 0..3),
        texts in proptest::collection::vec("\\PC{0,12}", 0..3),
        gen_calls in proptest::collection::vec(("[a-zA-Z_]{1,12}", proptest::collection::btree_map("[a-z]{1,6}", "\\PC{0,20}", 0..4), proptest::bool::ANY), 0..5),
        per_line in 1usize..4,
        cuts in proptest::collection::vec(0usize..4000, 0..20),
    ) {
        let mut lines = Vec::new();
        for t in &thinking {
            lines.push(msg(json!({"role": "assistant", "content": "", "thinking": t})));
        }
        for t in &texts {
            lines.push(msg(json!({"role": "assistant", "content": t})));
        }
        let mut want = Vec::new();
        for (n, group) in gen_calls.chunks(per_line).enumerate() {
            let mut entries = Vec::new();
            for (k, (name, args, with_id)) in group.iter().enumerate() {
                let i = n * per_line + k;
                let mut f = json!({"index": i, "name": name, "arguments": args});
                f["arguments"] = serde_json::to_value(args).unwrap();
                let id = if *with_id { format!("call_{i}_{name}") } else { format!("call_{i}") };
                let mut e = json!({"function": f});
                if *with_id {
                    e["id"] = json!(id);
                }
                entries.push(e);
                want.push(call(&id, name, serde_json::to_value(args).unwrap()));
            }
            lines.push(msg(json!({"role": "assistant", "content": "", "tool_calls": entries})));
        }
        lines.push(done("stop"));
        let body = ndjson(&lines);
        let wanted = Want { calls: want.clone(), text: texts.concat(), reasoning: Some(thinking.concat()) };
        let whole = generated_stream_decodes(&ollama, &body, &cuts, wanted)?;
        for (i, c) in want.iter().enumerate() {
            proptest::prop_assert_eq!(args_text(&whole, i), c.arguments.to_string());
        }
    }
}
