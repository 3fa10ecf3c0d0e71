//! `gemini` and `bedrock` end to end, beside a baseline of
//! `serde_json::from_slice::<serde_json::Value>` on every payload (the floor any client
//! pays to read the envelopes).
//!
//! - `gemini_sse_stream`: a Google AI `alt=sse` stream the size of a recorded one (a
//!   thought part, ~40 text chunks, two calls, `usageMetadata` on every chunk), fed one
//!   event per feed and in 1 KiB segments.
//! - `gemini_vertex_partial_args`: a Vertex streamed-arguments call like the recorded
//!   `cookRecipe` one (76 NDJSON chunks, ~32 KB): `partialArgs` turned into JSON text.
//! - `bedrock_stream`: a Nova-like ConverseStream in binary event-stream frames (text
//!   deltas, a call with its input in ~26 deltas, `p` padding on every event).
//! - `bedrock_64k_args`: one Bedrock call with 64 KB of `toolUse.input` in 8-byte and
//!   in 256-byte deltas, one frame each; throughput counts argument bytes, so the time
//!   is per argument byte.
//!
//! Divide a group's time by its event count (printed once at start) for ns per event.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::hint::black_box;
use std::time::Duration;
use toolstream::{Event, Format, Parser};

const USAGE: &str = r#"{"promptTokenCount": 135,"candidatesTokenCount": 39,"totalTokenCount": 400,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 135}],"thoughtsTokenCount": 226,"serviceTier": "standard"}"#;

fn gemini_chunk(parts: Value, finish: Option<&str>) -> Value {
    let mut cand = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if let Some(f) = finish {
        cand["finishReason"] = json!(f);
    }
    json!({"candidates": [cand], "usageMetadata": serde_json::from_str::<Value>(USAGE).unwrap(),
           "modelVersion": "gemini-3.1-pro-preview", "responseId": "VYEPauj2Noe3jMcP_dvjoQg"})
}

/// (body, payloads) of a Google AI SSE stream.
fn gemini_sse() -> (Vec<u8>, Vec<Vec<u8>>) {
    let words = [
        "To determine",
        " which of these",
        " three cities is in Africa,",
        " let's look at each one:\n\n1. **Berlin**",
        " is the capital of Germany.",
    ];
    let mut payloads = vec![gemini_chunk(
        json!([{"text": "**Defining the Problem**\n\nI'm currently focused on defining the core problem.\n\n\n", "thought": true}]),
        None,
    )];
    for i in 0..40 {
        payloads.push(gemini_chunk(
            json!([{"text": words[i % words.len()]}]),
            None,
        ));
    }
    let sig = "EoQDCoEDARFNMg/tvHidTxhVZmaXxlmQevhSoqMMhovELrpSSFN121nvjNF+d8riVARQ9JgRI78+1hgDZi9f2oDbJPii".repeat(8);
    payloads.push(gemini_chunk(
        json!([{"functionCall": {"name": "get_weather", "args": {"country": "Egypt", "unit": "C", "city": "Cairo"}, "id": "u959pftr"}, "thoughtSignature": sig},
               {"functionCall": {"name": "get_time", "args": {"tz": "Africa/Cairo"}, "id": "u959pfts"}}]),
        None,
    ));
    payloads.push(gemini_chunk(json!([{"text": ""}]), Some("STOP")));
    let payloads: Vec<Vec<u8>> = payloads
        .iter()
        .map(|p| p.to_string().into_bytes())
        .collect();
    let mut body = Vec::new();
    for p in &payloads {
        body.extend_from_slice(b"data: ");
        body.extend_from_slice(p);
        body.extend_from_slice(b"\r\n\r\n");
    }
    (body, payloads)
}

