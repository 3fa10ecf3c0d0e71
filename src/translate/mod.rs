//! Request translation, sans-IO: an Anthropic Messages request ([`from_messages`]) or an
//! OpenAI Responses request ([`from_responses`]) becomes the OpenAI Chat Completions request
//! the proxy sends to its upstream, plus what the proxy needs to know to answer in the
//! client's own API ([`Translated`]).
//!
//! Pure functions of a parsed body (`&serde_json::Value`): no I/O, no state, no feature
//! needed. A request the upstream could not be given faithfully is refused with a
//! [`TranslateError`] (an HTTP 400 naming the offending `param`); what can be left out
//! without changing the conversation's meaning is left out and named in
//! [`Translated::notes`] (one short line each, for the access log).
//!
//! Common to both directions:
//! - The Chat body always has `"stream": true` and `"stream_options": {"include_usage":
//!   true}`: the proxy always streams from the upstream and builds a non-streamed reply
//!   itself; whether the client asked to stream is [`Translated::stream`].
//! - The body's keys come in one fixed order (`model`, `messages`, `tools`, `tool_choice`,
//!   `parallel_tool_calls`, `max_tokens`, `temperature`, `top_p`, `top_k`, `stop`,
//!   `response_format`, `user`, `reasoning_effort`, `chat_template_kwargs`, `stream`,
//!   `stream_options`), whatever the client's order.
//! - Adjacent `system` messages are merged into one (texts joined by a blank line): the
//!   client's system prompt and its developer / system message right after it become the
//!   one leading system message chat templates expect. A system message later in the
//!   conversation stays where it is.
//! - Thinking: requested thinking becomes `chat_template_kwargs: {"enable_thinking":
//!   true}` (`false` when the client turned it off), the switch vLLM, SGLang and
//!   llama.cpp pass to Qwen3-style chat templates (a template without the variable
//!   ignores it). Thinking text in the history (Anthropic `thinking` blocks, Responses
//!   `reasoning` items) goes back as the assistant message's `reasoning_content`, which
//!   the templates that keep reasoning across tool calls read (Qwen3, GLM, Kimi,
//!   DeepSeek); encrypted or redacted reasoning is dropped with a note.
//! - Tool call ids in the history are the client API's ids (`toolu_…`, `call_…`); each
//!   becomes its upstream id (the id without the prefix the reply emitter added), in the
//!   assistant's `tool_calls[].id` and in the matching `tool` message's `tool_call_id`
//!   alike, so pairs stay pairs.
//! - Images in a tool result cannot be sent in a Chat `tool` message: each becomes the
//!   text `[image omitted]`, with a note.
//! - The declared tools ([`Translated::tools`]) are read from the translated Chat tools;
//!   a name declared twice is a 400.
//!
//! Recursion follows only the request's fixed structure (messages, their content blocks,
//! a tool result's blocks): its depth is bounded whatever the values hold. Values that are
//! passed through (a tool's schema, a tool call's input) are cloned or serialized whole.

mod messages;
mod responses;

pub use messages::from_messages;
pub use responses::from_responses;

use crate::Tools;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt;

/// A client request translated into a Chat Completions request for the upstream.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Translated {
    /// The Chat Completions request body (always streamed, with usage).
    pub body: Value,
    /// Whether the client asked for a streamed reply.
    pub stream: bool,
    /// The request's `model`, if it named one.
    pub model: Option<String>,
    /// The tools the Chat request declares (`None` when it declares none).
    pub tools: Option<Tools>,
    /// Whether the model may make several tool calls in one reply (`false` when the client
    /// said `disable_parallel_tool_use` / `parallel_tool_calls: false`).
    pub parallel_tool_calls: bool,
    /// Whether the client asked for thinking / reasoning.
    pub thinking: bool,
    /// Whether the client asked for reasoning *summaries* (Responses `reasoning.summary`
    /// `auto` / `concise` / `detailed`): the reply then writes the model's reasoning as a
    /// summary, which is all that clients such as Codex (by default) and the Vercel AI
    /// SDK show, rather than as reasoning text.
    pub reasoning_summary: bool,
    /// Chat function tools that stand for a client tool of another kind, by Chat function
    /// name: the reply side turns a call of one of them back into the client's own kind
    /// (a Responses `custom_tool_call`, or a `function_call` with its `namespace`).
    /// Ordinary function tools are not listed.
    pub tool_origins: BTreeMap<String, ToolOrigin>,
    /// What was left out of the request, one short line each, for the access log.
    pub notes: Vec<String>,
}

