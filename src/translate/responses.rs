//! OpenAI Responses (`POST /v1/responses`, what Codex sends) → Chat Completions.
//!
//! | Responses | Chat |
//! |---|---|
//! | `model`, `stream`, `temperature`, `top_p`, `user`, `parallel_tool_calls` | the same |
//! | `max_output_tokens` | `max_tokens` |
//! | `instructions` | a leading `system` message |
//! | `input` as a string | one user message |
//! | `message` items and `{role, content}` items without `type` | by role: `user` → user (`input_text` → text, `input_image` → an `image_url` part; a `file_id` image or `input_file`: 400); `system` and `developer` → `system` (text only); `assistant` → assistant (`output_text`, `input_text`, `refusal` texts joined by a newline) |
//! | `function_call` (`call_id`, `name`, `arguments` text; `namespace`) | a `tool_calls` entry; consecutive assistant items (text, calls, reasoning) merge into one assistant message, except that text after calls starts a new one; a namespaced call's name is `namespace` + `name` |
//! | `custom_tool_call` (`call_id`, `name`, `input`) | a `tool_calls` entry with `arguments` `{"input": input}` (as its tool is declared, below) |
//! | `function_call_output`, `custom_tool_call_output` (`output` text or content parts) | a `tool` message; text parts joined by a newline, an image becomes `[image omitted]` (note) |
//! | `reasoning` items | their text (`content` reasoning text, else the `summary` texts) as the next assistant message's `reasoning_content`; encrypted-only reasoning is dropped with a note, as is reasoning no assistant output follows |
//! | hosted tools' items (`web_search_call`, `file_search_call`, `image_generation_call`, `code_interpreter_call`, `computer_call`(`_output`), `mcp_*`, `tool_search_*`) | dropped with a note (their tools are not sent upstream) |
//! | `local_shell_call`(`_output`), `item_reference`, `compaction`, any other item | 400 naming it (a client tool call the upstream cannot be shown, or state the proxy does not have) |
//! | `tools`: `function` | a function tool (`parameters`, `strict` kept; `defer_loading` ignored) |
//! | `tools`: `custom` (freeform, e.g. Codex's `apply_patch`) | a function tool taking `{"input": string}`, its grammar in the parameter's description; recorded as [`ToolOrigin::Custom`](super::ToolOrigin::Custom) |
//! | `tools`: `namespace` | each `function` in it becomes a function tool named `namespace` + `name`, recorded as [`ToolOrigin::Namespaced`](super::ToolOrigin::Namespaced); other tools in it are dropped with a note |
//! | `tools`: `web_search*`, `file_search`, `image_generation`, `code_interpreter`, `computer*`, `mcp`, `local_shell`, `shell`, `tool_search`, any other type | dropped with a note (hosted by OpenAI, or a shape no Chat function can stand for) |
//! | `tool_choice` `auto` / `none` / `required` / `{"type":"function"\|"custom","name"}` | the same / the named-function form; `allowed_tools`: its `mode` (note: the subset is not enforced); a hosted tool: 400 |
//! | `reasoning.effort` | `none` → `enable_thinking: false`; `low` / `medium` / `high` → `reasoning_effort` and `enable_thinking: true`; `minimal` → `low`, `xhigh` → `high` (note); `reasoning.summary` (`auto` / `concise` / `detailed`): the reply writes reasoning as a summary ([`Translated::reasoning_summary`](super::Translated::reasoning_summary)) |
//! | `text.format` `json_schema` / `json_object` / `text` | `response_format` `{"type":"json_schema","json_schema":{name, description, schema, strict}}` / `{"type":"json_object"}` / nothing; `text.verbosity`: note |
//! | `store: true`, non-empty `include`, non-empty `metadata` | ignored with a note (the proxy stores nothing) |
//! | `previous_response_id`, `conversation`, `prompt`, `background: true` | 400: the proxy keeps no state; send the whole conversation (`store: false`) |
//! | any other top-level member | ignored with a note |

use super::{
    Assistant, Conversation, Notes, Part, Parts, Result, ToolOrigin, TranslateError, Translated,
    choose_function, function_tool, image_part, object, opt_bool, opt_count, opt_number,
    opt_object, opt_str, path, req_str, wrong,
};
use serde_json::{Map, Value, json};

