//! `gemini`: own fixtures (one per server quirk) at every chunking, every Gemini
//! capture against a one-shot oracle, and generated streams.
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

fn gemini() -> Parser {
    common::parser(Format::Gemini)
}

fn sse(payloads: &[Value]) -> Vec<u8> {
    let mut s = String::new();
    for p in payloads {
        s.push_str("data: ");
        s.push_str(&p.to_string());
        s.push_str("\r\n\r\n");
    }
    s.into_bytes()
}

/// Gemini without `alt=sse`: a pretty-printed array, elements separated by `\n,\r\n`.
fn json_array(payloads: &[Value]) -> Vec<u8> {
    let items: Vec<String> = payloads
        .iter()
        .map(|p| serde_json::to_string_pretty(p).unwrap())
        .collect();
    format!("[{}\n]", items.join("\n,\r\n")).into_bytes()
}

fn parts(parts: Value) -> Value {
    json!({"candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}]})
}

fn fin(reason: &str) -> Value {
    json!({"candidates": [{"content": {"parts": [{"text": ""}], "role": "model"}, "finishReason": reason, "index": 0}],
           "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 20}})
}

fn fc(v: Value) -> Value {
    parts(json!([{"functionCall": v}]))
}

fn pa(path: &str, value: Value, more: bool) -> Value {
    let mut e = serde_json::Map::new();
    e.insert("jsonPath".into(), json!(path));
    match value {
        Value::String(s) => e.insert("stringValue".into(), json!(s)),
        Value::Bool(b) => e.insert("boolValue".into(), json!(b)),
        Value::Null => e.insert("nullValue".into(), Value::Null),
        n => e.insert("numberValue".into(), n),
    };
    if more {
        e.insert("willContinue".into(), json!(true));
    }
    fc(json!({"partialArgs": [Value::Object(e)], "willContinue": true}))
}

fn finish_of(ev: &[Event]) -> (Option<FinishReason>, Option<toolstream::Usage>) {
    match ev.last() {
        Some(Event::Finish { reason, usage }) => (reason.clone(), usage.clone()),
        other => panic!("last event is not finish: {other:?}"),
    }
}

#[test]
fn google_ai_2_0_flash_parallel_calls_in_one_chunk() {
    // Both calls in one event, `": "` spacing, no ids.
    let body = b"data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"get_weather\",\"args\": {\"location\": \"SF\"}}},{\"functionCall\": {\"name\": \"get_weather\",\"args\": {\"location\": \"NYC\"}}}],\"role\": \"model\"},\"finishReason\": \"STOP\"}],\"usageMetadata\": {\"promptTokenCount\": 49,\"candidatesTokenCount\": 10,\"totalTokenCount\": 59}}\r\n\r\n";
    let ev = assert_split_invariant(&gemini, body, 50);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_weather", json!({"location": "SF"})),
            call("call_1", "get_weather", json!({"location": "NYC"})),
        ]
    );
    // The server's own argument bytes, spacing kept.
    assert!(ev.contains(&Event::ToolCallArgs {
        index: 1,
        delta: "{\"location\": \"NYC\"}".into()
    }));
    let (reason, usage) = finish_of(&ev);
    assert_eq!(reason, Some(FinishReason::ToolCalls));
    let usage = usage.unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (Some(49), Some(10), Some(59))
    );
}

#[test]
fn google_ai_2_5_flash_thought_part_and_thought_signature() {
    let body = sse(&[
        parts(json!([{"text": "**Planning**\n\nI will call é😀.", "thought": true}])),
        parts(
            json!([{"functionCall": {"name": "compute_fib", "args": {"n": 100}}, "thoughtSignature": "CiQB0e2Kb+ts16Z9fDa8IUHAjqr4wTlCUyBqftgl3ELxjRgcxMQKXQHR7Ypv8=="}]),
        ),
        parts(json!([{"text": "", "thoughtSignature": "AAAA"}])),
        fin("STOP"),
    ]);
    let ev = assert_split_invariant(&gemini, &body, 50);
    assert_eq!(reasoning(&ev), "**Planning**\n\nI will call é😀.");
    assert_eq!(text(&ev), "");
    assert!(
        !format!("{ev:?}").contains("CiQB0e2K"),
        "thoughtSignature leaked"
    );
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "compute_fib", json!({"n": 100}))]
    );
}

