//! Re-emit: every recorded capture of every format, written out as OpenAI chunks and read
//! back by our own `openai-chat` decoder, gives the same events (modulo the documented
//! differences); the AG-UI output passes the JSON schema of the events we emit
//! (tests/schema/ag-ui-events.schema.json, written from the AG-UI spec) and the protocol's
//! ordering rules.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::collapsible_match
)]

mod common;

use common::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use toolstream::emit::{AgUiEmitter, OpenAiChatEmitter, ends_the_stream};
use toolstream::{ErrorKind, Event, FinishReason, Format, Usage, merge_deltas};

fn to_openai(events: &[Event]) -> String {
    let mut em = OpenAiChatEmitter::new().id("chatcmpl-rt").model("rt");
    let mut sse = String::new();
    for e in events {
        em.event(e, &mut sse);
    }
    em.finish(&mut sse);
    sse
}

fn read_openai(sse: &str) -> Vec<Event> {
    let mut events = events_of(
        &|| common::parser(Format::OpenAiChat),
        sse.as_bytes(),
        usize::MAX,
    );
    merge_deltas(&mut events);
    events
}

/// The documented differences of the OpenAI round trip, applied to both sides: usage
/// keeps its counts (not `raw`); the events end at the first error that ends the stream
/// (written as `event: error`, read back as a provider error with the same message); the
/// failure of a call is reported by the reader when it closes the call (the OpenAI format
/// cannot fail one call), so call failures are compared as a set, and a failed call's
/// argument deltas are not compared (the reader streams the valid prefix of the forwarded
/// raw text before it sees the failure); recoverable errors are not events of the reader
/// (see [`recoverable_errors_are_in_the_extension_field`]); a free-form input (arguments
/// that are not an object) is `{"input": ..}`. On the reader's side (`read_back`) only an
/// error without a call index ends the stream (the reader reports a failed call whose
/// forwarded text is cut JSON as `truncated`, at its close, in a stream that went on).
fn normalise(events: &[Event], read_back: bool) -> Vec<Value> {
    let mut out = Vec::new();
    let mut failed = BTreeSet::new();
    let failed_calls: BTreeSet<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::Error { index: Some(i), .. } => Some(*i),
            _ => None,
        })
        .collect();
    let wrapped: BTreeSet<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallEnd {
                index, arguments, ..
            } if !arguments.is_object() => Some(*index),
            _ => None,
        })
        .collect();
    for e in events {
        match e {
            Event::ToolCallArgs { index, .. } if failed_calls.contains(index) => {}
            Event::ToolCallArgs { index, delta } if wrapped.contains(index) => out.push(json!({
                "type": "tool_call_args", "index": index, "delta": format!("{{\"input\":{delta}}}"),
            })),
            Event::ToolCallEnd {
                index,
                id,
                name,
                arguments,
            } if wrapped.contains(index) => out.push(json!({
                "type": "tool_call_end", "index": index, "id": id, "name": name,
                "arguments": {"input": arguments},
            })),
            Event::Finish { reason, usage } => out.push(json!({
                "type": "finish",
                "reason": reason.as_ref().map(|r| r.as_str().to_owned()),
                "usage": usage.as_ref().map(|u: &Usage| (u.input_tokens, u.output_tokens, u.total_tokens)),
            })),
            Event::Error {
                kind,
                message,
                index,
                ..
            } => {
                if let Some(i) = index {
                    failed.insert(*i);
                }
                if ends_the_stream(*kind) && !(read_back && index.is_some()) {
                    out.push(json!({"type": "error", "message": message}));
                    break;
                }
            }
            other => out.push(serde_json::to_value(other).unwrap()),
        }
    }
    // Calls that failed after the end (the reader closes an open call at its end).
    for e in events {
        if let Event::Error { index: Some(i), .. } = e {
            failed.insert(*i);
        }
    }
    out.push(json!({"failed calls": failed}));
    out
}

