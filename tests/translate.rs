//! `toolstream::translate`: client requests (Anthropic Messages, OpenAI Responses) become
//! the Chat Completions request the proxy sends upstream.

use proptest::prelude::*;
use serde_json::{Value, json};
use toolstream::translate::{ToolOrigin, TranslateError, from_messages, from_responses};

/// A Claude Code-like request: system blocks with cache_control, a mid-conversation system
/// message, tools with input_schema, a tool_use / tool_result round with an error, thinking.
#[test]
fn claude_code_request() {
    let body = json!({
        "model": "claude-sonnet-4-5-20250929",
        "max_tokens": 32000,
        "stream": true,
        "temperature": 1,
        "system": [
            {"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude.",
             "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Use the tools to help the user.",
             "cache_control": {"type": "ephemeral"}},
        ],
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "<system-reminder>ctx</system-reminder>"},
                {"type": "text", "text": "List the files, then read main.rs",
                 "cache_control": {"type": "ephemeral"}},
            ]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "I should run ls.", "signature": "sig=="},
                {"type": "text", "text": "Listing."},
                {"type": "tool_use", "id": "toolu_01A", "name": "Bash",
                 "input": {"command": "ls", "description": "List files"}},
                {"type": "tool_use", "id": "toolu_01B", "name": "Read",
                 "input": {"file_path": "/x/main.rs"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "main.rs\nlib.rs"},
                {"type": "tool_result", "tool_use_id": "toolu_01B", "is_error": true,
                 "content": [{"type": "text", "text": "File does not exist."}]},
                {"type": "text", "text": "Try src/main.rs"},
            ]},
            {"role": "system", "content": "The user switched to plan mode."},
            {"role": "assistant", "content": [
                {"type": "redacted_thinking", "data": "EnCrYpTeD"},
                {"type": "tool_use", "id": "toolu_01C", "name": "Read",
                 "input": {"file_path": "/x/src/main.rs"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01C", "content": [
                    {"type": "text", "text": "fn main() {}"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
                ]},
            ]},
        ],
        "tools": [
            {"name": "Bash", "description": "Run a command",
             "input_schema": {"type": "object", "properties": {"command": {"type": "string"}},
                              "required": ["command"]}},
            {"name": "Read", "description": "Read a file",
             "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}},
             "cache_control": {"type": "ephemeral"}},
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
        ],
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": true},
        "thinking": {"type": "enabled", "budget_tokens": 31999},
        "metadata": {"user_id": "user_abc_account_def_session_ghi"},
        "context_management": {"edits": []},
    });
    let t = from_messages(&body).unwrap();
    assert_eq!(
        t.body,
        json!({
            "model": "claude-sonnet-4-5-20250929",
            "messages": [
                {"role": "system", "content":
                    "You are Claude Code, Anthropic's official CLI for Claude.\n\nUse the tools to help the user."},
                {"role": "user", "content": [
                    {"type": "text", "text": "<system-reminder>ctx</system-reminder>"},
                    {"type": "text", "text": "List the files, then read main.rs"},
                ]},
                {"role": "assistant", "content": "Listing.", "reasoning_content": "I should run ls.",
                 "tool_calls": [
                    {"id": "01A", "type": "function", "function": {"name": "Bash",
                     "arguments": r#"{"command":"ls","description":"List files"}"#}},
                    {"id": "01B", "type": "function", "function": {"name": "Read",
                     "arguments": r#"{"file_path":"/x/main.rs"}"#}},
                ]},
                {"role": "tool", "tool_call_id": "01A", "content": "main.rs\nlib.rs"},
                {"role": "tool", "tool_call_id": "01B", "content": "Error: File does not exist."},
                {"role": "user", "content": "Try src/main.rs"},
                {"role": "system", "content": "The user switched to plan mode."},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "01C", "type": "function", "function": {"name": "Read",
                     "arguments": r#"{"file_path":"/x/src/main.rs"}"#}},
                ]},
                {"role": "tool", "tool_call_id": "01C", "content": "fn main() {}\n[image omitted]"},
            ],
            "tools": [
                {"type": "function", "function": {"name": "Bash", "description": "Run a command",
                 "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                                "required": ["command"]}}},
                {"type": "function", "function": {"name": "Read", "description": "Read a file",
                 "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}}}}},
            ],
            "tool_choice": "auto",
            "parallel_tool_calls": false,
            "max_tokens": 32000,
            "temperature": 1,
            "user": "user_abc_account_def_session_ghi",
            "chat_template_kwargs": {"enable_thinking": true},
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
    assert!(t.stream);
    assert!(t.thinking);
    assert!(!t.parallel_tool_calls);
    assert_eq!(t.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    let tools = t.tools.as_ref().unwrap();
    assert!(tools.is_declared("Bash") && tools.is_declared("Read"));
    assert!(!tools.is_declared("web_search"));
    assert!(t.tool_origins.is_empty());
    assert_eq!(
        t.notes,
        [
            "ignored the request's \"context_management\"",
            "thinking.budget_tokens not enforced upstream",
            "dropped the server tool \"web_search\" (web_search_20250305)",
            "dropped redacted_thinking blocks (encrypted)",
            "an image in a tool result was sent as [image omitted]",
        ]
    );
}

/// A Codex-like request: instructions, a developer message, function_call /
/// function_call_output pairs, function + custom + web_search tools, a reasoning item,
/// `store: false`, `include: ["reasoning.encrypted_content"]`.
#[test]
fn codex_request() {
    let body = json!({
        "model": "gpt-5-codex",
        "instructions": "You are Codex, a coding agent.",
        "input": [
            {"type": "message", "role": "developer", "content": [
                {"type": "input_text", "text": "<permissions instructions>sandbox</permissions instructions>"}]},
            {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "<environment_context>cwd</environment_context>"}]},
            {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "Fix the test"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBO", "detail": "auto"}]},
            {"type": "reasoning", "id": "rs_1", "summary": [
                {"type": "summary_text", "text": "**Looking at tests**"}],
             "content": null, "encrypted_content": "gAAAA"},
            {"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "Running the tests."}]},
            {"type": "function_call", "call_id": "call_a1", "name": "shell_command",
             "arguments": "{\"command\":\"cargo test\"}"},
            {"type": "function_call", "call_id": "call_a2", "name": "shell_command",
             "arguments": "{\"command\":\"git status\"}"},
            {"type": "function_call_output", "call_id": "call_a1", "output": "1 failed"},
            {"type": "function_call_output", "call_id": "call_a2", "output": "clean"},
            {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gAAAB"},
            {"type": "custom_tool_call", "call_id": "call_b1", "name": "apply_patch",
             "input": "*** Begin Patch\n*** End Patch\n"},
            {"type": "custom_tool_call_output", "call_id": "call_b1", "output": "Done!"},
            {"role": "user", "content": "thanks"},
        ],
        "tools": [
            {"type": "function", "name": "shell_command", "description": "Runs a shell command",
             "strict": false, "parameters": {"type": "object",
                "properties": {"command": {"type": "string"}}, "required": ["command"],
                "additionalProperties": false}},
            {"type": "custom", "name": "apply_patch", "description": "Edit files",
             "format": {"type": "grammar", "syntax": "lark", "definition": "start: patch"}},
            {"type": "web_search"},
            {"type": "namespace", "name": "mcp__docs__", "description": "Docs server",
             "tools": [{"type": "function", "name": "search", "description": "Search docs",
                        "strict": false, "parameters": {"type": "object", "properties": {}}}]},
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": true,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": false,
        "stream": true,
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": "0199-abc",
        "text": {"verbosity": "low"},
    });
    let t = from_responses(&body).unwrap();
    let input_desc = "The raw input, in this lark grammar:\nstart: patch";
    assert_eq!(
        t.body,
        json!({
            "model": "gpt-5-codex",
            "messages": [
                {"role": "system", "content":
                    "You are Codex, a coding agent.\n\n<permissions instructions>sandbox</permissions instructions>"},
                {"role": "user", "content": "<environment_context>cwd</environment_context>"},
                {"role": "user", "content": [
                    {"type": "text", "text": "Fix the test"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO", "detail": "auto"}},
                ]},
                {"role": "assistant", "content": "Running the tests.",
                 "reasoning_content": "**Looking at tests**", "tool_calls": [
                    {"id": "a1", "type": "function", "function": {"name": "shell_command",
                     "arguments": "{\"command\":\"cargo test\"}"}},
                    {"id": "a2", "type": "function", "function": {"name": "shell_command",
                     "arguments": "{\"command\":\"git status\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "a1", "content": "1 failed"},
                {"role": "tool", "tool_call_id": "a2", "content": "clean"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "b1", "type": "function", "function": {"name": "apply_patch",
                     "arguments": "{\"input\":\"*** Begin Patch\\n*** End Patch\\n\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "b1", "content": "Done!"},
                {"role": "user", "content": "thanks"},
            ],
            "tools": [
                {"type": "function", "function": {"name": "shell_command",
                 "description": "Runs a shell command",
                 "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                                "required": ["command"], "additionalProperties": false},
                 "strict": false}},
                {"type": "function", "function": {"name": "apply_patch", "description": "Edit files",
                 "parameters": {"type": "object",
                    "properties": {"input": {"type": "string", "description": input_desc}},
                    "required": ["input"], "additionalProperties": false}}},
                {"type": "function", "function": {"name": "mcp__docs__search",
                 "description": "Search docs",
                 "parameters": {"type": "object", "properties": {}}, "strict": false}},
            ],
            "tool_choice": "auto",
            "parallel_tool_calls": true,
            "reasoning_effort": "medium",
            "chat_template_kwargs": {"enable_thinking": true},
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
    assert!(t.stream && t.thinking && t.parallel_tool_calls);
    assert_eq!(
        t.tool_origins.get("apply_patch"),
        Some(&ToolOrigin::Custom {
            name: "apply_patch".into()
        })
    );
    assert_eq!(
        t.tool_origins.get("mcp__docs__search"),
        Some(&ToolOrigin::Namespaced {
            namespace: "mcp__docs__".into(),
            name: "search".into()
        })
    );
    assert_eq!(t.tool_origins.len(), 2);
    let tools = t.tools.as_ref().unwrap();
    assert!(tools.is_declared("apply_patch") && tools.is_declared("mcp__docs__search"));
    assert_eq!(
        t.notes,
        [
            "ignored the request's \"prompt_cache_key\"",
            "ignored include: reasoning.encrypted_content",
            "ignored text.verbosity",
            "dropped the built-in tool web_search",
            "dropped reasoning items without readable text (encrypted)",
        ]
    );
}

#[test]
fn messages_documents_images_and_choices() {
    let t = from_messages(&json!({
        "messages": [{"role": "user", "content": [
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "doc"}},
            {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}},
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "AA"}},
        ]}],
        "tools": [
            {"type": "bash_20250124", "name": "bash"},
            {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
            {"type": "custom", "name": "f", "input_schema": {"type": "object"}},
        ],
        "tool_choice": {"type": "tool", "name": "f"},
        "stop_sequences": ["END"],
        "top_k": 20,
        "thinking": {"type": "disabled"},
    }))
    .unwrap();
    let b = &t.body;
    assert_eq!(
        b["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "doc"},
            {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AA"}},
        ]}])
    );
    assert_eq!(
        b["tool_choice"],
        json!({"type": "function", "function": {"name": "f"}})
    );
    assert_eq!(b["stop"], json!(["END"]));
    assert_eq!(b["top_k"], json!(20));
    assert_eq!(b["chat_template_kwargs"], json!({"enable_thinking": false}));
    assert!(!t.thinking && !t.stream && t.parallel_tool_calls);
    assert_eq!(b["tools"][0]["function"]["name"], "bash");
    assert_eq!(
        b["tools"][1]["function"]["parameters"]["properties"]["command"]["enum"],
        json!(["view", "create", "str_replace", "insert"])
    );
    assert!(b.get("model").is_none());
    for (choice, chat) in [("any", json!("required")), ("none", json!("none"))] {
        let t = from_messages(&json!({"messages": [], "tools": [{"name": "f"}],
            "tool_choice": {"type": choice}}))
        .unwrap();
        assert_eq!(t.body["tool_choice"], chat);
    }
}

/// Tool results come right after the assistant's calls, before the text they were sent
/// with, wherever that text stood in the user message; assistant texts around a call join.
#[test]
fn messages_tool_results_go_first() {
    let t = from_messages(&json!({"messages": [
        {"role": "assistant", "content": [
            {"type": "text", "text": "a"},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"n": 12345678901234567890u64}},
            {"type": "text", "text": "b"},
        ]},
        {"role": "user", "content": [
            {"type": "text", "text": "before"},
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "r"},
            {"type": "text", "text": "after"},
        ]},
    ]}))
    .unwrap();
    assert_eq!(
        t.body["messages"],
        json!([
            {"role": "assistant", "content": "a\nb", "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "f",
                 "arguments": "{\"n\":12345678901234567890}"}}]},
            {"role": "tool", "tool_call_id": "1", "content": "r"},
            {"role": "user", "content": [
                {"type": "text", "text": "before"}, {"type": "text", "text": "after"}]},
        ])
    );
    assert!(t.notes.is_empty());
}

#[test]
fn messages_user_with_only_tool_results_has_no_user_message() {
    let t = from_messages(&json!({"messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "x1", "name": "f"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x1"}]},
    ]}))
    .unwrap();
    assert_eq!(
        t.body["messages"],
        json!([
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "x1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "x1", "content": ""},
        ])
    );
}

#[test]
fn responses_string_input_json_schema_and_effort() {
    let t = from_responses(&json!({
        "input": "hi",
        "max_output_tokens": 100,
        "temperature": 0.2,
        "top_p": 0.9,
        "user": "u1",
        "store": true,
        "metadata": {"k": "v"},
        "reasoning": {"effort": "minimal"},
        "text": {"format": {"type": "json_schema", "name": "out", "strict": true,
                            "schema": {"type": "object"}}},
    }))
    .unwrap();
    assert_eq!(
        t.body,
        json!({
            "messages": [{"role": "user", "content": "hi"}],
            "max_tokens": 100,
            "temperature": 0.2,
            "top_p": 0.9,
            "response_format": {"type": "json_schema", "json_schema":
                {"name": "out", "schema": {"type": "object"}, "strict": true}},
            "user": "u1",
            "reasoning_effort": "low",
            "chat_template_kwargs": {"enable_thinking": true},
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
    assert_eq!(
        t.notes,
        [
            "store: true ignored (the proxy stores nothing)",
            "ignored metadata",
            "reasoning.effort minimal sent as low",
        ]
    );
    let t = from_responses(&json!({"input": [], "reasoning": {"effort": "none"},
        "text": {"format": {"type": "json_object"}}}))
    .unwrap();
    assert_eq!(
        t.body["chat_template_kwargs"],
        json!({"enable_thinking": false})
    );
    assert_eq!(t.body["response_format"], json!({"type": "json_object"}));
    assert!(t.body.get("reasoning_effort").is_none());
    assert!(!t.thinking);
}

#[test]
fn responses_assistant_text_after_calls_starts_a_new_message() {
    let t = from_responses(&json!({"input": [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"role": "assistant", "content": "done"},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "hmm"}]},
        {"role": "user", "content": "ok"},
    ]}))
    .unwrap();
    assert_eq!(
        t.body["messages"],
        json!([
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "assistant", "content": "done", "reasoning_content": "hmm"},
            {"role": "user", "content": "ok"},
        ])
    );
}

#[test]
fn responses_reasoning_without_output_is_dropped() {
    let t = from_responses(&json!({"input": [
        {"role": "user", "content": "a"},
        {"type": "reasoning", "content": [{"type": "reasoning_text", "text": "r"}],
         "summary": [{"type": "summary_text", "text": "s"}]},
        {"role": "assistant", "content": []},
        {"role": "user", "content": "b"},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "s"}]},
        {"role": "user", "content": "c"},
    ]}))
    .unwrap();
    assert_eq!(
        t.body["messages"],
        json!([
            {"role": "user", "content": "a"},
            {"role": "user", "content": "b"},
            {"role": "user", "content": "c"},
        ])
    );
    assert_eq!(
        t.notes,
        ["dropped reasoning that no assistant output follows"]
    );
    // The reasoning text wins over the summary.
    let t = from_responses(&json!({"input": [
        {"type": "reasoning", "content": [{"type": "reasoning_text", "text": "r"}],
         "summary": [{"type": "summary_text", "text": "s"}]},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]},
    ]}))
    .unwrap();
    assert_eq!(
        t.body["messages"],
        json!([{"role": "assistant", "content": "no", "reasoning_content": "r"}])
    );
}

