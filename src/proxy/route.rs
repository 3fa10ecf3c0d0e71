//! A request's path through the proxy: host guard → route → read body → forward, and the
//! `/live` routes.

// The steps return the response that ends a request early as their `Err`: one per request,
// moved once, so its size (a hyper `Response`) is not worth a box.
#![allow(clippy::result_large_err)]

use super::front::{Front, anthropic_emitter, request_info, responses_emitter};
use super::request::{RequestError, RequestInfo, invalid_tools};
use super::stream::{collect_as, stream_as, stream_fixed};
use super::upstream::{forward_headers, pass_through, read_error_body};
use super::whole::fix_whole;
use super::{Content, ProxyConfig, State, UpstreamToolChoice, live};
use super::{LIVE_CSP, LIVE_CSS, LIVE_HTML, LIVE_JS};
use crate::http::{
    Body, chain, channel_response, error_response, event_stream_headers, full, host_allowed,
    page_response,
};
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;
use std::sync::Arc;

/// A request's answer: the steps below return `Err` with the response that ends it early.
type Step<T> = Result<T, Response<Body>>;

/// Serves one request: host guard → origin guard → route → read body → read request →
/// forward → reply.
pub(super) async fn handle(req: Request<Incoming>, state: Arc<State>) -> Response<Body> {
    match serve(req, &state).await {
        Ok(r) | Err(r) => r,
    }
}

async fn serve(req: Request<Incoming>, state: &State) -> Step<Response<Body>> {
    let path = req.uri().path().to_owned();
    // The API the client speaks, so that even a refusal is written in its shape.
    let front = (req.method() == Method::POST)
        .then(|| Front::of(&path))
        .flatten();
    let speaks = front.unwrap_or(Front::Chat);
    guard_host(&req, state, speaks)?;
    if let Some(response) = super::ops::route(&req, state) {
        return Ok(response);
    }
    let origin = guard_origin(&req, state, speaks)?;
    let route = route(&req, &path, state, front)?;
    let mut reply = match route {
        Route::Live(live) => return Ok(live_route(&req, &path, live, state)),
        Route::Preflight => return Ok(preflight(&req, origin.as_deref())),
        Route::CountTokens => count_tokens(req, state).await?,
        Route::Forward { front: None } => forward_unparsed(req, &path, state).await?,
        Route::Forward { front: Some(front) } => forward_parsed(req, front, state).await?,
    };
    if let Some(origin) = origin {
        allow_origin_headers(reply.headers_mut(), &origin);
    }
    Ok(reply)
}

/// A `/v1/...` route no front answers: passed through as it is (body read first, within
/// the request's bounds).
async fn forward_unparsed(
    req: Request<Incoming>,
    path: &str,
    state: &State,
) -> Step<Response<Body>> {
    let (parts, body) = req.into_parts();
    guard_content_type(&parts, false, Front::Chat)?;
    let body = read_body(body, state, Front::Chat).await?;
    let target = format!(
        "{}{}",
        state.base,
        parts.uri.path_and_query().map_or(path, |p| p.as_str())
    );
    let headers = forward_headers(&parts.headers, false);
    let response = forward(state, &parts.method, &target, &headers, body, Front::Chat).await?;
    Ok(pass_through(response, state))
}

