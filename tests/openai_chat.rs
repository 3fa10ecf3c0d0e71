//! `openai-chat`: own fixtures (one per server quirk) at every chunking, and every
//! OpenAI-family capture against a one-shot oracle.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::sse_data as sse;
use common::*;
use serde_json::{Value, json};
use toolstream::{ErrorKind, Event, FinishReason, Format, Framing, Parser};

fn chunk(delta: Value) -> Value {
    json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

fn fin(reason: &str) -> Value {
    json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

fn tc(index: Option<i64>, id: Option<&str>, name: Option<&str>, args: Option<&str>) -> Value {
    let mut f = serde_json::Map::new();
    if let Some(n) = name {
        f.insert("name".into(), json!(n));
    }
    if let Some(a) = args {
        f.insert("arguments".into(), json!(a));
    }
    let mut t = serde_json::Map::new();
    if let Some(i) = index {
        t.insert("index".into(), json!(i));
    }
    if let Some(i) = id {
        t.insert("id".into(), json!(i));
    }
    t.insert("type".into(), json!("function"));
    t.insert("function".into(), Value::Object(f));
    chunk(json!({"tool_calls": [Value::Object(t)]}))
}

fn openai() -> Parser {
    common::parser(Format::OpenAiChat)
}

#[test]
fn openai_basic_text_then_call() {
    let body = sse(&[
        chunk(json!({"role": "assistant", "content": "Let me "})),
        chunk(json!({"content": "check. é😀"})),
        tc(Some(0), Some("call_a"), Some("get_weather"), Some("")),
        tc(Some(0), None, None, Some("{\"city\":")),
        tc(Some(0), None, None, Some(" \"Par")),
        tc(Some(0), None, None, Some("is\"}")),
        fin("tool_calls"),
        json!({"object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}),
    ]);
    let mut body = body;
    body.extend_from_slice(b"data: [DONE]\n\n");
    let ev = assert_split_invariant(&openai, &body, 50);
    assert_eq!(text(&ev), "Let me check. é😀");
    assert_eq!(
        calls(&ev),
        vec![call("call_a", "get_weather", json!({"city": "Paris"}))]
    );
    match ev.last() {
        Some(Event::Finish { reason, usage }) => {
            assert_eq!(reason, &Some(FinishReason::ToolCalls));
            assert_eq!(usage.as_ref().and_then(|u| u.total_tokens), Some(12));
        }
        other => panic!("last event {other:?}"),
    }
    // The model's own argument bytes, unchanged.
    let args: String = ev
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(args, "{\"city\": \"Paris\"}");
}

#[test]
fn openai_end_is_emitted_when_arguments_close() {
    let body = sse(&[
        tc(Some(0), Some("call_a"), Some("f"), Some("{\"a\":")),
        tc(Some(0), None, None, Some("1}")),
        tc(Some(1), Some("call_b"), Some("g"), Some("{}")),
    ]);
    let mut p = openai();
    let mut out = Vec::new();
    // Feed up to the end of the second event: the first call must be complete already.
    let second_end = body
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w == b"\n\n")
        .nth(1)
        .map(|(i, _)| i + 2)
        .unwrap();
    p.feed(&body[..second_end], &mut out).unwrap();
    assert!(
        matches!(out.last(), Some(Event::ToolCallEnd { index: 0, .. })),
        "{out:?}"
    );
    p.feed(&body[second_end..], &mut out).unwrap();
    assert!(
        matches!(out.last(), Some(Event::ToolCallEnd { index: 1, .. })),
        "{out:?}"
    );
}

#[test]
fn openai_start_is_emitted_by_the_feed_that_completes_the_name() {
    let body = sse(&[tc(Some(0), Some("call_a"), Some("write_file"), Some(""))]);
    for cut in 0..body.len() {
        let mut p = openai();
        let mut out = Vec::new();
        p.feed(&body[..cut], &mut out).unwrap();
        assert!(
            out.is_empty(),
            "start before the event was complete (cut {cut})"
        );
        p.feed(&body[cut..], &mut out).unwrap();
        assert!(
            matches!(out.first(), Some(Event::ToolCallStart { name, .. }) if name == "write_file")
        );
    }
}

#[test]
fn mistral_no_index_no_id_whole_call_with_finish() {
    let body = sse(&[
        json!({"choices": [{"index": 0, "delta": {"content": null, "tool_calls": [
        {"function": {"name": "A", "arguments": "{\"x\": 1}"}},
        {"function": {"name": "B", "arguments": "{\"y\": 2}"}}
    ]}, "finish_reason": "tool_calls"}]}),
    ]);
    let ev = assert_split_invariant(&openai, &body, 20);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "A", json!({"x": 1})),
            call("call_1", "B", json!({"y": 2}))
        ]
    );
}