#[test]
fn responses_namespaced_call_and_choices() {
    let t = from_responses(&json!({
        "input": [{"type": "function_call", "call_id": "call_9", "namespace": "mcp__s__",
                   "name": "q", "arguments": "{}"},
                  {"type": "function_call_output", "call_id": "call_9", "output": [
                      {"type": "input_text", "text": "a"}, {"type": "input_image", "image_url": "u"}]}],
        "tools": [{"type": "namespace", "name": "mcp__s__", "tools": [
            {"type": "function", "name": "q"}, {"type": "custom", "name": "c"}]},
            {"type": "custom", "name": "free"}],
        "tool_choice": {"type": "function", "namespace": "mcp__s__", "name": "q"},
    }))
    .unwrap();
    assert_eq!(
        t.body["messages"],
        json!([
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "9", "type": "function", "function": {"name": "mcp__s__q", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "9", "content": "a\n[image omitted]"},
        ])
    );
    assert_eq!(
        t.body["tool_choice"],
        json!({"type": "function", "function": {"name": "mcp__s__q"}})
    );
    assert_eq!(
        t.body["tools"][1]["function"]["parameters"]["properties"]["input"]["description"],
        "The raw input."
    );
    let t = from_responses(&json!({"tools": [{"type": "function", "name": "f"}],
        "tool_choice": {"type": "allowed_tools", "mode": "required", "tools": []}}))
    .unwrap();
    assert_eq!(t.body["tool_choice"], "required");
    // No tools left: `auto` / `none` are dropped.
    let t =
        from_responses(&json!({"tools": [{"type": "web_search"}], "tool_choice": "auto"})).unwrap();
    assert!(t.body.get("tool_choice").is_none() && t.body.get("tools").is_none());
    assert!(t.tools.is_none());
}