/// What client tool a Chat function tool stands for ([`Translated::tool_origins`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolOrigin {
    /// A Responses `custom` (freeform) tool of this name: the Chat function takes
    /// `{"input": string}`, and a call of it is reported as a `custom_tool_call` whose
    /// `input` is that string.
    Custom {
        /// The client's tool name.
        name: String,
    },
    /// A function tool inside a Responses `namespace` tool: the Chat function is named
    /// `namespace` + `name`, and a call of it is reported as a `function_call` with these
    /// two fields.
    Namespaced {
        /// The namespace's name.
        namespace: String,
        /// The function's name inside the namespace.
        name: String,
    },
}

/// A request that cannot be translated: answer HTTP 400 with this message, naming
/// [`TranslateError::param`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslateError {
    message: String,
    param: String,
}

impl TranslateError {
    pub(crate) fn new(param: impl Into<String>, message: impl Into<String>) -> Self {
        TranslateError {
            message: message.into(),
            param: param.into(),
        }
    }

    /// What is wrong, for the client (does not repeat the param).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The path of the offending member in the client's request, e.g.
    /// `messages[2].content[0].source` (empty for the body itself).
    pub fn param(&self) -> &str {
        &self.param
    }
}

impl fmt::Display for TranslateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.param.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.param, self.message)
        }
    }
}

impl std::error::Error for TranslateError {}

type Result<T> = std::result::Result<T, TranslateError>;

/// The upstream (parser) id of a tool call id the client sent back in its history: the
/// id without the prefix the reply emitter added (`toolu_` for Anthropic, `call_` for
/// Responses), or the id itself when it has neither (or nothing follows the prefix).
///
/// This must stay the inverse of the emitter's id mapping: a call the proxy reported as
/// `toolu_X` / `call_X` has the upstream id `X`.
pub(crate) fn upstream_id(client_id: &str) -> String {
    if client_id.starts_with("toolu_") {
        crate::emit::ids::from_anthropic(client_id)
    } else {
        crate::emit::ids::from_responses_call_id(client_id)
    }
}

/// "a string", "an array", ... for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `param` is `expected` but holds `v`.
pub(crate) fn wrong(param: &str, expected: &str, v: &Value) -> TranslateError {
    TranslateError::new(param, format!("expected {expected}, got {}", kind(v)))
}

/// Joins a parent path and a member name.
pub(crate) fn path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// The body as an object.
pub(crate) fn object(body: &Value) -> Result<&Map<String, Value>> {
    body.as_object()
        .ok_or_else(|| wrong("", "a JSON object as the request body", body))
}

/// A member that must be a string when present (`null` counts as absent).
pub(crate) fn opt_str<'a>(
    o: &'a Map<String, Value>,
    key: &str,
    parent: &str,
) -> Result<Option<&'a str>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(wrong(&path(parent, key), "a string", v)),
    }
}

/// A member that must be a string.
pub(crate) fn req_str<'a>(o: &'a Map<String, Value>, key: &str, parent: &str) -> Result<&'a str> {
    opt_str(o, key, parent)?
        .ok_or_else(|| TranslateError::new(path(parent, key), "required, a string"))
}

/// A member that must be a boolean when present.
pub(crate) fn opt_bool(o: &Map<String, Value>, key: &str, parent: &str) -> Result<Option<bool>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(wrong(&path(parent, key), "a boolean", v)),
    }
}

/// A member that must be a number when present (passed on as given).
pub(crate) fn opt_number(o: &Map<String, Value>, key: &str) -> Result<Option<Value>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v @ Value::Number(_)) => Ok(Some(v.clone())),
        Some(v) => Err(wrong(key, "a number", v)),
    }
}

/// A member that must be a non-negative integer when present.
pub(crate) fn opt_count(o: &Map<String, Value>, key: &str) -> Result<Option<Value>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) if v.as_u64().is_some() => Ok(Some(v.clone())),
        Some(v) => Err(wrong(key, "a non-negative integer", v)),
    }
}

/// A member that must be an object when present.
pub(crate) fn opt_object<'a>(
    o: &'a Map<String, Value>,
    key: &str,
    parent: &str,
) -> Result<Option<&'a Map<String, Value>>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(v) => Err(wrong(&path(parent, key), "an object", v)),
    }
}

/// The notes of one translation, each line once.
#[derive(Debug, Default)]
pub(crate) struct Notes(Vec<String>);

impl Notes {
    pub(crate) fn add(&mut self, line: impl Into<String>) {
        let line = line.into();
        if !self.0.contains(&line) {
            self.0.push(line);
        }
    }
}

