//! Real clients nobody here wrote, reading our re-emitted streams of every recorded capture.
//!
//! For each capture (`../shared/captures`, FORMATS.json gives its format and framing; the
//! raw-text captures included) and each of our fixtures, the test runs `toolstream parse
//! --emit openai-chat` and `--emit ag-ui` (with `--thread-id` / `--run-id` set to the ids
//! the AG-UI client sends), serves both from a small HTTP server of its own on 127.0.0.1,
//! and runs each client once over all streams (one process per client, not per stream):
//!
//! - the OpenAI Python SDK (tests/clients/openai_sdk.py): `chat.completions.create(stream=True)`
//!   accumulated by `ChatCompletionStreamState`, the `chat.completions.stream()` helper, and
//!   the function-calling guide's hand loop (`chunk.choices[0].delta`);
//! - LangChain (tests/clients/langchain_client.py): `ChatOpenAI.stream`, chunks summed;
//! - LiteLLM (tests/clients/litellm_client.py): `completion(stream=True)` rebuilt by
//!   `stream_chunk_builder`;
//! - Pydantic AI (tests/clients/pydantic_ai_client.py): `OpenAIChatModel.request_stream`;
//! - the OpenAI Node SDK (tests/clients/openai_node.mjs): async iteration, the `.stream()`
//!   helper's events, `finalChatCompletion`, `toReadableStream` / `fromReadableStream`, and
//!   the guide's hand loop;
//! - the Vercel AI SDK (tests/clients/vercel_ai.mjs): `streamText` over
//!   `@ai-sdk/openai-compatible` with the called tools declared;
//! - AG-UI (tests/clients/ag_ui.mjs): every event validated with `@ag-ui/core`'s schemas,
//!   and `@ag-ui/client`'s `HttpAgent` running against the stream.
//!
//! Fixtures of our own join the captures for what no capture shows: recoverable errors (a
//! payload the parser skips, one of two called tools declared, every called tool
//! undeclared, a malformed text call beside valid ones), streams cut off (mid-arguments,
//! an Anthropic stream after its first call, an OpenAI stream before its finish chunk),
//! an empty response.
//!
//! A complete stream (no error that [ends it](toolstream::emit::ends_the_stream)) must be
//! read to its end by every OpenAI client with every call that went out (a failed call
//! with its forwarded argument text, unparsed) and our text, reasoning where the view
//! reads it, and the completion's id, model and `created` the provider's where it sent
//! them ([`toolstream::Parser::response_meta`]). A stream that ends in an error must be
//! seen as failed: the client reports it (its message contains ours), and what it collected
//! before is a prefix of ours. AG-UI ends the run at a call's error too (`RUN_ERROR`: a
//! failed call must not look complete to an agent). Per view the test prints complete
//! streams read to the end, streams ending in an error seen as failed, and complete streams
//! with a recoverable error whose `toolstream_error` field the view showed; everything each
//! client said is in `target/clients/report.json`. `TOOLSTREAM_CLIENTS=a,b` runs only those
//! clients; `TOOLSTREAM_CLIENTS_EXE` gives the streams of another `toolstream` binary (to
//! measure a previous build).
//!
//! The clients are installed by `.ci/clients-setup` into `target/clients/` (pinned in
//! tests/clients/requirements.txt and package-lock.json); this test runs that script when
//! the installs are missing, and prints a visible SKIPPED line for a client only when its
//! registry could not be reached.

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
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use toolstream::emit::ends_the_stream;
use toolstream::{Event, Format, Framing, Parser, ParserConfig, merge_deltas};

