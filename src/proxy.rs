//! `toolstream proxy`: an OpenAI-compatible server in front of another one, whose streamed
//! chat replies are parsed as they arrive and re-emitted as clean OpenAI chunks.
//!
//! A thin adapter (hyper server, reqwest upstream, tokio) around [`Parser`] and
//! [`OpenAiChatEmitter`]: all parsing happens in the sans-IO core.
//!
//! # Routes
//!
//! - `POST /v1/chat/completions`: the request body and headers (`Authorization` included;
//!   hop-by-hop headers, `Host`, `Content-Length` and `Accept-Encoding` dropped) go to the
//!   upstream unchanged. A 2xx `text/event-stream` reply is fed to a [`Parser`] chunk by
//!   chunk (the proxy's format, `openai-chat` by default, with
//!   [`content_format`](ParserConfig::content_format) when set, so calls a server leaked
//!   into `content` become `tool_calls`) and each upstream chunk's events are written to the
//!   client as soon as they are parsed. The request's `tools` are the declared tools
//!   ([`Tools::from_value`]): XML parameter values are typed by their schema and the
//!   marker-less syntaxes recognise only declared names. Generated call ids are unique per
//!   response ([`IdPrefix::Unique`]). A 2xx JSON reply (`stream: false`) is fixed
//!   the same way when a content format is set: each choice's `message.content` is run
//!   through the text scanner and `content`, `tool_calls` and `finish_reason` rebuilt
//!   (calls that fail keep their text in `content`; the errors are listed in the choice's
//!   `toolstream_errors`).
//! - Any other `/v1/...` route: passed through unchanged (method, headers, body; the
//!   reply's status, headers and body streamed back as they come).
//! - `GET /live`: the live page (see [The live page](self#the-live-page)), with
//!   `/live.js`, `/live.css` and its feed `/live/events`.
//! - Anything else: 404 with an OpenAI-style error body.
//!
//! # The upstream URL
//!
//! `--upstream` is the server's base URL, with or without a trailing `/v1` (what an OpenAI
//! client takes as `base_url`): `http://127.0.0.1:8000`, `http://127.0.0.1:8000/v1` and
//! `http://127.0.0.1:8000/v1/` all send `/v1/chat/completions?x=1` to
//! `http://127.0.0.1:8000/v1/chat/completions?x=1`. A base with a path keeps it
//! (`http://gw/openai` → `http://gw/openai/v1/...`). Only `http` and `https` URLs are
//! accepted. An `https` upstream needs the `tls` feature (part of `cli`): reqwest's rustls
//! backend, verifying the server against the system's roots (rustls-platform-verifier)
//! and the CAs given with [`ProxyConfig::upstream_ca_pem`] (`--upstream-ca FILE`, for a
//! private CA or a self-signed server). Without the feature an `https` upstream fails at
//! connect time (502 `upstream_unreachable`).
//!
//! # Early policy (streamed replies)
//!
//! The parser runs with [`reject_undeclared(false)`](ParserConfig::reject_undeclared), so
//! it reports each call's name the moment it settles, and the proxy checks it:
//!
//! - a call to a tool the request did not declare (when it declared any), or
//! - a second call when the request set `"parallel_tool_calls": false`
//!
//! drops the upstream response at once (its connection closes, so the server stops
//! generating), without forwarding that call or anything after it. The client's stream
//! then ends with what was allowed: an `undeclared_tool` / `limit_exceeded` error saying
//! which call was refused (and a `truncated` error for a call still open, with its
//! argument text), a `finish_reason` (`tool_calls` if an allowed call went out, else
//! `stop`) and `data: [DONE]`. How the error is written is the emitter's
//! ([`OpenAiChatEmitter`]).
//!
//! # Failures
//!
//! A chat request whose `tools` cannot be read (not an array, an entry without a name, a
//! tool name declared twice, more than [`MAX_TOOLS_NAMES`](crate::MAX_TOOLS_NAMES), ...)
//! is refused with 400 and OpenAI's own shape for a bad request, `{"error": {"message",
//! "type": "invalid_request_error", "param": "tools", "code": "invalid_tools"}}`, the
//! message naming the problem; nothing goes upstream: the proxy could not tell declared
//! calls from undeclared ones. (`"tools": null` and `"tools": []` declare none.)
//!
//! Before the reply starts: connect failure → 502, no reply headers within the upstream
//! timeout → 504, both with an OpenAI-style `{"error": {"message", "type", "code"}}` body
//! the OpenAI SDKs raise as `APIStatusError`; a non-2xx upstream reply is passed through
//! (status, headers, body). After it starts: a connection failure or a stall longer than
//! the upstream timeout between two chunks is an error event (kind `truncated`), followed by
//! what the parser's [`finish`](Parser::finish) reports and the emitter's ending; a
//! passed-through body is cut (the client sees an incomplete body, never a clean end).
//!
//! # The live page
//!
//! `GET /live` shows every streamed chat reply the proxy fixes, in flight and recent: pick
//! a stream, watch its text, reasoning and calls form (a call's name the moment it settles,
//! its arguments as they stream, errors with the text they carry), pause and step through
//! its events, read the event log (each event with its offset in the upstream body and
//! its time since the request arrived; per call the time to its name and to its end) and
//! copy a call's arguments. It is the page `toolstream serve` shows ([`LIVE_HTML`]), served
//! with its script and style sheet from this origin under [`LIVE_CSP`] (no other script,
//! style, frame or connection), behind the Host check below.
//!
//! The proxy records each such stream as it goes: the events the client is sent, at most
//! 64 KiB of them per stream (then the record says it is full and the stream's end is still
//! shown), and keeps the last [`live_recent`](ProxyConfig::live_recent) ended streams
//! (default 32) besides those in flight. Memory is thus at most
//! `(max_connections + live_recent) × 64 KiB` (~66 MiB with the defaults, in the worst case
//! of every stream past 64 KiB). Recording costs one JSON serialization per event and one
//! lock per upstream chunk; a watcher adds one channel message per chunk
//! (PERFORMANCE.md has the measured cost with the page closed and open).
//! `live_recent(0)` (`--live-recent 0`) turns recording and `/live` off. Non-streamed
//! replies and passed-through routes are not recorded.
//!
//! # The Host check
//!
//! Every route answers only requests whose `Host` names this server, as `toolstream serve`
//! does; any other gets `421 Misdirected Request` (an OpenAI-style error body) and nothing
//! goes upstream. A web page whose site name an attacker re-points at this machine (DNS
//! rebinding) sends that name, so it can neither read `/live` (the streams' arguments) nor
//! spend the upstream through `/v1`. The rule, with `PORT` the port listened on (a `Host`
//! without a port means 80):
//!
//! - listening on a loopback address (`127.0.0.1`, the default, `::1`): `localhost:PORT`
//!   or a loopback address literal (`127.0.0.1:PORT`, `[::1]:PORT`);
//! - listening on another address: that address literal or a loopback one, or
//!   `localhost`, with `PORT`; listening on every address (`0.0.0.0`, `::`): any address
//!   literal with `PORT` (a browser sends an address literal only for a page loaded from
//!   that very address);
//! - and, whatever the address, each name given with
//!   [`allow_host`](ProxyConfig::allow_host) (`--allow-host`): `NAME` with any port or
//!   `NAME:PORT`, which is what a client reaching the proxy by a DNS name, or through a load
//!   balancer that keeps the client's `Host`, needs; `--allow-host '*'` turns the check off.
//!
//! # Bounds
//!
//! Request bodies above [`ProxyConfig::max_body_bytes`] get 413; at most
//! [`ProxyConfig::max_connections`] connections are served at once (more wait in the
//! listen backlog); a connection that does not send its request headers within
//! [`ProxyConfig::header_read_timeout`] is closed. A streamed reply's memory is the parser's
//! (bounded by its [`Limits`](crate::Limits)) plus one upstream chunk; a non-streamed reply
//! to fix is read up to `max_body_bytes` (else 502). A client that disconnects drops the
//! upstream response at once.