/// One part of a user message's content.
#[derive(Debug)]
pub(crate) enum Part {
    Text(String),
    /// A Chat `image_url` part.
    Image(Value),
}

/// A Chat `image_url` part.
pub(crate) fn image_part(url: String, detail: Option<&str>) -> Part {
    let mut image = Map::new();
    image.insert("url".into(), Value::String(url));
    if let Some(d) = detail {
        image.insert("detail".into(), Value::String(d.to_owned()));
    }
    Part::Image(json!({"type": "image_url", "image_url": image}))
}

/// The Chat `content` of user parts: a string for one text, else an array of parts.
pub(crate) fn user_content(parts: Vec<Part>) -> Value {
    if let [Part::Text(t)] = parts.as_slice() {
        return Value::String(t.clone());
    }
    Value::Array(
        parts
            .into_iter()
            .map(|p| match p {
                Part::Text(t) => json!({"type": "text", "text": t}),
                Part::Image(v) => v,
            })
            .collect(),
    )
}

/// The Chat conversation being built.
#[derive(Debug, Default)]
pub(crate) struct Conversation {
    pub(crate) messages: Vec<Value>,
}

impl Conversation {
    /// Adds a system message, merged into a directly preceding one.
    pub(crate) fn system(&mut self, text: String) {
        if let Some(Value::Object(last)) = self.messages.last_mut()
            && last.get("role").and_then(Value::as_str) == Some("system")
            && let Some(Value::String(prev)) = last.get_mut("content")
        {
            if !prev.is_empty() && !text.is_empty() {
                prev.push_str("\n\n");
            }
            prev.push_str(&text);
            return;
        }
        self.messages
            .push(json!({"role": "system", "content": text}));
    }

    /// Adds a user message.
    pub(crate) fn user(&mut self, parts: Vec<Part>) {
        self.messages
            .push(json!({"role": "user", "content": user_content(parts)}));
    }

    /// Adds a `tool` message answering `client_id`.
    pub(crate) fn tool(&mut self, client_id: &str, content: String) {
        self.messages.push(json!({
            "role": "tool",
            "tool_call_id": upstream_id(client_id),
            "content": content,
        }));
    }
}

/// An assistant message: text, reasoning, tool calls.
#[derive(Debug, Default)]
pub(crate) struct Assistant {
    pub(crate) text: Option<String>,
    pub(crate) reasoning: Option<String>,
    pub(crate) calls: Vec<Value>,
}

impl Assistant {
    /// Appends text (parts joined by a newline).
    pub(crate) fn push_text(&mut self, t: &str) {
        match &mut self.text {
            Some(prev) => {
                prev.push('\n');
                prev.push_str(t);
            }
            None => self.text = Some(t.to_owned()),
        }
    }

    /// Appends reasoning text (parts joined by a blank line).
    pub(crate) fn push_reasoning(&mut self, t: &str) {
        match &mut self.reasoning {
            Some(prev) => {
                prev.push_str("\n\n");
                prev.push_str(t);
            }
            None => self.reasoning = Some(t.to_owned()),
        }
    }

    /// Adds a tool call (`arguments`: JSON text).
    pub(crate) fn call(&mut self, client_id: &str, name: &str, arguments: String) {
        self.calls.push(json!({
            "id": upstream_id(client_id),
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }));
    }

    /// The Chat message: `content` is `null` when there is no text but tool calls.
    pub(crate) fn into_message(self) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), "assistant".into());
        let content = match self.text {
            Some(t) => Value::String(t),
            None if !self.calls.is_empty() => Value::Null,
            None => Value::String(String::new()),
        };
        m.insert("content".into(), content);
        if let Some(r) = self.reasoning {
            m.insert("reasoning_content".into(), Value::String(r));
        }
        if !self.calls.is_empty() {
            m.insert("tool_calls".into(), Value::Array(self.calls));
        }
        Value::Object(m)
    }
}

/// A Chat function tool.
pub(crate) fn function_tool(
    name: &str,
    description: Option<&str>,
    parameters: Option<&Value>,
    strict: Option<bool>,
) -> Value {
    let mut f = Map::new();
    f.insert("name".into(), Value::String(name.to_owned()));
    if let Some(d) = description {
        f.insert("description".into(), Value::String(d.to_owned()));
    }
    if let Some(p) = parameters {
        f.insert("parameters".into(), p.clone());
    }
    if let Some(s) = strict {
        f.insert("strict".into(), Value::Bool(s));
    }
    json!({"type": "function", "function": f})
}