/// Translates an OpenAI Responses request body into a Chat Completions request.
///
/// ```
/// use serde_json::json;
/// let t = toolstream::translate::from_responses(&json!({
///     "model": "gpt-5-codex", "instructions": "Be brief.", "input": "Hi", "store": false,
/// }))?;
/// assert!(!t.stream);
/// assert_eq!(t.body, json!({
///     "model": "gpt-5-codex",
///     "messages": [
///         {"role": "system", "content": "Be brief."},
///         {"role": "user", "content": "Hi"},
///     ],
///     "stream": true,
///     "stream_options": {"include_usage": true},
/// }));
/// let e = toolstream::translate::from_responses(&json!({"previous_response_id": "resp_1"}))
///     .unwrap_err();
/// assert_eq!(e.param(), "previous_response_id");
/// # Ok::<(), toolstream::translate::TranslateError>(())
/// ```
pub fn from_responses(body: &Value) -> Result<Translated> {
    let o = object(body)?;
    for key in ["previous_response_id", "conversation", "prompt"] {
        if o.get(key).is_some_and(|v| !v.is_null()) {
            return Err(TranslateError::new(key, STATELESS));
        }
    }
    if opt_bool(o, "background", "")? == Some(true) {
        return Err(TranslateError::new("background", STATELESS));
    }
    let mut p = Parts {
        model: opt_str(o, "model", "")?.map(str::to_owned),
        stream: opt_bool(o, "stream", "")?.unwrap_or(false),
        max_tokens: opt_count(o, "max_output_tokens")?,
        temperature: opt_number(o, "temperature")?,
        top_p: opt_number(o, "top_p")?,
        user: opt_str(o, "user", "")?.map(str::to_owned),
        parallel_tool_calls: opt_bool(o, "parallel_tool_calls", "")?,
        ..Parts::default()
    };
    for key in o.keys() {
        if !KNOWN.contains(&key.as_str()) {
            p.notes.add(format!("ignored the request's {key:?}"));
        }
    }
    if opt_bool(o, "store", "")? == Some(true) {
        p.notes
            .add("store: true ignored (the proxy stores nothing)");
    }
    match o.get("include") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            if !list.is_empty() {
                let names: Vec<String> = list
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                    .collect();
                p.notes
                    .add(format!("ignored include: {}", names.join(", ")));
            }
        }
        Some(v) => return Err(wrong("include", "an array", v)),
    }
    if opt_object(o, "metadata", "")?.is_some_and(|m| !m.is_empty()) {
        p.notes.add("ignored metadata");
    }
    reasoning(o, &mut p)?;
    text(o, &mut p)?;
    tools(o, &mut p)?;
    tool_choice(o, &mut p)?;

    let mut conv = Conversation::default();
    if let Some(s) = opt_str(o, "instructions", "")?
        && !s.is_empty()
    {
        conv.system(s.to_owned());
    }
    match o.get("input") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => conv.user(vec![Part::Text(s.clone())]),
        Some(Value::Array(items)) => input(items, &mut conv, &mut p.notes)?,
        Some(v) => return Err(wrong("input", "a string or an array of items", v)),
    }
    p.messages = conv.messages;
    p.finish()
}

/// The message of every request that needs stored state.
const STATELESS: &str = "the proxy keeps no state; send the whole conversation (store: false)";

/// The top-level members this translation reads.
const KNOWN: [&str; 20] = [
    "model",
    "input",
    "instructions",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "max_output_tokens",
    "temperature",
    "top_p",
    "reasoning",
    "text",
    "store",
    "include",
    "metadata",
    "user",
    "stream",
    "previous_response_id",
    "conversation",
    "prompt",
    "background",
];

