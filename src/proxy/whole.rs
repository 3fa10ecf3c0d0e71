//! Non-streamed replies: a whole JSON chat reply read, each choice's message rebuilt from
//! its content.

use super::request::RequestInfo;
use super::upstream::reply_headers;
use super::{Content, State};
use crate::http::{Body, chain, error_response, full};
use crate::{Event, Parser, ParserConfig, Syntax};
use hyper::Response;
use hyper::StatusCode;
use hyper::header::{self, HeaderValue};
use serde_json::{Value, json};

/// Reads a whole JSON chat reply and rebuilds each choice's message from its content.
pub(super) async fn fix_whole(
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
                super::observe::add_bytes_in(super::observe::tally().as_ref(), chunk.len());
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
            let mut config = info.parser_config(&state.config.parser, None, true);
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
pub(super) fn fix_choice(choice: &mut Value, content: &Content, config: &ParserConfig) {
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
    use crate::Format;

    #[test]
    pub(super) fn non_stream_reply_gets_its_leaked_calls() {
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
            .map(|i| i.parser_config(&ParserConfig::new(), None, true))
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
    pub(super) fn non_stream_undeclared_call_stays_text() {
        let text = "<tool_call>\n{\"name\": \"rm\", \"arguments\": {}}\n</tool_call>";
        let mut choice = json!({"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": text,
        }});
        let info = RequestInfo::read(br#"{"tools":[{"name":"ls","parameters":{}}]}"#)
            .ok()
            .flatten();
        let config = info
            .map(|i| i.parser_config(&ParserConfig::new(), None, true))
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
