//! Real agent CLIs, end to end through `toolstream proxy`, fully offline.
//!
//! A fake Chat Completions upstream (tests/agents/fake_server.py `--api chat`, on
//! 127.0.0.1) plays a model that leaks its tool call as Hermes text in streamed `content`
//! deltas (`<tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>`, split over
//! several chunks) and, once a request carries the tool's result (a `role: "tool"`
//! message), answers with text quoting it. `toolstream proxy --content hermes` runs in
//! front of it, and each agent is pointed at the proxy:
//!
//! - Claude Code (`claude -p --output-format stream-json --verbose`, `ANTHROPIC_BASE_URL`)
//!   through `POST /v1/messages`: the model reads a file with `Read`; Claude Code's output
//!   must show the `tool_use` with the file's path, the `tool_result` holding the file's
//!   content and a final `result` quoting it.
//! - Codex (`codex exec --json`, a `model_providers` entry with `wire_api = "responses"`)
//!   through `POST /v1/responses`: the model runs `echo <token>` with Codex's shell tool
//!   (`exec_command`, `{"cmd": ...}`); Codex's output must show the command's execution
//!   with the token in its output and a final agent message quoting it.
//!
//! In both, the upstream's request log must show exactly two model requests, both
//! streamed (a client that rejects a streamed reply retries it, Claude Code without
//! streaming), the second carrying the assistant's call and a `tool` message with the
//! tool's output. An agent is judged by its JSON output and the request log, never by its
//! exit code; each runs with its own HOME under `timeout 60`.
//!
//! `*_native_fake` run the same agents and the same checks against fake servers that speak
//! the agent's API natively (`--api messages` / `--api responses`): they check the harness
//! itself, and show what a correct reply looks like (tests/agents/NOTES.md).
//!
//! The agents are installed by `.ci/agents-setup` into `target/agents/node` (pinned in
//! tests/agents/package.json + package-lock.json); this test runs that script when the
//! install is missing, and prints a visible SKIPPED line only when the npm registry could
//! not be reached. Everything of a run (the agent's HOME, its output and stderr, the
//! upstream's request log, the proxy's stderr) is kept in `target/agents/runs/<test>/`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Says something cargo's output capture does not swallow.
fn visible(msg: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn agents_dir() -> PathBuf {
    crate_dir().join("target/agents")
}

/// `.ci/agents-setup`'s status lines: agent → `ok VERSION` / `unreachable` / `failed ...`.
fn status() -> BTreeMap<String, String> {
    std::fs::read_to_string(agents_dir().join("status"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// The agents' status, running the setup script (once per test binary) when the install
/// is missing, unless it found the registry unreachable in the last 10 minutes (CI runs it
/// just before).
fn installs() -> &'static BTreeMap<String, String> {
    static ONCE: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    ONCE.get_or_init(|| {
        let st = status();
        let present = agents_dir().join("node/node_modules/.bin/claude").exists()
            && agents_dir().join("node/node_modules/.bin/codex").exists();
        let recent = std::fs::metadata(agents_dir().join("status"))
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() < 600);
        let unreachable_now = recent && st.values().any(|v| v == "unreachable");
        let all_ok = ["claude", "codex"]
            .iter()
            .all(|a| st.get(*a).is_some_and(|v| v.starts_with("ok")));
        if (!present || !all_ok) && !unreachable_now {
            visible("agents: install missing or incomplete; running .ci/agents-setup");
            let ok = Command::new("bash")
                .arg(crate_dir().join(".ci/agents-setup"))
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            assert!(ok, ".ci/agents-setup did not run");
        }
        status()
    })
}

/// The agent's command (`claude` / `codex` in target/agents/node), or None after a visible
/// SKIPPED line when the registry could not be reached. A failed install fails the test.
fn agent(name: &str) -> Option<PathBuf> {
    match installs().get(name).map(String::as_str) {
        Some(v) if v.starts_with("ok") => {
            Some(agents_dir().join("node/node_modules/.bin").join(name))
        }
        Some("unreachable") => {
            visible(&format!(
                "SKIPPED: agent {name}: the npm registry could not be reached; \
                 run .ci/agents-setup (it installs into target/agents/) and rerun"
            ));
            None
        }
        other => panic!(
            "agent {name} not installed: {other:?} (see target/agents/node.log; run .ci/agents-setup)"
        ),
    }
}

/// A child process killed however the test ends.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A fresh directory for one test's run: `target/agents/runs/<name>/`, with `home/` and
/// `work/` (the agent's HOME and working directory).
fn run_dir(name: &str) -> PathBuf {
    let dir = agents_dir().join("runs").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("home")).unwrap();
    std::fs::create_dir_all(dir.join("work")).unwrap();
    dir
}

/// Something unique to look for in the agent's output and the request log.
fn token(what: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{what}-{}-{nanos}", std::process::id())
}

/// Starts tests/agents/fake_server.py (`api`: chat, messages or responses) making `call`
/// on its first turn, logging to `dir/upstream.jsonl`; returns it and its base URL.
fn start_fake(dir: &Path, api: &str, call: &Value) -> (Proc, String) {
    let mut child = Proc(
        Command::new("python3")
            .arg(crate_dir().join("tests/agents/fake_server.py"))
            .args(["--api", api, "--call", &call.to_string(), "--log"])
            .arg(dir.join("upstream.jsonl"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.join("upstream.stderr")).unwrap())
            .spawn()
            .expect("python3 runs tests/agents/fake_server.py"),
    );
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| {
            panic!(
                "fake server did not start: {line:?}; {}",
                std::fs::read_to_string(dir.join("upstream.stderr")).unwrap_or_default()
            )
        })
        .to_owned();
    (child, url)
}

