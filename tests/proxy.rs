//! `toolstream::proxy` in process on 127.0.0.1, against fake upstreams of this file (raw
//! TCP, so they can tell exactly how many bytes they wrote before the proxy closed the
//! connection), read by the OpenAI Python SDK (installed by `.ci/clients-setup` into
//! `target/clients/venv`, see tests/clients.rs), by the OpenAI Node SDK, the Vercel AI SDK,
//! LangChain and LiteLLM (tests/clients/proxy_clients.{mjs,py}, same installs) and by
//! reqwest.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolstream::Format;
use toolstream::proxy::{Proxy, ProxyConfig};

#[path = "../benches/support/workloads.rs"]
mod workloads;
use workloads::{Shape, generator};

/// Says something cargo's output capture does not swallow.
fn visible(msg: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

/// One step of a fake upstream's reply.
#[derive(Clone, Debug)]
enum Step {
    Send(Vec<u8>),
    Pause(u64),
}

/// What a fake upstream saw of one request.
#[derive(Clone, Debug, Default)]
struct Seen {
    /// The request's head (lower-cased) and body.
    head: String,
    body: Vec<u8>,
    /// Reply body bytes written (the head not counted).
    written: usize,
    /// The whole reply body's size.
    total: usize,
    /// The proxy closed the connection before the reply was all written.
    closed_early: bool,
    /// Time from the request to the close (or the end).
    elapsed: Duration,
}

type Reply = Arc<dyn Fn(&Value) -> (String, Vec<Step>) + Send + Sync>;

/// A fake upstream on 127.0.0.1: answers each request with `reply(request body)` (a head
/// and body steps, `Connection: close`), and records what it saw.
struct Upstream {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Upstream {
    async fn start(reply: Reply) -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let reply = Arc::clone(&reply);
                let log = Arc::clone(&log);
                tokio::spawn(async move {
                    if let Some(s) = serve_one(socket, reply).await {
                        log.lock().unwrap().push(s);
                    }
                });
            }
        });
        Upstream { addr, seen }
    }

    /// The same over TLS: each connection is accepted by `tls` first.
    async fn start_tls(reply: Reply, tls: tokio_rustls::TlsAcceptor) -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (reply, log, tls) = (Arc::clone(&reply), Arc::clone(&log), tls.clone());
                tokio::spawn(async move {
                    // A client that refuses the certificate ends the handshake.
                    let Ok(socket) = tls.accept(socket).await else {
                        return;
                    };
                    if let Some(s) = serve_one(socket, reply).await {
                        log.lock().unwrap().push(s);
                    }
                });
            }
        });
        Upstream { addr, seen }
    }

    fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Waits (at most 5 s) until `n` requests are recorded.
    async fn seen(&self, n: usize) -> Vec<Seen> {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            let s = self.seen.lock().unwrap().clone();
            if s.len() >= n {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the fake upstream saw fewer than {n} requests");
    }
}

async fn serve_one<S>(mut socket: S, reply: Reply) -> Option<Seen>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
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
    let body = buf[head_end..].to_vec();
    let start = Instant::now();
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (reply_head, steps) = reply(&request);
    let total = steps
        .iter()
        .map(|s| match s {
            Step::Send(b) => b.len(),
            Step::Pause(_) => 0,
        })
        .sum();
    let mut seen = Seen {
        head,
        body,
        total,
        ..Seen::default()
    };
    socket.write_all(reply_head.as_bytes()).await.ok()?;
    let (mut rd, mut wr) = tokio::io::split(socket);
    // The proxy closing its side shows as end of file here.
    let closed = tokio::spawn(async move {
        let mut b = [0u8; 64];
        loop {
            match rd.read(&mut b).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    });
    for step in steps {
        if closed.is_finished() {
            seen.closed_early = true;
            break;
        }
        match step {
            Step::Send(bytes) => {
                if wr.write_all(&bytes).await.is_err() {
                    seen.closed_early = true;
                    break;
                }
                seen.written += bytes.len();
            }
            // In slices, so a close during a long pause is seen when it happens.
            Step::Pause(ms) => {
                let until = Instant::now() + Duration::from_millis(ms);
                while Instant::now() < until && !closed.is_finished() {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
        }
    }
    seen.elapsed = start.elapsed();
    closed.abort();
    // A clean end (over TLS, its close_notify: without it the reply is cut short).
    if !seen.closed_early {
        let _ = wr.shutdown().await;
    }
    Some(seen)
}

const SSE_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
const JSON_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n";

/// An OpenAI chunk whose delta is `delta`.
fn chunk(delta: Value, finish: Option<&str>) -> Vec<u8> {
    let c = json!({"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1,
        "model": "up-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {c}\n\n").into_bytes()
}

/// An OpenAI stream that leaks `text` into `content`, `piece` bytes (on char boundaries)
/// per chunk, `pause` ms apart.
fn leaked_stream(text: &str, piece: usize, pause: u64) -> Vec<Step> {
    let mut steps = vec![Step::Send(chunk(
        json!({"role": "assistant", "content": ""}),
        None,
    ))];
    let mut rest = text;
    while !rest.is_empty() {
        let mut n = piece.min(rest.len());
        while !rest.is_char_boundary(n) {
            n += 1;
        }
        let (p, r) = rest.split_at(n);
        steps.push(Step::Send(chunk(json!({"content": p}), None)));
        if pause > 0 {
            steps.push(Step::Pause(pause));
        }
        rest = r;
    }
    steps.push(Step::Send(chunk(json!({}), Some("stop"))));
    steps.push(Step::Send(b"data: [DONE]\n\n".to_vec()));
    steps
}

/// A non-streamed reply whose message content is `text`.
fn leaked_whole(text: &str) -> Vec<Step> {
    let r = json!({"id": "chatcmpl-up", "object": "chat.completion", "created": 1,
        "model": "up-model", "choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": text}}]});
    vec![Step::Send(r.to_string().into_bytes())]
}

async fn start_proxy(config: ProxyConfig) -> SocketAddr {
    let proxy = Proxy::bind("127.0.0.1:0".parse().unwrap(), config)
        .await
        .unwrap();
    let addr = proxy.local_addr().unwrap();
    tokio::spawn(proxy.run());
    addr
}

fn weather_tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
        {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object",
            "properties": {"zone": {"type": "string"}}}}}
    ])
}

fn samples(name: &str) -> String {
    std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("samples")
            .join(name),
    )
    .unwrap()
}

fn python() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/clients/venv/bin/python");
    p.exists().then_some(p)
}

/// The OpenAI Python SDK's view of one completion through the proxy: calls (name and
/// parsed arguments), content and finish reason.
const SDK_SCRIPT: &str = r#"
import json, sys, openai
base, tools, stream = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "1"
client = openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0, timeout=20)
kw = dict(model="m", messages=[{"role": "user", "content": "hi"}], tools=tools)
out = {}
try:
    if stream:
        calls, content, finish = {}, "", None
        for ch in client.chat.completions.create(stream=True, **kw):
            if not ch.choices:
                continue
            c = ch.choices[0]
            d = c.delta
            content += d.content or ""
            for tc in d.tool_calls or []:
                e = calls.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
                if tc.id: e["id"] = tc.id
                if tc.function and tc.function.name: e["name"] += tc.function.name
                if tc.function and tc.function.arguments: e["arguments"] += tc.function.arguments
            finish = c.finish_reason or finish
        out["calls"] = [{"id": v["id"], "name": v["name"], "arguments": json.loads(v["arguments"])}
                        for _, v in sorted(calls.items())]
        out["content"], out["finish"] = content, finish
    else:
        r = client.chat.completions.create(stream=False, **kw)
        m = r.choices[0].message
        out["calls"] = [{"id": t.id, "name": t.function.name, "arguments": json.loads(t.function.arguments)}
                        for t in m.tool_calls or []]
        out["content"], out["finish"] = m.content or "", r.choices[0].finish_reason
except openai.APIStatusError as e:
    out["status_error"] = {"status": e.status_code, "body": e.body}
except openai.APIError as e:
    out["api_error"] = str(e)
print(json.dumps(out))
"#;

