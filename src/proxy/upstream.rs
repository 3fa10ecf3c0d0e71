//! The upstream side: its client's CAs, its base URL, the headers that cross, its reply's
//! chunks, and a reply passed through unchanged.

use super::State;
use crate::http::{Body, chain};
use bytes::Bytes;
use futures_core::Stream;
use hyper::body::{Body as HttpBody, Frame};
use hyper::header::{self, HeaderMap};
use hyper::{Response, StatusCode};
use serde_json::Value;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// The CAs given with [`ProxyConfig::upstream_ca_pem`], trusted besides the system's roots.
#[cfg(feature = "tls")]
pub(super) fn with_upstream_ca(
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
pub(super) fn with_upstream_ca(
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
pub(super) fn upstream_base(upstream: &str) -> Result<String, String> {
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
pub(super) fn forward_headers(headers: &HeaderMap, parsed: bool) -> HeaderMap {
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
pub(super) fn reply_headers(headers: &HeaderMap, rewritten: bool) -> HeaderMap {
    let mut out = forward_headers(headers, false);
    if rewritten {
        out.remove(header::CONTENT_TYPE);
        out.remove(header::CONTENT_ENCODING);
    }
    out
}

/// What reading the upstream's next chunk gave.
pub(super) enum Next {
    Chunk(Bytes),
    End,
    Failed(String),
}

/// The upstream reply's body, chunk by chunk, polled by the body hyper writes to the client
/// (no task between them): waiting longer than `stall` for the next chunk ends it. Dropping
/// it closes the upstream connection (the server stops generating).
///
/// The wait is timed from the first poll that finds no chunk (time the client takes to
/// read does not count), and the stall timer is re-armed lazily: a chunk costs at most a
/// clock read, and only when the timer fires is it moved to `stall` after the wait began,
/// rather than a timer-wheel update per chunk.
pub(super) struct Chunks {
    body: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send + Sync>>,
    stall: Duration,
    timer: Pin<Box<Sleep>>,
    /// When the current wait for a chunk began (`None`: a chunk was just returned).
    waiting_since: Option<Instant>,
}

impl Chunks {
    pub(super) fn new(upstream: reqwest::Response, stall: Duration) -> Chunks {
        let now = Instant::now();
        Chunks {
            body: Box::pin(upstream.bytes_stream()),
            stall,
            timer: Box::pin(tokio::time::sleep_until(now + stall)),
            waiting_since: Some(now),
        }
    }

    /// The upstream's next chunk, or its end, or why it failed.
    pub(super) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Next> {
        if let Poll::Ready(r) = self.body.as_mut().poll_next(cx) {
            return Poll::Ready(match r {
                Some(Ok(chunk)) => {
                    self.waiting_since = None;
                    Next::Chunk(chunk)
                }
                None => Next::End,
                Some(Err(e)) => Next::Failed(format!(
                    "toolstream proxy: the upstream connection failed mid-reply: {}",
                    chain(&e)
                )),
            });
        }
        let since = *self.waiting_since.get_or_insert_with(Instant::now);
        loop {
            ready!(self.timer.as_mut().poll(cx));
            let deadline = since + self.stall;
            if Instant::now() >= deadline {
                return Poll::Ready(Next::Failed(format!(
                    "toolstream proxy: the upstream sent nothing for {} s mid-reply",
                    self.stall.as_secs_f64()
                )));
            }
            // Chunks came since the timer was set: it fires `stall` after this wait began.
            self.timer.as_mut().reset(deadline);
        }
    }
}

/// The body of a passed-through reply: the upstream's chunks as they come (counted in the
/// request's access-log tally).
struct PassBody(Chunks, Option<Arc<super::observe::Tally>>);

impl HttpBody for PassBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        Poll::Ready(match ready!(self.0.poll_next(cx)) {
            Next::Chunk(chunk) => {
                super::observe::add_bytes_in(self.1.as_ref(), chunk.len());
                Some(Ok(Frame::data(chunk)))
            }
            Next::End => None,
            // An error frame: hyper cuts the body, so the client never sees a clean end.
            Next::Failed(message) => Some(Err(io::Error::other(message))),
        })
    }
}

/// Streams the upstream reply back unchanged.
pub(super) fn pass_through(upstream: reqwest::Response, state: &State) -> Response<Body> {
    let headers = reply_headers(upstream.headers(), false);
    let status = upstream.status();
    let mut response = Response::new(Body::new(PassBody(
        Chunks::new(upstream, state.config.upstream_timeout),
        super::observe::tally(),
    )));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// The most bytes of an upstream error body read (the rest is dropped).
const ERROR_BODY_BYTES: usize = 1 << 20;

/// A non-2xx upstream reply read whole (up to [`ERROR_BODY_BYTES`], within the upstream
/// timeout): its status, the headers worth keeping for the client (`retry-after`, rate
/// limits) and its body as text.
pub(super) struct ErrorReply {
    pub(super) status: StatusCode,
    pub(super) headers: HeaderMap,
    pub(super) text: String,
}

/// Reads a non-2xx upstream reply for [`UpstreamError::read`].
pub(super) async fn read_error_body(mut upstream: reqwest::Response, state: &State) -> ErrorReply {
    let status = upstream.status();
    let headers = reply_headers(upstream.headers(), true);
    let mut body = Vec::new();
    let deadline = tokio::time::Instant::now() + state.config.upstream_timeout;
    while body.len() < ERROR_BODY_BYTES {
        match tokio::time::timeout_at(deadline, upstream.chunk()).await {
            Ok(Ok(Some(chunk))) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(ERROR_BODY_BYTES);
    ErrorReply {
        status,
        headers,
        text: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// What an upstream error says, whatever shape the server wrote it in: OpenAI's
/// `{"error": {"message", "type", "param", "code"}}`, vLLM's and SGLang's
/// `{"object": "error", "message", "type", "code"}`, FastAPI's `{"detail": …}`,
/// llama.cpp's and Ollama's `{"error": "…"}`, or plain text.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct UpstreamError {
    /// The server's message (its body's text when it has no message field; cut to 4 KiB).
    pub(super) message: String,
    /// The server's error type, if it named one.
    pub(super) kind: Option<String>,
    /// The request parameter it blames, if any.
    pub(super) param: Option<Value>,
    /// The server's error code, if any.
    pub(super) code: Option<Value>,
}

impl UpstreamError {
    /// Reads the error in `text`, an upstream reply body of status `status`.
    pub(super) fn read(status: StatusCode, text: &str) -> UpstreamError {
        let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let (obj, message) = match &v {
            Value::Object(o) => match o.get("error") {
                Some(Value::Object(e)) => (Some(e), e.get("message").cloned()),
                Some(Value::String(m)) => (None, Some(Value::String(m.clone()))),
                _ => (
                    Some(o),
                    o.get("message").or_else(|| o.get("detail")).cloned(),
                ),
            },
            _ => (None, None),
        };
        let message = match message {
            Some(Value::String(m)) => m,
            Some(other) if !other.is_null() => other.to_string(),
            _ if text.trim().is_empty() => format!("the upstream answered {status} with no body"),
            _ => cut(text.trim(), 4096),
        };
        let field = |k: &str| obj.and_then(|o| o.get(k)).filter(|v| !v.is_null()).cloned();
        UpstreamError {
            message,
            kind: field("type").and_then(|t| t.as_str().map(str::to_owned)),
            param: field("param"),
            code: field("code"),
        }
    }
}

/// Whether an upstream error is vLLM refusing the request's `tool_choice` for want of a
/// tool parser: a 400 whose message names `--enable-auto-tool-choice` (`"auto" tool choice
/// requires --enable-auto-tool-choice and --tool-call-parser to be set`, for `auto` or no
/// `tool_choice`) or says `requires --tool-call-parser` (`tool_choice="required" requires
/// --tool-call-parser to be set`, and the same for a named tool), in either of vLLM's error
/// shapes. Asked again with `"none"`, vLLM keeps the tools in the prompt and leaves the
/// call as text (docs/servers.md). No other server sends it: llama.cpp without jinja
/// (`tools param requires --jinja flag`, a 500) and Ollama with a model whose template has
/// no tools (`… does not support tools`, a 400) refuse the tools themselves, which no
/// `tool_choice` changes; SGLang and LM Studio do not refuse.
pub(super) fn refuses_tool_choice_without_parser(status: StatusCode, text: &str) -> bool {
    if status != StatusCode::BAD_REQUEST {
        return false;
    }
    let message = UpstreamError::read(status, text).message;
    message.contains("--enable-auto-tool-choice") || message.contains("requires --tool-call-parser")
}

/// `text` cut to at most `n` bytes on a char boundary, with `…` when cut.
pub(super) fn cut(text: &str, n: usize) -> String {
    if text.len() <= n {
        return text.to_owned();
    }
    let mut end = n;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", text.get(..end).unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::{HeaderName, HeaderValue};

    #[test]
    fn upstream_errors_are_read_in_every_servers_shape() {
        let bad = StatusCode::BAD_REQUEST;
        let openai = UpstreamError::read(
            bad,
            r#"{"error":{"message":"m1","type":"invalid_request_error","param":"tools","code":"c"}}"#,
        );
        assert_eq!(openai.message, "m1");
        assert_eq!(openai.kind.as_deref(), Some("invalid_request_error"));
        assert_eq!(openai.param, Some(Value::from("tools")));
        let vllm = UpstreamError::read(
            bad,
            r#"{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}"#,
        );
        assert!(vllm.message.starts_with("\"auto\" tool choice"), "{vllm:?}");
        assert_eq!(vllm.kind.as_deref(), Some("BadRequestError"));
        assert_eq!(vllm.param, None);
        assert_eq!(vllm.code, Some(Value::from(400)));
        assert_eq!(
            UpstreamError::read(bad, r#"{"detail":"Not Found"}"#).message,
            "Not Found"
        );
        assert_eq!(
            UpstreamError::read(bad, r#"{"error":"model 'x' not found"}"#).message,
            "model 'x' not found"
        );
        assert_eq!(UpstreamError::read(bad, "  oops \n").message, "oops");
        assert_eq!(
            UpstreamError::read(StatusCode::BAD_GATEWAY, "").message,
            "the upstream answered 502 Bad Gateway with no body"
        );
        assert_eq!(
            UpstreamError::read(bad, &"é".repeat(5000)).message.len(),
            4096 + 3
        );
    }

    /// Each server's answer to a request it cannot serve for want of a tool parser, as its
    /// source writes it (docs/servers.md): only vLLM's are asked again with "none".
    #[test]
    fn only_vllms_tool_parser_refusals_are_asked_again() {
        let bad = StatusCode::BAD_REQUEST;
        let retried = [
            // vLLM, current error shape: auto (or no tool_choice), required, a named tool.
            r#"{"error":{"message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}}"#,
            r#"{"error":{"message":"tool_choice=\"required\" requires --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}}"#,
            r#"{"error":{"message":"tool_choice=function \"get_weather\" requires --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}}"#,
            // vLLM, older shape.
            r#"{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}"#,
        ];
        for body in retried {
            assert!(refuses_tool_choice_without_parser(bad, body), "{body}");
        }
        let passed_on = [
            // llama.cpp without jinja: a 500, and so is its tool_choice refusal.
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#,
            ),
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                r#"{"error":{"code":500,"message":"tool_choice param requires --jinja flag","type":"server_error"}}"#,
            ),
            // Ollama, a model whose template has no tools.
            (
                bad,
                r#"{"error":{"message":"registry.ollama.ai/library/gemma3:4b does not support tools","type":"invalid_request_error","param":null,"code":null}}"#,
            ),
            // vLLM refusing something else that names the flag in passing.
            (
                bad,
                r#"{"error":{"message":"invalid tool parser 'hermez': see --tool-call-parser","type":"BadRequestError","param":null,"code":400}}"#,
            ),
            // The same words with another status.
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                r#"{"error":{"message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"InternalServerError","param":null,"code":500}}"#,
            ),
        ];
        for (status, body) in passed_on {
            assert!(!refuses_tool_choice_without_parser(status, body), "{body}");
        }
    }

    #[test]
    pub(super) fn upstream_base_joins_v1_once() {
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
    pub(super) fn hop_by_hop_headers_are_dropped() {
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
}
