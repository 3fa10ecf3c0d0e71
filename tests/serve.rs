//! `toolstream serve` over plain HTTP on 127.0.0.1 (no browser): it answers only its
//! own `Host`, `HEAD` like `GET` without a body, reads stdin for `-`, and stays bounded
//! under a request head that never ends and under many idle connections. Loopback only;
//! every loop is bounded in count and time.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `toolstream serve` process, killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const BODY: &str = concat!(
    r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"save","arguments":"{\"secret\": \"s3cr3t\"}"}}]}}]}"#,
    "\n\n",
    r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    "\n\ndata: [DONE]\n\n",
);

fn tmp(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Starts `toolstream serve` (on FILE, or `-` with `stdin` piped in) with `--speed 0`.
fn start(file: Option<&str>, stdin: Option<&str>) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolstream"));
    cmd.args([
        "serve",
        file.unwrap_or("-"),
        "--format",
        "openai-chat",
        "--speed",
        "0",
    ])
    .stdout(Stdio::piped())
    .stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.spawn().unwrap();
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(text.as_bytes()).unwrap();
    }
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // The default port is a free one, printed with the URL.
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect(&line);
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches('/')
        .parse()
        .expect(url);
    Server { child, port }
}

fn with_file() -> Server {
    // One file per server: tests run in parallel, and a write to a shared path truncates
    // it under another test's server while that one reads it (seen in CI: an empty body).
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = tmp(&format!("body-{n}.sse"));
    std::fs::write(&path, BODY).unwrap();
    start(Some(path.to_str().unwrap()), None)
}

/// Sends `request` and reads the whole response (the server closes every connection).
fn exchange(port: u16, request: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

fn get(port: u16, method: &str, path: &str, host: Option<&str>) -> String {
    let host = host.map(|h| format!("Host: {h}\r\n")).unwrap_or_default();
    exchange(
        port,
        &format!("{method} {path} HTTP/1.1\r\n{host}Connection: close\r\n\r\n"),
    )
}

fn status(response: &str) -> &str {
    response.lines().next().unwrap_or_default()
}

/// The peak memory (kB) and thread count of a process, from /proc.
fn proc_status(pid: u32) -> (u64, u64) {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |k: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap()
    };
    (field("VmHWM:"), field("Threads:"))
}

#[test]
fn answers_only_its_own_host() {
    let srv = with_file();
    let p = srv.port;
    for host in [
        format!("127.0.0.1:{p}"),
        format!("localhost:{p}"),
        format!("LOCALHOST:{p}"),
        format!("[::1]:{p}"),
    ] {
        let r = get(p, "GET", "/", Some(&host));
        assert_eq!(status(&r), "HTTP/1.1 200 OK", "{host}");
        assert!(
            r.contains("<html") || r.contains("<!doctype html") || r.contains("<!DOCTYPE html")
        );
        let r = get(p, "GET", "/events", Some(&host));
        assert!(r.contains("s3cr3t"), "{host}: {r}");
    }
    // A site that re-points its name at 127.0.0.1 (DNS rebinding) sends its own name.
    for host in [
        Some(format!("rebind.attacker.test:{p}")),
        Some(format!("127.0.0.1:{}", p.wrapping_add(1))),
        Some("127.0.0.1".to_owned()),
        Some(format!("localhost.attacker.test:{p}")),
        None,
    ] {
        for path in ["/", "/events"] {
            let r = get(p, "GET", path, host.as_deref());
            assert_eq!(
                status(&r),
                "HTTP/1.1 421 Misdirected Request",
                "{host:?} {path}"
            );
            assert!(
                !r.contains("s3cr3t") && !r.contains("<html"),
                "{host:?} {path}: {r}"
            );
        }
    }
}

#[test]
fn head_is_get_without_a_body() {
    let srv = with_file();
    let host = format!("127.0.0.1:{}", srv.port);
    let page = get(srv.port, "GET", "/", Some(&host));
    let head = get(srv.port, "HEAD", "/", Some(&host));
    let (page_head, page_body) = page.split_once("\r\n\r\n").unwrap();
    assert!(!page_body.is_empty());
    assert_eq!(head, format!("{page_head}\r\n\r\n"));
    let events = get(srv.port, "HEAD", "/events", Some(&host));
    assert!(events.starts_with("HTTP/1.1 200 OK\r\n"), "{events}");
    assert!(
        events.contains("text/event-stream") && events.ends_with("\r\n\r\n"),
        "{events}"
    );
    assert!(!events.contains("data:"), "{events}");
    assert_eq!(
        status(&get(srv.port, "HEAD", "/nope", Some(&host))),
        "HTTP/1.1 404 Not Found"
    );
    assert_eq!(
        status(&get(srv.port, "POST", "/", Some(&host))),
        "HTTP/1.1 405 Method Not Allowed"
    );
}

