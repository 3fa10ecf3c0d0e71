//! The Anthropic Messages and OpenAI Responses emitters: every recorded capture of every
//! format, re-emitted in both APIs and read back by our own `anthropic` / `openai-responses`
//! decoders, gives the same calls (ids through `emit::ids`, names, arguments), text,
//! reasoning, finish and known usage counts; a stream that failed never ends like a
//! complete reply; plus hand-made event lists for ids, block order, interleaving, parallel
//! calls, empty arguments, usage and errors.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use toolstream::emit::{AnthropicEmitter, OpenAiResponsesEmitter, ends_the_stream, ids};
use toolstream::{ErrorKind, Event, FinishReason, Format, Parser, Usage, merge_deltas};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Api {
    Anthropic,
    Responses,
}

impl Api {
    fn emit(self, events: &[Event]) -> String {
        let mut sse = String::new();
        match self {
            Api::Anthropic => {
                let mut em = AnthropicEmitter::new().id("msg_rt").model("rt");
                for e in events {
                    em.event(e, &mut sse);
                }
                em.finish(&mut sse);
                assert!(em.is_done());
            }
            Api::Responses => {
                let mut em = OpenAiResponsesEmitter::new()
                    .id("resp_rt")
                    .model("rt")
                    .created_at(1);
                for e in events {
                    em.event(e, &mut sse);
                }
                em.finish(&mut sse);
                assert!(em.is_done());
            }
        }
        sse
    }

    fn format(self) -> Format {
        match self {
            Api::Anthropic => Format::Anthropic,
            Api::Responses => Format::OpenAiResponses,
        }
    }

    fn original_id(self, id: &str) -> String {
        match self {
            Api::Anthropic => ids::from_anthropic(id),
            Api::Responses => ids::from_responses_call_id(id),
        }
    }

    /// The event that says the reply is complete.
    fn completion(self) -> &'static str {
        match self {
            Api::Anthropic => "event: message_stop\n",
            Api::Responses => "event: response.completed\n",
        }
    }

    fn read(self, sse: &str) -> Vec<Event> {
        let mut p = Parser::new(self.format());
        let mut out = Vec::new();
        p.feed(sse.as_bytes(), &mut out).unwrap();
        p.finish(&mut out).unwrap();
        merge_deltas(&mut out);
        out
    }
}

/// The events before the first error that ends the stream, and whether there was one.
fn until_fatal(events: &[Event]) -> (&[Event], bool) {
    match events
        .iter()
        .position(|e| matches!(e, Event::Error { kind, .. } if ends_the_stream(*kind)))
    {
        Some(p) => (&events[..p], true),
        None => (events, false),
    }
}

/// Completed calls as (id, name, arguments as the client APIs carry them), by id.
fn completed(events: &[Event], api: Option<Api>) -> BTreeMap<String, (String, Value)> {
    let mut out = BTreeMap::new();
    for e in events {
        if let Event::ToolCallEnd {
            id,
            name,
            arguments,
            ..
        } = e
        {
            let id = api.map_or_else(|| id.clone(), |a| a.original_id(id));
            let args = if arguments.is_object() {
                arguments.clone()
            } else {
                json!({"input": arguments})
            };
            out.insert(id, (name.clone(), by_value(args)));
        }
    }
    out
}

/// Ids of the calls that failed (an error with an index).
fn failed_ids(events: &[Event]) -> BTreeSet<String> {
    let ids: BTreeMap<usize, String> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallStart { index, id, .. } => Some((*index, id.clone())),
            _ => None,
        })
        .collect();
    events
        .iter()
        .filter_map(|e| match e {
            Event::Error { index: Some(i), .. } => ids.get(i).cloned(),
            _ => None,
        })
        .collect()
}

/// The finish reason and usage, if a finish came (raw-text formats send none).
fn finish_of(events: &[Event]) -> (Option<FinishReason>, Option<Usage>) {
    events
        .iter()
        .find_map(|e| match e {
            Event::Finish { reason, usage } => Some((reason.clone(), usage.clone())),
            _ => None,
        })
        .unwrap_or((None, None))
}