#[test]
fn anthropic_compat_index_starting_at_1() {
    let body = sse(&[
        tc(Some(1), Some("toolu_1"), Some("read_file"), Some("")),
        tc(Some(1), None, None, Some("{\"pa")),
        tc(Some(1), None, None, Some("th\": \"a.txt\"}")),
        fin("tool_calls"),
    ]);
    let ev = assert_split_invariant(&openai, &body, 20);
    assert!(matches!(
        ev.first(),
        Some(Event::ToolCallStart { index: 0, .. })
    ));
    assert_eq!(
        calls(&ev),
        vec![call("toolu_1", "read_file", json!({"path": "a.txt"}))]
    );
}

#[test]
fn tgi_id_zero_on_every_delta() {
    let body = sse(&[
        tc(Some(0), Some("0"), Some("get_weather"), Some("{")),
        tc(Some(0), Some("0"), None, Some(" \"city\":")),
        tc(Some(0), Some("0"), None, Some(" \"Tokyo\"}")),
    ]);
    let ev = assert_split_invariant(&openai, &body, 20);
    assert_eq!(
        calls(&ev),
        vec![call("0", "get_weather", json!({"city": "Tokyo"}))]
    );
}

#[test]
fn dashscope_empty_id_on_later_deltas_and_trailing_empty_args() {
    let body = sse(&[
        tc(Some(0), Some("call_x"), Some("weather"), Some("")),
        tc(Some(0), Some(""), None, Some("{\"location\": \"SF")),
        tc(Some(0), Some(""), None, Some("\"}")),
        tc(Some(0), Some(""), None, Some("")),
        fin("tool_calls"),
    ]);
    let ev = assert_split_invariant(&openai, &body, 20);
    assert_eq!(
        calls(&ev),
        vec![call("call_x", "weather", json!({"location": "SF"}))]
    );
    assert!(errors(&ev).is_empty());
}

#[test]
fn openrouter_name_repeated_and_no_finish_reason() {
    let body = sse(&[
        tc(Some(0), Some("0"), Some("llm_version"), Some("")),
        tc(Some(0), Some("0"), Some("llm_version"), Some("{}")),
    ]);
    let mut body = body;
    body.extend_from_slice(b"data: [DONE]\n\n");
    let ev = assert_split_invariant(&openai, &body, 20);
    assert_eq!(calls(&ev), vec![call("0", "llm_version", json!({}))]);
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::ToolCalls),
            ..
        })
    ));
}

#[test]
fn watsonx_empty_name_on_later_deltas() {
    let body = sse(&[
        tc(Some(0), Some("t1"), Some("get_weather"), Some("")),
        tc(Some(0), None, Some(""), Some("{\"location\": \"Paris\"}")),
        tc(Some(1), Some("t2"), Some("get_time"), Some("")),
        tc(Some(1), None, Some(""), Some("{\"location\": \"London\"}")),
        tc(Some(1), None, Some(""), Some("")),
        fin("tool_calls"),
    ]);
    let ev = assert_split_invariant(&openai, &body, 20);
    assert_eq!(
        calls(&ev),
        vec![
            call("t1", "get_weather", json!({"location": "Paris"})),
            call("t2", "get_time", json!({"location": "London"})),
        ]
    );
}

#[test]
fn openai_noarg_calls_get_empty_object() {
    let body = sse(&[
        tc(Some(0), Some("c1"), Some("get_country"), Some("")),
        tc(Some(1), Some("c2"), Some("get_product"), Some("")),
        fin("tool_calls"),
    ]);
    let ev = assert_split_invariant(&openai, &body, 20);
    assert_eq!(
        calls(&ev),
        vec![
            call("c1", "get_country", json!({})),
            call("c2", "get_product", json!({}))
        ]
    );
    // The args deltas still concatenate to the arguments.
    assert!(ev.contains(&Event::ToolCallArgs {
        index: 0,
        delta: "{}".into()
    }));
}

