//! Real clients of the proxy's two translated fronts, `POST /v1/messages` (Anthropic
//! Messages) and `POST /v1/responses` (OpenAI Responses), against a fake Chat upstream of
//! this file (raw TCP, so it can cut a reply short).
//!
//! Clients (installed by `.ci/clients-setup` into `target/clients/`, pinned in
//! tests/clients/requirements.txt and package-lock.json), each run once over every case
//! (tests/clients/fronts_clients.{py,mjs}, one process per language):
//!
//! - Python: the Anthropic SDK (`messages.stream` → `get_final_message()`, `messages.create`
//!   streamed as raw events and not), the OpenAI SDK's Responses (`responses.stream` →
//!   `get_final_response()`, `responses.create` streamed and not), the OpenAI Agents SDK
//!   (its Responses model on the proxy, a two-turn tool loop, `Runner.run` and
//!   `Runner.run_streamed`), `langchain-anthropic`
//!   (`ChatAnthropic.bind_tools`, `stream` and `invoke`) and Pydantic AI (its Anthropic
//!   model and its `OpenAIResponsesModel`, an agent run that calls the tool);
//! - Node: the Anthropic SDK (`messages.stream().finalMessage()`, `messages.create`), the
//!   OpenAI SDK's Responses (`responses.stream`, `responses.create`), and the Vercel AI SDK
//!   over `@ai-sdk/anthropic` and `@ai-sdk/openai`'s `responses(model)` (`streamText`,
//!   `generateText` with an executed tool, so two turns).
//!
//! Scenarios, each through both fronts: every raw-text syntax leaked into `content` (its
//! benchmark workload: prose, reasoning for some, a `write_file` call; the frameworks take a
//! few of them), a native Chat `tool_calls` stream of two calls, plain text, reasoning
//! (`reasoning_content` → thinking blocks / reasoning items), a stream cut in a call's
//! arguments (every client must fail, never return a complete-looking reply), upstream
//! 400, 429 and 500 (the client's status error, with the upstream's message), and a call to
//! an undeclared tool (the refusal text, no call). The agent clients run the tool and the
//! fake upstream answers the second turn with `The tool said: <the tool's result>`.
//!
//! A client not installed prints a visible SKIPPED line; one installed that misbehaves
//! fails the test. The test prints, per client, how many cases it got right, and how long
//! each language's run took (about 55 s for Python, mostly its imports and the SDKs' stream
//! helpers, and 15 s for Node, side by side, on 2 busy cores).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use toolstream::proxy::{Proxy, ProxyConfig};
use toolstream::{Event, Format, Framing, Parser, ParserConfig, Tools};

#[path = "../benches/support/workloads.rs"]
mod workloads;
use workloads::{Shape, generator};

/// Says something cargo's output capture does not swallow.
fn visible(msg: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

/// One step of the fake upstream's reply.
#[derive(Clone, Debug)]
enum Step {
    Send(Vec<u8>),
    Pause(u64),
}

type Reply = Arc<dyn Fn(&Value) -> (String, Vec<Step>) + Send + Sync>;

/// A fake Chat upstream on 127.0.0.1: answers each request with `reply(request body)` (a
/// head and body steps, `Connection: close`).
async fn upstream(reply: Reply) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let reply = Arc::clone(&reply);
            tokio::spawn(serve_one(socket, reply));
        }
    });
    addr
}