/// A request of one of the fronts: read, translated to the upstream's Chat request,
/// forwarded, and its reply parsed, repaired, policed and written in the front's API.
async fn forward_parsed(
    req: Request<Incoming>,
    front: Front,
    state: &State,
) -> Step<Response<Body>> {
    let (parts, body) = req.into_parts();
    guard_content_type(&parts, true, front)?;
    let body = read_body(body, state, front).await?;
    let unreadable = |message: String| {
        front.error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            &format!("toolstream proxy: the request body cannot be inspected: {message}"),
            None,
        )
    };
    let (info, mut request, translated) = if front == Front::Chat {
        let (info, request) = RequestInfo::read(&body).map_err(|e| match e {
            RequestError::Tools(message) => invalid_tools(&message),
            RequestError::Unreadable(message) => unreadable(message),
        })?;
        (info, request, None)
    } else {
        let client: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| unreadable(e.to_string()))?;
        let t = front.translate(client).map_err(|e| {
            let param = (!e.param().is_empty()).then(|| e.param());
            front.error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                &format!("toolstream proxy: {e}"),
                param,
            )
        })?;
        (request_info(&t, front), t.body.clone(), Some(t))
    };
    super::observe::note_model(info.model.as_deref());
    // The fronts' requests all go to the upstream's Chat route (the query a client adds,
    // like Claude Code's `?beta=true`, is its API's, not the upstream's).
    let target = match &translated {
        None => format!(
            "{}{}",
            state.base,
            parts
                .uri
                .path_and_query()
                .map_or("/v1/chat/completions", |p| p.as_str())
        ),
        Some(_) => format!("{}/v1/chat/completions", state.base),
    };
    let headers = upstream_headers(&parts.headers, front);
    let choice = state.config.upstream_tool_choice;
    let body = match (choice, &state.config.content, &info.tools, &translated) {
        (UpstreamToolChoice::None | UpstreamToolChoice::Auto, Some(_), Some(_), _) => {
            set_tool_choice(&mut request, choice);
            Bytes::from(request.to_string())
        }
        (_, _, _, Some(_)) => Bytes::from(request.to_string()),
        _ => body,
    };
    let mut response = forward(state, &Method::POST, &target, &headers, body, front).await?;
    if !response.status().is_success() {
        let error = read_error_body(response, state).await;
        // vLLM without a tool parser refuses `tool_choice` auto: ask once more with
        // "none" (it renders the tools and leaves the calls as text, which the proxy reads).
        if !retry_with_tool_choice_none(error.status, &error.text, &info, state) {
            return Ok(front.upstream_error(error));
        }
        set_tool_choice(&mut request, UpstreamToolChoice::None);
        let body = Bytes::from(request.to_string());
        response = forward(state, &Method::POST, &target, &headers, body, front).await?;
        if !response.status().is_success() {
            return Ok(front.upstream_error(read_error_body(response, state).await));
        }
    }
    let Some(t) = translated else {
        return Ok(reply(response, info, state).await);
    };
    let streamed = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
    if !streamed {
        return Err(front.error(
            StatusCode::BAD_GATEWAY,
            "upstream_not_streamed",
            "toolstream proxy: the upstream answered a streamed chat request without an event stream",
            None,
        ));
    }
    Ok(match (front, t.stream) {
        (Front::Messages, true) => stream_as(response, info, state, anthropic_emitter(&t)),
        (Front::Messages, false) => collect_as(response, info, state, anthropic_emitter(&t)).await,
        (_, true) => stream_as(response, info, state, responses_emitter(&t)),
        (_, false) => collect_as(response, info, state, responses_emitter(&t)).await,
    })
}

/// The client's headers for the upstream: without hop-by-hop ones (and, parsed, without
/// `Accept-Encoding`); an Anthropic client's `x-api-key` becomes the `Authorization:
/// Bearer` an OpenAI-compatible server reads, and the Anthropic API's own headers
/// (`anthropic-version`, `anthropic-beta`, ...) stay here.
fn upstream_headers(client: &HeaderMap, front: Front) -> HeaderMap {
    let mut headers = forward_headers(client, true);
    if front == Front::Messages {
        if let Some(key) = headers.remove("x-api-key")
            && !headers.contains_key(header::AUTHORIZATION)
            && let Ok(v) = HeaderValue::from_str(&format!("Bearer {}", key.to_str().unwrap_or("")))
        {
            headers.insert(header::AUTHORIZATION, v);
        }
        let anthropic: Vec<_> = headers
            .keys()
            .filter(|k| k.as_str().starts_with("anthropic-"))
            .cloned()
            .collect();
        for k in anthropic {
            headers.remove(k);
        }
    }
    headers
}