#[test]
fn gemini_3_call_id_is_kept_text_before_call() {
    let body = sse(&[
        parts(json!([{"text": "Let me check."}])),
        parts(
            json!([{"functionCall": {"name": "get_weather", "args": {"city": "San Francisco"}, "id": "g1bmv6il"}, "thoughtSignature": "EqsG"}]),
        ),
        fin("STOP"),
    ]);
    let ev = assert_split_invariant(&gemini, &body, 50);
    assert_eq!(text(&ev), "Let me check.");
    assert_eq!(
        calls(&ev),
        vec![call(
            "g1bmv6il",
            "get_weather",
            json!({"city": "San Francisco"})
        )]
    );
}

#[test]
fn gemini_3_no_arg_call_and_missing_args() {
    let body = sse(&[
        parts(
            json!([{"functionCall": {"name": "get_country", "args": {}}}, {"functionCall": {"name": "now"}}]),
        ),
        fin("STOP"),
    ]);
    let ev = assert_split_invariant(&gemini, &body, 20);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_country", json!({})),
            call("call_1", "now", json!({}))
        ]
    );
}

#[test]
fn google_ai_json_array_without_alt_sse_is_detected() {
    let payloads = [
        parts(json!([{"text": "thinking…", "thought": true}])),
        parts(
            json!([{"functionCall": {"name": "add_person", "args": {"age": 30, "address": {"city": "San Francisco"}}, "id": "whZntcQw"}}]),
        ),
        fin("STOP"),
    ];
    let body = json_array(&payloads);
    assert!(String::from_utf8_lossy(&body).contains("}\n,\r\n{"));
    let ev = assert_split_invariant(&gemini, &body, 30);
    assert_eq!(reasoning(&ev), "thinking…");
    assert_eq!(
        calls(&ev),
        vec![call(
            "whZntcQw",
            "add_person",
            json!({"age": 30, "address": {"city": "San Francisco"}})
        )]
    );
    // Same events through every framing, and with a BOM and blank lines in front.
    // (The argument text is the server's: compact there, pretty-printed here.)
    for other in [sse(&payloads), ndjson(&payloads)] {
        let o = run_whole(&gemini, &other);
        assert_eq!(
            (calls(&o), reasoning(&o), o.last().cloned()),
            (calls(&ev), reasoning(&ev), ev.last().cloned())
        );
    }
    let mut bom = b"\xEF\xBB\xBF \r\n\n  ".to_vec();
    bom.extend_from_slice(&body);
    assert_eq!(assert_split_invariant(&gemini, &bom, 30), ev);
    let mut p = gemini();
    let mut out = Vec::new();
    assert_eq!(p.framing_in_use(), Framing::Auto);
    p.feed(b"\xEF\xBB\xBF\n ", &mut out).unwrap();
    assert_eq!(p.framing_in_use(), Framing::Auto);
    p.feed(b"[", &mut out).unwrap();
    assert_eq!(p.framing_in_use(), Framing::JsonArray);
}

#[test]
fn vercel_recorded_ndjson_is_detected() {
    let payloads = [parts(json!([{"text": "hi"}])), fin("MAX_TOKENS")];
    let ev = assert_split_invariant(&gemini, &ndjson(&payloads), 20);
    assert_eq!(text(&ev), "hi");
    assert_eq!(finish_of(&ev).0, Some(FinishReason::Length));
    let mut p = gemini();
    p.feed(b"\n{", &mut Vec::new()).unwrap();
    assert_eq!(p.framing_in_use(), Framing::Ndjson);
    let mut p = gemini();
    p.feed(b"data", &mut Vec::new()).unwrap();
    assert_eq!(p.framing_in_use(), Framing::Sse);
}