/// Says something cargo's output capture does not swallow.
fn visible(msg: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn clients_dir() -> PathBuf {
    crate_dir().join("target/clients")
}

/// `.ci/clients-setup`'s status lines: client → `ok` / `unreachable` / `failed ...`.
fn status() -> BTreeMap<String, String> {
    std::fs::read_to_string(clients_dir().join("status"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// The clients' status, running the setup script when an install is missing (unless the
/// setup found a registry unreachable in the last 10 minutes: CI runs it just before).
fn installs() -> BTreeMap<String, String> {
    let present = clients_dir().join("venv/bin/python").exists()
        && clients_dir().join("node/node_modules").is_dir();
    let st = status();
    let recent = std::fs::metadata(clients_dir().join("status"))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age.as_secs() < 600);
    let unreachable_now = recent && st.values().any(|v| v == "unreachable");
    if (!present || st.values().any(|v| v != "ok")) && !unreachable_now {
        visible("clients: installs missing or incomplete; running .ci/clients-setup");
        let ok = Command::new("bash")
            .arg(crate_dir().join(".ci/clients-setup"))
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, ".ci/clients-setup did not run");
    }
    status()
}
/// What our own events say about a capture.
#[derive(Debug, Clone)]
struct Ours {
    /// The calls that completed (AG-UI's view, and the prefix of a failed stream).
    calls: Vec<(String, Value)>,
    /// Every call the OpenAI output carries, in order, as an OpenAI client ends with it:
    /// a completed call's arguments (a value that is not an object inside `{"input": ..}`),
    /// a failed call's argument text as forwarded (JSON-parsed, `{"unparsed": text}` when
    /// it does not parse).
    outgoing: Vec<(String, Value)>,
    text: String,
    reasoning: String,
    /// The first error that ends the stream ([`toolstream::emit::ends_the_stream`]): the
    /// OpenAI clients must report it.
    fatal: Option<String>,
    /// The first error that ends an AG-UI run (a call's, or one that ends the stream).
    run_error: Option<String>,
    /// A recoverable error was written (the `toolstream_error` extension field).
    recoverable: bool,
}

fn ours(events: &[Event]) -> Ours {
    let ends = |e: &Event| matches!(e, Event::Error { kind, .. } if ends_the_stream(*kind));
    let message = |e: &Event| match e {
        Event::Error { message, .. } => message.clone(),
        _ => unreachable!(),
    };
    let mut outgoing = Vec::new();
    for e in events {
        let Event::ToolCallStart { index, name, .. } = e else {
            continue;
        };
        let end = events.iter().find_map(|e| match e {
            Event::ToolCallEnd {
                index: i,
                arguments,
                ..
            } if i == index => Some(if arguments.is_object() {
                arguments.clone()
            } else {
                json!({ "input": arguments })
            }),
            _ => None,
        });
        let failed = events.iter().find_map(|e| match e {
            Event::Error {
                index: Some(i),
                raw,
                ..
            } if i == index => {
                let sent: String = events
                    .iter()
                    .filter_map(|e| match e {
                        Event::ToolCallArgs { index, delta } if index == i => Some(delta.as_str()),
                        _ => None,
                    })
                    .collect();
                let forwarded = if raw.starts_with(sent.as_str()) {
                    raw.clone()
                } else {
                    sent
                };
                Some(
                    serde_json::from_str(&forwarded)
                        .unwrap_or_else(|_| json!({ "unparsed": forwarded })),
                )
            }
            _ => None,
        });
        if let Some(args) = end.or(failed) {
            outgoing.push((name.clone(), args));
        }
    }
    Ours {
        calls: calls(events)
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect(),
        outgoing,
        text: text(events),
        reasoning: reasoning(events),
        fatal: events.iter().find(|e| ends(e)).map(message),
        run_error: events
            .iter()
            .find(|e| ends(e) || matches!(e, Event::Error { index: Some(_), .. }))
            .map(message),
        recoverable: events
            .iter()
            .any(|e| matches!(e, Event::Error { .. }) && !ends(e)),
    }
}

struct Case {
    name: String,
    /// The provider's response id, model and time, as our parser read them.
    meta: toolstream::ResponseMeta,
    openai: Vec<u8>,
    agui: Vec<u8>,
    thread_id: String,
    run_id: String,
    ours: Ours,
}

/// `toolstream parse` of `input` with `args`.
fn cli(exe: &str, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "toolstream {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// One input run through `toolstream parse` both ways (with the request's `tools`, a
/// JSON `tools` array, when given), and our own events for it.
fn case(exe: &str, i: usize, input: &Input) -> Case {
    let framing_name = input.framing.to_string();
    let mut base = vec!["parse", "-f", input.format, "--framing", &framing_name];
    let tools_path = clients_dir().join(format!("run/tools-{i}.json"));
    let tools_arg = tools_path.to_string_lossy().into_owned();
    if let Some(tools) = input.tools {
        std::fs::create_dir_all(tools_path.parent().unwrap()).unwrap();
        std::fs::write(&tools_path, tools).unwrap();
        base.extend(["--tools", &tools_arg]);
    }
    let (thread_id, run_id) = (format!("thread-{i}"), format!("run-{i}"));
    let openai = cli(
        exe,
        &[&base[..], &["--emit", "openai-chat"]].concat(),
        &input.bytes,
    );
    let ids = ["--thread-id", &thread_id, "--run-id", &run_id];
    let agui = cli(
        exe,
        &[&base[..], &["--emit", "ag-ui"], &ids].concat(),
        &input.bytes,
    );
    let mut config = ParserConfig::new().framing(input.framing);
    if let Some(tools) = input.tools {
        config = config.tools(toolstream::Tools::from_json(tools).unwrap());
    }
    let format: Format = input.format.parse().unwrap();
    let mut parser = Parser::with_config(format, config);
    let mut events = Vec::new();
    parser.feed(&input.bytes, &mut events).unwrap();
    parser.finish(&mut events).unwrap();
    merge_deltas(&mut events);
    Case {
        name: input.name.clone(),
        meta: parser.response_meta().clone(),
        openai,
        agui,
        thread_id,
        run_id,
        ours: ours(&events),
    }
}

/// One stream given to the clients.
struct Input {
    name: String,
    format: &'static str,
    framing: Framing,
    bytes: Vec<u8>,
    /// The request's tools (`--tools`), a JSON `tools` array.
    tools: Option<&'static str>,
}

/// Our own small inputs for what no capture shows: recoverable errors (a payload the
/// parser skips, a call to an undeclared tool, a malformed text call beside a valid one),
/// streams cut off (mid-arguments, between events), an empty response.
fn fixtures() -> Vec<Input> {
    let chunk = |delta: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-fx", "created": 1_700_000_000, "model": "fx", "choices": [{"index": 0, "delta": delta}]})
        )
    };
    let call = |i: u32, id: &str, name: &str, args: &str| {
        chunk(
            json!({"tool_calls": [{"index": i, "id": id, "function": {"name": name, "arguments": args}}]}),
        )
    };
    let finish = |reason: &str| {
        format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-fx", "created": 1_700_000_000, "model": "fx", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}], "usage": {"prompt_tokens": 9, "completion_tokens": 5, "total_tokens": 14}})
        )
    };
    let anthropic_two_calls_cut = concat!(
        "event: message_start\n",
        r#"data: {"type":"message_start","message":{"id":"msg_fx","model":"claude-fx","usage":{"input_tokens":5}}}"#,
        "\n\n",
        "event: content_block_start\n",
        r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}"#,
        "\n\n",
        "event: content_block_delta\n",
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}"#,
        "\n\n",
        "event: content_block_stop\n",
        r#"data: {"type":"content_block_stop","index":0}"#,
        "\n\n",
    );
    let input = |name: &str, format, framing, body: String, tools| Input {
        name: format!("fixture: {name}"),
        format,
        framing,
        bytes: body.into_bytes(),
        tools,
    };
    vec![
        input(
            "a junk line between two calls",
            "openai-chat",
            Framing::Sse,
            format!(
                "{}data: {{not json\n\n{}{}data: [DONE]\n\n",
                call(0, "a", "f", "{\"x\":1}"),
                call(1, "b", "g", "{}"),
                finish("tool_calls")
            ),
            None,
        ),
        input(
            "one of two called tools declared",
            "openai-chat",
            Framing::Sse,
            format!(
                "{}{}{}{}data: [DONE]\n\n",
                chunk(json!({"content": "Two calls."})),
                call(0, "a", "f", "{\"x\":1}"),
                call(1, "b", "g", "{\"y\":2}"),
                finish("tool_calls")
            ),
            Some(r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]"#),
        ),
        input(
            "every called tool undeclared",
            "openai-chat",
            Framing::Sse,
            format!(
                "{}{}{}data: [DONE]\n\n",
                chunk(json!({"content": "Calling."})),
                call(0, "b", "g", "{\"y\":2}"),
                finish("tool_calls")
            ),
            Some(r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]"#),
        ),
        input(
            "a malformed text call beside a valid one",
            "hermes",
            Framing::Text,
            concat!(
                "Checking.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\n",
                "<tool_call>\n{\"name\": \"g\", \"arguments\": {\"b\": tru}}\n</tool_call>\n",
                "<tool_call>\n{\"name\": \"h\", \"arguments\": {}}\n</tool_call>"
            )
            .to_owned(),
            None,
        ),
        input(
            "cut off mid-arguments",
            "openai-chat",
            Framing::Sse,
            format!(
                "{}{}",
                chunk(json!({"content": "Let me look."})),
                call(0, "a", "f", "{\"x\": [1, ")
            ),
            None,
        ),
        input(
            "anthropic cut after its first call",
            "anthropic",
            Framing::Sse,
            anthropic_two_calls_cut.to_owned(),
            None,
        ),
        input(
            "openai cut before its finish chunk",
            "openai-chat",
            Framing::Sse,
            format!("{}{}", chunk(json!({"content": "Hi"})), call(0, "a", "f", "{}")),
            None,
        ),
        input("empty response", "hermes", Framing::Text, String::new(), None),
    ]
}