/// `reasoning.effort` and `reasoning.summary`.
fn reasoning(o: &Map<String, Value>, p: &mut Parts) -> Result<()> {
    let Some(r) = opt_object(o, "reasoning", "")? else {
        return Ok(());
    };
    // `generate_summary` is the field's older name.
    for key in ["summary", "generate_summary"] {
        if opt_str(r, key, "reasoning")?.is_some_and(|s| s != "none") {
            p.reasoning_summary = true;
        }
    }
    let Some(effort) = opt_str(r, "effort", "reasoning")? else {
        return Ok(());
    };
    let (thinking, level) = match effort {
        "none" => (false, None),
        "minimal" => (true, Some("low")),
        "low" => (true, Some("low")),
        "medium" => (true, Some("medium")),
        "high" => (true, Some("high")),
        "xhigh" => (true, Some("high")),
        other => {
            return Err(TranslateError::new(
                "reasoning.effort",
                format!(
                    "{other:?}: expected \"none\", \"minimal\", \"low\", \"medium\", \"high\" or \"xhigh\""
                ),
            ));
        }
    };
    if let Some(l) = level
        && l != effort
    {
        p.notes
            .add(format!("reasoning.effort {effort} sent as {l}"));
    }
    p.thinking = Some(thinking);
    p.reasoning_effort = level;
    Ok(())
}

/// `text.format` → `response_format`.
fn text(o: &Map<String, Value>, p: &mut Parts) -> Result<()> {
    let Some(t) = opt_object(o, "text", "")? else {
        return Ok(());
    };
    if t.get("verbosity").is_some_and(|v| !v.is_null()) {
        p.notes.add("ignored text.verbosity");
    }
    let Some(f) = opt_object(t, "format", "text")? else {
        return Ok(());
    };
    match req_str(f, "type", "text.format")? {
        "text" => {}
        "json_object" => p.response_format = Some(json!({"type": "json_object"})),
        "json_schema" => {
            let mut js = Map::new();
            js.insert("name".into(), req_str(f, "name", "text.format")?.into());
            if let Some(d) = opt_str(f, "description", "text.format")? {
                js.insert("description".into(), d.into());
            }
            let schema = opt_object(f, "schema", "text.format")?
                .ok_or_else(|| TranslateError::new("text.format.schema", "required, an object"))?;
            js.insert("schema".into(), Value::Object(schema.clone()));
            if let Some(s) = opt_bool(f, "strict", "text.format")? {
                js.insert("strict".into(), s.into());
            }
            p.response_format = Some(json!({"type": "json_schema", "json_schema": js}));
        }
        other => {
            return Err(TranslateError::new(
                "text.format.type",
                format!("{other:?}: expected \"text\", \"json_object\" or \"json_schema\""),
            ));
        }
    }
    Ok(())
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
        match req_str(t, "type", &param)? {
            "function" => p.tools.push(function(t, &param, None)?),
            "custom" => {
                let name = req_str(t, "name", &param)?;
                let description = opt_str(t, "description", &param)?;
                let input = match opt_object(t, "format", &param)? {
                    Some(f) if opt_str(f, "type", &path(&param, "format"))? == Some("grammar") => {
                        let fparam = path(&param, "format");
                        let syntax = opt_str(f, "syntax", &fparam)?.unwrap_or("lark");
                        let definition = req_str(f, "definition", &fparam)?;
                        format!("The raw input, in this {syntax} grammar:\n{definition}")
                    }
                    _ => "The raw input.".to_owned(),
                };
                let params = json!({
                    "type": "object",
                    "properties": {"input": {"type": "string", "description": input}},
                    "required": ["input"],
                    "additionalProperties": false,
                });
                p.tools
                    .push(function_tool(name, description, Some(&params), None));
                p.tool_origins.insert(
                    name.to_owned(),
                    ToolOrigin::Custom {
                        name: name.to_owned(),
                    },
                );
            }
            "namespace" => {
                let ns = req_str(t, "name", &param)?;
                let inner = match t.get("tools") {
                    None | Some(Value::Null) => &Vec::new(),
                    Some(Value::Array(list)) => list,
                    Some(v) => return Err(wrong(&path(&param, "tools"), "an array", v)),
                };
                for (k, f) in inner.iter().enumerate() {
                    let fparam = format!("{param}.tools[{k}]");
                    let f = f
                        .as_object()
                        .ok_or_else(|| wrong(&fparam, "an object", f))?;
                    let ty = req_str(f, "type", &fparam)?;
                    if ty != "function" {
                        let name = opt_str(f, "name", &fparam)?.unwrap_or(ty);
                        p.notes.add(format!(
                            "dropped the {ty} tool {name:?} of namespace {ns:?}"
                        ));
                        continue;
                    }
                    let name = req_str(f, "name", &fparam)?;
                    let chat_name = format!("{ns}{name}");
                    p.tools.push(function(f, &fparam, Some(&chat_name))?);
                    p.tool_origins.insert(
                        chat_name,
                        ToolOrigin::Namespaced {
                            namespace: ns.to_owned(),
                            name: name.to_owned(),
                        },
                    );
                }
            }
            ty => p.notes.add(format!("dropped the built-in tool {ty}")),
        }
    }
    Ok(())
}