/// Starts `toolstream proxy --upstream URL --content hermes --listen 127.0.0.1:0`; returns
/// it and its base URL (`http://127.0.0.1:PORT`, no `/v1`). Its stderr after the first
/// line goes to `dir/proxy.stderr`.
fn start_proxy(dir: &Path, upstream: &str) -> (Proc, String) {
    let mut child = Proc(
        Command::new(env!("CARGO_BIN_EXE_toolstream"))
            .args(["proxy", "--listen", "127.0.0.1:0", "--content", "hermes"])
            .args(["--upstream", upstream])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut stderr = BufReader::new(child.0.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("toolstream proxy: listening on ")
        .and_then(|a| a.split_whitespace().next())
        .and_then(|a| a.strip_suffix("/v1"))
        .unwrap_or_else(|| panic!("proxy did not start: {line:?}"))
        .to_owned();
    // Keep draining its stderr (a full pipe would block it).
    let mut log = std::fs::File::create(dir.join("proxy.stderr")).unwrap();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut stderr, &mut log);
    });
    (child, url)
}

/// Runs `cmd` (an agent, with its environment set) under `timeout 60`, stdin closed,
/// stdout to `dir/agent.jsonl` and stderr to `dir/agent.stderr`; returns the JSON lines
/// it printed and how long it took. The exit code is not looked at.
fn run_agent(dir: &Path, program: &Path, args: &[String], env: &[(&str, String)]) -> Vec<Value> {
    let mut cmd = Command::new("timeout");
    cmd.args(["-k", "5", "60"])
        .arg(program)
        .args(args)
        .current_dir(dir.join("work"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir.join("home"))
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("agent.jsonl")).unwrap())
        .stderr(std::fs::File::create(dir.join("agent.stderr")).unwrap());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let status = cmd.status().expect("`timeout` runs");
    visible(&format!(
        "agents: {} ran {:.1} s ({status}); output in {}",
        program.file_name().unwrap_or_default().to_string_lossy(),
        start.elapsed().as_secs_f64(),
        dir.display()
    ));
    jsonl(&dir.join("agent.jsonl"))
}