fn round_trip_one(api: Api, format: &str, cap: &Capture, chunk: usize) -> Result<(), String> {
    let make = maker(format, cap.framing);
    let raw = events_of(&make, &cap.bytes, chunk);
    let mut original = raw.clone();
    merge_deltas(&mut original);
    let sse = api.emit(&raw);
    let decoded = api.read(&sse);
    check_contract(&decoded);
    let what = format!("{api:?} {} (chunk {chunk})", cap.path);
    let (before, fatal) = until_fatal(&original);
    let failed = failed_ids(before);
    // Calls: every completed call comes back (all of them when the stream is complete;
    // when it failed, the ones written before the error: calls held behind a cut call are
    // dropped with it), with the same name and arguments, its id through `emit::ids`.
    let want = completed(before, None);
    let got: BTreeMap<String, (String, Value)> = completed(&decoded, Some(api))
        .into_iter()
        .filter(|(id, _)| !failed.contains(id))
        .collect();
    for (id, call) in &got {
        if want.get(id) != Some(call) {
            return Err(format!(
                "{what}: call {id} {call:?} is not {:?}",
                want.get(id)
            ));
        }
    }
    if !fatal && got.len() != want.len() {
        return Err(format!("{what}: calls {got:?} != {want:?}"));
    }
    // Text and reasoning: the same, or (a failed stream) a prefix.
    for (name, a, b) in [
        ("text", text(before), text(&decoded)),
        ("reasoning", reasoning(before), reasoning(&decoded)),
    ] {
        let ok = if fatal { a.starts_with(&b) } else { a == b };
        if !ok {
            return Err(format!("{what}: {name} {b:?} != {a:?}"));
        }
    }
    // The end: never a complete reply after an error that ends the stream.
    let completes = sse.contains(api.completion())
        || (api == Api::Responses && sse.contains("event: response.incomplete\n"));
    if fatal {
        if completes || sse.contains("event: message_delta\n") {
            return Err(format!("{what}: a failed stream ends like a complete one"));
        }
        let provider_error = decoded.iter().any(|e| {
            matches!(
                e,
                Event::Error {
                    kind: ErrorKind::Provider,
                    ..
                }
            )
        });
        if !provider_error {
            return Err(format!("{what}: the failure is not read back"));
        }
        return Ok(());
    }
    let reason = finish_of(before).0;
    if reason != Some(FinishReason::Error) && !completes {
        return Err(format!("{what}: a complete stream does not end complete"));
    }
    let (got_reason, got_usage) = finish(&decoded);
    // Our decoders say `tool_calls` whenever a call block / item was in the stream, even
    // one that failed (for which the emitters write `end_turn` / a plain `completed`).
    let any_call = before
        .iter()
        .any(|e| matches!(e, Event::ToolCallStart { .. }));
    let want_reason = match reason.clone() {
        Some(FinishReason::ToolCalls) | None if any_call => Some(FinishReason::ToolCalls),
        Some(FinishReason::ToolCalls | FinishReason::Stop) | None => Some(FinishReason::Stop),
        Some(FinishReason::Other(_)) => Some(FinishReason::Stop),
        r => r,
    };
    if got_reason != want_reason {
        return Err(format!(
            "{what}: finish {got_reason:?} != {want_reason:?} (from {reason:?})"
        ));
    }
    // Usage: every count the input knew comes back.
    if let Some(u) = finish_of(before).1 {
        let g = got_usage.unwrap_or_default();
        let mut pairs = vec![
            ("input", u.input_tokens, g.input_tokens),
            ("output", u.output_tokens, g.output_tokens),
            ("cached", u.cached_input_tokens, g.cached_input_tokens),
        ];
        if api == Api::Responses {
            pairs.push(("reasoning", u.reasoning_tokens, g.reasoning_tokens));
        }
        for (name, a, b) in pairs {
            if a.is_some() && a != b {
                return Err(format!("{what}: usage {name} {b:?} != {a:?}"));
            }
        }
    }
    Ok(())
}

