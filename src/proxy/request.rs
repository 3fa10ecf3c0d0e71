//! What the proxy reads from a client's request: the model, streaming, the declared tools
//! and the parser settings they make.

use super::Content;
use crate::http::{Body, full};
use crate::{ParserConfig, Tools};

use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};
use std::sync::Arc;

/// Why a request cannot be served.
#[derive(Debug)]
pub(super) enum RequestError {
    /// Its body cannot be read as a JSON object (the message says why).
    Unreadable(String),
    /// Its `tools` cannot be read.
    Tools(String),
}

/// What the proxy needs from a chat request.
#[derive(Debug, Clone)]
pub(super) struct RequestInfo {
    /// The request's `model`, for the live page.
    pub(super) model: Option<String>,
    pub(super) stream: bool,
    pub(super) tools: Option<Tools>,
    pub(super) parallel: bool,
    /// `stream_options.include_usage`: usage in a chunk of its own (`"choices": []`), as
    /// OpenAI writes it only when asked; otherwise on the finish chunk.
    pub(super) include_usage: bool,
    /// The route the client asked on (its API), for `/live` and the log.
    pub(super) route: &'static str,
}

impl RequestInfo {
    /// The request's info and its JSON; an error when the body is not a JSON object the
    /// proxy can read (not JSON, nested deeper than serde_json's 128 levels, …: it would
    /// go upstream unpoliced) or when its `tools` cannot be read (a tool name declared
    /// twice, ...: the proxy could not tell declared calls from undeclared ones).
    pub(super) fn read(body: &[u8]) -> Result<(RequestInfo, Value), RequestError> {
        let v = serde_json::from_slice::<Value>(body)
            .map_err(|e| RequestError::Unreadable(e.to_string()))?;
        let info = Self::from_value(&v)?;
        Ok((info, v))
    }

    /// The info of a request already read as JSON.
    pub(super) fn from_value(v: &Value) -> Result<RequestInfo, RequestError> {
        let Some(o) = v.as_object() else {
            return Err(RequestError::Unreadable(
                "the body is JSON but not an object".into(),
            ));
        };
        let tools = match o.get("tools") {
            None | Some(Value::Null) => None,
            Some(Value::Array(list)) if list.is_empty() => None,
            Some(Value::Array(_)) => Some(Tools::from_value(v).map_err(|e| {
                RequestError::Tools(format!("toolstream proxy: the request's tools: {e}"))
            })?),
            Some(other) => {
                let kind = match other {
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    Value::String(_) => "a string",
                    _ => "an object",
                };
                return Err(RequestError::Tools(format!(
                    "toolstream proxy: the request's tools: {kind}, where an array of tools is expected"
                )));
            }
        };
        Ok(RequestInfo {
            model: o.get("model").and_then(Value::as_str).map(str::to_owned),
            stream: o.get("stream").and_then(Value::as_bool).unwrap_or(false),
            tools,
            parallel: o.get("parallel_tool_calls").and_then(Value::as_bool) != Some(false),
            include_usage: o
                .get("stream_options")
                .and_then(|so| so.get("include_usage"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            route: "/v1/chat/completions",
        })
    }

    /// The parser settings for this request (`reject`: whether undeclared calls are
    /// errors; off when the proxy checks names itself).
    pub(super) fn parser_config(
        &self,
        base: &ParserConfig,
        content: Option<&Content>,
        reject: bool,
    ) -> ParserConfig {
        let mut config = base.clone();
        // A request that declares no tools gets no calls: leaked markup stays its text.
        let content = content.filter(|_| self.tools.is_some());
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

/// 400 for a request whose `tools` cannot be read, in the shape OpenAI gives a bad
/// request (`invalid_request_error` naming the `param`), which the SDKs raise as
/// `BadRequestError`.
pub(super) fn invalid_tools(message: &str) -> Response<Body> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tools_error(body: &[u8]) -> String {
        match RequestInfo::read(body) {
            Err(RequestError::Tools(m)) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unreadable_tools_are_refused() {
        let twice = br#"{"tools":[{"name":"ls","parameters":{}},{"name":"ls","parameters":{}}]}"#;
        let err = tools_error(twice);
        assert!(err.contains("declared twice"), "{err}");
        for (body, says) in [
            (&br#"{"tools":"ls"}"#[..], "a string"),
            (br#"{"tools":{"name":"ls"}}"#, "an object"),
            (br#"{"tools":[{"parameters":{}}]}"#, "no \"name\""),
            (br#"{"tools":[1]}"#, "tools"),
        ] {
            let err = tools_error(body);
            assert!(err.contains(says), "{err}");
        }
        // `null` and `[]` declare no tools.
        for body in [&br#"{"tools":null}"#[..], br#"{"tools":[]}"#] {
            assert!(RequestInfo::read(body).unwrap().0.tools.is_none());
        }
    }

    #[test]
    fn a_body_the_proxy_cannot_inspect_is_refused() {
        // Not JSON, not an object, or deeper than serde_json reads: refused, never
        // forwarded unpoliced.
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
        for body in [&b"not json"[..], b"[1]", deep.as_bytes()] {
            assert!(
                matches!(RequestInfo::read(body), Err(RequestError::Unreadable(_))),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }
}
