//! `toolstream proxy`'s observability: the access log (through the `toolstream` binary,
//! read from its stderr), `/metrics`, `/healthz`, `/`, the drain on SIGTERM and the busy
//! port message, against a small fake upstream (raw TCP) of this file. Every wait is
//! bounded.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolstream::Format;
use toolstream::proxy::{Proxy, ProxyConfig};

const BIN: &str = env!("CARGO_BIN_EXE_toolstream");

/// One step of a fake upstream's reply: bytes, or a pause in ms.
#[derive(Clone, Debug)]
enum Step {
    Send(Vec<u8>),
    Pause(u64),
}

type Reply = Arc<dyn Fn(&Value) -> Vec<Step> + Send + Sync>;

/// A fake OpenAI-compatible upstream on 127.0.0.1: each request gets an SSE reply made of
/// `reply(request body)`'s steps, then the connection closes.
async fn upstream(reply: Reply) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let reply = Arc::clone(&reply);
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut tmp = [0u8; 8192];
                let head_end = loop {
                    let Ok(n) = socket.read(&mut tmp).await else {
                        return;
                    };
                    if n == 0 {
                        return;
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
                    match socket.read(&mut tmp).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&tmp[..n]),
                    }
                }
                let request: Value =
                    serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for step in reply(&request) {
                    match step {
                        Step::Send(b) => {
                            if socket.write_all(&b).await.is_err() {
                                return;
                            }
                        }
                        Step::Pause(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                    }
                }
                let _ = socket.shutdown().await;
            });
        }
    });
    format!("http://{addr}/v1")
}

fn chunk(delta: Value, finish: Option<&str>) -> Vec<u8> {
    let c = json!({"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1,
        "model": "up-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {c}\n\n").into_bytes()
}

/// An OpenAI stream leaking `text` into `content`, `piece` bytes per chunk, `pause` ms
/// apart; `end`: with its finish chunk and `[DONE]`.
fn leaked(text: &str, piece: usize, pause: u64, end: bool) -> Vec<Step> {
    let mut steps = vec![Step::Send(chunk(json!({"role": "assistant"}), None))];
    let bytes: Vec<char> = text.chars().collect();
    for p in bytes.chunks(piece) {
        let p: String = p.iter().collect();
        steps.push(Step::Send(chunk(json!({"content": p}), None)));
        if pause > 0 {
            steps.push(Step::Pause(pause));
        }
    }
    if end {
        steps.push(Step::Send(chunk(json!({}), Some("stop"))));
        steps.push(Step::Send(b"data: [DONE]\n\n".to_vec()));
    }
    steps
}

/// A native (structured) call.
fn native() -> Vec<Step> {
    vec![
        Step::Send(chunk(
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_n",
                "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]}),
            None,
        )),
        Step::Send(chunk(json!({}), Some("tool_calls"))),
        Step::Send(b"data: [DONE]\n\n".to_vec()),
    ]
}

const CALL: &str = "Sure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
const UNDECLARED: &str =
    "<tool_call>\n{\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/\"}}\n</tool_call>";

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "get_weather", "parameters":
        {"type": "object", "properties": {"city": {"type": "string"}}}}}])
}

/// The upstream the log tests use: the request's first message says what it does.
fn scripted() -> Reply {
    Arc::new(
        |req: &Value| match req["messages"][0].as_str().unwrap_or("") {
            "native" => native(),
            "refuse" => leaked(UNDECLARED, 7, 0, true),
            "cut" => leaked(&CALL[..CALL.len() - 20], 7, 0, false),
            "slow" => leaked(&CALL.repeat(3), 10, 60, true),
            _ => leaked(CALL, 7, 0, true),
        },
    )
}

/// The `toolstream proxy` process, killed however the test ends, and its stderr lines.
struct ProxyProcess {
    child: Child,
    lines: mpsc::Receiver<String>,
    addr: SocketAddr,
}