/// What the OpenAI output says about the end: a stream that ends in an error has no
/// finish; otherwise the finish goes out last, its reason the input's or, when none came,
/// `tool_calls` if a call was made, else `stop`, and `tool_calls` becomes `stop` when no
/// call was made (documented on the emitter).
fn closed_like_openai(events: &[Event]) -> Vec<Event> {
    let any_call = events
        .iter()
        .any(|e| matches!(e, Event::ToolCallStart { .. }));
    let fatal = events
        .iter()
        .any(|e| matches!(e, Event::Error { kind, .. } if ends_the_stream(*kind)));
    let mut out: Vec<Event> = events
        .iter()
        .filter(|e| !matches!(e, Event::Finish { .. }))
        .cloned()
        .collect();
    if fatal {
        return out;
    }
    let (reason, usage) = events
        .iter()
        .find_map(|e| match e {
            Event::Finish { reason, usage } => Some((reason.clone(), usage.clone())),
            _ => None,
        })
        .unwrap_or((None, None));
    let reason = match reason {
        Some(FinishReason::ToolCalls) | None if any_call => FinishReason::ToolCalls,
        Some(FinishReason::ToolCalls) | None => FinishReason::Stop,
        Some(r) => r,
    };
    out.push(Event::Finish {
        reason: Some(reason),
        usage,
    });
    out
}

/// The `toolstream_error` objects of an OpenAI output, in order.
fn extension_errors(sse: &str) -> Vec<Value> {
    sse.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| v.get("toolstream_error").cloned())
        .collect()
}

/// The recoverable errors of `events` as the extension field carries them.
fn recoverable(events: &[Event]) -> Vec<Value> {
    let mut out = Vec::new();
    for e in events {
        if let Event::Error {
            path: _,
            kind,
            message,
            index,
            raw,
        } = e
        {
            if ends_the_stream(*kind) {
                break;
            }
            let mut v = json!({"message": message, "type": kind.as_str(), "raw": raw});
            if let Some(i) = index {
                v["index"] = json!(i);
            }
            out.push(v);
        }
    }
    out
}

fn round_trip_one(format: &str, cap: &Capture, chunk: usize) -> Result<(), String> {
    let make = maker(format, cap.framing);
    let original_raw = events_of(&make, &cap.bytes, chunk);
    let mut original = original_raw.clone();
    merge_deltas(&mut original);
    let sse = to_openai(&original_raw);
    let decoded = read_openai(&sse);
    check_contract(&decoded);
    // Usage: the same normalised counts (prompt + completion = total, reasoning and cached
    // tokens in the `*_details`); an OpenAI-shaped object keeps its other fields.
    let usage = |v: &[Event]| -> Vec<toolstream::Usage> {
        v.iter()
            .filter_map(|e| match e {
                Event::Finish { usage: Some(u), .. } => Some(u.clone()),
                _ => None,
            })
            .collect()
    };
    for (a, b) in usage(&original).iter().zip(usage(&decoded).iter()) {
        let counts = |u: &toolstream::Usage| {
            (
                u.input_tokens,
                u.output_tokens,
                u.total_tokens,
                u.reasoning_tokens,
                u.cached_input_tokens,
            )
        };
        if counts(a) != counts(b) {
            return Err(format!("{}: usage counts differ: {a:?} vs {b:?}", cap.path));
        }
        if format == "openai-chat"
            && let Some(o) = a.raw.as_object()
        {
            let counted = ["prompt_tokens", "completion_tokens", "total_tokens"];
            for (k, v) in o {
                if !counted.contains(&k.as_str()) && !k.ends_with("_details") && b.raw[k] != *v {
                    return Err(format!("{}: usage raw field {k} differs", cap.path));
                }
            }
        }
    }
    if usage(&original).len() != usage(&decoded).len() {
        return Err(format!("{}: usage lost or invented", cap.path));
    }
    if extension_errors(&sse) != recoverable(&original) {
        return Err(format!(
            "{}: recoverable errors {:?} != extension fields {:?}",
            cap.path,
            recoverable(&original),
            extension_errors(&sse)
        ));
    }
    let want = normalise(&closed_like_openai(&original), false);
    let got = normalise(&decoded, true);
    if want == got {
        Ok(())
    } else {
        let first = want
            .iter()
            .zip(&got)
            .position(|(a, b)| a != b)
            .unwrap_or(want.len().min(got.len()));
        Err(format!(
            "{} (chunk {chunk}): first difference at event {first}:\n  want {}\n  got  {}\n  ({} vs {} events)",
            cap.path,
            want.get(first).map(Value::to_string).unwrap_or_default(),
            got.get(first).map(Value::to_string).unwrap_or_default(),
            want.len(),
            got.len()
        ))
    }
}

