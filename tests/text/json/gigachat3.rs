//! `gigachat3`: GigaChat 3 `function call<|role_sep|>\n{..}` and GigaChat 3.1
//! `<|function_call|>{..}` (vLLM's `gigachat3` parser reads both; the 3.1 form has no
//! newline and no close marker, and a trailing `</s>` when special tokens are kept).
//! Exact events at every chunking and every prefix ([`crate::exact`]); the generated
//! tables of `tables.rs` run both markers too.

use crate::exact::*;
use serde_json::json;
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::Format;

const NESTED: &str = r#"{"q": "é 😀 \"quoted\" \\ \n line", "n": {"a": [1, -2.5e3, {"b": null}]}, "u": "\u00e9\ud83d\ude00", "t": true}"#;

fn v31(name: &str, args: &str) -> String {
    format!(r#"<|function_call|>{{"name": "{name}", "arguments": {args}}}"#)
}

#[test]
fn gigachat31_fixtures() {
    let w = r#"{"city": "Paris"}"#;
    check_fixtures(
        Format::GigaChat3,
        &[
            fx(
                "single",
                v31("get_weather", w),
                vec![call(0, "get_weather", w)],
            ),
            fx(
                "text before, the end-of-sequence token after",
                format!("Let me check.{}</s>", v31("get_weather", w)),
                vec![one(t("Let me check.")), call(0, "get_weather", w)],
            ),
            fx(
                "several calls",
                format!("{}{}", v31("a", "{}"), v31("b", r#"{"x": [1]}"#)),
                vec![call(0, "a", "{}"), call(1, "b", r#"{"x": [1]}"#)],
            ),
            fx(
                "text after a call",
                format!("{} Done.", v31("f", "{}")),
                vec![call(0, "f", "{}"), one(t(" Done."))],
            ),
            fx(
                "nested, unicode and escaped values",
                format!("Weather: {}</s>", v31("edit_file", NESTED)),
                vec![one(t("Weather: ")), call(0, "edit_file", NESTED)],
            ),
            fx(
                "empty arguments",
                v31("now", "{}"),
                vec![call(0, "now", "{}")],
            ),
            fx(
                "no arguments member",
                r#"<|function_call|>{"name": "now"}</s>"#,
                vec![call(0, "now", "{}")],
            ),
            fx(
                "</s> inside an argument string is content",
                v31("say", r#"{"s": "a</s>b"}"#),
                vec![call(0, "say", r#"{"s": "a</s>b"}"#)],
            ),
            fx(
                "a unicode name, no space",
                r#"<|function_call|>{"name":"wetter_abfragen","arguments":{"ort":"Zürich ☀"}}"#,
                vec![call(0, "wetter_abfragen", r#"{"ort":"Zürich ☀"}"#)],
            ),
            fx(
                "GigaChat 3's marker beside it",
                format!(
                    "A<|message_sep|>\n\nfunction call<|role_sep|>\n{{\"name\": \"f\", \"arguments\": {{}}}}{}",
                    v31("g", "{}")
                ),
                vec![one(t("A\n\n")), call(0, "f", "{}"), call(1, "g", "{}")],
            ),
            fx(
                "a literal marker in prose",
                "Write <|function_call|> then a JSON object.",
                vec![one(t("Write <|function_call|> then a JSON object."))],
            ),
            fx(
                "truncated inside the arguments",
                r#"Hi <|function_call|>{"name": "f", "arguments": {"a": "x"#,
                vec![
                    one(t("Hi ")),
                    one(start(0, "f")),
                    one(args(0, r#"{"a": "x"#)),
                    one(err(
                        Cut,
                        Some(0),
                        r#"<|function_call|>{"name": "f", "arguments": {"a": "x"#,
                    )),
                ],
            ),
            fx(
                "truncated inside the name",
                r#"<|function_call|>{"name": "get_we"#,
                vec![one(err(Cut, None, r#"<|function_call|>{"name": "get_we"#))],
            ),
            fx(
                "malformed arguments, a later call counts",
                format!(
                    r#"<|function_call|>{{"name": "f", "arguments": {{"a": x}}}} then {}"#,
                    v31("ok", "{}")
                ),
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a": "#)),
                    one(err(
                        Bad,
                        Some(0),
                        r#"<|function_call|>{"name": "f", "arguments": {"a": x}}"#,
                    )),
                    one(t(" then ")),
                    call(1, "ok", "{}"),
                ],
            ),
        ],
    );
}

#[test]
fn gigachat31_start_in_the_feed_that_settles_the_name() {
    crate::common::assert_start_at(
        Format::GigaChat3,
        &v31("get_weather", r#"{"city": "Paris"}"#),
        "\"get_weather\"",
    );
    let ev = crate::common::run_whole(&make(Format::GigaChat3), v31("f", r#"{"a": 1}"#).as_bytes());
    assert_eq!(crate::common::calls(&ev)[0].arguments, json!({"a": 1}));
}

/// `gigachat3`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::GigaChat3,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "Afunction call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
                    vec![one(t("A")), call(0, "f", r#"{"a": 1}"#)],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1",
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": x}} after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": x}}",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal function call<|role_sep|> tag.",
                    vec![one(t("Use a literal function call<|role_sep|> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                not_applicable(crate::universal::NO_CLOSING_MARKER),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1function call<|role_sep|>\n{\"name\": \"g\", \"arguments\": {}}",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1",
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {}, \"arguments\": {}}",
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            ErrorKind::TrailingArguments,
                            None,
                            r#", "arguments": {}}"#,
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                not_applicable(crate::universal::JSON_STRING_NAME),
            ),
        ],
    }
}

/// `gigachat3`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "gigachat3",
            "3.1: opener between JSON tokens",
            r#"<|function_call|>{"name": "f", "arguments": {"a": 1<|function_call|>{"name": "g", "arguments": {}}"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|function_call|>{"name": "f", "arguments": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "gigachat3",
            "3.1: special-token opener inside a JSON string",
            r#"<|function_call|>{"name": "f", "arguments": {"a": "x<|function_call|>{"name": "g", "arguments": {}}"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|function_call|>{"name": "f", "arguments": {"a": "x"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "gigachat3",
            "3.1: an undefined member instead of the arguments",
            r#"<|function_call|>{"name": "delete_files", "args": {"p": 1}}</s>"#,
            [
                start(0, "delete_files"),
                err(
                    Member,
                    Some(0),
                    r#"<|function_call|>{"name": "delete_files", "args": {"p": 1}}"#
                ),
            ],
        ),
        fx!(
            "gigachat3",
            "3.1: a duplicate \"arguments\"",
            r#"<|function_call|>{"name": "f", "arguments": {"a": 1}, "arguments": {"a": 2}}"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(Trailing, None, r#", "arguments": {"a": 2}}"#),
            ],
        ),
        fx!(
            "gigachat3",
            "3.1: a raw tab in a string",
            "<|function_call|>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ty\"}}</s>",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<|function_call|>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ty\"}}"
                ),
            ],
        ),
        fx!(
            "gigachat3",
            "3.1: whitespace before the marker is text",
            "A  \n<|function_call|>{\"name\": \"f\", \"arguments\": {}}</s>",
            [t("A  \n"), call(0, "f", "{}")],
        ),
    ]
}

/// The texts generated text must not hold (its markers, tags, tokens).
const GIGACHAT3_RESERVED: &[&str] = &[
    "function call<|role_sep|>",
    "<|function_call|>",
    "<|message_sep|>",
    "</s>",
    "<think>",
    "</think>",
];

/// `gigachat3` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[
    crate::json::tables::Syn {
        format: toolstream::Format::GigaChat3,
        open: "function call<|role_sep|>",
        close: None,
        payload: crate::json::tables::Payload::Object,
        name: Some("name"),
        args: "arguments",
        id: None,
        reserved: GIGACHAT3_RESERVED,
    },
    crate::json::tables::Syn {
        format: toolstream::Format::GigaChat3,
        open: "<|function_call|>",
        close: None,
        payload: crate::json::tables::Payload::Object,
        name: Some("name"),
        args: "arguments",
        id: None,
        reserved: GIGACHAT3_RESERVED,
    },
];

/// Reasoning wrappers and end-of-turn tokens around calls (from `json/tables.rs`).
#[test]
fn gigachat3_reasoning_wrappers_and_end_of_turn_tokens() {
    crate::json::tables::check_wrappers(&[(
        toolstream::Format::GigaChat3,
        "Calling.<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {}}",
        "",
        "Calling.\n\n",
        1,
    )]);
}
