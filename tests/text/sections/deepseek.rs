//! `deepseek`: V3 fenced and V3.1 calls, malformed and truncated, at every chunking; the
//! engine's recovery rules (a begin token in a head, on a fence line, after a broken name),
//! for `kimi-k2` too. Every run here also runs from the syntax's spec (`exact::split`).

use crate::common::*;
use crate::exact::split;
use serde_json::json;
use toolstream::{ErrorKind, Format};

#[test]
fn deepseek_v3_fenced_calls() {
    let input = "<think>\nweather?\n</think>\n\nLet me check ☀.\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_wéather\n```json\n{\"city\": \"Zürich\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>now\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>";
    let ev = split(Format::DeepSeek, input);
    assert_eq!(reasoning(&ev), "weather?");
    assert_eq!(text(&ev), "Let me check ☀.\n\n");
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_wéather", json!({"city": "Zürich"})),
            call("call_1", "now", json!({}))
        ]
    );
    assert_eq!(args_text(&ev, 0), "{\"city\": \"Zürich\"}");
    assert!(errors(&ev).is_empty(), "{ev:?}");
    assert_start_at(Format::DeepSeek, input, "get_wéather\n");
}

#[test]
fn deepseek_v31_calls() {
    let input = "Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"東京\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{\"x\": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜> done";
    let ev = split(Format::DeepSeek, input);
    assert_eq!(text(&ev), "Sure. done");
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "get_weather", json!({"city": "東京"})),
            call("call_1", "function", json!({"x": 1}))
        ]
    );
    assert_start_at(Format::DeepSeek, input, "get_weather<｜tool▁sep｜>");
}

#[test]
fn deepseek_malformed_and_truncated() {
    let input = "<｜tool▁call▁begin｜>get_weather{\"a\": 1}<｜tool▁call▁end｜>x";
    let ev = split(Format::DeepSeek, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::MissingName,
            None,
            input.trim_end_matches('x').into()
        )]
    );
    assert_eq!(text(&ev), "x");
    let input = "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": nope}<｜tool▁call▁end｜>";
    let ev = split(Format::DeepSeek, input);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::InvalidArguments, Some(0), input.into())]
    );
    let input =
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": \"é";
    let ev = split(Format::DeepSeek, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::Truncated,
            Some(0),
            input.trim_start_matches(CALLS_BEGIN).into()
        )]
    );
    // A partial marker at the end is text.
    let ev = split(Format::DeepSeek, "a <｜tool▁ca");
    assert_eq!(text(&ev), "a <｜tool▁ca");
}

const CALLS_BEGIN: &str = "<｜tool▁calls▁begin｜>";

/// A V3 name running into a token: the call is malformed up to the token, and a call's
/// begin token there starts the next call, whole as byte by byte (the name once took
/// the rest of a piece, token and next call with it, when it came in one piece).
#[test]
fn deepseek_v3_name_into_a_token() {
    let broken = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>s";
    let next = "<｜tool▁call▁begin｜>g<｜tool▁sep｜>{\"b\": 2}<｜tool▁call▁end｜>";
    let input = format!("{broken}{CALLS_BEGIN}{next}<｜tool▁calls▁end｜>");
    let ev = split(Format::DeepSeek, &input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::MissingName,
            None,
            format!("{broken}{CALLS_BEGIN}")
        )]
    );
    assert_eq!(calls(&ev), vec![call("call_0", "g", json!({"b": 2}))]);
    assert_eq!(text(&ev), "");
    // Other text with `<` in the name: malformed through the call's end token.
    let input =
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>a<b>\n```json\n{}\n```<｜tool▁call▁end｜>x";
    let ev = split(Format::DeepSeek, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::MissingName,
            None,
            input.trim_end_matches('x').into()
        )]
    );
    assert_eq!(text(&ev), "x");
}

/// A begin token inside a call's head (before its separator) ends that call as a
/// `truncated` error with its own bytes and starts the next one: no call is named with
/// another call's token (it once gave a call named `foo<｜tool▁call▁begin｜>g`).
#[test]
fn a_begin_token_in_a_head_starts_the_next_call() {
    let input =
        "<｜tool▁call▁begin｜>foo<｜tool▁call▁begin｜>g<｜tool▁sep｜>{}<｜tool▁call▁end｜> ok";
    let ev = split(Format::DeepSeek, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::Truncated,
            None,
            "<｜tool▁call▁begin｜>foo".into()
        )]
    );
    assert_eq!(calls(&ev), vec![call("call_0", "g", json!({}))]);
    assert_eq!(text(&ev), " ok");
    // Kimi K2: the head is the model's id; the same rule.
    let input = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_calls_section_end|>";
    let ev = split(Format::KimiK2, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::Truncated,
            None,
            "<|tool_call_begin|>functions.f:0".into()
        )]
    );
    assert_eq!(
        calls(&ev),
        vec![call("functions.g:1", "g", json!({"a": 1}))]
    );
}

/// A begin token on the fence line (before the JSON) is the next call, not part of this
/// one's fence: the call never completes with the next call's arguments.
#[test]
fn a_begin_token_on_the_fence_line_starts_the_next_call() {
    let input = "<｜tool▁call▁begin｜>f<｜tool▁sep｜>```json<｜tool▁call▁begin｜>g<｜tool▁sep｜>{\"b\": 2}<｜tool▁call▁end｜>";
    let ev = split(Format::DeepSeek, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::Truncated,
            Some(0),
            "<｜tool▁call▁begin｜>f<｜tool▁sep｜>```json".into()
        )]
    );
    assert_eq!(calls(&ev), vec![call("call_1", "g", json!({"b": 2}))]);
    // The JSON on the fence's own line still reads.
    let input = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json {\"a\": \"<b>\"}```<｜tool▁call▁end｜>";
    let ev = split(Format::DeepSeek, input);
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"a": "<b>"}))]);
    assert!(errors(&ev).is_empty(), "{ev:?}");
}