/// `POST /v1/messages/count_tokens`: an estimate, without the upstream.
async fn count_tokens(req: Request<Incoming>, state: &State) -> Step<Response<Body>> {
    let front = Front::Messages;
    let (parts, body) = req.into_parts();
    guard_content_type(&parts, true, front)?;
    let body = read_body(body, state, front).await?;
    let request: serde_json::Value = serde_json::from_slice(&body).map_err(|e| {
        front.error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            &e.to_string(),
            None,
        )
    })?;
    let count = super::front::count_tokens(&request).map_err(|e| {
        let param = (!e.param().is_empty()).then(|| e.param());
        front.error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            &e.to_string(),
            param,
        )
    })?;
    let mut response = Response::new(full(count.to_string()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Ok(response)
}

/// Sets the request's `tool_choice` as `choice` says (`Keep`: unchanged).
fn set_tool_choice(request: &mut serde_json::Value, choice: UpstreamToolChoice) {
    let value = match choice {
        UpstreamToolChoice::None => "none",
        UpstreamToolChoice::Auto => "auto",
        _ => return,
    };
    if let Some(o) = request.as_object_mut() {
        o.insert("tool_choice".into(), serde_json::Value::from(value));
    }
}

/// Whether to send a chat request again with `"tool_choice": "none"`: the upstream
/// refused it with vLLM's 400 for a server started without a tool parser
/// (`--enable-auto-tool-choice` / `--tool-call-parser`), the proxy reads calls itself
/// (a content format is set), the request declares tools and `--upstream-tool-choice`
/// is `keep`.
fn retry_with_tool_choice_none(
    status: StatusCode,
    text: &str,
    info: &RequestInfo,
    state: &State,
) -> bool {
    state.config.content.is_some()
        && info.tools.is_some()
        && state.config.upstream_tool_choice == UpstreamToolChoice::Keep
        && super::upstream::refuses_tool_choice_without_parser(status, text)
}

/// A CORS preflight from an allowed origin: 204 allowing `GET` and `POST` with the
/// headers it asks for.
fn preflight(req: &Request<Incoming>, origin: Option<&str>) -> Response<Body> {
    let mut response = Response::new(full(""));
    *response.status_mut() = StatusCode::NO_CONTENT;
    let h = response.headers_mut();
    if let Some(origin) = origin {
        allow_origin_headers(h, origin);
    }
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, OPTIONS"),
    );
    if let Some(asked) = req.headers().get(header::ACCESS_CONTROL_REQUEST_HEADERS) {
        h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, asked.clone());
    }
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    response
}

/// Lets a page of `origin` (allowed with `--allow-origin`) read the reply.
fn allow_origin_headers(headers: &mut HeaderMap, origin: &str) {
    if let Ok(v) = HeaderValue::from_str(origin) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        headers.append(header::VARY, HeaderValue::from_static("Origin"));
    }
}

/// What a request is for.
enum Route<'a> {
    /// `/live`, its script, style sheet and feed.
    Live(&'a Arc<live::Live>),
    /// A CORS preflight (`OPTIONS`) from an allowed origin.
    Preflight,
    /// `POST /v1/messages/count_tokens`, answered here.
    CountTokens,
    /// A `/v1/...` route forwarded upstream: read, translated and repaired for a front,
    /// otherwise passed through.
    Forward { front: Option<Front> },
}

/// Answers only requests whose `Host` names this server (the module's Host check).
fn guard_host(req: &Request<Incoming>, state: &State, front: Front) -> Step<()> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok());
    if host_allowed(host, state.local, &state.config.allowed_hosts) {
        return Ok(());
    }
    Err(front.error(
        StatusCode::MISDIRECTED_REQUEST,
        "misdirected_request",
        &format!(
            "toolstream proxy: this server answers only its own addresses (Host {}; got {}); name others with --allow-host",
            state.local,
            host.unwrap_or("none")
        ),
        None,
    ))
}

