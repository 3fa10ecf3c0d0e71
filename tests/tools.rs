//! Declared tools (`ParserConfig::tools`): calls to undeclared names are `undeclared_tool`
//! errors in every format (never a silent drop, never taking the calls beside them down),
//! marker-less syntaxes count only declared names; generated call ids (`ParserConfig::id_prefix`);
//! the `unrecognized_input` error for input that made no event at all. Each fixture is run
//! whole, byte by byte, at every split point and at random splits.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::*;
use serde_json::{Value, json};
use toolstream::{ErrorKind, Event, Format, Framing, IdPrefix, Parser, ParserConfig, Tools};

/// `get_weather(city: string)` and `now()`; `rm_rf` is the undeclared name.
fn tools() -> Tools {
    Tools::from_json(
        r#"{"model": "m", "tools": [
            {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
                "properties": {"city": {"type": "string"}}}}},
            {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}}
        ]}"#,
    )
    .unwrap()
}

fn with_tools(format: Format) -> impl Fn() -> Parser {
    move || Parser::with_config(format, ParserConfig::new().tools(tools()))
}

/// The errors of `kind` (all without an index), as `(raw, message)`.
fn errors_of(ev: &[Event], of: ErrorKind) -> Vec<(String, String)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Error {
                path: _,
                kind,
                message,
                index,
                raw,
            } if *kind == of => {
                assert_eq!(*index, None, "{e:?}");
                Some((raw.clone(), message.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The `undeclared_tool` errors, as `(raw, message)`.
fn undeclared(ev: &[Event]) -> Vec<(String, String)> {
    errors_of(ev, ErrorKind::UndeclaredTool)
}

/// The position of the first event matching `f`.
fn pos(ev: &[Event], f: impl Fn(&Event) -> bool) -> usize {
    ev.iter().position(f).expect("event present")
}

/// `get_weather`, then `rm_rf` (undeclared), then `now`: the declared calls are calls 0
/// and 1, the undeclared one is exactly one error carrying `raw`, between them, and no
/// other error; `text` is the visible text.
fn check_three(make: &dyn Fn() -> Parser, input: &str, raw: &str, text_want: &str) {
    let ev = assert_split_invariant(make, input.as_bytes(), 40);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_weather", json!({"city": "Paris"})),
            call("call_1", "now", json!({})),
        ],
        "{input}"
    );
    let errs = undeclared(&ev);
    assert_eq!(errs.len(), 1, "{ev:?}");
    assert_eq!(errs[0].0, raw, "{input}");
    assert!(errs[0].1.contains("\"rm_rf\""), "{}", errs[0].1);
    assert_eq!(errors(&ev).len(), 1, "no other error: {ev:?}");
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::ToolCallStart { name, .. } if name == "rm_rf")),
        "{ev:?}"
    );
    let err = pos(&ev, |e| matches!(e, Event::Error { .. }));
    let end0 = pos(&ev, |e| matches!(e, Event::ToolCallEnd { index: 0, .. }));
    let start1 = pos(&ev, |e| matches!(e, Event::ToolCallStart { index: 1, .. }));
    assert!(end0 < err && err < start1, "{ev:?}");
    assert_eq!(text(&ev), text_want, "{input}");
}

#[test]
fn hermes_undeclared_call_is_an_error_between_the_declared_ones() {
    check_three(
        &with_tools(Format::Hermes),
        concat!(
            "Checking. <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n",
            "<tool_call>\n{\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/ é\"}}\n</tool_call>\n",
            "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call> done"
        ),
        "<tool_call>\n{\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/ é\"}}",
        "Checking. \n\n done",
    );
}

#[test]
fn qwen_xml_undeclared_call_is_an_error_between_the_declared_ones() {
    check_three(
        &with_tools(Format::QwenXml),
        concat!(
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n",
            "<tool_call>\n<function=rm_rf>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>\n",
            "<tool_call>\n<function=now>\n</function>\n</tool_call>"
        ),
        "<tool_call>\n<function=rm_rf>\n<parameter=path>\n/\n</parameter>\n</function>",
        "\n\n",
    );
}

#[test]
fn mistral_undeclared_call_is_an_error_both_syntaxes() {
    check_three(
        &with_tools(Format::Mistral),
        "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]rm_rf[CALL_ID]a1B2c3D4e[ARGS]{\"path\": \"/\"}[TOOL_CALLS]now[ARGS]{}",
        "[TOOL_CALLS]rm_rf[CALL_ID]a1B2c3D4e[ARGS]{\"path\": \"/\"}",
        "",
    );
    // A later call of an array: its raw text starts at its own `{` (the rule for every
    // scanner's call errors).
    check_three(
        &with_tools(Format::Mistral),
        "[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/\"}}, {\"name\": \"now\", \"arguments\": {}}]</s>",
        "{\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/\"}}",
        "",
    );
}