/// The error's param for a request.
fn param(r: Result<toolstream::translate::Translated, TranslateError>) -> String {
    match r {
        Ok(t) => format!("<no error: {}>", t.body),
        Err(e) => {
            assert!(!e.message().is_empty());
            assert!(e.to_string().contains(e.message()));
            e.param().to_owned()
        }
    }
}

#[test]
fn messages_errors_name_the_param() {
    let cases = [
        (json!([]), ""),
        (json!({}), "messages"),
        (json!({"messages": {}}), "messages"),
        (json!({"messages": [1]}), "messages[0]"),
        (json!({"messages": [{"content": "x"}]}), "messages[0].role"),
        (
            json!({"messages": [{"role": "tool", "content": "x"}]}),
            "messages[0].role",
        ),
        (
            json!({"messages": [{"role": "user"}]}),
            "messages[0].content",
        ),
        (
            json!({"messages": [{"role": "user", "content": 3}]}),
            "messages[0].content",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "video"}]}]}),
            "messages[0].content[0].type",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "text"}]}]}),
            "messages[0].content[0].text",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "image",
            "source": {"type": "file", "file_id": "f"}}]}]}),
            "messages[0].content[0].source.type",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBER"}}]}]}),
            "messages[0].content[0].source.type",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]}),
            "messages[0].content[0].tool_use_id",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "t", "content": [{"type": "video"}]}]}]}),
            "messages[0].content[0].content[0].type",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "t", "is_error": "yes"}]}]}),
            "messages[0].content[0].is_error",
        ),
        (
            json!({"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t",
            "name": "f", "input": [1]}]}]}),
            "messages[0].content[0].input",
        ),
        (
            json!({"messages": [{"role": "assistant", "content": [{"type": "image"}]}]}),
            "messages[0].content[0].type",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "tool_use"}]}]}),
            "messages[0].content[0].type",
        ),
        (
            json!({"messages": [{"role": "system", "content": [{"type": "image"}]}]}),
            "messages[0].content[0].type",
        ),
        (json!({"messages": [], "system": 5}), "system"),
        (
            json!({"messages": [], "system": [{"type": "image"}]}),
            "system[0].type",
        ),
        (json!({"messages": [], "model": 1}), "model"),
        (json!({"messages": [], "stream": "yes"}), "stream"),
        (json!({"messages": [], "max_tokens": -1}), "max_tokens"),
        (json!({"messages": [], "temperature": "hot"}), "temperature"),
        (
            json!({"messages": [], "stop_sequences": "x"}),
            "stop_sequences",
        ),
        (
            json!({"messages": [], "stop_sequences": [1]}),
            "stop_sequences[0]",
        ),
        (
            json!({"messages": [], "metadata": {"user_id": 1}}),
            "metadata.user_id",
        ),
        (
            json!({"messages": [], "thinking": {"type": "maybe"}}),
            "thinking.type",
        ),
        (json!({"messages": [], "tools": {}}), "tools"),
        (
            json!({"messages": [], "tools": [{"description": "x"}]}),
            "tools[0].name",
        ),
        (
            json!({"messages": [], "tools": [{"name": "f"}, {"name": "f"}]}),
            "tools",
        ),
        (
            json!({"messages": [], "tools": [{"name": "f", "input_schema": 1}]}),
            "tools[0].input_schema",
        ),
        (
            json!({"messages": [], "tool_choice": {"type": "any"}}),
            "tool_choice.type",
        ),
        (
            json!({"messages": [], "tool_choice": {"type": "sometimes"}}),
            "tool_choice.type",
        ),
        (
            json!({"messages": [], "tools": [{"name": "f"}],
            "tool_choice": {"type": "tool", "name": "g"}}),
            "tool_choice.name",
        ),
        (
            json!({"messages": [], "tools": [{"type": "web_search_20250305", "name": "web_search"}],
            "tool_choice": {"type": "tool", "name": "web_search"}}),
            "tool_choice.name",
        ),
    ];
    for (body, want) in cases {
        assert_eq!(param(from_messages(&body)), want, "{body}");
    }
}