#[test]
fn openai_chat_round_trip_of_every_capture() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for format in capture_formats() {
        if format.parse::<Format>().is_err() {
            visible(&format!(
                "SKIPPED: format {format} not in this build; its captures not round-tripped (FORMATS.json names a format this build does not know: update toolstream to the captures' version)"
            ));
            continue;
        }
        for cap in captures(&format) {
            for chunk in [usize::MAX, 7] {
                checked += 1;
                if let Err(e) = round_trip_one(&format, &cap, chunk) {
                    failures.push(e);
                }
            }
        }
    }
    eprintln!("round-tripped {checked} capture runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Streams whose calls fail (cut off, invalid arguments, a limit) and recoverable errors:
/// the documented error differences, and nothing else.
#[test]
fn openai_chat_round_trip_of_failing_calls() {
    let openai = |deltas: &[Value], done: bool| {
        let mut s = String::new();
        for d in deltas {
            s.push_str(&format!(
                "data: {}\n\n",
                json!({"choices": [{"index": 0, "delta": d}]})
            ));
        }
        if done {
            s.push_str("data: [DONE]\n\n");
        }
        s
    };
    let call = |i: u32, id: &str, name: &str, args: &str| json!({"tool_calls": [{"index": i, "id": id, "function": {"name": name, "arguments": args}}]});
    let cases: Vec<(&str, Format, String)> = vec![
        (
            "cut off mid-arguments",
            Format::OpenAiChat,
            openai(&[json!({"content": "Hi"}), call(0, "a", "f", "{\"x\": [1, ")], false),
        ),
        (
            "invalid arguments, then a good call",
            Format::OpenAiChat,
            openai(
                &[call(0, "a", "f", "{\"x\": tru}"), call(1, "b", "g", "{}")],
                true,
            ),
        ),
        (
            "a junk line between calls",
            Format::OpenAiChat,
            format!(
                "{}data: {{not json\n\n{}",
                openai(&[call(0, "a", "f", "{}")], false),
                openai(&[call(1, "b", "g", "{\"y\":2}")], true)
            ),
        ),
        (
            "anthropic overloaded error mid-call",
            Format::Anthropic,
            concat!(
                "event: content_block_start\n",
                r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}"#, "\n\n",
                "event: content_block_delta\n",
                r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"q\":"}}"#, "\n\n",
                "event: error\n",
                r#"data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#, "\n\n",
            )
            .to_owned(),
        ),
    ];
    for (name, format, body) in cases {
        let make = move || common::parser(format);
        let raw = events_of(&make, body.as_bytes(), 3);
        let mut original = raw.clone();
        merge_deltas(&mut original);
        assert!(!errors(&original).is_empty(), "{name}: expected an error");
        let sse = to_openai(&raw);
        let decoded = read_openai(&sse);
        check_contract(&decoded);
        assert_eq!(
            normalise(&closed_like_openai(&original), false),
            normalise(&decoded, true),
            "{name}"
        );
        assert_eq!(extension_errors(&sse), recoverable(&original), "{name}");
        // The error that ends the stream is in the decoded error payload, message and raw;
        // a complete stream ends with [DONE], a failed one without.
        let fatal = original.iter().find_map(|e| match e {
            Event::Error {
                kind, message, raw, ..
            } if ends_the_stream(*kind) => Some((message, raw)),
            _ => None,
        });
        assert_eq!(sse.ends_with("data: [DONE]\n\n"), fatal.is_none(), "{name}");
        if let Some((message, raw)) = fatal {
            assert!(
                decoded.iter().any(|d| matches!(d, Event::Error { kind: ErrorKind::Provider, message: m, raw: r, .. }
                    if m == message && serde_json::from_str::<Value>(r).unwrap()["error"]["raw"] == raw.as_str())),
                "{name}: error {message:?} not carried"
            );
            assert!(
                !sse.contains("finish_reason\":\""),
                "{name}: a finish reason"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// AG-UI

/// A small JSON Schema interpreter for the keywords our schema file uses: `$ref` (local),
/// `oneOf`, `type`, `required`, `properties`, `items`, `additionalProperties: false`, `const`,
/// `enum`, `minLength`.
fn validate(schema: &Value, root: &Value, v: &Value) -> Result<(), String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("local $ref");
        return validate(&root["$defs"][name], root, v);
    }
    if let Some(alts) = schema.get("oneOf").and_then(Value::as_array) {
        let ok = alts.iter().filter(|s| validate(s, root, v).is_ok()).count();
        if ok != 1 {
            let why: Vec<String> = alts
                .iter()
                .filter_map(|s| validate(s, root, v).err())
                .filter(|e| !e.starts_with("const"))
                .collect();
            return Err(format!("{ok} of oneOf match {v}: {why:?}"));
        }
    }
    if let Some(t) = schema.get("type").and_then(Value::as_str) {
        let ok = match t {
            "object" => v.is_object(),
            "string" => v.is_string(),
            "number" => v.is_number(),
            "integer" => v.is_i64() || v.is_u64(),
            "array" => v.is_array(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            other => panic!("type {other}"),
        };
        if !ok {
            return Err(format!("type: {v} is not {t}"));
        }
    }
    if let Some(c) = schema.get("const")
        && c != v
    {
        return Err(format!("const: {v} != {c}"));
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        return Err(format!("enum: {v} not in {e:?}"));
    }
    if let Some(n) = schema.get("minLength").and_then(Value::as_u64)
        && v.as_str().is_some_and(|s| (s.chars().count() as u64) < n)
    {
        return Err(format!("minLength {n}: {v}"));
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), v.as_array()) {
        for (i, item) in arr.iter().enumerate() {
            validate(items, root, item).map_err(|e| format!("[{i}]: {e}"))?;
        }
    }
    if let Some(obj) = v.as_object() {
        let props = schema.get("properties").and_then(Value::as_object);
        for r in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let r = r.as_str().unwrap();
            if !obj.contains_key(r) {
                return Err(format!("required {r} missing in {v}"));
            }
        }
        for (k, val) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(s) => validate(s, root, val).map_err(|e| format!("{k}: {e}"))?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return Err(format!("additional property {k} in {v}"));
                }
                None => {}
            }
        }
    }
    Ok(())
}