#[test]
fn deepseek_undeclared_call_is_an_error_between_the_declared_ones() {
    check_three(
        &with_tools(Format::DeepSeek),
        concat!(
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜>\n",
            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>rm_rf\n```json\n{\"path\": \"/\"}\n```<｜tool▁call▁end｜>\n",
            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>now\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        // The call closes with its value, before the closing fence.
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>rm_rf\n```json\n{\"path\": \"/\"}",
        "\n\n",
    );
}

#[test]
fn harmony_undeclared_call_is_an_error_between_the_declared_ones() {
    check_three(
        &with_tools(Format::Harmony),
        concat!(
            "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>",
            "<|start|>assistant<|channel|>commentary to=functions.rm_rf <|constrain|>json<|message|>{\"path\":\"/\"}<|call|>",
            "<|start|>assistant<|channel|>commentary to=functions.now <|constrain|>json<|message|>{}<|call|>"
        ),
        "<|start|>assistant<|channel|>commentary to=functions.rm_rf <|constrain|>json<|message|>{\"path\":\"/\"}",
        "",
    );
}

#[test]
fn llama_pythonic_list_with_an_undeclared_call_keeps_the_calls_after_it() {
    check_three(
        &with_tools(Format::LlamaPythonic),
        "[get_weather(city='Paris'), rm_rf(path='/'), now()]",
        "rm_rf(path='/')",
        "",
    );
}

#[test]
fn llama_json_group_with_an_undeclared_call_keeps_the_calls_after_it() {
    for input in [
        r#"{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "rm_rf", "parameters": {"path": "/"}}; {"name": "now", "parameters": {}}"#,
        r#"[{"name": "get_weather", "parameters": {"city": "Paris"}}, {"name": "rm_rf", "parameters": {"path": "/"}}, {"name": "now", "parameters": {}}]"#,
    ] {
        check_three(
            &with_tools(Format::LlamaJson),
            input,
            r#"{"name": "rm_rf", "parameters": {"path": "/"}}"#,
            "",
        );
    }
}

#[test]
fn auto_detected_syntaxes_reject_undeclared_calls() {
    check_three(
        &with_tools(Format::Auto),
        concat!(
            "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>",
            "<tool_call>{\"name\": \"rm_rf\", \"arguments\": {}}</tool_call>",
            "<tool_call>{\"name\": \"now\", \"arguments\": {}}</tool_call>"
        ),
        "<tool_call>{\"name\": \"rm_rf\", \"arguments\": {}}",
        "",
    );
    check_three(
        &with_tools(Format::Auto),
        "[get_weather(city='Paris'), rm_rf(), now()]",
        "rm_rf()",
        "",
    );
}

/// After `<|python_tag|>` (a marker: a call follows) an undeclared name is a rejected
/// call, not text; the calls after it in its `;` group still count.
#[test]
fn python_tag_call_to_an_undeclared_name_is_an_error() {
    let input = r#"Sure.<|python_tag|>{"name": "rm_rf", "parameters": {"path": "/"}}; {"name": "now", "parameters": {}}"#;
    for format in [Format::LlamaJson, Format::Auto] {
        let ev = assert_split_invariant(&with_tools(format), input.as_bytes(), 40);
        assert_eq!(calls(&ev), vec![call("call_0", "now", json!({}))]);
        let errs = undeclared(&ev);
        assert_eq!(errs.len(), 1, "{ev:?}");
        // The call's raw text starts at its first marker byte: `<|python_tag|>`.
        assert_eq!(
            errs[0].0,
            r#"<|python_tag|>{"name": "rm_rf", "parameters": {"path": "/"}}"#
        );
        assert_eq!(text(&ev), "Sure.");
    }
}

/// Marker-less syntaxes: a call header with an undeclared name is text (there is no
/// marker to say it is a call), as with `tool_names`.
#[test]
fn marker_less_headers_count_only_declared_names() {
    for (format, input, text_want) in [
        (
            Format::LlamaPythonic,
            "See [rm_rf(path='/')] and [note(x=1)]. [now()]",
            "See [rm_rf(path='/')] and [note(x=1)]. ",
        ),
        (
            Format::LlamaJson,
            r#"Data: {"name": "rm_rf", "parameters": {"a": 1}} {"name": "now", "parameters": {}}"#,
            r#"Data: {"name": "rm_rf", "parameters": {"a": 1}} "#,
        ),
        (
            Format::Auto,
            "See [note(x=1)]. [now()]",
            "See [note(x=1)]. ",
        ),
    ] {
        let ev = assert_split_invariant(&with_tools(format), input.as_bytes(), 40);
        assert_eq!(
            calls(&ev),
            vec![call("call_0", "now", json!({}))],
            "{input}"
        );
        assert_eq!(text(&ev), text_want, "{input}");
        assert!(errors(&ev).is_empty(), "{ev:?}");
    }
}

/// A broken or cut-off call to an undeclared tool is still one error, of kind
/// `undeclared_tool`, naming the other problem too.
#[test]
fn malformed_or_truncated_undeclared_call_is_one_error() {
    for (input, raw, problem) in [
        (
            "<tool_call>{\"name\": \"rm_rf\", \"arguments\": {\"path\": nope}}</tool_call>x",
            "<tool_call>{\"name\": \"rm_rf\", \"arguments\": {\"path\": nope}}</tool_call>",
            "not valid JSON",
        ),
        (
            "<tool_call>{\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/",
            "<tool_call>{\"name\": \"rm_rf\", \"arguments\": {\"path\": \"/",
            "ended inside",
        ),
    ] {
        let ev = assert_split_invariant(&with_tools(Format::Hermes), input.as_bytes(), 40);
        assert_eq!(errors(&ev).len(), 1, "{ev:?}");
        let errs = undeclared(&ev);
        assert_eq!(errs.len(), 1, "{ev:?}");
        assert_eq!(errs[0].0, raw);
        assert!(errs[0].1.contains(problem), "{}", errs[0].1);
        assert!(calls(&ev).is_empty());
    }
}

fn openai_chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

fn openai_call(index: u64, id: Option<&str>, name: Option<&str>, args: &str) -> Value {
    let mut f = json!({"arguments": args});
    if let Some(n) = name {
        f["name"] = json!(n);
    }
    let mut t = json!({"index": index, "function": f});
    if let Some(id) = id {
        t["id"] = json!(id);
        t["type"] = json!("function");
    }
    openai_chunk(json!({"tool_calls": [t]}), None)
}

/// Provider formats: the error carries the argument text received and the provider's id;
/// the declared calls keep their ids and dense indices.
fn check_provider(make: &dyn Fn() -> Parser, body: &[u8], ids: [&str; 2], raw: &str, id: &str) {
    let ev = assert_split_invariant(make, body, 30);
    assert_eq!(
        calls(&ev),
        vec![
            call(ids[0], "get_weather", json!({"city": "Paris"})),
            call(ids[1], "now", json!({})),
        ]
    );
    let errs = undeclared(&ev);
    assert_eq!(errs.len(), 1, "{ev:?}");
    assert_eq!(errs[0].0, raw);
    assert!(errs[0].1.contains(id), "{}", errs[0].1);
    assert_eq!(errors(&ev).len(), 1, "{ev:?}");
}

#[test]
fn openai_chat_undeclared_parallel_call() {
    let body = sse_data(&[
        openai_chunk(json!({"role": "assistant", "content": ""}), None),
        openai_call(0, Some("call_a"), Some("get_weather"), ""),
        openai_call(0, None, None, "{\"city\": "),
        openai_call(1, Some("call_b"), Some("rm_rf"), "{\"pa"),
        openai_call(0, None, None, "\"Paris\"}"),
        openai_call(1, None, None, "th\": \"/\"}"),
        openai_call(2, Some("call_c"), Some("now"), "{}"),
        openai_chunk(json!({}), Some("tool_calls")),
    ]);
    let mut body = body;
    body.extend_from_slice(b"data: [DONE]\n\n");
    check_provider(
        &with_tools(Format::OpenAiChat),
        &body,
        ["call_a", "call_c"],
        "{\"path\": \"/\"}",
        "call_b",
    );
}

#[test]
fn anthropic_undeclared_tool_use_block() {
    let block = |i: u64, id: &str, name: &str, args: &str| {
        vec![
            json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
            json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": args}}),
            json!({"type": "content_block_stop", "index": i}),
        ]
    };
    let mut payloads = vec![
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m", "stop_reason": null, "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    ];
    payloads.extend(block(0, "toolu_a", "get_weather", "{\"city\": \"Paris\"}"));
    payloads.extend(block(1, "toolu_b", "rm_rf", "{\"path\": \"/\"}"));
    payloads.extend(block(2, "toolu_c", "now", ""));
    payloads.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}));
    payloads.push(json!({"type": "message_stop"}));
    check_provider(
        &with_tools(Format::Anthropic),
        &sse_typed(&payloads),
        ["toolu_a", "toolu_c"],
        "{\"path\": \"/\"}",
        "toolu_b",
    );
}

#[test]
fn gemini_undeclared_function_call_part_keeps_generated_ids_dense() {
    let body = sse_data(&[
        json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {"functionCall": {"name": "rm_rf", "args": {"path": "/"}}},
        {"functionCall": {"name": "now", "args": {}}}
    ]}, "finishReason": "STOP"}]}),
    ]);
    let ev = assert_split_invariant(&with_tools(Format::Gemini), &body, 30);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_weather", json!({"city": "Paris"})),
            call("call_1", "now", json!({})),
        ]
    );
    let errs = undeclared(&ev);
    assert_eq!(errs.len(), 1);
    assert_eq!(
        serde_json::from_str::<Value>(&errs[0].0).unwrap(),
        json!({"path": "/"})
    );
}

#[test]
fn openai_responses_undeclared_function_call_item() {
    let item = |oi: u64, id: &str, name: &str, args: &str| {
        vec![
            json!({"type": "response.output_item.added", "output_index": oi, "item": {"id": format!("fc_{id}"), "type": "function_call", "status": "in_progress", "arguments": "", "call_id": id, "name": name}}),
            json!({"type": "response.function_call_arguments.delta", "item_id": format!("fc_{id}"), "output_index": oi, "delta": args}),
            json!({"type": "response.output_item.done", "output_index": oi, "item": {"id": format!("fc_{id}"), "type": "function_call", "status": "completed", "arguments": args, "call_id": id, "name": name}}),
        ]
    };
    let mut payloads = vec![];
    payloads.extend(item(0, "call_a", "get_weather", "{\"city\": \"Paris\"}"));
    payloads.extend(item(1, "call_b", "rm_rf", "{\"path\": \"/\"}"));
    payloads.extend(item(2, "call_c", "now", "{}"));
    payloads.push(json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": []}}));
    check_provider(
        &with_tools(Format::OpenAiResponses),
        &sse_typed(&payloads),
        ["call_a", "call_c"],
        "{\"path\": \"/\"}",
        "call_b",
    );
}

/// A call the server leaked into `content` goes through the same call table.
#[test]
fn content_format_scanner_rejects_undeclared_calls_too() {
    let body = sse_data(&[
        openai_chunk(
            json!({"content": "<tool_call>{\"name\": \"rm_rf\", \"arguments\": {}}</tool_call>"}),
            None,
        ),
        openai_call(
            0,
            Some("call_a"),
            Some("get_weather"),
            "{\"city\": \"Paris\"}",
        ),
        openai_chunk(json!({}), Some("tool_calls")),
    ]);
    let make = || {
        Parser::with_config(
            Format::OpenAiChat,
            ParserConfig::new()
                .content_format(Format::Hermes)
                .tools(tools()),
        )
    };
    let ev = assert_split_invariant(&make, &body, 30);
    assert_eq!(
        calls(&ev),
        vec![call("call_a", "get_weather", json!({"city": "Paris"}))]
    );
    assert_eq!(
        undeclared(&ev)[0].0,
        "<tool_call>{\"name\": \"rm_rf\", \"arguments\": {}}"
    );
}

/// `reject_undeclared(false)`: every name is a call again, in every kind of format.
#[test]
fn reject_undeclared_false_emits_every_call() {
    let open = |format: Format| {
        move || {
            Parser::with_config(
                format,
                ParserConfig::new().tools(tools()).reject_undeclared(false),
            )
        }
    };
    let ev = assert_split_invariant(
        &open(Format::Hermes),
        br#"<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>"#,
        20,
    );
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "rm_rf", json!({"path": "/"}))]
    );
    let ev = assert_split_invariant(&open(Format::LlamaPythonic), b"See [rm_rf(path='/')]", 20);
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "rm_rf", json!({"path": "/"}))]
    );
    assert_eq!(text(&ev), "See ");
    // Ended by `[DONE]`: without it the stream is cut off (a `truncated` error).
    let mut body = sse_data(&[openai_call(0, Some("call_b"), Some("rm_rf"), "{}")]);
    body.extend_from_slice(b"data: [DONE]\n\n");
    let ev = assert_split_invariant(&open(Format::OpenAiChat), &body, 20);
    assert_eq!(calls(&ev), vec![call("call_b", "rm_rf", json!({}))]);
    assert!(errors(&ev).is_empty());
}

/// `tool_names` keeps its meaning next to `tools`: it decides the marker-less headers.
#[test]
fn tool_names_take_precedence_for_marker_less_headers() {
    let make = || {
        Parser::with_config(
            Format::LlamaPythonic,
            ParserConfig::new().tools(tools()).tool_names(["now"]),
        )
    };
    let ev = assert_split_invariant(&make, b"[get_weather(city='Paris')] [now()]", 20);
    assert_eq!(calls(&ev), vec![call("call_0", "now", json!({}))]);
    assert_eq!(text(&ev), "[get_weather(city='Paris')] ");
}

#[test]
fn anthropic_and_flat_tools_shapes_are_read() {
    let t = Tools::from_json(
        r#"[{"name": "get_weather", "input_schema": {"type": "object"}}, {"type": "function", "name": "now", "parameters": {}}]"#,
    )
    .unwrap();
    let mut names: Vec<&str> = t.names().collect();
    names.sort_unstable();
    assert_eq!(names, ["get_weather", "now"]);
    let make = move || Parser::with_config(Format::Hermes, ParserConfig::new().tools(t.clone()));
    let ev = run_whole(
        &make,
        br#"<tool_call>{"name": "now", "arguments": {}}</tool_call><tool_call>{"name": "x", "arguments": {}}</tool_call>"#,
    );
    assert_eq!(calls(&ev), vec![call("call_0", "now", json!({}))]);
    assert_eq!(undeclared(&ev).len(), 1);
}

// ---- generated call ids ----

fn start_ids(ev: &[Event]) -> Vec<String> {
    ev.iter()
        .filter_map(|e| match e {
            Event::ToolCallStart { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect()
}

const TWO_CALLS: &[u8] =
    br#"<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", "arguments": {"x": 1}}</tool_call>"#;

#[test]
fn id_prefix_pins_generated_ids_under_every_chunking() {
    let make = || Parser::with_config(Format::Hermes, ParserConfig::new().id_prefix("turn7_"));
    let ev = assert_split_invariant(&make, TWO_CALLS, 40);
    assert_eq!(start_ids(&ev), ["turn7_0", "turn7_1"]);
    assert_eq!(make().id_prefix_in_use(), "turn7_");
}

#[test]
fn default_ids_are_call_n_the_same_for_the_same_input() {
    let make = || Parser::new(Format::Hermes);
    let ev = assert_split_invariant(&make, TWO_CALLS, 40);
    assert_eq!(start_ids(&ev), ["call_0", "call_1"]);
    assert_eq!(make().id_prefix_in_use(), "call_");
}

#[test]
fn unique_ids_are_unique_per_parser_and_stable_within_one() {
    let mut seen = std::collections::HashSet::new();
    // One configuration, cloned for each parser (as an agent loop does).
    let unique = ParserConfig::new().id_prefix(IdPrefix::Unique);
    for _ in 0..50 {
        let mut p = Parser::with_config(Format::Hermes, unique.clone());
        let prefix = p.id_prefix_in_use().to_owned();
        assert_eq!(prefix.len(), "call_".len() + 12 + 1, "{prefix}");
        assert!(
            prefix.starts_with("call_") && prefix.ends_with('_'),
            "{prefix}"
        );
        assert!(
            prefix[5..17]
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
            "{prefix}"
        );
        let mut ev = Vec::new();
        for b in TWO_CALLS {
            p.feed(&[*b], &mut ev).unwrap();
        }
        p.finish(&mut ev).unwrap();
        assert_eq!(start_ids(&ev), [format!("{prefix}0"), format!("{prefix}1")]);
        assert!(seen.insert(prefix), "two parsers got the same prefix");
    }
}

/// Ids the provider sent are kept as they are; only missing ones are generated.
#[test]
fn provider_ids_are_not_prefixed() {
    let body = sse_data(&[
        openai_call(0, Some("call_xyz"), Some("f"), "{}"),
        openai_call(1, None, Some("g"), "{}"),
    ]);
    let make = || Parser::with_config(Format::OpenAiChat, ParserConfig::new().id_prefix("p_"));
    let ev = assert_split_invariant(&make, &body, 20);
    assert_eq!(start_ids(&ev), ["call_xyz", "p_1"]);
}

// ---- input that makes no event ----

/// The `unrecognized_input` errors, as `(message, raw)`.
fn unrecognized(ev: &[Event]) -> Vec<(String, String)> {
    errors_of(ev, ErrorKind::UnrecognizedInput)
        .into_iter()
        .map(|(raw, message)| (message, raw))
        .collect()
}

#[test]
fn ndjson_read_as_sse_is_an_unrecognized_input_error() {
    let body = ndjson(&[
        openai_chunk(json!({"content": "Hello"}), None),
        openai_chunk(json!({}), Some("stop")),
    ]);
    let make = || {
        Parser::with_config(
            Format::OpenAiChat,
            ParserConfig::new().framing(Framing::Sse),
        )
    };
    let ev = assert_split_invariant(&make, &body, 30);
    assert_eq!(ev.len(), 1, "{ev:?}");
    let u = unrecognized(&ev);
    assert!(
        u[0].0.contains("sse") && u[0].0.contains("openai-chat"),
        "{}",
        u[0].0
    );
    // Library-neutral: it asks about the framing, naming no CLI flag.
    assert!(
        u[0].0.contains("is the framing right") && !u[0].0.contains("--"),
        "{}",
        u[0].0
    );
    assert_eq!(u[0].1.as_bytes(), &body[..body.len().min(256)]);
    // The same bytes with the right framing decode.
    let ev = run_whole(
        &|| {
            Parser::with_config(
                Format::OpenAiChat,
                ParserConfig::new().framing(Framing::Ndjson),
            )
        },
        &body,
    );
    assert_eq!(text(&ev), "Hello");
    assert!(errors(&ev).is_empty());
}

#[test]
fn unrecognized_input_raw_is_bounded() {
    let body: Vec<u8> = b"{\"x\": 1}\n".repeat(1000);
    let make = || Parser::with_config(Format::Anthropic, ParserConfig::new().framing(Framing::Sse));
    let ev = assert_split_invariant(&make, &body, 10);
    let u = unrecognized(&ev);
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].1.len(), 256);
    assert!(u[0].0.contains("9000 bytes"), "{}", u[0].0);
}

#[test]
fn messages_of_another_format_are_an_unrecognized_input_error() {
    let body = sse_typed(&[json!({"type": "ping"}), json!({"type": "ping"})]);
    let ev = assert_split_invariant(&|| parser(Format::Anthropic), &body, 20);
    let u = unrecognized(&ev);
    assert_eq!(u.len(), 1, "{ev:?}");
    assert!(
        u[0].0.contains("2 payload message(s)")
            && u[0].0.contains("is the format right")
            && !u[0].0.contains("--"),
        "{}",
        u[0].0
    );
}

/// Empty streams are not errors: no bytes, whitespace, SSE keep-alive comments, a lone
/// `[DONE]`, and raw text a scanner drops on purpose.
#[test]
fn legitimately_empty_streams_are_not_errors() {
    for (format, framing, body) in [
        (Format::OpenAiChat, None, &b""[..]),
        (Format::OpenAiChat, None, b" \n\r\n"),
        (
            Format::OpenAiChat,
            None,
            b"\xEF\xBB\xBF: keep-alive\n\n:ping\r\n\r\n",
        ),
        (Format::Anthropic, None, b": keep-alive\n\n  \n"),
        (Format::Anthropic, None, b"data: [DONE]\n\n"),
        (Format::Gemini, Some(Framing::Ndjson), b"[DONE]\n"),
        (Format::Hermes, None, b"<|im_end|>"),
        (Format::Hermes, None, b"<tool_call></tool_call>"),
        // A chunk of this format that carries nothing (fuzz finding,
        // openai_chat_structured: an empty content delta read as unrecognized input).
        (
            Format::OpenAiChat,
            None,
            br#"data: {"choices":[{"delta":{"content":""},"finish_reason":null,"index":0}],"id":"chatcmpl-1","object":"chat.completion.chunk"}

"#,
        ),
        (
            Format::OpenAiChat,
            None,
            b"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}\n\ndata: [DONE]\n\n",
        ),
    ] {
        let make = move || {
            let config = ParserConfig::new();
            match framing {
                Some(f) => Parser::with_config(format, config.framing(f)),
                None => Parser::with_config(format, config),
            }
        };
        let ev = assert_split_invariant(&make, body, 20);
        assert!(unrecognized(&ev).is_empty(), "{format} {body:?}: {ev:?}");
    }
}

/// Once anything was emitted, nothing more is checked.
#[test]
fn any_event_means_no_unrecognized_input_error() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n",
        "garbage\n"
    );
    let ev = assert_split_invariant(&|| parser(Format::OpenAiChat), body.as_bytes(), 20);
    assert_eq!(text(&ev), "hi");
    assert!(unrecognized(&ev).is_empty());
}

/// Messages fed directly (`feed_message`) count as input too.
#[test]
fn feed_message_input_that_makes_no_event_is_reported() {
    let mut p = parser(Format::OpenAiResponses);
    let mut ev = Vec::new();
    p.feed_message("", br#"{"type": "something.unknown"}"#, &mut ev)
        .unwrap();
    p.finish(&mut ev).unwrap();
    assert_eq!(unrecognized(&ev).len(), 1, "{ev:?}");
}

// ---- the CLI ----

/// Runs the CLI; `None` (with a visible line) when the binary is not built.
fn cli(args: &[&str], stdin: &[u8]) -> Option<(i32, String, String)> {
    use std::io::Write;
    let Some(exe) = option_env!("CARGO_BIN_EXE_toolstream") else {
        visible(
            "SKIPPED: CLI test needs the cli feature (on by default; cargo test --all-features)",
        );
        return None;
    };
    let mut child = std::process::Command::new(exe)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The command may exit before reading its input (bad arguments): a broken pipe then.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    ))
}

/// Writes `text` to a file under the test's temporary directory.
fn temp_file(name: &str, text: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("tools-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const HERMES_TWO: &[u8] = br#"<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call><tool_call>{"name": "now", "arguments": {}}</tool_call>"#;

#[test]
fn cli_tools_file_rejects_undeclared_calls() {
    // A request body holding an OpenAI `tools` array, and an Anthropic array.
    let openai = temp_file(
        "request.json",
        r#"{"model": "m", "messages": [], "tools": [{"type": "function", "function": {"name": "now", "parameters": {}}}]}"#,
    );
    let anthropic = temp_file(
        "anthropic.json",
        r#"[{"name": "now", "description": "time", "input_schema": {"type": "object"}}]"#,
    );
    for file in [&openai, &anthropic] {
        let Some((code, out, err)) = cli(
            &[
                "parse",
                "-f",
                "hermes",
                "--tools",
                file,
                "--id-prefix",
                "c_",
            ],
            HERMES_TWO,
        ) else {
            return;
        };
        assert_eq!(code, 0, "{err}");
        let ev = lines(&out);
        assert_eq!(ev[0]["type"], "error");
        assert_eq!(ev[0]["kind"], "undeclared_tool");
        assert_eq!(
            ev[0]["raw"],
            r#"<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}"#
        );
        assert!(ev[0].get("index").is_none());
        assert_eq!(
            ev[1],
            json!({"type": "tool_call_start", "index": 0, "id": "c_0", "name": "now"})
        );
        assert_eq!(ev.len(), 4, "{out}");
    }
    let Some((code, out, _)) = cli(
        &[
            "parse",
            "-f",
            "hermes",
            "--tools",
            &openai,
            "--allow-undeclared",
            "--id-prefix",
            "c_",
        ],
        HERMES_TWO,
    ) else {
        return;
    };
    assert_eq!(code, 0);
    let ev = lines(&out);
    assert_eq!(
        ev[0],
        json!({"type": "tool_call_start", "index": 0, "id": "c_0", "name": "rm_rf"})
    );
    assert!(!out.contains("undeclared_tool"));
}

#[test]
fn cli_bad_tools_file_exits_2_with_a_message() {
    let malformed = temp_file("malformed.json", "[{\"type\": \"function\"");
    let nameless = temp_file("nameless.json", r#"[{"type": "function", "function": {}}]"#);
    let not_tools = temp_file("not-tools.json", r#"{"model": "m"}"#);
    let missing = temp_file("x", "").replace("/x", "/does-not-exist.json");
    // The last one used to win silently.
    let twice = temp_file(
        "twice.json",
        r#"[{"name": "get_weather"}, {"type": "function", "function": {"name": "get_weather"}}]"#,
    );
    // One byte over the limit: refused without being read whole.
    let huge = temp_file(
        "huge.json",
        &format!("[{}]", " ".repeat(toolstream::MAX_TOOLS_BYTES - 1)),
    );
    for (file, says) in [
        (&malformed, "EOF"),
        (&nameless, "tools[0]: no \"name\""),
        (&not_tools, "expected an array of tools"),
        (&missing, "cannot read --tools"),
        (
            &twice,
            "tools[1]: the name \"get_weather\" is declared twice (also tools[0])",
        ),
        (&huge, "over the limit of 16777216 bytes"),
    ] {
        for cmd in [
            vec!["parse", "-f", "hermes", "--tools", file.as_str()],
            vec![
                "serve",
                "x.sse",
                "-f",
                "hermes",
                "--tools",
                file.as_str(),
                "-p",
                "0",
            ],
        ] {
            let Some((code, out, err)) = cli(&cmd, HERMES_TWO) else {
                return;
            };
            assert_eq!(code, 2, "{cmd:?}: {out} {err}");
            assert!(out.is_empty(), "{out}");
            assert!(err.contains(file.as_str()) && err.contains(says), "{err}");
        }
    }
    // --allow-undeclared means nothing without --tools.
    let Some((code, _, err)) = cli(&["parse", "-f", "hermes", "--allow-undeclared"], b"") else {
        return;
    };
    assert_eq!(code, 2, "{err}");
}

#[test]
fn cli_generated_ids_are_stable_unless_made_unique() {
    let input = br#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#;
    let id = |args: &[&str]| -> Option<String> {
        let (code, out, _) = cli(args, input)?;
        assert_eq!(code, 0);
        Some(lines(&out)[0]["id"].as_str().unwrap().to_owned())
    };
    let Some(a) = id(&["parse", "-f", "hermes"]) else {
        return;
    };
    assert_eq!(a, "call_0");
    assert_eq!(
        id(&["parse", "-f", "hermes", "--chunk-size", "1"]).unwrap(),
        "call_0"
    );
    let u1 = id(&["parse", "-f", "hermes", "--unique-ids"]).unwrap();
    let u2 = id(&["parse", "-f", "hermes", "--unique-ids"]).unwrap();
    assert!(
        u1.starts_with("call_") && u1.ends_with("_0") && u1.len() == 19,
        "{u1}"
    );
    assert_ne!(u1, u2);
    let pinned = [
        "parse",
        "-f",
        "hermes",
        "--id-prefix",
        "turn2_",
        "--chunk-size",
        "1",
    ];
    assert_eq!(id(&pinned).unwrap(), "turn2_0");
}

#[test]
fn cli_wrong_framing_reports_unrecognized_input() {
    let body = ndjson(&[openai_chunk(json!({"content": "Hello"}), Some("stop"))]);
    let Some((code, out, err)) = cli(&["parse", "-f", "openai-chat", "--framing", "sse"], &body)
    else {
        return;
    };
    // The CLI sees the bytes are NDJSON: one message naming that framing, exit 2.
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("looks like NDJSON") && err.contains("--framing ndjson"),
        "{err}"
    );
    let Some((_, out, _)) = cli(
        &["parse", "-f", "openai-chat", "--framing", "ndjson"],
        &body,
    ) else {
        return;
    };
    assert!(
        !out.contains("unrecognized_input") && out.contains("Hello"),
        "{out}"
    );
    // Keep-alive comments alone are an empty stream.
    let Some((code, out, _)) = cli(&["parse", "-f", "openai-chat"], b": ping\n\n") else {
        return;
    };
    assert_eq!((code, out.as_str()), (0, ""));
}

// ---- generated streams against a one-shot oracle ----

/// A stream of hermes and OpenAI calls, some to undeclared names, in random chunks: the
/// declared calls decode with dense indices and pinned ids, each undeclared call is one
/// `undeclared_tool` error carrying its raw text (hermes) or its argument text (OpenAI),
/// in order, and the chunking changes nothing.
mod generated {
    use super::*;
    use proptest::prelude::*;

    fn arb_calls() -> impl Strategy<Value = Vec<(bool, Value)>> {
        proptest::collection::vec((any::<bool>(), arb_args()), 1..5)
    }

    /// The oracle: in order, `Ok(call)` for a declared call, `Err(raw)` for an undeclared one.
    fn oracle(calls: &[(bool, Value)], raw: impl Fn(&str) -> String) -> Vec<Result<Call, String>> {
        let mut n = 0;
        calls
            .iter()
            .map(|(declared, args)| {
                let text = serde_json::to_string(args).unwrap();
                if *declared {
                    n += 1;
                    Ok(call(
                        &format!("call_{}", n - 1),
                        "get_weather",
                        args.clone(),
                    ))
                } else {
                    Err(raw(&text))
                }
            })
            .collect()
    }

    fn outcome(ev: &[Event]) -> Vec<Result<Call, String>> {
        ev.iter()
            .filter_map(|e| match e {
                Event::ToolCallEnd {
                    id,
                    name,
                    arguments,
                    ..
                } => Some(Ok(call(id, name, arguments.clone()))),
                Event::Error {
                    kind: ErrorKind::UndeclaredTool,
                    raw,
                    ..
                } => Some(Err(raw.clone())),
                Event::Error { .. } => panic!("unexpected error {e:?}"),
                _ => None,
            })
            .collect()
    }

    fn name(declared: bool) -> &'static str {
        if declared { "get_weather" } else { "rm_rf" }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn hermes_calls(calls in arb_calls(), cuts in proptest::collection::vec(0usize..4000, 0..12)) {
            let mut body = String::from("Hi ");
            for (declared, args) in &calls {
                body.push_str(&format!(
                    "<tool_call>\n{{\"name\": \"{}\", \"arguments\": {}}}\n</tool_call>\n",
                    name(*declared),
                    serde_json::to_string(args).unwrap()
                ));
            }
            let want = oracle(&calls, |args| {
                format!("<tool_call>\n{{\"name\": \"rm_rf\", \"arguments\": {args}}}")
            });
            let make = with_tools(Format::Hermes);
            let whole = run_whole(&make, body.as_bytes());
            check_contract(&whole);
            prop_assert_eq!(outcome(&whole), want);
            // Rejecting a call changes nothing about the text around it.
            let open = || Parser::with_config(Format::Hermes, ParserConfig::new().tools(tools()).reject_undeclared(false));
            prop_assert_eq!(text(&whole), text(&run_whole(&open, body.as_bytes())));
            prop_assert!(text(&whole).starts_with("Hi"));
            let cuts: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
            prop_assert_eq!(run_chunks(&make, &cut_at(body.as_bytes(), &cuts)), whole);
        }

        #[test]
        fn openai_chat_calls(calls in arb_calls(), cuts in proptest::collection::vec(0usize..8000, 0..12)) {
            let mut payloads = Vec::new();
            for (k, (declared, args)) in calls.iter().enumerate() {
                let text = serde_json::to_string(args).unwrap();
                let id = format!("id_{k}");
                payloads.push(openai_call(k as u64, Some(&id), Some(name(*declared)), ""));
                for piece in split_chars(&text, 3) {
                    payloads.push(openai_call(k as u64, None, None, &piece));
                }
            }
            payloads.push(openai_chunk(json!({}), Some("tool_calls")));
            let body = sse_data(&payloads);
            // The provider's ids, not generated ones.
            let want: Vec<Result<Call, String>> = oracle(&calls, str::to_owned)
                .into_iter()
                .enumerate()
                .map(|(k, r)| r.map(|c| call(&format!("id_{k}"), &c.name, c.arguments)))
                .collect();
            let make = with_tools(Format::OpenAiChat);
            let whole = run_whole(&make, &body);
            check_contract(&whole);
            prop_assert_eq!(outcome(&whole), want);
            let cuts: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
            prop_assert_eq!(run_chunks(&make, &cut_at(&body, &cuts)), whole);
        }
    }
}

// ---- recorded captures and mutants ----

fn starts(ev: &[Event]) -> usize {
    ev.iter()
        .filter(|e| matches!(e, Event::ToolCallStart { .. }))
        .count()
}

/// The errors that belong to no call and are not about an undeclared tool.
fn other_errors(ev: &[Event]) -> Vec<&Event> {
    ev.iter()
        .filter(|e| {
            matches!(e, Event::Error { index: None, kind, .. } if *kind != ErrorKind::UndeclaredTool)
        })
        .collect()
}

/// Every recorded capture with an empty `tools` array: not one call is emitted, every call
/// the capture holds is one `undeclared_tool` error instead, the text, reasoning and other
/// errors are those of the capture read without tools, and random chunkings agree.
#[test]
fn captures_with_no_tool_declared_turn_every_call_into_one_error() {
    let none = Tools::from_json("[]").unwrap();
    let mut total = 0;
    for format in [
        "openai-chat",
        "anthropic",
        "gemini",
        "openai-responses",
        "bedrock",
        "cohere",
        "llama-stack",
        "ollama",
        "qwen-xml",
    ] {
        for cap in captures(format) {
            let plain = maker(format, cap.framing);
            let config = ParserConfig::new().framing(cap.framing).tools(none.clone());
            let make = || Parser::with_config(format.parse().unwrap(), config.clone());
            let before = run_whole(&plain, &cap.bytes);
            let after = run_whole(&make, &cap.bytes);
            check_contract(&after);
            assert_eq!(starts(&after), 0, "{}", cap.path);
            assert_eq!(undeclared(&after).len(), starts(&before), "{}", cap.path);
            assert_eq!(text(&after), text(&before), "{}", cap.path);
            assert_eq!(reasoning(&after), reasoning(&before), "{}", cap.path);
            assert_eq!(other_errors(&after), other_errors(&before), "{}", cap.path);
            let mut rng = Rng::new(cap.bytes.len() as u64);
            for _ in 0..3 {
                let cuts: Vec<usize> = (0..1 + rng.below(30))
                    .map(|_| rng.below(cap.bytes.len() + 1))
                    .collect();
                assert_eq!(
                    run_chunks(&make, &cut_at(&cap.bytes, &cuts)),
                    after,
                    "{} random split",
                    cap.path
                );
            }
            total += starts(&before);
        }
    }
    if captures_dir().is_some() {
        assert!(total >= 100, "{total} calls in the captures");
    }
}

/// The marker-less captures with no tool declared: no call header is read, so no call and
/// no error; the calls are text.
#[test]
fn marker_less_captures_with_no_tool_declared_are_text() {
    let none = Tools::from_json("[]").unwrap();
    for format in ["llama-json", "llama-pythonic"] {
        for cap in captures(format) {
            let plain = maker(format, cap.framing);
            let config = ParserConfig::new().framing(cap.framing).tools(none.clone());
            let make = || Parser::with_config(format.parse().unwrap(), config.clone());
            let after = run_whole(&make, &cap.bytes);
            check_contract(&after);
            assert_eq!(starts(&after), 0, "{}", cap.path);
            assert_eq!(
                other_errors(&after),
                other_errors(&run_whole(&plain, &cap.bytes)),
                "{}",
                cap.path
            );
            let cuts = [cap.bytes.len() / 3, cap.bytes.len() / 2];
            assert_eq!(run_chunks(&make, &cut_at(&cap.bytes, &cuts)), after);
        }
    }
}

/// Mutants of the fixtures above, with tools: never a panic, always the contract, and a
/// random chunking gives the events fed whole.
#[test]
fn mutated_fixtures_with_tools_keep_the_contract() {
    let fixtures: [(Format, &str); 8] = [
        (
            Format::Hermes,
            r#"a <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call><tool_call>{"name": "rm_rf", "arguments": {"p": [1, "é"]}}</tool_call><tool_call>{"name": "now", "arguments": {}}</tool_call> b"#,
        ),
        (
            Format::QwenXml,
            "<tool_call>\n<function=rm_rf>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        ),
        (
            Format::Mistral,
            r#"[TOOL_CALLS]rm_rf[ARGS]{"path": "/"}[TOOL_CALLS][{"name": "now", "arguments": {}}, {"name": "rm_rf", "arguments": {}}]"#,
        ),
        (
            Format::DeepSeek,
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>rm_rf\n```json\n{\"path\": \"/\"}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>now\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        ),
        (
            Format::Harmony,
            "<|channel|>commentary to=functions.rm_rf <|constrain|>json<|message|>{\"path\":\"/\"}<|call|><|start|>assistant<|channel|>commentary to=functions.now<|message|>{}<|call|>",
        ),
        (
            Format::LlamaPythonic,
            "x [get_weather(city='Paris'), rm_rf(path='/', n=[1, 2]), now()] [rm_rf()]",
        ),
        (
            Format::LlamaJson,
            r#"{"name": "now", "parameters": {}}; {"name": "rm_rf", "parameters": {"a": 1}} <|python_tag|>print(1)<|eom_id|>"#,
        ),
        (
            Format::Auto,
            "[get_weather(city='Paris'), rm_rf()] <tool_call>{\"name\": \"rm_rf\", \"arguments\": {}}</tool_call>",
        ),
    ];
    for (format, input) in fixtures {
        mutations_keep_the_contract(&with_tools(format), input.as_bytes(), 150, format.name());
    }
    let body = sse_data(&[
        openai_call(0, Some("call_a"), Some("rm_rf"), "{\"a\": "),
        openai_call(1, Some("call_b"), Some("now"), "{}"),
        openai_call(0, None, None, "1}"),
    ]);
    mutations_keep_the_contract(&with_tools(Format::OpenAiChat), &body, 150, "openai-chat");
}
