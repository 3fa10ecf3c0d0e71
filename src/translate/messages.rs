//! Anthropic Messages (`POST /v1/messages`, what Claude Code sends) → Chat Completions.
//!
//! | Messages | Chat |
//! |---|---|
//! | `model`, `stream`, `temperature`, `top_p`, `top_k`, `max_tokens` | the same (`top_k` as vLLM / SGLang / llama.cpp take it) |
//! | `stop_sequences` | `stop` |
//! | `metadata.user_id` | `user` (other `metadata` members: note) |
//! | `system` (string or text blocks; `cache_control` ignored) | a leading `system` message, blocks joined by a blank line |
//! | `messages[].role: "system"` (Claude Code sends one mid-conversation) | a `system` message at that place |
//! | user `text` blocks | `content`: a string for one block, else text parts |
//! | user `image` (`base64` / `url` source) | an `image_url` part (a data URL for base64); a `file` source: 400 |
//! | user `document` with a `text` or `content` source | a text part; any other source (PDF, URL, file): 400 |
//! | user `tool_result` | one `tool` message each, before the user message holding the same message's other blocks; text blocks joined by a newline; `is_error: true` prefixes `Error: `; an image in it becomes `[image omitted]` (note) |
//! | assistant `text` / `tool_use` | `content` (blocks joined by a newline) / `tool_calls` (`arguments`: the JSON text of `input`) |
//! | assistant `thinking` | `reasoning_content` (the signature dropped) |
//! | assistant `redacted_thinking`, server tool blocks (`server_tool_use`, `*_tool_result`, `mcp_tool_use`, ...) | dropped with a note |
//! | any other block, or a block in the wrong role | 400 naming it |
//! | `tools`: custom tools (no `type`, or `custom`) | function tools (`input_schema` → `parameters`; `strict` kept) |
//! | `tools`: `bash_*` | a function tool of that name taking `{command, restart}` (the client runs it, its calls come back as ordinary `tool_use`) |
//! | `tools`: `text_editor_*` | a function tool of that name taking the editor's `{command, path, ...}` |
//! | `tools`: any other typed tool (`web_search_*`, `web_fetch_*`, `code_execution_*`, `computer_*`, `memory_*`, `mcp_toolset`, ...) | dropped with a note (run by Anthropic's servers, or a schema the upstream model was not trained on) |
//! | `tool_choice` `auto` / `any` / `tool` / `none` | `auto` / `required` / `{"type":"function","function":{"name"}}` / `none` |
//! | `tool_choice.disable_parallel_tool_use: true` | `parallel_tool_calls: false` |
//! | `thinking` `enabled` / `adaptive` / `disabled` | `chat_template_kwargs.enable_thinking` `true` / `true` / `false`; `budget_tokens` is not enforced (note) |
//! | any other top-level member | ignored with a note |

use super::{
    Assistant, Conversation, Notes, Part, Parts, Result, TranslateError, Translated,
    choose_function, function_tool, image_part, object, opt_bool, opt_count, opt_number,
    opt_object, opt_str, path, req_str, wrong,
};
use serde_json::{Map, Value, json};

