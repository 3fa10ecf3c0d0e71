//! `toolstream serve FILE [--format F]`: a live browser view of a replayed stream (the
//! format detected from FILE when not given, as `toolstream parse` does).
//!
//! Not an API: the command's implementation, in the library so that it serves with the
//! proxy's HTTP stack (`crate::http`: hyper 1 on tokio, the same accept loop, page
//! responses and channel body) without making that stack public. `toolstream serve`
//! calls [`run`].
//!
//! An HTTP/1.1 server on 127.0.0.1 (hyper, a tokio task per connection):
//! - `GET /` — the live page, the same one `toolstream proxy` serves at `/live`
//!   ([`LIVE_HTML`](crate::proxy::LIVE_HTML), with `live.js` and `live.css` from this
//!   origin, under a `Content-Security-Policy` that allows nothing else);
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
//! Every response closes its connection (`Connection: close`).
//!
//! The page shows what the stream holds (tool arguments may be secrets), so the server
//! answers only requests for its own origin, by the proxy's rule
//! ([`host_allowed`](crate::proxy::host_allowed), listening on 127.0.0.1 with no other
//! name allowed): the `Host` header must be `127.0.0.1:PORT`, `localhost:PORT` or another
//! loopback address literal (`[::1]:PORT`), anything else gets `421 Misdirected Request`
//! (a web site that re-points its own name at 127.0.0.1 — DNS rebinding — sends its own
//! name).
//! By default the port is a free one picked by the system (printed with the URL), so a
//! site cannot guess it either. Bounded: a request head of at most 16 KiB (longer: `431`)
//! read within 10 s (else the connection is closed), writes that stall for 30 s end the
//! connection, and at most 32 connections are served at once (more are answered `503` and
//! closed at once, without reading their request).
//!
//! The parser runs with [`ParserConfig::field_events`], and the page renders text as it arrives,
//! reasoning in a labelled block that folds, and each tool call as a card: the name the
//! moment it is known, then the arguments as a tree whose values fill in decoded as they
//! stream (`tool_call_field` by JSON Pointer; multi-line strings as lines), the raw JSON
//! arguments behind a toggle, and an error with its kind, message and the raw text it
//! carries. The layout holds from a phone's width to a desktop's.
//!
//! # Layout
//!
//! The request path is `answer` (host guard → method → route); the replay is sans-IO
//! (`Replay::start` and `Feed` write SSE messages into a caller's `String`, given the
//! time), driven by the `pace` task, which sleeps between chunks and sends what was
//! written into the response's channel body.

use crate::http::{
    Body, Connections, Overflow, channel_response, event_stream_headers, full, page_response,
    serve_connections,
};
// The page, shared with the proxy's `/live`: reads `/events` with `fetch` and renders as
// events arrive. Self-contained: its script and styles come from this server only.
use crate::proxy::{LIVE_CSP, LIVE_CSS, LIVE_HTML as PAGE, LIVE_JS, host_allowed};
use crate::{Event, Format, Framing, Parser, ParserConfig};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header;
use hyper::server::conn::http1;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioTimer;
use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Bytes fed to the parser at a time.
const CHUNK: usize = 64;
/// The pause after each chunk at speed 1.
const PAUSE: Duration = Duration::from_millis(10);
/// The fastest speed the page's speed control may ask for.
const MAX_SPEED: f64 = 1000.0;
/// The most bytes of a request head (request line and headers) read.
const MAX_HEAD: usize = 16 * 1024;
/// The time a client has to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// A write that makes no progress for this long ends the connection.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections served at once.
const MAX_CONNECTIONS: usize = 32;
/// The answer past [`MAX_CONNECTIONS`], written without reading the request.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 16\r\nRetry-After: 1\r\nConnection: close\r\n\r\ntoo many clients";