mod live;

pub use live::{LIVE_CSP, LIVE_CSS, LIVE_HTML, LIVE_JS};

use crate::emit::OpenAiChatEmitter;
use crate::{
    ErrorKind, Event, FinishReason, Format, IdPrefix, Parser, ParserConfig, Syntax, Tools,
};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited, combinators::BoxBody};
use hyper::body::{Body as HttpBody, Frame, Incoming};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{Value, json};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc};

/// The body of every response the proxy writes.
type Body = BoxBody<Bytes, io::Error>;

/// Settings of a [`Proxy`]: the upstream, how its replies are parsed, and the server's
/// bounds. Builder methods, as [`ParserConfig`]'s.
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    upstream: String,
    format: Format,
    content: Option<Content>,
    upstream_timeout: Duration,
    header_read_timeout: Duration,
    max_body_bytes: usize,
    max_connections: usize,
    allowed_hosts: Vec<String>,
    live_recent: usize,
    upstream_ca: Vec<Vec<u8>>,
}

/// What reads the replies' visible text.
#[derive(Debug, Clone)]
enum Content {
    /// A built-in text format's scanner.
    Format(Format),
    /// A syntax spec's.
    Syntax(Arc<Syntax>),
}

impl ProxyConfig {
    /// A proxy to `upstream` (a base URL, see the [module docs](self)): format
    /// `openai-chat`, no content format, upstream timeout 300 s, header read timeout 10 s,
    /// request bodies up to 32 MiB, 1,024 connections.
    pub fn new(upstream: impl Into<String>) -> Self {
        ProxyConfig {
            upstream: upstream.into(),
            format: Format::OpenAiChat,
            content: None,
            upstream_timeout: Duration::from_secs(300),
            header_read_timeout: Duration::from_secs(10),
            max_body_bytes: 32 << 20,
            max_connections: 1024,
            allowed_hosts: Vec::new(),
            live_recent: 32,
            upstream_ca: Vec::new(),
        }
    }

    /// The format the upstream streams its chat replies in (default `openai-chat`).
    #[must_use]
    pub fn format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    /// Route the replies' visible text through the scanner of text format `text_format`
    /// ([`ParserConfig::content_format`]): calls leaked into `content` become `tool_calls`.
    #[must_use]
    pub fn content_format(mut self, text_format: Format) -> Self {
        self.content = Some(Content::Format(text_format));
        self
    }

    /// Route the replies' visible text through the scanner of `syntax`, a [`Syntax`]
    /// read from a spec ([`ParserConfig::content_syntax`]), instead of a built-in text
    /// format's.
    #[must_use]
    pub fn content_syntax(mut self, syntax: Syntax) -> Self {
        self.content = Some(Content::Syntax(Arc::new(syntax)));
        self
    }

    /// How long to wait for the upstream's reply headers, and for each next chunk of its
    /// body (default 300 s). Also the connect timeout.
    #[must_use]
    pub fn upstream_timeout(mut self, timeout: Duration) -> Self {
        self.upstream_timeout = timeout;
        self
    }

    /// How long a client connection may take to send a request's headers (default 10 s).
    #[must_use]
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// The largest request body accepted (default 32 MiB); also the largest non-streamed
    /// reply the proxy reads to fix.
    #[must_use]
    pub fn max_body_bytes(mut self, n: usize) -> Self {
        self.max_body_bytes = n;
        self
    }

    /// How many client connections are served at once (default 1,024; at least 1).
    #[must_use]
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// Also trust the CA certificates in `pem` (PEM text, one or more certificates) for an
    /// `https://` upstream, besides the system's roots: a private CA, or a self-signed
    /// server's own certificate. Needs the `tls` feature ([`Proxy::bind`] fails without
    /// it, and on PEM text holding no certificate). May be called more than once.
    #[must_use]
    pub fn upstream_ca_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.upstream_ca.push(pem.into());
        self
    }

    /// How many ended streams `GET /live` keeps besides those in flight (default 32; see
    /// [The live page](self#the-live-page)); 0 turns the recording and `/live` off.
    #[must_use]
    pub fn live_recent(mut self, n: usize) -> Self {
        self.live_recent = n;
        self
    }

    /// Also answer requests whose `Host` is `host` (see [Host check](self#the-host-check)):
    /// a name (`proxy.internal`: any port) or a name with its port (`proxy.internal:443`),
    /// matched without regard to case; `*` answers any `Host` (the check is off). May be
    /// called more than once.
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts
            .push(host.into().trim().to_ascii_lowercase());
        self
    }
}