/// A file's JSON lines (lines that are not JSON skipped).
fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The text of a tool result or message content: a string, or blocks / parts with `text`.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(text_of).collect(),
        Value::Object(o) => ["text", "content", "output"]
            .iter()
            .find_map(|k| o.get(*k))
            .map(text_of)
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// Where the model requests went: the fake upstream behind the proxy (Chat Completions), or
/// a fake speaking the agent's own API.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    Proxy,
    Native,
}

/// The model requests of the request log: to `/v1/chat/completions` behind the proxy, to
/// the agent's own route (`/v1/messages`, `/v1/responses`) natively.
fn model_requests<'a>(log: &'a [Value], via: Via, native: &str) -> Vec<&'a Value> {
    let route = if via == Via::Proxy {
        "/v1/chat/completions"
    } else {
        native
    };
    log.iter()
        .filter(|r| {
            r["method"] == "POST"
                && r["path"].as_str().unwrap_or("").split('?').next() == Some(route)
        })
        .collect()
}

/// The proxy passed the agent's own route (`native`) through to the Chat upstream: it has
/// no such route yet (said first: it explains every other problem).
fn passed_through(log: &[Value], via: Via, native: &str, problems: &mut Vec<String>) {
    let passed = log
        .iter()
        .find(|r| r["path"].as_str().unwrap_or("").starts_with(native));
    if let (Via::Proxy, Some(r)) = (via, passed) {
        problems.push(format!(
            "the proxy passed {} {} through to the Chat Completions upstream (answered {}): \
             it has no {native} route yet",
            r["method"].as_str().unwrap_or("?"),
            r["path"].as_str().unwrap_or("?"),
            r["status"]
        ));
    }
}

/// Checks on the request log common to both agents; `tool` the called tool's name,
/// `native` the agent's own route, `result_in` finds the tool result in a native request.
fn check_log(
    log: &[Value],
    via: Via,
    native: &str,
    tool: &str,
    token: &str,
    result_in: fn(&Value) -> Option<String>,
    problems: &mut Vec<String>,
) {
    let model = model_requests(log, via, native);
    if model.len() != 2 {
        problems.push(format!(
            "expected 2 model requests (the call, then the answer), the upstream saw {} \
             (more means the agent rejected a reply and retried it)",
            model.len()
        ));
    }
    for (i, r) in model.iter().enumerate() {
        if r["body"]["stream"] != json!(true) {
            problems.push(format!(
                "model request {} is not streamed (`stream`: {}): an agent falls back to \
                 `stream: false` when it rejects a streamed reply",
                i + 1,
                r["body"]["stream"]
            ));
        }
    }
    let Some(first) = model.first() else {
        return;
    };
    if via == Via::Proxy {
        let declared = first["body"]["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == tool));
        if !declared {
            problems.push(format!(
                "the first Chat request does not declare a function tool named {tool}"
            ));
        }
    }
    let Some(second) = model.get(1) else {
        return;
    };
    let result = if via == Via::Proxy {
        let messages = second["body"]["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let call_id = messages.iter().find_map(|m| {
            let calls = m["tool_calls"].as_array()?;
            let c = calls.iter().find(|c| c["function"]["name"] == tool)?;
            Some(c["id"].clone())
        });
        if call_id.is_none() {
            problems.push(format!(
                "the second Chat request has no assistant message with a tool_calls entry for {tool}"
            ));
        }
        let tool_msg = messages.iter().find(|m| m["role"] == "tool");
        if let (Some(id), Some(m)) = (&call_id, tool_msg)
            && &m["tool_call_id"] != id
        {
            problems.push(format!(
                "the tool message's tool_call_id {} is not the call's id {id}",
                m["tool_call_id"]
            ));
        }
        tool_msg.map(|m| text_of(&m["content"]))
    } else {
        result_in(&second["body"])
    };
    match result {
        None => problems.push("the second model request carries no tool result".into()),
        Some(r) if !r.contains(token) => problems.push(format!(
            "the second model request's tool result does not hold {token}: {r:?}"
        )),
        Some(_) => {}
    }
}