impl Drop for ProxyProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ProxyProcess {
    fn start(upstream: &str, extra: &[&str]) -> ProxyProcess {
        let mut child = Command::new(BIN)
            .args(["proxy", "--listen", "127.0.0.1:0", "--content", "hermes"])
            .args(["--upstream", upstream])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut p = ProxyProcess {
            child,
            lines,
            addr: "127.0.0.1:1".parse().unwrap(),
        };
        let line = p.line(|l| l.contains("listening on"));
        p.addr = line
            .trim()
            .strip_prefix("toolstream proxy: listening on http://")
            .and_then(|a| a.strip_suffix("/v1"))
            .unwrap_or_else(|| panic!("{line}"))
            .parse()
            .unwrap();
        p
    }

    /// The next stderr line that `pick` takes (at most 10 s).
    fn line(&mut self, pick: impl Fn(&str) -> bool) -> String {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if pick(&l) => return l,
                Ok(_) => {}
                Err(e) => panic!("no such stderr line: {e}"),
            }
        }
    }

    /// The next access-log line (JSON).
    fn log(&mut self) -> Value {
        serde_json::from_str(&self.line(|l| l.starts_with('{'))).unwrap()
    }

    fn sigterm(&self) {
        let ok = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
    }

    /// Waits (at most `limit`) for the process to exit; its exit code.
    fn exit_within(&mut self, limit: Duration) -> Option<i32> {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the proxy did not exit within {limit:?}");
    }
}

async fn chat(addr: SocketAddr, first: &str) -> String {
    let body = json!({"model": "qwen3", "stream": true, "messages": [first], "tools": tools()});
    let response = reqwest::Client::new()
        .post(format!("http://{addr}/v1/chat/completions"))
        .header("content-type", "application/json")
        .header("authorization", "Bearer sk-secret-key")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), response.text())
        .await
        .unwrap()
        .unwrap()
}