/// Runs the SDK against the proxy; `None` (a visible SKIPPED line) without the venv.
async fn sdk(addr: SocketAddr, tools: &Value, stream: bool) -> Option<Value> {
    let Some(py) = python() else {
        visible("SKIPPED: OpenAI Python SDK not installed (run .ci/clients-setup)");
        return None;
    };
    let args = [
        "-c".to_owned(),
        SDK_SCRIPT.to_owned(),
        format!("http://{addr}/v1"),
        tools.to_string(),
        if stream { "1" } else { "0" }.to_owned(),
    ];
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(py).args(args).output().unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "sdk: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// The visible text the parser itself makes of `leaked` (what the client's `content` must be).
/// The library's calls (name, arguments) and visible text for `leaked` in `format`, with
/// `tools` declared.
fn oracle(format: Format, leaked: &str, tools: &Value) -> (Vec<(String, Value)>, String) {
    let tools = toolstream::Tools::from_value(tools).unwrap();
    let mut p =
        toolstream::Parser::with_config(format, toolstream::ParserConfig::new().tools(tools));
    let mut events = Vec::new();
    p.feed(leaked.as_bytes(), &mut events).unwrap();
    p.finish(&mut events).unwrap();
    let mut calls = Vec::new();
    let mut text = String::new();
    for e in &events {
        match e {
            toolstream::Event::Text { delta } => text.push_str(delta),
            toolstream::Event::ToolCallEnd {
                name, arguments, ..
            } => calls.push((name.clone(), arguments.clone())),
            toolstream::Event::Error { .. } => panic!("{format}: {e:?} in {leaked}"),
            _ => {}
        }
    }
    (calls, text)
}

fn oracle_text(format: Format, leaked: &str) -> String {
    let tools = toolstream::Tools::from_value(&weather_tools()).unwrap();
    let mut p =
        toolstream::Parser::with_config(format, toolstream::ParserConfig::new().tools(tools));
    let mut events = Vec::new();
    p.feed(leaked.as_bytes(), &mut events).unwrap();
    p.finish(&mut events).unwrap();
    events
        .iter()
        .filter_map(|e| match e {
            toolstream::Event::Text { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

fn names_and_args(v: &Value) -> Vec<(String, Value)> {
    v["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_owned(),
                c["arguments"].clone(),
            )
        })
        .collect()
}

/// Each leaked raw-text syntax, streamed and not, through the proxy: the SDK gets
/// `tool_calls` with the right names and typed arguments, and the text around them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_gets_tool_calls_leaked_as_text() {
    let paris = json!({"city": "Paris", "days": 3});
    let cases = [
        (
            Format::Hermes,
            "hermes.txt",
            vec![("get_weather".to_owned(), paris.clone())],
        ),
        (
            Format::QwenXml,
            "qwen-xml.txt",
            vec![("get_weather".to_owned(), paris.clone())],
        ),
        (
            Format::LlamaPythonic,
            "llama-pythonic.txt",
            vec![
                ("get_weather".to_owned(), paris.clone()),
                ("get_time".to_owned(), json!({"zone": "Europe/Paris"})),
            ],
        ),
    ];
    for (format, file, want) in cases {
        let leaked = samples(file);
        let text = oracle_text(format, &leaked);
        let reply: Reply = Arc::new(move |req: &Value| {
            if req["stream"] == json!(true) {
                (SSE_HEAD.to_owned(), leaked_stream(&leaked, 7, 0))
            } else {
                (JSON_HEAD.to_owned(), leaked_whole(&leaked))
            }
        });
        let upstream = Upstream::start(reply).await;
        let addr = start_proxy(ProxyConfig::new(upstream.url()).content_format(format)).await;
        for stream in [true, false] {
            let Some(got) = sdk(addr, &weather_tools(), stream).await else {
                return;
            };
            assert_eq!(names_and_args(&got), want, "{file} stream={stream}: {got}");
            assert_eq!(got["finish"], "tool_calls", "{file} stream={stream}");
            assert_eq!(got["content"], text, "{file} stream={stream}");
            for c in got["calls"].as_array().unwrap() {
                assert!(c["id"].as_str().is_some_and(|id| !id.is_empty()));
            }
        }
        let seen = upstream.seen(2).await;
        // The request went up as the client sent it, its key included.
        assert!(
            seen[0]
                .head
                .starts_with("post /v1/chat/completions http/1.1")
        );
        assert!(seen[0].head.contains("authorization: bearer sk-test"));
        let sent: Value = serde_json::from_slice(&seen[0].body).unwrap();
        assert_eq!(sent["tools"], weather_tools());
    }
}

/// An upstream that sends proper `tool_calls`: the SDK gets them unchanged, with the
/// provider's call id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sdk_gets_proper_tool_calls() {
    let body = samples("openai-chat.sse");
    let reply: Reply = Arc::new(move |_| {
        (
            SSE_HEAD.to_owned(),
            vec![Step::Send(body.clone().into_bytes())],
        )
    });
    let upstream = Upstream::start(reply).await;
    let addr = start_proxy(ProxyConfig::new(upstream.url())).await;
    let Some(got) = sdk(addr, &weather_tools(), true).await else {
        return;
    };
    assert_eq!(
        names_and_args(&got),
        [(
            "get_weather".to_owned(),
            json!({"city": "Paris", "days": 3})
        )]
    );
    assert_eq!(got["calls"][0]["id"], "call_sample_1");
    assert_eq!(got["content"], "Let me check the weather.");
    assert_eq!(got["finish"], "tool_calls");
}

async fn post(addr: SocketAddr, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("http://{addr}/v1/chat/completions"))
        .header("authorization", "Bearer sk-test")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

/// The `delta.content` of every chunk of an SSE body, joined.
fn sse_content(body: &str) -> String {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect()
}

/// Where in the upstream's body (bytes) the chunk that completes `needle` ends.
fn settle_offset(steps: &[Step], needle: &str) -> usize {
    let mut seen_text = String::new();
    let mut offset = 0;
    for s in steps {
        if let Step::Send(b) = s {
            offset += b.len();
            let v: Value = std::str::from_utf8(b)
                .ok()
                .and_then(|t| t.strip_prefix("data: "))
                .and_then(|t| serde_json::from_str(t.trim()).ok())
                .unwrap_or(Value::Null);
            seen_text.push_str(v["choices"][0]["delta"]["content"].as_str().unwrap_or(""));
            if seen_text.contains(needle) {
                return offset;
            }
        }
    }
    panic!("{needle} not in the stream");
}

/// A leaked call to an undeclared tool: the proxy closes the upstream connection within a
/// chunk of the name settling; the client gets the text before it, no call, a clear error
/// and a clean ending.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undeclared_tool_cancels_the_upstream() {
    let mut text = String::from(
        "I'll do that.\n<tool_call>\n{\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/\"}}\n</tool_call>",
    );
    text.push_str(&" and much more the model would have said".repeat(50));
    let steps = leaked_stream(&text, 6, 15);
    // The name settles at its closing quote.
    let settle = settle_offset(&steps, "\"rm_rf\"");
    let piece = chunk(json!({"content": "xxxxxx"}), None).len();
    let script = steps.clone();
    let upstream = Upstream::start(Arc::new(move |_| (SSE_HEAD.to_owned(), script.clone()))).await;
    let addr = start_proxy(ProxyConfig::new(upstream.url()).content_format(Format::Hermes)).await;
    let started = Instant::now();
    let response = post(
        addr,
        &json!({"model": "m", "stream": true, "messages": [], "tools": weather_tools()}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let body = response.text().await.unwrap();
    let client_time = started.elapsed();
    let seen = upstream.seen(1).await;
    let s = &seen[0];
    visible(&format!(
        "undeclared tool: upstream wrote {} of {} body bytes (name settled at byte {settle}, one chunk ~{piece} B); closed after {:?}; client done after {client_time:?}",
        s.written, s.total, s.elapsed
    ));
    assert!(s.closed_early, "the upstream was not cut off: {s:?}");
    // The chunk that settled the name, and at most one more written while the close
    // travelled.
    assert!(
        s.written <= settle + 2 * piece,
        "{} > {settle} + 2 * {piece}",
        s.written
    );
    assert!(s.written >= settle);
    // The text before the call, its line break included (the model's bytes), then the
    // refusal told as text (--on-refused text, the default): an agent never ends with
    // empty output.
    assert_eq!(
        sse_content(&body),
        "I'll do that.\ntoolstream: call to rm_rf refused: not among the request's tools",
        "{body}"
    );
    assert!(!body.contains("\"tool_calls\""), "{body}");
    assert!(!body.contains("much more"), "{body}");
    assert!(
        body.contains("undeclared_tool") && body.contains("rm_rf"),
        "{body}"
    );
    assert!(body.contains("\"finish_reason\":\"stop\""), "{body}");
    assert!(body.trim_end().ends_with("data: [DONE]"), "{body}");
}

/// `parallel_tool_calls: false` and a second proper call: the first goes out, the second
/// is refused at its name and the upstream cut off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn second_call_refused_without_parallel_calls() {
    let call = |i: usize, id: &str, name: &str| {
        chunk(
            json!({"tool_calls": [{"index": i, "id": id, "type": "function",
                "function": {"name": name, "arguments": ""}}]}),
            None,
        )
    };
    let args = |i: usize, a: &str| {
        chunk(
            json!({"tool_calls": [{"index": i, "function": {"arguments": a}}]}),
            None,
        )
    };
    let mut steps = vec![
        Step::Send(call(0, "c1", "get_weather")),
        Step::Send(args(0, "{\"city\": \"Paris\"}")),
        Step::Pause(20),
        Step::Send(call(1, "c2", "get_time")),
        Step::Pause(20),
    ];
    for _ in 0..40 {
        steps.push(Step::Send(args(1, "{\"zone\"")));
        steps.push(Step::Pause(10));
    }
    let total_before_second: usize = [
        call(0, "c1", "get_weather"),
        args(0, "{\"city\": \"Paris\"}"),
        call(1, "c2", "get_time"),
    ]
    .iter()
    .map(Vec::len)
    .sum();
    let upstream = Upstream::start(Arc::new(move |_| (SSE_HEAD.to_owned(), steps.clone()))).await;
    let addr = start_proxy(ProxyConfig::new(upstream.url())).await;
    let body = post(
        addr,
        &json!({"model": "m", "stream": true, "messages": [], "tools": weather_tools(),
            "parallel_tool_calls": false}),
    )
    .await
    .text()
    .await
    .unwrap();
    let s = &upstream.seen(1).await[0];
    visible(&format!(
        "parallel_tool_calls false: upstream wrote {} of {} bytes (second name at byte {total_before_second})",
        s.written, s.total
    ));
    assert!(s.closed_early, "{s:?}");
    assert!(s.written <= total_before_second + 2 * args(1, "{\"zone\"").len());
    assert!(body.contains("\"name\":\"get_weather\""), "{body}");
    assert!(!body.contains("\"name\":\"get_time\""), "{body}");
    assert!(
        body.contains("limit_exceeded") && body.contains("parallel_tool_calls"),
        "{body}"
    );
    assert!(body.contains("\"finish_reason\":\"tool_calls\""), "{body}");
    assert!(body.trim_end().ends_with("data: [DONE]"), "{body}");
}

/// A client that goes away mid-stream closes the upstream connection at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_disconnect_closes_the_upstream() {
    let text = "just text, nothing else, for a long while. ".repeat(40);
    let steps = leaked_stream(&text, 8, 10);
    let upstream = Upstream::start(Arc::new(move |_| (SSE_HEAD.to_owned(), steps.clone()))).await;
    let addr = start_proxy(ProxyConfig::new(upstream.url()).content_format(Format::Hermes)).await;
    let mut response = post(addr, &json!({"model": "m", "stream": true, "messages": []})).await;
    let mut got = 0;
    while got < 200 {
        got += response.chunk().await.unwrap().unwrap().len();
    }
    let dropped = Instant::now();
    drop(response);
    let s = &upstream.seen(1).await[0];
    visible(&format!(
        "client disconnect: upstream closed {:?} after the client left; wrote {} of {} bytes",
        dropped.elapsed(),
        s.written,
        s.total
    ));
    assert!(s.closed_early, "{s:?}");
    assert!(s.written < s.total / 2, "{s:?}");
}