/// The named-function `tool_choice`, checked against the declared names.
pub(crate) fn choose_function(name: &str, tools: &[Value], param: &str) -> Result<Value> {
    let declared = tools.iter().any(|t| {
        t.get("function")
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            == Some(name)
    });
    if !declared {
        return Err(TranslateError::new(
            param,
            format!("names the tool {name:?}, which is not among the tools sent upstream"),
        ));
    }
    Ok(json!({"type": "function", "function": {"name": name}}))
}

/// Everything a translation collected, assembled into a [`Translated`].
#[derive(Debug, Default)]
pub(crate) struct Parts {
    pub(crate) model: Option<String>,
    pub(crate) stream: bool,
    pub(crate) messages: Vec<Value>,
    pub(crate) tools: Vec<Value>,
    pub(crate) tool_choice: Option<Value>,
    /// `Some` when the client set it.
    pub(crate) parallel_tool_calls: Option<bool>,
    pub(crate) max_tokens: Option<Value>,
    pub(crate) temperature: Option<Value>,
    pub(crate) top_p: Option<Value>,
    pub(crate) top_k: Option<Value>,
    pub(crate) stop: Option<Value>,
    pub(crate) response_format: Option<Value>,
    pub(crate) user: Option<String>,
    pub(crate) reasoning_effort: Option<&'static str>,
    /// `Some(true)` thinking requested, `Some(false)` turned off.
    pub(crate) thinking: Option<bool>,
    /// The client asked for reasoning summaries (Responses `reasoning.summary`).
    pub(crate) reasoning_summary: bool,
    pub(crate) tool_origins: BTreeMap<String, ToolOrigin>,
    pub(crate) notes: Notes,
}

impl Parts {
    pub(crate) fn finish(self) -> Result<Translated> {
        let tools = if self.tools.is_empty() {
            None
        } else {
            let list = Value::Array(self.tools.clone());
            Some(
                Tools::from_value(&list)
                    .map_err(|e| TranslateError::new("tools", e.to_string()))?,
            )
        };
        let mut b = Map::new();
        if let Some(m) = &self.model {
            b.insert("model".into(), Value::String(m.clone()));
        }
        b.insert("messages".into(), Value::Array(self.messages));
        if !self.tools.is_empty() {
            b.insert("tools".into(), Value::Array(self.tools));
        }
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                b.insert(k.into(), v);
            }
        };
        put("tool_choice", self.tool_choice);
        put(
            "parallel_tool_calls",
            self.parallel_tool_calls.map(Value::Bool),
        );
        put("max_tokens", self.max_tokens);
        put("temperature", self.temperature);
        put("top_p", self.top_p);
        put("top_k", self.top_k);
        put("stop", self.stop);
        put("response_format", self.response_format);
        put("user", self.user.map(Value::String));
        put("reasoning_effort", self.reasoning_effort.map(Value::from));
        put(
            "chat_template_kwargs",
            self.thinking.map(|t| json!({"enable_thinking": t})),
        );
        b.insert("stream".into(), Value::Bool(true));
        b.insert("stream_options".into(), json!({"include_usage": true}));
        Ok(Translated {
            body: Value::Object(b),
            stream: self.stream,
            model: self.model,
            tools,
            parallel_tool_calls: self.parallel_tool_calls != Some(false),
            thinking: self.thinking == Some(true),
            reasoning_summary: self.reasoning_summary,
            tool_origins: self.tool_origins,
            notes: self.notes.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_id_strips_the_emitters_prefix() {
        assert_eq!(upstream_id("toolu_abc"), "abc");
        assert_eq!(upstream_id("call_0"), "0");
        assert_eq!(upstream_id("fc_1"), "fc_1");
        assert_eq!(upstream_id("toolu_"), "toolu_");
        assert_eq!(upstream_id(""), "");
    }

    #[test]
    fn adjacent_system_messages_merge() {
        let mut c = Conversation::default();
        c.system("a".into());
        c.system("b".into());
        c.user(vec![Part::Text("u".into())]);
        c.system("c".into());
        assert_eq!(
            Value::Array(c.messages),
            json!([
                {"role": "system", "content": "a\n\nb"},
                {"role": "user", "content": "u"},
                {"role": "system", "content": "c"},
            ])
        );
    }

    #[test]
    fn error_display_names_the_param() {
        let e = TranslateError::new("messages[0].role", "bad");
        assert_eq!(e.to_string(), "messages[0].role: bad");
        assert_eq!(e.param(), "messages[0].role");
        assert_eq!(e.message(), "bad");
        assert_eq!(TranslateError::new("", "x").to_string(), "x");
    }
}
