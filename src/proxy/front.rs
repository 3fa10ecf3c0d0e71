//! The client APIs the proxy answers, each a translator in and an emitter out around the
//! one event model: OpenAI Chat Completions (`POST /v1/chat/completions`, the upstream's
//! own API), Anthropic Messages (`POST /v1/messages`) and OpenAI Responses
//! (`POST /v1/responses`). Nothing else in the pipeline knows which API a client speaks.
//!
//! A Messages or Responses request is translated to a streamed Chat request
//! ([`crate::translate`]) for the upstream's `/v1/chat/completions`; its reply is parsed,
//! repaired and policed like a Chat reply, then written by that API's emitter: streamed,
//! or collected into the API's whole reply when the client did not ask to stream. Errors,
//! the proxy's own and the upstream's, are written in the client API's error shape.

use super::request::RequestInfo;
use super::upstream::{ErrorReply, UpstreamError};
use crate::emit::{AnthropicEmitter, OpenAiResponsesEmitter};
use crate::http::{Body, full};
use crate::translate::{self, Translated};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

/// The API a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Front {
    /// OpenAI Chat Completions: the upstream's own API, passed on as it is.
    Chat,
    /// Anthropic Messages.
    Messages,
    /// OpenAI Responses.
    Responses,
}

impl Front {
    /// The front of a `POST` to `path`, if one answers it.
    pub(super) fn of(path: &str) -> Option<Front> {
        match path.trim_end_matches('/') {
            "/v1/chat/completions" => Some(Front::Chat),
            "/v1/messages" => Some(Front::Messages),
            "/v1/responses" => Some(Front::Responses),
            _ => None,
        }
    }

    /// The route's name (for logs and `/live`).
    pub(super) fn route(self) -> &'static str {
        match self {
            Front::Chat => "/v1/chat/completions",
            Front::Messages => "/v1/messages",
            Front::Responses => "/v1/responses",
        }
    }

    /// An error reply of the proxy's own in this API's shape: OpenAI's
    /// `{"error": {"message", "type", "param", "code"}}` for Chat and Responses,
    /// Anthropic's `{"type": "error", "error": {"type", "message"}}` for Messages (its type
    /// from the status, as Anthropic's API sets it), which each API's SDKs raise with the
    /// message.
    pub(super) fn error(
        self,
        status: StatusCode,
        code: &str,
        message: &str,
        param: Option<&str>,
    ) -> Response<Body> {
        match self {
            Front::Messages => {
                json_response(status, anthropic_error(status, message), HeaderMap::new())
            }
            Front::Chat | Front::Responses if param.is_none() => {
                crate::http::error_response(status, code, message)
            }
            Front::Chat | Front::Responses => json_response(
                status,
                json!({"error": {
                    "message": message,
                    "type": "invalid_request_error",
                    "param": param,
                    "code": code,
                }}),
                HeaderMap::new(),
            ),
        }
    }

    /// An upstream error reply in this API's shape, with the upstream's status, message
    /// and rate-limit headers (`retry-after`, ...). A Chat client gets a body already in
    /// OpenAI's shape unchanged.
    pub(super) fn upstream_error(self, reply: ErrorReply) -> Response<Body> {
        let e = UpstreamError::read(reply.status, &reply.text);
        let body = match self {
            Front::Messages => anthropic_error(reply.status, &e.message),
            Front::Chat
                if serde_json::from_str::<Value>(&reply.text)
                    .ok()
                    .is_some_and(|v| v.get("error").is_some_and(Value::is_object)) =>
            {
                let mut r = Response::new(full(reply.text));
                *r.status_mut() = reply.status;
                *r.headers_mut() = reply.headers;
                r.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                return r;
            }
            Front::Chat | Front::Responses => json!({"error": {
                "message": e.message,
                "type": e.kind.unwrap_or_else(|| "upstream_error".into()),
                "param": e.param,
                "code": e.code.unwrap_or_else(|| reply.status.as_u16().into()),
            }}),
        };
        json_response(reply.status, body, reply.headers)
    }

    /// Translates a Messages or Responses request to the upstream's Chat request (a Chat
    /// request is its own translation).
    pub(super) fn translate(self, request: Value) -> Result<Translated, translate::TranslateError> {
        match self {
            Front::Messages => translate::from_messages(&request),
            Front::Responses => translate::from_responses(&request),
            Front::Chat => Err(translate::TranslateError::new(
                "",
                "a Chat request is not translated",
            )),
        }
    }
}