#[test]
fn explicit_framing_wins_over_detection() {
    let payloads = [parts(json!([{"text": "hi"}])), fin("STOP")];
    let body = json_array(&payloads);
    let make = || Parser::with_config(Format::Gemini, ParserConfig::new().framing(Framing::Ndjson));
    let ev = run_whole(&make, &body);
    assert_eq!(text(&ev), "");
    assert!(
        !errors(&ev).is_empty(),
        "an array read as NDJSON is not silently accepted"
    );
    let make = || {
        Parser::with_config(
            Format::Gemini,
            ParserConfig::new().framing(Framing::JsonArray),
        )
    };
    assert_eq!(make().framing_in_use(), Framing::JsonArray);
    assert_eq!(text(&run_whole(&make, &body)), "hi");
}

#[test]
fn empty_input_is_nothing() {
    assert_eq!(run_whole(&gemini, b""), vec![]);
    assert_eq!(run_whole(&gemini, b" \n\r\n"), vec![]);
}

#[test]
fn vertex_3_1_pro_partial_args_two_calls_with_closer() {
    let mut payloads = Vec::new();
    for (i, city) in ["Boston", "San Francisco"].iter().enumerate() {
        let mut first = json!({"name": "getWeather", "willContinue": true});
        if i == 0 {
            payloads.push(parts(
                json!([{"functionCall": first.take(), "thoughtSignature": "CiMB"}]),
            ));
        } else {
            payloads.push(fc(first));
        }
        payloads.push(pa("$.location", json!(city), true));
        payloads.push(pa("$.location", json!(""), false));
        payloads.push(fc(json!({})));
    }
    payloads.push(fin("STOP"));
    let body = ndjson(&payloads);
    let ev = assert_split_invariant(&gemini, &body, 30);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "getWeather", json!({"location": "Boston"})),
            call("call_1", "getWeather", json!({"location": "San Francisco"})),
        ]
    );
    // Each call ends at its `functionCall {}` closer, before the next one starts.
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
fn vertex_3_1_pro_partial_args_nested_keepalives_and_typed_values() {
    let payloads = vec![
        fc(json!({"name": "cookRecipe", "willContinue": true})),
        pa("$.recipe.ingredients[0].amount", json!("16 oz"), true),
        pa("$.recipe.ingredients[0].amount", json!(""), false),
        pa(
            "$.recipe.ingredients[0].name",
            json!("Lasagna \"noodles\"\n\\ é😀"),
            false,
        ),
        fc(json!({"willContinue": true})),
        pa("$.recipe.ingredients[1].amount", json!(1.5), false),
        pa("$.recipe.ingredients[1].fresh", json!(true), false),
        pa("$.recipe.ingredients[1].note", Value::Null, false),
        pa("$.recipe.name", json!("Lasa"), true),
        pa("$.recipe.name", json!("gna"), true),
        pa("$.recipe.name", json!(""), false),
        pa(
            "$.recipe.steps[0]",
            json!("Preheat oven to 375°F (190°C)."),
            false,
        ),
        pa("$.recipe.steps[1]", json!("Cook"), true),
        pa("$.recipe.steps[1]", json!("."), true),
        pa("$.recipe.steps[1]", json!(""), false),
        pa("$['odd.key']", json!(-3), false),
        fc(json!({})),
        fin("STOP"),
    ];
    let ev = assert_split_invariant(&gemini, &sse(&payloads), 30);
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "cookRecipe",
            json!({"recipe": {
                "ingredients": [
                    {"amount": "16 oz", "name": "Lasagna \"noodles\"\n\\ é😀"},
                    {"amount": 1.5, "fresh": true, "note": null}
                ],
                "name": "Lasagna",
                "steps": ["Preheat oven to 375°F (190°C).", "Cook."]
            }, "odd.key": -3})
        )]
    );
    assert!(errors(&ev).is_empty(), "{:?}", errors(&ev));
}

