//! The sample streams in `samples/` (our own, written by hand; `bedrock.eventstream` is
//! made by the encoder below): each decodes, under every chunking, with no error event and
//! at least one tool call, and is recognised by `toolstream::detect`; every format of
//! `Format::all()` has one (`samples/<name>.txt` for a raw-text syntax).
//!
//! `TOOLSTREAM_WRITE_SAMPLES=1 cargo test --test samples` rewrites `bedrock.eventstream`
//! from [`bedrock_messages`].

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::assert_split_invariant;
use std::path::{Path, PathBuf};
use toolstream::detect::detect;
use toolstream::{Event, Format, Framing, Parser};

fn samples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples")
}

/// Every sample file, with the format its name says (`anthropic.sse` → `anthropic`).
fn samples() -> Vec<(PathBuf, Format)> {
    let mut out: Vec<(PathBuf, Format)> = std::fs::read_dir(samples_dir())
        .expect("samples/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x != "md"))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_str().unwrap().to_owned();
            let format = stem
                .parse()
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, format)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// One event-stream message with the headers Bedrock sends (`:event-type`,
/// `:content-type`, `:message-type`), its lengths and both CRCs.
fn event_stream_message(event_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut headers = Vec::new();
    for (name, value) in [
        (":event-type", event_type),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ] {
        headers.push(u8::try_from(name.len()).unwrap());
        headers.extend_from_slice(name.as_bytes());
        headers.push(7); // string
        headers.extend_from_slice(&u16::try_from(value.len()).unwrap().to_be_bytes());
        headers.extend_from_slice(value.as_bytes());
    }
    let total = 12 + headers.len() + payload.len() + 4;
    let mut out = Vec::new();
    out.extend_from_slice(&u32::try_from(total).unwrap().to_be_bytes());
    out.extend_from_slice(&u32::try_from(headers.len()).unwrap().to_be_bytes());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out.extend_from_slice(&headers);
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

/// The Bedrock ConverseStream sample's messages: text, one `get_weather` call whose input
/// arrives in two pieces, the stop reason and usage.
fn bedrock_messages() -> Vec<(&'static str, &'static str)> {
    vec![
        ("messageStart", r#"{"role":"assistant"}"#),
        (
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"text":"Let me check the weather."}}"#,
        ),
        ("contentBlockStop", r#"{"contentBlockIndex":0}"#),
        (
            "contentBlockStart",
            r#"{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tooluse_sample_1","name":"get_weather"}}}"#,
        ),
        (
            "contentBlockDelta",
            r#"{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"city\": \"Pa"}}}"#,
        ),
        (
            "contentBlockDelta",
            r#"{"contentBlockIndex":1,"delta":{"toolUse":{"input":"ris\", \"days\": 3}"}}}"#,
        ),
        ("contentBlockStop", r#"{"contentBlockIndex":1}"#),
        ("messageStop", r#"{"stopReason":"tool_use"}"#),
        (
            "metadata",
            r#"{"usage":{"inputTokens":40,"outputTokens":20,"totalTokens":60},"metrics":{"latencyMs":300}}"#,
        ),
    ]
}

fn bedrock_encoded() -> Vec<u8> {
    bedrock_messages()
        .into_iter()
        .flat_map(|(t, p)| event_stream_message(t, p.as_bytes()))
        .collect()
}

#[test]
fn bedrock_sample_is_our_encoding() {
    let path = samples_dir().join("bedrock.eventstream");
    let want = bedrock_encoded();
    if std::env::var_os("TOOLSTREAM_WRITE_SAMPLES").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read(&path).expect("samples/bedrock.eventstream");
    assert!(
        have == want,
        "samples/bedrock.eventstream is not what bedrock_messages() encodes to; \
         rewrite it with TOOLSTREAM_WRITE_SAMPLES=1 cargo test --test samples"
    );
}

fn check_sample(path: &Path, format: Format) {
    let bytes = std::fs::read(path).unwrap();
    let name = path.display();
    assert!(bytes.len() < 4096, "{name}: samples stay small");
    let make = move || Parser::new(format);
    let events = assert_split_invariant(&make, &bytes, 40);
    let errors: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Error { .. }))
        .collect();
    assert!(errors.is_empty(), "{name}: error events {errors:?}");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::ToolCallEnd { .. })),
        "{name}: no tool call in {events:?}"
    );
    // Detection: provider streams by their format, raw text as `auto` (whose scanner
    // finds the same calls).
    let found = detect(&bytes, true).expect("detect answers at the end");
    if format.default_framing() == Framing::Text {
        assert_eq!(found.format, Some(Format::Auto), "{name}");
        assert_eq!(found.framing, Framing::Text, "{name}");
        let auto = common::run_whole(&|| Parser::new(Format::Auto), &bytes);
        assert_eq!(common::calls(&auto), common::calls(&events), "{name}: auto");
    } else {
        assert_eq!(found.format, Some(format), "{name}");
    }
}

/// The extension a sample of `format` takes: `.txt` for raw text, else its framing's name.
fn sample_extension(format: Format) -> &'static str {
    match format.default_framing() {
        Framing::Text => "txt",
        Framing::Json | Framing::JsonArray => "json",
        other => other.name(),
    }
}

#[test]
fn every_sample_decodes_with_calls_and_no_errors_under_every_chunking() {
    let all = samples();
    let formats: Vec<Format> = all.iter().map(|(_, f)| *f).collect();
    let missing: Vec<String> = Format::all()
        .filter(|f| !formats.contains(f))
        .map(|f| format!("samples/{}.{}", f.name(), sample_extension(f)))
        .collect();
    assert!(
        missing.is_empty(),
        "every format has a sample in samples/ (a short model turn of our own, with at least \
         one tool call); add: {}",
        missing.join(", ")
    );
    for (path, format) in all {
        check_sample(&path, format);
    }
}