/// Translates an Anthropic Messages request body into a Chat Completions request.
///
/// ```
/// use serde_json::json;
/// let t = toolstream::translate::from_messages(&json!({
///     "model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": true,
///     "system": "Be brief.",
///     "messages": [{"role": "user", "content": "Hi"}],
/// }))?;
/// assert!(t.stream);
/// assert_eq!(t.body, json!({
///     "model": "claude-sonnet-4-5",
///     "messages": [
///         {"role": "system", "content": "Be brief."},
///         {"role": "user", "content": "Hi"},
///     ],
///     "max_tokens": 1024,
///     "stream": true,
///     "stream_options": {"include_usage": true},
/// }));
/// # Ok::<(), toolstream::translate::TranslateError>(())
/// ```
pub fn from_messages(body: &Value) -> Result<Translated> {
    let o = object(body)?;
    let mut p = Parts {
        model: opt_str(o, "model", "")?.map(str::to_owned),
        stream: opt_bool(o, "stream", "")?.unwrap_or(false),
        max_tokens: opt_count(o, "max_tokens")?,
        temperature: opt_number(o, "temperature")?,
        top_p: opt_number(o, "top_p")?,
        top_k: opt_number(o, "top_k")?,
        ..Parts::default()
    };
    for key in o.keys() {
        if !KNOWN.contains(&key.as_str()) {
            p.notes.add(format!("ignored the request's {key:?}"));
        }
    }
    if let Some(v) = o.get("stop_sequences").filter(|v| !v.is_null()) {
        let list = v
            .as_array()
            .ok_or_else(|| wrong("stop_sequences", "an array of strings", v))?;
        for (i, s) in list.iter().enumerate() {
            if !s.is_string() {
                return Err(wrong(&format!("stop_sequences[{i}]"), "a string", s));
            }
        }
        if !list.is_empty() {
            p.stop = Some(v.clone());
        }
    }
    if let Some(meta) = opt_object(o, "metadata", "")? {
        for (k, v) in meta {
            if k == "user_id" {
                match v {
                    Value::Null => {}
                    Value::String(s) => p.user = Some(s.clone()),
                    _ => return Err(wrong("metadata.user_id", "a string", v)),
                }
            } else {
                p.notes.add(format!("ignored metadata.{k}"));
            }
        }
    }
    if let Some(th) = opt_object(o, "thinking", "")? {
        match req_str(th, "type", "thinking")? {
            "enabled" | "adaptive" => p.thinking = Some(true),
            "disabled" => p.thinking = Some(false),
            other => {
                return Err(TranslateError::new(
                    "thinking.type",
                    format!("{other:?}: expected \"enabled\", \"adaptive\" or \"disabled\""),
                ));
            }
        }
        if th.get("budget_tokens").is_some_and(|b| !b.is_null()) {
            p.notes.add("thinking.budget_tokens not enforced upstream");
        }
    }
    tools(o, &mut p)?;
    tool_choice(o, &mut p)?;

    let mut conv = Conversation::default();
    match o.get("system") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            if !s.is_empty() {
                conv.system(s.clone());
            }
        }
        Some(Value::Array(blocks)) => {
            let text = text_blocks(blocks, "system", "\n\n")?;
            if !text.is_empty() {
                conv.system(text);
            }
        }
        Some(v) => return Err(wrong("system", "a string or an array of text blocks", v)),
    }
    let list = match o.get("messages") {
        Some(Value::Array(list)) => list,
        Some(v) => return Err(wrong("messages", "an array", v)),
        None => return Err(TranslateError::new("messages", "required, an array")),
    };
    for (i, m) in list.iter().enumerate() {
        let param = format!("messages[{i}]");
        let m = m.as_object().ok_or_else(|| wrong(&param, "an object", m))?;
        let role = req_str(m, "role", &param)?;
        let content = m
            .get("content")
            .ok_or_else(|| TranslateError::new(path(&param, "content"), "required"))?;
        let cparam = path(&param, "content");
        match role {
            "user" => user(content, &cparam, &mut conv, &mut p.notes)?,
            "assistant" => {
                let a = assistant(content, &cparam, &mut p.notes)?;
                conv.messages.push(a.into_message());
            }
            "system" => match content {
                Value::String(s) => conv.system(s.clone()),
                Value::Array(blocks) => conv.system(text_blocks(blocks, &cparam, "\n\n")?),
                v => return Err(wrong(&cparam, "a string or an array of text blocks", v)),
            },
            other => {
                return Err(TranslateError::new(
                    path(&param, "role"),
                    format!("{other:?}: expected \"user\", \"assistant\" or \"system\""),
                ));
            }
        }
    }
    if list
        .last()
        .and_then(|m| m.get("role"))
        .and_then(Value::as_str)
        == Some("assistant")
    {
        p.notes
            .add("the last message is an assistant prefill; the upstream may start a new turn");
    }
    p.messages = conv.messages;
    p.finish()
}

