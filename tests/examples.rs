//! The examples, run against a local server so they cannot rot.
//!
//! A small HTTP server on 127.0.0.1 (std::net, a thread) records the request and answers
//! with a recorded-style stream sent in pieces with delays, like a provider generating;
//! each compiled example binary runs with its environment pointing at it, and its output
//! is checked. `cancel_early` must close the connection long before the server is done.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

mod common;

/// Builds (if needed) and returns the path of an example binary, with this test's
/// features so nothing else gets rebuilt.
fn example(name: &str) -> PathBuf {
    let mut features = vec!["reqwest"];
    if cfg!(feature = "cli") {
        features.push("cli");
    }
    if cfg!(feature = "eventsource-stream") {
        features.push("eventsource-stream");
    }
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--example", name, "--features"])
        .arg(features.join(","))
        .arg("--manifest-path")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .status()
        .unwrap();
    assert!(status.success(), "building example {name}");
    // target/debug/deps/examples-xxxx -> target/debug/examples/name
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("examples");
    dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// What the server saw and did.
#[derive(Debug)]
struct Served {
    request_line: String,
    headers: Vec<(String, String)>,
    body: Value,
    pieces_sent: usize,
    pieces_total: usize,
    client_left: bool,
}

/// Serves one request: answers `pieces` `delay` apart; reports on the channel.
fn serve_once(pieces: Vec<String>, delay: Duration) -> (String, mpsc::Receiver<Served>) {
    serve_turns(vec![pieces], delay)
}

/// Serves one request per turn, in order: answers the turn's `pieces` `delay` apart;
/// reports each request on the channel.
fn serve_turns(turns: Vec<Vec<String>>, delay: Duration) -> (String, mpsc::Receiver<Served>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for pieces in turns {
            let (mut conn, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(conn.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let mut headers = Vec::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                let (k, v) = line.split_once(':').unwrap();
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
            }
            let len: usize = headers
                .iter()
                .find(|(k, _)| k == "content-length")
                .map(|(_, v)| v.parse().unwrap())
                .unwrap_or(0);
            let mut body = vec![0u8; len];
            reader.read_exact(&mut body).unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let total = pieces.len();
            let mut sent = 0;
            let mut client_left = conn
            .write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
            )
            .is_err();
            for p in &pieces {
                if client_left {
                    break;
                }
                std::thread::sleep(delay);
                if conn
                    .write_all(p.as_bytes())
                    .and_then(|()| conn.flush())
                    .is_err()
                {
                    client_left = true;
                    break;
                }
                sent += 1;
            }
            let _ = tx.send(Served {
                request_line,
                headers,
                body,
                pieces_sent: sent,
                pieces_total: total,
                client_left,
            });
        }
    });
    (base, rx)
}

fn sse(v: &Value) -> String {
    format!("data: {v}\n\n")
}

/// An OpenAI stream: a little text, a `read_file` call in pieces, then a long text that
/// nobody needs once the call is there.
fn openai_pieces(tool: &str, tail: usize) -> Vec<String> {
    openai_call_pieces(tool, &["{\"pa", "th\": \"no", "tes.txt\"}"], tail)
}

/// The same with the call's arguments sent as `args`.
fn openai_call_pieces(tool: &str, args: &[&str], tail: usize) -> Vec<String> {
    let chunk = |delta: Value| {
        sse(
            &json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": null}]}),
        )
    };
    let mut v = vec![chunk(
        json!({"role": "assistant", "content": "Let me check."}),
    )];
    v.push(chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": tool, "arguments": ""}}]}),
    ));
    for a in args {
        v.push(chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": a}}]}),
        ));
    }
    for i in 0..tail {
        v.push(chunk(json!({"content": format!(" word{i}")})));
    }
    v.push(sse(
        &json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ));
    v.push(sse(
        &json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30}}),
    ));
    v.push("data: [DONE]\n\n".into());
    v
}

fn run(exe: &PathBuf, env: &[(&str, &str)], args: &[&str]) -> String {
    let out = Command::new(exe)
        .args(args)
        .envs(env.iter().copied())
        .env_remove("HTTPS_PROXY")
        .env_remove("HTTP_PROXY")
        .env_remove("ALL_PROXY")
        .env_remove("https_proxy")
        .env_remove("http_proxy")
        .env_remove("all_proxy")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{} failed: {}\n{stdout}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The client closed the connection when the server had sent less than a quarter of the
/// stream.
fn assert_left_early(served: &Served) {
    assert!(served.client_left, "the server never saw the client go");
    assert!(
        served.pieces_sent < served.pieces_total / 4,
        "the server sent {} of {} pieces before the connection closed",
        served.pieces_sent,
        served.pieces_total
    );
}

fn header<'a>(s: &'a Served, k: &str) -> Option<&'a str> {
    s.headers
        .iter()
        .find(|(h, _)| h == k)
        .map(|(_, v)| v.as_str())
}

