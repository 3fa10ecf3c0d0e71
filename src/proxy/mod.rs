//! `toolstream proxy`: a server in front of an OpenAI-compatible Chat Completions server
//! that answers three APIs — OpenAI Chat Completions, Anthropic Messages and OpenAI
//! Responses — and repairs, checks and polices every reply's tool calls as they stream.
//!
//! A thin adapter (hyper server, reqwest upstream, tokio) around [`Parser`], the request
//! translators of [`crate::translate`] and the emitters of [`crate::emit`]: all parsing
//! happens in the sans-IO core, and the proxy's decisions (the policy) are sans-IO too.
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
//!   ([`Tools::from_value`](crate::Tools::from_value)): XML parameter values are typed by their schema and the
//!   marker-less syntaxes recognise only declared names; a request that declares none gets
//!   no `tool_calls` (leaked markup stays its text). Generated call ids are unique per
//!   response ([`IdPrefix::Unique`]). A 2xx JSON reply (`stream: false`) is fixed the same
//!   way: each choice's `message.content` is run through the text scanner and `content`,
//!   `tool_calls` and `finish_reason` rebuilt (calls that fail keep their text in
//!   `content`; the errors are listed in the choice's `toolstream_errors`), and every call,
//!   native or repaired, is held to the policy below.
//! - `POST /v1/messages` (Anthropic Messages, what Claude Code speaks) and
//!   `POST /v1/responses` (OpenAI Responses, what Codex and the OpenAI Agents SDK speak):
//!   the request is translated to a streamed Chat request ([`crate::translate`]: system
//!   prompts, messages, tool calls and results paired by id, tools, `tool_choice`, limits,
//!   thinking) and sent to the upstream's `/v1/chat/completions`; its reply goes through
//!   the same parser and policy as a Chat reply and is written by the front's emitter
//!   ([`AnthropicEmitter`](crate::emit::AnthropicEmitter),
//!   [`OpenAiResponsesEmitter`](crate::emit::OpenAiResponsesEmitter)): streamed, or, when
//!   the client did not ask to stream, collected into the API's whole reply (a `message`,
//!   a `response`). Tool-call ids come out in each API's form (`toolu_…`, `call_…`) by the
//!   reversible mapping of [`crate::emit::ids`], and the next turn's history is mapped back,
//!   so every result pairs with its call upstream. The proxy keeps no state: a Responses
//!   request with `previous_response_id` gets a 400 saying so. An Anthropic client's
//!   `x-api-key` is sent upstream as `Authorization: Bearer`.
//! - `POST /v1/messages/count_tokens`: answered here (the upstream has no such route) with
//!   an estimate, about four bytes of the translated request a token.
//! - Any other `/v1/...` route: passed through unchanged (method, headers, body; the
//!   reply's status, headers and body streamed back as they come).
//! - `GET /live`: the live page (see [The live page](self#the-live-page)), with
//!   `/live.js`, `/live.css` and its feed `/live/events`; it shows the streams of all three
//!   fronts.
//! - `GET /metrics`, `GET /healthz` (`ok`, text/plain) and `GET /` (a short text/plain page
//!   naming the routes); `HEAD` too. None calls the upstream (see
//!   [Observability](self#observability)).
//! - Anything else: 404 with an OpenAI-style error body.
//!
//! Every error reply, the proxy's own and the upstream's, is written in the client API's
//! shape: OpenAI's `{"error": {"message", "type", "param", "code"}}` for Chat and
//! Responses, Anthropic's `{"type": "error", "error": {"type", "message"}}` for Messages
//! (`invalid_request_error`, `authentication_error`, `rate_limit_error`, `api_error`,
//! `overloaded_error`, ... from the status). An upstream's error keeps its status, its
//! rate-limit headers and its message, whatever shape the server wrote it in (vLLM's and
//! SGLang's `{"object": "error", "message"}`, FastAPI's `{"detail"}`, llama.cpp's and
//! Ollama's `{"error": "…"}`, plain text).
//!
//! # Safe by default
//!
//! - **No redirects**: the upstream's 3xx is never followed (the request carries the
//!   client's credentials, which must not reach another origin); the client gets a 502
//!   naming where it pointed.
//! - **Deadlines**: the request head within [`header_read_timeout`](ProxyConfig::header_read_timeout)
//!   (10 s), its body within [`request_timeout`](ProxyConfig::request_timeout)
//!   (`--request-timeout`, 30 s; then 408), so clients trickling bytes cannot hold the
//!   connections.
//! - **Inspected or refused**: a request on a front the proxy cannot read (not JSON, nested
//!   deeper than 128 levels, ...) is refused with 400, never forwarded unpoliced.
//! - **No web pages**: a request whose `Origin` is not the proxy's own gets 403, and a
//!   `POST` whose body is not JSON 415 (what a page can send without asking first), unless
//!   [`allow_origin`](ProxyConfig::allow_origin) (`--allow-origin`) names the origin (then
//!   CORS headers and preflights are answered).
//! - **`/live` behind a token beyond loopback**: listening on another address the page
//!   answers only with the token the proxy prints at start (`/live?token=…`, then kept in
//!   an `HttpOnly`, `SameSite=Strict` cookie).
//! - **Bounded echoes**: a failed call's error repeats at most 4 KiB of its text (a call
//!   over the argument limit is not sent twice).
//!
//! # Honest to agents
//!
//! A refused call (below) never silently vanishes: by default
//! ([`OnRefused::Text`], `--on-refused text`) the reply ends with assistant text naming the
//! tool and the reason — `toolstream: call to rm_rf refused: not among the request's
//! tools` — beside the machine-readable error, so an agent shows it or hands it to its
//! model instead of ending with empty output. An empty 200 reply is an error, never a
//! complete empty answer. In front of vLLM started without a tool parser (which refuses
//! `tool_choice` auto with a 400 naming `--enable-auto-tool-choice`), the proxy sends the
//! request once more with `"tool_choice": "none"` when it reads the calls itself (a content
//! format is set): vLLM then renders the tools and leaves the calls as text
//! ([`UpstreamToolChoice`], `--upstream-tool-choice`).
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
//! # Early policy
//!
//! The parser runs with [`reject_undeclared(false)`](ParserConfig::reject_undeclared), so
//! it reports each call's name the moment it settles, and the proxy checks it:
//!
//! - a call to a tool the request did not declare (when it declared any), or
//! - a second call when the request set `"parallel_tool_calls": false`
//!
//! drops the upstream response at once (its connection closes, so the server stops
//! generating), without forwarding that call or anything after it. The client's stream
//! then ends with what was allowed: a `truncated` error for a call still open (with its
//! argument text), the refusal told as text ([`OnRefused`]), an `undeclared_tool` /
//! `limit_exceeded` error saying which call was refused, and the reply's normal end (Chat:
//! `finish_reason` `tool_calls` if an allowed call went out, else `stop`, and
//! `data: [DONE]`; Messages: `stop_reason` `tool_use` / `end_turn`; Responses:
//! `response.completed`). How the error is written is the emitter's. A non-streamed reply's
//! calls are held to the same rules (refused calls removed and named in the text).
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
//! timeout → 504, both with an error body in the client API's shape (the SDKs raise it as
//! their status error); a non-2xx upstream reply keeps its status and message in that shape
//! (a passed-through route passes it as it came). After it starts: a connection failure or a stall longer than
//! the upstream timeout between two chunks is an error event (kind `truncated`), followed by
//! what the parser's [`finish`](crate::Parser::finish) reports and the emitter's ending; a
//! passed-through body is cut (the client sees an incomplete body, never a clean end).
//!
//! # The live page
//!
//! `GET /live` shows every streamed chat reply the proxy fixes, in flight and recent: pick
//! a stream, watch its text, reasoning and calls form (a call's name the moment it settles,
//! its arguments as they stream, errors with the text they carry; a call refused for breaking
//! its schema or running away (`--validate`, `--max-repeats`) marked on its card with the
//! keyword, the JSON Pointer and the byte of its text it broke at), pause and step through
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
//! # Observability
//!
//! **Access log.** With [`ProxyConfig::log_format`] set to [`LogFormat::Json`] (the CLI's
//! default, `--log-format json`; the library's default is [`LogFormat::Off`]), each request
//! writes one line on stderr when it ends (a streamed reply: when its stream ends; a client
//! gone: when its body is dropped), with one `write` (never interleaved with another
//! line; an error, stderr closed, is ignored). Its fields, in this order: `route` (the
//! proxy's routes by name, other `/v1/...` as `/v1/*`, anything else as `other`),
//! `method`, `model` (a chat request's, else `null`), `status`, `streamed` (the reply is
//! `text/event-stream`), `calls` (tool calls whose start went out to the client), `repaired`
//! (of those, calls the upstream had leaked into its text: [`Parser::call_found_in_text`]),
//! `refused` (calls the policy refused), `cut` (the upstream cut the reply off or stalled),
//! `upstream_status` (`null`: no upstream reply), `ttfb_ms` (request to the first body byte
//! sent), `first_call_ms` (request to the first call's start sent), `duration_ms`,
//! `bytes_in` (upstream body bytes read) and `bytes_out` (body bytes sent):
//!
//! ```text
//! {"route":"/v1/chat/completions","method":"POST","model":"qwen3","status":200,"streamed":true,"calls":1,"repaired":1,"refused":0,"cut":false,"upstream_status":200,"ttfb_ms":2,"first_call_ms":3,"duration_ms":4,"bytes_in":1712,"bytes_out":1203}
//! ```
//!
//! [`LogFormat::Text`] writes the same as words (`toolstream proxy: POST
//! /v1/chat/completions 200 model="qwen3" streamed=true calls=1 ...`). No header and no
//! body is ever logged (the model name is the only request text, cut to 200 characters).
//! Calls are counted for streamed chat replies; a non-streamed reply's line has `calls` 0.
//!
//! **Metrics.** `GET /metrics` answers the OpenMetrics text exposition (which Prometheus
//! scrapes), written by the Prometheus org's `prometheus-client`:
//! `toolstream_proxy_requests_total{route,status}`, `toolstream_proxy_tool_calls_total`,
//! `..._tool_calls_repaired_total`, `..._tool_calls_refused_total`,
//! `..._truncated_replies_total`, `..._upstream_errors_total{status}` (a non-2xx upstream
//! status, or `unreachable` / `timeout` when no reply came), and the histograms
//! `..._ttfb_seconds{route}` and `..._duration_seconds{route}` (5 ms to 82 s). The numbers
//! are the access log's, added when each request ends, whatever the log format.
//!
//! **Shutdown.** [`Proxy::run_until`] stops accepting when its future completes (the
//! listening socket is closed: new connections are refused), lets each connection finish
//! the response in flight, a stream to its end (a `/live` feed is ended), for at most
//! [`ProxyConfig::drain_timeout`] (default 30 s), and returns. `toolstream proxy` runs it
//! until SIGTERM or SIGINT, says so on stderr when draining starts and ends, and exits 0.
//!
//! # Layout
//!
//! A request goes through named steps, each in its own module, in this order:
//! `route` (host guard → route → read body → forward) → `upstream` (headers, the
//! upstream's chunks, pass-through) → `stream` (streamed replies: parse, police, emit) or
//! `whole` (non-streamed replies). `request` reads what the proxy needs from a request;
//! `policy` decides which calls go out (sans-IO: events in, verdicts out); `live` records
//! streams for `/live`; `observe` tallies each request for the access log and `metrics`
//! (`/metrics`); `ops` answers `/`, `/healthz` and `/metrics`. The HTTP helpers below both
//! servers are in `crate::http`.