/// A `function` tool (named `rename` when given).
fn function(t: &Map<String, Value>, param: &str, rename: Option<&str>) -> Result<Value> {
    let name = req_str(t, "name", param)?;
    let description = opt_str(t, "description", param)?;
    let parameters = opt_object(t, "parameters", param)?.map(|s| Value::Object(s.clone()));
    let strict = opt_bool(t, "strict", param)?;
    Ok(function_tool(
        rename.unwrap_or(name),
        description,
        parameters.as_ref(),
        strict,
    ))
}

/// `tool_choice`.
fn tool_choice(o: &Map<String, Value>, p: &mut Parts) -> Result<()> {
    let choice = match o.get("tool_choice") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::String(s)) => match s.as_str() {
            "auto" | "none" => {
                if p.tools.is_empty() {
                    return Ok(());
                }
                Value::String(s.clone())
            }
            "required" => {
                if p.tools.is_empty() {
                    return Err(TranslateError::new(
                        "tool_choice",
                        "\"required\" needs tools, and no tool is sent upstream",
                    ));
                }
                Value::String(s.clone())
            }
            other => {
                return Err(TranslateError::new(
                    "tool_choice",
                    format!("{other:?}: expected \"auto\", \"none\" or \"required\""),
                ));
            }
        },
        Some(Value::Object(tc)) => match req_str(tc, "type", "tool_choice")? {
            "function" | "custom" => {
                let name = req_str(tc, "name", "tool_choice")?;
                let name = match opt_str(tc, "namespace", "tool_choice")? {
                    Some(ns) => format!("{ns}{name}"),
                    None => name.to_owned(),
                };
                choose_function(&name, &p.tools, "tool_choice.name")?
            }
            "allowed_tools" => {
                p.notes
                    .add("tool_choice allowed_tools: the subset is not enforced");
                match opt_str(tc, "mode", "tool_choice")?.unwrap_or("auto") {
                    "auto" if p.tools.is_empty() => return Ok(()),
                    "required" if p.tools.is_empty() => {
                        return Err(TranslateError::new(
                            "tool_choice.mode",
                            "\"required\" needs tools, and no tool is sent upstream",
                        ));
                    }
                    m @ ("auto" | "required") => Value::String(m.to_owned()),
                    other => {
                        return Err(TranslateError::new(
                            "tool_choice.mode",
                            format!("{other:?}: expected \"auto\" or \"required\""),
                        ));
                    }
                }
            }
            other => {
                return Err(TranslateError::new(
                    "tool_choice.type",
                    format!("{other:?}: a built-in tool, which is not sent upstream"),
                ));
            }
        },
        Some(v) => return Err(wrong("tool_choice", "a string or an object", v)),
    };
    p.tool_choice = Some(choice);
    Ok(())
}