/// (body, payloads) of a Vertex streamed-arguments call, NDJSON.
fn gemini_vertex() -> (Vec<u8>, Vec<Vec<u8>>) {
    let meta = json!({"usageMetadata": {"trafficType": "ON_DEMAND"}, "modelVersion": "gemini-3.1-pro-preview", "createTime": "2026-05-19T14:59:42.780296Z", "responseId": "3noMaojQL_2s6tkPiO26qQ4"});
    let chunk = |fc: Value| {
        let mut v = json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": fc}]}}]});
        for (k, x) in meta.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    let mut payloads = vec![chunk(json!({"name": "cookRecipe", "willContinue": true}))];
    let entry = |path: String, s: &str, more: bool| {
        let mut e = json!({"jsonPath": path, "stringValue": s});
        if more {
            e["willContinue"] = json!(true);
        }
        chunk(json!({"partialArgs": [e], "willContinue": true}))
    };
    for i in 0..10 {
        for field in ["amount", "name"] {
            payloads.push(entry(
                format!("$.recipe.ingredients[{i}].{field}"),
                "16 oz of something",
                true,
            ));
            payloads.push(entry(
                format!("$.recipe.ingredients[{i}].{field}"),
                "",
                false,
            ));
        }
        payloads.push(chunk(json!({"willContinue": true})));
    }
    for i in 0..12 {
        payloads.push(entry(
            format!("$.recipe.steps[{i}]"),
            "Brown ground beef with minced garlic in a skillet. Drain fat.",
            true,
        ));
        payloads.push(entry(format!("$.recipe.steps[{i}]"), "", false));
    }
    payloads.push(chunk(json!({})));
    let mut fin = chunk(json!({}));
    fin["candidates"][0]["finishReason"] = json!("STOP");
    fin["candidates"][0]["content"]["parts"] = json!([{"text": ""}]);
    payloads.push(fin);
    let payloads: Vec<Vec<u8>> = payloads
        .iter()
        .map(|p| p.to_string().into_bytes())
        .collect();
    let mut body = Vec::new();
    for p in &payloads {
        body.extend_from_slice(p);
        body.push(b'\n');
    }
    (body, payloads)
}

fn frame(event_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (k, v) in [
        (":event-type", event_type),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ] {
        h.push(k.len() as u8);
        h.extend_from_slice(k.as_bytes());
        h.push(7);
        h.extend_from_slice(&(v.len() as u16).to_be_bytes());
        h.extend_from_slice(v.as_bytes());
    }
    let total = 12 + h.len() + payload.len() + 4;
    let mut m = Vec::with_capacity(total);
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

/// Binary frames (one per event) and their payloads.
fn bedrock_body(events: &[(&str, Value)]) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let pad = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut frames = Vec::new();
    let mut payloads = Vec::new();
    for (i, (k, p)) in events.iter().enumerate() {
        let mut p = p.clone();
        p["p"] = json!(&pad[..(i * 7) % pad.len()]);
        let bytes = p.to_string().into_bytes();
        frames.push(frame(k, &bytes));
        payloads.push(bytes);
    }
    (frames, payloads)
}

fn bedrock_stream() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let words = [
        " To",
        " find",
        " the temperature",
        " of the capital of France,",
        " I need to",
    ];
    let mut ev: Vec<(&str, Value)> = vec![("messageStart", json!({"role": "assistant"}))];
    for i in 0..60 {
        ev.push((
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"text": words[i % words.len()]}}),
        ));
    }
    ev.push(("contentBlockStop", json!({"contentBlockIndex": 0})));
    ev.push(("contentBlockStart", json!({"contentBlockIndex": 1, "start": {"toolUse": {"name": "propose", "toolUseId": "call_75be1097e9375c5aaa95a748e208be0e"}}})));
    let pieces = [
        "{\"", "groups", "\":[", "{\"", "name", "\":\"", "Sales", "\",\"", "parent", "Group",
        "Name", "\":", "\"\"", "},{\"", "name", "\":\"", "Team", "1", "\",\"", "parent", "Group",
        "Name", "\":\"", "Sales", "\"}", "]}",
    ];
    for p in pieces {
        ev.push((
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": p}}}),
        ));
    }
    ev.push(("contentBlockStop", json!({"contentBlockIndex": 1})));
    ev.push(("messageStop", json!({"stopReason": "tool_use"})));
    ev.push(("metadata", json!({"metrics": {"latencyMs": 4485}, "usage": {"inputTokens": 67, "outputTokens": 78, "serverToolUsage": {}, "totalTokens": 145}})));
    bedrock_body(&ev)
}

fn bedrock_64k(delta: usize) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let body: String = "lorem ipsum dolor sit amet, \\\"quoted\\\" \\n ".repeat(1600);
    let body = &body[..65_536 - 16];
    let args = format!("{{\"content\": \"{body}\"}}");
    let mut ev: Vec<(&str, Value)> = vec![
        ("messageStart", json!({"role": "assistant"})),
        (
            "contentBlockStart",
            json!({"contentBlockIndex": 0, "start": {"toolUse": {"name": "write_file", "toolUseId": "tooluse_roHJ1p6nRuyemwcpS0cqgw"}}}),
        ),
    ];
    for piece in args.as_bytes().chunks(delta) {
        ev.push(("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"toolUse": {"input": std::str::from_utf8(piece).unwrap()}}})));
    }
    ev.push(("contentBlockStop", json!({"contentBlockIndex": 0})));
    ev.push(("messageStop", json!({"stopReason": "tool_use"})));
    ev.push((
        "metadata",
        json!({"usage": {"inputTokens": 67, "outputTokens": 16000, "totalTokens": 16067}}),
    ));
    bedrock_body(&ev)
}

fn run(make: &dyn Fn() -> Parser, chunks: &[&[u8]]) -> usize {
    let mut p = make();
    let mut out: Vec<Event> = Vec::with_capacity(256);
    let mut n = 0;
    for c in chunks {
        p.feed(c, &mut out).unwrap();
        n += out.len();
        out.clear();
    }
    p.finish(&mut out).unwrap();
    n + out.len()
}

fn baseline(payloads: &[Vec<u8>]) -> usize {
    payloads
        .iter()
        .map(|p| {
            serde_json::from_slice::<Value>(p)
                .unwrap()
                .as_object()
                .map_or(0, |o| o.len())
        })
        .sum()
}

/// Splits a body into one piece per payload (by payload lengths + a fixed separator).
fn per_event<'a>(
    body: &'a [u8],
    payloads: &[Vec<u8>],
    prefix: usize,
    suffix: usize,
) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    for p in payloads {
        let n = prefix + p.len() + suffix;
        out.push(&body[at..at + n]);
        at += n;
    }
    assert_eq!(at, body.len());
    out
}