/// What the proxy reads from a translated request, as from a Chat request.
pub(super) fn request_info(t: &Translated, front: Front) -> RequestInfo {
    RequestInfo {
        model: t.model.clone(),
        stream: t.stream,
        tools: t.tools.clone(),
        parallel: t.parallel_tool_calls,
        include_usage: true,
        route: front.route(),
    }
}

/// Anthropic's error type for an HTTP status, as its API sets it.
fn anthropic_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 | 405 | 408 | 409 | 411 | 415 | 421 | 422 => "invalid_request_error",
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        503 | 529 => "overloaded_error",
        504 => "timeout_error",
        _ => "api_error",
    }
}

fn anthropic_error(status: StatusCode, message: &str) -> Value {
    json!({"type": "error", "error": {"type": anthropic_type(status), "message": message}})
}

fn json_response(status: StatusCode, body: Value, headers: HeaderMap) -> Response<Body> {
    let mut r = Response::new(full(body.to_string()));
    *r.status_mut() = status;
    *r.headers_mut() = headers;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The emitter of a Messages reply.
pub(super) fn anthropic_emitter(t: &Translated) -> AnthropicEmitter {
    let e = AnthropicEmitter::new();
    match &t.model {
        Some(m) => e.model(m.clone()),
        None => e,
    }
}

/// The emitter of a Responses reply.
pub(super) fn responses_emitter(t: &Translated) -> OpenAiResponsesEmitter {
    let e = OpenAiResponsesEmitter::new()
        .tool_origins(t.tool_origins.clone())
        .reasoning_summary(t.reasoning_summary);
    match &t.model {
        Some(m) => e.model(m.clone()),
        None => e,
    }
}

/// Anthropic's `POST /v1/messages/count_tokens` answered without the upstream (which has
/// no such route): an estimate from the translated request's size, about four bytes a
/// token (`{"input_tokens": N}`), which is what Claude Code uses it for (deciding when to
/// compact a conversation).
pub(super) fn count_tokens(request: &Value) -> Result<Value, translate::TranslateError> {
    let mut request = request.clone();
    if let Some(o) = request.as_object_mut() {
        // count_tokens requests carry no max_tokens; the translation wants none either.
        o.entry("max_tokens").or_insert(Value::from(1));
    }
    let t = translate::from_messages(&request)?;
    let bytes = t.body.to_string().len();
    Ok(json!({"input_tokens": bytes.div_ceil(4)}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_errors_take_their_type_from_the_status() {
        for (status, ty) in [
            (400, "invalid_request_error"),
            (401, "authentication_error"),
            (403, "permission_error"),
            (404, "not_found_error"),
            (413, "request_too_large"),
            (429, "rate_limit_error"),
            (500, "api_error"),
            (502, "api_error"),
            (529, "overloaded_error"),
        ] {
            let s = StatusCode::from_u16(status).unwrap();
            assert_eq!(anthropic_error(s, "m")["error"]["type"], ty, "{status}");
        }
    }

    /// A Responses client that asks for reasoning summaries gets the model's reasoning as
    /// one: the Vercel AI SDK (and Codex by default) shows nothing else (tests/fronts.rs).
    #[test]
    fn responses_reasoning_is_a_summary_when_the_client_asks_for_one() {
        let events = [
            crate::Event::Reasoning {
                delta: "hmm".into(),
            },
            crate::Event::Text { delta: "hi".into() },
        ];
        for (reasoning, summary) in [
            (json!({"summary": "auto"}), true),
            (json!({"summary": "detailed", "effort": "low"}), true),
            (json!({"generate_summary": "concise"}), true),
            (json!({"effort": "low"}), false),
            (json!({"summary": null}), false),
        ] {
            let request = json!({"model": "m", "input": "hi", "reasoning": reasoning});
            let t = translate::from_responses(&request).unwrap();
            assert_eq!(t.reasoning_summary, summary, "{request}");
            let mut e = responses_emitter(&t);
            let mut sse = String::new();
            for ev in &events {
                e.event(ev, &mut sse);
            }
            e.finish(&mut sse);
            assert_eq!(
                sse.contains("response.reasoning_summary_text.delta"),
                summary,
                "{sse}"
            );
            assert_eq!(
                sse.contains("response.reasoning_text.delta"),
                !summary,
                "{sse}"
            );
        }
    }

    #[test]
    fn fronts_answer_their_paths() {
        assert_eq!(Front::of("/v1/messages"), Some(Front::Messages));
        assert_eq!(Front::of("/v1/responses/"), Some(Front::Responses));
        assert_eq!(Front::of("/v1/chat/completions"), Some(Front::Chat));
        assert_eq!(Front::of("/v1/completions"), None);
        assert_eq!(Front::of("/v1/messages/count_tokens"), None);
    }
}