/// The `input` items, in order.
fn input(items: &[Value], conv: &mut Conversation, notes: &mut Notes) -> Result<()> {
    let mut open: Option<Assistant> = None;
    for (i, item) in items.iter().enumerate() {
        let param = format!("input[{i}]");
        let it = item
            .as_object()
            .ok_or_else(|| wrong(&param, "an object", item))?;
        let ty = match opt_str(it, "type", &param)? {
            Some(ty) => ty,
            None if it.contains_key("role") => "message",
            None => {
                return Err(TranslateError::new(
                    path(&param, "type"),
                    "required (or a role, for a message)",
                ));
            }
        };
        match ty {
            "message" => {
                let role = req_str(it, "role", &param)?;
                let content = it
                    .get("content")
                    .ok_or_else(|| TranslateError::new(path(&param, "content"), "required"))?;
                let cparam = path(&param, "content");
                match role {
                    "assistant" => {
                        if open.as_ref().is_some_and(|a| !a.calls.is_empty()) {
                            flush(&mut open, conv, notes);
                        }
                        let a = open.get_or_insert_default();
                        for t in assistant_texts(content, &cparam)? {
                            a.push_text(t);
                        }
                    }
                    "user" => {
                        flush(&mut open, conv, notes);
                        conv.user(user_parts(content, &cparam)?);
                    }
                    "system" | "developer" => {
                        flush(&mut open, conv, notes);
                        conv.system(system_text(content, &cparam)?);
                    }
                    other => {
                        return Err(TranslateError::new(
                            path(&param, "role"),
                            format!(
                                "{other:?}: expected \"user\", \"assistant\", \"system\" or \"developer\""
                            ),
                        ));
                    }
                }
            }
            "function_call" => {
                let id = req_str(it, "call_id", &param)?;
                let name = req_str(it, "name", &param)?;
                let arguments = req_str(it, "arguments", &param)?;
                let name = match opt_str(it, "namespace", &param)? {
                    Some(ns) => format!("{ns}{name}"),
                    None => name.to_owned(),
                };
                open.get_or_insert_default()
                    .call(id, &name, arguments.to_owned());
            }
            "custom_tool_call" => {
                let id = req_str(it, "call_id", &param)?;
                let name = req_str(it, "name", &param)?;
                let input = req_str(it, "input", &param)?;
                let arguments = json!({"input": input}).to_string();
                open.get_or_insert_default().call(id, name, arguments);
            }
            "function_call_output" | "custom_tool_call_output" => {
                flush(&mut open, conv, notes);
                let id = req_str(it, "call_id", &param)?;
                let text = output(it.get("output"), &path(&param, "output"), notes)?;
                conv.tool(id, text);
            }
            "reasoning" => match reasoning_text(it, &param)? {
                Some(t) => open.get_or_insert_default().push_reasoning(&t),
                None => notes.add("dropped reasoning items without readable text (encrypted)"),
            },
            ty @ ("web_search_call"
            | "file_search_call"
            | "image_generation_call"
            | "code_interpreter_call"
            | "computer_call"
            | "computer_call_output"
            | "mcp_call"
            | "mcp_list_tools"
            | "mcp_approval_request"
            | "mcp_approval_response"
            | "tool_search_call"
            | "tool_search_output") => {
                notes.add(format!("dropped {ty} items (built-in tools)"));
            }
            "item_reference" => return Err(TranslateError::new(path(&param, "type"), STATELESS)),
            other => {
                return Err(TranslateError::new(
                    path(&param, "type"),
                    format!("input items of type {other:?} cannot be sent upstream"),
                ));
            }
        }
    }
    flush(&mut open, conv, notes);
    Ok(())
}

/// Ends the open assistant message (one holding only reasoning is dropped, with a note;
/// one holding nothing at all, an assistant item with no content parts, silently).
fn flush(open: &mut Option<Assistant>, conv: &mut Conversation, notes: &mut Notes) {
    if let Some(a) = open.take() {
        if a.text.is_some() || !a.calls.is_empty() {
            conv.messages.push(a.into_message());
        } else if a.reasoning.is_some() {
            notes.add("dropped reasoning that no assistant output follows");
        }
    }
}

/// A content part: its param path, its members, its `type`.
type PartRef<'a> = (String, &'a Map<String, Value>, &'a str);

/// The content parts of a message (`None` for a string), each checked to be an object
/// with a `type`.
fn parts<'a>(content: &'a Value, param: &str) -> Result<Option<Vec<PartRef<'a>>>> {
    let list = match content {
        Value::String(_) => return Ok(None),
        Value::Array(list) => list,
        v => return Err(wrong(param, "a string or an array of content parts", v)),
    };
    let mut out = Vec::with_capacity(list.len());
    for (j, part) in list.iter().enumerate() {
        let pparam = format!("{param}[{j}]");
        let o = part
            .as_object()
            .ok_or_else(|| wrong(&pparam, "an object", part))?;
        let ty = req_str(o, "type", &pparam)?;
        out.push((pparam, o, ty));
    }
    Ok(Some(out))
}