#[test]
fn ollama_stop_despite_calls_is_tool_calls() {
    let body = sse(&[
        tc(
            Some(0),
            Some("call_1"),
            Some("get_weather"),
            Some("{\"location\":\"Paris\"}"),
        ),
        fin("stop"),
    ]);
    let ev = assert_split_invariant(&openai, &body, 10);
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::ToolCalls),
            ..
        })
    ));
}

#[test]
fn tgi_tool_calls_object_with_name_inside_arguments_and_eos() {
    let pieces = [
        "{",
        " \"function\":",
        " {",
        " \"_name\":",
        " \"get_current_weather\",",
        " \"location\":",
        " \"Paris\"",
        " }",
        " }",
        "</s>",
    ];
    let mut payloads: Vec<Value> = pieces
        .iter()
        .map(|a| chunk(json!({"tool_calls": {"index": 0, "id": "", "type": "function", "function": {"name": null, "arguments": a}}})))
        .collect();
    payloads.push(fin("stop"));
    let ev = assert_split_invariant(&openai, &sse(&payloads), 20);
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "get_current_weather",
            json!({"location": "Paris"})
        )]
    );
    assert!(errors(&ev).is_empty(), "{ev:?}");
}

#[test]
fn tgi_eot_token_alone_is_not_a_call() {
    let body = sse(&[
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "", "function": {"name": null, "arguments": "<|eot_id|>"}}]}, "finish_reason": "stop"}]}),
    ]);
    let ev = assert_split_invariant(&openai, &body, 10);
    assert!(calls(&ev).is_empty());
    assert!(errors(&ev).is_empty());
    assert!(matches!(
        ev.last(),
        Some(Event::Finish {
            reason: Some(FinishReason::Stop),
            ..
        })
    ));
}

#[test]
fn trailing_garbage_after_arguments_is_an_error() {
    let body = sse(&[
        tc(Some(0), Some("c"), Some("f"), Some("{\"a\":1}")),
        tc(Some(0), None, None, Some(" oops")),
        fin("tool_calls"),
    ]);
    let ev = assert_split_invariant(&openai, &body, 10);
    assert_eq!(calls(&ev).len(), 1);
    assert!(ev.iter().any(|e| matches!(e, Event::Error { kind: ErrorKind::TrailingArguments, raw, .. } if raw == " oops")));
}

#[test]
fn bedrock_mantle_harmony_token_in_name_is_cut() {
    let body = sse(&[tc(
        Some(0),
        Some("x"),
        Some("get_user_permissions<|channel|>commentary"),
        Some("{\"u\":1}"),
    )]);
    let ev = assert_split_invariant(&openai, &body, 10);
    assert_eq!(
        calls(&ev),
        vec![call("x", "get_user_permissions", json!({"u": 1}))]
    );
}

#[test]
fn reasoning_fields_become_reasoning_events() {
    let body = sse(&[
        chunk(json!({"reasoning_content": "think "})),
        chunk(json!({"reasoning": "more", "channel": "analysis"})),
        chunk(json!({"content": "answer"})),
    ]);
    let ev = assert_split_invariant(&openai, &body, 10);
    assert_eq!(reasoning(&ev), "think more");
    assert_eq!(text(&ev), "answer");
}

#[test]
fn legacy_function_call_delta() {
    let body = sse(&[
        chunk(json!({"function_call": {"name": "lookup", "arguments": ""}})),
        chunk(json!({"function_call": {"arguments": "{\"q\": "}})),
        chunk(json!({"function_call": {"arguments": "\"x\"}"}})),
        fin("function_call"),
    ]);
    let ev = assert_split_invariant(&openai, &body, 10);
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "lookup", json!({"q": "x"}))]
    );
}

#[test]
fn groq_error_event_keeps_failed_generation() {
    let mut body = sse(&[
        chunk(json!({"reasoning": "hmm"})),
        chunk(json!({"content": "maybe"})),
    ]);
    body.extend_from_slice(b"event: error\ndata: {\"error\":{\"message\":\"Tool choice is required\",\"type\":\"invalid_request_error\",\"code\":\"tool_use_failed\",\"failed_generation\":\"{\\\"name\\\": \\\"x\\\"}\"}}\n\n");
    let ev = assert_split_invariant(&openai, &body, 10);
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
            assert!(message.contains("tool_use_failed"));
            assert!(raw.contains("failed_generation"));
            assert_eq!(*index, None);
        }
        _ => unreachable!(),
    }
}