#[test]
fn responses_errors_name_the_param() {
    let stateless = from_responses(&json!({"conversation": "conv_1"})).unwrap_err();
    assert_eq!(
        stateless.message(),
        "the proxy keeps no state; send the whole conversation (store: false)"
    );
    let cases = [
        (json!("hi"), ""),
        (
            json!({"previous_response_id": "resp_1"}),
            "previous_response_id",
        ),
        (json!({"conversation": {"id": "c"}}), "conversation"),
        (json!({"prompt": {"id": "p"}}), "prompt"),
        (json!({"background": true}), "background"),
        (json!({"input": 3}), "input"),
        (json!({"input": [1]}), "input[0]"),
        (json!({"input": [{"content": "x"}]}), "input[0].type"),
        (
            json!({"input": [{"role": "tool", "content": "x"}]}),
            "input[0].role",
        ),
        (
            json!({"input": [{"type": "message", "role": "user"}]}),
            "input[0].content",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}]}),
            "input[0].content[0].type",
        ),
        (
            json!({"input": [{"role": "user", "content": [{"type": "input_image", "file_id": "f"}]}]}),
            "input[0].content[0].image_url",
        ),
        (
            json!({"input": [{"role": "developer", "content": [{"type": "input_image",
            "image_url": "u"}]}]}),
            "input[0].content[0].type",
        ),
        (
            json!({"input": [{"role": "assistant", "content": [{"type": "input_image"}]}]}),
            "input[0].content[0].type",
        ),
        (
            json!({"input": [{"type": "function_call", "name": "f", "arguments": "{}"}]}),
            "input[0].call_id",
        ),
        (
            json!({"input": [{"type": "function_call", "call_id": "c", "name": "f",
            "arguments": {}}]}),
            "input[0].arguments",
        ),
        (
            json!({"input": [{"type": "function_call_output", "call_id": "c"}]}),
            "input[0].output",
        ),
        (
            json!({"input": [{"type": "function_call_output", "call_id": "c", "output": 1}]}),
            "input[0].output",
        ),
        (
            json!({"input": [{"type": "custom_tool_call", "call_id": "c", "name": "f"}]}),
            "input[0].input",
        ),
        (
            json!({"input": [{"type": "reasoning", "summary": "x"}]}),
            "input[0].summary",
        ),
        (
            json!({"input": [{"type": "item_reference", "id": "msg_1"}]}),
            "input[0].type",
        ),
        (
            json!({"input": [{"type": "local_shell_call", "call_id": "c"}]}),
            "input[0].type",
        ),
        (
            json!({"input": [{"type": "compaction", "encrypted_content": "x"}]}),
            "input[0].type",
        ),
        (json!({"include": "x"}), "include"),
        (json!({"store": "no"}), "store"),
        (json!({"max_output_tokens": 1.5}), "max_output_tokens"),
        (json!({"parallel_tool_calls": 1}), "parallel_tool_calls"),
        (json!({"reasoning": {"effort": "max"}}), "reasoning.effort"),
        (
            json!({"text": {"format": {"type": "xml"}}}),
            "text.format.type",
        ),
        (
            json!({"text": {"format": {"type": "json_schema", "name": "n"}}}),
            "text.format.schema",
        ),
        (json!({"tools": [{"name": "f"}]}), "tools[0].type"),
        (json!({"tools": [{"type": "function"}]}), "tools[0].name"),
        (
            json!({"tools": [{"type": "custom", "name": "c", "format": {"type": "grammar"}}]}),
            "tools[0].format.definition",
        ),
        (
            json!({"tools": [{"type": "namespace", "name": "n", "tools": 1}]}),
            "tools[0].tools",
        ),
        (
            json!({"tools": [{"type": "namespace", "name": "n", "tools": [{"type": "function"}]}]}),
            "tools[0].tools[0].name",
        ),
        (
            json!({"tools": [{"type": "function", "name": "f"}, {"type": "custom", "name": "f"}]}),
            "tools",
        ),
        (json!({"tool_choice": "required"}), "tool_choice"),
        (json!({"tool_choice": "sometimes"}), "tool_choice"),
        (json!({"tool_choice": 1}), "tool_choice"),
        (
            json!({"tools": [{"type": "function", "name": "f"}],
            "tool_choice": {"type": "function", "name": "g"}}),
            "tool_choice.name",
        ),
        (
            json!({"tools": [{"type": "web_search"}],
            "tool_choice": {"type": "web_search_preview"}}),
            "tool_choice.type",
        ),
        (
            json!({"tool_choice": {"type": "allowed_tools", "mode": "required"}}),
            "tool_choice.mode",
        ),
    ];
    for (body, want) in cases {
        assert_eq!(param(from_responses(&body)), want, "{body}");
    }
}