/// A non-2xx reply passes through: status, headers and body as the upstream sent them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_429_passes_through() {
    let error = r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#;
    let head = "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 7\r\nconnection: close\r\n\r\n";
    let upstream = Upstream::start(Arc::new(move |_| {
        (head.to_owned(), vec![Step::Send(error.as_bytes().to_vec())])
    }))
    .await;
    let addr = start_proxy(ProxyConfig::new(upstream.url()).content_format(Format::Hermes)).await;
    let response = post(addr, &json!({"model": "m", "stream": true, "messages": []})).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "7");
    assert_eq!(response.text().await.unwrap(), error);
    if let Some(got) = sdk(addr, &weather_tools(), true).await {
        assert_eq!(got["status_error"]["status"], 429, "{got}");
        assert_eq!(
            got["status_error"]["body"]["code"], "rate_limit_exceeded",
            "{got}"
        );
    }
}

/// A chat request whose `tools` cannot be read is refused with 400 and OpenAI's
/// `invalid_request_error` naming `tools`; the upstream never sees it (it sees only the
/// good request sent after them all).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_tools_are_refused_before_the_upstream() {
    let upstream = Upstream::start(Arc::new(|_| {
        (
            SSE_HEAD.to_owned(),
            leaked_stream(
                "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>",
                8,
                0,
            ),
        )
    }))
    .await;
    let addr = start_proxy(ProxyConfig::new(upstream.url()).content_format(Format::Hermes)).await;
    let tool =
        |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {}}});
    let many: Vec<Value> = (0..=toolstream::MAX_TOOLS_NAMES)
        .map(|i| json!({"name": format!("t{i}")}))
        .collect();
    let cases = [
        (json!([tool("ls"), tool("ls")]), "declared twice"),
        (json!("ls"), "a string"),
        (json!({"name": "ls"}), "an object"),
        (
            json!([{"type": "function", "function": {"parameters": {}}}]),
            "no \"name\"",
        ),
        (Value::Array(many), "the limit"),
    ];
    for (tools, says) in &cases {
        for stream in [true, false] {
            let body = json!({"model": "m", "stream": stream, "messages": [], "tools": tools});
            let response = post(addr, &body).await;
            assert_eq!(response.status(), 400, "{says}");
            let v: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
            assert_eq!(v["error"]["type"], "invalid_request_error", "{v}");
            assert_eq!(v["error"]["param"], "tools", "{v}");
            assert_eq!(v["error"]["code"], "invalid_tools", "{v}");
            let message = v["error"]["message"].as_str().unwrap();
            assert!(message.contains(says), "{says}: {message}");
        }
    }
    if let Some(got) = sdk(addr, &json!([tool("ls"), tool("ls")]), true).await {
        assert_eq!(got["status_error"]["status"], 400, "{got}");
        assert_eq!(got["status_error"]["body"]["param"], "tools", "{got}");
    }
    // Then a good request: the first and only one the upstream sees.
    let good = json!({"model": "m", "stream": true, "messages": [], "tools": [tool("get_time")]});
    let response = post(addr, &good).await;
    assert_eq!(response.status(), 200);
    let reply = response.text().await.unwrap();
    assert!(reply.contains("get_time"), "{reply}");
    let seen = upstream.seen(1).await;
    assert_eq!(seen.len(), 1, "{seen:?}");
    let sent: Value = serde_json::from_slice(&seen[0].body).unwrap();
    assert_eq!(sent, good);
}

/// Nothing listens upstream: 502 with an OpenAI-style error the SDK raises.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_refused_is_a_502() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let addr = start_proxy(ProxyConfig::new(format!("http://127.0.0.1:{port}"))).await;
    let response = post(addr, &json!({"model": "m", "stream": true, "messages": []})).await;
    assert_eq!(response.status(), 502);
    let v: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(v["error"]["code"], "upstream_unreachable");
    let message = v["error"]["message"].as_str().unwrap().to_ascii_lowercase();
    assert!(message.contains("refused"), "{message}");
    if let Some(got) = sdk(addr, &weather_tools(), true).await {
        assert_eq!(got["status_error"]["status"], 502, "{got}");
    }
}