/// A browser request from a web page is answered only for the proxy's own origin and the
/// origins given with `--allow-origin`: a foreign `Origin` gets 403. Returns the origin to
/// name in the reply's CORS headers (an allowed foreign one), if any.
fn guard_origin(req: &Request<Incoming>, state: &State, front: Front) -> Step<Option<String>> {
    let Some(origin) = req.headers().get(header::ORIGIN) else {
        return Ok(None);
    };
    let origin = origin
        .to_str()
        .unwrap_or("null")
        .trim()
        .to_ascii_lowercase();
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if origin == format!("http://{host}") {
        return Ok(None);
    }
    let allowed = &state.config.allowed_origins;
    if allowed.iter().any(|a| a == "*" || *a == origin) {
        return Ok(Some(origin));
    }
    Err(front.error(
        StatusCode::FORBIDDEN,
        "origin_not_allowed",
        &format!(
            "toolstream proxy: requests from web pages of {origin} are refused (a page could spend the upstream on your key); allow it with --allow-origin {origin}"
        ),
        None,
    ))
}

/// The route of a request whose host and origin passed.
fn route<'a>(
    req: &Request<Incoming>,
    path: &str,
    state: &'a State,
    front: Option<Front>,
) -> Step<Route<'a>> {
    if matches!(
        path,
        "/live" | "/live/" | "/live.js" | "/live.css" | "/live/events"
    ) && let Some(live) = &state.live
    {
        return Ok(Route::Live(live));
    }
    if !path.starts_with("/v1/") {
        return Err(error_response(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!("toolstream proxy: no route {path} (it serves /v1/...)"),
        ));
    }
    if req.method() == Method::OPTIONS && req.headers().contains_key(header::ORIGIN) {
        return Ok(Route::Preflight);
    }
    if req.method() == Method::POST && path.trim_end_matches('/') == "/v1/messages/count_tokens" {
        return Ok(Route::CountTokens);
    }
    Ok(Route::Forward { front })
}

/// A `POST` body must be JSON (`multipart/form-data` too on a passed-through route, for
/// uploads): a web page can send `text/plain` or a form without asking first, an API
/// client never does. Anything else gets 415.
fn guard_content_type(parts: &hyper::http::request::Parts, parsed: bool, front: Front) -> Step<()> {
    if parts.method != Method::POST {
        return Ok(());
    }
    let kind = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let essence = kind.split(';').next().unwrap_or("").trim();
    let json = essence == "application/json" || essence.ends_with("+json");
    if json || (!parsed && essence == "multipart/form-data") {
        return Ok(());
    }
    Err(front.error(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
        &format!(
            "toolstream proxy: a POST body must be application/json (got {})",
            if kind.is_empty() { "none" } else { &kind }
        ),
        None,
    ))
}

/// The request body, up to `max_body_bytes`, within `request_timeout`.
async fn read_body(body: Incoming, state: &State, front: Front) -> Step<Bytes> {
    let limit = state.config.max_body_bytes;
    let read = Limited::new(body, limit).collect();
    match tokio::time::timeout(state.config.request_timeout, read).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(front.error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request_too_large",
            &format!("toolstream proxy: the request body is larger than {limit} bytes"),
            None,
        )),
        Ok(Err(e)) => Err(front.error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            &format!("toolstream proxy: reading the request body: {e}"),
            None,
        )),
        Err(_) => Err(front.error(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            &format!(
                "toolstream proxy: the request body did not arrive within {} s (--request-timeout)",
                state.config.request_timeout.as_secs_f64()
            ),
            None,
        )),
    }
}