/// The top-level members this translation reads.
const KNOWN: [&str; 13] = [
    "model",
    "messages",
    "system",
    "max_tokens",
    "stop_sequences",
    "stream",
    "temperature",
    "top_p",
    "top_k",
    "tools",
    "tool_choice",
    "thinking",
    "metadata",
];

/// The texts of `text` blocks (`cache_control`, `citations` ignored), joined by `sep`.
fn text_blocks(blocks: &[Value], param: &str, sep: &str) -> Result<String> {
    let mut out = Vec::with_capacity(blocks.len());
    for (j, b) in blocks.iter().enumerate() {
        let bparam = format!("{param}[{j}]");
        let b = b
            .as_object()
            .ok_or_else(|| wrong(&bparam, "an object", b))?;
        match req_str(b, "type", &bparam)? {
            "text" => out.push(req_str(b, "text", &bparam)?),
            other => {
                return Err(TranslateError::new(
                    path(&bparam, "type"),
                    format!("{other:?}: only text blocks are allowed here"),
                ));
            }
        }
    }
    Ok(out.join(sep))
}

/// A user message: its tool results as `tool` messages, then its other blocks.
fn user(content: &Value, param: &str, conv: &mut Conversation, notes: &mut Notes) -> Result<()> {
    let blocks = match content {
        Value::String(s) => {
            conv.user(vec![Part::Text(s.clone())]);
            return Ok(());
        }
        Value::Array(blocks) => blocks,
        v => return Err(wrong(param, "a string or an array of content blocks", v)),
    };
    let mut parts = Vec::new();
    let mut results = 0;
    for (j, b) in blocks.iter().enumerate() {
        let bparam = format!("{param}[{j}]");
        let b = b
            .as_object()
            .ok_or_else(|| wrong(&bparam, "an object", b))?;
        match req_str(b, "type", &bparam)? {
            "text" => parts.push(Part::Text(req_str(b, "text", &bparam)?.to_owned())),
            "image" => parts.push(image(b, &bparam)?),
            "document" => parts.push(Part::Text(document(b, &bparam)?)),
            "tool_result" => {
                let id = req_str(b, "tool_use_id", &bparam)?;
                let mut text = tool_result_content(b.get("content"), &bparam, notes)?;
                if opt_bool(b, "is_error", &bparam)? == Some(true) {
                    text.insert_str(0, "Error: ");
                }
                conv.tool(id, text);
                results += 1;
            }
            other => return Err(unsupported(&bparam, other, "a user message")),
        }
    }
    if !parts.is_empty() || results == 0 {
        if parts.is_empty() {
            parts.push(Part::Text(String::new()));
        }
        conv.user(parts);
    }
    Ok(())
}

/// A block type not accepted in this place.
fn unsupported(param: &str, ty: &str, place: &str) -> TranslateError {
    TranslateError::new(
        path(param, "type"),
        format!("content blocks of type {ty:?} are not supported in {place}"),
    )
}

/// An `image` block as an `image_url` part.
fn image(b: &Map<String, Value>, param: &str) -> Result<Part> {
    let sparam = path(param, "source");
    let src = opt_object(b, "source", param)?
        .ok_or_else(|| TranslateError::new(&sparam, "required, an object"))?;
    match req_str(src, "type", &sparam)? {
        "base64" => {
            let media = req_str(src, "media_type", &sparam)?;
            let data = req_str(src, "data", &sparam)?;
            Ok(image_part(format!("data:{media};base64,{data}"), None))
        }
        "url" => Ok(image_part(req_str(src, "url", &sparam)?.to_owned(), None)),
        other => Err(TranslateError::new(
            path(&sparam, "type"),
            format!("image source {other:?} cannot be sent upstream (only base64 and url)"),
        )),
    }
}