async fn serve_one(mut socket: tokio::net::TcpStream, reply: Reply) -> Option<()> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    while buf.len() < head_end + len {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let request: Value = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
    let (reply_head, steps) = reply(&request);
    socket.write_all(reply_head.as_bytes()).await.ok()?;
    for step in steps {
        match step {
            Step::Send(bytes) => socket.write_all(&bytes).await.ok()?,
            Step::Pause(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
        }
    }
    let _ = socket.shutdown().await;
    Some(())
}

const SSE_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

/// An OpenAI chunk whose delta is `delta`.
fn chunk(delta: Value, finish: Option<&str>) -> Step {
    let c = json!({"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1,
        "model": "up-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    Step::Send(format!("data: {c}\n\n").into_bytes())
}

fn done() -> Step {
    Step::Send(b"data: [DONE]\n\n".to_vec())
}

/// An OpenAI stream that leaks `text` into `content`, `piece` bytes (on char boundaries)
/// per chunk.
fn leaked_stream(text: &str, piece: usize) -> Vec<Step> {
    let mut steps = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    let mut rest = text;
    while !rest.is_empty() {
        let mut n = piece.min(rest.len());
        while !rest.is_char_boundary(n) {
            n += 1;
        }
        let (p, r) = rest.split_at(n);
        steps.push(chunk(json!({"content": p}), None));
        rest = r;
    }
    steps.push(chunk(json!({}), Some("stop")));
    steps.push(done());
    steps
}

/// A text reply streamed a few bytes a chunk.
fn text_stream(text: &str) -> Vec<Step> {
    leaked_stream(text, 5)
}

/// A native Chat `tool_calls` delta.
fn call_delta(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> Value {
    let mut f = json!({"arguments": args});
    if let Some(name) = name {
        f["name"] = json!(name);
    }
    let mut c = json!({"index": index, "function": f});
    if let Some(id) = id {
        c["id"] = json!(id);
        c["type"] = json!("function");
    }
    json!({"tool_calls": [c]})
}

/// The tools every case declares (Chat form; the scripts translate them to their API's).
fn tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "write_file", "description": "Write a file",
            "parameters": {"type": "object", "properties": {
                "path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"]}}},
        {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city",
            "parameters": {"type": "object", "properties": {
                "city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city", "days"]}}},
        {"type": "function", "function": {"name": "get_time", "description": "The time in a zone",
            "parameters": {"type": "object", "properties": {"zone": {"type": "string"}},
                "required": ["zone"]}}}
    ])
}

/// What the library makes of `leaked` in `format` with [`tools`] declared: the calls, the
/// visible text and the reasoning.
fn oracle(format: Format, leaked: &str) -> (Vec<(String, Value)>, String, String) {
    let tools = Tools::from_value(&tools()).unwrap();
    let mut p = Parser::with_config(format, ParserConfig::new().tools(tools));
    let mut events = Vec::new();
    p.feed(leaked.as_bytes(), &mut events).unwrap();
    p.finish(&mut events).unwrap();
    let (mut calls, mut text, mut reasoning) = (Vec::new(), String::new(), String::new());
    for e in &events {
        match e {
            Event::Text { delta } => text.push_str(delta),
            Event::Reasoning { delta } => reasoning.push_str(delta),
            Event::ToolCallEnd {
                name, arguments, ..
            } => calls.push((name.clone(), arguments.clone())),
            Event::Error { .. } => panic!("{format}: {e:?} in {leaked}"),
            _ => {}
        }
    }
    (calls, text, reasoning)
}

/// The scenario a request asks for: the `scenario=NAME` word of its first user message.
fn scenario_of(request: &Value) -> String {
    let text = request["messages"].to_string();
    let at = text.find("scenario=").expect("a scenario in the request");
    text[at + "scenario=".len()..]
        .split(|c: char| c.is_whitespace() || c == '"' || c == '\\')
        .next()
        .unwrap()
        .to_owned()
}

/// The text of the request's tool results (a second agent turn), in order.
fn tool_results(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<String>(),
            other => other.to_string(),
        })
        .collect()
}

/// What a tool returns in the agent clients (the scripts' tools say the same).
fn tool_result(name: &str) -> String {
    format!("{name} done")
}

const REASONING: [&str; 3] = ["Let me ", "think about ", "the weather."];
const PLAIN: &str = "Hello from the model: plain text, nothing else.";
const REFUSAL: &str = "toolstream: call to delete_all refused: not among the request's tools";

