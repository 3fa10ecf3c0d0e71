//! Non-streamed replies: a whole JSON chat reply read, each choice's message rebuilt from
//! its content.

use super::policy::{broke_detail, refusal_message, refusal_text};
use super::request::RequestInfo;
use super::upstream::reply_headers;
use super::{Content, OnRefused, State};
use crate::http::{Body, chain, error_response, full};
use crate::{ErrorKind, Event, Parser, ParserConfig, Syntax, Tools};
use hyper::Response;
use hyper::StatusCode;
use hyper::header::{self, HeaderValue};
use serde_json::{Value, json};

/// Reads a whole JSON chat reply and rebuilds each choice's message from its content.
pub(super) async fn fix_whole(
    mut upstream: reqwest::Response,
    info: RequestInfo,
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
            let fix = Fix {
                content: state
                    .config
                    .content
                    .as_ref()
                    .filter(|_| info.tools.is_some()),
                config: &config,
                tools: info.tools.as_ref(),
                parallel: info.parallel,
                on_refused: state.config.on_refused,
            };
            if let Some(choices) = reply.get_mut("choices").and_then(Value::as_array_mut) {
                for choice in choices {
                    fix_choice(choice, &fix);
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

/// How a whole reply's choices are fixed: the request's content scanner and declared
/// tools, and what a refusal says.
pub(super) struct Fix<'a> {
    /// The text scanner (`None`: calls are not looked for in the content).
    pub(super) content: Option<&'a Content>,
    /// The parser settings (the request's tools, undeclared calls rejected).
    pub(super) config: &'a ParserConfig,
    /// The request's declared tools (`None`: any name goes).
    pub(super) tools: Option<&'a Tools>,
    /// `parallel_tool_calls`.
    pub(super) parallel: bool,
    /// What the client is told of a refused call.
    pub(super) on_refused: OnRefused,
}

/// Rebuilds one choice's message: its `content` run through the text scanner (calls
/// leaked into it become `tool_calls`, reasoning `reasoning_content`), then every call,
/// native or repaired, held to the request's policy as a streamed reply is (an undeclared
/// tool, a second call under `parallel_tool_calls: false`: removed, named in the text as
/// [`OnRefused`] says and listed in `toolstream_errors`); `finish_reason` follows.
pub(super) fn fix_choice(choice: &mut Value, fix: &Fix<'_>) {
    let Some(message) = choice.get_mut("message").and_then(Value::as_object_mut) else {
        return;
    };
    let mut errors = Vec::new();
    let mut refusals = String::new();
    let mut calls = match message.remove("tool_calls") {
        Some(Value::Array(native)) => native,
        _ => Vec::new(),
    };
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let (Some(content), Some(text)) = (fix.content, text) {
        let scanned = scan(&text, content, fix.config);
        if !scanned.reasoning.is_empty() {
            let before = message
                .get("reasoning_content")
                .and_then(Value::as_str)
                .unwrap_or("");
            let joined = format!("{before}{}", scanned.reasoning);
            message.insert("reasoning_content".into(), Value::String(joined));
        }
        let mut content = scanned.text;
        for (kind, error_message, raw, refused) in scanned.errors {
            match refused {
                // A refused call's markup does not stay in the text.
                Some((name, detail)) => {
                    refusals.push_str(&refusal_line(fix, &name, kind, &detail));
                }
                // The model's own text of a call that failed stays where it was.
                None => content.push_str(&raw),
            }
            errors.push(json!({"type": kind.as_str(), "message": error_message}));
        }
        message.insert("content".into(), Value::String(content));
        calls.extend(scanned.calls);
    }
    // Every call, native or repaired, under the request's policy.
    let mut kept = Vec::with_capacity(calls.len());
    for call in calls {
        let name = call
            .get("function")
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let refusal = if fix.tools.is_some_and(|t| !t.is_declared(&name)) {
            Some(ErrorKind::UndeclaredTool)
        } else if !fix.parallel && !kept.is_empty() {
            Some(ErrorKind::LimitExceeded)
        } else {
            None
        };
        match refusal {
            Some(kind) => {
                refusals.push_str(&refusal_line(fix, &name, kind, ""));
                errors
                    .push(json!({"type": kind.as_str(), "message": refusal_message(&name, kind)}));
            }
            None => kept.push(call),
        }
    }
    let made_calls = !kept.is_empty();
    if !refusals.is_empty() {
        let before = message.get("content").and_then(Value::as_str).unwrap_or("");
        let sep = if before.is_empty() || before.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        let joined = format!("{before}{sep}{}", refusals.trim_end());
        message.insert("content".into(), Value::String(joined));
    }
    if made_calls {
        message.insert("tool_calls".into(), Value::Array(kept));
    }
    if made_calls
        && message
            .get("content")
            .and_then(Value::as_str)
            .is_some_and(str::is_empty)
    {
        message.insert("content".into(), Value::Null);
    }
    if let Some(choice) = choice.as_object_mut() {
        let was_calls = choice.get("finish_reason").and_then(Value::as_str) == Some("tool_calls");
        if made_calls {
            choice.insert("finish_reason".into(), Value::String("tool_calls".into()));
        } else if was_calls {
            choice.insert("finish_reason".into(), Value::String("stop".into()));
        }
        if !errors.is_empty() {
            choice.insert("toolstream_errors".into(), Value::Array(errors));
        }
    }
}

/// The line a refusal adds to the text ([`OnRefused::Text`]), or nothing.
fn refusal_line(fix: &Fix<'_>, name: &str, kind: ErrorKind, detail: &str) -> String {
    match fix.on_refused {
        OnRefused::Error => String::new(),
        _ => format!("{}\n", refusal_text(name, kind, detail)),
    }
}

/// A content's text scanned: its text, reasoning, the calls it held (as OpenAI
/// `tool_calls` entries) and its errors (kind, message, raw text, and the tool's name when
/// the error is a refusal).
struct Scanned {
    text: String,
    reasoning: String,
    calls: Vec<Value>,
    errors: Vec<(ErrorKind, String, String, Option<Refused>)>,
}

/// A refused call of a content's text: the tool's name and what was wrong (`""`: nothing
/// more than the error's kind says).
type Refused = (String, String);

fn scan(text: &str, content: &Content, config: &ParserConfig) -> Scanned {
    let mut parser = match content {
        Content::Format(f) => Parser::with_config(*f, config.clone()),
        Content::Syntax(s) => Parser::with_syntax(Syntax::clone(s), config.clone()),
    };
    let mut events = Vec::new();
    let _ = parser.feed(text.as_bytes(), &mut events);
    let _ = parser.finish(&mut events);
    let mut out = Scanned {
        text: String::new(),
        reasoning: String::new(),
        calls: Vec::new(),
        errors: Vec::new(),
    };
    // The calls' names by index (an error of a call that broke names it by index only).
    let mut names: Vec<String> = Vec::new();
    for event in events {
        match event {
            Event::ToolCallStart { index, name, .. } => {
                if names.len() <= index {
                    names.resize(index + 1, String::new());
                }
                if let Some(slot) = names.get_mut(index) {
                    *slot = name;
                }
            }
            Event::Text { delta } => out.text.push_str(&delta),
            Event::Reasoning { delta } => out.reasoning.push_str(&delta),
            Event::ToolCallEnd {
                id,
                name,
                arguments,
                ..
            } => out.calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()},
            })),
            Event::Error {
                kind,
                message,
                raw,
                index,
                path,
            } => {
                let refused = match kind {
                    ErrorKind::UndeclaredTool => {
                        undeclared_name(&message).map(|n| (n, String::new()))
                    }
                    // A call that broke while it streamed (`--validate`, `--max-repeats`):
                    // refused like in a streamed reply, the model told what and where.
                    ErrorKind::SchemaViolation | ErrorKind::Repetition => index
                        .and_then(|i| names.get(i))
                        .map(|n| (n.clone(), broke_detail(&message, path.as_deref()))),
                    _ => None,
                };
                out.errors.push((kind, message, raw, refused));
            }
            _ => {}
        }
    }
    out
}