/// Every problem found, or the test passes; the message shows where to look.
fn verdict(name: &str, dir: &Path, problems: &[String], log: &[Value], out: &[Value]) {
    if problems.is_empty() {
        return;
    }
    let mut msg = format!("{name}: {} problem(s):\n", problems.len());
    for p in problems {
        let _ = writeln!(msg, "  - {p}");
    }
    let _ = writeln!(msg, "requests the upstream saw:");
    for r in log {
        let _ = writeln!(
            msg,
            "  {} {} -> {}",
            r["method"].as_str().unwrap_or("?"),
            r["path"].as_str().unwrap_or("?"),
            r["status"]
        );
    }
    let _ = writeln!(
        msg,
        "the agent's output ({} JSON lines), last lines:",
        out.len()
    );
    for v in out.iter().rev().take(4).rev() {
        let s = v.to_string();
        let _ = writeln!(msg, "  {}", s.get(..s.len().min(600)).unwrap_or(&s));
    }
    let _ = write!(
        msg,
        "everything is in {} (agent.jsonl, agent.stderr, upstream.jsonl, proxy.stderr)",
        dir.display()
    );
    panic!("{msg}");
}

// --- Claude Code ---------------------------------------------------------------------------

fn claude_code(name: &str, via: Via) {
    let Some(claude) = agent("claude") else {
        return;
    };
    let dir = run_dir(name);
    let token = token("claude");
    let file = dir.join("work/notes.txt");
    std::fs::write(&file, format!("The secret word is {token}.\n")).unwrap();
    let path = file.to_string_lossy().into_owned();
    let call = json!({"name": "Read", "arguments": {"file_path": path}});
    let (fake, fake_url) = start_fake(
        &dir,
        if via == Via::Proxy {
            "chat"
        } else {
            "messages"
        },
        &call,
    );
    let (proxy, base) = match via {
        Via::Proxy => {
            let (p, url) = start_proxy(&dir, &format!("{fake_url}/v1"));
            (Some(p), url)
        }
        Via::Native => (None, fake_url),
    };
    let args = [
        "-p",
        &format!("Read the file {path} and tell me the secret word."),
        "--output-format",
        "stream-json",
        "--verbose",
        "--allowedTools",
        "Read",
    ]
    .map(str::to_owned);
    let env = [
        ("ANTHROPIC_BASE_URL", base),
        ("ANTHROPIC_API_KEY", "toolstream-test".to_owned()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
        ("DISABLE_TELEMETRY", "1".to_owned()),
        ("DISABLE_AUTOUPDATER", "1".to_owned()),
        ("DISABLE_ERROR_REPORTING", "1".to_owned()),
        ("CLAUDE_CODE_MAX_RETRIES", "1".to_owned()),
    ];
    let out = run_agent(&dir, &claude, &args, &env);
    drop(proxy);
    drop(fake);
    let log = jsonl(&dir.join("upstream.jsonl"));

    let mut problems = Vec::new();
    passed_through(&log, via, "/v1/messages", &mut problems);
    let blocks = |role: &str| -> Vec<Value> {
        out.iter()
            .filter(|v| v["type"] == role)
            .filter_map(|v| v["message"]["content"].as_array())
            .flatten()
            .cloned()
            .collect()
    };
    let uses: Vec<Value> = blocks("assistant")
        .into_iter()
        .filter(|b| b["type"] == "tool_use")
        .collect();
    match uses.as_slice() {
        [u] if u["name"] == "Read" && u["input"]["file_path"] == path.as_str() => {}
        _ => problems.push(format!(
            "expected one tool_use of Read with file_path {path}, got {uses:?}"
        )),
    }
    let results: Vec<Value> = blocks("user")
        .into_iter()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    let use_id = uses.first().map(|u| u["id"].clone());
    if !results.iter().any(|r| {
        Some(&r["tool_use_id"]) == use_id.as_ref()
            && text_of(&r["content"]).contains(&token)
            && r["is_error"] != true
    }) {
        problems.push(format!(
            "no tool_result for the tool_use holding {token}: {results:?}"
        ));
    }
    match out.iter().find(|v| v["type"] == "result") {
        Some(r)
            if r["is_error"] == false
                && r["result"].as_str().is_some_and(|t| t.contains(&token)) => {}
        r => problems.push(format!(
            "expected a final result without error quoting {token}, got {}",
            r.map(|r| json!({
                "is_error": r["is_error"],
                "result": r["result"],
                "api_error_status": r["api_error_status"],
            }))
            .unwrap_or_default()
        )),
    }
    let result_in = |body: &Value| -> Option<String> {
        body["messages"]
            .as_array()?
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .find(|b| b["type"] == "tool_result")
            .map(|b| text_of(&b["content"]))
    };
    check_log(
        &log,
        via,
        "/v1/messages",
        "Read",
        &token,
        result_in,
        &mut problems,
    );
    verdict(name, &dir, &problems, &log, &out);
}

/// Claude Code through `toolstream proxy` (`POST /v1/messages`) over a Chat upstream whose
/// model leaks a `Read` call as Hermes text.
#[test]
fn claude_code_through_the_proxy() {
    claude_code("claude_code_through_the_proxy", Via::Proxy);
}

/// The same agent and checks against a fake Messages server: the harness works.
#[test]
fn claude_code_native_fake() {
    claude_code("claude_code_native_fake", Via::Native);
}

// --- Codex ---------------------------------------------------------------------------------

fn codex(name: &str, via: Via) {
    let Some(codex) = agent("codex") else {
        return;
    };
    let dir = run_dir(name);
    let token = token("codex");
    let command = format!("echo {token}");
    let call = json!({"name": "exec_command", "arguments": {"cmd": command}});
    let (fake, fake_url) = start_fake(
        &dir,
        if via == Via::Proxy {
            "chat"
        } else {
            "responses"
        },
        &call,
    );
    let (proxy, base) = match via {
        Via::Proxy => {
            let (p, url) = start_proxy(&dir, &format!("{fake_url}/v1"));
            (Some(p), url)
        }
        Via::Native => (None, fake_url),
    };
    let codex_home = dir.join("home/.codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(codex_home.join("config.toml"), codex_config(&base)).unwrap();
    let args = [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        &format!("Run `{command}` in the shell and tell me what it printed."),
    ]
    .map(str::to_owned);
    let env = [
        ("CODEX_HOME", codex_home.to_string_lossy().into_owned()),
        ("TOOLSTREAM_AGENT_KEY", "toolstream-test".to_owned()),
    ];
    let out = run_agent(&dir, &codex, &args, &env);
    drop(proxy);
    drop(fake);
    let log = jsonl(&dir.join("upstream.jsonl"));

    let mut problems = Vec::new();
    passed_through(&log, via, "/v1/responses", &mut problems);
    let completed = |kind: &str| -> Vec<&Value> {
        out.iter()
            .filter(|v| v["type"] == "item.completed" && v["item"]["type"] == kind)
            .map(|v| &v["item"])
            .collect()
    };
    let runs = completed("command_execution");
    if !runs.iter().any(|i| {
        i["command"].as_str().is_some_and(|c| c.contains(&command))
            && i["aggregated_output"]
                .as_str()
                .is_some_and(|o| o.contains(&token))
            && i["exit_code"] == 0
    }) {
        problems.push(format!(
            "no completed command_execution of `{command}` printing {token}: {runs:?}"
        ));
    }
    let said = completed("agent_message");
    if !said
        .iter()
        .any(|i| i["text"].as_str().is_some_and(|t| t.contains(&token)))
    {
        problems.push(format!("no agent_message quoting {token}: {said:?}"));
    }
    if !out.iter().any(|v| v["type"] == "turn.completed")
        || out.iter().any(|v| v["type"] == "turn.failed")
    {
        problems.push("expected turn.completed and no turn.failed".into());
    }
    let result_in = |body: &Value| -> Option<String> {
        body["input"]
            .as_array()?
            .iter()
            .find(|i| i["type"] == "function_call_output")
            .map(|i| text_of(&i["output"]))
    };
    check_log(
        &log,
        via,
        "/v1/responses",
        "exec_command",
        &token,
        result_in,
        &mut problems,
    );
    verdict(name, &dir, &problems, &log, &out);
}

/// Codex's config.toml: a `model_providers` entry speaking the Responses API to `base`,
/// no retries (a refused request fails at once), no plugins, apps, analytics or update
/// check (nothing to reach offline).
fn codex_config(base: &str) -> String {
    format!(
        r#"model = "toolstream-test-model"
model_provider = "toolstream"
check_for_update_on_startup = false

[model_providers.toolstream]
name = "toolstream"
base_url = "{base}/v1"
wire_api = "responses"
env_key = "TOOLSTREAM_AGENT_KEY"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false

[features]
plugins = false
remote_plugin = false
apps = false

[analytics]
enabled = false
"#
    )
}

/// Codex through `toolstream proxy` (`POST /v1/responses`) over a Chat upstream whose model
/// leaks an `exec_command` call as Hermes text.
#[test]
fn codex_through_the_proxy() {
    codex("codex_through_the_proxy", Via::Proxy);
}

/// The same agent and checks against a fake Responses server: the harness works.
#[test]
fn codex_native_fake() {
    codex("codex_native_fake", Via::Native);
}

// --- The harness's upstream half, without an agent -------------------------------------------

/// POSTs `body` to `base` + `path` (HTTP/1.0: the reply is not chunked); returns the
/// reply.
fn post(base: &str, path: &str, body: &Value) -> String {
    use std::io::Read;
    let addr = base.strip_prefix("http://").unwrap();
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    write!(
        s,
        "POST {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    reply
}

/// The fake Chat upstream behind the proxy's existing `/v1/chat/completions`, fed the two
/// requests a translating front should send for Claude Code's turn (needs no agent): the
/// leaked Hermes call comes out repaired as `tool_calls`, the answer quotes the tool's
/// result, and the request-log checks the agent tests use pass.
#[test]
fn the_upstream_half_through_the_proxy_chat_route() {
    let dir = run_dir("the_upstream_half_through_the_proxy_chat_route");
    let token = token("upstream");
    let call = json!({"name": "Read", "arguments": {"file_path": "/abs/notes.txt"}});
    let (fake, fake_url) = start_fake(&dir, "chat", &call);
    let (proxy, base) = start_proxy(&dir, &format!("{fake_url}/v1"));
    let tools = json!([{"type": "function", "function": {
        "name": "Read",
        "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}}}
    }}]);
    let user = json!({"role": "user", "content": "Read /abs/notes.txt"});
    let first = post(
        &base,
        "/v1/chat/completions",
        &json!({"model": "m", "stream": true, "messages": [user], "tools": tools}),
    );
    assert!(first.contains(r#""name":"Read""#), "{first}");
    assert!(first.contains(r#""finish_reason":"tool_calls""#), "{first}");
    assert!(!first.contains("<tool_call>"), "{first}");
    let assistant = json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "Read", "arguments": "{\"file_path\": \"/abs/notes.txt\"}"}
    }]});
    let result =
        json!({"role": "tool", "tool_call_id": "call_1", "content": format!("1\t{token}\n")});
    let second = post(
        &base,
        "/v1/chat/completions",
        &json!({"model": "m", "stream": true, "messages": [user, assistant, result], "tools": tools}),
    );
    let text: String = second
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.strip_prefix("data: ")?).ok())
        .filter_map(|c| {
            c["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert!(text.contains(&token), "{second}");
    drop(proxy);
    drop(fake);
    let log = jsonl(&dir.join("upstream.jsonl"));
    let mut problems = Vec::new();
    passed_through(&log, Via::Proxy, "/v1/messages", &mut problems);
    check_log(
        &log,
        Via::Proxy,
        "/v1/messages",
        "Read",
        &token,
        |_| None,
        &mut problems,
    );
    verdict("the upstream half", &dir, &problems, &log, &[]);
}