/// A part type not accepted in this place.
fn unsupported(param: &str, ty: &str, place: &str) -> TranslateError {
    TranslateError::new(
        path(param, "type"),
        format!("content parts of type {ty:?} are not supported in {place}"),
    )
}

/// A user message's parts.
fn user_parts(content: &Value, param: &str) -> Result<Vec<Part>> {
    let Some(list) = parts(content, param)? else {
        return Ok(vec![Part::Text(
            content.as_str().unwrap_or_default().to_owned(),
        )]);
    };
    let mut out = Vec::with_capacity(list.len());
    for (pparam, o, ty) in list {
        match ty {
            "input_text" | "output_text" => {
                out.push(Part::Text(req_str(o, "text", &pparam)?.to_owned()));
            }
            "input_image" => {
                let Some(url) = opt_str(o, "image_url", &pparam)? else {
                    return Err(TranslateError::new(
                        path(&pparam, "image_url"),
                        "required: the upstream cannot read file ids",
                    ));
                };
                let detail = opt_str(o, "detail", &pparam)?;
                out.push(image_part(url.to_owned(), detail));
            }
            other => return Err(unsupported(&pparam, other, "a user message")),
        }
    }
    if out.is_empty() {
        out.push(Part::Text(String::new()));
    }
    Ok(out)
}

/// A system / developer message's text (parts joined by a newline).
fn system_text(content: &Value, param: &str) -> Result<String> {
    let Some(list) = parts(content, param)? else {
        return Ok(content.as_str().unwrap_or_default().to_owned());
    };
    let mut out = Vec::with_capacity(list.len());
    for (pparam, o, ty) in list {
        match ty {
            "input_text" | "output_text" => out.push(req_str(o, "text", &pparam)?),
            other => return Err(unsupported(&pparam, other, "a system message")),
        }
    }
    Ok(out.join("\n"))
}

/// An assistant message's texts.
fn assistant_texts<'a>(content: &'a Value, param: &str) -> Result<Vec<&'a str>> {
    let Some(list) = parts(content, param)? else {
        return Ok(vec![content.as_str().unwrap_or_default()]);
    };
    let mut out = Vec::with_capacity(list.len());
    for (pparam, o, ty) in list {
        match ty {
            "output_text" | "input_text" => out.push(req_str(o, "text", &pparam)?),
            "refusal" => out.push(req_str(o, "refusal", &pparam)?),
            other => return Err(unsupported(&pparam, other, "an assistant message")),
        }
    }
    Ok(out)
}

/// A tool call's `output` as one text.
fn output(v: Option<&Value>, param: &str, notes: &mut Notes) -> Result<String> {
    let v = v.ok_or_else(|| TranslateError::new(param, "required"))?;
    let Some(list) = parts(v, param)? else {
        return Ok(v.as_str().unwrap_or_default().to_owned());
    };
    let mut out = Vec::with_capacity(list.len());
    for (pparam, o, ty) in list {
        match ty {
            "input_text" | "output_text" => out.push(req_str(o, "text", &pparam)?.to_owned()),
            "input_image" => {
                notes.add("an image in a tool result was sent as [image omitted]");
                out.push("[image omitted]".to_owned());
            }
            other => return Err(unsupported(&pparam, other, "a tool output")),
        }
    }
    Ok(out.join("\n"))
}

/// A `reasoning` item's text: its `content` reasoning text, else its `summary` texts.
fn reasoning_text(it: &Map<String, Value>, param: &str) -> Result<Option<String>> {
    for (key, part_type) in [("content", "reasoning_text"), ("summary", "summary_text")] {
        let kparam = path(param, key);
        let list = match it.get(key) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(list)) => list,
            Some(v) => return Err(wrong(&kparam, "an array", v)),
        };
        let mut texts = Vec::new();
        for (j, part) in list.iter().enumerate() {
            let pparam = format!("{kparam}[{j}]");
            let o = part
                .as_object()
                .ok_or_else(|| wrong(&pparam, "an object", part))?;
            let ty = req_str(o, "type", &pparam)?;
            if ty == part_type || ty == "text" {
                let t = req_str(o, "text", &pparam)?;
                if !t.is_empty() {
                    texts.push(t);
                }
            }
        }
        if !texts.is_empty() {
            return Ok(Some(texts.join("\n\n")));
        }
    }
    Ok(None)
}