#[test]
fn openai_compatible_prints_the_call_live() {
    let exe = example("openai_compatible");
    let (base, rx) = serve_once(openai_pieces("get_weather", 3), Duration::from_millis(5));
    let out = run(
        &exe,
        &[
            ("OPENAI_BASE_URL", &format!("{base}/v1")),
            ("OPENAI_API_KEY", "sk-test"),
            ("MODEL", "test-model"),
        ],
        &[],
    );
    let served = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(
        served
            .request_line
            .starts_with("POST /v1/chat/completions "),
        "{served:?}"
    );
    assert_eq!(header(&served, "authorization"), Some("Bearer sk-test"));
    assert_eq!(served.body["model"], "test-model");
    assert_eq!(served.body["stream"], true);
    assert_eq!(served.body["tools"][0]["function"]["name"], "get_weather");
    assert!(out.contains("Let me check."), "{out}");
    assert!(
        out.contains("[call 0] get_weather (call_1) ← {\"path\": \"notes.txt\"}"),
        "{out}"
    );
    assert!(
        out.contains("[call 0] complete: {\"path\":\"notes.txt\"}"),
        "{out}"
    );
    assert!(out.contains("[finish] tool_calls (30 tokens)"), "{out}");
}

#[test]
fn anthropic_prints_the_call_live() {
    let exe = example("anthropic");
    let ev = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut pieces = vec![
        ev(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m", "usage": {"input_tokens": 12, "output_tokens": 1}}}),
        ),
        ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Writing it."}}),
        ),
        ev(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_9", "name": "write_file", "input": {}}}),
        ),
    ];
    for p in [
        "{\"path\": \"haiku.txt\", ",
        "\"content\": \"streams ",
        "flow\"}",
    ] {
        pieces.push(ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": p}}),
        ));
    }
    pieces.push(ev(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 1}),
    ));
    pieces.push(ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}}),
    ));
    pieces.push(ev("message_stop", json!({"type": "message_stop"})));
    let (base, rx) = serve_once(pieces, Duration::from_millis(5));
    let out = run(
        &exe,
        &[
            ("ANTHROPIC_BASE_URL", base.as_str()),
            ("ANTHROPIC_API_KEY", "sk-ant-test"),
        ],
        &[],
    );
    let served = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(served.request_line.starts_with("POST /v1/messages "));
    assert_eq!(header(&served, "x-api-key"), Some("sk-ant-test"));
    assert_eq!(header(&served, "anthropic-version"), Some("2023-06-01"));
    assert_eq!(served.body["tools"][0]["name"], "write_file");
    assert!(out.contains("Writing it."), "{out}");
    assert!(out.contains("[call 0] write_file (toolu_9) ← "), "{out}");
    assert!(
        // The arguments in the model's key order.
        out.contains(r#"[call 0] complete: {"path":"haiku.txt","content":"streams flow"}"#),
        "{out}"
    );
    assert!(out.contains("[finish] tool_calls"), "{out}");
}