/// A `document` block's text (text and content sources only).
fn document(b: &Map<String, Value>, param: &str) -> Result<String> {
    let sparam = path(param, "source");
    let src = opt_object(b, "source", param)?
        .ok_or_else(|| TranslateError::new(&sparam, "required, an object"))?;
    match req_str(src, "type", &sparam)? {
        "text" => Ok(req_str(src, "data", &sparam)?.to_owned()),
        "content" => match src.get("content") {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Array(blocks)) => text_blocks(blocks, &path(&sparam, "content"), "\n"),
            Some(v) => Err(wrong(
                &path(&sparam, "content"),
                "a string or text blocks",
                v,
            )),
            None => Err(TranslateError::new(path(&sparam, "content"), "required")),
        },
        other => {
            let media = opt_str(src, "media_type", &sparam)?
                .map(|m| format!(" ({m})"))
                .unwrap_or_default();
            Err(TranslateError::new(
                path(&sparam, "type"),
                format!(
                    "a document with a {other:?} source{media} cannot be sent upstream: only text documents can"
                ),
            ))
        }
    }
}

/// A `tool_result`'s content as one text.
fn tool_result_content(content: Option<&Value>, param: &str, notes: &mut Notes) -> Result<String> {
    let cparam = path(param, "content");
    let blocks = match content {
        None | Some(Value::Null) => return Ok(String::new()),
        Some(Value::String(s)) => return Ok(s.clone()),
        Some(Value::Array(blocks)) => blocks,
        Some(v) => return Err(wrong(&cparam, "a string or an array of content blocks", v)),
    };
    let mut out = Vec::with_capacity(blocks.len());
    for (k, b) in blocks.iter().enumerate() {
        let bparam = format!("{cparam}[{k}]");
        let b = b
            .as_object()
            .ok_or_else(|| wrong(&bparam, "an object", b))?;
        match req_str(b, "type", &bparam)? {
            "text" => out.push(req_str(b, "text", &bparam)?.to_owned()),
            "image" => {
                notes.add("an image in a tool result was sent as [image omitted]");
                out.push("[image omitted]".to_owned());
            }
            "document" => out.push(document(b, &bparam)?),
            other => return Err(unsupported(&bparam, other, "a tool result")),
        }
    }
    Ok(out.join("\n"))
}

/// An assistant message.
fn assistant(content: &Value, param: &str, notes: &mut Notes) -> Result<Assistant> {
    let mut a = Assistant::default();
    let blocks = match content {
        Value::String(s) => {
            a.push_text(s);
            return Ok(a);
        }
        Value::Array(blocks) => blocks,
        v => return Err(wrong(param, "a string or an array of content blocks", v)),
    };
    for (j, b) in blocks.iter().enumerate() {
        let bparam = format!("{param}[{j}]");
        let b = b
            .as_object()
            .ok_or_else(|| wrong(&bparam, "an object", b))?;
        match req_str(b, "type", &bparam)? {
            "text" => a.push_text(req_str(b, "text", &bparam)?),
            "tool_use" => {
                let id = req_str(b, "id", &bparam)?;
                let name = req_str(b, "name", &bparam)?;
                let arguments = match b.get("input") {
                    None | Some(Value::Null) => "{}".to_owned(),
                    Some(v @ Value::Object(_)) => v.to_string(),
                    Some(v) => return Err(wrong(&path(&bparam, "input"), "an object", v)),
                };
                a.call(id, name, arguments);
            }
            "thinking" => {
                let t = req_str(b, "thinking", &bparam)?;
                if !t.is_empty() {
                    a.push_reasoning(t);
                }
            }
            "redacted_thinking" => notes.add("dropped redacted_thinking blocks (encrypted)"),
            ty @ ("server_tool_use" | "mcp_tool_use" | "mcp_tool_result" | "container_upload") => {
                notes.add(format!("dropped {ty} blocks (server tools)"));
            }
            ty if ty.ends_with("_tool_result") => {
                notes.add(format!("dropped {ty} blocks (server tools)"));
            }
            other => return Err(unsupported(&bparam, other, "an assistant message")),
        }
    }
    Ok(a)
}