/// A reply cut off mid-call, and one that stalls past the upstream timeout: the client's
/// stream ends in an error, never in a clean reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cut_and_stalled_replies_end_in_errors() {
    let text = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Pa";
    let mut cut = leaked_stream(text, 8, 0);
    cut.truncate(cut.len() - 2); // no finish chunk, no [DONE]
    let mut stalled = cut.clone();
    stalled.push(Step::Pause(3_000));
    let upstream = Upstream::start(Arc::new(move |req: &Value| {
        let steps = if req["messages"][0] == "stall" {
            stalled.clone()
        } else {
            cut.clone()
        };
        (SSE_HEAD.to_owned(), steps)
    }))
    .await;
    let config = ProxyConfig::new(upstream.url())
        .content_format(Format::Hermes)
        .upstream_timeout(Duration::from_millis(300));
    let addr = start_proxy(config).await;
    let body = post(
        addr,
        &json!({"model": "m", "stream": true, "messages": ["cut"],
        "tools": weather_tools()}),
    )
    .await
    .text()
    .await
    .unwrap();
    assert!(body.contains("truncated"), "{body}");
    let started = Instant::now();
    let body = post(
        addr,
        &json!({"model": "m", "stream": true, "messages": ["stall"],
        "tools": weather_tools()}),
    )
    .await
    .text()
    .await
    .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(body.contains("sent nothing for 0.3 s"), "{body}");
}

/// Other `/v1` routes pass through; a too-large body is refused; other paths are 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_routes_and_bounds() {
    let models = r#"{"object":"list","data":[{"id":"m","object":"model"}]}"#;
    let upstream = Upstream::start(Arc::new(move |_| {
        (
            JSON_HEAD.to_owned(),
            vec![Step::Send(models.as_bytes().to_vec())],
        )
    }))
    .await;
    let addr = start_proxy(ProxyConfig::new(upstream.url()).max_body_bytes(1000)).await;
    let client = reqwest::Client::new();
    let response = client
        .get(format!("http://{addr}/v1/models?limit=1"))
        .header("authorization", "Bearer sk-x")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), models);
    let seen = upstream.seen(1).await;
    assert!(
        seen[0].head.starts_with("get /v1/models?limit=1 http/1.1"),
        "{}",
        seen[0].head
    );
    assert!(seen[0].head.contains("authorization: bearer sk-x"));
    let big = json!({"model": "m", "messages": ["x".repeat(2000)]});
    let response = post(addr, &big).await;
    assert_eq!(response.status(), 413);
    let v: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(v["error"]["code"], "request_too_large");
    let response = client
        .get(format!("http://{addr}/live.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    // Neither refused request reached the upstream.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(upstream.seen.lock().unwrap().len(), 1);
}

/// The command: a `--syntax` file that cannot be read is refused with 2; `--listen
/// 127.0.0.1:0` prints the address and serves a repaired stream from a leaking upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxy_command() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let bin = env!("CARGO_BIN_EXE_toolstream");
    let out = Command::new(bin)
        .args([
            "proxy",
            "--upstream",
            "http://127.0.0.1:9",
            "--syntax",
            "x.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read --syntax x.json"));
    let leaked = samples("hermes.txt");
    let upstream = Upstream::start(Arc::new(move |_| {
        (SSE_HEAD.to_owned(), leaked_stream(&leaked, 5, 0))
    }))
    .await;
    /// Kills the proxy process however the test ends.
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = Kill(
        Command::new(bin)
            .args(["proxy", "--listen", "127.0.0.1:0", "--content", "hermes"])
            .arg("--upstream")
            .arg(upstream.url())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stderr = child.0.stderr.take().unwrap();
    let line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stderr).read_line(&mut line).map(|_| line)
    })
    .await
    .unwrap()
    .unwrap();
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("toolstream proxy: listening on http://")
        .and_then(|a| a.strip_suffix("/v1"))
        .unwrap_or_else(|| panic!("{line}"))
        .parse()
        .unwrap();
    let body = post(
        addr,
        &json!({"model": "m", "stream": true, "messages": [], "tools": weather_tools()}),
    )
    .await
    .text()
    .await
    .unwrap();
    drop(child);
    assert!(body.contains(r#""name":"get_weather""#), "{body}");
    assert!(body.contains(r#""finish_reason":"tool_calls""#), "{body}");
    assert_eq!(
        sse_content(&body),
        oracle_text(Format::Hermes, &samples("hermes.txt"))
    );
}

/// A connection that sends no request headers is closed after the header read timeout,
/// and while it holds the only connection slot, the next client waits for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn header_timeout_and_connection_limit() {
    let models = r#"{"object":"list","data":[]}"#;
    let upstream = Upstream::start(Arc::new(move |_| {
        (
            JSON_HEAD.to_owned(),
            vec![Step::Send(models.as_bytes().to_vec())],
        )
    }))
    .await;
    let config = ProxyConfig::new(upstream.url())
        .max_connections(1)
        .header_read_timeout(Duration::from_millis(300));
    let addr = start_proxy(config).await;
    let started = Instant::now();
    let mut idle = TcpStream::connect(addr).await.unwrap();
    idle.write_all(b"GET /v1/models HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let client = reqwest::Client::new();
    let response = client
        .get(format!("http://{addr}/v1/models"))
        .send()
        .await
        .unwrap();
    let waited = started.elapsed();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), models);
    // The half-sent request was dropped: the proxy closed that connection.
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(2), idle.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the idle connection is still open");
    visible(&format!(
        "connection limit 1: the second client was served after {waited:?} (header read timeout 300 ms)"
    ));
    assert!(waited >= Duration::from_millis(280), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
}

/// A client that goes away while the upstream is silent (a long prefill, a stalled
/// server): hyper sees the client's connection close with nothing to write, and the proxy
/// closes the upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_disconnect_during_a_silent_upstream() {
    let mut steps = leaked_stream("Hello", 8, 0);
    steps.insert(2, Step::Pause(3_000));
    let upstream = Upstream::start(Arc::new(move |_| (SSE_HEAD.to_owned(), steps.clone()))).await;
    let addr = start_proxy(ProxyConfig::new(upstream.url())).await;
    let mut response = post(addr, &json!({"model": "m", "stream": true, "messages": []})).await;
    let first = response.chunk().await.unwrap().unwrap();
    assert!(!first.is_empty());
    let dropped = Instant::now();
    drop(response);
    let s = &upstream.seen(1).await[0];
    visible(&format!(
        "client disconnect, silent upstream: upstream closed {:?} after the client left",
        dropped.elapsed()
    ));
    assert!(s.closed_early, "{s:?}");
    assert!(s.elapsed < Duration::from_millis(1500), "{s:?}");
}

/// The request's `stream_options.include_usage` reaches the emitter: with it the usage comes
/// in OpenAI's own chunk of its own (`"choices": []`); without it, on the finish chunk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn include_usage_follows_the_request() {
    let body = samples("openai-chat.sse");
    let reply: Reply = Arc::new(move |_| {
        (
            SSE_HEAD.to_owned(),
            vec![Step::Send(body.clone().into_bytes())],
        )
    });
    let upstream = Upstream::start(reply).await;
    let addr = start_proxy(ProxyConfig::new(upstream.url())).await;
    for include in [false, true] {
        let request = json!({"model": "m", "stream": true, "tools": weather_tools(),
            "stream_options": {"include_usage": include},
            "messages": [{"role": "user", "content": "weather?"}]});
        let text = post(addr, &request).await.text().await.unwrap();
        let chunks: Vec<Value> = text
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str(d).ok())
            .collect();
        let usage_only = chunks.iter().filter(|c| c["choices"] == json!([])).count();
        let with_usage: Vec<&Value> = chunks.iter().filter(|c| c["usage"].is_object()).collect();
        assert_eq!(usage_only, usize::from(include), "{text}");
        assert_eq!(with_usage.len(), 1, "{text}");
        if !include {
            assert_eq!(with_usage[0]["choices"][0]["finish_reason"], "tool_calls");
        }
    }
}