fn cases(exe: &str) -> Vec<Case> {
    let Some(dir) = captures_dir() else {
        return Vec::new();
    };
    let table: BTreeMap<String, Value> =
        serde_json::from_slice(&std::fs::read(dir.join("FORMATS.json")).unwrap()).unwrap();
    let formats: BTreeSet<&str> = table
        .values()
        .filter_map(|v| v["format"].as_str())
        .collect();
    let mut inputs = Vec::new();
    for format in formats {
        let Some(format) = Format::all().find(|f| f.name() == format) else {
            visible(&format!(
                "SKIPPED: format {format} not in this build; its captures not given to the clients (FORMATS.json names a format this build does not know: update toolstream to the captures' version)"
            ));
            continue;
        };
        for cap in captures(format.name()) {
            inputs.push(Input {
                name: cap.path,
                format: format.name(),
                framing: cap.framing,
                bytes: cap.bytes,
                tools: None,
            });
        }
    }
    inputs.extend(fixtures());
    inputs
        .iter()
        .enumerate()
        .map(|(i, input)| case(exe, i, input))
        .collect()
}

// ---------------------------------------------------------------------------------------
// A small HTTP server on 127.0.0.1: `/c/<i>/openai/chat/completions` and `/c/<i>/agui`
// answer (any method) with case i's stream as `text/event-stream`.