/// The fake upstream's answer to a request.
fn answer(request: &Value, leaks: &BTreeMap<String, String>) -> (String, Vec<Step>) {
    let results = tool_results(request);
    if !results.is_empty() {
        return (
            SSE_HEAD.to_owned(),
            text_stream(&format!("The tool said: {}", results.join(" | "))),
        );
    }
    let scenario = scenario_of(request);
    if let Some(format) = scenario.strip_prefix("leak-") {
        return (SSE_HEAD.to_owned(), leaked_stream(&leaks[format], 7));
    }
    if let Some(status) = scenario.strip_prefix("status-") {
        let (status, reason, kind) = match status {
            "400" => (400, "Bad Request", "invalid_request_error"),
            "429" => (429, "Too Many Requests", "rate_limit_error"),
            _ => (500, "Internal Server Error", "server_error"),
        };
        let body = json!({"error": {"message": format!("upstream says no ({status})"),
            "type": kind, "code": status}})
        .to_string();
        let head = format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        return (head, vec![Step::Send(body.into_bytes())]);
    }
    let role = chunk(json!({"role": "assistant", "content": ""}), None);
    let steps = match scenario.as_str() {
        "native" => vec![
            role,
            chunk(json!({"content": "Checking both."}), None),
            chunk(
                call_delta(0, Some("call_n1"), Some("get_weather"), ""),
                None,
            ),
            chunk(call_delta(0, None, None, "{\"city\": \"Pa"), None),
            chunk(call_delta(0, None, None, "ris\", \"days\": 3}"), None),
            chunk(call_delta(1, Some("call_n2"), Some("get_time"), ""), None),
            chunk(call_delta(1, None, None, "{\"zone\": \"CET\"}"), None),
            chunk(json!({}), Some("tool_calls")),
            done(),
        ],
        "text" => text_stream(PLAIN),
        "reasoning" => {
            let mut steps = vec![role];
            for r in REASONING {
                steps.push(chunk(json!({"reasoning_content": r}), None));
            }
            steps.extend(text_stream(PLAIN).into_iter().skip(1));
            steps
        }
        // Cut in the arguments: no finish, no [DONE], the connection closed.
        "cut" => vec![
            role,
            chunk(
                call_delta(0, Some("call_c1"), Some("get_weather"), ""),
                None,
            ),
            chunk(call_delta(0, None, None, "{\"city\": \"Par"), None),
            Step::Pause(20),
        ],
        "undeclared" => vec![
            role,
            chunk(json!({"content": "Sure."}), None),
            chunk(call_delta(0, Some("call_u1"), Some("delete_all"), ""), None),
            chunk(call_delta(0, None, None, "{\"path\": \"/\"}"), None),
            chunk(json!({}), Some("tool_calls")),
            done(),
        ],
        other => panic!("unknown scenario {other}"),
    };
    (SSE_HEAD.to_owned(), steps)
}

async fn start_proxy(config: ProxyConfig) -> SocketAddr {
    let proxy = Proxy::bind("127.0.0.1:0".parse().unwrap(), config)
        .await
        .unwrap();
    let addr = proxy.local_addr().unwrap();
    tokio::spawn(proxy.run());
    addr
}

