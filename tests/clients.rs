//! Real clients nobody here wrote, reading our re-emitted streams of every recorded capture.
//!
//! For each capture (`../shared/captures`, FORMATS.json gives its format and framing) the
//! test runs `toolstream parse --emit openai-chat` and `--emit ag-ui` (with `--thread-id` /
//! `--run-id` set to the ids the AG-UI client sends), serves both from a small HTTP server
//! of its own on 127.0.0.1, and runs, once each over all captures:
//!
//! - the OpenAI Python SDK (tests/clients/openai_sdk.py): `chat.completions.create(stream=True)`
//!   accumulated by `ChatCompletionStreamState`, and the `chat.completions.stream()` helper;
//! - the Vercel AI SDK (tests/clients/vercel_ai.mjs): `streamText` over
//!   `@ai-sdk/openai-compatible` with the capture's tools declared;
//! - AG-UI (tests/clients/ag_ui.mjs): every event validated with `@ag-ui/core`'s schemas,
//!   and `@ag-ui/client`'s `HttpAgent` running against the stream.
//!
//! Three small fixtures of our own join them (a payload the parser skips, a call cut off,
//! an empty response), for the events no capture makes (AG-UI `CUSTOM`).
//!
//! Each client's final calls (names, parsed arguments), text and reasoning must equal our
//! own events for the capture, and the OpenAI completion's id, model and `created` the
//! provider's where it sent them ([`toolstream::Parser::response_meta`]). When our events carry an error, the client must report it
//! (its message contains ours) and what it collected before must be a prefix of ours.
//! Everything each client said is written to `target/clients/report.json`.
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
use toolstream::{Event, Format, Framing, merge_deltas};

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
    calls: Vec<(String, Value)>,
    text: String,
    reasoning: String,
    /// The first error's message (the clients must report it).
    error: Option<String>,
    /// The first error that ends an AG-UI run (a call's, or the provider's).
    run_error: Option<String>,
    /// The first call that failed: its name, the argument text streamed for it, and the
    /// error's raw text.
    failed: Option<(String, String, String)>,
}