fn serve(bodies: Arc<Vec<(Vec<u8>, Vec<u8>)>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let bodies = Arc::clone(&bodies);
            std::thread::spawn(move || answer(stream, &bodies));
        }
    });
    format!("http://{addr}")
}

fn answer(stream: TcpStream, bodies: &[(Vec<u8>, Vec<u8>)]) {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let path = request_line.split(' ').nth(1).unwrap_or("");
    let found = path
        .strip_prefix("/c/")
        .and_then(|rest| rest.split_once('/'))
        .and_then(|(i, what)| {
            let (openai, agui) = bodies.get(i.parse::<usize>().ok()?)?;
            match what {
                "openai/chat/completions" => Some(openai),
                "agui" => Some(agui),
                _ => None,
            }
        });
    let mut stream = reader.into_inner();
    let _ = match found {
        Some(b) => stream
            .write_all(
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    b.len()
                )
                .as_bytes(),
            )
            .and_then(|()| stream.write_all(b)),
        None => stream.write_all(
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        ),
    };
    let _ = stream.flush();
}

// ---------------------------------------------------------------------------------------
// Running the clients and comparing.

/// Runs one client script over every case; its results by case name.
fn run_client(
    program: &Path,
    script: &Path,
    cwd: &Path,
    base: &str,
    manifest: &Path,
) -> Result<Value, String> {
    let out_path = manifest.with_file_name(format!(
        "{}.out.json",
        script.file_stem().unwrap().to_string_lossy()
    ));
    let _ = std::fs::remove_file(&out_path);
    let out = Command::new(program)
        .arg(script)
        .arg(base)
        .arg(manifest)
        .arg(&out_path)
        .current_dir(cwd)
        .env("SUPPRESS_TRANSFORMATION_WARNINGS", "true")
        .output()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} {} failed: {}\n{}",
            program.display(),
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = std::fs::read_to_string(&out_path).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}