/// `tools` → Chat function tools.
fn tools(o: &Map<String, Value>, p: &mut Parts) -> Result<()> {
    let list = match o.get("tools") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(list)) => list,
        Some(v) => return Err(wrong("tools", "an array", v)),
    };
    for (j, t) in list.iter().enumerate() {
        let param = format!("tools[{j}]");
        let t = t.as_object().ok_or_else(|| wrong(&param, "an object", t))?;
        let ty = opt_str(t, "type", &param)?;
        match ty {
            None | Some("custom") => {
                let name = req_str(t, "name", &param)?;
                let description = opt_str(t, "description", &param)?;
                let schema = opt_object(t, "input_schema", &param)?;
                let strict = opt_bool(t, "strict", &param)?;
                let schema = schema.map(|s| Value::Object(s.clone()));
                p.tools
                    .push(function_tool(name, description, schema.as_ref(), strict));
            }
            Some(ty) if ty.starts_with("bash_") => {
                let name = req_str(t, "name", &param)?;
                p.tools.push(function_tool(
                    name,
                    Some("Run a command in a persistent bash shell."),
                    Some(&bash_schema()),
                    None,
                ));
            }
            Some(ty) if ty.starts_with("text_editor_") => {
                let name = req_str(t, "name", &param)?;
                let undo = matches!(ty, "text_editor_20241022" | "text_editor_20250124");
                p.tools.push(function_tool(
                    name,
                    Some("View, create and edit text files."),
                    Some(&editor_schema(undo)),
                    None,
                ));
            }
            Some(ty) => {
                let name = opt_str(t, "name", &param)?.unwrap_or(ty);
                p.notes
                    .add(format!("dropped the server tool {name:?} ({ty})"));
            }
        }
    }
    Ok(())
}

/// The input schema of Anthropic's `bash` tool.
fn bash_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The bash command to run."},
            "restart": {"type": "boolean", "description": "Restart the shell instead of running a command."},
        },
    })
}

/// The input schema of Anthropic's text editor tool (`undo_edit` before 2025-04-29).
fn editor_schema(undo: bool) -> Value {
    let mut commands = vec!["view", "create", "str_replace", "insert"];
    if undo {
        commands.push("undo_edit");
    }
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "enum": commands},
            "path": {"type": "string", "description": "Absolute path of the file or directory."},
            "file_text": {"type": "string", "description": "The content of the file to create."},
            "old_str": {"type": "string", "description": "The exact text to replace."},
            "new_str": {"type": "string", "description": "The replacement text, or the text to insert."},
            "insert_line": {"type": "integer", "description": "The line after which to insert (0: the start)."},
            "view_range": {"type": "array", "items": {"type": "integer"}, "description": "[first, last] line to view; last -1: to the end."},
        },
        "required": ["command", "path"],
    })
}

/// `tool_choice` (and `disable_parallel_tool_use`).
fn tool_choice(o: &Map<String, Value>, p: &mut Parts) -> Result<()> {
    let Some(tc) = opt_object(o, "tool_choice", "")? else {
        return Ok(());
    };
    if opt_bool(tc, "disable_parallel_tool_use", "tool_choice")? == Some(true) {
        p.parallel_tool_calls = Some(false);
    }
    let choice = match req_str(tc, "type", "tool_choice")? {
        "auto" => "auto".into(),
        "none" => "none".into(),
        "any" => {
            if p.tools.is_empty() {
                return Err(TranslateError::new(
                    "tool_choice.type",
                    "\"any\" needs tools, and no tool is sent upstream",
                ));
            }
            "required".into()
        }
        "tool" => choose_function(
            req_str(tc, "name", "tool_choice")?,
            &p.tools,
            "tool_choice.name",
        )?,
        other => {
            return Err(TranslateError::new(
                "tool_choice.type",
                format!("{other:?}: expected \"auto\", \"any\", \"tool\" or \"none\""),
            ));
        }
    };
    if p.tools.is_empty() {
        // `auto` / `none` without tools: nothing to choose from, nothing to say.
        p.parallel_tool_calls = None;
    } else {
        p.tool_choice = Some(choice);
    }
    Ok(())
}