/// Runs a client script over `manifest`; its results (`{case: {client: result}}`), or
/// `None` when the script says a client is not installed (exit status 3, a `MISSING:` line).
fn run_clients(program: &Path, script: &Path, manifest: &Value) -> Option<Value> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("fronts-clients-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stem = script.file_name().unwrap().to_string_lossy().into_owned();
    let manifest_path = dir.join(format!("{stem}.manifest.json"));
    let out_path = dir.join(format!("{stem}.out.json"));
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let start = Instant::now();
    let out = std::process::Command::new(program)
        .arg(script)
        .arg(&manifest_path)
        .arg(&out_path)
        .current_dir(script.parent().unwrap())
        .env("OPENAI_AGENTS_DISABLE_TRACING", "1")
        .output()
        .unwrap();
    if out.status.code() == Some(3) {
        visible(&format!(
            "SKIPPED: {}: {} (run .ci/clients-setup)",
            script.display(),
            String::from_utf8_lossy(&out.stdout).trim()
        ));
        return None;
    }
    assert!(
        out.status.success(),
        "{} {}: {}",
        program.display(),
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    visible(&format!(
        "fronts: {stem} ran in {:.1} s",
        start.elapsed().as_secs_f64()
    ));
    Some(serde_json::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap())
}

/// What a case must give a client.
#[derive(Debug, Clone)]
enum Want {
    /// A complete reply: these calls, this text (and reasoning where the client shows it).
    Reply {
        calls: Vec<(String, Value)>,
        text: String,
        reasoning: String,
    },
    /// A complete reply whose text holds the refusal, with no call.
    Refused,
    /// An error whose text holds `needle` (and, for a status, the status).
    Error { needle: String, status: Option<u16> },
}

/// The clients, for the SKIPPED lines.
const PY_CLIENTS: &str = "anthropic, openai, openai-agents, langchain-anthropic, pydantic-ai";
const NODE_CLIENTS: &str = "@anthropic-ai/sdk, openai, @ai-sdk/anthropic, @ai-sdk/openai";

fn has_node(node_dir: &Path) -> bool {
    [
        "@anthropic-ai/sdk",
        "openai",
        "ai",
        "@ai-sdk/anthropic",
        "@ai-sdk/openai",
        "zod",
    ]
    .iter()
    .all(|p| node_dir.join("node_modules").join(p).exists())
}

/// Every leaked syntax, a native stream, text, reasoning, a cut stream, upstream errors and
/// an undeclared tool, through both fronts, to every client: the calls, text, stop reason
/// and errors each reports.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_clients_through_the_messages_and_responses_fronts() {
    let start = Instant::now();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join("target/clients/venv/bin/python");
    let node_dir = root.join("target/clients/node");
    // The Python script itself says when its clients are not installed (importing them
    // twice would cost seconds).
    let python = venv.exists();
    let node = has_node(&node_dir);
    if !python {
        visible(&format!(
            "SKIPPED: the Python clients ({PY_CLIENTS}) are not installed (run .ci/clients-setup)"
        ));
    }
    if !node {
        visible(&format!(
            "SKIPPED: the Node clients ({NODE_CLIENTS}) are not installed (run .ci/clients-setup)"
        ));
    }
    if !python && !node {
        return;
    }

    // The leaked syntaxes: every raw-text format's workload (small).
    let shape = Shape {
        text_deltas: 6,
        arg_len: 80,
        piece: 6,
    };
    let text_formats: Vec<Format> = Format::all()
        .filter(|f| f.default_framing() == Framing::Text && *f != Format::Auto)
        .collect();
    assert!(text_formats.len() >= 30, "{text_formats:?}");
    let mut leaks = BTreeMap::new();
    let mut wants: BTreeMap<String, Want> = BTreeMap::new();
    for &format in &text_formats {
        let leaked = String::from_utf8(generator(format).unwrap()(shape).body()).unwrap();
        let (calls, text, reasoning) = oracle(format, &leaked);
        assert_eq!(calls.len(), 1, "{format}: {leaked}");
        leaks.insert(format.to_string(), leaked);
        wants.insert(
            format!("leak-{format}"),
            Want::Reply {
                calls,
                text,
                reasoning,
            },
        );
    }
    let leaks = Arc::new(leaks);
    let l = Arc::clone(&leaks);
    let up = upstream(Arc::new(move |req: &Value| answer(req, &l))).await;
    let up_url = format!("http://{up}/v1");

    // One proxy (`--content hermes`) for every scenario but the other syntaxes' leaks; one
    // per other syntax, each with its own content format (in process: a task each).
    let mut bases = BTreeMap::new();
    for &format in &text_formats {
        let addr = start_proxy(ProxyConfig::new(up_url.clone()).content_format(format)).await;
        bases.insert(format!("leak-{format}"), format!("http://{addr}"));
    }
    let main = format!(
        "http://{}",
        start_proxy(ProxyConfig::new(up_url.clone()).content_format(Format::Hermes)).await
    );
    wants.insert(
        "native".into(),
        Want::Reply {
            calls: vec![
                ("get_weather".into(), json!({"city": "Paris", "days": 3})),
                ("get_time".into(), json!({"zone": "CET"})),
            ],
            text: "Checking both.".into(),
            reasoning: String::new(),
        },
    );
    wants.insert(
        "text".into(),
        Want::Reply {
            calls: vec![],
            text: PLAIN.into(),
            reasoning: String::new(),
        },
    );
    wants.insert(
        "reasoning".into(),
        Want::Reply {
            calls: vec![],
            text: PLAIN.into(),
            reasoning: REASONING.concat(),
        },
    );
    wants.insert(
        "cut".into(),
        Want::Error {
            needle: String::new(),
            status: None,
        },
    );
    for status in [400u16, 429, 500] {
        wants.insert(
            format!("status-{status}"),
            Want::Error {
                needle: format!("upstream says no ({status})"),
                status: Some(status),
            },
        );
    }
    wants.insert("undeclared".into(), Want::Refused);
    for name in wants.keys() {
        bases.entry(name.clone()).or_insert_with(|| main.clone());
    }
    // The frameworks take a few syntaxes; the SDKs take them all.
    let framework_leaks = ["hermes", "qwen-xml", "llama-pythonic", "mistral", "gemma4"];
    let cases: Vec<Value> = wants
        .keys()
        .map(|name| {
            let heavy = name
                .strip_prefix("leak-")
                .is_none_or(|f| framework_leaks.contains(&f));
            json!({"name": name, "base": bases[name], "prompt": format!("What now? scenario={name}"),
                "frameworks": heavy})
        })
        .collect();
    let manifest = json!({"tools": tools(), "cases": cases});

    if std::env::var_os("FRONTS_HOLD").is_some() {
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fronts-manifest.json");
        std::fs::write(&path, manifest.to_string()).unwrap();
        visible(&format!("fronts: manifest at {}; holding", path.display()));
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }

    let mut runs = Vec::new();
    if python {
        let script = root.join("tests/clients/fronts_clients.py");
        let m = manifest.clone();
        runs.push((
            "python",
            tokio::task::spawn_blocking(move || run_clients(&venv, &script, &m)),
        ));
    }
    if node {
        // Beside node_modules, so that its imports resolve.
        let script = node_dir.join("fronts_clients.mjs");
        std::fs::copy(root.join("tests/clients/fronts_clients.mjs"), &script).unwrap();
        let m = manifest.clone();
        runs.push((
            "node",
            tokio::task::spawn_blocking(move || run_clients(Path::new("node"), &script, &m)),
        ));
    }
    let mut failures = Vec::new();
    let mut matrix: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut ran = 0;
    for (lang, run) in runs {
        let Some(results) = run.await.unwrap() else {
            continue;
        };
        ran += 1;
        for (case, want) in &wants {
            let Some(clients) = results[case.as_str()].as_object() else {
                failures.push(format!("{lang}: no results for {case}"));
                continue;
            };
            for (client, got) in clients {
                let problem = check(want, got);
                let row = matrix.entry(client.clone()).or_default();
                *row.entry(if problem.is_none() { "ok" } else { "failed" }.into())
                    .or_default() += 1;
                if let Some(p) = problem {
                    failures.push(format!("{client}, {case}: {p}\n    got {got}"));
                }
            }
        }
    }
    for (client, row) in &matrix {
        visible(&format!("fronts: {client}: {row:?}"));
    }
    visible(&format!(
        "fronts: {} failures in {:.1} s",
        failures.len(),
        start.elapsed().as_secs_f64()
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if ran == 0 {
        visible("SKIPPED: no client of the fronts ran (run .ci/clients-setup)");
    }
}

/// Whether `got` (a client's result: `calls`, `text`, `reasoning`, `stop`, `error`,
/// `status`, `agent`) is what `want` says; the problem if not.
fn check(want: &Want, got: &Value) -> Option<String> {
    let error = got["error"].as_str();
    let agent = got["agent"].as_bool().unwrap_or(false);
    let text = got["text"].as_str().unwrap_or("");
    let calls: Vec<(String, Value)> = got["calls"]
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
    let stop = got["stop"].as_str().unwrap_or("");
    match want {
        Want::Reply {
            calls: want_calls,
            text: want_text,
            reasoning,
        } => {
            if let Some(e) = error {
                return Some(format!("an error: {e}"));
            }
            // An agent may run the calls of one turn concurrently: their order is its own.
            let (mut calls, mut want_calls) = (calls, want_calls.clone());
            if agent {
                calls.sort_by_key(|c| c.0.clone());
                want_calls.sort_by_key(|c| c.0.clone());
            }
            if calls != want_calls {
                return Some(format!("calls {calls:?}, want {want_calls:?}"));
            }
            if agent && !want_calls.is_empty() {
                // The agent ran the tools; the second turn's text quotes their results (in
                // the order of the calls).
                let results: Vec<String> = match want {
                    Want::Reply { calls, .. } => {
                        calls.iter().map(|(n, _)| tool_result(n)).collect()
                    }
                    _ => unreachable!(),
                };
                let want = format!("The tool said: {}", results.join(" | "));
                if text != want {
                    return Some(format!("final text {text:?}, want {want:?}"));
                }
                return None;
            }
            if text != want_text {
                return Some(format!("text {text:?}, want {want_text:?}"));
            }
            if let Some(r) = got["reasoning"].as_str()
                && r != reasoning
            {
                return Some(format!("reasoning {r:?}, want {reasoning:?}"));
            }
            let tool_stop = ["tool_use", "tool-calls", "completed"];
            let text_stop = ["end_turn", "stop", "completed"];
            let ok = if agent {
                true
            } else if want_calls.is_empty() {
                text_stop.contains(&stop)
            } else {
                tool_stop.contains(&stop)
            };
            (!ok).then(|| format!("stop {stop:?}"))
        }
        Want::Refused => {
            if let Some(e) = error {
                return Some(format!("an error: {e}"));
            }
            if !calls.is_empty() {
                return Some(format!("calls {calls:?}"));
            }
            (!text.contains(REFUSAL)).then(|| format!("text {text:?} without the refusal"))
        }
        Want::Error { needle, status } => {
            let Some(e) = error else {
                return Some("no error".into());
            };
            if !e.contains(needle.as_str()) {
                return Some(format!("error {e:?} without {needle:?}"));
            }
            if let Some(s) = status
                && got["status"].as_u64() != Some(u64::from(*s))
            {
                return Some(format!("status {}, want {s}", got["status"]));
            }
            None
        }
    }
}