#[test]
fn serves_stdin() {
    let srv = start(None, Some(BODY));
    let r = get(
        srv.port,
        "GET",
        "/events",
        Some(&format!("localhost:{}", srv.port)),
    );
    assert!(r.contains(r#""file":"stdin""#), "{r}");
    assert!(
        r.contains(r#""type":"tool_call_end""#) && r.contains("s3cr3t"),
        "{r}"
    );
}

#[test]
fn a_busy_port_suggests_port_0() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let path = tmp("busy.sse");
    std::fs::write(&path, BODY).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolstream"))
        .args([
            "serve",
            path.to_str().unwrap(),
            "--format",
            "openai-chat",
            "--port",
            &port,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("127.0.0.1:{port}")) && err.contains("--port 0"),
        "{err}"
    );
}

/// A request head that never ends (no newline) is cut off at 16 KiB: the server answers
/// 431 and closes, its memory does not grow with what is sent.
#[test]
fn a_head_without_end_is_cut_off() {
    let srv = with_file();
    let mut s = TcpStream::connect(("127.0.0.1", srv.port)).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let chunk = vec![b'a'; 64 * 1024];
    let started = Instant::now();
    let mut sent = 0usize;
    s.write_all(b"GET /").unwrap();
    // At most 64 MiB or 20 s: the server stops reading long before.
    while sent < 64 << 20 && started.elapsed() < Duration::from_secs(20) {
        match s.write(&chunk) {
            Ok(n) => sent += n,
            Err(_) => break,
        }
    }
    assert!(sent < 64 << 20, "the server kept reading: {sent} bytes");
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    // The 431 may be lost to the reset that closing with unread bytes causes.
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 431"),
        "{answer}"
    );
    let (peak_kb, _) = proc_status(srv.child.id());
    assert!(
        peak_kb < 64 * 1024,
        "peak memory {peak_kb} kB after {sent} bytes"
    );
}

/// A client past the cap that has already sent its request reads the `503`, not a
/// connection reset: the server drains the request before it closes (closing with unread
/// bytes makes the kernel send RST, which discards the answer at the client; CI saw it).
#[test]
fn a_refused_request_reads_its_503() {
    let srv = with_file();
    let mut idle = Vec::new();
    for _ in 0..32 {
        idle.push(TcpStream::connect(("127.0.0.1", srv.port)).unwrap());
    }
    let host = format!("127.0.0.1:{}", srv.port);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut refused = 0;
    while refused < 20 {
        // Until the server has accepted the 32, a request may still get a slot.
        let r = get(srv.port, "GET", "/", Some(&host));
        if status(&r) == "HTTP/1.1 503 Service Unavailable" {
            assert!(r.ends_with("too many clients"), "{r}");
            refused += 1;
        } else {
            assert!(Instant::now() < deadline, "never refused: {r}");
        }
    }
    drop(idle);
}

/// Many idle connections: at most 32 are served (a thread each), the rest are answered
/// 503 and closed at once; every connection gets an answer or a close.
#[test]
fn connections_are_capped() {
    let srv = with_file();
    let mut idle = Vec::new();
    for _ in 0..200 {
        let s = TcpStream::connect(("127.0.0.1", srv.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        idle.push(s);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let threads = loop {
        let (_, threads) = proc_status(srv.child.id());
        // All 200 accepted: the last one is over the cap and answered at once.
        let mut last = idle.last().unwrap();
        let mut buf = [0u8; 64];
        if let Ok(n) = last.read(&mut buf) {
            assert!(buf[..n].starts_with(b"HTTP/1.1 503"), "{:?}", &buf[..n]);
            break threads;
        }
        assert!(Instant::now() < deadline, "no answer past the cap");
    };
    assert!(
        threads <= 1 + 32,
        "{threads} threads for 200 idle connections"
    );
    // The served ones still work once the idle ones go away.
    drop(idle);
    let host = format!("127.0.0.1:{}", srv.port);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = get(srv.port, "GET", "/", Some(&host));
        if status(&r) == "HTTP/1.1 200 OK" {
            break;
        }
        assert!(Instant::now() < deadline, "{r}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
