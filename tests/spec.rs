//! Syntax specs (`toolstream::spec`): the strict reader (every error names its key),
//! the three inputs (a bare `response_template`, a `tokenizer_config.json` holding
//! one, ours), transformers' own test templates decoding their own fixtures (written
//! here from the documented formats; the expected values are those transformers' tests
//! assert), and the CLI (`spec NAME | parse --syntax -` gives `--format NAME`'s events;
//! a bad spec exits 2 naming the key).
//!
//! The engine-level round trip of every built-in (same events at every split) is
//! `tests/text/rules/specs.rs`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/mod.rs"]
mod common;

use common::*;
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};
use toolstream::{Event, Format, Parser, ParserConfig, Syntax};

fn err(spec: Value) -> String {
    match Syntax::from_value(&spec) {
        Ok(s) => panic!("read: {s:?}"),
        Err(e) => e.to_string(),
    }
}

fn hermes_template() -> Value {
    json!({
        "version": 1,
        "fields": {
            "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "content": "json",
                           "transform": {"type": "function", "function": "{content}"}},
        }
    })
}

// ------------------------------------------------------------------ strict reading

#[test]
fn errors_name_the_key_path() {
    let cases: Vec<(Value, &str)> = vec![
        (json!({"fields": {}, "tools": 1}), "tools: unknown key"),
        (
            json!({"version": 2, "fields": {}}),
            "version: only version 1",
        ),
        (json!({"version": 1}), "fields: is required"),
        (
            json!({"fields": {}}),
            "fields: must name at least one field",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "colse": "</a>"}}}),
            "fields.tool_calls.colse: unknown key",
        ),
        (
            json!({"fields": {"tool_calls": {"open": 3}}}),
            "fields.tool_calls.open: must be a string or a list of strings, not a number",
        ),
        (
            json!({"fields": {"tool_calls": {"open": []}}}),
            "fields.tool_calls.open: must hold at least one literal",
        ),
        (
            json!({"fields": {"tool_calls": {"open": ["<a>", ""]}}}),
            "fields.tool_calls.open[1]: must not be empty",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "close_pattern": "</a>(?=x)y", "content": "json",
                                             "transform": {"type": "function", "function": "{content}"}}}}),
            "fields.tool_calls.close_pattern: the lookahead (?=...) is not supported",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "close_pattern": "</a>\\s*", "content": "json",
                                             "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}}}),
            "fields.tool_calls.transform.function.name: {name} must be a named group of the call's open_pattern",
        ),
        (
            json!({"fields": {"tool_calls": {"open_pattern": "<a>", "content": "json", "transform_each": true,
                                             "transform": {"type": "function", "function": {"name": "{fn.name}", "arguments": "{fn.args}"}}}}}),
            "fields.tool_calls.transform.function: with transform_each: {\"name\": \"{K}\"",
        ),
        (
            json!({"fields": {"tool_calls": {"open_pattern": "<a>", "content": "xml-inline",
                                             "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}}}),
            "fields.tool_calls.content_args: xml-inline calls need content_args.tag_pattern",
        ),
        (
            json!({"fields": {"tool_calls": {"open_pattern": "<f=(?P<name>\\w+)>", "content": "xml-inline",
                                             "content_args": {"tag_pattern": "<p=(?P<k>\\w+)>(?P<value>.*?)</p>"},
                                             "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}}}),
            "fields.tool_calls.content_args.tag_pattern: must have a named group `key`",
        ),
        (
            json!({"fields": {"thinking": {"open_pattern": "<t>", "close": "</t>", "join": " "},
                              "tool_calls": {"open": "<a>", "content": "json", "transform": {"type": "function", "function": "{content}"}}}}),
            "fields.thinking.join: requires `repeats: true`",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "open_pattern": "<a>"}}}),
            "fields.tool_calls.open_pattern: cannot be given with `open`",
        ),
        (
            json!({"start_anchor_pattern": "(x", "fields": {"tool_calls": {"open": "<a>", "content": "json",
                                             "transform": {"type": "function", "function": "{content}"}}}}),
            "start_anchor_pattern: ",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "repeats": "yes"}}}),
            "fields.tool_calls.repeats: must be true or false, not a string",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "content": "yaml"}}}),
            "fields.tool_calls.content: unknown content parser \"yaml\"",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "content": "kv-lines"}}}),
            "fields.tool_calls.content: no engine reads \"kv-lines\" calls from a spec yet",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "content": "json"}}}),
            "fields.tool_calls.transform: is required for json calls",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "content": "json", "transform_each": true}}}),
            "fields.tool_calls.transform_each: is set but the field has no `transform`",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "content": "json", "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}}}),
            "fields.tool_calls.transform.function.name: {name} is not a key of the call object",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "content": "json", "content_args": {"unquoted_keys": true}, "transform": {"type": "function", "function": "{content}"}}}}),
            "fields.tool_calls.content_args.unquoted_keys: the json engine reads standard JSON call objects only",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "content": "json", "transform": {"type": "function", "function": "{content}"}}, "summary": {"open": "<s>", "close": "</s>"}}}),
            "fields.summary: no event carries a field named \"summary\"",
        ),
        (
            json!({"fields": {"content": {"content": "text"}, "tool_calls": {"content": "json", "transform": {"type": "function", "function": "{content}"}}}}),
            "fields.tool_calls: at most one field may have no `open`",
        ),
        (
            json!({"fields": {"thinking": {"open": "<think>", "content": "text"}, "tool_calls": {"open": "<a>", "content": "json", "transform": {"type": "function", "function": "{content}"}},
                              "content": {"close": "<|im_end|>"}}}),
            "fields.thinking.close: reasoning needs exactly one closing literal",
        ),
        (
            // Our form names an engine: it reads calls.
            json!({"response_template": {"fields": {"content": {"close": "x"}}}, "toolstream": {"engine": "json"}}),
            "response_template.fields.tool_calls: is required",
        ),
        (
            json!({"fields": {"tool_calls": {"open": "<a>", "content": "xml-inline"}}}),
            "fields.tool_calls.content_args: xml-inline calls need content_args.tag_pattern (or toolstream.xml",
        ),
        (
            json!({"response_template": hermes_template(), "toolstream": {"engine": "harmony"}}),
            "toolstream.engine: unknown engine \"harmony\"",
        ),
        (
            json!({"response_template": hermes_template(), "toolstream": {"engine": "pythonic"}}),
            "toolstream.engine: \"pythonic\" reads python-call-list calls",
        ),
        (
            json!({"response_template": hermes_template(), "toolstream": {"keys": {"name": ["name"]}}}),
            "toolstream.keys.arguments: is required",
        ),
        (
            json!({"response_template": hermes_template(), "toolstream": {"keys": {"name": ["tool"], "arguments": ["arguments"]}}}),
            "toolstream.keys: must include the transform's name key \"name\"",
        ),
        (
            json!({"response_template": hermes_template(), "toolstream": {"openers": [{"open": "<b>"}]}}),
            "response_template.fields.tool_calls.open: must list the same markers as toolstream.openers",
        ),
        (
            json!({"response_template": hermes_template(), "toolstream": {"openers": [{"open": "<tool_call>", "close": "</tool_call>", "payload": "list"}]}}),
            "toolstream.openers[0].payload: unknown payload \"list\"",
        ),
        (
            json!({"response_template": hermes_template(), "toolstream": {"citations": ["<co>"]}}),
            "toolstream.citations: must hold two markers",
        ),
        (
            json!({"response_template": hermes_template(), "toolstream": {"citations": "<co>"}}),
            "toolstream.citations: must be a list, not a string",
        ),
        (
            json!({"response_template": hermes_template(), "toolstream": {"citations": ["<co>", ""]}}),
            "toolstream.citations[1]: must not be empty",
        ),
        (
            json!({"response_template": hermes_template(), "toolstream": {"xml": {}}}),
            "toolstream.xml: is for the xml engine",
        ),
        (
            json!({"response_template": hermes_template(), "toolstrem": {}}),
            "toolstrem: unknown key",
        ),
        (json!({"chat_template": "x"}), "not a spec"),
        (json!([1]), "must be an object, not a list"),
    ];
    for (spec, want) in cases {
        let got = err(spec.clone());
        assert!(got.contains(want), "{spec}\n  got:  {got}\n  want: {want}");
    }
    let e = Syntax::from_json("{").unwrap_err();
    assert_eq!(e.path(), "");
    assert!(e.message().starts_with("not JSON"), "{e}");
    let e = Syntax::from_value(
        &json!({"fields": {"tool_calls": {"open": "<a>", "close_pattern": "x(?<=y)", "content": "json",
                                          "transform": {"type": "function", "function": "{content}"}}}}),
    )
    .unwrap_err();
    assert_eq!(e.path(), "fields.tool_calls.close_pattern");
    assert!(e.message().contains("lookbehind"), "{e}");
}

#[test]
fn the_three_inputs_give_the_same_syntax() {
    let bare = Syntax::from_value(&hermes_template()).unwrap();
    let tokenizer_config = json!({
        "tokenizer_class": "Qwen2Tokenizer",
        "chat_template": "{% for m in messages %}...{% endfor %}",
        "eos_token": "<|im_end|>",
        "response_template": hermes_template(),
    });
    assert_eq!(Syntax::from_value(&tokenizer_config).unwrap(), bare);
    let ours = json!({"response_template": hermes_template(), "toolstream": {}});
    assert_eq!(Syntax::from_value(&ours).unwrap(), bare);
    assert_eq!(bare.name(), "spec");
}

// ------------------------------------------------------------------ transformers' templates

/// Events of `text` under `syntax`, the same at every chunking.
fn events(syntax: &Syntax, text: &str) -> Vec<Event> {
    assert_split_invariant(
        &|| Parser::with_syntax(syntax.clone(), ParserConfig::new().id_prefix("call_")),
        text.as_bytes(),
        16,
    )
}

fn cohere_template() -> Value {
    json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
        "fields": {
            "content": {"open": "<|START_RESPONSE|>", "close": "<|END_RESPONSE|>", "content": "text"},
            "thinking": {"open": "<|START_THINKING|>", "close": "<|END_THINKING|>", "content": "text"},
            "tool_calls": {
                "open": "<|START_ACTION|>",
                "close": "<|END_ACTION|>",
                "content": "json",
                "transform_each": true,
                "transform": {"type": "function", "function": {"name": "{tool_name}", "arguments": "{parameters}"}},
            },
        },
    })
}

fn smollm_template() -> Value {
    json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|im_start|>assistant\n",
        "fields": {
            "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {
                "open": "<tool_call>",
                "close": "</tool_call>",
                "repeats": true,
                "content": "json",
                "transform": {"type": "function", "function": "{content}"},
            },
            "content": {"close": "<|im_end|>", "content": "text"},
        },
    })
}