/// A bound proxy server: [`bind`](Proxy::bind) it, read its address, then
/// [`run`](Proxy::run) it.
///
/// ```no_run
/// # async fn f() -> std::io::Result<()> {
/// use toolstream::{Format, proxy::{Proxy, ProxyConfig}};
/// let config = ProxyConfig::new("http://127.0.0.1:8000/v1").content_format(Format::Hermes);
/// let proxy = Proxy::bind("127.0.0.1:8080".parse().unwrap(), config).await?;
/// println!("listening on http://{}", proxy.local_addr()?);
/// proxy.run().await
/// # }
/// ```
#[derive(Debug)]
pub struct Proxy {
    listener: TcpListener,
    state: Arc<State>,
}

#[derive(Debug)]
struct State {
    client: reqwest::Client,
    /// The upstream base, without a trailing `/` or `/v1`.
    base: String,
    config: ProxyConfig,
    /// The address listened on (for the `Host` check).
    local: SocketAddr,
    /// The records `/live` shows (`None`: off).
    live: Option<Arc<live::Live>>,
}

impl Proxy {
    /// Checks the upstream URL and binds `addr` (port 0: any free port, see
    /// [`local_addr`](Proxy::local_addr)).
    pub async fn bind(addr: SocketAddr, config: ProxyConfig) -> io::Result<Proxy> {
        let base = upstream_base(&config.upstream)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let client = reqwest::Client::builder()
            .connect_timeout(config.upstream_timeout)
            .no_proxy();
        let client = with_upstream_ca(client, &config.upstream_ca)?
            .build()
            .map_err(|e| io::Error::other(chain(&e)))?;
        let listener = TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        Ok(Proxy {
            listener,
            state: Arc::new(State {
                client,
                base,
                live: (config.live_recent > 0)
                    .then(|| Arc::new(live::Live::new(config.live_recent))),
                config,
                local,
            }),
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Whether `GET /live` is served ([`ProxyConfig::live_recent`] above 0).
    pub fn live_page(&self) -> bool {
        self.state.live.is_some()
    }

    /// Serves connections until the future is dropped (or the listener fails for good).
    pub async fn run(self) -> io::Result<()> {
        let limit = Arc::new(Semaphore::new(self.state.config.max_connections));
        loop {
            let permit = Arc::clone(&limit)
                .acquire_owned()
                .await
                .map_err(io::Error::other)?;
            let stream = match self.listener.accept().await {
                Ok((stream, _)) => stream,
                // Out of file descriptors and the like: wait a little rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let state = Arc::clone(&self.state);
            tokio::spawn(async move {
                let timeout = state.config.header_read_timeout;
                let service = hyper::service::service_fn(move |req| {
                    let state = Arc::clone(&state);
                    async move { Ok::<_, std::convert::Infallible>(handle(req, state).await) }
                });
                // A connection's failure (a client gone, a timeout) ends that connection.
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(timeout)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                drop(permit);
            });
        }
    }
}

/// The CAs given with [`ProxyConfig::upstream_ca_pem`], trusted besides the system's roots.
#[cfg(feature = "tls")]
fn with_upstream_ca(
    mut client: reqwest::ClientBuilder,
    pems: &[Vec<u8>],
) -> io::Result<reqwest::ClientBuilder> {
    let invalid = |m: String| io::Error::new(io::ErrorKind::InvalidInput, m);
    for pem in pems {
        let certs = reqwest::Certificate::from_pem_bundle(pem)
            .map_err(|e| invalid(format!("--upstream-ca: {}", chain(&e))))?;
        if certs.is_empty() {
            return Err(invalid("--upstream-ca: no PEM certificate in it".into()));
        }
        client = client.tls_certs_merge(certs);
    }
    Ok(client)
}

/// Without the `tls` feature no CA can be used (nor an `https` upstream).
#[cfg(not(feature = "tls"))]
fn with_upstream_ca(
    client: reqwest::ClientBuilder,
    pems: &[Vec<u8>],
) -> io::Result<reqwest::ClientBuilder> {
    if pems.is_empty() {
        Ok(client)
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "--upstream-ca: this build has no TLS (build with the `tls` feature)",
        ))
    }
}

/// The upstream base URL the client's path is appended to.
fn upstream_base(upstream: &str) -> Result<String, String> {
    let url = reqwest::Url::parse(upstream).map_err(|e| format!("--upstream {upstream}: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "--upstream {upstream}: expected an http:// or https:// URL"
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "--upstream {upstream}: a base URL has no query or fragment"
        ));
    }
    let mut base = url.as_str().trim_end_matches('/').to_owned();
    if base.ends_with("/v1") {
        base.truncate(base.len() - 3);
    }
    Ok(base)
}

/// Splits a `Host` header's value into its name (IPv6 literals without brackets) and
/// port; `None` when it is not `name`, `name:port`, `[v6]` or `[v6]:port`.
fn split_host(host: &str) -> Option<(&str, Option<u16>)> {
    let host = host.trim();
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let (v6, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (v6, port)
    } else {
        match host.split_once(':') {
            Some((name, p)) => (name, Some(p)),
            None => (host, None),
        }
    };
    if name.is_empty() || name.contains(['@', '/', '\\', ' ']) {
        return None;
    }
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    Some((name, port))
}

/// Whether a request with this `Host` header (`None`: the request had none) is for a
/// server listening on `local`, with `allowed` the names given with
/// [`ProxyConfig::allow_host`]: the module's [Host check](self#the-host-check), which
/// `toolstream serve` applies too (listening on 127.0.0.1, nothing allowed).
///
/// ```
/// use toolstream::proxy::host_allowed;
/// let local = "127.0.0.1:4321".parse().unwrap();
/// assert!(host_allowed(Some("localhost:4321"), local, &[]));
/// assert!(!host_allowed(Some("rebind.attacker.test:4321"), local, &[]));
/// ```
pub fn host_allowed(host: Option<&str>, local: SocketAddr, allowed: &[String]) -> bool {
    if allowed.iter().any(|a| a == "*") {
        return true;
    }
    let Some((name, port)) = host.and_then(split_host) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    // A name given with --allow-host: any port, or the one given with it.
    let given = allowed.iter().any(|a| match split_host(a) {
        Some((n, None)) => n == name,
        Some((n, Some(p))) => n == name && port.unwrap_or(80) == p,
        None => false,
    });
    if given {
        return true;
    }
    if port.unwrap_or(80) != local.port() {
        return false;
    }
    if name == "localhost" {
        return true;
    }
    let Ok(ip) = name.parse::<std::net::IpAddr>() else {
        // Any other name: what DNS rebinding sends.
        return false;
    };
    let listen = local.ip();
    if listen.is_loopback() {
        ip.is_loopback()
    } else if listen.is_unspecified() {
        // Every address of the machine: an address literal is the browser's own target.
        true
    } else {
        ip == listen || ip.is_loopback()
    }
}

async fn handle(req: Request<Incoming>, state: Arc<State>) -> Response<Body> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok());
    if !host_allowed(host, state.local, &state.config.allowed_hosts) {
        return error_response(
            StatusCode::MISDIRECTED_REQUEST,
            "misdirected_request",
            &format!(
                "toolstream proxy: this server answers only its own addresses (Host {}; got {}); name others with --allow-host",
                state.local,
                host.unwrap_or("none")
            ),
        );
    }
    let path = req.uri().path().to_owned();
    if matches!(
        path.as_str(),
        "/live" | "/live/" | "/live.js" | "/live.css" | "/live/events"
    ) && let Some(live) = &state.live
    {
        return live_route(&req, &path, live, &state.config);
    }
    if !path.starts_with("/v1/") {
        return error_response(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!("toolstream proxy: no route {path} (it serves /v1/...)"),
        );
    }
    let chat = req.method() == Method::POST && path == "/v1/chat/completions";
    let (parts, body) = req.into_parts();
    let body = match Limited::new(body, state.config.max_body_bytes)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            return error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "request_too_large",
                &format!(
                    "toolstream proxy: the request body is larger than {} bytes",
                    state.config.max_body_bytes
                ),
            );
        }
        Err(e) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                &format!("toolstream proxy: reading the request body: {e}"),
            );
        }
    };
    let target = format!(
        "{}{}",
        state.base,
        parts
            .uri
            .path_and_query()
            .map_or(path.as_str(), |p| p.as_str())
    );
    let info = if chat {
        match RequestInfo::read(&body) {
            Ok(info) => info,
            Err(message) => return invalid_tools(&message),
        }
    } else {
        None
    };
    let request = state
        .client
        .request(parts.method, target)
        .headers(forward_headers(&parts.headers, info.is_some()))
        .body(body);
    let response = match tokio::time::timeout(state.config.upstream_timeout, request.send()).await {
        Err(_) => {
            return error_response(
                StatusCode::GATEWAY_TIMEOUT,
                "upstream_timeout",
                &format!(
                    "toolstream proxy: the upstream sent no reply within {} s",
                    state.config.upstream_timeout.as_secs_f64()
                ),
            );
        }
        Ok(Err(e)) => {
            return error_response(
                StatusCode::BAD_GATEWAY,
                "upstream_unreachable",
                &format!("toolstream proxy: upstream request failed: {}", chain(&e)),
            );
        }
        Ok(Ok(response)) => response,
    };
    let Some(info) = info.filter(|_| response.status().is_success()) else {
        return pass_through(response, &state);
    };
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if content_type.starts_with("text/event-stream") {
        stream_fixed(response, info, &state)
    } else if content_type.starts_with("application/json")
        && !info.stream
        && let Some(content) = state.config.content.clone()
    {
        fix_whole(response, info, content, &state).await
    } else {
        pass_through(response, &state)
    }
}