#[test]
fn vertex_3_flash_partial_args_without_closer_end_at_finish_reason() {
    let payloads = vec![
        fc(json!({"name": "writeItems", "willContinue": true})),
        pa("$.operations[0].action", json!("add"), true),
        pa("$.operations[0].action", json!(""), false),
        pa("$.operations[0].price", json!(0.5), false),
        pa("$.operations[1].action", json!("add"), false),
        pa("$.operations[1].price", json!(0.3), false),
        fin("STOP"),
    ];
    let body = ndjson(&payloads);
    let ev = assert_split_invariant(&gemini, &body, 30);
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "writeItems",
            json!({"operations": [{"action": "add", "price": 0.5}, {"action": "add", "price": 0.3}]})
        )]
    );
    // Not ended before the finishReason chunk arrives.
    // Not ended before the finishReason chunk arrives; ended by it.
    let upto = body.len() - ndjson(&payloads[6..]).len();
    let mut p = gemini();
    let mut out = Vec::new();
    p.feed(&body[..upto], &mut out).unwrap();
    assert!(!out.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })));
    p.feed(&body[upto..], &mut out).unwrap();
    assert!(out.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })));
}

#[test]
fn vertex_3_flash_last_part_without_will_continue_ends_the_call() {
    // The recorded no-terminal stream: its last partialArgs part has no `willContinue`.
    let last =
        fc(json!({"partialArgs": [{"jsonPath": "$.operations[0].price", "numberValue": 0.3}]}));
    let payloads = vec![
        fc(json!({"name": "writeItems", "willContinue": true})),
        pa("$.operations[0].action", json!("add"), false),
        last,
    ];
    let body = ndjson(&payloads);
    let mut p = gemini();
    let mut out = Vec::new();
    p.feed(&body, &mut out).unwrap();
    merge(&mut out);
    assert_eq!(
        calls(&out),
        vec![call(
            "call_0",
            "writeItems",
            json!({"operations": [{"action": "add", "price": 0.3}]})
        )]
    );
}

fn merge(v: &mut Vec<Event>) {
    toolstream::merge_deltas(v);
}

#[test]
fn vertex_3_flash_name_only_call_then_streamed_calls() {
    let payloads = vec![
        parts(json!([{"text": "**Processing**", "thought": true}])),
        fc(json!({"name": "read_theme"})),
        fc(json!({"name": "read_screen", "willContinue": true})),
        pa("$.id", json!("A"), true),
        pa("$.id", json!(""), false),
        fc(json!({})),
        fc(json!({"name": "read_screen", "willContinue": true, "id": "v3"})),
        pa("$.id", json!("B"), false),
        fc(json!({})),
        fin("STOP"),
    ];
    let ev = assert_split_invariant(&gemini, &ndjson(&payloads), 30);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "read_theme", json!({})),
            call("call_1", "read_screen", json!({"id": "A"})),
            call("v3", "read_screen", json!({"id": "B"})),
        ]
    );
}

#[test]
fn vertex_stream_cut_off_mid_call_is_truncated() {
    let payloads = vec![
        fc(json!({"name": "write_file", "willContinue": true})),
        pa("$.path", json!("a.txt"), false),
        pa("$.content", json!("hel"), true),
    ];
    let ev = assert_split_invariant(&gemini, &ndjson(&payloads), 20);
    match ev.last() {
        Some(Event::Error {
            kind: ErrorKind::Truncated,
            index: Some(0),
            raw,
            ..
        }) => {
            assert_eq!(raw, "{\"path\":\"a.txt\",\"content\":\"hel");
        }
        other => panic!("{other:?}"),
    }
    // Only the name arrived: truncated too, not an empty call.
    let ev = assert_split_invariant(
        &gemini,
        &ndjson(&[fc(json!({"name": "f", "willContinue": true}))]),
        5,
    );
    assert!(matches!(
        ev.last(),
        Some(Event::Error {
            kind: ErrorKind::Truncated,
            index: Some(0),
            ..
        })
    ));
}

