//! `toolstream serve FILE --format F`: a live browser view of a replayed stream.
//!
//! A tiny HTTP/1.1 server on 127.0.0.1 (std::net, a thread per connection):
//! - `GET /` — the live page, the same one `toolstream proxy` serves at `/live`
//!   ([`toolstream::proxy::LIVE_HTML`], with `live.js` and `live.css` from this origin,
//!   under a `Content-Security-Policy` that allows nothing else);
//! - `GET /events` — the replay: FILE (`-`: stdin, read to its end first) fed to the
//!   parser 64 bytes at a time, every 10 ms (scaled by `--speed`, or by the page's speed
//!   control: `/events?speed=X`, 0 for no pauses), each event sent as it is emitted as an
//!   SSE message `data: {event JSON with "s":0, "offset" and "us"}` (`us`: microseconds
//!   since the replay began); first an `event: meta` message with the file, format (and
//!   `--content` format), size and speed, and an `event: stream` message; last
//!   `event: end`. Each request replays from the start; the response ends with the input
//!   (the page reads it with `fetch`, so nothing reconnects).
//! - `HEAD` of each: the same headers, no body.
//!
//! The page shows what the stream holds (tool arguments may be secrets), so the server
//! answers only requests for its own origin, by the proxy's rule
//! ([`toolstream::proxy::host_allowed`], listening on 127.0.0.1 with no other name
//! allowed): the `Host` header must be `127.0.0.1:PORT`, `localhost:PORT` or another
//! loopback address literal (`[::1]:PORT`), anything else gets `421 Misdirected Request`
//! (a web site that re-points its own name at 127.0.0.1 — DNS rebinding — sends its own
//! name).
//! By default the port is a free one picked by the system (printed with the URL), so a
//! site cannot guess it either. Bounded: a request head of at most 16 KiB read within
//! 10 s, writes that stall for 30 s end the connection, and at most 32 connections are
//! served at once (more are answered `503` and closed at once, without a thread).
//!
//! The parser runs with [`ParserConfig::field_events`], and the page renders text as it arrives,
//! reasoning in a labelled block that folds, and each tool call as a card: the name the
//! moment it is known, then the arguments as a tree whose values fill in decoded as they
//! stream (`tool_call_field` by JSON Pointer; multi-line strings as lines), the raw JSON
//! arguments behind a toggle, and an error with its kind, message and the raw text it
//! carries. The layout holds from a phone's width to a desktop's.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
// The page, shared with the proxy's `/live`: reads `/events` with `fetch` and renders as
// events arrive. Self-contained: its script and styles come from this server only.
use toolstream::proxy::{LIVE_CSP, LIVE_CSS, LIVE_HTML as PAGE, LIVE_JS, host_allowed};
use toolstream::{Format, Framing, Parser};

const CHUNK: usize = 64;
const PAUSE_MS: f64 = 10.0;
/// The most bytes of a request head (request line and headers) read.
const MAX_HEAD: usize = 16 * 1024;
/// The time a client has to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// A write that makes no progress for this long ends the connection.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections served at once (each has its thread).
const MAX_CONNECTIONS: usize = 32;

struct Replay {
    name: String,
    bytes: Vec<u8>,
    format: Format,
    framing: Option<Framing>,
    content: Option<Format>,
    speed: f64,
    config: toolstream::ParserConfig,
    /// The address listened on (for the `Host` check).
    addr: SocketAddr,
}

/// The input: FILE's bytes, or stdin's (`-`) read to its end; and the name shown.
fn read_input(file: &str) -> Result<(Vec<u8>, String), String> {
    if file == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        return Ok((bytes, "stdin".to_owned()));
    }
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let name = std::path::Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_owned());
    Ok((bytes, name))
}

pub(crate) fn run(
    file: &str,
    format: Format,
    framing: Option<Framing>,
    content: Option<Format>,
    port: u16,
    speed: f64,
    config: toolstream::ParserConfig,
) -> Result<(), String> {
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::AddrInUse {
            "; the port is taken: choose another with --port N, or --port 0 for any free port"
        } else {
            ""
        };
        format!("cannot listen on 127.0.0.1:{port}: {e}{hint}")
    })?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the local address: {e}"))?;
    let (bytes, name) = read_input(file)?;
    let replay = Arc::new(Replay {
        name,
        bytes,
        format,
        framing,
        content,
        speed,
        config,
        addr,
    });
    let shown = if file == "-" { "stdin" } else { file };
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "toolstream serve: http://{addr}/  (replaying {shown} as {format}; Ctrl-C to stop)"
        );
        let _ = out.flush();
    }
    let active = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        if active.load(Ordering::Acquire) >= MAX_CONNECTIONS {
            busy(conn);
            continue;
        }
        let slot = Slot::take(&active);
        let replay = Arc::clone(&replay);
        // A thread that cannot be started drops the connection (and its slot).
        let _ = std::thread::Builder::new()
            .name("serve".into())
            .spawn(move || {
                let _slot = slot;
                // A client that goes away mid-replay is not an error worth reporting.
                let _ = handle(conn, &replay);
            });
    }
    Ok(())
}