/// `GET /live` (the page), its script and style sheet, and `GET /live/events` (the feed).
fn live_route(
    req: &Request<Incoming>,
    path: &str,
    live: &Arc<live::Live>,
    config: &ProxyConfig,
) -> Response<Body> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "toolstream proxy: the live page answers GET and HEAD",
        );
    }
    let (kind, body) = match path {
        "/live.js" => ("text/javascript; charset=utf-8", LIVE_JS),
        "/live.css" => ("text/css; charset=utf-8", LIVE_CSS),
        "/live/events" => return live_feed(live, config),
        _ => ("text/html; charset=utf-8", LIVE_HTML),
    };
    let mut response = Response::new(full(body));
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(LIVE_CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// The page's feed: a `meta` message, every record as it stands, then what is recorded
/// from now on, until the watcher leaves (or falls [`live::BACKLOG`] batches behind: then
/// an `event: lagged` message and the end; the page connects again).
fn live_feed(live: &Arc<live::Live>, config: &ProxyConfig) -> Response<Body> {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    let (response, tx) = channel_response(StatusCode::OK, headers);
    let meta = json!({
        "mode": "live",
        "format": config.format.name(),
        "content": match &config.content {
            Some(Content::Format(f)) => Some(f.name().to_owned()),
            Some(Content::Syntax(s)) => Some(format!("syntax {}", s.name())),
            None => None,
        },
        "recent": config.live_recent,
        "log_bytes": live::LOG_BYTES,
    });
    let (snapshot, mut rx, mut seen) = live.watch();
    tokio::spawn(async move {
        let first = format!("event: meta\ndata: {meta}\n\n{snapshot}");
        if tx.send(Ok(Bytes::from(first))).await.is_err() {
            return;
        }
        loop {
            let batch = tokio::select! {
                () = tx.closed() => return,
                b = rx.recv() => b,
            };
            let text = match batch {
                Ok(batch) if live::Live::fresh(&mut seen, &batch) => batch.text.clone(),
                Ok(_) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    format!("event: lagged\ndata: {{\"missed\":{n}}}\n\n")
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            };
            let lagged = text.starts_with("event: lagged");
            if tx.send(Ok(Bytes::from(text))).await.is_err() || lagged {
                return;
            }
        }
    });
    response
}

/// What the proxy needs from a chat request.
#[derive(Debug, Clone)]
struct RequestInfo {
    /// The request's `model`, for the live page.
    model: Option<String>,
    stream: bool,
    tools: Option<Tools>,
    parallel: bool,
    /// `stream_options.include_usage`: usage in a chunk of its own (`"choices": []`), as
    /// OpenAI writes it only when asked; otherwise on the finish chunk.
    include_usage: bool,
}

impl RequestInfo {
    /// `Ok(None)` when the body is not a JSON object (then the reply is passed through);
    /// an error when its `tools` cannot be read (a tool name declared twice, ...): the
    /// proxy could not tell declared calls from undeclared ones, so it refuses the request
    /// rather than let every name through.
    fn read(body: &[u8]) -> Result<Option<RequestInfo>, String> {
        let Some(v) = serde_json::from_slice::<Value>(body).ok() else {
            return Ok(None);
        };
        let Some(o) = v.as_object() else {
            return Ok(None);
        };
        let tools = match o.get("tools") {
            None | Some(Value::Null) => None,
            Some(Value::Array(list)) if list.is_empty() => None,
            Some(Value::Array(_)) => Some(
                Tools::from_value(&v)
                    .map_err(|e| format!("toolstream proxy: the request's tools: {e}"))?,
            ),
            Some(other) => {
                let kind = match other {
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    Value::String(_) => "a string",
                    _ => "an object",
                };
                return Err(format!(
                    "toolstream proxy: the request's tools: {kind}, where an array of tools is expected"
                ));
            }
        };
        Ok(Some(RequestInfo {
            model: o.get("model").and_then(Value::as_str).map(str::to_owned),
            stream: o.get("stream").and_then(Value::as_bool).unwrap_or(false),
            tools,
            parallel: o.get("parallel_tool_calls").and_then(Value::as_bool) != Some(false),
            include_usage: o
                .get("stream_options")
                .and_then(|so| so.get("include_usage"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }))
    }

    fn declared(&self, name: &str) -> bool {
        self.tools.as_ref().is_none_or(|t| t.is_declared(name))
    }

    /// The parser settings for this request (`reject`: whether undeclared calls are
    /// errors; off when the proxy checks names itself).
    fn parser_config(&self, content: Option<&Content>, reject: bool) -> ParserConfig {
        let mut config = ParserConfig::new().id_prefix(IdPrefix::Unique);
        match content {
            Some(Content::Format(f)) => config = config.content_format(*f),
            Some(Content::Syntax(s)) => config = config.content_syntax(Arc::clone(s)),
            None => {}
        }
        if let Some(tools) = &self.tools {
            let names: Vec<String> = tools.names().map(str::to_owned).collect();
            config = config
                .tools(tools.clone())
                .reject_undeclared(reject)
                .tool_names(names);
        }
        config
    }
}

/// Headers that describe one connection, not the message (RFC 9110 §7.6.1).
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// `headers` without hop-by-hop ones (those named in `Connection` too), `Host` and
/// `Content-Length` (the client library sets them); without `Accept-Encoding` when the
/// reply is to be parsed (it must come uncompressed).
fn forward_headers(headers: &HeaderMap, parsed: bool) -> HeaderMap {
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_ascii_lowercase())
        .collect();
    let mut out = HeaderMap::new();
    for (name, value) in headers {
        let n = name.as_str();
        if HOP_BY_HOP.contains(&n)
            || named.iter().any(|x| x == n)
            || name == header::HOST
            || name == header::CONTENT_LENGTH
            || (parsed && name == header::ACCEPT_ENCODING)
        {
            continue;
        }
        out.append(name.clone(), value.clone());
    }
    out
}

/// The upstream reply's headers for the client: without hop-by-hop ones and
/// `Content-Length` (the body is streamed), and, for a rewritten body, without
/// `Content-Type` and `Content-Encoding` too.
fn reply_headers(headers: &HeaderMap, rewritten: bool) -> HeaderMap {
    let mut out = forward_headers(headers, false);
    if rewritten {
        out.remove(header::CONTENT_TYPE);
        out.remove(header::CONTENT_ENCODING);
    }
    out
}

/// An OpenAI-style error reply (what the OpenAI SDKs raise as `APIStatusError`).
fn error_response(status: StatusCode, code: &str, message: &str) -> Response<Body> {
    let body = json!({"error": {
        "message": message,
        "type": "toolstream_proxy_error",
        "code": code,
    }});
    let mut response = Response::new(full(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// 400 for a request whose `tools` cannot be read, in the shape OpenAI gives a bad
/// request (`invalid_request_error` naming the `param`), which the SDKs raise as
/// `BadRequestError`.
fn invalid_tools(message: &str) -> Response<Body> {
    let body = json!({"error": {
        "message": message,
        "type": "invalid_request_error",
        "param": "tools",
        "code": "invalid_tools",
    }});
    let mut response = Response::new(full(body.to_string()));
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn full(body: impl Into<Bytes>) -> Body {
    Full::new(body.into())
        .map_err(|never| match never {})
        .boxed()
}

/// An error and its sources, one after another (reqwest's own message alone says little).
fn chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

/// The body of a streamed reply: what the pump task sends.
struct ChannelBody(mpsc::Receiver<Result<Bytes, io::Error>>);

impl HttpBody for ChannelBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        self.0.poll_recv(cx).map(|o| o.map(|r| r.map(Frame::data)))
    }
}

/// A response whose body comes from a fresh channel, and the channel's sender.
fn channel_response(
    status: StatusCode,
    headers: HeaderMap,
) -> (Response<Body>, mpsc::Sender<Result<Bytes, io::Error>>) {
    // Small: the upstream is read only as fast as the client takes the chunks.
    let (tx, rx) = mpsc::channel(4);
    let mut response = Response::new(ChannelBody(rx).boxed());
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    (response, tx)
}

/// What reading the upstream's next chunk gave.
enum Next {
    Chunk(Bytes),
    End,
    Failed(String),
    /// The client went away.
    Gone,
}

/// The upstream's next chunk, unless the client leaves first or the upstream stalls.
async fn next_chunk(
    upstream: &mut reqwest::Response,
    tx: &mpsc::Sender<Result<Bytes, io::Error>>,
    stall: Duration,
) -> Next {
    tokio::select! {
        () = tx.closed() => Next::Gone,
        r = tokio::time::timeout(stall, upstream.chunk()) => match r {
            Ok(Ok(Some(chunk))) => Next::Chunk(chunk),
            Ok(Ok(None)) => Next::End,
            Ok(Err(e)) => Next::Failed(format!(
                "toolstream proxy: the upstream connection failed mid-reply: {}",
                chain(&e)
            )),
            Err(_) => Next::Failed(format!(
                "toolstream proxy: the upstream sent nothing for {} s mid-reply",
                stall.as_secs_f64()
            )),
        },
    }
}

/// Streams the upstream reply back unchanged.
fn pass_through(mut upstream: reqwest::Response, state: &State) -> Response<Body> {
    let headers = reply_headers(upstream.headers(), false);
    let (response, tx) = channel_response(upstream.status(), headers);
    let stall = state.config.upstream_timeout;
    tokio::spawn(async move {
        loop {
            match next_chunk(&mut upstream, &tx, stall).await {
                Next::Chunk(chunk) => {
                    if tx.send(Ok(chunk)).await.is_err() {
                        return;
                    }
                }
                Next::End | Next::Gone => return,
                Next::Failed(message) => {
                    // An error frame: hyper cuts the body, so the client never sees a
                    // clean end.
                    let _ = tx.send(Err(io::Error::other(message))).await;
                    return;
                }
            }
        }
    });
    response
}

/// Parses a streamed chat reply chunk by chunk and writes each chunk's events as OpenAI
/// chunks, applying the early policy.
fn stream_fixed(upstream: reqwest::Response, info: RequestInfo, state: &State) -> Response<Body> {
    let mut headers = reply_headers(upstream.headers(), true);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        HeaderName::from_static("x-toolstream"),
        HeaderValue::from_static("fixed"),
    );
    let (response, tx) = channel_response(upstream.status(), headers);
    let parser = Parser::with_config(
        state.config.format,
        info.parser_config(state.config.content.as_ref(), false),
    );
    let stall = state.config.upstream_timeout;
    let recorder = state.live.as_ref().map(|live| {
        live.begin(json!({
            "model": info.model,
            "tools": info.tools.as_ref().map(|t| t.names().collect::<Vec<_>>()),
            "parallel_tool_calls": info.parallel,
        }))
    });
    let mut policy = Policy::new(info);
    policy.live = recorder;
    tokio::spawn(pump_fixed(upstream, tx, parser, policy, stall));
    response
}

async fn pump_fixed(
    mut upstream: reqwest::Response,
    tx: mpsc::Sender<Result<Bytes, io::Error>>,
    mut parser: Parser,
    mut policy: Policy,
    stall: Duration,
) {
    let mut emitter = OpenAiChatEmitter::new().include_usage(policy.info.include_usage);
    let mut events = Vec::new();
    let mut out = String::new();
    loop {
        let next = next_chunk(&mut upstream, &tx, stall).await;
        let ended = match next {
            Next::Gone => return,
            Next::Chunk(chunk) => {
                // `feed` fails only after `finish`, which comes last here.
                let _ = parser.feed(&chunk, &mut events);
                false
            }
            Next::End => {
                let _ = parser.finish(&mut events);
                policy.outcome("done");
                true
            }
            Next::Failed(message) => {
                policy.outcome("upstream failed");
                events.push(Event::Error {
                    kind: ErrorKind::Truncated,
                    message,
                    index: None,
                    raw: String::new(),
                });
                let _ = parser.finish(&mut events);
                true
            }
        };
        emitter.response_meta(parser.response_meta());
        policy.offset = parser.bytes_fed();
        let stopped = policy.pass(&mut events, &mut emitter, &mut out);
        if let Some(live) = &mut policy.live {
            live.flush();
        }
        if stopped {
            // Close the upstream connection before anything else: it stops generating.
            drop(upstream);
            let _ = tx.send(Ok(Bytes::from(out))).await;
            return;
        }
        if ended {
            emitter.finish(&mut out);
        }
        if !out.is_empty()
            && tx
                .send(Ok(Bytes::from(std::mem::take(&mut out))))
                .await
                .is_err()
        {
            return;
        }
        if ended {
            return;
        }
    }
}

/// The early policy of a streamed reply: which calls go out.
#[derive(Debug)]
struct Policy {
    info: RequestInfo,
    /// Calls let through.
    allowed: usize,
    /// Open calls let through: index and argument text so far.
    open: Vec<(usize, String)>,
    /// The record `/live` shows: every event the client is sent.
    live: Option<live::LiveStream>,
    /// Upstream body bytes parsed so far (the events' offsets on `/live`).
    offset: u64,
}

impl Policy {
    fn new(info: RequestInfo) -> Self {
        Policy {
            info,
            allowed: 0,
            open: Vec::new(),
            live: None,
            offset: 0,
        }
    }

    /// How the live record says the stream ended.
    fn outcome(&mut self, outcome: &'static str) {
        if let Some(live) = &mut self.live {
            live.outcome = outcome;
        }
    }

    /// Writes `event` for the client and records it.
    fn emit(&mut self, event: &Event, emitter: &mut OpenAiChatEmitter, out: &mut String) {
        if let Some(live) = &mut self.live {
            live.event(event, self.offset);
        }
        emitter.event(event, out);
    }

    /// Hands `events` (drained) to the emitter until a call breaks the policy; then ends
    /// the stream (the events after that call are dropped) and returns `true`.
    fn pass(
        &mut self,
        events: &mut Vec<Event>,
        emitter: &mut OpenAiChatEmitter,
        out: &mut String,
    ) -> bool {
        for event in events.drain(..) {
            match &event {
                Event::ToolCallStart { index, id, name } => {
                    let refusal = if !self.info.declared(name) {
                        Some((
                            ErrorKind::UndeclaredTool,
                            format!(
                                "a call to \"{name}\" (id {id}), which the request did not declare: refused, and the upstream reply cut off there"
                            ),
                        ))
                    } else if !self.info.parallel && self.allowed >= 1 {
                        Some((
                            ErrorKind::LimitExceeded,
                            format!(
                                "a second call (\"{name}\", id {id}) while the request set parallel_tool_calls false: refused, and the upstream reply cut off there"
                            ),
                        ))
                    } else {
                        None
                    };
                    if let Some((kind, message)) = refusal {
                        self.stop(kind, message, emitter, out);
                        return true;
                    }
                    self.allowed += 1;
                    self.open.push((*index, String::new()));
                }
                Event::ToolCallArgs { index, delta } => {
                    if let Some(c) = self.open.iter_mut().find(|(i, _)| i == index) {
                        c.1.push_str(delta);
                    }
                }
                Event::ToolCallEnd { index, .. } => self.open.retain(|(i, _)| i != index),
                Event::Error {
                    index: Some(index), ..
                } => self.open.retain(|(i, _)| i != index),
                _ => {}
            }
            self.emit(&event, emitter, out);
        }
        false
    }

    /// Ends the client's stream after a refused call.
    fn stop(
        &mut self,
        kind: ErrorKind,
        message: String,
        emitter: &mut OpenAiChatEmitter,
        out: &mut String,
    ) {
        self.outcome("refused");
        for (index, raw) in std::mem::take(&mut self.open) {
            self.emit(
                &Event::Error {
                    kind: ErrorKind::Truncated,
                    message: "the call was still open when the proxy cut the upstream reply off"
                        .into(),
                    index: Some(index),
                    raw,
                },
                emitter,
                out,
            );
        }
        self.emit(
            &Event::Error {
                kind,
                message,
                index: None,
                raw: String::new(),
            },
            emitter,
            out,
        );
        let reason = if self.allowed > 0 {
            FinishReason::ToolCalls
        } else {
            FinishReason::Stop
        };
        self.emit(
            &Event::Finish {
                reason: Some(reason),
                usage: None,
            },
            emitter,
            out,
        );
        emitter.finish(out);
    }
}

/// Reads a whole JSON chat reply and rebuilds each choice's message from its content.
async fn fix_whole(
    mut upstream: reqwest::Response,
    info: RequestInfo,
    content: Content,
    state: &State,
) -> Response<Body> {
    let status = upstream.status();
    let headers = reply_headers(upstream.headers(), true);
    let limit = state.config.max_body_bytes;
    let mut body = Vec::new();
    loop {
        match tokio::time::timeout(state.config.upstream_timeout, upstream.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                if body.len() + chunk.len() > limit {
                    return error_response(
                        StatusCode::BAD_GATEWAY,
                        "upstream_reply_too_large",
                        &format!(
                            "toolstream proxy: the upstream reply is larger than {limit} bytes"
                        ),
                    );
                }
                body.extend_from_slice(&chunk);
            }
            Ok(Ok(None)) => break,
            Ok(Err(e)) => {
                return error_response(
                    StatusCode::BAD_GATEWAY,
                    "upstream_failed",
                    &format!(
                        "toolstream proxy: the upstream connection failed mid-reply: {}",
                        chain(&e)
                    ),
                );
            }
            Err(_) => {
                return error_response(
                    StatusCode::GATEWAY_TIMEOUT,
                    "upstream_timeout",
                    &format!(
                        "toolstream proxy: the upstream sent nothing for {} s mid-reply",
                        state.config.upstream_timeout.as_secs_f64()
                    ),
                );
            }
        }
    }
    let mut response = match serde_json::from_slice::<Value>(&body) {
        Ok(mut reply) => {
            let mut config = info.parser_config(None, true);
            if !info.parallel {
                config = config.max_calls(1);
            }
            if let Some(choices) = reply.get_mut("choices").and_then(Value::as_array_mut) {
                for choice in choices {
                    fix_choice(choice, &content, &config);
                }
            }
            let mut r = Response::new(full(reply.to_string()));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            r
        }
        // Not JSON after all: as it came.
        Err(_) => Response::new(full(body)),
    };
    *response.status_mut() = status;
    for (name, value) in &headers {
        response
            .headers_mut()
            .entry(name)
            .or_insert_with(|| value.clone());
    }
    response
}

/// Runs one choice's `message.content` through the text scanner and rebuilds `content`,
/// `tool_calls`, `reasoning_content` and `finish_reason`.
fn fix_choice(choice: &mut Value, content: &Content, config: &ParserConfig) {
    let Some(text) = choice
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return;
    };
    let mut parser = match content {
        Content::Format(f) => Parser::with_config(*f, config.clone()),
        Content::Syntax(s) => Parser::with_syntax(Syntax::clone(s), config.clone()),
    };
    let mut events = Vec::new();
    let _ = parser.feed(text.as_bytes(), &mut events);
    let _ = parser.finish(&mut events);
    let (mut content, mut reasoning) = (String::new(), String::new());
    let mut calls = Vec::new();
    let mut errors = Vec::new();
    for event in events {
        match event {
            Event::Text { delta } => content.push_str(&delta),
            Event::Reasoning { delta } => reasoning.push_str(&delta),
            Event::ToolCallEnd {
                id,
                name,
                arguments,
                ..
            } => calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()},
            })),
            Event::Error {
                kind, message, raw, ..
            } => {
                // The model's own text of a call that failed stays where it was.
                content.push_str(&raw);
                errors.push(json!({"type": kind.as_str(), "message": message}));
            }
            _ => {}
        }
    }
    let made_calls = !calls.is_empty();
    let Some(message) = choice.get_mut("message").and_then(Value::as_object_mut) else {
        return;
    };
    if !reasoning.is_empty() {
        let before = message
            .get("reasoning_content")
            .and_then(Value::as_str)
            .unwrap_or("");
        let joined = format!("{before}{reasoning}");
        message.insert("reasoning_content".into(), Value::String(joined));
    }
    if made_calls {
        let mut all = match message.remove("tool_calls") {
            Some(Value::Array(existing)) => existing,
            _ => Vec::new(),
        };
        all.extend(calls);
        message.insert("tool_calls".into(), Value::Array(all));
    }
    let content = if content.is_empty() && made_calls {
        Value::Null
    } else {
        Value::String(content)
    };
    message.insert("content".into(), content);
    if let Some(choice) = choice.as_object_mut() {
        if made_calls {
            choice.insert("finish_reason".into(), Value::String("tool_calls".into()));
        }
        if !errors.is_empty() {
            choice.insert("toolstream_errors".into(), Value::Array(errors));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_check_follows_the_listen_address() {
        let lo: SocketAddr = SocketAddr::from(([127, 0, 0, 1], 4321));
        let none: [String; 0] = [];
        for ok in [
            "127.0.0.1:4321",
            "localhost:4321",
            "LocalHost:4321",
            "[::1]:4321",
            " 127.0.0.1:4321 ",
            "127.0.0.2:4321",
        ] {
            assert!(host_allowed(Some(ok), lo, &none), "{ok}");
        }
        for bad in [
            "rebind.attacker.test:4321",
            "127.0.0.1:4322",
            "127.0.0.1",
            "localhost",
            "localhost.:4321",
            "127.0.0.1.nip.io:4321",
            "[::1]",
            "",
            "127.0.0.1:4321:4321",
            "evil@127.0.0.1:4321",
            "10.0.0.5:4321",
            "[::1]x:4321",
        ] {
            assert!(!host_allowed(Some(bad), lo, &none), "{bad}");
        }
        assert!(!host_allowed(None, lo, &none));
        // No port: 80.
        let lo80: SocketAddr = SocketAddr::from(([127, 0, 0, 1], 80));
        for ok in ["localhost", "[::1]", "127.0.0.1", "localhost:80"] {
            assert!(host_allowed(Some(ok), lo80, &none), "{ok}");
        }
        // On another address: that address, loopback, localhost; no other address.
        let lan: SocketAddr = SocketAddr::from(([10, 0, 0, 5], 8080));
        for ok in ["10.0.0.5:8080", "127.0.0.1:8080", "localhost:8080"] {
            assert!(host_allowed(Some(ok), lan, &none), "{ok}");
        }
        for bad in ["10.0.0.6:8080", "box.lan:8080", "10.0.0.5:80"] {
            assert!(!host_allowed(Some(bad), lan, &none), "{bad}");
        }
        // On every address: any address literal with the port; names only when given.
        let any: SocketAddr = SocketAddr::from(([0, 0, 0, 0], 8080));
        assert!(host_allowed(Some("192.168.1.9:8080"), any, &none));
        assert!(host_allowed(Some("[fe80::1]:8080"), any, &none));
        assert!(!host_allowed(Some("192.168.1.9:8081"), any, &none));
        assert!(!host_allowed(Some("box.lan:8080"), any, &none));
        let given = ["box.lan".to_owned(), "gw.example:443".to_owned()];
        assert!(host_allowed(Some("BOX.lan:9999"), any, &given));
        assert!(host_allowed(Some("box.lan"), any, &given));
        assert!(host_allowed(Some("gw.example:443"), lo, &given));
        assert!(!host_allowed(Some("gw.example"), lo, &given));
        assert!(!host_allowed(Some("other.example:443"), lo, &given));
        assert!(host_allowed(Some("anything:1"), lo, &["*".to_owned()]));
    }

    #[test]
    fn upstream_base_joins_v1_once() {
        for (given, base) in [
            ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
            ("http://127.0.0.1:8000/", "http://127.0.0.1:8000"),
            ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000"),
            ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000"),
            ("http://gw/openai", "http://gw/openai"),
            ("http://gw/openai/v1", "http://gw/openai"),
        ] {
            assert_eq!(upstream_base(given).as_deref(), Ok(base), "{given}");
        }
        assert!(upstream_base("ftp://x").is_err());
        assert!(upstream_base("not a url").is_err());
        assert!(upstream_base("http://x/?a=1").is_err());
    }

    #[test]
    fn hop_by_hop_headers_are_dropped() {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer k"));
        h.insert(
            header::CONNECTION,
            HeaderValue::from_static("close, x-private"),
        );
        h.insert("x-private", HeaderValue::from_static("1"));
        h.insert(header::TE, HeaderValue::from_static("trailers"));
        h.insert(header::HOST, HeaderValue::from_static("proxy"));
        h.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        h.insert("openai-organization", HeaderValue::from_static("org"));
        let out = forward_headers(&h, true);
        let names: Vec<&str> = out.keys().map(HeaderName::as_str).collect();
        assert_eq!(names, ["authorization", "openai-organization"]);
        assert!(forward_headers(&h, false).contains_key(header::ACCEPT_ENCODING));
    }

    #[test]
    fn non_stream_reply_gets_its_leaked_calls() {
        let mut choice = json!({"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant",
            "content": "Sure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        }});
        let info = RequestInfo::read(
            br#"{"tools":[{"type":"function","function":{"name":"get_weather","parameters":{}}}]}"#,
        )
        .ok()
        .flatten();
        let config = info
            .map(|i| i.parser_config(None, true))
            .unwrap_or_default();
        fix_choice(&mut choice, &Content::Format(Format::Hermes), &config);
        assert_eq!(choice["finish_reason"], "tool_calls");
        // The text around the call, byte for byte: the line break before the marker is
        // the model's text too.
        assert_eq!(choice["message"]["content"], "Sure.\n");
        let call = &choice["message"]["tool_calls"][0];
        assert_eq!(call["function"]["name"], "get_weather");
        assert_eq!(call["function"]["arguments"], r#"{"city":"Paris"}"#);
        assert!(choice.get("toolstream_errors").is_none());
    }

    #[test]
    fn unreadable_tools_are_refused() {
        let twice = br#"{"tools":[{"name":"ls","parameters":{}},{"name":"ls","parameters":{}}]}"#;
        let err = RequestInfo::read(twice).err().unwrap_or_default();
        assert!(err.contains("declared twice"), "{err}");
        for (body, says) in [
            (&br#"{"tools":"ls"}"#[..], "a string"),
            (br#"{"tools":{"name":"ls"}}"#, "an object"),
            (br#"{"tools":[{"parameters":{}}]}"#, "no \"name\""),
            (br#"{"tools":[1]}"#, "tools"),
        ] {
            let err = RequestInfo::read(body).err().unwrap_or_default();
            assert!(err.contains(says), "{err}");
        }
        // `null` and `[]` declare no tools.
        for body in [&br#"{"tools":null}"#[..], br#"{"tools":[]}"#] {
            assert!(RequestInfo::read(body).unwrap().unwrap().tools.is_none());
        }
        // Not a JSON object: passed through, no error.
        assert!(matches!(RequestInfo::read(b"not json"), Ok(None)));
    }

    #[test]
    fn non_stream_undeclared_call_stays_text() {
        let text = "<tool_call>\n{\"name\": \"rm\", \"arguments\": {}}\n</tool_call>";
        let mut choice = json!({"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": text,
        }});
        let info = RequestInfo::read(br#"{"tools":[{"name":"ls","parameters":{}}]}"#)
            .ok()
            .flatten();
        let config = info
            .map(|i| i.parser_config(None, true))
            .unwrap_or_default();
        fix_choice(&mut choice, &Content::Format(Format::Hermes), &config);
        assert_eq!(choice["finish_reason"], "stop");
        // The call's raw text (as the scanner reports it) stays in the content.
        let content = choice["message"]["content"].as_str().unwrap_or("");
        assert!(
            content.starts_with("<tool_call>\n{\"name\": \"rm\""),
            "{content}"
        );
        assert!(choice["message"].get("tool_calls").is_none());
        assert_eq!(choice["toolstream_errors"][0]["type"], "undeclared_tool");
    }
}