/// JSON values equal as JSON: numbers by value (`7006652.0` is `7006652`: RFC 8259 numbers
/// have no integer/float distinction, and JavaScript cannot keep one), the rest exactly.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

fn same_calls(a: &[(String, Value)], b: &[(String, Value)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((n, x), (m, y))| n == m && same_json(x, y))
}

/// A client's view of one case against ours: the differences, empty when it agrees.
///
/// A complete stream (no error that ends it, `expected_error` `None`): no error, every
/// call `want_calls` names with the same arguments, the same text, and the same reasoning
/// where the view reads it (`reasoning` not `null`). A stream that ended in an error: the
/// client reports it (its message contains ours, or `or_view_error`: the error a view
/// reports by itself when our error event cannot reach it), and what it collected before
/// is a prefix of ours (the last call possibly cut, so only its name compared).
fn compare(
    ours: &Ours,
    want_calls: &[(String, Value)],
    got: &Value,
    expected_error: Option<&str>,
    or_view_error: Option<&str>,
) -> Vec<String> {
    let mut diffs = Vec::new();
    let got_calls: Vec<(String, Value)> = got["calls"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| {
                    (
                        c["name"].as_str().unwrap_or("").to_owned(),
                        c["arguments"].clone(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let got_text = got["text"].as_str().unwrap_or("");
    let got_error = got["error"].as_str();
    match expected_error {
        None => {
            if let Some(e) = got_error {
                diffs.push(format!("client error: {e}"));
            }
            if !same_calls(&got_calls, want_calls) {
                diffs.push(format!("calls {got_calls:?} != ours {want_calls:?}"));
            }
            if got_text != ours.text {
                diffs.push(format!("text {got_text:?} != ours {:?}", ours.text));
            }
            if let Some(r) = got["reasoning"].as_str()
                && r != ours.reasoning
            {
                diffs.push(format!("reasoning {r:?} != ours {:?}", ours.reasoning));
            }
        }
        Some(want) => {
            match got_error {
                Some(e) if e.contains(want) || or_view_error.is_some_and(|o| e.contains(o)) => {}
                other => diffs.push(format!("error {other:?}, expected one saying {want:?}")),
            }
            let whole = got_calls.len().saturating_sub(1);
            let prefix_ok = got_calls.len() <= want_calls.len()
                && same_calls(&got_calls[..whole], &want_calls[..whole])
                && got_calls
                    .last()
                    .is_none_or(|(n, _)| *n == want_calls[whole].0);
            if !prefix_ok {
                diffs.push(format!(
                    "calls {got_calls:?} not a prefix of ours {want_calls:?}"
                ));
            }
            if !ours.text.starts_with(got_text) {
                diffs.push(format!("text {got_text:?} not a prefix of ours"));
            }
        }
    }
    diffs
}

/// The completion's id, model and time are the provider's where it sent them, else made
/// up: a `chatcmpl-` id and a real time.
fn meta_differences(meta: &toolstream::ResponseMeta, got: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    let id = got["id"].as_str().unwrap_or("");
    match &meta.id {
        Some(want) if id != want => diffs.push(format!("id {id:?} != provider's {want:?}")),
        None if !id.starts_with("chatcmpl-") => diffs.push(format!("made-up id {id:?}")),
        _ => {}
    }
    let model = got["model"].as_str().unwrap_or("");
    let want_model = meta.model.as_deref().unwrap_or("toolstream");
    if model != want_model {
        diffs.push(format!("model {model:?} != {want_model:?}"));
    }
    let created = got["created"].as_u64().unwrap_or(0);
    match meta.created {
        Some(want) if created != want => {
            diffs.push(format!("created {created} != provider's {want}"));
        }
        None if created < 1_750_000_000 => diffs.push(format!("made-up created {created}")),
        _ => {}
    }
    diffs
}

/// A client: its program, its script in tests/clients, the install it needs (`python` /
/// `node` of `.ci/clients-setup`'s status) and the views it gives of each case (`None`:
/// the result is the view).
struct Client {
    name: &'static str,
    script: &'static str,
    install: &'static str,
    views: &'static [&'static str],
}

const CLIENTS: &[Client] = &[
    Client {
        name: "openai-python",
        script: "openai_sdk.py",
        install: "python",
        views: &["create", "stream", "hand"],
    },
    Client {
        name: "langchain",
        script: "langchain_client.py",
        install: "python",
        views: &[],
    },
    Client {
        name: "litellm",
        script: "litellm_client.py",
        install: "python",
        views: &[],
    },
    Client {
        name: "pydantic-ai",
        script: "pydantic_ai_client.py",
        install: "python",
        views: &[],
    },
    Client {
        name: "openai-node",
        script: "openai_node.mjs",
        install: "node",
        views: &["iterate", "events", "final", "readable", "hand"],
    },
    Client {
        name: "vercel-ai",
        script: "vercel_ai.mjs",
        install: "node",
        views: &[],
    },
    Client {
        name: "ag-ui",
        script: "ag_ui.mjs",
        install: "node",
        views: &[],
    },
];

/// Per view: complete streams read to the end with our calls and text, of how many;
/// streams that ended in an error seen as failed, of how many; complete streams with a
/// recoverable error where the view showed the `toolstream_error` field, of how many.
#[derive(Default)]
struct Tally {
    complete: (usize, usize),
    failed: (usize, usize),
    extension: (usize, usize),
}

#[test]
fn real_clients_read_every_capture_like_we_do() {
    // TOOLSTREAM_CLIENTS_EXE: another build's binary (to measure it); ours by default.
    let exe = std::env::var("TOOLSTREAM_CLIENTS_EXE")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_toolstream").to_owned());
    let started = std::time::Instant::now();
    let cases = cases(&exe);
    if cases.is_empty() {
        visible(
            "SKIPPED: no captures; real clients not run (put the captures at ../shared/captures or set TOOLSTREAM_CAPTURES)",
        );
        return;
    }
    let st = installs();
    let dir = clients_dir().join("run");
    std::fs::create_dir_all(&dir).unwrap();
    let bodies: Vec<(Vec<u8>, Vec<u8>)> = cases
        .iter()
        .map(|c| (c.openai.clone(), c.agui.clone()))
        .collect();
    let base = serve(Arc::new(bodies));
    let manifest: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let tools: BTreeSet<&str> = c.ours.outgoing.iter().map(|(n, _)| n.as_str()).collect();
            json!({
                "name": c.name,
                "openai": format!("/c/{i}/openai"),
                "agui": format!("/c/{i}/agui"),
                "tools": tools,
                "thread_id": c.thread_id,
                "run_id": c.run_id,
            })
        })
        .collect();
    let manifest_path = dir.join("manifest.json");
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    let prepared = started.elapsed();

    // The Node scripts must sit beside node_modules to resolve their imports.
    let node_dir = clients_dir().join("node");
    let scripts = crate_dir().join("tests/clients");
    let mut failures: Vec<String> = Vec::new();
    let mut report = serde_json::Map::new();
    let mut tallies: Vec<(String, Tally)> = Vec::new();
    let mut checked = 0;
    let mut timings = Vec::new();
    // TOOLSTREAM_CLIENTS: a comma-separated subset of the clients' names (all by default).
    let only = std::env::var("TOOLSTREAM_CLIENTS").ok();
    for client in CLIENTS {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|n| n == client.name))
        {
            visible(&format!(
                "clients: {} not run (TOOLSTREAM_CLIENTS)",
                client.name
            ));
            continue;
        }
        match st.get(client.install).map(String::as_str) {
            Some("ok") => {}
            Some("unreachable") => {
                visible(&format!(
                    "SKIPPED: {} client test: registry unreachable ({}); run .ci/clients-setup where it can be reached (see target/clients/*.log)",
                    client.name,
                    if client.install == "python" {
                        "PyPI"
                    } else {
                        "npm"
                    }
                ));
                continue;
            }
            other => {
                failures.push(format!("{} client install: {other:?}", client.install));
                continue;
            }
        }
        let t = std::time::Instant::now();
        let result = if client.install == "python" {
            run_client(
                &clients_dir().join("venv/bin/python"),
                &scripts.join(client.script),
                &dir,
                &base,
                &manifest_path,
            )
        } else {
            std::fs::copy(scripts.join(client.script), node_dir.join(client.script)).unwrap();
            run_client(
                Path::new("node"),
                &node_dir.join(client.script),
                &node_dir,
                &base,
                &manifest_path,
            )
        };
        timings.push(format!("{} {:.1}s", client.name, t.elapsed().as_secs_f64()));
        let out = match result {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{}: {e}", client.name));
                continue;
            }
        };
        report.insert(client.name.to_owned(), out.clone());
        let views: Vec<(String, Option<&str>)> = if client.views.is_empty() {
            vec![(client.name.to_owned(), None)]
        } else {
            client
                .views
                .iter()
                .map(|v| (format!("{} {v}", client.name), Some(*v)))
                .collect()
        };
        for (view, key) in views {
            let mut tally = Tally::default();
            for c in &cases {
                let r = &out["results"][&c.name];
                let got = key.map_or(r, |k| &r[k]);
                checked += 1;
                let agui = client.name == "ag-ui";
                // AG-UI ends the run at a call's error: its complete calls are those that
                // ended; a failed stream is compared with every call that started.
                let (expected_error, want_calls) = match (agui, &c.ours.run_error) {
                    (true, None) => (None, &c.ours.calls),
                    (true, Some(e)) => (Some(e.as_str()), &c.ours.outgoing),
                    (false, _) => (c.ours.fatal.as_deref(), &c.ours.outgoing),
                };
                let mut diffs = if got.is_null() {
                    vec!["no result".to_owned()]
                } else {
                    // The Node SDK's `toReadableStream()` carries chunks, not the error
                    // event: its reader then fails on the missing finish_reason, or on our
                    // error when that crossed first (timing). Either way it saw the stream
                    // fail, which is what this view can show.
                    let sdk_own = (view == "openai-node readable")
                        .then_some("missing finish_reason for choice 0");
                    compare(&c.ours, want_calls, got, expected_error, sdk_own)
                };
                if got.get("id").is_some_and(|id| !id.is_null()) && expected_error.is_none() {
                    diffs.extend(meta_differences(&c.meta, got));
                }
                if agui {
                    for p in got["schema"]["problems"].as_array().into_iter().flatten() {
                        diffs.push(format!("schema: {}", p.as_str().unwrap_or("")));
                    }
                    let want = json!({"thread_id": c.thread_id, "run_id": c.run_id});
                    if got["started"] != want {
                        diffs.push(format!("RUN_STARTED ids {} != {want}", got["started"]));
                    }
                }
                let counter = if expected_error.is_none() {
                    &mut tally.complete
                } else {
                    &mut tally.failed
                };
                counter.1 += 1;
                counter.0 += usize::from(diffs.is_empty());
                if expected_error.is_none() && c.ours.recoverable && !agui {
                    tally.extension.1 += 1;
                    tally.extension.0 += usize::from(got["extension"] == Value::Bool(true));
                }
                if !diffs.is_empty() {
                    failures.push(format!("{view}: {}: {}", c.name, diffs.join("; ")));
                }
            }
            tallies.push((view, tally));
        }
    }
    std::fs::write(
        clients_dir().join("report.json"),
        serde_json::to_vec_pretty(&Value::Object(report)).unwrap(),
    )
    .unwrap();
    for (view, t) in &tallies {
        visible(&format!(
            "clients: {view:<26} complete streams read to the end {}/{}, streams ending in an error seen as failed {}/{}, recoverable errors visible {}/{}",
            t.complete.0, t.complete.1, t.failed.0, t.failed.1, t.extension.0, t.extension.1
        ));
    }
    visible(&format!(
        "clients: {} streams, {checked} client views checked, {} differences; {:.1}s preparing, then {} ({:.1}s in all)",
        cases.len(),
        failures.len(),
        prepared.as_secs_f64(),
        timings.join(", "),
        started.elapsed().as_secs_f64()
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
