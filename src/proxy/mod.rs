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
//!
//! # Layout
//!
//! A request goes through named steps, each in its own module, in this order:
//! `route` (host guard → route → read body → forward) → `upstream` (headers, the
//! upstream's chunks, pass-through) → `stream` (streamed replies: parse, police, emit) or
//! `whole` (non-streamed replies). `request` reads what the proxy needs from a request;
//! `policy` decides which calls go out (sans-IO: events in, verdicts out); `live` records
//! streams for `/live`. The HTTP helpers below both servers are in `crate::http`.

mod live;
mod policy;
mod request;
mod route;
mod stream;
mod upstream;
mod whole;

pub use crate::http::host_allowed;
pub use live::{LIVE_CSP, LIVE_CSS, LIVE_HTML, LIVE_JS};

use crate::http::chain;
use crate::{Format, IdPrefix, ParserConfig, Syntax};
use hyper_util::rt::{TokioIo, TokioTimer};
use route::handle;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use upstream::{upstream_base, with_upstream_ca};

/// Seconds [`ProxyConfig::upstream_timeout`] is by default.
pub const DEFAULT_UPSTREAM_TIMEOUT_SECS: u64 = 300;
/// Seconds [`ProxyConfig::header_read_timeout`] is by default.
pub const DEFAULT_HEADER_READ_TIMEOUT_SECS: u64 = 10;
/// Seconds [`ProxyConfig::request_timeout`] is by default.
pub const DEFAULT_REQUEST_TIMEOUT_SECS: u64 = 30;
/// [`ProxyConfig::max_body_bytes`] by default (32 MiB).
pub const DEFAULT_MAX_BODY_BYTES: usize = 32 << 20;
/// [`ProxyConfig::max_connections`] by default.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// [`ProxyConfig::live_recent`] by default.
pub const DEFAULT_LIVE_RECENT: usize = 32;

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
    /// The parser settings every request's parser starts from.
    parser: ParserConfig,
    request_timeout: Duration,
    allowed_origins: Vec<String>,
    on_refused: OnRefused,
    upstream_tool_choice: UpstreamToolChoice,
}

/// What the client is told when the proxy refuses a call (an undeclared tool, a second
/// call under `parallel_tool_calls: false`): [`ProxyConfig::on_refused`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OnRefused {
    /// The reply ends with assistant text naming the tool and the reason
    /// (`toolstream: call to rm_rf refused: not among the request's tools`), beside the
    /// machine-readable error: an agent shows it, or hands it to the model as its answer,
    /// instead of ending with empty output.
    #[default]
    Text,
    /// Only the machine-readable error (`toolstream_error` in OpenAI chunks, the error
    /// event or object of the other APIs): the reply's text is what the model wrote.
    Error,
}

/// What the proxy sends upstream as the request's `tool_choice` when a content format
/// repairs leaked calls: [`ProxyConfig::upstream_tool_choice`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum UpstreamToolChoice {
    /// The client's own `tool_choice`; if the upstream refuses it with vLLM's 400 for a
    /// server started without `--enable-auto-tool-choice` / `--tool-call-parser`, the
    /// request is sent once more with `"tool_choice": "none"` (the server then renders the
    /// tools into the prompt and leaves the reply's calls as text, which the proxy reads).
    #[default]
    Keep,
    /// Always `"none"` (the server renders the tools and parses nothing).
    None,
    /// Always `"auto"`.
    Auto,
}