/// Sends the request upstream and waits for its reply's head. A redirect is not followed
/// (it would carry the client's credentials elsewhere): it is an error naming it.
async fn forward(
    state: &State,
    method: &Method,
    target: &str,
    headers: &HeaderMap,
    body: Bytes,
    front: Front,
) -> Step<reqwest::Response> {
    let request = state
        .client
        .request(method.clone(), target)
        .headers(headers.clone())
        .body(body);
    let timeout = state.config.upstream_timeout;
    let response = match tokio::time::timeout(timeout, request.send()).await {
        Err(_) => {
            return Err(front.error(
                StatusCode::GATEWAY_TIMEOUT,
                "upstream_timeout",
                &format!(
                    "toolstream proxy: the upstream sent no reply within {} s",
                    timeout.as_secs_f64()
                ),
                None,
            ));
        }
        Ok(Err(e)) => {
            return Err(front.error(
                StatusCode::BAD_GATEWAY,
                "upstream_unreachable",
                &format!("toolstream proxy: upstream request failed: {}", chain(&e)),
                None,
            ));
        }
        Ok(Ok(response)) => response,
    };
    super::observe::note_upstream(response.status());
    if response.status().is_redirection() {
        let location = response
            .headers()
            .get(header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("nowhere");
        return Err(front.error(
            StatusCode::BAD_GATEWAY,
            "upstream_redirect",
            &format!(
                "toolstream proxy: the upstream answered {} redirecting to {location}: not followed (the request carries your credentials); give --upstream the final URL",
                response.status()
            ),
            None,
        ));
    }
    Ok(response)
}

/// The client's reply to a chat request the upstream answered with 2xx: a stream parsed
/// and repaired, a whole reply fixed, anything else passed through.
async fn reply(response: reqwest::Response, info: RequestInfo, state: &State) -> Response<Body> {
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if content_type.starts_with("text/event-stream") {
        stream_fixed(response, info, state)
    } else if content_type.starts_with("application/json") && !info.stream {
        fix_whole(response, info, state).await
    } else {
        pass_through(response, state)
    }
}

/// `GET /live` (the page), its script and style sheet, and `GET /live/events` (the feed).
pub(super) fn live_route(
    req: &Request<Incoming>,
    path: &str,
    live: &Arc<live::Live>,
    state: &State,
) -> Response<Body> {
    let config = &state.config;
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "toolstream proxy: the live page answers GET and HEAD",
        );
    }
    let mut set_cookie = None;
    if let Some(token) = &state.live_token {
        match live_token_given(req) {
            Some((given, from_query)) if same_secret(&given, token) => {
                if from_query {
                    set_cookie = Some(format!(
                        "{LIVE_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"
                    ));
                }
            }
            _ => {
                return error_response(
                    StatusCode::UNAUTHORIZED,
                    "live_token_required",
                    "toolstream proxy: the live page needs its token (the proxy printed the page's address with ?token=... when it started)",
                );
            }
        }
    }
    let (kind, body) = match path {
        "/live.js" => ("text/javascript; charset=utf-8", LIVE_JS),
        "/live.css" => ("text/css; charset=utf-8", LIVE_CSS),
        "/live/events" => return live_feed(live, config),
        _ => ("text/html; charset=utf-8", LIVE_HTML),
    };
    let mut response = page_response(StatusCode::OK, kind, body, LIVE_CSP);
    if let Some(cookie) = set_cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

/// The cookie the live page's token is kept in once given in its address.
const LIVE_COOKIE: &str = "toolstream_live";

/// The live page's token a request carries: its `token=` query parameter (`true`) or its
/// cookie (`false`).
fn live_token_given(req: &Request<Incoming>) -> Option<(String, bool)> {
    let query = req.uri().query().unwrap_or("");
    if let Some(t) = query.split('&').find_map(|kv| kv.strip_prefix("token=")) {
        return Some((t.to_owned(), true));
    }
    req.headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix(LIVE_COOKIE)?.strip_prefix('='))
        .map(|t| (t.to_owned(), false))
}

/// `a == b`, in a time that does not depend on where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// The page's feed: a `meta` message, every record as it stands, then what is recorded
/// from now on, until the watcher leaves (or falls [`live::BACKLOG`] batches behind: then
/// an `event: lagged` message and the end; the page connects again).
pub(super) fn live_feed(live: &Arc<live::Live>, config: &ProxyConfig) -> Response<Body> {
    let (response, tx) = channel_response(StatusCode::OK, event_stream_headers());
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
