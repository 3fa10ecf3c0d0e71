//! `ParserConfig::calls_in_reasoning` (issue 22 Build 4): Qwen 3.5 and Nemotron write a
//! whole call before `</think>` (vllm#39056, #42021). With the option the call is
//! extracted and the reasoning around it stays reasoning; without it (the default) the
//! call is reasoning text, byte for byte. Each fixture runs whole, byte by byte, at every
//! split point and 40 random splits, and keeps the event contract.

use serde_json::json;
use toolstream::{Event, Format, Parser, ParserConfig};

use crate::common::{assert_split_invariant, calls, reasoning, text};

struct Fixture {
    name: &'static str,
    format: Format,
    input: &'static str,
    /// The marker that opens the call in `input`.
    marker: &'static str,
    /// Options besides `calls_in_reasoning`.
    open: bool,
    /// (name, arguments) of the calls extracted with the option.
    calls: &'static [(&'static str, &'static str)],
    /// Reasoning and text with the option.
    reasoning: &'static str,
    text: &'static str,
}

const FIXTURES: &[Fixture] = &[
    Fixture {
        name: "qwen3.5 XML call before </think> (vllm#39056)",
        format: Format::QwenXml,
        input: "<think>\nThe answer is 204.\n<tool_call>\n<function=Finish>\n<parameter=answer>\n204\n</parameter>\n</function>\n</tool_call>\n</think>\n\n",
        marker: "<tool_call>",
        open: false,
        calls: &[("Finish", r#"{"answer": 204}"#)],
        reasoning: "The answer is 204.\n",
        text: "",
    },
    Fixture {
        name: "qwen3.5 thinking template: <think> in the prompt, two calls, text after",
        format: Format::QwenXml,
        input: "Check both.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nTōkyō\n</parameter>\n</function>\n</tool_call>\nWaiting.</think>\n\nOn it.",
        marker: "<tool_call>",
        open: true,
        calls: &[
            ("get_weather", r#"{"city": "Paris"}"#),
            ("get_weather", r#"{"city": "Tōkyō"}"#),
        ],
        reasoning: "Check both.\n\n\nWaiting.",
        text: "On it.",
    },
    Fixture {
        name: "hermes JSON call inside <think>, reasoning on both sides",
        format: Format::Hermes,
        input: "<think>I need the weather <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": [1, 2]}}\n</tool_call> then answer.</think>It is sunny.",
        marker: "<tool_call>",
        open: false,
        calls: &[("get_weather", r#"{"city": "Paris", "days": [1, 2]}"#)],
        reasoning: "I need the weather  then answer.",
        text: "It is sunny.",
    },
    Fixture {
        name: "hermes: a call inside and a call after reasoning",
        format: Format::Hermes,
        input: "<think>a<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>b</think>c<tool_call>{\"name\": \"g\", \"arguments\": {\"x\": 1}}</tool_call>",
        marker: "<tool_call>",
        open: false,
        calls: &[("f", "{}"), ("g", r#"{"x": 1}"#)],
        reasoning: "ab",
        text: "c",
    },
    Fixture {
        name: "hermes: a marker in reasoning prose that opens no call stays reasoning",
        format: Format::Hermes,
        input: "<think>Models write <tool_call> tags. Then a real one:<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call></think>ok",
        marker: "<tool_call>",
        open: false,
        calls: &[("f", "{}")],
        reasoning: "Models write <tool_call> tags. Then a real one:",
        text: "ok",
    },
    Fixture {
        name: "nemotron <TOOLCALL> list inside <think>",
        format: Format::Nemotron,
        input: "<think>\nLet me search.\n<TOOLCALL>[{\"name\": \"search\", \"arguments\": {\"q\": \"rust\"}}, {\"name\": \"open\", \"arguments\": {\"id\": 3}}]</TOOLCALL>\n</think>\n\nFound it.",
        marker: "<TOOLCALL>",
        open: false,
        calls: &[("search", r#"{"q": "rust"}"#), ("open", r#"{"id": 3}"#)],
        reasoning: "Let me search.\n",
        text: "Found it.",
    },
    Fixture {
        name: "nemotron with reasoning_open",
        format: Format::Nemotron,
        input: "Plan.<TOOLCALL>[{\"name\": \"f\", \"arguments\": {}}]</TOOLCALL></think>Done.",
        marker: "<TOOLCALL>",
        open: true,
        calls: &[("f", "{}")],
        reasoning: "Plan.",
        text: "Done.",
    },
];

fn config(f: &Fixture, on: bool) -> ParserConfig {
    ParserConfig::new()
        .reasoning_open(f.open)
        .calls_in_reasoning(on)
}

#[test]
fn calls_inside_reasoning_are_extracted_with_the_option() {
    for f in FIXTURES {
        let make = || Parser::with_config(f.format, config(f, true));
        let ev = assert_split_invariant(&make, f.input.as_bytes(), 40);
        let got: Vec<(String, serde_json::Value)> = calls(&ev)
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect();
        let want: Vec<(String, serde_json::Value)> = f
            .calls
            .iter()
            .map(|(n, a)| ((*n).to_owned(), serde_json::from_str(a).unwrap()))
            .collect();
        assert_eq!(got, want, "{}: {ev:?}", f.name);
        assert_eq!(reasoning(&ev), f.reasoning, "{}", f.name);
        assert_eq!(text(&ev), f.text, "{}", f.name);
        assert!(
            !ev.iter().any(|e| matches!(e, Event::Error { .. })),
            "{}: {ev:?}",
            f.name
        );
    }
}

#[test]
fn without_the_option_calls_inside_reasoning_are_reasoning() {
    for f in FIXTURES
        .iter()
        .filter(|f| !f.input.contains("</think>c<tool_call>"))
    {
        let make = || Parser::with_config(f.format, config(f, false));
        let ev = assert_split_invariant(&make, f.input.as_bytes(), 10);
        assert!(calls(&ev).is_empty(), "{}: {ev:?}", f.name);
        // The call's bytes are in the reasoning, as the model wrote them.
        let r = reasoning(&ev);
        assert!(r.contains(f.marker), "{}: {r:?}", f.name);
        assert_eq!(text(&ev), f.text, "{}", f.name);
    }
}

#[test]
fn a_call_cut_off_inside_reasoning_is_truncated_with_its_bytes() {
    let input = "<think>x<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": ";
    let make = || Parser::with_config(Format::Hermes, ParserConfig::new().calls_in_reasoning(true));
    let ev = assert_split_invariant(&make, input.as_bytes(), 20);
    assert_eq!(reasoning(&ev), "x");
    let raw: Vec<&str> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Error {
                index: Some(0),
                raw,
                ..
            } => Some(raw.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        raw,
        ["<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": "]
    );
}

#[test]
fn the_option_changes_nothing_outside_reasoning() {
    for (format, input) in [
        (
            Format::Hermes,
            "Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call> bye",
        ),
        (
            Format::QwenXml,
            "Hi <tool_call><function=f><parameter=a>1</parameter></function></tool_call> bye",
        ),
        (
            Format::Nemotron,
            "Hi <TOOLCALL>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</TOOLCALL> bye",
        ),
    ] {
        let off = assert_split_invariant(
            &|| Parser::with_config(format, ParserConfig::new()),
            input.as_bytes(),
            5,
        );
        let on = assert_split_invariant(
            &|| Parser::with_config(format, ParserConfig::new().calls_in_reasoning(true)),
            input.as_bytes(),
            5,
        );
        assert_eq!(on, off, "{format:?}");
        assert_eq!(calls(&on)[0].arguments, json!({"a": 1}), "{format:?}");
    }
}