#[test]
fn vertex_entry_that_cannot_be_appended_is_an_error_and_the_call_goes_on() {
    let payloads = vec![
        fc(json!({"name": "f", "willContinue": true})),
        pa("$.a[1]", json!(1), false),
        pa("$.a[0]", json!(2), false),
        pa("$.b", json!("ok"), false),
        fc(json!({})),
        // The stream's end (without it, `finish` would add a `truncated` error).
        json!({"candidates": [{"index": 0, "finishReason": "STOP"}]}),
    ];
    let ev = assert_split_invariant(&gemini, &ndjson(&payloads), 20);
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "f", json!({"a": [null, 1], "b": "ok"}))]
    );
    let errs = errors(&ev);
    assert_eq!(errs.len(), 1);
    assert!(
        matches!(errs[0], Event::Error { kind: ErrorKind::InvalidArguments, index: None, raw, .. } if raw.contains("$.a[0]"))
    );
}

#[test]
fn finish_reasons_are_normalised() {
    for (r, want) in [
        ("MAX_TOKENS", FinishReason::Length),
        ("SAFETY", FinishReason::ContentFilter),
        ("RECITATION", FinishReason::ContentFilter),
        ("MALFORMED_FUNCTION_CALL", FinishReason::Error),
        ("IMAGE_SAFETY", FinishReason::ContentFilter),
        ("STOP", FinishReason::Stop),
    ] {
        let ev = run_whole(&gemini, &sse(&[parts(json!([{"text": "x"}])), fin(r)]));
        assert_eq!(finish_of(&ev).0, Some(want), "{r}");
    }
    // A blocked prompt: no candidates at all.
    let ev = run_whole(
        &gemini,
        &sse(&[
            json!({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 3}}),
        ]),
    );
    assert_eq!(finish_of(&ev).0, Some(FinishReason::ContentFilter));
}

#[test]
fn google_ai_error_object_is_a_provider_error() {
    let err = json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}});
    for body in [
        sse(&[parts(json!([{"text": "par"}])), err.clone()]),
        json_array(&[parts(json!([{"text": "par"}])), err.clone()]),
    ] {
        let ev = assert_split_invariant(&gemini, &body, 20);
        assert_eq!(text(&ev), "par");
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
                assert!(message.contains("overloaded"), "{message}");
                assert!(raw.contains("UNAVAILABLE"));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn bad_json_payload_is_an_error_and_parsing_goes_on() {
    let mut body = b"data: {not json\n\n".to_vec();
    body.extend(sse(&[parts(json!([{"text": "ok"}]))]));
    let ev = assert_split_invariant(&gemini, &body, 10);
    assert_eq!(text(&ev), "ok");
    assert!(
        matches!(ev.first(), Some(Event::Error { kind: ErrorKind::InvalidJson, raw, .. }) if raw == "{not json")
    );
}

#[test]
fn other_candidates_are_ignored() {
    let body = sse(&[json!({"candidates": [
        {"content": {"parts": [{"text": "other"}, {"functionCall": {"name": "x", "args": {}}}]}, "index": 1},
        {"content": {"parts": [{"text": "mine"}]}, "index": 0}
    ]})]);
    let ev = assert_split_invariant(&gemini, &body, 10);
    assert_eq!(text(&ev), "mine");
    assert!(calls(&ev).is_empty());
}

#[test]
fn call_limit_is_enforced() {
    let body = sse(&[parts(json!([
        {"functionCall": {"name": "a", "args": {}}},
        {"functionCall": {"name": "b", "args": {}}},
        {"functionCall": {"name": "c", "args": {}}}
    ]))]);
    let make = || Parser::with_config(Format::Gemini, ParserConfig::new().max_calls(2));
    let ev = assert_split_invariant(&make, &body, 10);
    assert_eq!(calls(&ev).len(), 2);
    assert!(errors(&ev).iter().any(|e| matches!(
        e,
        Event::Error {
            kind: ErrorKind::LimitExceeded,
            ..
        }
    )));
}

// ---------------------------------------------------------------------------------
// Captures: every Gemini recording, against a one-shot oracle.

/// Sets `path` (`$.a[0].b`) in `root`, appending to a string already there.
fn oracle_set(root: &mut Value, path: &str, v: Value) {
    let mut cur = root;
    let mut rest = path.strip_prefix('$').expect("path starts with $");
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let key = &r[..end];
            if !cur.is_object() {
                *cur = json!({});
            }
            cur = cur
                .as_object_mut()
                .unwrap()
                .entry(key.to_string())
                .or_insert(Value::Null);
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("['") {
            let end = r.find("']").unwrap();
            if !cur.is_object() {
                *cur = json!({});
            }
            cur = cur
                .as_object_mut()
                .unwrap()
                .entry(r[..end].to_string())
                .or_insert(Value::Null);
            rest = &r[end + 2..];
        } else {
            let r = rest.strip_prefix('[').unwrap();
            let end = r.find(']').unwrap();
            let i: usize = r[..end].parse().unwrap();
            if !cur.is_array() {
                *cur = json!([]);
            }
            let a = cur.as_array_mut().unwrap();
            while a.len() <= i {
                a.push(Value::Null);
            }
            cur = &mut a[i];
            rest = &r[end + 1..];
        }
    }
    match (cur, v) {
        (Value::String(s), Value::String(more)) => s.push_str(&more),
        (slot, v) => *slot = v,
    }
}

