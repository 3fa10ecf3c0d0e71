//! `toolstream serve FILE --format F`: a live browser view of a replayed stream.
//!
//! A tiny HTTP/1.1 server on 127.0.0.1 (std::net, a thread per connection):
//! - `GET /` — the page (one embedded HTML/JS string, no external resources);
//! - `GET /events` — the replay: FILE fed to the parser 64 bytes at a time, every 10 ms
//!   (scaled by `--speed`), each event sent as it is emitted as an SSE message
//!   `data: {event JSON with "offset"}`; first an `event: meta` message with the file,
//!   format (and `--content` format) and size. Each request replays from the start; the response ends with the
//!   input (the page reads it with `fetch`, so nothing reconnects).
//!
//! The parser runs with [`Parser::field_events`], and the page renders text as it arrives,
//! reasoning in a labelled block that folds, and each tool call as a card: the name the
//! moment it is known, then the arguments as a tree whose values fill in decoded as they
//! stream (`tool_call_field` by JSON Pointer; multi-line strings as lines), the raw JSON
//! arguments behind a toggle, and an error with its kind, message and the raw text it
//! carries. The layout holds from a phone's width to a desktop's.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;
use toolstream::{Format, Framing, Parser};

const CHUNK: usize = 64;
const PAUSE_MS: f64 = 10.0;

struct Replay {
    name: String,
    bytes: Vec<u8>,
    format: Format,
    framing: Option<Framing>,
    content: Option<Format>,
    speed: f64,
    config: toolstream::ParserConfig,
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
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the local address: {e}"))?;
    let name = std::path::Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_owned());
    let replay = Arc::new(Replay {
        name,
        bytes,
        format,
        framing,
        content,
        speed,
        config,
    });
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "toolstream serve: http://{addr}/  (replaying {file} as {format}; Ctrl-C to stop)"
        );
        let _ = out.flush();
    }
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        let replay = Arc::clone(&replay);
        std::thread::spawn(move || {
            // A client that goes away mid-replay is not an error worth reporting.
            let _ = handle(conn, &replay);
        });
    }
    Ok(())
}

fn handle(conn: TcpStream, replay: &Replay) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(10)))?;
    // Each event batch goes out when written (no Nagle wait for the previous one's ACK).
    conn.set_nodelay(true)?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Skip the headers (bounded).
    let mut header = String::new();
    for _ in 0..100 {
        header.clear();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default();
    let path = parts.next().unwrap_or_default();
    let path = path.split('?').next().unwrap_or_default();
    let mut conn = conn;
    match (method, path) {
        ("GET", "/") | ("GET", "/index.html") => respond(
            &mut conn,
            "200 OK",
            "text/html; charset=utf-8",
            PAGE.as_bytes(),
        ),
        ("GET", "/events") => events(&mut conn, replay),
        ("GET", "/favicon.ico") => respond(&mut conn, "204 No Content", "text/plain", b""),
        _ => respond(&mut conn, "404 Not Found", "text/plain", b"not found\n"),
    }
}

fn respond(conn: &mut TcpStream, status: &str, kind: &str, body: &[u8]) -> std::io::Result<()> {
    write!(
        conn,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    conn.write_all(body)?;
    conn.flush()
}

fn events(conn: &mut TcpStream, replay: &Replay) -> std::io::Result<()> {
    conn.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
    )?;
    let meta = serde_json::json!({
        "file": replay.name,
        "format": replay.format.name(),
        "content": replay.content.map(Format::name),
        "bytes": replay.bytes.len(),
    });
    write!(conn, "event: meta\ndata: {meta}\n\n")?;
    conn.flush()?;
    // Field events: the page shows each argument's decoded value as it streams.
    let mut config = replay.config.clone().field_events(true);
    config.framing = replay.framing;
    config.content_format = replay.content;
    let mut parser = Parser::with_config(replay.format, config);
    let mut events = Vec::new();
    let mut buf = String::new();
    let send = |events: &mut Vec<toolstream::Event>,
                fed: u64,
                buf: &mut String,
                conn: &mut TcpStream|
     -> std::io::Result<()> {
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
                line.push_str(&format!(",\"offset\":{fed}}}"));
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
        crate::pause(PAUSE_MS, replay.speed);
    }
    let _ = parser.finish(&mut events);
    send(&mut events, parser.bytes_fed(), &mut buf, conn)?;
    conn.write_all(b"event: end\ndata: {}\n\n")?;
    conn.flush()
}

/// The page (`serve/page.html`, embedded): reads `/events` with `fetch` and renders as
/// events arrive. Self-contained: no external resources.
const PAGE: &str = include_str!("serve/page.html");

#[cfg(test)]
mod tests {
    use super::PAGE;

    #[test]
    fn page_is_self_contained() {
        assert!(!PAGE.contains("http://") && !PAGE.contains("https://"));
        // No external scripts, styles, fonts or images (the icon is an empty data: URL, so
        // the browser asks for no /favicon.ico).
        for reference in [" src=", "url(", "@import", "<img"] {
            assert!(!PAGE.contains(reference), "{reference}");
        }
        assert_eq!(PAGE.matches("href=").count(), 1);
        assert!(PAGE.contains(r#"<link rel="icon" href="data:,">"#));
        assert!(PAGE.contains("fetch(\"/events\""));
    }
}