/// Keys the translations read, so that random trees reach past the first checks.
const KEYS: &[&str] = &[
    "model",
    "messages",
    "input",
    "role",
    "content",
    "type",
    "text",
    "system",
    "tools",
    "tool_choice",
    "name",
    "input_schema",
    "parameters",
    "id",
    "call_id",
    "tool_use_id",
    "arguments",
    "output",
    "source",
    "data",
    "media_type",
    "url",
    "image_url",
    "summary",
    "thinking",
    "reasoning",
    "effort",
    "format",
    "namespace",
    "is_error",
    "instructions",
    "stream",
    "metadata",
    "user_id",
    "stop_sequences",
    "include",
    "store",
    "definition",
];

/// Strings that are also the values the translations match on.
const WORDS: &[&str] = &[
    "user",
    "assistant",
    "system",
    "developer",
    "text",
    "image",
    "document",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "reasoning",
    "input_text",
    "output_text",
    "input_image",
    "function",
    "custom",
    "namespace",
    "grammar",
    "base64",
    "url",
    "auto",
    "any",
    "none",
    "required",
    "tool",
    "enabled",
    "disabled",
    "high",
    "json_schema",
    "summary_text",
    "toolu_1",
    "call_1",
    "",
];

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        prop::sample::select(WORDS).prop_map(Value::from),
        ".{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