#[test]
fn cohere_template_decodes_its_fixture() {
    let syntax = Syntax::from_value(&cohere_template()).unwrap();
    let out = "<|START_THINKING|>I should call a tool.<|END_THINKING|>\
               <|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"simple_tool\", \
               \"parameters\": {\"temperature_format\": \"Celsius\"}}\n]<|END_ACTION|><|END_OF_TURN_TOKEN|>";
    let ev = events(&syntax, out);
    assert_eq!(reasoning(&ev), "I should call a tool.");
    let got = calls(&ev);
    assert_eq!(got.len(), 1, "{ev:?}");
    assert_eq!(got[0].name, "simple_tool");
    assert_eq!(got[0].arguments, json!({"temperature_format": "Celsius"}));
    // `tool_call_id` before the name is the call's id.
    assert_eq!(got[0].id, "0");
    // Every field has an open: the end-of-turn token is outside every region, no field's
    // (transformers' parse_response drops it too).
    assert_eq!(text(&ev), "");
    // The response, inside its tokens, is the text.
    let answer = events(
        &syntax,
        "<|START_RESPONSE|>Four.<|END_RESPONSE|><|END_OF_TURN_TOKEN|>",
    );
    assert_eq!(text(&answer), "Four.");
    // With the prompt's end echoed first, the anchor is skipped.
    let echoed = events(
        &syntax,
        &format!("<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>{out}"),
    );
    assert_eq!(echoed, ev);
}

#[test]
fn smollm_template_decodes_its_fixtures() {
    let syntax = Syntax::from_value(&smollm_template()).unwrap();
    let greeting = "Hello! I'm doing well, thanks for asking. How can I assist you today? \
                    Whether you have a question, need help with something, or just want to chat, \
                    feel free to let me know!";
    let thought = "Okay, the user said, \"Hello! How are you?\" I need to respond appropriately.";
    let out = format!(
        "<think>\n{thought}\n</think>\n\n<tool_call>{{\"name\": \"greet_user\", \"arguments\": {{\"greeting\": \"{greeting}\"}}}}</tool_call>"
    );
    let ev = events(&syntax, &out);
    // transformers strips the value; the events carry the model's bytes.
    assert_eq!(reasoning(&ev).trim(), thought);
    let got = calls(&ev);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].name, "greet_user");
    assert_eq!(got[0].arguments, json!({"greeting": greeting}));
    assert_eq!(text(&ev).trim(), "");

    let ev = events(
        &syntax,
        "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>",
    );
    let got = calls(&ev);
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].name.as_str(), &got[0].arguments),
        ("get_weather", &json!({"city": "Paris"}))
    );

    let ev = events(
        &syntax,
        "<think>\nOkay, gravity.</think>\nSome content about gravity goes here!<|im_end|>",
    );
    assert_eq!(reasoning(&ev).trim(), "Okay, gravity.");
    assert_eq!(text(&ev).trim(), "Some content about gravity goes here!");
    assert!(calls(&ev).is_empty());
}

#[test]
fn dotted_transform_paths_name_the_call_objects_keys() {
    let template = json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|assistant|>",
        "fields": {
            "tool_calls": {
                "open": "<tool>",
                "close": "</tool>",
                "repeats": true,
                "content": "json",
                "transform": {"type": "function", "function": {"name": "{content.name}", "arguments": "{content.args}"}},
            },
        },
    });
    let syntax = Syntax::from_value(&template).unwrap();
    let ev = events(
        &syntax,
        "<tool>{\"name\": \"get_weather\", \"args\": {\"city\": {\"id\": 7}}}</tool>",
    );
    let got = calls(&ev);
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].name.as_str(), &got[0].arguments),
        ("get_weather", &json!({"city": {"id": 7}}))
    );
    // A key of a nested object (`{fn.name}` per element) is not a call object's key.
    let mut nested = template.clone();
    nested["fields"]["tool_calls"]["transform_each"] = json!(true);
    nested["fields"]["tool_calls"]["transform"]["function"] =
        json!({"name": "{fn.name}", "arguments": "{fn.args}"});
    assert!(
        err(nested).starts_with("fields.tool_calls.transform.function.name: with transform_each")
    );
}

#[test]
fn a_template_without_tool_calls_reads_reasoning_and_text() {
    // transformers' `test_join_concatenates_repeated_matches`: no calls field. It was
    // refused (`fields.tool_calls: is required`); its reasoning and text are read, each
    // field's `join` between its regions, as transformers joins the values.
    let syntax = Syntax::from_value(&json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|assistant|>",
        "fields": {
            "thinking": {"open": "<think>", "close": "</think>", "repeats": true, "join": " "},
            "content": {"repeats": true, "join": " "},
        },
    }))
    .unwrap();
    let ev = events(
        &syntax,
        "<think>first</think>middle<think>second</think>done",
    );
    assert_eq!(reasoning(&ev), "first second");
    assert_eq!(text(&ev), "middle done");
    let ev = events(&syntax, "<think>only</think>");
    assert_eq!((reasoning(&ev).as_str(), text(&ev).as_str()), ("only", ""));
    // A call marker of another syntax is text here.
    let ev = events(&syntax, "<tool_call>{\"name\": \"f\"}</tool_call>");
    assert!(calls(&ev).is_empty());
    assert_eq!(text(&ev), "<tool_call>{\"name\": \"f\"}</tool_call>");
    // It reads back to the same syntax.
    assert_eq!(Syntax::from_value(&syntax.to_json()).unwrap(), syntax);
}

fn ernie_template() -> Value {
    json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "Assistant:",
        "fields": {
            "thinking": {"open_pattern": "(?:^|<think>\\s*)", "close": "</think>", "content": "text"},
            "content": {"open": "<response>\n", "close_pattern": "\\n?</response>", "content": "text"},
            "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": true, "content": "json",
                           "transform": {"type": "function", "function": "{content}"}},
        },
    })
}

fn gpt_oss_template() -> Value {
    json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|start|>assistant",
        "fields": {
            "thinking": {"open": "<|channel|>analysis<|message|>", "close": "<|end|>", "content": "text"},
            "content": {"open": "<|channel|>final<|message|>", "close": "<|end|>", "content": "text"},
            "tool_calls": {"open_pattern": "<\\|channel\\|>commentary to=functions\\.(?P<name>\\w+).*?<\\|message\\|>",
                           "close": "<|call|>", "repeats": true, "content": "json",
                           "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}},
        },
    })
}

fn qwen3_template() -> Value {
    json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|im_start|>assistant\n",
        "fields": {
            "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {"open_pattern": "<tool_call>\\s*<function=(?P<name>\\w+)>", "close": "</tool_call>",
                           "repeats": true, "content": "xml-inline",
                           "content_args": {
                               "tag_pattern": "<parameter=(?P<key>\\w+)>\\s*(?P<value>.*?)\\s*</parameter>",
                               "value_parser": {"name": "json", "args": {"allow_non_json": true}}},
                           "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}},
        },
    })
}

fn inkling_template() -> Value {
    let block = |kind: &str| format!("(?:<\\|message_model\\|>)?[^<]*<\\|content_{kind}\\|>");
    json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|message_model|>",
        "fields": {
            "thinking": {"open_pattern": block("thinking"), "close": "<|end_message|>", "repeats": true,
                         "join": "", "content_args": {"strip": false}},
            "content": {"open_pattern": block("text"), "close": "<|end_message|>", "repeats": true,
                        "join": "", "content_args": {"strip": false}},
            "tool_calls": {"open_pattern": block("invoke_tool_json"), "close": "<|end_message|>",
                           "repeats": true, "content": "json",
                           "transform": {"type": "function", "function": {"name": "{content.name}", "arguments": "{content.args}"}}},
        },
    })
}

fn gemma4_template() -> Value {
    json!({
        "defaults": {"role": "assistant"},
        "start_anchor": ["<|turn>model\n", "<tool_response|>"],
        "fields": {
            "thinking": {"open": "<|channel>thought\n", "close": "<channel|>", "content": "text"},
            "tool_calls": {"open_pattern": "<\\|tool_call>call:(?P<name>\\w+)", "close": "<tool_call|>",
                           "repeats": true, "content": "json",
                           "content_args": {"unquoted_keys": true, "string_delims": [["<|\"|>", "<|\"|>"]]},
                           "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}},
            "content": {"close": ["<turn|>", "<|tool_response>", "<eos>"], "content": "text"},
        },
    })
}

#[test]
fn ernie_template_decodes_its_fixtures() {
    let syntax = Syntax::from_value(&ernie_template()).unwrap();
    // `^` opens the reasoning at the start of the output.
    let thought =
        "The user asks about the weather in Paris. I should call get_current_temperature.";
    let out = format!(
        "{thought}\n</think>\n\n<tool_call>\n{{\"name\": \"get_current_temperature\", \"arguments\": {{\"location\": \"Paris\"}}}}\n</tool_call>\n</s>"
    );
    let ev = events(&syntax, &out);
    assert_eq!(reasoning(&ev).trim(), thought);
    let got = calls(&ev);
    assert_eq!(got.len(), 1, "{ev:?}");
    assert_eq!(got[0].name, "get_current_temperature");
    assert_eq!(got[0].arguments, json!({"location": "Paris"}));
    // No field without an open: text no field takes (`</s>` included) is dropped, as
    // transformers drops it.
    assert_eq!(text(&ev), "");

    let answer = "Hello! I'm doing well, thank you for asking.";
    let out = format!("A greeting.\n</think>\n\n<response>\n{answer}\n</response>\n</s>");
    let ev = events(&syntax, &out);
    assert_eq!(reasoning(&ev).trim(), "A greeting.");
    // The content field's open and its close pattern (`\n?</response>`) are consumed;
    // the bytes around the region are no field's.
    assert_eq!(text(&ev), answer);
    assert!(calls(&ev).is_empty());

    // transformers' streaming fixture. At the start `^` matches first (an alternation
    // is leftmost-first, as in Python's `re`): the reasoning opens empty there, so
    // `<think>` is reasoning text.
    let ev = events(
        &syntax,
        "<think>some deliberation here</think>\n\n<tool_call>\n{\"name\": \"get_current_temperature\", \"arguments\": {\"location\": \"Paris\"}}\n</tool_call>\n</s>",
    );
    assert_eq!(reasoning(&ev), "<think>some deliberation here");
    assert_eq!(calls(&ev).len(), 1);
    // After text, `<think>\s*` opens it.
    let ev = events(&syntax, "A.</think>B <think>\n C</think>");
    assert_eq!((text(&ev).as_str(), reasoning(&ev).as_str()), ("", "A.C"));
}

#[test]
fn gpt_oss_template_decodes_its_fixtures() {
    let syntax = Syntax::from_value(&gpt_oss_template()).unwrap();
    let thought = "We need to call get_current_weather with location \"San Francisco, CA\".";
    // No `<|call|>`: the arguments value closed, the call is complete.
    let out = format!(
        "<|channel|>analysis<|message|>{thought}<|end|><|start|>assistant<|channel|>commentary to=functions.get_current_weather <|constrain|>json<|message|>{{\n  \"location\": \"San Francisco, CA\"\n}}"
    );
    let ev = events(&syntax, &out);
    assert_eq!(reasoning(&ev), thought);
    let got = calls(&ev);
    assert_eq!(got.len(), 1, "{ev:?}");
    assert_eq!(got[0].name, "get_current_weather");
    assert_eq!(got[0].arguments, json!({"location": "San Francisco, CA"}));
    // `<|start|>assistant` mid-stream is no field's: dropped.
    assert_eq!(text(&ev), "");

    let ev = events(
        &syntax,
        "<|channel|>analysis<|message|>User asks a simple math question: 2+2 = 4. Provide answer.<|end|><|start|>assistant<|channel|>final<|message|>2",
    );
    assert_eq!(
        reasoning(&ev),
        "User asks a simple math question: 2+2 = 4. Provide answer."
    );
    assert_eq!(text(&ev), "2");
    assert!(calls(&ev).is_empty());

    // With its close; a close marker inside a JSON string is string content.
    let ev = events(
        &syntax,
        "<|channel|>commentary to=functions.echo <|constrain|>json<|message|>{\"s\": \"a<|call|>b\"}<|call|>done",
    );
    let got = calls(&ev);
    assert_eq!(got.len(), 1, "{ev:?}");
    assert_eq!(got[0].name, "echo");
    assert_eq!(got[0].arguments, json!({"s": "a<|call|>b"}));
    // After the call, outside every region: no field's.
    assert_eq!(text(&ev), "");
}

#[test]
fn qwen3_template_decodes_its_fixtures() {
    let syntax = Syntax::from_value(&qwen3_template()).unwrap();
    let out = "<tool_call>\n<function=get_weather>\n<parameter=locations>\n[{\"country\": \"France\", \"city\": \"Paris\"}]\n</parameter>\n<parameter=temp_units>\ncelsius\n</parameter>\n</function>\n</tool_call>";
    let ev = events(&syntax, out);
    let got = calls(&ev);
    assert_eq!(got.len(), 1, "{ev:?}");
    assert_eq!(got[0].name, "get_weather");
    assert_eq!(
        got[0].arguments,
        json!({"locations": [{"country": "France", "city": "Paris"}], "temp_units": "celsius"})
    );
    assert_eq!(text(&ev), "");

    let ev = events(
        &syntax,
        "<think>short thought</think>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    );
    assert_eq!(reasoning(&ev), "short thought");
    let got = calls(&ev);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].arguments, json!({"city": "Paris"}));
    // The template has no `content` field: bytes outside its regions are no field's.
    assert_eq!(text(&ev), "");

    // A repeated parameter is an error with the raw call, never a merge or a drop.
    let raw = "<tool_call><function=f><parameter=a>1</parameter><parameter=a>2</parameter></function></tool_call>";
    let ev = events(&syntax, &format!("{raw} ok"));
    assert!(calls(&ev).is_empty(), "{ev:?}");
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Error { raw: r, .. } if r == raw)),
        "{ev:?}"
    );
    assert_eq!(text(&ev), "");
}