#[test]
fn truncated_stream_reports_the_open_call() {
    let body = sse(&[tc(
        Some(0),
        Some("c"),
        Some("write_file"),
        Some("{\"path\": \"a.txt\", \"content\": \"hel"),
    )]);
    let ev = assert_split_invariant(&openai, &body, 10);
    match ev.last() {
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
fn invalid_arguments_are_an_error_with_the_raw_text() {
    let body = sse(&[
        tc(Some(0), Some("c"), Some("f"), Some("{\"a\": nope}")),
        fin("tool_calls"),
    ]);
    let ev = assert_split_invariant(&openai, &body, 10);
    assert!(ev.iter().any(|e| matches!(e, Event::Error { kind: ErrorKind::InvalidArguments, index: Some(0), raw, .. } if raw == "{\"a\": nope}")));
}

#[test]
fn arguments_as_object_instead_of_string() {
    let body = sse(&[chunk(
        json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": {"a": [1, 2]}}}]}),
    )]);
    let ev = assert_split_invariant(&openai, &body, 10);
    assert_eq!(calls(&ev), vec![call("c", "f", json!({"a": [1, 2]}))]);
}

#[test]
fn other_choices_are_ignored() {
    let body = sse(&[
        json!({"choices": [{"index": 1, "delta": {"content": "other"}}]}),
        json!({"choices": [{"index": 0, "delta": {"content": "mine"}}]}),
    ]);
    let ev = assert_split_invariant(&openai, &body, 10);
    assert_eq!(text(&ev), "mine");
}

#[test]
fn bad_json_payload_is_an_error_and_parsing_goes_on() {
    let mut body = b"data: {not json\n\n".to_vec();
    body.extend(sse(&[chunk(json!({"content": "ok"}))]));
    let ev = assert_split_invariant(&openai, &body, 10);
    assert_eq!(text(&ev), "ok");
    assert!(
        matches!(ev.first(), Some(Event::Error { kind: ErrorKind::InvalidJson, raw, .. }) if raw == "{not json")
    );
}

#[test]
fn feed_after_finish_is_an_error() {
    let mut p = openai();
    let mut out = Vec::new();
    p.finish(&mut out).unwrap();
    let err = p.feed(b"x", &mut out).unwrap_err();
    assert_eq!(err.kind(), toolstream::ParseErrorKind::Finished);
}

// ---------------------------------------------------------------------------------
// Captures: every OpenAI-family recording, against a one-shot oracle.

/// The one-shot reference decoder: whole body in hand, no streaming. Payloads are cut
/// with the simplest possible rules; per choice-0 delta the text, reasoning, and tool
/// calls (grouped by index, or by id / name when there is no index) are concatenated,
/// and each call's arguments parsed once at the end.
fn oracle(bytes: &[u8], framing: Framing) -> (String, String, Vec<Call>) {
    let payloads: Vec<Value> = match framing {
        Framing::Sse => String::from_utf8_lossy(bytes)
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .filter(|d| *d != "[DONE]")
            .filter_map(|d| serde_json::from_str(d).ok())
            .collect(),
        Framing::Ndjson => String::from_utf8_lossy(bytes)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        Framing::JsonArray => serde_json::from_slice::<Vec<Value>>(bytes).unwrap_or_default(),
        _ => unreachable!(),
    };
    let (mut text, mut reasoning) = (String::new(), String::new());
    // (key, id, name, args)
    let mut raw_calls: Vec<(String, String, String, String)> = Vec::new();
    for p in payloads {
        for ch in p["choices"].as_array().cloned().unwrap_or_default() {
            if ch["index"].as_i64().unwrap_or(0) != 0 {
                continue;
            }
            let d = &ch["delta"];
            text.push_str(d["content"].as_str().unwrap_or(""));
            reasoning.push_str(d["reasoning_content"].as_str().unwrap_or(""));
            reasoning.push_str(d["reasoning"].as_str().unwrap_or(""));
            let tcs = match &d["tool_calls"] {
                Value::Array(a) => a.clone(),
                Value::Object(_) => vec![d["tool_calls"].clone()],
                _ => vec![],
            };
            for t in tcs {
                let id = t["id"].as_str().unwrap_or("").to_string();
                let name = t["function"]["name"].as_str().unwrap_or("").to_string();
                let key = match t["index"].as_i64() {
                    Some(i) => format!("i{i}"),
                    None if !id.is_empty() => format!("id{id}"),
                    None => format!("n{}", raw_calls.len() + usize::from(name.is_empty())),
                };
                let args = match &t["function"]["arguments"] {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    v => v.to_string(),
                };
                match raw_calls.iter_mut().find(|c| c.0 == key) {
                    Some(c) => {
                        if c.1.is_empty() {
                            c.1 = id;
                        }
                        if c.2.is_empty() {
                            c.2 = name;
                        }
                        c.3.push_str(&args);
                    }
                    None => raw_calls.push((key, id, name, args)),
                }
            }
        }
    }
    let mut calls = Vec::new();
    for (_, id, name, mut args) in raw_calls {
        for tok in ["</s>", "<|eot_id|>"] {
            if let Some(s) = args.trim_end().strip_suffix(tok) {
                args = s.to_string();
            }
        }
        let mut arguments: Value = if args.trim().is_empty() {
            json!({})
        } else {
            serde_json::from_str(&args).expect("oracle: args parse")
        };
        let mut name = name.split("<|").next().unwrap_or("").trim().to_string();
        if name.is_empty() {
            if args.trim().is_empty() {
                continue;
            }
            // TGI: {"function": {"_name": ..}}
            let mut inner = arguments["function"].clone();
            name = inner["_name"].as_str().expect("oracle: a name").to_string();
            inner.as_object_mut().expect("object").remove("_name");
            arguments = inner;
        }
        calls.push(Call {
            id: if id.is_empty() {
                format!("call_{}", calls.len())
            } else {
                id
            },
            name,
            arguments,
        });
    }
    (text, reasoning, calls)
}

/// The OpenAI-family captures whose recording holds no terminal event (see their use).
const CAPTURES_WITHOUT_TERMINAL: [&str; 2] = [
    "tgi/llama-3.1-8b-tgi-3.1.2-id-0-every-delta.json",
    "tgi/qwen3-0.6b-tgi-3.3.5-id-0-every-delta.ndjson",
];

#[test]
fn captures_openai_family_match_the_oracle_at_every_chunking() {
    CaptureOracle {
        format: "openai-chat",
        name: "OpenAI-family",
        min_captures: 50,
        min_calls: 50,
        oracle: &|cap| oracle(&cap.bytes, cap.framing).into(),
        check: &|cap, whole| {
            // Two TGI recordings hold no terminal event: no chunk has a `finish_reason`
            // (PROVENANCE: "snapshot has no finish chunk", "stream ends WITHOUT any
            // finish_reason chunk") and their recorders kept parsed chunks only, not the
            // `[DONE]` line. Nothing in them says the stream ended, so `finish` reports
            // them `truncated` (one error, no index, nothing else).
            let no_terminal = CAPTURES_WITHOUT_TERMINAL.contains(&cap.path.as_str());
            let provider_errors = errors(whole)
                .iter()
                .filter(|e| match e {
                    Event::Error {
                        kind: ErrorKind::Provider,
                        ..
                    } => false,
                    Event::Error {
                        kind: ErrorKind::Truncated,
                        index: None,
                        ..
                    } => !no_terminal,
                    _ => true,
                })
                .count();
            if no_terminal {
                assert!(
                    matches!(
                        whole.last(),
                        Some(Event::Error {
                            kind: ErrorKind::Truncated,
                            index: None,
                            ..
                        })
                    ),
                    "{}: {whole:?}",
                    cap.path
                );
            }
            assert_eq!(provider_errors, 0, "{}: {:?}", cap.path, errors(whole));
        },
        chunked: None,
    }
    .run();
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Random calls with arbitrary names and arguments, argument text cut into random
    /// deltas, the body cut at random points: the decoded calls are the generated ones.
    #[test]
    fn generated_streams_decode_to_the_generated_calls(
        texts in proptest::collection::vec("\\PC{0,12}", 0..3),
        gen_calls in proptest::collection::vec(("[a-z_]{1,12}", proptest::collection::btree_map("[a-z]{1,6}", "\\PC{0,20}", 0..4), 1usize..9), 0..4),
        cuts in proptest::collection::vec(0usize..4000, 0..20),
    ) {
        let mut payloads = Vec::new();
        for t in &texts {
            payloads.push(chunk(json!({"content": t})));
        }
        let mut want = Vec::new();
        for (i, (name, args, pieces)) in gen_calls.iter().enumerate() {
            let args_text = serde_json::to_string(args).unwrap();
            let id = format!("call_{i}_x");
            payloads.push(tc(Some(i as i64), Some(&id), Some(name), Some("")));
            for piece in split_chars(&args_text, *pieces) {
                payloads.push(tc(Some(i as i64), None, None, Some(&piece)));
            }
            want.push(call(&id, name, serde_json::to_value(args).unwrap()));
        }
        payloads.push(fin("tool_calls"));
        let body = sse(&payloads);
        let want = Want { calls: want, text: texts.concat(), reasoning: None };
        generated_stream_decodes(&openai, &body, &cuts, want)?;
    }
}

/// `eventsource-stream` events as input (feature `eventsource-stream`): the same events
/// as our own framer on every OpenAI-family capture in SSE framing.
#[cfg(feature = "eventsource-stream")]
#[test]
fn eventsource_stream_events_give_the_same_events() {
    use eventsource_stream::Eventsource;
    use futures::StreamExt;
    let mut checked = 0;
    for cap in captures("openai-chat")
        .into_iter()
        .filter(|c| c.framing == Framing::Sse)
    {
        let want = run_whole(&openai, &cap.bytes);
        let chunks = vec![Ok::<_, std::convert::Infallible>(bytes::Bytes::from(
            cap.bytes.clone(),
        ))];
        let sse_events: Vec<_> =
            futures::executor::block_on(futures::stream::iter(chunks).eventsource().collect());
        let mut p = openai();
        let mut got = Vec::new();
        for e in sse_events {
            p.feed_eventsource(&e.unwrap(), &mut got).unwrap();
        }
        p.finish(&mut got).unwrap();
        toolstream::merge_deltas(&mut got);
        assert_eq!(got, want, "{}", cap.path);
        checked += 1;
    }
    if captures_dir().is_some() {
        assert!(checked >= 15, "{checked}");
    }
}

#[test]
fn openai_stream_cut_before_its_finish_chunk_is_truncated_with_no_finish() {
    // A complete call, then the connection drops before the finish chunk and `[DONE]`.
    let body = sse(&[
        chunk(json!({"content": "Let me check."})),
        tc(Some(0), Some("c1"), Some("f"), Some("{\"a\": 1}")),
    ]);
    let ev = assert_split_invariant(&openai, &body, 10);
    assert_eq!(calls(&ev), vec![call("c1", "f", json!({"a": 1}))]);
    assert!(!ev.iter().any(|e| matches!(e, Event::Finish { .. })));
    match errors(&ev).as_slice() {
        [
            Event::Error {
                path: _,
                kind: ErrorKind::Truncated,
                index: None,
                message,
                raw,
            },
        ] => {
            assert!(message.contains("finish_reason") && message.contains("[DONE]"));
            assert_eq!(raw, "");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn openai_finish_chunk_without_done_or_done_without_finish_chunk_is_complete() {
    // Recorded and compatible servers send one or the other: either ends the stream.
    let call = tc(Some(0), Some("c1"), Some("f"), Some("{}"));
    for body in [
        sse(&[call.clone(), fin("tool_calls")]),
        [
            sse(std::slice::from_ref(&call)),
            b"data: [DONE]\n\n".to_vec(),
        ]
        .concat(),
    ] {
        let ev = assert_split_invariant(&openai, &body, 10);
        assert!(errors(&ev).is_empty(), "{ev:?}");
        assert_eq!(finish(&ev).0, Some(FinishReason::ToolCalls));
    }
}

/// Fuzz findings of `openai_chat_structured` after the terminal-event rule (each became
/// this test): a stream that named its response (an id) but sent no `finish_reason` chunk
/// and no `[DONE]` ends in one index-less `truncated` error even when it made no event; a
/// usage chunk alone, with no terminal event, made no event and named nothing: one
/// `unrecognized_input` error, not a truncated stream.
#[test]
fn fuzz_findings_of_the_terminal_event_rule() {
    let kinds = |body: &str| -> Vec<(ErrorKind, Option<usize>)> {
        run_whole(&|| parser(Format::OpenAiChat), body.as_bytes())
            .iter()
            .filter_map(|e| match e {
                Event::Error { kind, index, .. } => Some((*kind, *index)),
                _ => None,
            })
            .collect()
    };
    let named = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":null}]}\n\n";
    assert_eq!(kinds(named), [(ErrorKind::Truncated, None)]);
    let usage_only = "data: {\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}\r\n\r\n";
    assert_eq!(kinds(usage_only), [(ErrorKind::UnrecognizedInput, None)]);
    // With its terminal event each is a complete (empty) response: no error.
    for body in [named, usage_only] {
        let done = format!("{body}data: [DONE]\n\n");
        assert_eq!(kinds(&done), []);
    }
}