/// The one-shot reference: whole body in hand; payloads cut with the simplest rules,
/// candidate 0's parts walked in order; a streamed call's partialArgs assigned into a
/// `Value` tree by path.
fn oracle(bytes: &[u8], framing: Framing) -> (String, String, Vec<Call>) {
    let payloads: Vec<Value> = match framing {
        Framing::Sse => String::from_utf8_lossy(bytes)
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect(),
        Framing::Ndjson => String::from_utf8_lossy(bytes)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        Framing::JsonArray => serde_json::from_slice::<Vec<Value>>(bytes).expect("oracle: array"),
        _ => unreachable!(),
    };
    let (mut text, mut reasoning, mut calls) = (String::new(), String::new(), Vec::new());
    // (id, name, args) of the streamed call being built.
    let mut open: Option<(String, String, Value)> = None;
    let close = |calls: &mut Vec<Call>, c: (String, String, Value)| {
        let id = if c.0.is_empty() {
            format!("call_{}", calls.len())
        } else {
            c.0
        };
        let args = if c.2.is_null() { json!({}) } else { c.2 };
        calls.push(Call {
            id,
            name: c.1,
            arguments: args,
        });
    };
    for p in payloads {
        for cand in p["candidates"].as_array().cloned().unwrap_or_default() {
            if cand["index"].as_i64().unwrap_or(0) != 0 {
                continue;
            }
            for part in cand["content"]["parts"]
                .as_array()
                .cloned()
                .unwrap_or_default()
            {
                if let Some(t) = part["text"].as_str() {
                    if part["thought"] == json!(true) {
                        reasoning.push_str(t)
                    } else {
                        text.push_str(t)
                    }
                }
                let f = &part["functionCall"];
                if f.is_null() {
                    continue;
                }
                let more = f["willContinue"] == json!(true);
                if let Some(name) = f["name"].as_str() {
                    if let Some(c) = open.take() {
                        close(&mut calls, c);
                    }
                    let id = f["id"].as_str().unwrap_or("").to_string();
                    if !f["args"].is_null() {
                        close(&mut calls, (id, name.to_string(), f["args"].clone()));
                        continue;
                    }
                    open = Some((id, name.to_string(), Value::Null));
                }
                if let Some(c) = open.as_mut() {
                    for e in f["partialArgs"].as_array().cloned().unwrap_or_default() {
                        let v = ["stringValue", "numberValue", "boolValue"]
                            .iter()
                            .find_map(|k| e.get(*k).cloned())
                            .unwrap_or(Value::Null);
                        oracle_set(&mut c.2, e["jsonPath"].as_str().unwrap(), v);
                    }
                    if !more {
                        close(&mut calls, open.take().unwrap());
                    }
                }
            }
            if !cand["finishReason"].is_null()
                && let Some(c) = open.take()
            {
                close(&mut calls, c);
            }
        }
    }
    (text, reasoning, calls)
}