/// The access-log line of a repaired (leaked) call, a native call, a refused call and a
/// cut upstream; nothing secret in any of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_log_lines() {
    let upstream = upstream(scripted()).await;
    let mut proxy = ProxyProcess::start(&upstream, &[]);
    let addr = proxy.addr;

    let body = chat(addr, "leak").await;
    assert!(body.contains(r#""name":"get_weather""#), "{body}");
    let line = proxy.log();
    let text = line.to_string();
    assert!(
        !text.contains("sk-secret-key") && !text.contains("Paris"),
        "{text}"
    );
    assert_eq!(line["route"], "/v1/chat/completions");
    assert_eq!(line["method"], "POST");
    assert_eq!(line["model"], "qwen3");
    assert_eq!(line["status"], 200);
    assert_eq!(line["streamed"], true);
    assert_eq!(line["calls"], 1);
    assert_eq!(line["repaired"], 1);
    assert_eq!(line["refused"], 0);
    assert_eq!(line["cut"], false);
    assert_eq!(line["upstream_status"], 200);
    assert!(line["ttfb_ms"].is_u64(), "{line}");
    assert!(line["first_call_ms"].is_u64(), "{line}");
    assert!(
        line["duration_ms"].as_u64() >= line["ttfb_ms"].as_u64(),
        "{line}"
    );
    assert!(line["bytes_in"].as_u64().unwrap() > 500, "{line}");
    assert_eq!(line["bytes_out"].as_u64().unwrap(), body.len() as u64);
    // The field order is the documented one.
    let raw = serde_json::to_string(&line).unwrap();
    assert!(raw.starts_with(r#"{"route":"#), "{raw}");

    chat(addr, "native").await;
    let line = proxy.log();
    assert_eq!(
        (line["calls"].as_u64(), line["repaired"].as_u64()),
        (Some(1), Some(0)),
        "{line}"
    );

    let body = chat(addr, "refuse").await;
    assert!(body.contains("undeclared_tool"), "{body}");
    let line = proxy.log();
    assert_eq!(line["refused"], 1, "{line}");
    assert_eq!(line["calls"], 0, "{line}");
    assert_eq!(line["cut"], false, "{line}");
    assert!(line["first_call_ms"].is_null(), "{line}");

    let body = chat(addr, "cut").await;
    assert!(body.contains("truncated"), "{body}");
    let line = proxy.log();
    assert_eq!(line["cut"], true, "{line}");
    assert_eq!(line["refused"], 0, "{line}");
    // Its name had gone out before the cut.
    assert_eq!(
        (line["calls"].as_u64(), line["repaired"].as_u64()),
        (Some(1), Some(1)),
        "{line}"
    );
}

/// `--log-format text` writes words; `off` writes nothing after the listening line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_formats() {
    let upstream = upstream(scripted()).await;
    let mut proxy = ProxyProcess::start(&upstream, &["--log-format", "text"]);
    chat(proxy.addr, "leak").await;
    let line = proxy.line(|l| l.contains("/v1/chat/completions"));
    assert!(
        line.starts_with("toolstream proxy: POST /v1/chat/completions 200 model=\"qwen3\" streamed=true calls=1 repaired=1 refused=0 cut=false upstream=200"),
        "{line}"
    );
    let out = Command::new(BIN)
        .args([
            "proxy",
            "--upstream",
            "http://127.0.0.1:9",
            "--log-format",
            "xml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

async fn get(addr: SocketAddr, method: reqwest::Method, path: &str) -> (u16, String, String) {
    let r = reqwest::Client::new()
        .request(method, format!("http://{addr}{path}"))
        .send()
        .await
        .unwrap();
    let kind = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (r.status().as_u16(), kind, r.text().await.unwrap())
}

/// The samples of a Prometheus text exposition: `name{labels}` → value; panics on a line
/// that is neither a comment nor a sample.
fn samples(text: &str) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.is_empty() {
            assert!(
                line.is_empty()
                    || line.starts_with("# HELP ")
                    || line.starts_with("# TYPE ")
                    || line == "# EOF",
                "{line}"
            );
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line}"));
        let name_end = series.find('{').unwrap_or(series.len());
        let name = &series[..name_end];
        assert!(
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
            "{line}"
        );
        if name_end < series.len() {
            assert!(series.ends_with('}'), "{line}");
        }
        out.push((series.to_owned(), value.parse::<f64>().unwrap()));
    }
    out
}

fn sample(all: &[(String, f64)], series: &str) -> f64 {
    all.iter()
        .find(|(s, _)| s == series)
        .map_or(0.0, |(_, v)| *v)
}

/// `/metrics` parses as Prometheus text and its counters move; `/healthz`, `GET /` and
/// `HEAD /`; all behind the Host check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_healthz_and_index() {
    let upstream = upstream(scripted()).await;
    let proxy = Proxy::bind(
        "127.0.0.1:0".parse().unwrap(),
        ProxyConfig::new(upstream).content_format(Format::Hermes),
    )
    .await
    .unwrap();
    let addr = proxy.local_addr().unwrap();
    tokio::spawn(proxy.run());

    let (status, kind, body) = get(addr, reqwest::Method::GET, "/healthz").await;
    assert_eq!(
        (status, kind.as_str(), body.as_str()),
        (200, "text/plain; charset=utf-8", "ok\n")
    );
    let (status, _, body) = get(addr, reqwest::Method::GET, "/").await;
    assert_eq!(status, 200);
    assert!(body.contains("/v1") && body.contains("/live"), "{body}");
    let (status, _, body) = get(addr, reqwest::Method::HEAD, "/").await;
    assert_eq!((status, body.as_str()), (200, ""));

    let (status, kind, before) = get(addr, reqwest::Method::GET, "/metrics").await;
    assert_eq!(status, 200);
    assert!(kind.starts_with("application/openmetrics-text"), "{kind}");
    let before = samples(&before);
    for first in ["leak", "native", "refuse", "cut"] {
        chat(addr, first).await;
    }
    let (_, _, after) = get(addr, reqwest::Method::GET, "/metrics").await;
    let after = samples(&after);
    let moved = |series: &str| sample(&after, series) - sample(&before, series);
    assert_eq!(
        moved(r#"toolstream_proxy_requests_total{route="/v1/chat/completions",status="200"}"#),
        4.0
    );
    // leak, native, and the cut call (its name had gone out); repaired: leak and cut.
    assert_eq!(moved("toolstream_proxy_tool_calls_total"), 3.0);
    assert_eq!(moved("toolstream_proxy_tool_calls_repaired_total"), 2.0);
    assert_eq!(moved("toolstream_proxy_tool_calls_refused_total"), 1.0);
    assert_eq!(moved("toolstream_proxy_truncated_replies_total"), 1.0);
    assert_eq!(
        moved(r#"toolstream_proxy_duration_seconds_count{route="/v1/chat/completions"}"#),
        4.0
    );
    assert_eq!(
        moved(r#"toolstream_proxy_ttfb_seconds_bucket{le="+Inf",route="/v1/chat/completions"}"#),
        4.0
    );

    // A foreign Host gets 421 here too.
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(
        b"GET /metrics HTTP/1.1\r\nhost: rebind.attacker.test\r\nconnection: close\r\n\r\n",
    )
    .await
    .unwrap();
    let mut reply = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut reply))
        .await
        .unwrap()
        .unwrap();
    assert!(
        reply.starts_with(b"HTTP/1.1 421"),
        "{}",
        String::from_utf8_lossy(&reply)
    );
}

/// SIGTERM during a slow stream: a new connection is refused at once, the stream still
/// completes, and the process exits 0 well within the drain timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_streams_in_flight() {
    let upstream = upstream(scripted()).await;
    let mut proxy = ProxyProcess::start(&upstream, &["--drain-timeout", "20"]);
    let addr = proxy.addr;
    let response = reqwest::Client::new()
        .post(format!("http://{addr}/v1/chat/completions"))
        .header("content-type", "application/json")
        .body(
            json!({"model": "m", "stream": true, "messages": ["slow"], "tools": tools()})
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let started = Instant::now();
    proxy.sigterm();
    proxy.line(|l| l.contains("draining"));
    let refused = TcpStream::connect(addr).await;
    assert!(
        refused.is_err(),
        "a new connection was accepted while draining"
    );
    let body = tokio::time::timeout(Duration::from_secs(15), response.text())
        .await
        .unwrap()
        .unwrap();
    assert!(body.trim_end().ends_with("data: [DONE]"), "{body}");
    assert_eq!(body.matches(r#""name":"get_weather""#).count(), 3, "{body}");
    let line = proxy.log();
    assert_eq!(line["calls"], 3, "{line}");
    proxy.line(|l| l.contains("stopped"));
    assert_eq!(proxy.exit_within(Duration::from_secs(5)), Some(0));
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

/// A stream still going at the drain timeout does not hold the process: it exits 0 then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drain_timeout_bounds_the_wait() {
    let upstream = upstream(Arc::new(|_: &Value| {
        let mut s = leaked(CALL, 7, 0, false);
        s.push(Step::Pause(30_000));
        s
    }))
    .await;
    let mut proxy = ProxyProcess::start(&upstream, &["--drain-timeout", "0.5"]);
    let response = reqwest::Client::new()
        .post(format!("http://{}/v1/chat/completions", proxy.addr))
        .header("content-type", "application/json")
        .body(json!({"model": "m", "stream": true, "messages": ["x"]}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let started = Instant::now();
    proxy.sigterm();
    assert_eq!(proxy.exit_within(Duration::from_secs(5)), Some(0));
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
}

/// A busy `--listen` port: the address and a hint, exit 2.
#[test]
fn busy_port_is_named() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let out = Command::new(BIN)
        .args(["proxy", "--upstream", "http://127.0.0.1:9", "--listen"])
        .arg(addr.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("toolstream: proxy: {addr} is in use"))
            && err.contains("--listen 127.0.0.1:0"),
        "{err}"
    );
}