/// What reads the replies' visible text.
#[derive(Debug, Clone)]
pub(crate) enum Content {
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
            upstream_timeout: Duration::from_secs(DEFAULT_UPSTREAM_TIMEOUT_SECS),
            header_read_timeout: Duration::from_secs(DEFAULT_HEADER_READ_TIMEOUT_SECS),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            allowed_hosts: Vec::new(),
            live_recent: DEFAULT_LIVE_RECENT,
            upstream_ca: Vec::new(),
            parser: ParserConfig::new().id_prefix(IdPrefix::Unique),
            request_timeout: Duration::from_secs(DEFAULT_REQUEST_TIMEOUT_SECS),
            allowed_origins: Vec::new(),
            on_refused: OnRefused::Text,
            upstream_tool_choice: UpstreamToolChoice::Keep,
        }
    }

    /// How long a client has to send a request's body once its headers arrived (default
    /// 30 s): a slower one gets 408, so clients trickling bytes cannot hold the
    /// connections.
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Also answer browser requests from web pages of `origin` (`https://app.example`, as
    /// the `Origin` header spells it; `*`: any). Without it a request whose `Origin` is not
    /// the proxy's own gets 403, so no web page can spend the upstream on the user's key.
    /// May be called more than once.
    #[must_use]
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(
            origin
                .into()
                .trim()
                .trim_end_matches('/')
                .to_ascii_lowercase(),
        );
        self
    }

    /// What the client is told of a refused call (default [`OnRefused::Text`]).
    #[must_use]
    pub fn on_refused(mut self, on: OnRefused) -> Self {
        self.on_refused = on;
        self
    }

    /// The `tool_choice` sent upstream when a content format is set (default
    /// [`UpstreamToolChoice::Keep`]).
    #[must_use]
    pub fn upstream_tool_choice(mut self, choice: UpstreamToolChoice) -> Self {
        self.upstream_tool_choice = choice;
        self
    }

    /// The parser settings every request's parser starts from (default:
    /// `ParserConfig::new().id_prefix(IdPrefix::Unique)`): limits, reasoning options,
    /// `tool_names`, ids. The proxy adds each request's declared tools to them (and the
    /// content format given here with [`content_format`](Self::content_format) or
    /// [`content_syntax`](Self::content_syntax)); set no `tools` here (a request that
    /// declares none would be held to them).
    #[must_use]
    pub fn parser_config(mut self, config: ParserConfig) -> Self {
        self.parser = config;
        self
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

/// 128 random bits as 32 hex digits, for the live page's token: from the operating
/// system's generator (`/dev/urandom`), else from [`fresh_uuid`](crate::emit) twice.
fn random_token() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_ok() {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    } else {
        format!("{}{}", crate::emit::fresh_uuid(), crate::emit::fresh_uuid()).replace('-', "")
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
pub(crate) struct State {
    client: reqwest::Client,
    /// The upstream base, without a trailing `/` or `/v1`.
    base: String,
    config: ProxyConfig,
    /// The address listened on (for the `Host` check).
    local: SocketAddr,
    /// The records `/live` shows (`None`: off).
    live: Option<Arc<live::Live>>,
    /// The token `/live` asks for (`None`: none, listening on loopback only).
    live_token: Option<String>,
}

impl Proxy {
    /// Checks the upstream URL and binds `addr` (port 0: any free port, see
    /// [`local_addr`](Proxy::local_addr)).
    pub async fn bind(addr: SocketAddr, config: ProxyConfig) -> io::Result<Proxy> {
        let base = upstream_base(&config.upstream)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        // No redirects: the request carries the client's credentials (`Authorization`,
        // `x-api-key`), which must not reach another origin; a 3xx goes back as an error.
        let client = reqwest::Client::builder()
            .connect_timeout(config.upstream_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy();
        let client = with_upstream_ca(client, &config.upstream_ca)?
            .build()
            .map_err(|e| io::Error::other(chain(&e)))?;
        let listener = TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        let live_token = (config.live_recent > 0 && !local.ip().is_loopback()).then(random_token);
        Ok(Proxy {
            listener,
            state: Arc::new(State {
                client,
                base,
                live: (config.live_recent > 0)
                    .then(|| Arc::new(live::Live::new(config.live_recent))),
                config,
                local,
                live_token,
            }),
        })
    }

    /// The live page's address as the user opens it: `http://ADDR/live`, with
    /// `?token=…` when the proxy listens beyond loopback (then `/live` answers only with
    /// the token, which the page keeps in a cookie); `None` when the page is off.
    pub fn live_url(&self) -> Option<String> {
        self.state.live.as_ref()?;
        let addr = self.local_addr().ok()?;
        Some(match &self.state.live_token {
            Some(t) => format!("http://{addr}/live?token={t}"),
            None => format!("http://{addr}/live"),
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
            // Each relayed chunk goes out at once: Nagle's algorithm would hold a small write
            // while the previous one is unacknowledged (the client's delayed ACK).
            let _ = stream.set_nodelay(true);
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