#[test]
fn inkling_template_decodes_its_fixture() {
    let syntax = Syntax::from_value(&inkling_template()).unwrap();
    let out = "<|content_thinking|>Consider the weather.<|end_message|>\
               <|message_model|><|content_thinking|> Tokyo, probably.<|end_message|>\
               <|message_model|><|content_text|>Checking the weather now.<|end_message|>\
               <|message_model|>get_weather<|content_invoke_tool_json|>\
               {\"name\":\"get_weather\",\"args\":{\"city\":\"Tokyo\",\"units\":\"C\"}}<|end_message|>\
               <|content_model_end_sampling|>";
    let ev = events(&syntax, out);
    // `join: ""`: the two thinking blocks, one after the other.
    assert_eq!(reasoning(&ev), "Consider the weather. Tokyo, probably.");
    let got = calls(&ev);
    assert_eq!(got.len(), 1, "{ev:?}");
    assert_eq!(got[0].name, "get_weather");
    assert_eq!(got[0].arguments, json!({"city": "Tokyo", "units": "C"}));
    // The text block's bytes; the end-of-sampling token is no field's (every field has
    // an open), so it is dropped.
    assert_eq!(text(&ev), "Checking the weather now.");
    // The generation prompt's `<|message_model|>` echoed first: skipped as the anchor.
    let echoed = events(&syntax, &format!("<|message_model|>{out}"));
    assert_eq!(echoed, ev);
}

#[test]
fn gemma4_template_decodes_its_fixtures() {
    // transformers' Gemma 4 template: `json` calls with `unquoted_keys` and `<|"|>` string
    // delimiters, compiled onto the gemma engine (the events are gemma4's).
    let syntax = Syntax::from_value(&gemma4_template()).unwrap();
    // transformers' `test_gemma4_tool_call`.
    let thought = "The user is asking for the current temperature in Paris. I should check the available tools to see if there's a function that can provide this information.";
    let out = format!(
        "<|channel>thought\n{thought}<channel|><|tool_call>call:get_current_temperature{{detail_level:0,location:<|\"|>Paris, France<|\"|>,unit:<|\"|>celsius<|\"|>}}<tool_call|><|tool_response>"
    );
    let ev = events(&syntax, &out);
    assert_eq!(reasoning(&ev), thought);
    let got = calls(&ev);
    assert_eq!(got.len(), 1, "{ev:?}");
    assert_eq!(got[0].name, "get_current_temperature");
    assert_eq!(
        got[0].arguments,
        json!({"detail_level": 0, "location": "Paris, France", "unit": "celsius"})
    );
    // `<|tool_response>` closes the content field: dropped from the text.
    assert_eq!(text(&ev), "");
    // The argument deltas are the JSON the bare-key object converts to.
    assert_eq!(
        args_text(&ev, 0),
        r#"{"detail_level":0,"location":"Paris, France","unit":"celsius"}"#
    );

    // transformers' `test_gemma4_complex_tool_call`.
    let out = "<|channel>thought\nLet me call the tool.<channel|><|tool_call>call:foo{bool_value:true,list_value:[<|\"|>foo<|\"|>,<|\"|>bar<|\"|>],null_value:null,number_value:1,string_value:<|\"|>foo<|\"|>,struct_value:{foo:<|\"|>bar<|\"|>}}<tool_call|>";
    let ev = events(&syntax, out);
    assert_eq!(reasoning(&ev), "Let me call the tool.");
    let got = calls(&ev);
    assert_eq!(got.len(), 1, "{ev:?}");
    assert_eq!(got[0].name, "foo");
    assert_eq!(
        got[0].arguments,
        json!({"bool_value": true, "list_value": ["foo", "bar"], "null_value": null,
               "number_value": 1, "string_value": "foo", "struct_value": {"foo": "bar"}})
    );
    assert_eq!(text(&ev), "");

    // The same syntax as the built-in, with the template's own tokens: the events of
    // `--format gemma4` on input whose reasoning has no newline after `thought` and no
    // end tokens the template does not drop.
    let input = "Sure.<|tool_call>call:f{s:<|\"|>a<b <|x<|\"|>}<tool_call|> ok<turn|>";
    let builtin = run_whole(
        &|| Parser::with_config(Format::Gemma4, ParserConfig::new().id_prefix("call_")),
        input.as_bytes(),
    );
    assert_eq!(events(&syntax, input), builtin);
    assert_eq!(calls(&builtin)[0].arguments, json!({"s": "a<b <|x"}));

    // An echoed prompt end (either anchor) is skipped.
    let echoed = events(&syntax, &format!("<tool_response|>{out}"));
    assert_eq!(echoed, ev);
}

/// transformers.js' LFM template (its chat-parsing tests mirror transformers').
fn lfm_template() -> Value {
    json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|im_start|>assistant\n",
        "fields": {
            "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {"open": "<|tool_call_start|>", "close": "<|tool_call_end|>",
                           "content": "python-call-list", "transform_each": true,
                           "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{arguments}"}}},
            "content": {"close": "<|im_end|>", "content": "text"},
        },
    })
}

#[test]
fn lfm_template_calls_decode_on_the_pythonic_engine() {
    // The template as transformers.js writes it: its reasoning field and its end token
    // are read by the pythonic engine as by the others.
    let t = lfm_template();
    let syntax = Syntax::from_value(&t).unwrap();
    let thinking = "<think>\nThe user asks for the weather.\n</think>\n\n<|tool_call_start|>[get_weather(city=\"Paris\")]<|tool_call_end|>On it.<|im_end|>";
    let ev = events(&syntax, thinking);
    assert_eq!(reasoning(&ev), "The user asks for the weather.");
    assert_eq!(text(&ev), "On it.");
    assert_eq!(calls(&ev)[0].arguments, json!({"city": "Paris"}));
    let builtin = run_whole(
        &|| Parser::with_config(Format::Lfm2, ParserConfig::new().id_prefix("call_")),
        thinking.as_bytes(),
    );
    assert_eq!(ev, builtin);
    // It is `lfm2`'s own spec, field for field (bar the anchor and `toolstream`).
    let written = Syntax::builtin(Format::Lfm2).unwrap().to_json();
    for field in ["thinking", "tool_calls"] {
        assert_eq!(
            written["response_template"]["fields"][field]["open"], t["fields"][field]["open"],
            "{field}"
        );
    }
    assert_eq!(
        written["response_template"]["fields"]["content"]["close"],
        t["fields"]["content"]["close"]
    );
    // Tags the engine cannot find in its text are refused naming the field.
    let mut odd = lfm_template();
    odd["fields"]["thinking"]["open"] = json!("[THINK]");
    let e = Syntax::from_value(&odd).unwrap_err();
    assert_eq!(e.path(), "fields.thinking.open", "{e}");
    // The calls field alone reads transformers.js' `lfm pythonic tool calls` fixture's
    // calls.
    let syntax = Syntax::from_value(&t).unwrap();
    let out = r#"<|tool_call_start|>[get_weather(city="Paris", options={"units": "C", "days": [1, 2]}), set_alarm(hour=7, enabled=True, note=None)]<|tool_call_end|>Checking now."#;
    let ev = events(&syntax, out);
    let got = calls(&ev);
    assert_eq!(got.len(), 2, "{ev:?}");
    assert_eq!(got[0].name, "get_weather");
    assert_eq!(
        got[0].arguments,
        json!({"city": "Paris", "options": {"units": "C", "days": [1, 2]}})
    );
    assert_eq!(got[1].name, "set_alarm");
    assert_eq!(
        got[1].arguments,
        json!({"hour": 7, "enabled": true, "note": null})
    );
    assert_eq!(text(&ev), "Checking now.");
    // The same events as `--format lfm2`, and the anchor skipped.
    let builtin = run_whole(
        &|| Parser::with_config(Format::Lfm2, ParserConfig::new().id_prefix("call_")),
        out.as_bytes(),
    );
    assert_eq!(ev, builtin);
    assert_eq!(
        events(&syntax, &format!("<|im_start|>assistant\n{out}")),
        ev
    );
    // transformers.js' `rejects malformed lfm pythonic tool calls without evaluating them`:
    // an error with the call's raw bytes, never a call.
    let ev = events(
        &syntax,
        "<|tool_call_start|>[get_weather(__proto__=process.exit())]<|tool_call_end|>",
    );
    assert!(calls(&ev).is_empty(), "{ev:?}");
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Error { raw, .. } if raw.contains("process.exit()"))),
        "{ev:?}"
    );
    // What the engine cannot read is refused naming the key.
    for (edit, path) in [
        (
            json!({"transform_each": false}),
            "fields.tool_calls.transform_each",
        ),
        (
            json!({"transform": {"type": "function", "function": "{content}"}}),
            "fields.tool_calls.transform",
        ),
        (
            json!({"content_args": {"strip": true}}),
            "fields.tool_calls.content_args.strip",
        ),
        (json!({"close": "eos"}), "fields.tool_calls.close"),
    ] {
        let mut t2 = t.clone();
        for (k, v) in edit.as_object().unwrap() {
            t2["fields"]["tool_calls"][k] = v.clone();
        }
        let e = Syntax::from_value(&t2).unwrap_err();
        assert_eq!(e.path(), path, "{e}");
    }
    let bad = json!({"response_template": t, "toolstream": {"pythonic": {"bare": true}}});
    assert_eq!(
        Syntax::from_value(&bad).unwrap_err().path(),
        "toolstream.pythonic.bare"
    );
}