/// Checks the invariants of any successful translation.
fn check(t: &toolstream::translate::Translated) {
    assert_eq!(t.body.get("stream"), Some(&json!(true)));
    assert_eq!(
        t.body.get("stream_options"),
        Some(&json!({"include_usage": true}))
    );
    assert!(t.body.get("messages").is_some_and(Value::is_array));
    assert_eq!(t.tools.is_some(), t.body.get("tools").is_some());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any JSON value: a translation or an error, never a panic.
    #[test]
    fn any_value_never_panics(v in value()) {
        for r in [from_messages(&v), from_responses(&v)] {
            match r {
                Ok(t) => check(&t),
                Err(e) => prop_assert!(!e.message().is_empty()),
            }
        }
    }

    /// Random messages / input items inside a well-formed envelope.
    #[test]
    fn random_items_never_panic(items in prop::collection::vec(value(), 0..6), tools in value()) {
        let m = json!({"messages": items, "tools": tools});
        if let Ok(t) = from_messages(&m) { check(&t) }
        let r = json!({"input": items, "tools": tools});
        if let Ok(t) = from_responses(&r) { check(&t) }
    }
}

/// Deep values (built without the parser's depth limit) pass through without recursion in
/// the translation itself.
#[test]
fn deep_values_are_fine() {
    let mut deep = json!(1);
    for _ in 0..1000 {
        deep = json!([deep]);
    }
    let body = json!({"messages": [{"role": "user", "content": [deep.clone()]}]});
    assert_eq!(param(from_messages(&body)), "messages[0].content[0]");
    let body = json!({"input": [{"type": "message", "role": "user", "content": deep.clone()}]});
    assert!(from_responses(&body).is_err());
}
