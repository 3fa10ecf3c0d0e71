//! A request's path through the proxy: host guard → route → read body → forward, and the
//! `/live` routes.

use super::request::{RequestInfo, invalid_tools};
use super::stream::stream_fixed;
use super::upstream::{forward_headers, pass_through};
use super::whole::fix_whole;
use super::{Content, ProxyConfig, State, live};
use super::{LIVE_CSP, LIVE_CSS, LIVE_HTML, LIVE_JS};
use crate::http::{Body, chain, channel_response, error_response, full, host_allowed};
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;
use std::sync::Arc;

pub(super) async fn handle(req: Request<Incoming>, state: Arc<State>) -> Response<Body> {
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
    if let Some(response) = super::ops::route(&req, &state) {
        return response;
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
            Ok(info) => {
                super::observe::note_model(info.as_ref().and_then(|i| i.model.as_deref()));
                info
            }
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
    super::observe::note_upstream(response.status());
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
pub(super) fn live_route(
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
pub(super) fn live_feed(live: &Arc<live::Live>, config: &ProxyConfig) -> Response<Body> {
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