#[test]
fn a_name_glued_to_the_fence_is_an_error_not_a_name() {
    // Issue 33: a lost line break made `tool_x```json` the name of a call. A backtick
    // in a V3 name is no name: the call is an error with its bytes; the next counts.
    let bad = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>tool_x```json\n{\"a\": 1}\n```<｜tool▁call▁end｜>";
    let input = format!(
        "<｜tool▁calls▁begin｜>{bad}<｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{{}}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜> ok"
    );
    let ev = crate::exact::split(Format::DeepSeek, &input);
    assert_eq!(
        crate::common::calls(&ev),
        vec![crate::common::call("call_0", "g", serde_json::json!({}))]
    );
    assert_eq!(
        crate::common::kinds(&ev),
        vec![(toolstream::ErrorKind::MissingName, None, bad.into())]
    );
    assert_eq!(crate::common::text(&ev), " ok");
}

/// `deepseek`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::DeepSeek,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜> B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a": 1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1",
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"Hi <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": x}<｜tool▁call▁end｜><｜tool▁calls▁end｜> after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": x}<｜tool▁call▁end｜>"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <｜tool▁calls▁begin｜> tag.",
                    vec![one(t("Use a literal  tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample("done<｜tool▁calls▁end｜> ok", vec![one(t("done ok"))]),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1<｜tool▁call▁begin｜>g<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                not_applicable(crate::universal::ONE_NAME_ONE_ARGUMENTS),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get weather" x<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"#,
                    vec![one(err(
                        ErrorKind::MissingName,
                        None,
                        r#"<｜tool▁call▁begin｜>get weather" x<｜tool▁sep｜>{}<｜tool▁call▁end｜>"#,
                    ))],
                ),
            ),
        ],
    }
}

/// `deepseek`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "deepseek",
            "'<' and a token prefix inside a string are content",
            r#"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": "a<b <｜tool▁call <<｜tool▁sep｜>"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"#,
            [call(0, "f", r#"{"a": "a<b <｜tool▁call <<｜tool▁sep｜>"}"#)],
        ),
        fx!(
            "deepseek",
            "call-begin token between JSON tokens",
            r#"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1<｜tool▁call▁begin｜>g<｜tool▁sep｜>{"b": 2}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1"#
                ),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "deepseek",
            "call-begin token inside a JSON string",
            r#"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": "x<｜tool▁call▁begin｜>g<｜tool▁sep｜>{"b": 2}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Cut,
                    Some(0),
                    r#"<｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": "x"#
                ),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "deepseek",
            "a raw tab in a string",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": \"x\ty\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": \"x\ty\"}<｜tool▁call▁end｜>"
                ),
            ],
        ),
        fx!(
            "deepseek",
            "text between calls keeps its spaces; a fence on the JSON's line",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json {\"a\": 1}```<｜tool▁call▁end｜> B <｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{\"b\": 2}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            [
                call(0, "f", r#"{"a": 1}"#),
                t(" B "),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "deepseek",
            "a fence on its own lines (today's shape)",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{\"b\": 2}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", r#"{"b": 2}"#)]
        ),
    ]
}

#[test]
fn a_junk_name_is_an_error_not_a_call() {
    // Issue 33: a V3 name line `get_weather index=` (an attribute lost into it) made a
    // call of that name. A name holding a space, a quote or `=` is no name: the call is
    // an error with its bytes; the next call counts.
    let bad = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather index=\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜>";
    let input = format!(
        "<｜tool▁calls▁begin｜>{bad}<｜tool▁call▁begin｜>function<｜tool▁sep｜>g\n```json\n{{}}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜> ok"
    );
    let ev = crate::exact::split(Format::DeepSeek, &input);
    assert_eq!(
        crate::common::calls(&ev),
        vec![crate::common::call("call_0", "g", serde_json::json!({}))]
    );
    assert_eq!(
        crate::common::kinds(&ev),
        vec![(toolstream::ErrorKind::MissingName, None, bad.into())]
    );
    assert_eq!(crate::common::text(&ev), " ok");
}

/// The `spec` fuzz target's finding (CI, session 16: the sections engine with DeepSeek's
/// head): whitespace and a line break between `function<｜tool▁sep｜>` and a V3 name were
/// the name line when fed whole (no name: an error) but skipped when they came in pieces
/// (a call). They are skipped whatever the chunking, as before a V3.1 `{`: the name is on
/// the next line.
#[test]
fn whitespace_and_a_line_break_before_a_v3_name_at_every_split() {
    let found = ",<｜tool▁call▁begin｜>function<｜tool▁sep｜>          \n �\n```json\n}";
    let ev = split(Format::DeepSeek, found);
    assert_eq!(text(&ev), ",");
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::InvalidArguments,
            Some(0),
            found.trim_start_matches(',').into()
        )]
    );
    let input = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>  \nget_weather\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
    let ev = split(Format::DeepSeek, input);
    assert_eq!(calls(&ev), vec![call("call_0", "get_weather", json!({"a": 1}))]);
}