/// The fallback template `transformers serve` uses for Qwen models (as transformers.js'
/// chat-parsing tests quote it): `\s*`-prefixed patterns with no literal prefix.
fn qwen_serve_template() -> Value {
    json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|im_start|>assistant\n",
        "fields": {
            "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {"open_pattern": "\\s*<tool_call>", "close": "</tool_call>", "repeats": true,
                           "content": "json", "transform": {"type": "function", "function": "{content}"}},
            "content": {"close_pattern": "\\s*(?:<\\|im_end\\|>|<\\|endoftext\\|>|<\\|eot_id\\|>)", "content": "text"},
        },
    })
}

#[test]
fn qwen_serve_fallback_template_decodes_its_fixture() {
    let syntax = Syntax::from_value(&qwen_serve_template()).unwrap();
    // transformers.js' streaming fixture for it.
    let out = "<think>\nhmm\n</think>\n\nSure.\n<tool_call>\n{\"name\": \"fn\", \"arguments\": {\"x\": 1}}\n</tool_call>\n<|im_end|>\n<|endoftext|>";
    let ev = events(&syntax, out);
    // transformers strips the values; the events keep the model's bytes.
    assert_eq!(reasoning(&ev), "\nhmm\n");
    let got = calls(&ev);
    assert_eq!(got.len(), 1, "{ev:?}");
    assert_eq!(got[0].name, "fn");
    assert_eq!(got[0].arguments, json!({"x": 1}));
    // The whitespace the open and close patterns match is theirs (`\s*<tool_call>`,
    // `\s*<|im_end|>`): the text is what is left, the end tokens dropped.
    assert_eq!(text(&ev), "\n\nSure.");
    // The echoed generation prompt is skipped; the template reads back to itself.
    assert_eq!(
        events(&syntax, &format!("<|im_start|>assistant\n{out}")),
        ev
    );
    assert_eq!(Syntax::from_value(&syntax.to_json()).unwrap(), syntax);
}

#[test]
fn gemma_calls_the_engine_cannot_read_are_refused_naming_the_key() {
    let with = |f: &dyn Fn(&mut Value)| {
        let mut t = gemma4_template();
        f(&mut t["fields"]["tool_calls"]);
        Syntax::from_value(&t).map(|_| ()).unwrap_err()
    };
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Edit, &str, &str)> = vec![
        (
            Box::new(|c| c["content_args"]["unquoted_keys"] = json!(false)),
            "fields.tool_calls.content_args.unquoted_keys",
            "always reads bare keys",
        ),
        (
            Box::new(|c| {
                c["content_args"]
                    .as_object_mut()
                    .unwrap()
                    .remove("string_delims");
            }),
            "fields.tool_calls.content_args.unquoted_keys",
            "with strings between a token",
        ),
        (
            Box::new(|c| {
                c["content_args"]
                    .as_object_mut()
                    .unwrap()
                    .remove("unquoted_keys");
            }),
            "fields.tool_calls.content_args.unquoted_keys",
            "is required",
        ),
        (
            Box::new(|c| {
                c["content_args"]["string_delims"] = json!([["<|\"|>", "<|\"|>"], ["'", "'"]])
            }),
            "fields.tool_calls.content_args.string_delims",
            "one [open, close] pair",
        ),
        (
            Box::new(|c| c["content_args"]["string_delims"] = json!([["<a>", "</a>"]])),
            "fields.tool_calls.content_args.string_delims[0]",
            "the same token",
        ),
        (
            Box::new(|c| c["content_args"]["string_delims"] = json!([["'", "'"]])),
            "fields.tool_calls.content_args.string_delims[0]",
            "begin with `<`",
        ),
        (
            Box::new(|c| c["content_args"]["allow_non_json"] = json!(true)),
            "fields.tool_calls.content_args.allow_non_json",
            "never text",
        ),
        (
            Box::new(|c| c["open_pattern"] = json!("<\\|tool_call>\\s*call:(?P<name>\\w+)")),
            "fields.tool_calls.open_pattern",
            "call:(?P<name>",
        ),
        (
            Box::new(|c| c["close_pattern"] = json!("<tool_call\\|>\\s*")),
            "fields.tool_calls.close_pattern",
            "",
        ),
        (
            Box::new(|c| c["transform"]["function"]["name"] = json!("{fn}")),
            "fields.tool_calls.transform.function.name",
            "name group",
        ),
        (
            Box::new(|c| c["transform"] = json!({"type": "function", "function": "{content}"})),
            "fields.tool_calls.transform",
            "",
        ),
    ];
    for (edit, path, says) in &cases {
        let e = with(edit);
        assert!(e.path().starts_with(path), "{path}: {e}");
        assert!(e.message().contains(says), "{path}: {e}");
    }
    // A close pattern that spells literals (TRL's `<tool_call\|>\s*`) is read as them;
    // any other close pattern sends the field to the pattern engine, which names the key
    // that asks for the gemma engine.
    let close_pattern = |p: &str| {
        let mut t = gemma4_template();
        t["fields"]["tool_calls"]["close_pattern"] = json!(p);
        t["fields"]["tool_calls"]
            .as_object_mut()
            .unwrap()
            .remove("close");
        Syntax::from_value(&t)
    };
    let literal = Syntax::from_value(&gemma4_template()).unwrap();
    for p in ["<tool_call\\|>", "<tool_call\\|>\\s*", "(?:<tool_call\\|>)"] {
        assert_eq!(close_pattern(p).unwrap(), literal, "{p}");
    }
    let e = close_pattern("<tool_call\\|>\\s+").unwrap_err();
    assert_eq!(
        e.path(),
        "fields.tool_calls.content_args.unquoted_keys",
        "{e}"
    );
}

#[test]
fn pattern_specs_read_back_to_the_same_syntax() {
    for t in [
        ernie_template(),
        gpt_oss_template(),
        qwen3_template(),
        inkling_template(),
        gemma4_template(),
    ] {
        let s = Syntax::from_value(&t).unwrap();
        assert_eq!(Syntax::from_value(&s.to_json()).unwrap(), s, "{t}");
    }
}

// ------------------------------------------------------------------ the sections engine

/// A made-up syntax on the special-token section engine, written by hand: the literal
/// `open` / `close` forms, its own tokens, `<t>` reasoning, an end-of-turn token.
fn sections_spec(head: &str) -> Value {
    let transform = if head == "kimi-id" {
        json!({"type": "function", "id": "{id}", "function": {"name": "{name}", "arguments": "{content}"}})
    } else {
        json!({"type": "function", "function": {"name": "{name}", "arguments": "{content}"}})
    };
    json!({
        "response_template": {
            "version": 1,
            "fields": {
                "thinking": {"open": "<t>", "close": "</t>", "content": "text"},
                "tool_calls": {"open": "<|call|>", "close": "<|/call|>", "content": "json",
                               "repeats": true, "transform": transform},
                "content": {"close": ["<|calls|>", "<|/calls|>", "<|end|>"], "content": "text"},
            },
        },
        "toolstream": {"name": "made-up", "engine": "sections", "sections": {
            "calls_begin": "<|calls|>", "calls_end": "<|/calls|>", "call_begin": "<|call|>",
            "sep": "<|args|>", "call_end": "<|/call|>", "head": head}},
    })
}

#[test]
fn sections_builtins_round_trip() {
    for f in [Format::DeepSeek, Format::KimiK2] {
        let builtin = Syntax::builtin(f).unwrap();
        let text = serde_json::to_string_pretty(&builtin.to_json()).unwrap();
        let read = Syntax::from_json(&text).unwrap_or_else(|e| panic!("{f}: {e}\n{text}"));
        assert_eq!(read, builtin, "{f}");
        assert_eq!(read.to_json(), builtin.to_json(), "{f}");
        assert_eq!(read.name(), f.name());
        let spec = builtin.to_json();
        assert_eq!(spec["toolstream"]["engine"], "sections");
        // What transformers runs: the call's name (and Kimi's id) from named groups.
        let open = spec["response_template"]["fields"]["tool_calls"]["open_pattern"]
            .as_str()
            .unwrap();
        assert!(open.contains("(?P<name>"), "{open}");
        assert_eq!(open.contains("(?P<id>"), f == Format::KimiK2, "{open}");
    }
    for head in ["deepseek", "kimi-id"] {
        let s = Syntax::from_value(&sections_spec(head)).unwrap();
        assert_eq!(s.name(), "made-up");
        // Written back in the pattern form, read back to the same syntax.
        assert_eq!(Syntax::from_value(&s.to_json()).unwrap(), s, "{head}");
    }
}