/// One of the [`MAX_CONNECTIONS`] connection slots, given back when dropped.
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(active: &Arc<AtomicUsize>) -> Slot {
        active.fetch_add(1, Ordering::AcqRel);
        Slot(Arc::clone(active))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Every slot is taken: a short `503` (without reading the request) and close.
fn busy(mut conn: TcpStream) {
    let _ = conn.set_write_timeout(Some(Duration::from_millis(200)));
    let _ = conn.write_all(
        b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 16\r\nRetry-After: 1\r\nConnection: close\r\n\r\ntoo many clients",
    );
}

/// Why a request head could not be read.
enum HeadError {
    /// Longer than [`MAX_HEAD`].
    TooLarge,
    /// Not complete within [`HEAD_TIMEOUT`].
    TimedOut,
    /// The connection failed or closed.
    Io,
}

/// Reads the request head (up to and including its blank line), bounded in size and
/// time; bytes after it (a body) are left unread.
fn read_head(conn: &mut TcpStream) -> Result<Vec<u8>, HeadError> {
    let deadline = Instant::now() + HEAD_TIMEOUT;
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(HeadError::TimedOut);
        }
        conn.set_read_timeout(Some(left))
            .map_err(|_| HeadError::Io)?;
        let n = match conn.read(&mut buf) {
            Ok(0) => return Err(HeadError::Io),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(HeadError::TimedOut);
            }
            Err(_) => return Err(HeadError::Io),
        };
        let from = head.len().saturating_sub(3);
        head.extend_from_slice(buf.get(..n).unwrap_or_default());
        let tail = head.get(from..).unwrap_or_default();
        if let Some(end) = head_end(tail) {
            head.truncate(from + end);
            return Ok(head);
        }
        if head.len() > MAX_HEAD {
            return Err(HeadError::TooLarge);
        }
    }
}

/// Where the head ends in `bytes` (after `\r\n\r\n` or `\n\n`), if it does.
fn head_end(bytes: &[u8]) -> Option<usize> {
    let crlf = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4);
    let lf = bytes.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn handle(mut conn: TcpStream, replay: &Replay) -> std::io::Result<()> {
    conn.set_write_timeout(Some(WRITE_TIMEOUT))?;
    // Each event batch goes out when written (no Nagle wait for the previous one's ACK).
    conn.set_nodelay(true)?;
    let head = match read_head(&mut conn) {
        Ok(head) => head,
        Err(HeadError::TooLarge) => {
            return respond(
                &mut conn,
                "431 Request Header Fields Too Large",
                "text/plain",
                b"request head over 16 KiB\n",
                true,
            );
        }
        Err(HeadError::TimedOut) => {
            return respond(
                &mut conn,
                "408 Request Timeout",
                "text/plain",
                b"request head not sent within 10 s\n",
                true,
            );
        }
        Err(HeadError::Io) => return Ok(()),
    };
    let head = String::from_utf8_lossy(&head);
    let mut lines = head.lines();
    let request_line = lines.next().unwrap_or_default();
    let host = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("host"))
        .map(|(_, v)| v.trim());
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default();
    let target = parts.next().unwrap_or_default();
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if !host_allowed(host, replay.addr, &[]) {
        let body = format!(
            "this server answers only http://127.0.0.1:{0}/ and http://localhost:{0}/\n",
            replay.addr.port()
        );
        return respond(
            &mut conn,
            "421 Misdirected Request",
            "text/plain",
            body.as_bytes(),
            true,
        );
    }
    let body = match method {
        "GET" => true,
        "HEAD" => false,
        _ => {
            return respond(
                &mut conn,
                "405 Method Not Allowed",
                "text/plain",
                b"only GET and HEAD\n",
                true,
            );
        }
    };
    match path {
        "/" | "/index.html" => respond(
            &mut conn,
            "200 OK",
            "text/html; charset=utf-8",
            PAGE.as_bytes(),
            body,
        ),
        "/live.js" => respond(
            &mut conn,
            "200 OK",
            "text/javascript; charset=utf-8",
            LIVE_JS.as_bytes(),
            body,
        ),
        "/live.css" => respond(
            &mut conn,
            "200 OK",
            "text/css; charset=utf-8",
            LIVE_CSS.as_bytes(),
            body,
        ),
        "/events" => {
            // The page's speed control; the command's --speed otherwise.
            let speed = query
                .split('&')
                .filter_map(|kv| kv.strip_prefix("speed="))
                .find_map(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map_or(replay.speed, |v| v.min(1000.0));
            events(&mut conn, replay, speed, body)
        }
        "/favicon.ico" => respond(&mut conn, "204 No Content", "text/plain", b"", body),
        _ => respond(
            &mut conn,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            body,
        ),
    }
}