fn benches(c: &mut Criterion) {
    let gemini = || Parser::new(Format::Gemini);
    let (g_body, g_payloads) = gemini_sse();
    let (v_body, v_payloads) = gemini_vertex();
    let (b_frames, b_payloads) = bedrock_stream();
    let (k_frames, k_payloads) = bedrock_64k(8);
    let (l_frames, l_payloads) = bedrock_64k(256);
    let b_body = b_frames.concat();
    let k_body = k_frames.concat();
    eprintln!(
        "events: gemini_sse_stream {} ({} B), gemini_vertex_partial_args {} ({} B), bedrock_stream {} ({} B), bedrock_64k_args {} ({} B)",
        g_payloads.len(),
        g_body.len(),
        v_payloads.len(),
        v_body.len(),
        b_payloads.len(),
        b_body.len(),
        k_payloads.len(),
        k_body.len()
    );
    // Sanity: the streams decode to their calls.
    assert!(run(&gemini, &[&g_body]) > 0);

    let mut g = c.benchmark_group("gemini_sse_stream");
    g.throughput(Throughput::Bytes(g_body.len() as u64));
    let events = per_event(&g_body, &g_payloads, 6, 4);
    g.bench_function("per_event", |b| b.iter(|| run(&gemini, black_box(&events))));
    let segs: Vec<&[u8]> = g_body.chunks(1024).collect();
    g.bench_function("1KiB_segments", |b| {
        b.iter(|| run(&gemini, black_box(&segs)))
    });
    g.bench_function("baseline_serde_value", |b| {
        b.iter(|| baseline(black_box(&g_payloads)))
    });
    g.finish();

    let mut g = c.benchmark_group("gemini_vertex_partial_args");
    g.throughput(Throughput::Bytes(v_body.len() as u64));
    let events = per_event(&v_body, &v_payloads, 0, 1);
    g.bench_function("per_event", |b| b.iter(|| run(&gemini, black_box(&events))));
    g.bench_function("baseline_serde_value", |b| {
        b.iter(|| baseline(black_box(&v_payloads)))
    });
    g.finish();

    let bedrock = || Parser::new(Format::Bedrock);
    let mut g = c.benchmark_group("bedrock_stream");
    g.throughput(Throughput::Bytes(b_body.len() as u64));
    let frames: Vec<&[u8]> = b_frames.iter().map(Vec::as_slice).collect();
    g.bench_function("per_event", |b| {
        b.iter(|| run(&bedrock, black_box(&frames)))
    });
    let segs: Vec<&[u8]> = b_body.chunks(1024).collect();
    g.bench_function("1KiB_segments", |b| {
        b.iter(|| run(&bedrock, black_box(&segs)))
    });
    g.bench_function("baseline_serde_value", |b| {
        b.iter(|| baseline(black_box(&b_payloads)))
    });
    g.finish();

    let mut g = c.benchmark_group("bedrock_64k_args");
    g.throughput(Throughput::Bytes(65_536));
    let frames: Vec<&[u8]> = k_frames.iter().map(Vec::as_slice).collect();
    g.bench_function("8B_deltas", |b| {
        b.iter(|| run(&bedrock, black_box(&frames)))
    });
    g.bench_function("8B_deltas_baseline_serde_value", |b| {
        b.iter(|| baseline(black_box(&k_payloads)))
    });
    let frames: Vec<&[u8]> = l_frames.iter().map(Vec::as_slice).collect();
    g.bench_function("256B_deltas", |b| {
        b.iter(|| run(&bedrock, black_box(&frames)))
    });
    g.bench_function("256B_deltas_baseline_serde_value", |b| {
        b.iter(|| baseline(black_box(&l_payloads)))
    });
    g.finish();
}

criterion_group! {
    name = group;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(group);