/// What is replayed and how: one per server, shared by its connections.
struct Replay {
    name: String,
    bytes: Vec<u8>,
    format: Format,
    framing: Option<Framing>,
    content: Option<Format>,
    speed: f64,
    config: ParserConfig,
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

/// `toolstream serve`: listens on 127.0.0.1:`port` (0: any free port), reads `file` (`-`:
/// stdin), prints the page's URL on stdout and serves until killed. `speed` paces the
/// replay (2: twice as fast, 0: no pauses); `config` is the parser's, to which `framing`
/// and the `content` format are added, with field events on. `format` `None` (or
/// [`Format::Auto`]): the format and framing are detected from the input as `toolstream
/// parse` does ([`detect`](crate::detect::detect)). The error is the message to print.
pub fn run(
    file: &str,
    format: Option<Format>,
    framing: Option<Framing>,
    content: Option<Format>,
    port: u16,
    speed: f64,
    config: ParserConfig,
) -> Result<(), String> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
        let hint = if e.kind() == io::ErrorKind::AddrInUse {
            "; the port is taken: choose another with --port N, or --port 0 for any free port"
        } else {
            ""
        };
        format!("cannot listen on 127.0.0.1:{port}: {e}{hint}")
    })?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the local address: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let (bytes, name) = read_input(file)?;
    let (format, framing) = settle(format, framing, &bytes)?;
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    let shown = if file == "-" { "stdin" } else { file };
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "toolstream serve: http://{addr}/  (replaying {shown} as {format}; Ctrl-C to stop)"
        );
        let _ = out.flush();
    }
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let handler = move |req: Request<Incoming>| {
            let response = answer(&req, &replay);
            async move { response }
        };
        serve_connections(&listener, connections(), handler)
            .await
            .map_err(|e| format!("serving on {addr}: {e}"))
    })
}

/// The format and framing to replay `bytes` with: the given ones, or (no format, or `auto`)
/// those [`detect`](crate::detect::detect) finds in the whole input.
fn settle(
    format: Option<Format>,
    framing: Option<Framing>,
    bytes: &[u8],
) -> Result<(Format, Option<Framing>), String> {
    match format {
        Some(f) if f != Format::Auto => Ok((f, framing)),
        _ => match crate::detect::detect(bytes, true) {
            Some(crate::detect::Detection {
                format: Some(found),
                framing: detected,
            }) => Ok((found, framing.or(Some(detected)))),
            _ => Err(
                "the input looks like SSE but no payload in it names a format; give --format (see `toolstream formats`)"
                    .to_owned(),
            ),
        },
    }
}

/// The server's bounds and HTTP/1 settings. Every response closes its connection (no
/// keep-alive: a browser's idle connections would hold the 32 slots); no `Date` header and
/// header names in title case, as the hand-written server wrote them.
fn connections() -> Connections {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .max_buf_size(MAX_HEAD)
        .keep_alive(false)
        .auto_date_header(false)
        .title_case_headers(true);
    Connections {
        max: MAX_CONNECTIONS,
        overflow: Overflow::Refuse(BUSY),
        write_stall: Some(WRITE_TIMEOUT),
        // Each event batch goes out when written (no Nagle wait for the previous one's ACK).
        nodelay: true,
        http,
    }
}

// ---- the request path: host guard → method → route ----

/// Answers one request (a replay's task is started for `GET /events`).
fn answer(req: &Request<Incoming>, replay: &Arc<Replay>) -> Response<Body> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok());
    if !host_allowed(host, replay.addr, &[]) {
        let body = format!(
            "this server answers only http://127.0.0.1:{0}/ and http://localhost:{0}/\n",
            replay.addr.port()
        );
        return text(StatusCode::MISDIRECTED_REQUEST, body);
    }
    let head_only = match *req.method() {
        Method::GET => false,
        Method::HEAD => true,
        _ => return text(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n"),
    };
    // hyper writes the headers of a HEAD answer (`Content-Length` included) without its body.
    match req.uri().path() {
        "/" | "/index.html" => asset("text/html; charset=utf-8", PAGE),
        "/live.js" => asset("text/javascript; charset=utf-8", LIVE_JS),
        "/live.css" => asset("text/css; charset=utf-8", LIVE_CSS),
        "/events" => {
            let speed = speed_of(req.uri().query(), replay.speed);
            events(replay, speed, head_only)
        }
        "/favicon.ico" => page_response(StatusCode::NO_CONTENT, "text/plain", "", LIVE_CSP),
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
    }
}

/// One of the page's files.
fn asset(kind: &'static str, body: &'static str) -> Response<Body> {
    page_response(StatusCode::OK, kind, body, LIVE_CSP)
}

/// A short plain-text answer (an error), with the page's headers as every answer here.
fn text(status: StatusCode, body: impl Into<Bytes>) -> Response<Body> {
    page_response(status, "text/plain", body, LIVE_CSP)
}