#[test]
fn anthropic_and_responses_round_trip_of_every_capture() {
    let formats = capture_formats();
    if formats.is_empty() {
        visible("SKIPPED: emit_apis capture round trip (put the captures at ../shared/captures)");
        return;
    }
    let mut failures = Vec::new();
    let (mut checked, mut captures_seen, mut with_calls, mut failed_streams) = (0, 0, 0, 0);
    for format in formats {
        if format.parse::<Format>().is_err() {
            visible(&format!(
                "SKIPPED: format {format} not in this build; its captures not re-emitted (FORMATS.json names a format this build does not know: update toolstream to the captures' version)"
            ));
            continue;
        }
        for cap in captures(&format) {
            captures_seen += 1;
            let events = events_of(&maker(&format, cap.framing), &cap.bytes, usize::MAX);
            with_calls += usize::from(
                events
                    .iter()
                    .any(|e| matches!(e, Event::ToolCallEnd { .. })),
            );
            failed_streams += usize::from(until_fatal(&events).1);
            for api in [Api::Anthropic, Api::Responses] {
                for chunk in [usize::MAX, 7] {
                    checked += 1;
                    if let Err(e) = round_trip_one(api, &format, &cap, chunk) {
                        failures.push(e);
                    }
                }
            }
        }
    }
    visible(&format!(
        "emit_apis: {captures_seen} captures ({with_calls} with calls, {failed_streams} failed streams), {checked} round trips"
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every capture cut in half: where the parser reports the stream cut, neither API's
/// output ends like a complete reply, and the whole body is not a complete one.
#[test]
fn a_cut_capture_never_ends_complete() {
    let mut cut = 0;
    for format in capture_formats() {
        if format.parse::<Format>().is_err() {
            continue;
        }
        for cap in captures(&format) {
            let half = &cap.bytes[..cap.bytes.len() / 2];
            let events = events_of(&maker(&format, cap.framing), half, usize::MAX);
            let truncated = events.iter().any(|e| {
                matches!(
                    e,
                    Event::Error {
                        kind: ErrorKind::Truncated,
                        ..
                    }
                )
            });
            if !truncated {
                continue;
            }
            cut += 1;
            for api in [Api::Anthropic, Api::Responses] {
                let sse = api.emit(&events);
                assert!(!sse.contains(api.completion()), "{api:?} {}", cap.path);
                assert!(!sse.contains("event: message_delta\n"), "{}", cap.path);
            }
            let mut a = AnthropicEmitter::new();
            let mut r = OpenAiResponsesEmitter::new();
            let mut sink = String::new();
            for e in &events {
                a.event(e, &mut sink);
                r.event(e, &mut sink);
            }
            a.finish(&mut sink);
            r.finish(&mut sink);
            assert!(a.message().is_err(), "{}", cap.path);
            assert_eq!(r.response()["status"], "failed", "{}", cap.path);
        }
    }
    if captures_dir().is_some() {
        visible(&format!("emit_apis: {cut} cut captures checked"));
        assert!(cut > 10, "too few captures reported cut: {cut}");
    }
}

// ---------------------------------------------------------------------------------------
// Hand-made events.

fn start(i: usize, id: &str, name: &str) -> Event {
    Event::ToolCallStart {
        index: i,
        id: id.into(),
        name: name.into(),
    }
}
fn args(i: usize, d: &str) -> Event {
    Event::ToolCallArgs {
        index: i,
        delta: d.into(),
    }
}
fn end(i: usize, id: &str, name: &str, a: Value) -> Event {
    Event::ToolCallEnd {
        index: i,
        id: id.into(),
        name: name.into(),
        arguments: a,
    }
}
fn txt(s: &str) -> Event {
    Event::Text { delta: s.into() }
}
fn usage(v: Value) -> Usage {
    // The public way to a Usage: read it from a provider stream.
    let body = format!(
        "data: {}\n\ndata: [DONE]\n\n",
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": v})
    );
    let mut p = Parser::new(Format::OpenAiChat);
    let mut out = Vec::new();
    p.feed(body.as_bytes(), &mut out).unwrap();
    p.finish(&mut out).unwrap();
    finish(&out).1.unwrap()
}

/// The `data:` payloads of an SSE text, with their `event:` names.
fn payloads(sse: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut name = String::new();
    for line in sse.lines() {
        if let Some(n) = line.strip_prefix("event: ") {
            name = n.to_owned();
        } else if let Some(d) = line.strip_prefix("data: ") {
            out.push((name.clone(), serde_json::from_str(d).unwrap()));
        }
    }
    out
}

/// text → tool_use → text, and a reasoning block first: indices count every block from
/// 0 in the order they start, every start has its stop, the `event:` name is the type.
#[test]
fn anthropic_blocks_are_numbered_in_order_and_interleave_with_text() {
    let events = [
        Event::Reasoning {
            delta: "hmm".into(),
        },
        txt("Let me look."),
        start(0, "functions.ls:0", "ls"),
        args(0, "{\"path\":"),
        args(0, "\"/\"}"),
        end(0, "functions.ls:0", "ls", json!({"path": "/"})),
        txt("Done."),
    ];
    let sse = Api::Anthropic.emit(&events);
    let p = payloads(&sse);
    for (name, v) in &p {
        assert_eq!(v["type"], name.as_str());
    }
    let kinds: Vec<String> = p
        .iter()
        .map(|(n, v)| match n.as_str() {
            "content_block_start" => format!("start {} {}", v["index"], v["content_block"]["type"]),
            "content_block_delta" => format!("delta {} {}", v["index"], v["delta"]["type"]),
            "content_block_stop" => format!("stop {}", v["index"]),
            other => other.to_owned(),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "message_start",
            "start 0 \"thinking\"",
            "delta 0 \"thinking_delta\"",
            "delta 0 \"signature_delta\"",
            "stop 0",
            "start 1 \"text\"",
            "delta 1 \"text_delta\"",
            "stop 1",
            "start 2 \"tool_use\"",
            "delta 2 \"input_json_delta\"",
            "delta 2 \"input_json_delta\"",
            "stop 2",
            "start 3 \"text\"",
            "delta 3 \"text_delta\"",
            "stop 3",
            "message_delta",
            "message_stop",
        ]
    );
    let tool = &p[8].1["content_block"];
    assert_eq!(tool["id"], "toolu_tsx-66756e6374696f6e732e6c733a30");
    assert_eq!(
        ids::from_anthropic(tool["id"].as_str().unwrap()),
        "functions.ls:0"
    );
    assert_eq!(tool["input"], json!({}));
    assert_eq!(p[15].1["delta"]["stop_reason"], "tool_use");
    // The whole message.
    let mut em = AnthropicEmitter::new().id("msg_x").model("m");
    let mut sink = String::new();
    for e in &events {
        em.event(e, &mut sink);
    }
    em.finish(&mut sink);
    let m = em.message().unwrap();
    assert_eq!(
        m["content"],
        json!([
            {"type": "thinking", "thinking": "hmm", "signature": ""},
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_tsx-66756e6374696f6e732e6c733a30", "name": "ls", "input": {"path": "/"}},
            {"type": "text", "text": "Done."},
        ])
    );
    assert_eq!(m["stop_reason"], "tool_use");
    assert_eq!(m["type"], "message");
}

/// Two calls whose deltas interleave (OpenAI parallel calls): written one block after the
/// other, the second's held-back deltas released at the first one's end, in both APIs;
/// read back, both calls are whole.
#[test]
fn parallel_calls_are_serialized_one_block_at_a_time() {
    let events = [
        start(0, "a", "f"),
        start(1, "b", "g"),
        args(0, "{\"x\":"),
        args(1, "{\"y\":"),
        args(1, "2}"),
        end(1, "b", "g", json!({"y": 2})),
        args(0, "1}"),
        end(0, "a", "f", json!({"x": 1})),
        Event::Finish {
            reason: Some(FinishReason::ToolCalls),
            usage: None,
        },
    ];
    let a = payloads(&Api::Anthropic.emit(&events));
    let blocks: Vec<(u64, String)> = a
        .iter()
        .filter(|(n, _)| n.starts_with("content_block"))
        .map(|(n, v)| (v["index"].as_u64().unwrap(), n.clone()))
        .collect();
    let open_at: Vec<usize> = (0..blocks.len())
        .filter(|&i| blocks[i].1 == "content_block_start")
        .collect();
    assert_eq!(open_at.len(), 2);
    // Every event of block 0 comes before the start of block 1.
    let first_of_1 = blocks.iter().position(|b| b.0 == 1).unwrap();
    assert!(blocks[..first_of_1].iter().all(|b| b.0 == 0));
    assert!(blocks[first_of_1..].iter().all(|b| b.0 == 1));
    let r = payloads(&Api::Responses.emit(&events));
    let seq: Vec<u64> = r
        .iter()
        .map(|(_, v)| v["sequence_number"].as_u64().unwrap())
        .collect();
    assert_eq!(seq, (0..seq.len() as u64).collect::<Vec<_>>());
    let order: Vec<u64> = r
        .iter()
        .filter_map(|(_, v)| v["output_index"].as_u64())
        .collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
    for api in [Api::Anthropic, Api::Responses] {
        let back = api.read(&api.emit(&events));
        check_contract(&back);
        let calls = completed(&back, Some(api));
        assert_eq!(calls["a"], ("f".to_owned(), json!({"x": 1})), "{api:?}");
        assert_eq!(calls["b"], ("g".to_owned(), json!({"y": 2})), "{api:?}");
        assert_eq!(finish(&back).0, Some(FinishReason::ToolCalls), "{api:?}");
    }
}

/// A call that sent no argument text gets `{}`; a value that is not an object (a custom
/// tool's free-form input) goes inside `{"input": ..}`.
#[test]
fn empty_and_free_form_arguments_become_objects() {
    let events = [
        start(0, "a", "now"),
        end(0, "a", "now", json!({})),
        start(1, "b", "exec"),
        args(1, "\"ls -l\""),
        end(1, "b", "exec", json!("ls -l")),
    ];
    for api in [Api::Anthropic, Api::Responses] {
        let back = api.read(&api.emit(&events));
        let calls = completed(&back, Some(api));
        assert_eq!(calls["a"].1, json!({}), "{api:?}");
        assert_eq!(calls["b"].1, json!({"input": "ls -l"}), "{api:?}");
    }
    let mut em = OpenAiResponsesEmitter::new();
    let mut sink = String::new();
    for e in &events {
        em.event(e, &mut sink);
    }
    em.finish(&mut sink);
    let out = &em.response()["output"];
    assert_eq!(out[0]["arguments"], "{}");
    assert_eq!(out[1]["arguments"], "{\"input\":\"ls -l\"}");
    assert_eq!(out[1]["call_id"], "call_b");
    assert_eq!(out[1]["status"], "completed");
}

#[test]
fn usage_maps_to_each_api() {
    let u = usage(json!({
        "prompt_tokens": 100, "completion_tokens": 30, "total_tokens": 130,
        "prompt_tokens_details": {"cached_tokens": 60},
        "completion_tokens_details": {"reasoning_tokens": 10},
    }));
    let events = [
        txt("x"),
        Event::Finish {
            reason: Some(FinishReason::Length),
            usage: Some(u),
        },
    ];
    let a = payloads(&Api::Anthropic.emit(&events));
    let delta = &a.iter().find(|(n, _)| n == "message_delta").unwrap().1;
    assert_eq!(delta["delta"]["stop_reason"], "max_tokens");
    assert_eq!(
        delta["usage"],
        json!({"input_tokens": 40, "cache_read_input_tokens": 60, "output_tokens": 30})
    );
    let r = payloads(&Api::Responses.emit(&events));
    let (name, last) = r.last().unwrap();
    assert_eq!(name, "response.incomplete");
    assert_eq!(last["response"]["status"], "incomplete");
    assert_eq!(
        last["response"]["incomplete_details"]["reason"],
        "max_output_tokens"
    );
    assert_eq!(
        last["response"]["usage"],
        json!({
            "input_tokens": 100, "input_tokens_details": {"cached_tokens": 60},
            "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 10},
            "total_tokens": 130,
        })
    );
    // Read back: the same counts.
    for api in [Api::Anthropic, Api::Responses] {
        let (reason, got) = finish(&api.read(&api.emit(&events)));
        let got = got.unwrap();
        assert_eq!(reason, Some(FinishReason::Length), "{api:?}");
        assert_eq!(
            (got.input_tokens, got.output_tokens, got.cached_input_tokens),
            (Some(100), Some(30), Some(60)),
            "{api:?}"
        );
    }
}

/// A recoverable error goes out under an event name the SDKs skip and the stream goes
/// on; the failed call's text is forwarded and the call is not in the whole body.
#[test]
fn recoverable_errors_do_not_end_the_stream() {
    let bad = Event::Error {
        path: None,
        kind: ErrorKind::InvalidArguments,
        message: "bad".into(),
        index: Some(0),
        raw: "{\"x\": tru}".into(),
    };
    let events = [
        start(0, "a", "f"),
        args(0, "{\"x\": "),
        bad,
        start(1, "b", "g"),
        args(1, "{}"),
        end(1, "b", "g", json!({})),
    ];
    let a_sse = Api::Anthropic.emit(&events);
    // Recoverable errors ride on event types every client skips (tests/fronts.rs: the Vercel
    // AI SDK's Anthropic provider fails on a type of our own, the OpenAI Node SDK's
    // `responses.stream()` too): Anthropic's `ping`, Responses' `keepalive`.
    assert!(a_sse.contains("event: ping\ndata: {\"type\":\"ping\",\"toolstream_error\":{"));
    assert!(!a_sse.contains("toolstream_error\n"));
    assert!(a_sse.contains(Api::Anthropic.completion()));
    assert!(a_sse.contains(r#""partial_json":"tru}""#));
    let r_sse = Api::Responses.emit(&events);
    assert!(r_sse.contains("event: keepalive\ndata: {\"type\":\"keepalive\",\"sequence_number\":"));
    assert!(!r_sse.contains("toolstream.error"));
    assert!(r_sse.contains(Api::Responses.completion()));
    // No top-level `error` key anywhere (the OpenAI SDKs raise on one).
    for (_, v) in payloads(&r_sse) {
        assert!(v.get("error").is_none(), "{v}");
    }
    // The failed call is never an `output_item.done`.
    let done: Vec<Value> = payloads(&r_sse)
        .into_iter()
        .filter(|(n, _)| n == "response.output_item.done")
        .map(|(_, v)| v["item"]["call_id"].clone())
        .collect();
    assert_eq!(done, [json!("call_b")]);
    let mut em = AnthropicEmitter::new();
    let mut r = OpenAiResponsesEmitter::new();
    let mut sink = String::new();
    for e in &events {
        em.event(e, &mut sink);
        r.event(e, &mut sink);
    }
    em.finish(&mut sink);
    r.finish(&mut sink);
    let m = em.message().unwrap();
    assert_eq!(m["content"].as_array().unwrap().len(), 1);
    assert_eq!(m["content"][0]["id"], "toolu_b");
    assert_eq!(m["toolstream_errors"][0]["index"], 0);
    let resp = r.response();
    assert_eq!(resp["status"], "completed");
    assert_eq!(resp["output"][0]["status"], "incomplete");
    assert_eq!(resp["output"][1]["status"], "completed");
    assert_eq!(resp["toolstream_errors"][0]["type"], "invalid_arguments");
    // Read back: call b whole, call a not completed.
    for api in [Api::Anthropic, Api::Responses] {
        let calls = completed(&api.read(&api.emit(&events)), Some(api));
        assert!(
            calls.contains_key("b") && !calls.contains_key("a"),
            "{api:?} {calls:?}"
        );
    }
}

/// An error that ends the stream: Anthropic's `event: error` (the provider's error type
/// kept), Responses' `response.failed`; nothing after, no complete ending.
#[test]
fn an_error_that_ends_the_stream_is_the_apis_own_failure() {
    for kind in [
        ErrorKind::Truncated,
        ErrorKind::Provider,
        ErrorKind::UnrecognizedInput,
    ] {
        let events = [
            txt("x"),
            start(0, "a", "f"),
            args(0, "{\"q\":"),
            Event::Error {
                path: None,
                kind,
                message: "Overloaded".into(),
                index: None,
                raw:
                    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
                        .into(),
            },
            txt("never"),
        ];
        let a = payloads(&Api::Anthropic.emit(&events));
        let (name, last) = a.last().unwrap();
        assert_eq!(name, "error", "{kind:?}");
        let want = if kind == ErrorKind::Provider {
            "overloaded_error"
        } else {
            "api_error"
        };
        assert_eq!(last["error"]["type"], want);
        assert_eq!(last["error"]["message"], "Overloaded");
        assert_eq!(last["toolstream_error"]["type"], kind.as_str());
        assert!(
            !a.iter()
                .any(|(n, _)| n == "message_delta" || n == "message_stop")
        );
        let r = payloads(&Api::Responses.emit(&events));
        let (name, last) = r.last().unwrap();
        assert_eq!(name, "response.failed");
        assert_eq!(last["response"]["status"], "failed");
        assert_eq!(last["response"]["error"]["message"], "Overloaded");
        assert_eq!(last["response"]["output"][1]["status"], "incomplete");
        for api in [Api::Anthropic, Api::Responses] {
            let back = api.read(&api.emit(&events));
            assert!(
                back.iter().any(|e| matches!(e, Event::Error { kind: ErrorKind::Provider, message, .. } if message.contains("Overloaded"))),
                "{api:?} {back:?}"
            );
            assert!(completed(&back, Some(api)).is_empty());
        }
    }
}

/// The provider's id and model are kept; made-up ids are fresh and in the API's form.
#[test]
fn ids_and_meta() {
    let (a, b) = (AnthropicEmitter::new(), AnthropicEmitter::new());
    let ma = a.message().unwrap();
    assert_ne!(ma["id"], b.message().unwrap()["id"]);
    assert!(ma["id"].as_str().unwrap().starts_with("msg_"));
    let r = OpenAiResponsesEmitter::new().response();
    assert!(r["id"].as_str().unwrap().starts_with("resp_"));
    assert_eq!(r["status"], "in_progress");
    let body = concat!(
        r#"data: {"type":"message_start","message":{"id":"msg_provider","model":"claude-x","usage":{"input_tokens":5}}}"#,
        "\n\n",
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
        "\n\n",
    );
    let mut p = Parser::new(Format::Anthropic);
    let mut events = Vec::new();
    p.feed(body.as_bytes(), &mut events).unwrap();
    let mut em = AnthropicEmitter::new();
    let mut rem = OpenAiResponsesEmitter::new();
    em.response_meta(p.response_meta());
    rem.response_meta(p.response_meta());
    let (mut s1, mut s2) = (String::new(), String::new());
    for e in &events {
        em.event(e, &mut s1);
        rem.event(e, &mut s2);
    }
    assert!(s1.contains(r#""id":"msg_provider""#) && s1.contains(r#""model":"claude-x""#));
    assert!(s2.contains(r#""id":"msg_provider""#) && s2.contains(r#""model":"claude-x""#));
}