/// One raw HTTP/1.1 request to `addr` with the `Host` header `host`: the status code and
/// the body (the reply ends with the connection).
async fn raw_get(addr: SocketAddr, path: &str, host: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut reply = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut reply))
        .await
        .unwrap()
        .unwrap();
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let status = reply
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = reply
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// The Host check: on 127.0.0.1 the proxy answers its own address literals and
/// `localhost` with its port; another name (DNS rebinding) gets 421 and nothing reaches
/// the upstream; a name given with `allow_host` is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_only_its_own_host() {
    let models = r#"{"object":"list","data":[]}"#;
    let upstream = Upstream::start(Arc::new(move |_| {
        (
            JSON_HEAD.to_owned(),
            vec![Step::Send(models.as_bytes().to_vec())],
        )
    }))
    .await;
    let addr = start_proxy(ProxyConfig::new(upstream.url())).await;
    let port = addr.port();
    for host in [
        format!("rebind.attacker.test:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        "localhost".to_owned(),
        "proxy.internal".to_owned(),
    ] {
        let (status, body) = raw_get(addr, "/v1/models", &host).await;
        assert_eq!(status, 421, "{host}: {body}");
        let v: Value = serde_json::from_str(body.trim()).unwrap_or_else(|_| panic!("{body}"));
        assert_eq!(v["error"]["code"], "misdirected_request", "{body}");
    }
    // Nothing went upstream.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(upstream.seen.lock().unwrap().len(), 0);
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LOCALHOST:{port}"),
    ] {
        let (status, body) = raw_get(addr, "/v1/models", &host).await;
        assert_eq!(status, 200, "{host}: {body}");
        assert!(body.contains(models), "{body}");
    }
    // A name given with allow_host: any port; a name with a port: that port only.
    let named = start_proxy(
        ProxyConfig::new(upstream.url())
            .allow_host("proxy.internal")
            .allow_host("gw.example:443"),
    )
    .await;
    assert_eq!(
        raw_get(named, "/v1/models", "Proxy.Internal:80").await.0,
        200
    );
    assert_eq!(raw_get(named, "/v1/models", "gw.example:443").await.0, 200);
    assert_eq!(raw_get(named, "/v1/models", "gw.example:8443").await.0, 421);
    assert_eq!(
        raw_get(named, "/v1/models", "rebind.attacker.test").await.0,
        421
    );
}

/// Reads an SSE feed until `until` holds for the text so far (at most 10 s).
async fn read_feed(response: &mut reqwest::Response, until: impl Fn(&str) -> bool) -> String {
    let mut text = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !until(&text) {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, response.chunk()).await {
            Ok(Ok(Some(b))) => text.push_str(&String::from_utf8_lossy(&b)),
            other => panic!("the feed stopped ({other:?}) before it was complete: {text}"),
        }
    }
    text
}

/// The SSE messages of a feed: (event name, data as JSON).
fn feed_messages(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter(|m| !m.trim().is_empty())
        .map(|m| {
            let mut name = "message".to_owned();
            let mut data = String::new();
            for line in m.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = n.to_owned();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data.push_str(d);
                }
            }
            (name, serde_json::from_str(&data).unwrap_or(Value::Null))
        })
        .collect()
}