/// A whole response; with `send_body` false (HEAD) the headers only.
fn respond(
    conn: &mut TcpStream,
    status: &str,
    kind: &str,
    body: &[u8],
    send_body: bool,
) -> std::io::Result<()> {
    write!(
        conn,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nContent-Security-Policy: {LIVE_CSP}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if send_body {
        conn.write_all(body)?;
    }
    conn.flush()
}

fn events(
    conn: &mut TcpStream,
    replay: &Replay,
    speed: f64,
    send_body: bool,
) -> std::io::Result<()> {
    conn.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
    )?;
    if !send_body {
        return conn.flush();
    }
    let meta = serde_json::json!({
        "file": replay.name,
        "format": replay.format.name(),
        "content": replay.content.map(Format::name),
        "bytes": replay.bytes.len(),
        "speed": speed,
    });
    let stream = serde_json::json!({"s": 0, "file": replay.name});
    write!(
        conn,
        "event: meta\ndata: {meta}\n\nevent: stream\ndata: {stream}\n\n"
    )?;
    conn.flush()?;
    // Field events: the page shows each argument's decoded value as it streams.
    let mut config = replay.config.clone().field_events(true);
    if let Some(framing) = replay.framing {
        config = config.framing(framing);
    }
    if let Some(text_format) = replay.content {
        config = config.content_format(text_format);
    }
    let mut parser = Parser::with_config(replay.format, config);
    let mut events = Vec::new();
    let mut buf = String::new();
    let started = Instant::now();
    let send = |events: &mut Vec<toolstream::Event>,
                fed: u64,
                buf: &mut String,
                conn: &mut TcpStream|
     -> std::io::Result<()> {
        let us = started.elapsed().as_micros();
        if events.is_empty() {
            return Ok(());
        }
        buf.clear();
        for e in events.drain(..) {
            let Ok(mut line) = serde_json::to_string(&e) else {
                continue;
            };
            if line.ends_with('}') {
                line.pop();
                line.push_str(&format!(",\"s\":0,\"offset\":{fed},\"us\":{us}}}"));
            }
            buf.push_str("data: ");
            buf.push_str(&line);
            buf.push_str("\n\n");
        }
        conn.write_all(buf.as_bytes())?;
        conn.flush()
    };
    for chunk in replay.bytes.chunks(CHUNK) {
        // `feed` fails only after `finish`, which comes below.
        let _ = parser.feed(chunk, &mut events);
        send(&mut events, parser.bytes_fed(), &mut buf, conn)?;
        crate::pause(PAUSE_MS, speed);
    }
    let _ = parser.finish(&mut events);
    send(&mut events, parser.bytes_fed(), &mut buf, conn)?;
    let us = started.elapsed().as_micros();
    write!(
        conn,
        "event: end\ndata: {{\"s\":0,\"outcome\":\"done\",\"us\":{us}}}\n\n"
    )?;
    conn.flush()
}

#[cfg(test)]
mod tests {
    use super::{LIVE_CSP, LIVE_CSS, LIVE_JS, PAGE, head_end};

    #[test]
    fn head_ends_at_its_blank_line() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nbody"), Some(27));
        assert_eq!(head_end(b"GET / HTTP/1.1\nHost: a\n\n"), Some(24));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: a\r\n"), None);
    }

    #[test]
    fn page_is_self_contained() {
        for asset in [PAGE, LIVE_JS, LIVE_CSS] {
            assert!(!asset.contains("http://") && !asset.contains("https://"));
            // No fonts, images or imports from anywhere.
            for reference in ["url(", "@import", "<img", "<iframe"] {
                assert!(!asset.contains(reference), "{reference}");
            }
        }
        // The script and style sheet from this server (the CSP allows nothing else), no
        // inline script or style; the icon is an empty data: URL, so the browser asks
        // for no /favicon.ico.
        assert_eq!(PAGE.matches(" src=").count(), 1);
        assert!(PAGE.contains(r#"<script src="live.js" defer></script>"#));
        assert!(PAGE.contains(r#"<link rel="stylesheet" href="live.css">"#));
        assert!(PAGE.contains(r#"<link rel="icon" href="data:,">"#));
        assert_eq!(PAGE.matches("href=").count(), 2);
        assert!(!PAGE.contains("<style") && PAGE.matches("<script").count() == 1);
        assert!(LIVE_JS.contains(r#"LIVE ? "/live/events" : "/events""#));
        assert!(LIVE_CSP.contains("script-src 'self'") && !LIVE_CSP.contains("unsafe"));
    }
}