#[test]
fn cancel_early_drops_the_response_once_the_call_is_complete() {
    let exe = example("cancel_early");
    // 200 pieces of text after the call, 10 ms apart: about 2 s the client should not wait.
    let (base, rx) = serve_once(openai_pieces("read_file", 200), Duration::from_millis(10));
    let out = run(&exe, &[("OPENAI_BASE_URL", &format!("{base}/v1"))], &[]);
    assert!(out.contains("calling read_file…"), "{out}");
    assert!(
        out.contains(r#"first call complete: read_file({"path":"notes.txt"})"#),
        "{out}"
    );
    assert!(
        out.ends_with("response dropped: the rest of the stream was never read\n"),
        "{out}"
    );
    let served = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert_left_early(&served);
}

#[test]
fn cancel_early_refuses_a_forbidden_tool_by_name() {
    let exe = example("cancel_early");
    let (base, rx) = serve_once(openai_pieces("delete_file", 200), Duration::from_millis(10));
    let out = run(&exe, &[("OPENAI_BASE_URL", &format!("{base}/v1"))], &[]);
    assert!(
        out.contains("refused `delete_file` the moment its name arrived"),
        "{out}"
    );
    assert!(!out.contains("calling delete_file"), "{out}");
    let served = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert_left_early(&served);
}

#[test]
fn cancel_early_stops_a_call_that_breaks_its_schema_mid_argument() {
    let exe = example("cancel_early");
    // The model writes "utf8" where the tool allows "utf-8" or "latin-1": wrong at the `8`.
    let args = [
        "{\"path\": \"notes",
        ".txt\", \"encod",
        "ing\": \"utf8",
        "\"}",
    ];
    let (base, rx) = serve_once(
        openai_call_pieces("read_file", &args, 200),
        Duration::from_millis(10),
    );
    let out = run(&exe, &[("OPENAI_BASE_URL", &format!("{base}/v1"))], &[]);
    // README's "Cancel early" quotes this output, for a model whose `read_file` call passes
    // an encoding the tool does not allow.
    let (command, shown) = common::console_block(
        common::readme_section("Cancel early"),
        "cargo run --example cancel_early",
    );
    assert!(command.starts_with("OPENAI_BASE_URL="), "{command}");
    assert_eq!(out, shown, "README's Cancel early quotes other output");
    // The byte it names is the `8`.
    let at: usize = out
        .split("at byte ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(args.concat().as_bytes()[at - 1], b'8');
    let served = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert_left_early(&served);
    // The request's tools carried the schema the parser checked.
    assert_eq!(
        served.body["tools"][0]["function"]["parameters"]["properties"]["encoding"]["enum"],
        json!(["utf-8", "latin-1"])
    );
}

#[test]
fn replay_paces_a_recorded_file_through_the_stream_adapter() {
    let exe = example("replay");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!("replay-{}.sse", std::process::id()));
    std::fs::write(&file, openai_pieces("get_weather", 2).concat()).unwrap();
    let started = std::time::Instant::now();
    let out = run(&exe, &[], &[file.to_str().unwrap(), "openai-chat", "4"]);
    let elapsed = started.elapsed();
    let _ = std::fs::remove_file(&file);
    assert!(out.contains("text: Let me check."), "{out}");
    assert!(
        out.contains("call 0 started: get_weather (call_1)"),
        "{out}"
    );
    assert!(
        out.contains(r#"call 0 complete: get_weather({"path":"notes.txt"})"#),
        "{out}"
    );
    assert!(out.contains("finish: tool_calls"), "{out}");
    // 10 pieces at 20 ms / 4: paced, not instant (and not slow).
    assert!(elapsed >= Duration::from_millis(40), "{elapsed:?}");
    // Timestamps grow along the replay.
    let times: Vec<f64> = out
        .lines()
        .filter_map(|l| l.strip_prefix('[')?.split_once("s]")?.0.trim().parse().ok())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert!(times.last().unwrap() > times.first().unwrap(), "{out}");
}

#[test]
fn replay_detects_the_format_of_a_sample() {
    let exe = example("replay");
    for (sample, call) in [
        ("samples/anthropic.sse", "call 0 complete: get_weather("),
        (
            "samples/bedrock.eventstream",
            "call 0 complete: get_weather(",
        ),
        ("samples/hermes.txt", "call 0 complete: get_weather("),
    ] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(sample);
        let out = run(&exe, &[], &[path.to_str().unwrap()]);
        assert!(out.contains(call), "{sample}: {out}");
    }
}

#[test]
fn replay_reads_format_and_framing_from_formats_json() {
    let exe = example("replay");
    let Some(cap) = ["anthropic/sonnet-4-5-single-call.sse"]
        .iter()
        .map(|p| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../shared/captures")
                .join(p)
        })
        .find(|p| p.exists())
    else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: captures not found; replay of a capture not run (put the captures at ../shared/captures or set TOOLSTREAM_CAPTURES)"
        );
        return;
    };
    let out = run(&exe, &[], &[cap.to_str().unwrap(), "anthropic", "50"]);
    assert!(out.contains("call 0 complete: get_book_info("), "{out}");
    let out2 = run(&exe, &[], &[cap.to_str().unwrap()]);
    assert!(out2.contains("call 0 complete: get_book_info("), "{out2}");
}

/// An OpenAI stream answering in text only.
fn openai_text_pieces(text: &str) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        sse(
            &json!({"id": "c2", "object": "chat.completion.chunk", "created": 1, "model": "m",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
        )
    };
    let mut v: Vec<String> = text
        .split_inclusive(' ')
        .map(|w| chunk(json!({"content": w}), Value::Null))
        .collect();
    v.push(chunk(json!({}), json!("stop")));
    v.push("data: [DONE]\n\n".into());
    v
}

#[test]
fn agent_loop_runs_the_tool_and_sends_the_result_back() {
    let exe = example("agent_loop");
    let (base, rx) = serve_turns(
        vec![
            openai_call_pieces("get_weather", &["{\"ci", "ty\": \"Pa", "ris\"}"], 0),
            openai_text_pieces("It is clear in Paris."),
        ],
        Duration::from_millis(2),
    );
    let out = run(
        &exe,
        &[
            ("OPENAI_BASE_URL", &format!("{base}/v1")),
            ("MODEL", "test-model"),
        ],
        &[],
    );
    let first = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    let second = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert_eq!(first.body["tools"][0]["function"]["name"], "get_weather");
    assert_eq!(first.body["messages"].as_array().unwrap().len(), 1);
    // The second request carries the assistant's call and the tool's result.
    let messages = second.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": "Let me check.", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]})
    );
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["tool_call_id"], "call_1");
    // The tool ran on the call's arguments.
    assert_eq!(
        serde_json::from_str::<Value>(messages[2]["content"].as_str().unwrap()).unwrap(),
        json!({"city": "Paris", "temperature_c": 10, "sky": "clear"})
    );
    assert!(
        out.contains("[tool get_weather] {\"city\": \"Paris\"} -> "),
        "{out}"
    );
    assert!(out.contains("[calling get_weather ...]"), "{out}");
    assert!(out.contains("It is clear in Paris."), "{out}");
}