/// `GET /live`: the page and its assets under a CSP allowing only this origin, and the
/// feed: a stream in flight shows its events as the client gets them (the call's name
/// before its end, offsets into the upstream body growing, times in µs), ends with its
/// outcome; a refused call's stream says `refused`; a watcher that comes later gets the
/// recent streams as they were, at most `live_recent` of them; the Host check holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_feed_shows_each_stream_as_it_forms() {
    let leaked = samples("hermes.txt");
    let upstream = Upstream::start(Arc::new(move |_| {
        (SSE_HEAD.to_owned(), leaked_stream(&leaked, 9, 2))
    }))
    .await;
    let addr = start_proxy(
        ProxyConfig::new(upstream.url())
            .content_format(Format::Hermes)
            .live_recent(2),
    )
    .await;
    let client = reqwest::Client::new();
    for (path, kind) in [
        ("/live", "text/html"),
        ("/live.js", "text/javascript"),
        ("/live.css", "text/css"),
    ] {
        let r = client
            .get(format!("http://{addr}{path}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{path}");
        let h = r.headers().clone();
        assert!(
            h["content-type"].to_str().unwrap().starts_with(kind),
            "{path}"
        );
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("script-src 'self'") && csp.contains("default-src 'none'"),
            "{csp}"
        );
        let body = r.text().await.unwrap();
        assert!(
            !body.contains("http://") && !body.contains("https://"),
            "{path}"
        );
    }
    assert_eq!(
        raw_get(
            addr,
            "/live",
            &format!("rebind.attacker.test:{}", addr.port())
        )
        .await
        .0,
        421
    );
    assert_eq!(raw_get(addr, "/live/events", "evil.test").await.0, 421);

    let mut feed = client
        .get(format!("http://{addr}/live/events"))
        .send()
        .await
        .unwrap();
    assert_eq!(feed.headers()["content-type"], "text/event-stream");
    let text = read_feed(&mut feed, |t| t.contains("event: meta")).await;
    let meta = &feed_messages(&text)[0];
    assert_eq!(meta.0, "meta");
    assert_eq!(meta.1["recent"], 2);
    assert_eq!(meta.1["content"], "hermes");

    let request =
        json!({"model": "qwen-test", "stream": true, "messages": [], "tools": weather_tools()});
    let body = post(addr, &request).await.text().await.unwrap();
    assert!(body.contains(r#""name":"get_weather""#), "{body}");
    let text = read_feed(&mut feed, |t| t.contains("event: end")).await;
    let messages = feed_messages(&text);
    let stream = messages
        .iter()
        .find(|(n, _)| n == "stream")
        .expect("a stream message");
    assert_eq!(stream.1["model"], "qwen-test");
    let mut tools: Vec<&str> = stream.1["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    tools.sort_unstable();
    assert_eq!(tools, ["get_time", "get_weather"]);
    let s = stream.1["s"].clone();
    let events: Vec<&Value> = messages
        .iter()
        .filter(|(n, v)| n == "message" && v["s"] == s)
        .map(|(_, v)| v)
        .collect();
    let start = events
        .iter()
        .position(|e| e["type"] == "tool_call_start")
        .expect("a start");
    let end = events
        .iter()
        .position(|e| e["type"] == "tool_call_end")
        .expect("an end");
    assert!(start < end);
    assert_eq!(events[start]["name"], "get_weather");
    assert!(
        events[start]["offset"].as_u64().unwrap() < events[end]["offset"].as_u64().unwrap(),
        "the name came before the arguments were all parsed"
    );
    let (mut offset, mut us) = (0, 0);
    for e in &events {
        let (o, u) = (e["offset"].as_u64().unwrap(), e["us"].as_u64().unwrap());
        assert!(o >= offset && u >= us, "offsets and times grow: {e}");
        (offset, us) = (o, u);
    }
    assert_eq!(events.last().unwrap()["type"], "finish");
    let end_msg = messages
        .iter()
        .find(|(n, v)| n == "end" && v["s"] == s)
        .unwrap();
    assert_eq!(end_msg.1["outcome"], "done");
    // The events' text is the client's: what the SDK would show as content.
    let shown: String = events
        .iter()
        .filter(|e| e["type"] == "text")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(shown, sse_content(&body));

    // A refused call: the stream's record ends `refused`, with the error the client got.
    let only_time =
        json!({"model": "m", "stream": true, "messages": [], "tools": [weather_tools()[1]]});
    let body = post(addr, &only_time).await.text().await.unwrap();
    assert!(body.contains("undeclared_tool"), "{body}");
    // (The feed so far was read above: this is what came after.)
    let text = read_feed(&mut feed, |t| t.contains("event: end")).await;
    let refused = feed_messages(&text)
        .into_iter()
        .find(|(n, _)| n == "end")
        .unwrap();
    assert_eq!(refused.1["outcome"], "refused");
    assert!(text.contains(r#""kind":"undeclared_tool""#), "{text}");
    drop(feed);

    // Two more streams: a new watcher gets the 2 most recent ones (live_recent), whole.
    for _ in 0..2 {
        post(addr, &request).await.text().await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut late = client
        .get(format!("http://{addr}/live/events"))
        .send()
        .await
        .unwrap();
    let text = read_feed(&mut late, |t| t.matches("event: end").count() >= 2).await;
    let messages = feed_messages(&text);
    let kept: Vec<&Value> = messages
        .iter()
        .filter(|(n, _)| n == "stream")
        .map(|(_, v)| &v["s"])
        .collect();
    assert_eq!(kept, [&json!(2), &json!(3)], "{text}");
    for s in [2, 3] {
        assert!(
            messages
                .iter()
                .any(|(n, v)| n == "message" && v["s"] == s && v["type"] == "tool_call_end")
        );
    }
    // Recording off: no /live.
    let off = start_proxy(ProxyConfig::new(upstream.url()).live_recent(0)).await;
    let r = client
        .get(format!("http://{off}/live"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

/// A stream's record keeps at most 64 KiB: past it, one `full` message, and the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_record_is_bounded() {
    let long = "word ".repeat(40_000);
    let upstream = Upstream::start(Arc::new(move |_| {
        (SSE_HEAD.to_owned(), leaked_stream(&long, 50, 0))
    }))
    .await;
    let addr = start_proxy(ProxyConfig::new(upstream.url()).content_format(Format::Hermes)).await;
    let body = post(addr, &json!({"model": "m", "stream": true, "messages": []}))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(sse_content(&body).len(), 200_000);
    let mut feed = reqwest::Client::new()
        .get(format!("http://{addr}/live/events"))
        .send()
        .await
        .unwrap();
    let text = read_feed(&mut feed, |t| t.contains("event: end")).await;
    assert!(text.len() < 66 * 1024, "{} bytes", text.len());
    let messages = feed_messages(&text);
    assert_eq!(messages.iter().filter(|(n, _)| n == "full").count(), 1);
    assert_eq!(messages.last().unwrap().0, "end");
}

/// Runs a client script of tests/clients/ over `manifest`; its results, or `None` when the
/// client is not installed (a visible SKIPPED line).
fn run_clients(program: &std::path::Path, script: &std::path::Path, manifest: &Value) -> Value {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("proxy-clients-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stem = script.file_name().unwrap().to_string_lossy().into_owned();
    let manifest_path = dir.join(format!("{stem}.manifest.json"));
    let out_path = dir.join(format!("{stem}.out.json"));
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let out = std::process::Command::new(program)
        .arg(script)
        .arg(&manifest_path)
        .arg(&out_path)
        .current_dir(script.parent().unwrap())
        .env("SUPPRESS_TRANSFORMATION_WARNINGS", "true")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} {}: {}",
        program.display(),
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap()
}

/// The real clients through the proxy — the OpenAI Python and Node SDKs, the Vercel AI SDK
/// (`@ai-sdk/openai-compatible`), LangChain (`ChatOpenAI.bind_tools`) and LiteLLM — against
/// fake upstreams that leak each raw-text syntax (every text format, its benchmark
/// workload: prose, reasoning for some, a `write_file` call) into `content`, streamed and
/// not: each gets the call the library reads from that text with its name and typed
/// arguments, the text around it and a tool-call finish.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_clients_get_tool_calls_leaked_as_text() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let node_dir = root.join("target/clients/node");
    let has_node = node_dir.join("node_modules/openai").exists()
        && node_dir.join("node_modules/ai").exists()
        && node_dir
            .join("node_modules/@ai-sdk/openai-compatible")
            .exists();
    let venv = python();
    let has_python = venv.as_ref().is_some_and(|p| {
        std::process::Command::new(p)
            .args(["-c", "import openai, langchain_openai, litellm"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !has_node {
        visible(
            "SKIPPED: the OpenAI Node SDK and Vercel AI SDK are not installed (run .ci/clients-setup)",
        );
    }
    if !has_python {
        visible(
            "SKIPPED: the OpenAI Python SDK, LangChain and LiteLLM are not installed (run .ci/clients-setup)",
        );
    }
    if !has_node && !has_python {
        return;
    }
    // Every raw-text syntax leaks into `content`: each format's benchmark workload (a
    // `write_file` call after prose, some with reasoning before it), small.
    let shape = Shape {
        text_deltas: 12,
        arg_len: 160,
        piece: 6,
    };
    let tools = json!([{"type": "function", "function": {"name": "write_file",
        "parameters": {"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}}}}}]);
    let mut manifest = Vec::new();
    let mut want = std::collections::BTreeMap::new();
    let mut upstreams = Vec::new();
    let text_formats: Vec<Format> = Format::all()
        .filter(|f| f.default_framing() == toolstream::Framing::Text)
        .collect();
    assert!(text_formats.len() >= 30, "{text_formats:?}");
    for format in text_formats {
        let make = generator(format).expect("every text format has a workload");
        let leaked = String::from_utf8(make(shape).body()).unwrap();
        // What the library gives for the text alone, with the same tools: the calls the
        // clients must get, and the visible text.
        let (calls, text) = oracle(format, &leaked, &tools);
        assert_eq!(calls.len(), 1, "{format}: {leaked}");
        let reply: Reply = Arc::new(move |req: &Value| {
            if req["stream"] == json!(true) {
                (SSE_HEAD.to_owned(), leaked_stream(&leaked, 7, 0))
            } else {
                (JSON_HEAD.to_owned(), leaked_whole(&leaked))
            }
        });
        let upstream = Upstream::start(reply).await;
        let addr = start_proxy(ProxyConfig::new(upstream.url()).content_format(format)).await;
        upstreams.push(upstream);
        for stream in [true, false] {
            let name = format!("{format} stream={stream}");
            manifest.push(json!({"name": name, "base": format!("http://{addr}/v1"),
                "tools": tools, "stream": stream}));
            want.insert(name, (calls.clone(), text.clone()));
        }
    }
    let manifest = Value::Array(manifest);
    let mut runs = Vec::new();
    if has_python {
        let (py, script) = (
            venv.clone().unwrap(),
            root.join("tests/clients/proxy_clients.py"),
        );
        let m = manifest.clone();
        runs.push(tokio::task::spawn_blocking(move || {
            run_clients(&py, &script, &m)
        }));
    }
    if has_node {
        // Beside node_modules, so that its imports resolve.
        let script = node_dir.join("proxy_clients.mjs");
        std::fs::copy(root.join("tests/clients/proxy_clients.mjs"), &script).unwrap();
        let m = manifest.clone();
        runs.push(tokio::task::spawn_blocking(move || {
            run_clients(std::path::Path::new("node"), &script, &m)
        }));
    }
    let mut checked = 0;
    for run in runs {
        let results = run.await.unwrap();
        for (name, (calls, text)) in &want {
            for (client, got) in results[name.as_str()].as_object().unwrap() {
                let what = format!("{client}, {name}: {got}");
                assert!(got["error"].is_null(), "{what}");
                let got_calls: Vec<(&str, &Value)> = got["calls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| (c["name"].as_str().unwrap(), &c["arguments"]))
                    .collect();
                let want_calls: Vec<(&str, &Value)> =
                    calls.iter().map(|(n, a)| (n.as_str(), a)).collect();
                assert_eq!(got_calls, want_calls, "{what}");
                // LiteLLM moves a `<think>` block at the start of a whole reply's `content`
                // into its own `reasoning_content` (the proxy passes one through as text where
                // the format has no reasoning tags: `auto`); the rest must be the text exactly.
                let moved = text
                    .strip_prefix("<think>")
                    .and_then(|rest| rest.split_once("</think>"))
                    .map(|p| p.1)
                    .filter(|_| client == "litellm" && name.ends_with("stream=false"));
                assert_eq!(got["content"], moved.unwrap_or(text.as_str()), "{what}");
                let finish = got["finish"].as_str().unwrap_or("");
                assert!(matches!(finish, "tool_calls" | "tool-calls"), "{what}");
                checked += 1;
            }
        }
    }
    visible(&format!(
        "proxy, other clients: {checked} client × syntax × streaming cases got the right tool_calls"
    ));
}

/// An `https://` upstream with a self-signed certificate (made here, for `localhost` and
/// `127.0.0.1`): refused (502, the certificate named) until its certificate is given as
/// the CA (`upstream_ca_pem`, the CLI's `--upstream-ca`); then the leaked call is repaired
/// over TLS as over plain HTTP. PEM text with no certificate is refused at bind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_upstream_with_its_ca_given() {
    use tokio_rustls::rustls;
    let made =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(made.signing_key.serialize_der().into());
    let server = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![made.cert.der().clone()], key)
    .unwrap();
    let leaked = samples("hermes.txt");
    let upstream = Upstream::start_tls(
        Arc::new(move |_| (SSE_HEAD.to_owned(), leaked_stream(&leaked, 7, 0))),
        tokio_rustls::TlsAcceptor::from(Arc::new(server)),
    )
    .await;
    let port = upstream.addr.port();
    let request = json!({"model": "m", "stream": true, "messages": [], "tools": weather_tools()});

    // Not trusted: the client gets a 502 that says why, the upstream no request.
    let untrusted = start_proxy(ProxyConfig::new(format!("https://127.0.0.1:{port}/v1"))).await;
    let r = post(untrusted, &request).await;
    assert_eq!(r.status(), 502);
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(v["error"]["code"], "upstream_unreachable");
    let message = v["error"]["message"].as_str().unwrap().to_ascii_lowercase();
    assert!(message.contains("certificate"), "{message}");
    assert_eq!(upstream.seen.lock().unwrap().len(), 0);

    // Its certificate given as the CA: by address and by name.
    for host in ["127.0.0.1", "localhost"] {
        let addr = start_proxy(
            ProxyConfig::new(format!("https://{host}:{port}/v1"))
                .content_format(Format::Hermes)
                .upstream_ca_pem(made.cert.pem()),
        )
        .await;
        let r = post(addr, &request).await;
        assert_eq!(r.status(), 200, "{host}");
        let body = r.text().await.unwrap();
        assert!(body.contains(r#""name":"get_weather""#), "{host}: {body}");
        assert!(
            body.contains(r#""finish_reason":"tool_calls""#),
            "{host}: {body}"
        );
        assert_eq!(
            sse_content(&body),
            oracle_text(Format::Hermes, &samples("hermes.txt"))
        );
    }
    let seen = upstream.seen(2).await;
    assert!(seen[0].head.contains("authorization: bearer sk-test"));

    let bad = Proxy::bind(
        "127.0.0.1:0".parse().unwrap(),
        ProxyConfig::new("https://127.0.0.1:1").upstream_ca_pem("not a certificate"),
    )
    .await
    .expect_err("PEM text without a certificate is refused");
    assert_eq!(bad.kind(), std::io::ErrorKind::InvalidInput);
    assert!(bad.to_string().contains("--upstream-ca"), "{bad}");
}

/// `ProxyConfig::content_syntax` (CLI `proxy --syntax FILE`): the hermes spec, written out
/// and read back, repairs a leaking upstream's replies, streamed and whole, exactly as
/// `content_format(Format::Hermes)` does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_syntax_spec_repairs_leaked_calls_like_its_format() {
    let leaked = samples("hermes.txt");
    let spec = toolstream::Syntax::builtin(Format::Hermes)
        .unwrap()
        .to_json();
    let syntax = toolstream::Syntax::from_value(&spec).unwrap();
    for stream in [true, false] {
        let text = leaked.clone();
        let reply: Reply = Arc::new(move |_: &Value| {
            if stream {
                (SSE_HEAD.to_owned(), leaked_stream(&text, 7, 0))
            } else {
                (JSON_HEAD.to_owned(), leaked_whole(&text))
            }
        });
        let upstream = Upstream::start(reply).await;
        let by_format =
            start_proxy(ProxyConfig::new(upstream.url()).content_format(Format::Hermes)).await;
        let by_syntax =
            start_proxy(ProxyConfig::new(upstream.url()).content_syntax(syntax.clone())).await;
        let request = json!({"model": "m", "stream": stream, "tools": weather_tools(),
            "messages": [{"role": "user", "content": "weather?"}]});
        let a = post(by_format, &request).await.text().await.unwrap();
        let b = post(by_syntax, &request).await.text().await.unwrap();
        // Call ids are unique per response: compare everything else.
        let strip = |body: &str| -> String {
            body.split("\"id\":\"")
                .enumerate()
                .map(|(i, part)| {
                    if i == 0 {
                        part
                    } else {
                        part.split_once('"').map_or(part, |p| p.1)
                    }
                })
                .collect::<Vec<_>>()
                .join("\"id\":\"")
        };
        assert_eq!(strip(&a), strip(&b), "stream: {stream}");
        assert!(a.contains("get_weather"), "{a}");
    }
}

// ---- Issue 29, "safe by default" and "honest to agents": each finding, over sockets ----

/// A fake upstream answering every request with `head` and `body`.
async fn fixed_upstream(head: &'static str, body: &'static str) -> Upstream {
    Upstream::start(Arc::new(move |_| {
        (head.to_owned(), vec![Step::Send(body.as_bytes().to_vec())])
    }))
    .await
}

fn tools_request(stream: bool) -> Value {
    json!({"model": "m", "stream": stream, "messages": [], "tools": weather_tools()})
}

/// An upstream redirect is never followed: the client's key would reach another origin.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_redirects_are_not_followed() {
    let elsewhere = fixed_upstream(SSE_HEAD, "data: [DONE]\n\n").await;
    let location = format!("http://{}/v1/chat/completions", elsewhere.addr);
    let head: &'static str = Box::leak(
        format!("HTTP/1.1 307 Temporary Redirect\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .into_boxed_str(),
    );
    let upstream = fixed_upstream(head, "").await;
    let addr = start_proxy(ProxyConfig::new(upstream.url())).await;
    for path in ["/v1/chat/completions", "/v1/models"] {
        let response = reqwest::Client::new()
            .post(format!("http://{addr}{path}"))
            .header("x-api-key", "sk-secret")
            .header("content-type", "application/json")
            .body(tools_request(true).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 502, "{path}");
        let body = response.text().await.unwrap();
        assert!(
            body.contains("upstream_redirect") && body.contains(&location),
            "{body}"
        );
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        elsewhere.seen.lock().unwrap().is_empty(),
        "the redirect was followed"
    );
}

/// A client trickling its body is cut off at --request-timeout with 408, and others are
/// served meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_request_body_times_out() {
    let upstream = fixed_upstream(SSE_HEAD, "data: [DONE]\n\n").await;
    let config = ProxyConfig::new(upstream.url()).request_timeout(Duration::from_millis(600));
    let addr = start_proxy(config).await;
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(
        format!("POST /v1/chat/completions HTTP/1.1\r\nHost: {addr}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{").as_bytes(),
    )
    .await
    .unwrap();
    let started = Instant::now();
    let mut reply = Vec::new();
    let trickle = async {
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if slow.write_all(b" ").await.is_err() {
                break;
            }
        }
    };
    tokio::select! {
        () = trickle => {}
        _ = tokio::time::sleep(Duration::from_secs(5)) => {}
    }
    let _ = tokio::time::timeout(Duration::from_secs(2), slow.read_to_end(&mut reply)).await;
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("--request-timeout"), "{reply}");
    assert!(started.elapsed() < Duration::from_secs(4));
    assert!(upstream.seen.lock().unwrap().is_empty());
}

/// A request the proxy cannot inspect (too deep for serde_json, not JSON) is refused with
/// 400, never forwarded unpoliced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uninspectable_request_is_refused() {
    let upstream = fixed_upstream(SSE_HEAD, "data: [DONE]\n\n").await;
    let addr = start_proxy(ProxyConfig::new(upstream.url()).content_format(Format::Hermes)).await;
    let deep = format!(
        r#"{{"model":"m","stream":true,"messages":[],"tools":{},"x":{}1{}}}"#,
        weather_tools(),
        "[".repeat(130),
        "]".repeat(130)
    );
    for body in [deep.as_str(), "{not json"] {
        let response = reqwest::Client::new()
            .post(format!("http://{addr}/v1/chat/completions"))
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400);
        let text = response.text().await.unwrap();
        assert!(text.contains("cannot be inspected"), "{text}");
    }
    assert!(upstream.seen.lock().unwrap().is_empty());
}

/// Web pages: a foreign Origin gets 403 and a text/plain body 415 (what `fetch` with
/// `no-cors` can send); an origin given with allow_origin is answered with CORS headers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_cross_origin_requests_are_refused() {
    let upstream = fixed_upstream(SSE_HEAD, "data: [DONE]\n\n").await;
    let addr =
        start_proxy(ProxyConfig::new(upstream.url()).allow_origin("https://app.example")).await;
    let client = reqwest::Client::new();
    let send = |origin: Option<&str>, kind: &str| {
        let mut r = client
            .post(format!("http://{addr}/v1/chat/completions"))
            .header("content-type", kind)
            .body(json!({"model": "m", "messages": []}).to_string());
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        r.send()
    };
    let r = send(Some("https://evil.example"), "text/plain")
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("--allow-origin https://evil.example")
    );
    assert_eq!(
        send(Some("null"), "application/json")
            .await
            .unwrap()
            .status(),
        403
    );
    assert_eq!(send(None, "text/plain").await.unwrap().status(), 415);
    assert_eq!(
        send(None, "application/x-www-form-urlencoded")
            .await
            .unwrap()
            .status(),
        415
    );
    let ok = send(Some("https://app.example"), "application/json")
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(
        ok.headers()["access-control-allow-origin"],
        "https://app.example"
    );
    // The proxy's own origin (the live page) is not foreign.
    let own = send(Some(&format!("http://{addr}")), "application/json")
        .await
        .unwrap();
    assert_eq!(own.status(), 200);
    // The preflight of an allowed origin.
    let pre = client
        .request(
            reqwest::Method::OPTIONS,
            format!("http://{addr}/v1/chat/completions"),
        )
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(pre.status(), 204);
    assert_eq!(
        pre.headers()["access-control-allow-headers"],
        "authorization, content-type"
    );
    // Only the allowed request and the own-origin one went upstream.
    assert_eq!(upstream.seen(2).await.len(), 2);
}

/// Listening beyond loopback, `/live` needs the token the proxy prints; the page keeps it
/// in a cookie.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_needs_a_token_beyond_loopback() {
    let upstream = fixed_upstream(SSE_HEAD, "data: [DONE]\n\n").await;
    let proxy = Proxy::bind(
        "0.0.0.0:0".parse().unwrap(),
        ProxyConfig::new(upstream.url()),
    )
    .await
    .unwrap();
    let port = proxy.local_addr().unwrap().port();
    let url = proxy.live_url().unwrap();
    let token = url
        .split_once("?token=")
        .map(|(_, t)| t.to_owned())
        .unwrap();
    assert_eq!(token.len(), 32, "{url}");
    tokio::spawn(proxy.run());
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let host = addr.to_string();
    for path in [
        "/live",
        "/live/events",
        "/live.js",
        &format!("/live?token={}", "0".repeat(32)),
    ] {
        let (status, _) = raw_get(addr, path, &host).await;
        assert_eq!(status, 401, "{path}");
    }
    let client = reqwest::Client::new();
    let page = client
        .get(format!("http://{addr}/live?token={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let cookie = page.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let pair = cookie.split(';').next().unwrap().to_owned();
    let js = client
        .get(format!("http://{addr}/live.js"))
        .header("cookie", pair)
        .send()
        .await
        .unwrap();
    assert_eq!(js.status(), 200);
    // On loopback no token is asked.
    let local = Proxy::bind(
        "127.0.0.1:0".parse().unwrap(),
        ProxyConfig::new(upstream.url()),
    )
    .await
    .unwrap();
    assert!(!local.live_url().unwrap().contains("token"));
}

/// A 200 event stream with an empty body is an error, never a complete empty reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_upstream_stream_is_an_error() {
    let upstream = fixed_upstream(SSE_HEAD, "").await;
    let addr = start_proxy(ProxyConfig::new(upstream.url())).await;
    let body = post(addr, &tools_request(true)).await.text().await.unwrap();
    assert!(
        body.contains("event: error") && body.contains("empty"),
        "{body}"
    );
    assert!(
        !body.contains("[DONE]") && !body.contains("finish_reason\":\"stop"),
        "{body}"
    );
}

/// vLLM-style error bodies reach the client in OpenAI's shape with their message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_error_bodies_keep_their_message() {
    let head =
        "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n";
    let upstream = fixed_upstream(
        head,
        r#"{"object":"error","message":"This model's maximum context length is 4096 tokens","type":"BadRequestError","param":null,"code":400}"#,
    )
    .await;
    let addr = start_proxy(ProxyConfig::new(upstream.url())).await;
    let response = post(addr, &tools_request(true)).await;
    assert_eq!(response.status(), 400);
    let v: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(
        v["error"]["message"],
        "This model's maximum context length is 4096 tokens"
    );
    assert_eq!(v["error"]["type"], "BadRequestError");
    if let Some(got) = sdk(addr, &weather_tools(), true).await {
        let status = &got["status_error"];
        assert_eq!(status["status"], 400, "{got}");
        assert!(got.to_string().contains("maximum context length"), "{got}");
    }
}

/// The quick start in front of vLLM started without a tool parser: it answers a request
/// with tools and `tool_choice` auto (or none given) with 400; the proxy asks once more
/// with "none", and repairs the call the model leaks as text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn works_in_front_of_vllm_without_a_tool_parser() {
    let text = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let steps = leaked_stream(text, 9, 0);
    let upstream = Upstream::start(Arc::new(move |req: &Value| {
        let has_tools = req.get("tools").is_some_and(|t| !t.is_null());
        let choice = req.get("tool_choice").and_then(Value::as_str).unwrap_or("auto");
        if has_tools && choice == "auto" {
            let head = "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n";
            let body = r#"{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}"#;
            return (head.to_owned(), vec![Step::Send(body.as_bytes().to_vec())]);
        }
        (SSE_HEAD.to_owned(), steps.clone())
    }))
    .await;
    let addr = start_proxy(ProxyConfig::new(upstream.url()).content_format(Format::Hermes)).await;
    let body = post(addr, &tools_request(true)).await.text().await.unwrap();
    assert!(body.contains("\"tool_calls\""), "{body}");
    assert!(body.contains("get_weather"), "{body}");
    let seen = upstream.seen(2).await;
    let second: Value = serde_json::from_slice(&seen[1].body).unwrap();
    assert_eq!(second["tool_choice"], "none");
    if let Some(got) = sdk(addr, &weather_tools(), true).await {
        assert_eq!(got["calls"][0]["name"], "get_weather", "{got}");
    }
}

/// A request that declares no tools gets no `tool_calls`: leaked markup stays text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_tools_declared_no_tool_calls() {
    let text = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>";
    let steps = leaked_stream(text, 7, 0);
    let upstream = Upstream::start(Arc::new(move |_| (SSE_HEAD.to_owned(), steps.clone()))).await;
    let addr = start_proxy(ProxyConfig::new(upstream.url()).content_format(Format::Hermes)).await;
    let body = post(addr, &json!({"model": "m", "stream": true, "messages": []}))
        .await
        .text()
        .await
        .unwrap();
    assert!(!body.contains("\"tool_calls\""), "{body}");
    assert_eq!(sse_content(&body), text);
}

/// Arguments over the limit end the call as an error that does not carry them again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_limit_arguments_are_not_sent_twice() {
    let big = "x".repeat(200_000);
    let text = format!(
        "<tool_call>\n{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"{big}\"}}}}\n</tool_call>"
    );
    let steps = leaked_stream(&text, 4096, 0);
    let upstream = Upstream::start(Arc::new(move |_| (SSE_HEAD.to_owned(), steps.clone()))).await;
    let parser = toolstream::ParserConfig::new()
        .id_prefix(toolstream::IdPrefix::Unique)
        .max_argument_bytes(100_000);
    let config = ProxyConfig::new(upstream.url())
        .content_format(Format::Hermes)
        .parser_config(parser);
    let addr = start_proxy(config).await;
    let body = post(addr, &tools_request(true)).await.text().await.unwrap();
    assert!(
        body.contains("limit_exceeded"),
        "{}",
        &body[..body.len().min(2000)]
    );
    let longest = body.lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 16_384, "an SSE line of {longest} bytes");
    assert!(body.len() < 150_000, "{} bytes sent", body.len());
}

/// With `--validate` a call whose arguments break the tool's schema is refused the moment
/// they do: the upstream is cut there and the model is told what was wrong and where.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_breaking_its_schema_cuts_the_upstream_and_says_why() {
    let tools = json!([{"type": "function", "function": {"name": "set_mode", "parameters": {
        "type": "object", "properties": {"mode": {"enum": ["fast", "safe"]}}}}}]);
    let mut text = String::from(
        "<tool_call>\n{\"name\": \"set_mode\", \"arguments\": {\"mode\": \"reckless\"}}\n</tool_call>",
    );
    text.push_str(&" and much more".repeat(200));
    let steps = leaked_stream(&text, 6, 10);
    let upstream = Upstream::start(Arc::new(move |_| (SSE_HEAD.to_owned(), steps.clone()))).await;
    let parser = toolstream::ParserConfig::new()
        .id_prefix(toolstream::IdPrefix::Unique)
        .validate_arguments(true);
    let config = ProxyConfig::new(upstream.url())
        .content_format(Format::Hermes)
        .parser_config(parser);
    let addr = start_proxy(config).await;
    let body = post(
        addr,
        &json!({"model": "m", "stream": true, "messages": [], "tools": tools}),
    )
    .await
    .text()
    .await
    .unwrap();
    let seen = upstream.seen(1).await;
    assert!(
        seen[0].closed_early,
        "the upstream was not cut: {:?}",
        seen[0]
    );
    assert!(body.contains("schema_violation"), "{body}");
    let content = sse_content(&body);
    assert!(
        content.contains(
            "toolstream: call to set_mode refused: its arguments break the tool's JSON Schema"
        ) && content.contains("enum")
            && content.contains("/mode"),
        "{content}"
    );
    assert!(!body.contains("much more"), "{body}");
    assert!(body.trim_end().ends_with("data: [DONE]"), "{body}");
}