/// The replay's speed: the page's speed control (`speed=X` in the query, 0 to
/// [`MAX_SPEED`]), else the command's `--speed`.
fn speed_of(query: Option<&str>, default: f64) -> f64 {
    query
        .unwrap_or_default()
        .split('&')
        .filter_map(|kv| kv.strip_prefix("speed="))
        .find_map(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .map_or(default, |v| v.min(MAX_SPEED))
}

/// `/events`: the replay's event stream, written by a [`pace`] task (`HEAD`: its headers).
fn events(replay: &Arc<Replay>, speed: f64, head_only: bool) -> Response<Body> {
    if head_only {
        let mut response = Response::new(full(Bytes::new()));
        *response.headers_mut() = event_stream_headers();
        return response;
    }
    let (response, tx) = channel_response(StatusCode::OK, event_stream_headers());
    tokio::spawn(pace(Arc::clone(replay), speed, tx));
    response
}

// ---- the replay's driver: the clock, the pauses, the channel ----

/// Feeds the replay a chunk at a time with a pause after each, sending each chunk's
/// messages as they are written; ends early when the client is gone (the response's body
/// dropped). Writes that stall end the connection, and so this task.
async fn pace(replay: Arc<Replay>, speed: f64, tx: mpsc::Sender<io::Result<Bytes>>) {
    let mut out = String::new();
    replay.start(speed, &mut out);
    if !send(&tx, &mut out).await {
        return;
    }
    let mut feed = Feed::new(&replay);
    let pause = pause_at(speed);
    let started = Instant::now();
    for chunk in replay.bytes.chunks(CHUNK) {
        feed.feed(chunk, started.elapsed().as_micros(), &mut out);
        if !send(&tx, &mut out).await {
            return;
        }
        if let Some(pause) = pause {
            tokio::time::sleep(pause).await;
        }
    }
    feed.finish(started.elapsed().as_micros(), &mut out);
    send(&tx, &mut out).await;
}

/// Sends what `out` holds, if anything, and empties it; `false` when the client is gone.
async fn send(tx: &mpsc::Sender<io::Result<Bytes>>, out: &mut String) -> bool {
    if out.is_empty() {
        return true;
    }
    tx.send(Ok(Bytes::from(std::mem::take(out)))).await.is_ok()
}

/// The pause after each chunk at `speed` (none at 0: as fast as the client reads).
fn pause_at(speed: f64) -> Option<Duration> {
    (speed > 0.0)
        .then(|| Duration::try_from_secs_f64(PAUSE.as_secs_f64() / speed).unwrap_or(Duration::MAX))
}

// ---- the replay, sans-IO: bytes and times in, SSE messages out ----

impl Replay {
    /// The replay's first messages: `event: meta` (the file, format, content format, size
    /// and speed) and `event: stream`.
    fn start(&self, speed: f64, out: &mut String) {
        let meta = serde_json::json!({
            "file": self.name,
            "format": self.format.name(),
            "content": self.content.map(Format::name),
            "bytes": self.bytes.len(),
            "speed": speed,
        });
        let stream = serde_json::json!({"s": 0, "file": self.name});
        let _ = write!(
            out,
            "event: meta\ndata: {meta}\n\nevent: stream\ndata: {stream}\n\n"
        );
    }
}

/// One replay's parser and the messages its events become: [`feed`](Feed::feed) a chunk,
/// [`finish`](Feed::finish) at the end of the input, each given the time since the
/// replay began and writing into the caller's `String`.
struct Feed {
    parser: Parser,
    /// The events of the chunk at hand (reused).
    events: Vec<Event>,
}

impl Feed {
    /// The replay's parser: its config with field events (the page shows each argument's
    /// decoded value as it streams), its framing and content format.
    fn new(replay: &Replay) -> Feed {
        let mut config = replay.config.clone().field_events(true);
        if let Some(framing) = replay.framing {
            config = config.framing(framing);
        }
        if let Some(text_format) = replay.content {
            config = config.content_format(text_format);
        }
        Feed {
            parser: Parser::with_config(replay.format, config),
            events: Vec::new(),
        }
    }

    /// Feeds `chunk`, writing its events as messages (`us`: microseconds since the replay
    /// began).
    fn feed(&mut self, chunk: &[u8], us: u128, out: &mut String) {
        // `feed` fails only after `finish`, which comes last.
        let _ = self.parser.feed(chunk, &mut self.events);
        write_events(&mut self.events, self.parser.bytes_fed(), us, out);
    }

    /// The end of the input: what the parser's `finish` reports, then `event: end`.
    fn finish(&mut self, us: u128, out: &mut String) {
        let _ = self.parser.finish(&mut self.events);
        write_events(&mut self.events, self.parser.bytes_fed(), us, out);
        let _ = write!(
            out,
            "event: end\ndata: {{\"s\":0,\"outcome\":\"done\",\"us\":{us}}}\n\n"
        );
    }
}

/// Writes (and drains) `events` as SSE messages, each event's JSON with `"s":0`, the
/// `offset` (bytes fed so far) and `us` added.
fn write_events(events: &mut Vec<Event>, offset: u64, us: u128, out: &mut String) {
    for e in events.drain(..) {
        let Ok(mut line) = serde_json::to_string(&e) else {
            continue;
        };
        if line.ends_with('}') {
            line.pop();
            let _ = write!(line, ",\"s\":0,\"offset\":{offset},\"us\":{us}}}");
        }
        out.push_str("data: ");
        out.push_str(&line);
        out.push_str("\n\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = concat!(
        r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"save","arguments":"{\"a\": 1}"}}]}}]}"#,
        "\n\n",
        r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        "\n\ndata: [DONE]\n\n",
    );

    fn replay(bytes: &[u8]) -> Replay {
        Replay {
            name: "body.sse".to_owned(),
            bytes: bytes.to_vec(),
            format: Format::OpenAiChat,
            framing: None,
            content: None,
            speed: 1.0,
            config: ParserConfig::new(),
            addr: SocketAddr::from(([127, 0, 0, 1], 4321)),
        }
    }

    /// The whole replay's messages, fed `chunk` bytes at a time, at time 7.
    fn messages(r: &Replay, chunk: usize) -> String {
        let mut out = String::new();
        r.start(2.0, &mut out);
        let mut feed = Feed::new(r);
        for c in r.bytes.chunks(chunk) {
            feed.feed(c, 7, &mut out);
        }
        feed.finish(7, &mut out);
        out
    }

    #[test]
    fn a_replay_is_meta_stream_events_end() {
        let r = replay(BODY.as_bytes());
        let out = messages(&r, CHUNK);
        let blocks: Vec<&str> = out.split_terminator("\n\n").collect();
        assert_eq!(
            blocks.first().copied(),
            Some(
                r#"event: meta
data: {"file":"body.sse","format":"openai-chat","content":null,"bytes":197,"speed":2.0}"#
            )
            .map(|s| s.replace("197", &BODY.len().to_string()))
            .as_deref()
        );
        assert_eq!(
            blocks.get(1).copied(),
            Some("event: stream\ndata: {\"s\":0,\"file\":\"body.sse\"}")
        );
        assert_eq!(
            blocks.last().copied(),
            Some("event: end\ndata: {\"s\":0,\"outcome\":\"done\",\"us\":7}")
        );
        let events = &blocks[2..blocks.len() - 1];
        assert!(!events.is_empty());
        let mut last_offset = 0;
        for e in events {
            let json = e.strip_prefix("data: ").unwrap_or_default();
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            assert_eq!(v["s"], 0, "{e}");
            assert_eq!(v["us"], 7, "{e}");
            let offset = v["offset"].as_u64().unwrap();
            assert!(offset >= last_offset && offset <= BODY.len() as u64, "{e}");
            last_offset = offset;
        }
        assert!(out.contains(r#""type":"tool_call_end""#), "{out}");
        // The same events whatever the chunking (offsets aside).
        let strip = |s: &str| {
            s.lines()
                .filter(|l| l.starts_with("data: {\"type\""))
                .map(|l| {
                    l.split(",\"s\":0,\"offset\"")
                        .next()
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&messages(&r, 1)), strip(&out));
        assert_eq!(strip(&messages(&r, BODY.len())), strip(&out));
    }

    #[test]
    fn an_empty_input_still_ends() {
        let out = messages(&replay(b""), CHUNK);
        assert!(out.starts_with("event: meta\n"), "{out}");
        assert!(out.ends_with("event: end\ndata: {\"s\":0,\"outcome\":\"done\",\"us\":7}\n\n"));
    }

    #[test]
    fn speed_comes_from_the_query_within_bounds() {
        assert_eq!(speed_of(None, 1.5), 1.5);
        assert_eq!(speed_of(Some("speed=0"), 1.5), 0.0);
        assert_eq!(speed_of(Some("x=1&speed=2.5"), 1.5), 2.5);
        assert_eq!(speed_of(Some("speed=1e9"), 1.5), MAX_SPEED);
        for bad in ["speed=-1", "speed=NaN", "speed=inf", "speed=", "speed=fast"] {
            assert_eq!(speed_of(Some(bad), 1.5), 1.5, "{bad}");
        }
        assert_eq!(speed_of(Some("speed=x&speed=3"), 1.5), 3.0);
    }

    #[test]
    fn pauses_scale_with_speed() {
        assert_eq!(pause_at(0.0), None);
        assert_eq!(pause_at(-1.0), None);
        assert_eq!(pause_at(f64::NAN), None);
        assert_eq!(pause_at(1.0), Some(PAUSE));
        assert_eq!(pause_at(2.0), Some(PAUSE / 2));
        assert_eq!(pause_at(1e-300), Some(Duration::MAX));
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