fn ours(events: &[Event]) -> Ours {
    let first = |pred: &dyn Fn(&Event) -> bool| {
        events.iter().find(|e| pred(e)).map(|e| match e {
            Event::Error { message, .. } => message.clone(),
            _ => unreachable!(),
        })
    };
    Ours {
        calls: calls(events)
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect(),
        text: text(events),
        reasoning: reasoning(events),
        error: first(&|e| matches!(e, Event::Error { .. })),
        failed: events.iter().find_map(|e| match e {
            Event::Error {
                index: Some(i),
                raw,
                ..
            } => {
                let name = events.iter().find_map(|e| match e {
                    Event::ToolCallStart { index, name, .. } if index == i => Some(name.clone()),
                    _ => None,
                })?;
                let sent: String = events
                    .iter()
                    .filter_map(|e| match e {
                        Event::ToolCallArgs { index, delta } if index == i => Some(delta.as_str()),
                        _ => None,
                    })
                    .collect();
                Some((name, sent, raw.clone()))
            }
            _ => None,
        }),
        run_error: first(&|e| {
            matches!(e, Event::Error { index: Some(_), .. })
                || matches!(
                    e,
                    Event::Error {
                        kind: toolstream::ErrorKind::Provider,
                        ..
                    }
                )
        }),
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

/// One input run through `toolstream parse` both ways, and our own events for it.
fn case(exe: &str, i: usize, name: &str, format: &str, framing: Framing, bytes: &[u8]) -> Case {
    let framing_name = framing.to_string();
    let base = ["parse", "-f", format, "--framing", &framing_name];
    let (thread_id, run_id) = (format!("thread-{i}"), format!("run-{i}"));
    let openai = cli(
        exe,
        &[&base[..], &["--emit", "openai-chat"]].concat(),
        bytes,
    );
    let ids = ["--thread-id", &thread_id, "--run-id", &run_id];
    let agui = cli(
        exe,
        &[&base[..], &["--emit", "ag-ui"], &ids].concat(),
        bytes,
    );
    let mut parser = maker(format, framing)();
    let mut events = Vec::new();
    parser.feed(bytes, &mut events).unwrap();
    parser.finish(&mut events).unwrap();
    merge_deltas(&mut events);
    Case {
        name: name.to_owned(),
        meta: parser.response_meta().clone(),
        openai,
        agui,
        thread_id,
        run_id,
        ours: ours(&events),
    }
}

/// Our own small inputs for what no capture shows: a payload the parser skips and
/// recovers from (AG-UI `CUSTOM`), a call cut off mid-arguments, an empty response.
fn fixtures() -> Vec<(&'static str, &'static str, Framing, String)> {
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
    vec![
        (
            "fixture: a junk line between two calls",
            "openai-chat",
            Framing::Sse,
            format!(
                "{}data: {{not json\n\n{}data: [DONE]\n\n",
                call(0, "a", "f", "{\"x\":1}"),
                call(1, "b", "g", "{}")
            ),
        ),
        (
            "fixture: cut off mid-arguments",
            "openai-chat",
            Framing::Sse,
            format!(
                "{}{}",
                chunk(json!({"content": "Let me look."})),
                call(0, "a", "f", "{\"x\": [1, ")
            ),
        ),
        (
            "fixture: empty response",
            "hermes",
            Framing::Text,
            String::new(),
        ),
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
    let mut out = Vec::new();
    for format in formats {
        if format.parse::<Format>().is_err() {
            visible(&format!(
                "SKIPPED: format {format} not in this build; its captures not given to the clients"
            ));
            continue;
        }
        for cap in captures(format) {
            out.push(case(
                exe,
                out.len(),
                &cap.path,
                format,
                cap.framing,
                &cap.bytes,
            ));
        }
    }
    for (name, format, framing, body) in fixtures() {
        out.push(case(exe, out.len(), name, format, framing, body.as_bytes()));
    }
    out
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
/// With an error expected: the client reports it, and its calls are our calls that ended
/// before it, then possibly the failed call as the client last saw it: same name, and its
/// argument text (`{"unparsed": ..}`) what the stream carried for it, `failed_args`.
fn compare(
    ours: &Ours,
    got: &Value,
    error_expected: Option<&str>,
    failed_args: Option<&str>,
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
    let got_reasoning = got["reasoning"].as_str().unwrap_or("");
    let got_error = got["error"].as_str();
    match error_expected {
        None => {
            if let Some(e) = got_error {
                diffs.push(format!("client error: {e}"));
            }
            if !same_calls(&got_calls, &ours.calls) {
                diffs.push(format!("calls {got_calls:?} != ours {:?}", ours.calls));
            }
            if got_text != ours.text {
                diffs.push(format!("text {got_text:?} != ours {:?}", ours.text));
            }
            if got_reasoning != ours.reasoning {
                diffs.push(format!(
                    "reasoning {got_reasoning:?} != ours {:?}",
                    ours.reasoning
                ));
            }
        }
        Some(want) => {
            match got_error {
                Some(e) if e.contains(want) => {}
                other => diffs.push(format!("error {other:?}, expected one saying {want:?}")),
            }
            let mut got_calls = got_calls;
            if let (Some((name, _, _)), Some(args)) = (&ours.failed, failed_args)
                && got_calls.len() > ours.calls.len()
            {
                let last = got_calls.pop();
                let want = (name.clone(), json!({ "unparsed": args }));
                if last.as_ref() != Some(&want) {
                    diffs.push(format!("failed call {last:?} != {want:?}"));
                }
            }
            if got_calls.len() > ours.calls.len()
                || !same_calls(&got_calls, &ours.calls[..got_calls.len()])
            {
                diffs.push(format!(
                    "calls {got_calls:?} not a prefix of ours {:?}",
                    ours.calls
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

#[test]
fn real_clients_read_every_capture_like_we_do() {
    let exe = env!("CARGO_BIN_EXE_toolstream");
    let cases = cases(exe);
    if cases.is_empty() {
        visible("SKIPPED: no captures; real clients not run");
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
            let tools: BTreeSet<&str> = c.ours.calls.iter().map(|(n, _)| n.as_str()).collect();
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

    // The Node scripts must sit beside node_modules to resolve their imports.
    let node_dir = clients_dir().join("node");
    let scripts = crate_dir().join("tests/clients");
    let mut runs: Vec<(&str, Result<Value, String>)> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let skipped = |client: &str, why: &str| {
        visible(&format!(
            "SKIPPED: {client} client test: registry unreachable ({why}); see target/clients/*.log"
        ))
    };
    match st.get("python").map(String::as_str) {
        Some("ok") => runs.push((
            "openai-python",
            run_client(
                &clients_dir().join("venv/bin/python"),
                &scripts.join("openai_sdk.py"),
                &dir,
                &base,
                &manifest_path,
            ),
        )),
        Some("unreachable") => skipped("OpenAI Python SDK", "PyPI"),
        other => failures.push(format!("python client install: {other:?}")),
    }
    match st.get("node").map(String::as_str) {
        Some("ok") => {
            for script in ["vercel_ai.mjs", "ag_ui.mjs"] {
                std::fs::copy(scripts.join(script), node_dir.join(script)).unwrap();
                let name = if script == "ag_ui.mjs" {
                    "ag-ui"
                } else {
                    "vercel-ai"
                };
                runs.push((
                    name,
                    run_client(
                        Path::new("node"),
                        &node_dir.join(script),
                        &node_dir,
                        &base,
                        &manifest_path,
                    ),
                ));
            }
        }
        Some("unreachable") => skipped("Vercel AI SDK and AG-UI", "npm"),
        other => failures.push(format!("node client install: {other:?}")),
    }

    let mut report = serde_json::Map::new();
    let mut checked = 0;
    for (client, result) in &runs {
        let out = match result {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{client}: {e}"));
                continue;
            }
        };
        report.insert((*client).to_owned(), out.clone());
        for c in &cases {
            let r = &out["results"][&c.name];
            // Each view a client gives of the case: the SDK's two ways, or the one.
            let views: Vec<(String, &Value)> = match *client {
                "openai-python" => vec![
                    ("openai-python create".into(), &r["create"]),
                    ("openai-python stream".into(), &r["stream"]),
                ],
                other => vec![(other.to_owned(), r)],
            };
            for (view, got) in views {
                checked += 1;
                let expected_error = if *client == "ag-ui" {
                    c.ours.run_error.as_deref()
                } else {
                    c.ours.error.as_deref()
                };
                // What the stream carried of the failed call's arguments: AG-UI streams
                // the argument text before its RUN_ERROR; the OpenAI output then
                // forwards the rest of the error's raw text when it continues them.
                let failed_args = c.ours.failed.as_ref().map(|(_, sent, raw)| {
                    if *client != "ag-ui" && raw.starts_with(sent.as_str()) {
                        raw.as_str()
                    } else {
                        sent.as_str()
                    }
                });
                let mut diffs = if got.is_null() {
                    vec!["no result".to_owned()]
                } else {
                    compare(&c.ours, got, expected_error, failed_args)
                };
                if view.starts_with("openai-python") && expected_error.is_none() {
                    diffs.extend(meta_differences(&c.meta, got));
                }
                if *client == "ag-ui" {
                    for p in got["schema"]["problems"].as_array().into_iter().flatten() {
                        diffs.push(format!("schema: {}", p.as_str().unwrap_or("")));
                    }
                    let want = json!({"thread_id": c.thread_id, "run_id": c.run_id});
                    if got["started"] != want {
                        diffs.push(format!("RUN_STARTED ids {} != {want}", got["started"]));
                    }
                }
                if !diffs.is_empty() {
                    failures.push(format!("{view}: {}: {}", c.name, diffs.join("; ")));
                }
            }
        }
    }
    std::fs::write(
        clients_dir().join("report.json"),
        serde_json::to_vec_pretty(&Value::Object(report)).unwrap(),
    )
    .unwrap();
    visible(&format!(
        "clients: {} captures, {checked} client views checked, {} differences",
        cases.len(),
        failures.len()
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
