//! The operator's routes: `GET /` (where things are), `GET /healthz`, `GET /metrics`.
//! None of them calls the upstream; all are behind the Host check.

use super::State;
use super::metrics;
use crate::http::{Body, error_response, full};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};

/// The reply to `req` when it is for one of these routes.
pub(crate) fn route<B>(req: &Request<B>, state: &State) -> Option<Response<Body>> {
    let path = req.uri().path();
    if !matches!(path, "/" | "/healthz" | "/metrics") {
        return None;
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return Some(error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            &format!("toolstream proxy: {path} answers GET and HEAD"),
        ));
    }
    let (kind, body) = match path {
        "/healthz" => ("text/plain; charset=utf-8", "ok\n".to_owned()),
        "/metrics" => (metrics::CONTENT_TYPE, state.observer.metrics.encode()),
        _ => ("text/plain; charset=utf-8", index(state.live.is_some())),
    };
    let mut response = Response::new(full(body));
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Some(response)
}

/// `GET /`: what this server is and where its routes are.
fn index(live: bool) -> String {
    let mut s = String::from(
        "toolstream proxy: an OpenAI-compatible server in front of another one, repairing and \
         policing its streamed tool calls.\n\n\
         /v1        the API (base URL for an OpenAI client): POST /v1/chat/completions; \
         other /v1/... routes pass through\n",
    );
    if live {
        s.push_str("/live      the live page: streams in flight and recent\n");
    }
    s.push_str("/metrics   Prometheus metrics\n/healthz   ok\n");
    s
}