#[test]
fn sections_specs_refuse_what_the_engine_cannot_read_naming_the_key() {
    type Edit = Box<dyn Fn(&mut Value)>;
    let tool = |k: &'static str, v: Value| -> Edit {
        Box::new(move |s: &mut Value| s["response_template"]["fields"]["tool_calls"][k] = v.clone())
    };
    let sect = |k: &'static str, v: Value| -> Edit {
        Box::new(move |s: &mut Value| s["toolstream"]["sections"][k] = v.clone())
    };
    let cases: Vec<(Edit, &str, &str)> = vec![
        // Unknown key, empty token, wrong type, unknown head, missing keys.
        (
            sect("begin", json!("<|b|>")),
            "toolstream.sections.begin",
            "unknown key",
        ),
        (
            sect("sep", json!("")),
            "toolstream.sections.sep",
            "must not be empty",
        ),
        (
            sect("call_end", json!(5)),
            "toolstream.sections.call_end",
            "must be a string",
        ),
        (
            sect("head", json!("qwen")),
            "toolstream.sections.head",
            "\"deepseek\" or \"kimi-id\"",
        ),
        (
            sect("head", json!(1)),
            "toolstream.sections.head",
            "\"deepseek\" or \"kimi-id\"",
        ),
        (
            sect("calls_end_reasoning", json!("yes")),
            "toolstream.sections.calls_end_reasoning",
            "true or false",
        ),
        (
            sect("label", json!("")),
            "toolstream.sections.label",
            "must not be empty",
        ),
        (
            Box::new(|s| {
                s["toolstream"]["sections"]
                    .as_object_mut()
                    .unwrap()
                    .remove("call_begin");
            }),
            "toolstream.sections.call_begin",
            "is required",
        ),
        (
            Box::new(|s| {
                s["toolstream"]["sections"]
                    .as_object_mut()
                    .unwrap()
                    .remove("head");
            }),
            "toolstream.sections.head",
            "is required",
        ),
        (
            Box::new(|s| {
                s["toolstream"].as_object_mut().unwrap().remove("sections");
            }),
            "toolstream.sections",
            "is required",
        ),
        (
            Box::new(|s| s["toolstream"]["sections"] = json!(["<|call|>"])),
            "toolstream.sections",
            "must be an object",
        ),
        // Tokens the engine cannot tell apart, or that could be string content.
        (
            sect("call_end", json!("<|args|>")),
            "toolstream.sections.call_end",
            "must differ from toolstream.sections.sep",
        ),
        (
            Box::new(|s| {
                s["toolstream"]["sections"]["call_begin"] = json!("CALL:");
                s["response_template"]["fields"]["tool_calls"]["open"] = json!("CALL:");
            }),
            "toolstream.sections.call_begin",
            "must begin with `<` or `[`",
        ),
        // The template says something else than the tokens.
        (
            tool("open", json!("<|cal|>")),
            "response_template.fields.tool_calls.open",
            "call_begin",
        ),
        (
            tool("close", json!("</call>")),
            "response_template.fields.tool_calls.close",
            "call_end",
        ),
        (
            Box::new(|s| {
                let f = s["response_template"]["fields"]["tool_calls"]
                    .as_object_mut()
                    .unwrap();
                f.remove("open");
                f.insert(
                    "open_pattern".into(),
                    json!("<\\|call\\|>(?P<name>\\w+)<\\|args\\|>"),
                );
            }),
            "response_template.fields.tool_calls.open_pattern",
            "must be",
        ),
        (
            Box::new(|s| {
                let f = s["response_template"]["fields"]["tool_calls"]
                    .as_object_mut()
                    .unwrap();
                f.remove("close");
                f.insert("close_pattern".into(), json!("\\s*<\\|/call\\|>"));
            }),
            "response_template.fields.tool_calls.close_pattern",
            "must be",
        ),
        (
            tool("content", json!("xml-inline")),
            "response_template.fields.tool_calls.content",
            "\"json\"",
        ),
        (
            tool("content_args", json!({"strip": true})),
            "response_template.fields.tool_calls.content_args.strip",
            "no content_args",
        ),
        (
            tool("transform_each", json!(true)),
            "response_template.fields.tool_calls.transform_each",
            "false",
        ),
        (
            tool(
                "transform",
                json!({"type": "function", "function": "{content}"}),
            ),
            "response_template.fields.tool_calls.transform",
            "{name}",
        ),
        (
            Box::new(|s| {
                s["response_template"]["fields"]["content"]["close"] =
                    json!(["<|calls|>", "<|end|>"]);
            }),
            "response_template.fields.content.close",
            "must list \"<|/calls|>\"",
        ),
        (
            Box::new(|s| {
                s["response_template"]["fields"]["content"]["close"] =
                    json!(["<|calls|>", "<|/calls|>", "<|/call|>"]);
            }),
            "response_template.fields.content.close",
            "is a call token",
        ),
        // Keys of other engines, and the tokens without the engine.
        (
            Box::new(|s| s["toolstream"]["xml"] = json!({})),
            "toolstream.xml",
            "not read by the sections engine",
        ),
        (
            Box::new(|s| s["toolstream"]["engine"] = json!("json")),
            "toolstream.sections",
            "sections engine only",
        ),
    ];
    for (edit, path, says) in &cases {
        let mut spec = sections_spec("deepseek");
        edit(&mut spec);
        let e = Syntax::from_value(&spec).map(|_| ()).unwrap_err();
        assert_eq!(e.path(), *path, "{e}");
        assert!(e.message().contains(says), "{path}: {e}");
    }
    // The kimi-id head's transform names the id group too.
    let mut spec = sections_spec("kimi-id");
    spec["toolstream"]["sections"]["head"] = json!("deepseek");
    let e = Syntax::from_value(&spec).unwrap_err();
    assert_eq!(
        e.path(),
        "response_template.fields.tool_calls.transform",
        "{e}"
    );
}

#[test]
fn a_made_up_sections_syntax_decodes_at_every_chunking() {
    let syntax = Syntax::from_value(&sections_spec("deepseek")).unwrap();
    let input = "<t>plan</t>Hi <|calls|><|call|>get_weather<|args|>{\"city\": \"Z\u{fc}rich\"}<|/call|>\n<|call|>now<|args|>\n```json\n{}\n```<|/call|><|/calls|> done<|end|>";
    let ev = events(&syntax, input);
    assert_eq!(reasoning(&ev), "plan");
    assert_eq!(text(&ev), "Hi \n done");
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_weather", json!({"city": "Z\u{fc}rich"})),
            call("call_1", "now", json!({}))
        ]
    );
    assert!(errors(&ev).is_empty(), "{ev:?}");
    // Start the byte the separator completes, not before.
    let started = |cut: usize| {
        let mut p = Parser::with_syntax(syntax.clone(), ParserConfig::new());
        let mut out = Vec::new();
        p.feed(&input.as_bytes()[..cut], &mut out).unwrap();
        out.iter().any(|e| matches!(e, Event::ToolCallStart { .. }))
    };
    let sep = input.find("<|args|>").unwrap() + "<|args|>".len();
    assert!(started(sep) && !started(sep - 1));
    // A call begins inside a broken one: that one ends as an error with its own bytes.
    let ev = events(
        &syntax,
        "<|call|>f<|args|>{\"a\": <|call|>g<|args|>{\"b\": 2}<|/call|>",
    );
    assert_eq!(calls(&ev), vec![call("call_1", "g", json!({"b": 2}))]);
    assert_eq!(
        kinds(&ev),
        vec![(
            toolstream::ErrorKind::Truncated,
            Some(0),
            "<|call|>f<|args|>{\"a\": ".into()
        )]
    );
    // No separator: an error carrying the call, in the syntax's words.
    let ev = events(&syntax, "<|call|>f{}<|/call|>x");
    assert_eq!(text(&ev), "x");
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Error { message, raw, .. }
            if message.contains("made-up") && raw == "<|call|>f{}<|/call|>")),
        "{ev:?}"
    );
    // Cut off: truncated.
    let ev = events(&syntax, "<|call|>f<|args|>{\"a\": 1");
    assert_eq!(
        kinds(&ev),
        vec![(
            toolstream::ErrorKind::Truncated,
            Some(0),
            "<|call|>f<|args|>{\"a\": 1".into()
        )]
    );
    // The kimi-id head: the model's id kept, the name inside it.
    let kimi = Syntax::from_value(&sections_spec("kimi-id")).unwrap();
    let ev = events(
        &kimi,
        "<|calls|><|call|>functions.get:3<|args|>{\"q\": 1}<|/call|><|/calls|>",
    );
    assert_eq!(
        calls(&ev),
        vec![call("functions.get:3", "get", json!({"q": 1}))]
    );
}

// ------------------------------------------------------------------ the CLI

