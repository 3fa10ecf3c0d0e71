//! Small HTTP helpers below both servers (`toolstream proxy` and the pages it shares with
//! `toolstream serve`): the `Host` check, response bodies, error replies, the channel body a
//! task streams into, the pages' responses, and the bounded accept loop
//! (`connections`). Nothing here knows about the proxy's routes or the parser.

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::{Body as HttpBody, Frame};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::json;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// The body of every response the proxy writes.
pub(crate) type Body = BoxBody<Bytes, io::Error>;

// Used by `toolstream serve` (the `cli` feature) for now; `Proxy::run` can move onto it.
#[cfg(feature = "cli")]
mod connections;
#[cfg(feature = "cli")]
pub(crate) use connections::{Connections, Overflow, serve_connections};

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
/// [`ProxyConfig::allow_host`](crate::proxy::ProxyConfig::allow_host): the proxy's [Host check](crate::proxy#the-host-check), which
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

/// An OpenAI-style error reply (what the OpenAI SDKs raise as `APIStatusError`).
pub(crate) fn error_response(status: StatusCode, code: &str, message: &str) -> Response<Body> {
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

pub(crate) fn full(body: impl Into<Bytes>) -> Body {
    Full::new(body.into())
        .map_err(|never| match never {})
        .boxed()
}

/// An error and its sources, one after another (reqwest's own message alone says little).
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

/// The body of a response a task streams into (the `/live` feed): what the task sends.
pub(crate) struct ChannelBody(mpsc::Receiver<Result<Bytes, io::Error>>);

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
pub(crate) fn channel_response(
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

/// A whole response of a page or one of its assets (`kind`: its `Content-Type`), as both
/// servers send the live page: never cached, not sniffed, under the content security
/// policy `csp`.
pub(crate) fn page_response(
    status: StatusCode,
    kind: &'static str,
    body: impl Into<Bytes>,
    csp: &'static str,
) -> Response<Body> {
    let mut response = Response::new(full(body));
    *response.status_mut() = status;
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(csp),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// The headers of a page's event feed: `text/event-stream`, never cached.
pub(crate) fn event_stream_headers() -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers
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
}