/// The tool's name in the parser's `undeclared_tool` message (`… "NAME" …`).
fn undeclared_name(message: &str) -> Option<String> {
    let start = message.find('"')? + 1;
    let len = message.get(start..)?.find('"')?;
    message.get(start..start + len).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Format;

    /// Fixes `choice` for a request `request` with hermes as the content format.
    fn fixed(mut choice: Value, request: &[u8], on_refused: OnRefused) -> Value {
        let (info, _) = RequestInfo::read(request).unwrap();
        let config = info.parser_config(&ParserConfig::new(), None, true);
        let content = Content::Format(Format::Hermes);
        let fix = Fix {
            content: Some(&content).filter(|_| info.tools.is_some()),
            config: &config,
            tools: info.tools.as_ref(),
            parallel: info.parallel,
            on_refused,
        };
        fix_choice(&mut choice, &fix);
        choice
    }

    const WEATHER: &[u8] =
        br#"{"tools":[{"type":"function","function":{"name":"get_weather","parameters":{}}}]}"#;

    #[test]
    fn non_stream_reply_gets_its_leaked_calls() {
        let choice = json!({"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant",
            "content": "Sure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        }});
        let choice = fixed(choice, WEATHER, OnRefused::Text);
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
    fn non_stream_undeclared_leaked_call_is_named_not_kept() {
        let text = "<tool_call>\n{\"name\": \"rm\", \"arguments\": {}}\n</tool_call>";
        let choice = json!({"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": text,
        }});
        let request = br#"{"tools":[{"name":"ls","parameters":{}}]}"#;
        let told = fixed(choice.clone(), request, OnRefused::Text);
        assert_eq!(told["finish_reason"], "stop");
        let content = told["message"]["content"].as_str().unwrap_or("");
        assert!(!content.contains("<tool_call>"), "{content}");
        assert!(
            content.contains("toolstream: call to rm refused: not among the request's tools"),
            "{content}"
        );
        assert!(told["message"].get("tool_calls").is_none());
        assert_eq!(told["toolstream_errors"][0]["type"], "undeclared_tool");
        // --on-refused error: the error only, no markup either.
        let quiet = fixed(choice, request, OnRefused::Error);
        let content = quiet["message"]["content"].as_str().unwrap_or("?");
        assert!(
            !content.contains("toolstream:") && !content.contains("<tool_call>"),
            "{content}"
        );
        assert_eq!(quiet["toolstream_errors"][0]["type"], "undeclared_tool");
    }

    #[test]
    fn non_stream_native_calls_are_held_to_the_policy() {
        let native = |names: &[&str]| {
            let calls: Vec<Value> = names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    json!({"id": format!("call_{i}"), "type": "function",
                    "function": {"name": n, "arguments": "{}"}})
                })
                .collect();
            json!({"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null, "tool_calls": calls}})
        };
        // An undeclared native call is removed and named; the declared one stays.
        let c = fixed(native(&["get_weather", "rm_rf"]), WEATHER, OnRefused::Text);
        assert_eq!(c["message"]["tool_calls"].as_array().map(Vec::len), Some(1));
        assert_eq!(
            c["message"]["tool_calls"][0]["function"]["name"],
            "get_weather"
        );
        assert_eq!(c["finish_reason"], "tool_calls");
        assert_eq!(
            c["message"]["content"],
            "toolstream: call to rm_rf refused: not among the request's tools"
        );
        // Only undeclared calls: none left, finish `stop`.
        let c = fixed(native(&["rm_rf"]), WEATHER, OnRefused::Text);
        assert!(c["message"].get("tool_calls").is_none());
        assert_eq!(c["finish_reason"], "stop");
        // parallel_tool_calls false: the first call only.
        let serial = br#"{"parallel_tool_calls":false,"tools":[{"type":"function","function":{"name":"get_weather","parameters":{}}}]}"#;
        let c = fixed(
            native(&["get_weather", "get_weather"]),
            serial,
            OnRefused::Text,
        );
        assert_eq!(c["message"]["tool_calls"].as_array().map(Vec::len), Some(1));
        assert_eq!(c["toolstream_errors"][0]["type"], "limit_exceeded");
    }

    #[test]
    fn non_stream_reply_without_declared_tools_keeps_leaked_markup_as_text() {
        let text = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>";
        let choice = json!({"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": text}});
        let c = fixed(choice, br#"{"model":"m"}"#, OnRefused::Text);
        assert_eq!(c["message"]["content"], text);
        assert!(c["message"].get("tool_calls").is_none());
        assert_eq!(c["finish_reason"], "stop");
    }

    #[test]
    fn non_stream_call_breaking_its_schema_is_refused_and_explained() {
        let request = br#"{"tools":[{"type":"function","function":{"name":"set_mode","parameters":{"type":"object","properties":{"mode":{"enum":["fast","safe"]}}}}}]}"#;
        let (info, _) = RequestInfo::read(request).unwrap();
        let base = ParserConfig::new().validate_arguments(true);
        let config = info.parser_config(&base, None, true);
        let content = Content::Format(Format::Hermes);
        let fix = Fix {
            content: Some(&content),
            config: &config,
            tools: info.tools.as_ref(),
            parallel: true,
            on_refused: OnRefused::Text,
        };
        let mut choice = json!({"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
            "content": "<tool_call>\n{\"name\": \"set_mode\", \"arguments\": {\"mode\": \"reckless\"}}\n</tool_call>"}});
        fix_choice(&mut choice, &fix);
        let content = choice["message"]["content"].as_str().unwrap_or("");
        assert!(!content.contains("<tool_call>"), "{content}");
        assert!(
            content.starts_with("toolstream: call to set_mode refused: its arguments break the tool's JSON Schema: enum")
                && content.ends_with("at \"/mode\""),
            "{content}"
        );
        assert!(choice["message"].get("tool_calls").is_none());
        assert_eq!(choice["finish_reason"], "stop");
        assert_eq!(choice["toolstream_errors"][0]["type"], "schema_violation");
    }
}