fn toolstream(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolstream"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A run refused before it reads its input (a bad spec: exit 2) closes the pipe: the
    // write may then fail with a broken pipe (seen in CI); the exit code and stderr are
    // what the tests check.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn cli_spec_then_parse_syntax_gives_the_formats_events() {
    let dir = std::env::temp_dir().join(format!("toolstream-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // No sample file for the gemma family: one written here (a call, reasoning, a
    // close token inside a string, the bare opener, a broken call, a call cut off).
    let gemma = dir.join("gemma4.txt");
    std::fs::write(
        &gemma,
        "<|channel>thoughtplan<channel|>Hi <|tool_call>call:get_weather{city:<|\"|>Z\u{fc}rich <tool_call|><|\"|>,days:3,opts:{deep:[1,true,null]}}<tool_call|>\n<|tool_call>:now{}<tool_call|><|tool_call>call:bad{x:y}<tool_call|> then <|tool_call>call:cut{a:<|\"|>half<turn|>",
    )
    .unwrap();
    let functiongemma = dir.join("functiongemma.txt");
    std::fs::write(
        &functiongemma,
        "Hi <start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call><end_of_turn>",
    )
    .unwrap();
    let lfm2 = dir.join("lfm2.txt");
    std::fs::write(
        &lfm2,
        "Checking. <|tool_call_start|>[get_weather(city='Paris', days=3), now()]<|tool_call_end|> then <|tool_call_start|>[bad(1)]<|tool_call_end|> and <|tool_call_start|>[cut(a=\"x",
    )
    .unwrap();
    let olmo3 = dir.join("olmo3.txt");
    std::fs::write(
        &olmo3,
        "<function_calls>\nget_weather(city=\"Paris\")\nnow()\n</function_calls> done",
    )
    .unwrap();
    let deepseek = dir.join("deepseek.txt");
    std::fs::write(
        &deepseek,
        "<think>\nwhich city?\n</think>\n\nChecking.<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}><\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>function<\u{ff5c}tool\u{2581}sep\u{ff5c}>get_weather\n```json\n{\"city\": \"Z\u{fc}rich\"}\n```<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}><\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>now<\u{ff5c}tool\u{2581}sep\u{ff5c}>{}<\u{ff5c}tool\u{2581}call\u{2581}end\u{ff5c}><\u{ff5c}tool\u{2581}calls\u{2581}end\u{ff5c}> then <\u{ff5c}tool\u{2581}call\u{2581}begin\u{ff5c}>cut<\u{ff5c}tool\u{2581}sep\u{ff5c}>{\"a\": \"x<\u{ff5c}end\u{2581}of\u{2581}sentence\u{ff5c}>",
    )
    .unwrap();
    let kimi = dir.join("kimi-k2.txt");
    std::fs::write(
        &kimi,
        "<think>plan<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>functions.now:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>Done.<|im_end|> <|tool_call_begin|>bad{}<|tool_call_end|>",
    )
    .unwrap();
    let inputs = [
        ("deepseek", deepseek.to_str().unwrap()),
        ("kimi-k2", kimi.to_str().unwrap()),
        ("hermes", "samples/hermes.txt"),
        ("qwen-xml", "samples/qwen-xml.txt"),
        ("gemma4", gemma.to_str().unwrap()),
        ("functiongemma", functiongemma.to_str().unwrap()),
        ("llama-pythonic", "samples/llama-pythonic.txt"),
        ("lfm2", lfm2.to_str().unwrap()),
        ("olmo3", olmo3.to_str().unwrap()),
    ];
    for (name, file) in inputs {
        let (code, spec, e) = toolstream(&["spec", name], b"");
        assert_eq!(code, 0, "{e}");
        for chunk in ["1", "7", "100000"] {
            let (c1, via_spec, e1) = toolstream(
                &["parse", "--syntax", "-", "--chunk-size", chunk, file],
                spec.as_bytes(),
            );
            let (c2, via_format, e2) = toolstream(
                &["parse", "--format", name, "--chunk-size", chunk, file],
                b"",
            );
            assert_eq!((c1, c2), (0, 0), "{e1} {e2}");
            assert_eq!(via_spec, via_format, "{name} --chunk-size {chunk}");
            assert!(via_spec.contains("tool_call_end"), "{via_spec}");
        }
    }
    // Every spec-able name prints a spec that reads back.
    for f in Format::all().filter(|f| Syntax::builtin(*f).is_some()) {
        let (code, spec, e) = toolstream(&["spec", f.name()], b"");
        assert_eq!(code, 0, "{e}");
        let path = dir.join(format!("{}.json", f.name()));
        std::fs::write(&path, &spec).unwrap();
        let (code, _, e) = toolstream(&["parse", "--syntax", path.to_str().unwrap()], b"text");
        assert_eq!(code, 0, "{}: {e}", f.name());
    }
    // A tokenizer_config.json holding a response_template.
    let config = json!({"tokenizer_class": "X", "eos_token": "<|im_end|>", "response_template": smollm_template()});
    let path = dir.join("tokenizer_config.json");
    std::fs::write(&path, config.to_string()).unwrap();
    let (code, out, e) = toolstream(
        &["parse", "--syntax", path.to_str().unwrap()],
        b"<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call><|im_end|>",
    );
    assert_eq!(code, 0, "{e}");
    assert!(
        out.contains("\"name\":\"f\"") && !out.contains("im_end"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cli_bad_spec_exits_2_naming_the_key() {
    let bad = json!({"version": 1, "fields": {"tool_calls": {"open": "<a>", "close_pattern": "</a>(?!b)",
        "content": "json", "transform": {"type": "function", "function": "{content}"}}}});
    let (code, out, e) = toolstream(
        &["parse", "--syntax", "-", "samples/hermes.txt"],
        bad.to_string().as_bytes(),
    );
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        e.contains(
            "fields.tool_calls.close_pattern: the negative lookahead (?!...) is not supported"
        ),
        "{e}"
    );
    let (code, _, e) = toolstream(&["parse", "--syntax", "-"], b"{}");
    assert_eq!(code, 2);
    assert!(e.contains("--syntax - reads the spec from stdin"), "{e}");
    let (code, _, e) = toolstream(
        &[
            "parse",
            "--syntax",
            "/nonexistent/spec.json",
            "samples/hermes.txt",
        ],
        b"",
    );
    assert_eq!(code, 2);
    assert!(e.contains("cannot read --syntax"), "{e}");
    let (code, _, e) = toolstream(&["parse", "--syntax", "x.json", "--format", "hermes"], b"");
    assert_eq!(code, 2, "{e}");
    for (name, why) in [
        ("mistral", "cannot be written as a spec yet"),
        ("harmony", "cannot be written as a spec yet"),
        ("openai-chat", "a provider's wire format, not a text syntax"),
    ] {
        let (code, out, e) = toolstream(&["spec", name], b"");
        assert_eq!(code, 2, "{name}");
        assert!(out.is_empty() && e.contains(why), "{e}");
    }
}

// ------------------------------------------------------------------ toolstream.xml: spellings, kinds, tags

/// `toolstream spec NAME`'s output, read back.
fn cli_spec(name: &str) -> (Value, Syntax) {
    let (code, text, e) = toolstream(&["spec", name], b"");
    assert_eq!(code, 0, "{name}: {e}");
    let json: Value = serde_json::from_str(&text).unwrap();
    let syntax = Syntax::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    (json, syntax)
}

#[test]
fn the_xml_builtins_with_spellings_kinds_and_tags_round_trip() {
    for (name, keys) in [
        ("deepseek-dsml", &["variants", "kind_attr", "json_body"][..]),
        (
            "kimi-k3",
            &[
                "kind_attr",
                "attrs_end",
                "json_block",
                "attr_entities",
                "json_body",
            ][..],
        ),
        ("minimax-m3", &["tag_params"][..]),
    ] {
        let (json, syntax) = cli_spec(name);
        let format: Format = name.parse().unwrap();
        assert_eq!(syntax, Syntax::builtin(format).unwrap(), "{name}");
        assert_eq!(syntax.to_json(), json, "{name}");
        let xml = &json["toolstream"]["xml"];
        for key in keys {
            assert!(xml.get(*key).is_some(), "{name}: {key} missing from {xml}");
        }
        // The older key is read, never written.
        assert!(xml.get("string_attr").is_none(), "{name}");
    }
    let (json, _) = cli_spec("deepseek-dsml");
    let xml = &json["toolstream"]["xml"];
    assert_eq!(xml["kind_attr"], "dsml-string");
    let variants = xml["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 3);
    assert_eq!(variants[0]["call_open"], "<｜DSML｜ invoke name=\"");
    assert_eq!(variants[1]["call_open"], "<｜｜DSML｜｜invoke name=\"");
    // The field lists every spelling's section tags, the top level's first.
    let open = &json["response_template"]["fields"]["tool_calls"]["open"];
    assert_eq!(open[0], "<｜DSML｜function_calls>");
    assert_eq!(open[4], "<｜DSML｜ calls>");
    assert_eq!(open.as_array().unwrap().len(), 11);
    let (json, _) = cli_spec("kimi-k3");
    assert_eq!(json["toolstream"]["xml"]["kind_attr"], "xtml-type");
    assert_eq!(json["toolstream"]["xml"]["attrs_end"], "<|sep|>");
    // A spec of an earlier version says DSML's kinds with string_attr: the same syntax.
    let (mut json, syntax) = cli_spec("deepseek-dsml");
    let xml = json["toolstream"]["xml"].as_object_mut().unwrap();
    xml.remove("kind_attr");
    xml.insert("string_attr".into(), json!(true));
    assert_eq!(Syntax::from_value(&json).unwrap(), syntax);
    // Both keys, agreeing: the same syntax too.
    json["toolstream"]["xml"]["kind_attr"] = json!("dsml-string");
    assert_eq!(Syntax::from_value(&json).unwrap(), syntax);
    // And a syntax without kinds reads `"string_attr": false` as `"kind_attr": "none"`.
    let (mut json, syntax) = cli_spec("qwen-xml");
    json["toolstream"]["xml"]["string_attr"] = json!(false);
    json["toolstream"]["xml"]["kind_attr"] = json!("none");
    assert_eq!(Syntax::from_value(&json).unwrap(), syntax);
}

/// The spec of `name` with `edit` applied to its `toolstream.xml`: the error's path and
/// message (it must be refused).
fn xml_refusal(name: &str, edit: impl Fn(&mut serde_json::Map<String, Value>)) -> (String, String) {
    let format: Format = name.parse().unwrap();
    let mut spec = Syntax::builtin(format).unwrap().to_json();
    edit(spec["toolstream"]["xml"].as_object_mut().unwrap());
    match Syntax::from_value(&spec) {
        Ok(_) => panic!("{name}: read {}", spec["toolstream"]["xml"]),
        Err(e) => (e.path().to_owned(), e.message().to_owned()),
    }
}

fn assert_refused(got: (String, String), path: &str, message: &str) {
    assert_eq!(got.0, path, "{got:?}");
    assert!(got.1.contains(message), "{got:?}\n  want: {message}");
}

#[test]
fn kind_attr_refusals_name_the_key() {
    assert_refused(
        xml_refusal("kimi-k3", |x| {
            x.insert("kind_attr".into(), json!(true));
        }),
        "toolstream.xml.kind_attr",
        "must be a string, not a boolean",
    );
    assert_refused(
        xml_refusal("kimi-k3", |x| {
            x.insert("kind_attr".into(), json!("xtml"));
        }),
        "toolstream.xml.kind_attr",
        "unknown value-kind attribute \"xtml\"",
    );
    // Both keys, disagreeing (either way).
    assert_refused(
        xml_refusal("kimi-k3", |x| {
            x.insert("string_attr".into(), json!(true));
        }),
        "toolstream.xml.kind_attr",
        "disagrees with string_attr",
    );
    assert_refused(
        xml_refusal("deepseek-dsml", |x| {
            x.insert("string_attr".into(), json!(false));
        }),
        "toolstream.xml.kind_attr",
        "disagrees with string_attr",
    );
    assert_refused(
        xml_refusal("deepseek-dsml", |x| {
            x.insert("string_attr".into(), json!("yes"));
        }),
        "toolstream.xml.string_attr",
        "must be true or false",
    );
    // Kinds are read from a quoted key's attributes.
    assert_refused(
        xml_refusal("qwen-xml", |x| {
            x.insert("kind_attr".into(), json!("xtml-type"));
        }),
        "toolstream.xml.kind_attr",
        "needs key_end \"quote\"",
    );
}

#[test]
fn attrs_end_refusals_name_the_key() {
    for (value, message) in [
        (json!(""), "must not be empty"),
        (json!(["<|sep|>"]), "must be a string"),
        (json!("|sep|"), "a tag beginning with '<'"),
    ] {
        assert_refused(
            xml_refusal("kimi-k3", |x| {
                x.insert("attrs_end".into(), value.clone());
            }),
            "toolstream.xml.attrs_end",
            message,
        );
    }
    // Attributes follow a quoted name or key only.
    assert_refused(
        xml_refusal("qwen-xml", |x| {
            x.insert("attrs_end".into(), json!("<|sep|>"));
        }),
        "toolstream.xml.attrs_end",
        "needs name_end or key_end \"quote\"",
    );
}

#[test]
fn json_block_refusals_name_the_key() {
    for value in [
        json!("<json>"),
        json!(["<json>"]),
        json!(["<json>", ""]),
        json!(["<json>", 1]),
    ] {
        assert_refused(
            xml_refusal("kimi-k3", |x| {
                x.insert("json_block".into(), value.clone());
            }),
            "toolstream.xml.json_block",
            "must be a pair [open tag, close tag] of non-empty strings",
        );
    }
    assert_refused(
        xml_refusal("kimi-k3", |x| {
            x.remove("json_body");
        }),
        "toolstream.xml.json_block",
        "need json_body: true",
    );
    assert_refused(
        xml_refusal("kimi-k3", |x| {
            x.insert("json_block".into(), json!(["json{", "}json"]));
        }),
        "toolstream.xml.json_block[0]",
        "must begin with '<'",
    );
}

#[test]
fn flag_refusals_name_the_key() {
    for key in ["attr_entities", "tag_params", "json_body"] {
        assert_refused(
            xml_refusal("kimi-k3", |x| {
                x.insert(key.into(), json!("true"));
            }),
            &format!("toolstream.xml.{key}"),
            "must be true or false, not a string",
        );
    }
}

#[test]
fn tag_params_refusals_name_the_key() {
    const NS: &str = "]<]minimax[>[<";
    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "key_end",
            json!("quote"),
            "toolstream.xml.key_end",
            "must be \"gt\" with tag_params",
        ),
        (
            "name_end",
            json!("gt"),
            "toolstream.xml.name_end",
            "must be \"quote\" with tag_params",
        ),
        (
            "call_open",
            json!(format!("{NS}call name=\"")),
            "toolstream.xml.call_open",
            "must be \"]<]minimax[>[<invoke name=\\\"\" with tag_params",
        ),
        (
            "call_close",
            json!(format!("{NS}/call>")),
            "toolstream.xml.call_close",
            "must be \"]<]minimax[>[</invoke>\" with tag_params",
        ),
        (
            "param_close",
            json!("</"),
            "toolstream.xml.param_close",
            "must be \"]<]minimax[>[</\" with tag_params",
        ),
        (
            "sections",
            json!([[format!("{NS}calls>"), format!("{NS}/calls>")]]),
            "toolstream.xml.sections[0]",
            "the section's tag is `tool_call`",
        ),
        (
            "kind_attr",
            json!("dsml-string"),
            "toolstream.xml.kind_attr",
            "",
        ),
        (
            "attrs_end",
            json!("<|sep|>"),
            "toolstream.xml.attrs_end",
            "must be \">\" with tag_params",
        ),
        (
            "json_body",
            json!(true),
            "toolstream.xml.json_body",
            "no JSON body",
        ),
    ];
    for (key, value, path, message) in cases {
        let got = xml_refusal("minimax-m3", |x| {
            x.insert(key.into(), value.clone());
        });
        assert_refused(got, path, message);
    }
    // Changing a section needs the field to say so too; the section check comes first.
    let format = Format::MiniMaxM3;
    let mut spec = Syntax::builtin(format).unwrap().to_json();
    spec["toolstream"]["xml"]["sections"] = json!([[format!("{NS}x>"), format!("{NS}/x>")]]);
    spec["response_template"]["fields"]["tool_calls"]["open"] = json!(format!("{NS}x>"));
    spec["response_template"]["fields"]["tool_calls"]["close"] = json!(format!("{NS}/x>"));
    let e = Syntax::from_value(&spec).unwrap_err();
    assert_eq!(e.path(), "toolstream.xml.sections[0]", "{e}");
}

#[test]
fn variants_refusals_name_the_key() {
    let dsml = |edit: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        xml_refusal("deepseek-dsml", |x| edit(x))
    };
    assert_refused(
        dsml(&|x| {
            x.insert("variants".into(), json!({"call_open": "<a"}));
        }),
        "toolstream.xml.variants",
        "must be a list of toolstream.xml objects (one per spelling), not an object",
    );
    assert_refused(
        dsml(&|x| {
            x.insert("variants".into(), json!([]));
        }),
        "toolstream.xml.variants",
        "must hold at least one spelling",
    );
    assert_refused(
        dsml(&|x| {
            x["variants"][1] = json!("<｜｜DSML｜｜invoke name=\"");
        }),
        "toolstream.xml.variants[1]",
        "must be an object, not a string",
    );
    // A variant is a whole spelling: its required keys are required.
    assert_refused(
        dsml(&|x| {
            x["variants"][1]
                .as_object_mut()
                .unwrap()
                .remove("call_open");
        }),
        "toolstream.xml.variants[1].call_open",
        "is required",
    );
    assert_refused(
        dsml(&|x| {
            x["variants"][2]["param_close"] = json!("");
        }),
        "toolstream.xml.variants[2].param_close",
        "must not be empty",
    );
    assert_refused(
        dsml(&|x| {
            x["variants"][0]["kind_attr"] = json!("string");
        }),
        "toolstream.xml.variants[0].kind_attr",
        "unknown value-kind attribute",
    );
    assert_refused(
        dsml(&|x| {
            x["variants"][0]["reasoning"] = json!([["<think>", "</think>"]]);
        }),
        "toolstream.xml.variants[0].reasoning",
        "unknown key",
    );
    // No nested variants.
    assert_refused(
        dsml(&|x| {
            let inner = x["variants"][2].clone();
            x["variants"][0]["variants"] = json!([inner]);
        }),
        "toolstream.xml.variants[0].variants",
        "no variants of its own",
    );
    // A spelling whose opener an earlier one has would never be read.
    assert_refused(
        dsml(&|x| {
            x["variants"][2]["sections"][0][0] = json!("<｜DSML｜ calls>");
        }),
        "toolstream.xml.variants[2].sections[0][0]",
        "already opens calls of an earlier spelling",
    );
    assert_refused(
        dsml(&|x| {
            // V4.1's bare invoke, spelled as the doubled-bar one's.
            x["variants"][0]["call_open"] = json!("<｜｜DSML｜｜invoke name=\"");
        }),
        "toolstream.xml.variants[1].call_open",
        "already opens calls of an earlier spelling",
    );
    // The field must list every spelling's tags, the top level's first.
    let mut spec = Syntax::builtin(Format::DeepSeekDsml).unwrap().to_json();
    let open = &mut spec["response_template"]["fields"]["tool_calls"]["open"];
    open.as_array_mut().unwrap().pop();
    let e = Syntax::from_value(&spec).unwrap_err();
    assert_eq!(e.path(), "response_template.fields.tool_calls.open", "{e}");
    assert!(
        e.message().contains("the top level's then each variant's"),
        "{e}"
    );
    let mut spec = Syntax::builtin(Format::DeepSeekDsml).unwrap().to_json();
    spec["response_template"]["fields"]["tool_calls"]["close"]
        .as_array_mut()
        .unwrap()
        .reverse();
    let e = Syntax::from_value(&spec).unwrap_err();
    assert_eq!(e.path(), "response_template.fields.tool_calls.close", "{e}");
}

/// A syntax no built-in has, written by hand: `<calls>` sections of `<call name="..">`
/// calls, and a second spelling `[[call name=".."]]` .. `[[/call]]` without sections,
/// whose parameters say their kind (`type="..."`) and whose attributes end at `|]]`.
fn two_spellings_spec() -> Value {
    json!({
        "response_template": {
            "version": 1,
            "fields": {
                "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
                "tool_calls": {
                    "open": ["<calls>", "[[call name=\""],
                    "close": ["</calls>", "[[/call]]"],
                    "content": "xml-inline"
                },
                "content": {"close": "<eot>", "content": "text"}
            }
        },
        "toolstream": {
            "name": "two-spellings",
            "xml": {
                "sections": [["<calls>", "</calls>"]],
                "call_open": "<call name=\"",
                "multi": true,
                "name_end": "quote",
                "call_close": "</call>",
                "param_open": "<arg name=\"",
                "key_end": "quote",
                "param_close": "</arg>",
                "variants": [{
                    "what": "[[call]]",
                    "call_open": "[[call name=\"",
                    "bare_calls": true,
                    "name_end": "quote",
                    "call_close": "[[/call]]",
                    "param_open": "[[arg key=\"",
                    "key_end": "quote",
                    "param_close": "[[/arg]]",
                    "kind_attr": "xtml-type",
                    "attrs_end": "<|]]"
                }]
            }
        }
    })
}

#[test]
fn a_hand_written_spec_with_variants_decodes_both_spellings() {
    let syntax = Syntax::from_value(&two_spellings_spec()).unwrap();
    assert_eq!(syntax.name(), "two-spellings");
    // Written back and read again: the same syntax.
    assert_eq!(Syntax::from_value(&syntax.to_json()).unwrap(), syntax);
    let input = "<think>plan</think>Sure. <calls>\n<call name=\"get_weather\">\n<arg name=\"city\">Paris</arg>\n<arg name=\"days\">3</arg>\n</call>\n</calls> and [[call name=\"search\" id=\"7\"<|]][[arg key=\"q\" type=\"string\"<|]]42[[/arg]][[arg key=\"n\" type=\"number\"<|]]5[[/arg]][[arg key=\"tag\"<|]][[/call]] literal <call name=\"x\"> [[call name=\"now\"<|]][[/call]] done<eot>";
    let ev = events(&syntax, input);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_weather", json!({"city": "Paris", "days": 3})),
            // The variant's kinds: `type="string"` (or none) a string, others JSON.
            call("call_1", "search", json!({"q": "42", "n": 5, "tag": ""})),
            call("call_2", "now", json!({})),
        ]
    );
    assert_eq!(
        text(&ev),
        "Sure.  and  literal <call name=\"x\">  done",
        "{ev:?}"
    );
    assert!(errors(&ev).is_empty(), "{ev:?}");
    let reasoning: String = ev
        .iter()
        .filter_map(|e| match e {
            Event::Reasoning { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, "plan");
    // A call of one spelling holding the other's opener: value text, not a new call.
    let ev = events(
        &syntax,
        "[[call name=\"f\"<|]][[arg key=\"a\"<|]]see <calls><call name=\"g\">[[/arg]][[/call]]",
    );
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "f",
            json!({"a": "see <calls><call name=\"g\">"})
        )]
    );
}