mod front;
mod live;
mod metrics;
mod observe;
mod ops;
mod policy;
mod request;
mod route;
mod stream;
mod upstream;
mod whole;

pub use crate::http::host_allowed;
pub use live::{LIVE_CSP, LIVE_CSS, LIVE_HTML, LIVE_JS};
pub use observe::LogFormat;

#[cfg(doc)]
use crate::Parser;
use crate::http::chain;
use crate::{Format, IdPrefix, ParserConfig, Syntax};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use observe::{Observed, Observer, Tally};
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
/// Seconds [`ProxyConfig::drain_timeout`] is by default.
pub const DEFAULT_DRAIN_TIMEOUT_SECS: u64 = 30;

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
    log_format: LogFormat,
    drain_timeout: Duration,
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
    /// server started without `--enable-auto-tool-choice` / `--tool-call-parser` (`auto` or
    /// no `tool_choice`; in current vLLM `required` and a named tool too), the request is
    /// sent once more with `"tool_choice": "none"`: vLLM then renders the tools into the
    /// prompt and leaves the reply's calls as text, which the proxy reads (a `required`
    /// call is then no longer forced). Other servers' refusals (llama.cpp without jinja,
    /// an Ollama model without tools) reach the client as they are: no `tool_choice`
    /// changes them. What each server does is in `docs/servers.md`.
    #[default]
    Keep,
    /// Always `"none"`: for vLLM without a tool parser, which renders the tools and
    /// parses nothing. Not for SGLang, which leaves the tools out of the prompt under
    /// `"none"`.
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
            log_format: LogFormat::Off,
            drain_timeout: Duration::from_secs(DEFAULT_DRAIN_TIMEOUT_SECS),
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

    /// The access log: one line per request on stderr when it ends (see
    /// [Observability](self#observability)). Default [`LogFormat::Off`] in the library
    /// (`toolstream proxy` defaults to `--log-format json`).
    #[must_use]
    pub fn log_format(mut self, format: LogFormat) -> Self {
        self.log_format = format;
        self
    }

    /// How long [`Proxy::run_until`] lets the requests in flight (streams included) finish
    /// once its shutdown signal came, before it returns anyway (default 30 s).
    #[must_use]
    pub fn drain_timeout(mut self, timeout: Duration) -> Self {
        self.drain_timeout = timeout;
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
    /// The access log and the metrics.
    observer: Arc<Observer>,
    /// `true` once the proxy drains (ends the `/live` feeds).
    stopping: tokio::sync::watch::Sender<bool>,
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
                observer: Arc::new(Observer {
                    log: config.log_format,
                    metrics: metrics::Metrics::new(),
                }),
                stopping: tokio::sync::watch::Sender::new(false),
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

    /// How long [`run_until`](Proxy::run_until) drains ([`ProxyConfig::drain_timeout`]).
    pub fn drain_timeout(&self) -> Duration {
        self.state.config.drain_timeout
    }

    /// Whether `GET /live` is served ([`ProxyConfig::live_recent`] above 0).
    pub fn live_page(&self) -> bool {
        self.state.live.is_some()
    }

    /// Completes when [`run_until`](Self::run_until) starts draining, once its listening
    /// socket is closed (so a connection attempted after it is refused): `true`; `false` if
    /// the proxy stopped without draining (dropped, or its listener failed for good).
    /// For announcing the drain: a message written when `shutdown` completes would come
    /// before the socket is closed.
    pub fn draining(&self) -> impl Future<Output = bool> + Send + 'static {
        let mut stopping = self.state.stopping.subscribe();
        async move { stopping.wait_for(|s| *s).await.is_ok() }
    }

    /// Serves connections until the future is dropped (or the listener fails for good).
    pub async fn run(self) -> io::Result<()> {
        self.run_until(std::future::pending()).await
    }

    /// Serves connections until `shutdown` completes, then drains: stops accepting (the
    /// listening socket is closed, so new connections are refused), lets the requests in
    /// flight finish (a streamed reply to its end; idle keep-alive connections are closed)
    /// for at most [`drain_timeout`](ProxyConfig::drain_timeout), and returns. Connections
    /// still open then are dropped when the runtime ends.
    ///
    /// ```no_run
    /// # async fn f(proxy: toolstream::proxy::Proxy) -> std::io::Result<()> {
    /// proxy.run_until(async { let _ = tokio::signal::ctrl_c().await; }).await
    /// # }
    /// ```
    pub async fn run_until(self, shutdown: impl Future<Output = ()>) -> io::Result<()> {
        let Proxy { listener, state } = self;
        let limit = Arc::new(Semaphore::new(state.config.max_connections));
        let graceful = GracefulShutdown::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let accepted = tokio::select! {
                () = &mut shutdown => break,
                a = accept(&listener, &limit) => a?,
            };
            let Some((stream, permit)) = accepted else {
                continue;
            };
            // Each relayed chunk goes out at once: Nagle's algorithm would hold a small write
            // while the previous one is unacknowledged (the client's delayed ACK).
            let _ = stream.set_nodelay(true);
            let conn_state = Arc::clone(&state);
            let service = hyper::service::service_fn(move |req: hyper::Request<_>| {
                let state = Arc::clone(&conn_state);
                async move {
                    let tally = Arc::new(Tally::new(req.method(), req.uri().path()));
                    let observer = Arc::clone(&state.observer);
                    let endless = req.uri().path() == "/live/events";
                    let stop = endless.then(|| state.stopping.subscribe());
                    let response = Arc::clone(&tally).scope(handle(req, state)).await;
                    let response = Observed::wrap(response, tally, observer, stop);
                    Ok::<_, std::convert::Infallible>(response)
                }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(state.config.header_read_timeout)
                .serve_connection(TokioIo::new(stream), service);
            // Watched: at shutdown the connection finishes its response in flight (its
            // body to the end: the body relays the upstream as it is polled) and closes.
            let conn = graceful.watch(conn);
            tokio::spawn(async move {
                // A connection's failure (a client gone, a timeout) ends that connection.
                let _ = conn.await;
                drop(permit);
            });
        }
        drop(listener);
        state.stopping.send_replace(true);
        let _ = tokio::time::timeout(state.config.drain_timeout, graceful.shutdown()).await;
        Ok(())
    }
}

/// The next connection, once a connection slot is free; `None` after an accept error
/// (out of file descriptors and the like: after a short wait rather than a spin).
async fn accept(
    listener: &TcpListener,
    limit: &Arc<Semaphore>,
) -> io::Result<Option<(tokio::net::TcpStream, tokio::sync::OwnedSemaphorePermit)>> {
    let permit = Arc::clone(limit)
        .acquire_owned()
        .await
        .map_err(io::Error::other)?;
    match listener.accept().await {
        Ok((stream, _)) => Ok(Some((stream, permit))),
        Err(_) => {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(None)
        }
    }
}