#[test]
fn captures_gemini_match_the_oracle_at_every_chunking() {
    CaptureOracle {
        format: "gemini",
        name: "Gemini",
        min_captures: 18,
        min_calls: 20,
        oracle: &|cap| oracle(&cap.bytes, cap.framing).into(),
        check: &|cap, whole| {
            assert!(
                !calls(whole).is_empty(),
                "{}: every Gemini capture holds a call",
                cap.path
            );
            no_errors(cap, whole);
            ends_with_finish(cap, whole, FinishReason::ToolCalls, |_| true);
            // The default (auto) framing finds the capture's framing.
            assert_eq!(
                run_whole(&gemini, &cap.bytes),
                whole,
                "{} auto framing",
                cap.path
            );
        },
        // Fed in pieces with the default (auto) framing.
        chunked: Some(&gemini),
    }
    .run();
}

// ---------------------------------------------------------------------------------
// Generated streams.

/// A generated argument value for streamed calls.
fn arg_value() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let s = "(\\PC|\n|\t|\"|\\\\){0,16}";
    prop_oneof![
        s.prop_map(Value::String),
        any::<i32>().prop_map(|n| json!(n)),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
        proptest::collection::vec(s, 0..3).prop_map(|v| json!(v)),
        proptest::collection::btree_map("[a-z]{1,4}", s, 0..3).prop_map(|m| json!(m)),
    ]
}

/// partialArgs parts for `value` at `path`, strings cut into `pieces`.
fn stream_value(path: &str, value: &Value, pieces: usize, out: &mut Vec<Value>) {
    match value {
        Value::String(s) => {
            for piece in split_chars(s, pieces) {
                out.push(pa(path, json!(piece), true));
            }
            out.push(pa(path, json!(""), false));
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                stream_value(&format!("{path}[{i}]"), v, pieces, out);
            }
        }
        Value::Object(m) => {
            for (k, v) in m {
                stream_value(&format!("{path}.{k}"), v, pieces, out);
            }
        }
        v => out.push(pa(path, v.clone(), false)),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Random calls (whole or Vertex-streamed, arguments with escapes and non-ASCII),
    /// random text, each framing, the body cut anywhere: the decoded calls are the
    /// generated ones.
    #[test]
    fn generated_streams_decode_to_the_generated_calls(
        texts in proptest::collection::vec("\\PC{0,12}", 0..3),
        gen_calls in proptest::collection::vec((
            "[a-zA-Z_][a-zA-Z0-9_]{0,11}",
            proptest::collection::btree_map("[a-z]{1,6}", arg_value(), 0..4),
            proptest::option::of("[a-z0-9]{8}"),
            proptest::bool::ANY,
            1usize..5,
        ), 0..4),
        framing in 0usize..3,
        cuts in proptest::collection::vec(0usize..6000, 0..20),
    ) {
        let mut payloads = Vec::new();
        for t in &texts {
            payloads.push(parts(json!([{"text": t}])));
        }
        let mut want = Vec::new();
        for (i, (name, args, id, streamed, pieces)) in gen_calls.iter().enumerate() {
            let mut head = json!({"name": name});
            if let Some(id) = id {
                head["id"] = json!(id);
            }
            // Arrays and objects must not be empty for the streamed form (nothing to
            // stream would leave no trace of them).
            let streamable = args.values().all(|v| match v {
                Value::Array(a) => !a.is_empty(),
                Value::Object(o) => !o.is_empty(),
                _ => true,
            });
            if *streamed && streamable {
                head["willContinue"] = json!(true);
                payloads.push(fc(head));
                for (k, v) in args {
                    stream_value(&format!("$.{k}"), v, *pieces, &mut payloads);
                    payloads.push(fc(json!({"willContinue": true})));
                }
                payloads.push(fc(json!({})));
            } else {
                head["args"] = json!(args);
                payloads.push(fc(head));
            }
            let id = id.clone().unwrap_or_else(|| format!("call_{i}"));
            want.push(call(&id, name, json!(args)));
        }
        payloads.push(fin("STOP"));
        let body = match framing {
            0 => sse(&payloads),
            1 => ndjson(&payloads),
            _ => json_array(&payloads),
        };
        let want = Want { calls: want, text: texts.concat(), reasoning: None };
        generated_stream_decodes(&gemini, &body, &cuts, want)?;
    }
}