#[test]
fn cli_spec_file_of_the_new_xml_syntaxes_parses_like_the_format() {
    let dir = std::env::temp_dir().join(format!("toolstream-xmlspec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["kimi-k3", "minimax-m3", "deepseek-dsml"] {
        // `toolstream spec NAME > f; toolstream parse --syntax f SAMPLE`.
        let (code, spec, e) = toolstream(&["spec", name], b"");
        assert_eq!(code, 0, "{e}");
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, &spec).unwrap();
        let sample = format!("samples/{name}.txt");
        for chunk in ["1", "5", "100000"] {
            let (c1, via_spec, e1) = toolstream(
                &[
                    "parse",
                    "--syntax",
                    path.to_str().unwrap(),
                    "--chunk-size",
                    chunk,
                    &sample,
                ],
                b"",
            );
            let (c2, via_format, e2) = toolstream(
                &["parse", "--format", name, "--chunk-size", chunk, &sample],
                b"",
            );
            assert_eq!((c1, c2), (0, 0), "{e1} {e2}");
            assert_eq!(via_spec, via_format, "{name} --chunk-size {chunk}");
            assert!(via_spec.contains("tool_call_end"), "{name}: {via_spec}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// ------------------------------------------------------------------ transformers' own answers

/// `tests/spec/`: real templates, model outputs, and what transformers' `parse_response`
/// returns for each (`tests/spec/parse_response.py` wrote it).
fn spec_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spec")
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The events' text of a field as transformers gives its value: trimmed, unless the
/// template says `strip: false` (the events carry the region's bytes).
fn as_value(template: &Value, field: Option<&str>, events_text: &str) -> String {
    let strip =
        field.is_none_or(|f| template["fields"][f]["content_args"]["strip"] != Value::Bool(false));
    if strip {
        events_text.trim()
    } else {
        events_text
    }
    .to_owned()
}

#[test]
fn real_templates_agree_with_transformers() {
    let dir = spec_dir();
    let expected = read_json(&dir.join("expected.json"));
    let cases = read_json(&dir.join("cases.json"));
    let pairs = |v: &Value| -> Vec<(Value, Value)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| (c["template"].clone(), c["input"].clone()))
            .collect()
    };
    assert_eq!(
        pairs(&expected["cases"]),
        pairs(&cases),
        "tests/spec/expected.json is stale: run tests/spec/parse_response.py"
    );
    let mut failed = Vec::new();
    for case in expected["cases"].as_array().unwrap() {
        let name = case["template"].as_str().unwrap();
        let input = case["input"].as_str().unwrap();
        let message = &case["message"];
        assert!(message.get("error").is_none(), "{name}: {message}");
        let template = read_json(&dir.join("templates").join(format!("{name}.json")));
        let syntax = match Syntax::from_value(&template) {
            Ok(s) => s,
            Err(e) => {
                failed.push(format!("{name}: the template does not load: {e}"));
                continue;
            }
        };
        // What `toolstream spec`-style writing gives back reads to the same syntax.
        assert_eq!(
            Syntax::from_value(&syntax.to_json()).as_ref(),
            Ok(&syntax),
            "{name}"
        );
        let ev = events(&syntax, input);
        let reasoning_field = ["thinking", "reasoning_content", "reasoning"]
            .into_iter()
            .find(|f| template["fields"].get(*f).is_some());
        let theirs_calls: Vec<(String, Value)> = message["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                (
                    c["function"]["name"].as_str().unwrap().to_owned(),
                    c["function"]["arguments"].clone(),
                )
            })
            .collect();
        let got = (
            as_value(&template, reasoning_field, &reasoning(&ev)),
            as_value(&template, Some("content"), &text(&ev)),
            calls(&ev)
                .into_iter()
                .map(|c| (c.name, c.arguments))
                .collect::<Vec<_>>(),
            errors(&ev).len(),
        );
        let want = (
            reasoning_field
                .and_then(|f| message[f].as_str())
                .unwrap_or_default()
                .to_owned(),
            message["content"].as_str().unwrap_or_default().to_owned(),
            theirs_calls,
            0,
        );
        if got != want {
            failed.push(format!(
                "{name} on {input:?}:\n  toolstream   {got:?}\n  transformers {want:?}"
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} cases differ:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn the_new_readings_keep_split_invariance_on_slips() {
    use toolstream::ErrorKind::{InvalidArguments, InvalidJson, MissingName, Truncated};
    let dir = spec_dir();
    let template = |name: &str| {
        let t = read_json(&dir.join("templates").join(format!("{name}.json")));
        Syntax::from_value(&t).unwrap()
    };
    let q = "<|\"|>";
    let cut_gemma = format!("<|tool_call>call:f{{a:{q}x");
    let cut_second = "<|START_ACTION|>[{\"tool_name\": \"a\", \"parameters\": {\"x\": 1}}, {\"tool_name\": \"b\", \"parameters\": {";
    // (template, input, reasoning, text, calls, errors (kind, index, raw))
    type Case<'a> = (
        &'a str,
        &'a str,
        &'a str,
        &'a str,
        Vec<(&'a str, Value)>,
        Vec<(toolstream::ErrorKind, Option<usize>, &'a str)>,
    );
    let cases: Vec<Case> = vec![
        // string_delims: a cut string is the call's error, with its bytes.
        (
            "trl_lfm2_5",
            "<|tool_call_start|>[get_weather(city='Par",
            "",
            "",
            vec![],
            vec![(
                Truncated,
                Some(0),
                "<|tool_call_start|>[get_weather(city='Par",
            )],
        ),
        (
            "trl_lfm2_5",
            "<|tool_call_start|>[f(a=1), g(b=",
            "",
            "",
            vec![("f", json!({"a": 1}))],
            vec![(Truncated, Some(1), ", g(b=")],
        ),
        // A close inside a quoted value is the value's.
        (
            "trl_lfm2_5",
            "<|tool_call_start|>[f(a=')')]<|tool_call_end|>ok",
            "",
            "ok",
            vec![("f", json!({"a": ")"}))],
            vec![],
        ),
        (
            "trl_lfm2_5",
            "<|tool_call_start|>[f(a=1, a=2)]<|tool_call_end|>",
            "",
            "",
            vec![],
            vec![(
                InvalidArguments,
                Some(0),
                "<|tool_call_start|>[f(a=1, a=2)]<|tool_call_end|>",
            )],
        ),
        (
            "trl_lfm2_5",
            "say [f(a=1)] <|im_end|>",
            "",
            "say [f(a=1)] ",
            vec![],
            vec![],
        ),
        // The lookahead: no `</think>`, no reasoning; each `</think>` closes one.
        (
            "trl_nemotron_3",
            "no reasoning <tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
            "",
            "no reasoning ",
            vec![("f", json!({"a": 1}))],
            vec![],
        ),
        (
            "trl_nemotron_3",
            "a</think>b</think>c<|im_end|>",
            "ab",
            "c",
            vec![],
            vec![],
        ),
        ("trl_nemotron_3", "</think>", "", "", vec![], vec![]),
        ("trl_nemotron_3", "a</thi", "", "a</thi", vec![], vec![]),
        // Pattern closes on the gemma engine; the whitespace they eat is text there.
        (
            "trl_gemma4",
            &cut_gemma,
            "",
            "",
            vec![],
            vec![(Truncated, Some(0), &cut_gemma)],
        ),
        (
            "trl_gemma4",
            "<|tool_call>call:f{a:1}<tool_call|>  \n<|tool_call>call:g{}<tool_call|>",
            "",
            "  \n",
            vec![("f", json!({"a": 1})), ("g", json!({}))],
            vec![],
        ),
        (
            "trl_gemma4",
            "<|channel>thought\nhm<channel|> <turn|> ",
            "hm",
            "  ",
            vec![],
            vec![],
        ),
        // transform_each lists on the regions engine.
        (
            "transformers_cohere",
            cut_second,
            "",
            "",
            vec![("a", json!({"x": 1}))],
            vec![(
                Truncated,
                Some(1),
                "{\"tool_name\": \"b\", \"parameters\": {",
            )],
        ),
        (
            "transformers_cohere",
            "<|START_ACTION|>[{\"tool_name\": \"a\", \"parameters\": {\"x\": \"<|END_ACTION|>\"}}]<|END_ACTION|>",
            "",
            "",
            vec![("a", json!({"x": "<|END_ACTION|>"}))],
            vec![],
        ),
        (
            "transformers_cohere",
            "<|START_ACTION|>{\"tool_name\": \"a\", \"parameters\": {}}<|END_ACTION|>",
            "",
            "",
            vec![("a", json!({}))],
            vec![],
        ),
        (
            "transformers_cohere",
            "<|START_ACTION|>[1, {\"tool_name\": \"b\", \"parameters\": {}}]<|END_ACTION|>",
            "",
            "",
            vec![],
            vec![(
                InvalidJson,
                None,
                "<|START_ACTION|>[1, {\"tool_name\": \"b\", \"parameters\": {}}]<|END_ACTION|>",
            )],
        ),
        (
            "transformers_cohere",
            "<|START_ACTION|>[{\"parameters\": {}}, {\"tool_name\": \"b\", \"parameters\": {}}]<|END_ACTION|>",
            "",
            "",
            vec![("b", json!({}))],
            vec![(MissingName, None, "<|START_ACTION|>[{\"parameters\": {}}")],
        ),
        // No tool_calls field; join between regions (an empty last one too).
        (
            "transformers_reasoning_join",
            "<think>a",
            "a",
            "",
            vec![],
            vec![],
        ),
        (
            "transformers_reasoning_join",
            "</think>x<think>y</think><think>",
            "y ",
            "</think>x",
            vec![],
            vec![],
        ),
        // No leftover field: `^` opens the reasoning at the start.
        (
            "transformers_ernie",
            "plain text, no field opened",
            "plain text, no field opened",
            "",
            vec![],
            vec![],
        ),
    ];
    for (name, input, want_reasoning, want_text, want_calls, want_errors) in cases {
        let ev = events(&template(name), input);
        let got_calls: Vec<(String, Value)> = calls(&ev)
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect();
        let want_calls: Vec<(String, Value)> = want_calls
            .into_iter()
            .map(|(n, a)| (n.to_owned(), a))
            .collect();
        let want_errors: Vec<(toolstream::ErrorKind, Option<usize>, String)> = want_errors
            .into_iter()
            .map(|(k, i, r)| (k, i, r.to_owned()))
            .collect();
        assert_eq!(
            (reasoning(&ev), text(&ev), got_calls, kinds(&ev)),
            (
                want_reasoning.to_owned(),
                want_text.to_owned(),
                want_calls,
                want_errors
            ),
            "{name} on {input:?}"
        );
    }
}

#[test]
fn expected_json_is_what_transformers_returns() {
    // The equality above is checked against transformers itself, when it is here.
    let Some(python) = std::env::var_os("TOOLSTREAM_TRANSFORMERS_PYTHON") else {
        println!(
            "SKIPPED: set TOOLSTREAM_TRANSFORMERS_PYTHON to a Python that has transformers \
             (pip install --no-deps transformers, then its light dependencies: see \
             tests/spec/parse_response.py) to check tests/spec/expected.json against it"
        );
        return;
    };
    let out = Command::new(python)
        .arg(spec_dir().join("parse_response.py"))
        .arg("--check")
        .output()
        .expect("run tests/spec/parse_response.py");
    assert!(
        out.status.success(),
        "tests/spec/expected.json is not what transformers returns:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `toolstream.xml.headers` (Muse's recipient headers): read strictly, each refusal
/// naming its key; the top level's only.
#[test]
fn header_refusals_name_the_key() {
    let muse =
        |edit: &dyn Fn(&mut serde_json::Map<String, Value>)| xml_refusal("muse", |x| edit(x));
    assert_refused(
        muse(&|x| {
            x.insert("headers".into(), json!([" to=", "<|message|>"]));
        }),
        "toolstream.xml.headers",
        "must be an object, not a list",
    );
    assert_refused(
        muse(&|x| {
            x["headers"].as_object_mut().unwrap().remove("end");
        }),
        "toolstream.xml.headers.end",
        "is required",
    );
    assert_refused(
        muse(&|x| {
            x["headers"]["open"] = json!([]);
        }),
        "toolstream.xml.headers.open",
        "must hold at least one literal",
    );
    assert_refused(
        muse(&|x| {
            x["headers"]["recipients"] = json!(["self"]);
        }),
        "toolstream.xml.headers.recipients",
        "unknown key",
    );
    assert_refused(
        xml_refusal("deepseek-dsml", |x| {
            x["variants"][0]["headers"] = json!({"open": ["to="], "end": "<|message|>"});
        }),
        "toolstream.xml.variants[0].headers",
        "the top level's only",
    );
}