fn schema() -> Value {
    serde_json::from_str(include_str!("schema/ag-ui-events.schema.json")).unwrap()
}

#[test]
fn the_schema_rejects_what_it_should() {
    let s = schema();
    let ok = json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"});
    validate(&s, &s, &ok).unwrap();
    for bad in [
        json!({"type": "TOOL_CALL_START", "toolCallId": "c"}),
        json!({"type": "TOOL_CALL_START", "tool_call_id": "c", "toolCallName": "f"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": ""}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "tool"}),
        json!({"type": "RUN_STARTED", "threadId": 1, "runId": "r"}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "usage": [{"inputTokens": null}]}),
        json!({"type": "TOOL_CALL_BEGIN", "toolCallId": "c"}),
    ] {
        assert!(validate(&s, &s, &bad).is_err(), "accepted {bad}");
    }
}

/// The protocol's ordering rules (as `@ag-ui/client`'s verifier enforces them) plus what
/// the events must say: each call's name and argument text, all the text.
fn check_ag_ui_sequence(ag: &[Value], source: &[Event]) -> Result<(), String> {
    let ty = |v: &Value| v["type"].as_str().unwrap().to_owned();
    if ag.first().map(ty).as_deref() != Some("RUN_STARTED") {
        return Err("first event is not RUN_STARTED".into());
    }
    let last = ag.last().map(ty).unwrap();
    if last != "RUN_FINISHED" && last != "RUN_ERROR" {
        return Err(format!("last event is {last}"));
    }
    let mut open_text: BTreeSet<String> = BTreeSet::new();
    let mut open_reasoning: BTreeSet<String> = BTreeSet::new();
    let mut seen_messages: BTreeSet<String> = BTreeSet::new();
    let mut open_calls: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut seen_calls: BTreeSet<String> = BTreeSet::new();
    let mut ended_calls: Vec<(String, String)> = Vec::new();
    let mut text = String::new();
    for (i, e) in ag.iter().enumerate() {
        let id = |k: &str| e[k].as_str().unwrap().to_owned();
        let t = ty(e);
        if i > 0 && t == "RUN_STARTED" {
            return Err("second RUN_STARTED".into());
        }
        if (t == "RUN_FINISHED" || t == "RUN_ERROR") && i + 1 != ag.len() {
            return Err(format!("{t} is not last"));
        }
        match t.as_str() {
            "TEXT_MESSAGE_START" => {
                if !seen_messages.insert(id("messageId")) {
                    return Err("message id reused".into());
                }
                open_text.insert(id("messageId"));
            }
            "TEXT_MESSAGE_CONTENT" => {
                if !open_text.contains(&id("messageId")) {
                    return Err("content outside its message".into());
                }
                text.push_str(e["delta"].as_str().unwrap());
            }
            "TEXT_MESSAGE_END" => {
                if !open_text.remove(&id("messageId")) {
                    return Err("end of a message not open".into());
                }
            }
            "REASONING_START" => {
                if !seen_messages.insert(id("messageId")) {
                    return Err("reasoning id reused".into());
                }
            }
            "REASONING_MESSAGE_START" => {
                open_reasoning.insert(id("messageId"));
            }
            "REASONING_MESSAGE_CONTENT" if !open_reasoning.contains(&id("messageId")) => {
                return Err("reasoning outside its message".into());
            }
            "REASONING_MESSAGE_END" if !open_reasoning.remove(&id("messageId")) => {
                return Err("end of a reasoning message not open".into());
            }
            "TOOL_CALL_START" => {
                if !seen_calls.insert(id("toolCallId")) {
                    return Err(format!("tool call id {} reused", id("toolCallId")));
                }
                open_calls.insert(id("toolCallId"), (id("toolCallName"), String::new()));
            }
            "TOOL_CALL_ARGS" => match open_calls.get_mut(&id("toolCallId")) {
                Some(c) => c.1.push_str(e["delta"].as_str().unwrap()),
                None => return Err("args outside their call".into()),
            },
            "TOOL_CALL_END" => match open_calls.remove(&id("toolCallId")) {
                Some(c) => ended_calls.push(c),
                None => return Err("end of a call not open".into()),
            },
            "RUN_FINISHED" => {
                if !open_text.is_empty() || !open_reasoning.is_empty() || !open_calls.is_empty() {
                    return Err("RUN_FINISHED with open messages or calls".into());
                }
            }
            _ => {}
        }
    }
    // What the events say: every ended call, with its argument text; all the text.
    let want_calls: Vec<(String, Value)> = calls(source)
        .into_iter()
        .map(|c| (c.name, c.arguments))
        .collect();
    let got_calls: Vec<(String, Value)> = ended_calls
        .into_iter()
        .map(|(n, a)| (n, serde_json::from_str(&a).unwrap_or(Value::Null)))
        .collect();
    if last == "RUN_FINISHED" {
        if got_calls != want_calls {
            return Err(format!("calls differ: {got_calls:?} vs {want_calls:?}"));
        }
        if text != common::text(source) {
            return Err("text differs".into());
        }
    } else if !want_calls.starts_with(&got_calls) {
        return Err("calls before the RUN_ERROR differ".into());
    }
    Ok(())
}

fn to_ag_ui(events: &[Event]) -> Vec<Value> {
    let mut ag = AgUiEmitter::new().thread_id("t").run_id("r");
    let mut sse = String::new();
    for e in events {
        ag.event_sse(e, &mut sse);
    }
    ag.finish_sse(&mut sse);
    sse.split("\n\n")
        .filter(|m| !m.is_empty())
        .map(|m| serde_json::from_str(m.strip_prefix("data: ").expect("data: line")).unwrap())
        .collect()
}

#[test]
fn ag_ui_output_of_every_capture_passes_the_schema_and_the_ordering_rules() {
    let s = schema();
    let mut failures = Vec::new();
    let mut n = 0;
    for format in capture_formats() {
        if format.parse::<Format>().is_err() {
            visible(&format!(
                "SKIPPED: format {format} not in this build; its captures not checked as AG-UI (FORMATS.json names a format this build does not know: update toolstream to the captures' version)"
            ));
            continue;
        }
        for cap in captures(&format) {
            let make = maker(&format, cap.framing);
            let events = events_of(&make, &cap.bytes, 5);
            let mut merged = events.clone();
            merge_deltas(&mut merged);
            let ag = to_ag_ui(&events);
            n += ag.len();
            for e in &ag {
                if let Err(why) = validate(&s, &s, e) {
                    failures.push(format!("{}: {why}", cap.path));
                }
            }
            if let Err(why) = check_ag_ui_sequence(&ag, &merged) {
                failures.push(format!("{}: {why}", cap.path));
            }
        }
    }
    eprintln!("checked {n} AG-UI events");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ag_ui_output_of_failing_streams_passes_the_schema_and_the_ordering_rules() {
    let s = schema();
    let bodies = [
        // cut off mid-arguments: the run ends with RUN_ERROR, the call never ends
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\",\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\":\"}}]}}]}\n\n",
        // a junk line (recoverable: CUSTOM), then a call and the end
        "data: {oops\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\ndata: [DONE]\n\n",
        // reasoning, text, no finish
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n",
    ];
    for body in bodies {
        let events = events_of(&|| common::parser(Format::OpenAiChat), body.as_bytes(), 4);
        let ag = to_ag_ui(&events);
        for e in &ag {
            validate(&s, &s, e).unwrap();
        }
        let mut merged = events.clone();
        merge_deltas(&mut merged);
        check_ag_ui_sequence(&ag, &merged).unwrap();
    }
}

/// The CLI wiring: `parse --emit openai-chat` output parsed again gives the events of
/// `parse`; `--emit ag-ui` output passes the schema; `--pretty` shows the call.
#[test]
fn cli_emit_and_pretty() {
    let Some(exe) = option_env!("CARGO_BIN_EXE_toolstream") else {
        visible(
            "SKIPPED: CLI emit test needs the cli feature (on by default; cargo test --all-features)",
        );
        return;
    };
    let run = |args: &[&str], stdin: &[u8]| -> String {
        use std::io::Write;
        let mut child = std::process::Command::new(exe)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let body = concat!(
        "event: content_block_start\n",
        r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}"#,
        "\n\n",
        "event: content_block_delta\n",
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Paris\"}"}}"#,
        "\n\n",
        "event: message_delta\n",
        r#"data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#,
        "\n\n",
        // The stream's end: without it the stream is cut off (a `truncated` error).
        "event: message_stop\n",
        r#"data: {"type":"message_stop"}"#,
        "\n\n",
    );
    let direct = run(&["parse", "-f", "anthropic"], body.as_bytes());
    let openai = run(
        &["parse", "-f", "anthropic", "--emit", "openai-chat"],
        body.as_bytes(),
    );
    assert!(openai.ends_with("data: [DONE]\n\n"), "{openai}");
    // Usage rides on the finish chunk, unless --include-usage asks for OpenAI's own chunk.
    assert!(!openai.contains(r#""choices":[]"#), "{openai}");
    assert!(
        openai.contains(r#""finish_reason":"tool_calls"}],"usage":{"#),
        "{openai}"
    );
    let with_usage = run(
        &[
            "parse",
            "-f",
            "anthropic",
            "--emit",
            "openai-chat",
            "--include-usage",
        ],
        body.as_bytes(),
    );
    assert!(
        with_usage.contains(r#""choices":[],"usage":{"#),
        "{with_usage}"
    );
    let refused = std::process::Command::new(exe)
        .args([
            "parse",
            "-f",
            "anthropic",
            "--emit",
            "ag-ui",
            "--include-usage",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let back = run(&["parse", "-f", "openai-chat"], openai.as_bytes());
    let strip_usage = |s: &str| -> Vec<Value> {
        s.lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                if let Some(u) = v.get_mut("usage").filter(|u| !u.is_null()) {
                    u["raw"] = Value::Null;
                }
                v
            })
            .collect()
    };
    assert_eq!(strip_usage(&back), strip_usage(&direct));

    let ag = run(
        &["parse", "-f", "anthropic", "--emit", "ag-ui"],
        body.as_bytes(),
    );
    let s = schema();
    let events: Vec<Value> = ag
        .split("\n\n")
        .filter(|m| !m.is_empty())
        .map(|m| serde_json::from_str(m.strip_prefix("data: ").unwrap()).unwrap())
        .collect();
    for e in &events {
        validate(&s, &s, e).unwrap();
    }
    assert_eq!(events.first().unwrap()["type"], "RUN_STARTED");
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");

    let pretty = run(&["parse", "-f", "anthropic", "--pretty"], body.as_bytes());
    assert!(
        pretty.contains("⏺ call #0 get_weather (toolu_1)"),
        "{pretty}"
    );
    assert!(pretty.contains("✓ get_weather complete"), "{pretty}");
    assert!(!pretty.contains('\x1b'), "colour when not a terminal");
}

/// `2025-07-29T17:37:08.301403Z` as Unix seconds, the naive way (days counted year by
/// year and month by month), for the oracle below: UTC (`Z`) times only.
fn naive_unix_seconds(t: &str) -> Option<u64> {
    let t = t.strip_suffix('Z')?;
    let (date, time) = t.split_once('T')?;
    let n: Vec<u64> = date
        .split('-')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let hms: Vec<u64> = (time.split('.').next()?.split(':'))
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let leap = |y: u64| (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    let mut days = (1970..n[0])
        .map(|y| if leap(y) { 366 } else { 365 })
        .sum::<u64>();
    let months = [
        31,
        if leap(n[0]) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    days += months[..(n[1] - 1) as usize].iter().sum::<u64>() + n[2] - 1;
    Some(days * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2])
}

/// `Parser::response_meta` of every capture: the same at every chunking (split
/// invariance), and equal to what a one-shot oracle reads from the payloads (the first
/// non-empty `id` / `model` / integer `created` at the format's place).
#[test]
fn response_meta_of_every_capture() {
    use toolstream::{Framing, ResponseMeta};
    let mut found = 0;
    for format in [
        "openai-chat",
        "anthropic",
        "openai-responses",
        "gemini",
        "cohere",
        "ollama",
    ] {
        for cap in captures(format) {
            let make = maker(format, cap.framing);
            let meta_at = |chunk: usize| {
                let mut p = make();
                let mut out = Vec::new();
                for c in cap.bytes.chunks(chunk) {
                    p.feed(c, &mut out).unwrap();
                }
                p.finish(&mut out).unwrap();
                p.response_meta().clone()
            };
            let whole = meta_at(usize::MAX);
            for chunk in [1, 7, 64] {
                assert_eq!(meta_at(chunk), whole, "{} at chunk {chunk}", cap.path);
            }
            if !matches!(cap.framing, Framing::Sse | Framing::Ndjson) {
                continue;
            }
            // The oracle: each payload line parsed whole.
            let mut want = ResponseMeta::default();
            for line in String::from_utf8_lossy(&cap.bytes).lines() {
                let line = line.strip_prefix("data:").unwrap_or(line).trim();
                let Ok(v) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                let (holder, id, model, created) = match format {
                    "openai-chat" => (&v, "id", "model", "created"),
                    "anthropic" if v["type"] == "message_start" => {
                        (&v["message"], "id", "model", "")
                    }
                    "openai-responses" => (&v["response"], "id", "model", "created_at"),
                    "gemini" => (&v, "responseId", "modelVersion", "createTime"),
                    "cohere" if v["type"] == "message-start" => (&v, "id", "", ""),
                    "ollama" => (&v, "", "model", "created_at"),
                    _ => continue,
                };
                let text = |k: &str| {
                    holder[k]
                        .as_str()
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                };
                want.id = want.id.or_else(|| text(id));
                want.model = want.model.or_else(|| text(model));
                want.created = want.created.or_else(|| {
                    (holder[created].as_u64())
                        .or_else(|| holder[created].as_str().and_then(naive_unix_seconds))
                });
            }
            assert_eq!(whole, want, "{}", cap.path);
            found += usize::from(whole.id.is_some());
        }
    }
    eprintln!("response ids found in {found} captures");
    if captures_dir().is_some() {
        assert!(found > 50, "only {found} captures with an id");
    }
}

/// No cut stream looks complete: every capture cut at each of its event boundaries (SSE
/// `\n\n`, NDJSON `\n`; up to 100 cuts per capture), re-emitted both ways. When the parser
/// reports an error that ends the stream (`truncated`, ...), the OpenAI output ends in
/// `event: error` with no `finish_reason` and no `[DONE]`, and the AG-UI run in
/// `RUN_ERROR`; otherwise the OpenAI output ends with `[DONE]` and the run with
/// `RUN_FINISHED`.
#[test]
fn a_cut_stream_never_ends_cleanly() {
    use toolstream::Framing;
    let (mut cuts, mut failed) = (0, 0);
    for format in capture_formats() {
        if format.parse::<Format>().is_err() {
            continue;
        }
        for cap in captures(&format) {
            let sep: &[u8] = match cap.framing {
                Framing::Sse => b"\n\n",
                Framing::Ndjson => b"\n",
                _ => continue,
            };
            let make = maker(&format, cap.framing);
            let ends: Vec<usize> = cap
                .bytes
                .windows(sep.len())
                .enumerate()
                .filter(|(_, w)| *w == sep)
                .map(|(i, _)| i + sep.len())
                .collect();
            let step = ends.len().div_ceil(100).max(1);
            for &end in ends.iter().step_by(step) {
                cuts += 1;
                let events = events_of(&make, &cap.bytes[..end], usize::MAX);
                let fatal = events
                    .iter()
                    .any(|e| matches!(e, Event::Error { kind, .. } if ends_the_stream(*kind)));
                failed += usize::from(fatal);
                let sse = to_openai(&events);
                let last = sse.trim_end().lines().last().unwrap_or("");
                let ag = to_ag_ui(&events);
                let ag_last = ag.last().unwrap()["type"].as_str().unwrap().to_owned();
                let at = format!("{} cut at {end}", cap.path);
                if fatal {
                    assert!(last.starts_with("data: {\"error\":"), "{at}: {last}");
                    assert!(!sse.lines().any(|l| l == "data: [DONE]"), "{at}");
                    assert!(!sse.contains("\"finish_reason\":\""), "{at}");
                    assert_eq!(ag_last, "RUN_ERROR", "{at}");
                } else {
                    assert_eq!(last, "data: [DONE]", "{at}");
                    assert_eq!(ag_last, "RUN_FINISHED", "{at}");
                }
            }
        }
    }
    eprintln!("{cuts} cuts, {failed} re-emitted as failed");
}
