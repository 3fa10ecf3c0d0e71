//! `hermes`: own fixtures at every chunking (from the marker syntaxes' shared file).

use crate::common;
use crate::common::*;
use crate::exact::split;
use serde_json::json;
use toolstream::{ErrorKind, Event, Format};

#[test]
fn hermes_several_calls_text_around_non_ascii() {
    let input = "Déjà vu 😀 <b> [x]\n<tool_call>\n{\"name\": \"get_wéather\", \"arguments\": {\"city\": \"Zürich 😀\", \"n\": [1, 2.5]}}\n</tool_call>\n<tool_call>{\"name\":\"t\",\"arguments\":{}}</tool_call> after ✓";
    let ev = split(Format::Hermes, input);
    assert_eq!(text(&ev), "Déjà vu 😀 <b> [x]\n\n after ✓");
    assert_eq!(
        calls(&ev),
        vec![
            call(
                "call_0",
                "get_wéather",
                json!({"city": "Zürich 😀", "n": [1, 2.5]})
            ),
            call("call_1", "t", json!({})),
        ]
    );
    // The model's own argument bytes.
    assert_eq!(
        args_text(&ev, 0),
        "{\"city\": \"Zürich 😀\", \"n\": [1, 2.5]}"
    );
    assert_start_at(Format::Hermes, input, "\"get_wéather\"");
}

#[test]
fn hermes_parameters_key_id_and_arguments_before_name() {
    let input = "<tool_call>{\"id\": \"c1\", \"parameters\": {\"q\": \"a}b\"}, \"name\": \"search\"}</tool_call>";
    let ev = split(Format::Hermes, input);
    assert_eq!(calls(&ev), vec![call("c1", "search", json!({"q": "a}b"}))]);
    assert!(text(&ev).is_empty());
}

#[test]
fn hermes_no_arguments_gets_empty_object_and_no_closing_tag() {
    let ev = split(Format::Hermes, "<tool_call>{\"name\": \"now\"}");
    assert_eq!(calls(&ev), vec![call("call_0", "now", json!({}))]);
    // Missing </tool_call> followed by text: the text is text again.
    let ev = split(
        Format::Hermes,
        "<tool_call>{\"name\": \"a\", \"arguments\": {\"x\": 1}} then </tool_x",
    );
    assert_eq!(calls(&ev), vec![call("call_0", "a", json!({"x": 1}))]);
    assert_eq!(text(&ev), "then </tool_x");
    assert!(errors(&ev).is_empty());
}

#[test]
fn hermes_end_is_emitted_when_the_arguments_close() {
    let input = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}";
    let ev = events_before(Format::Hermes, input, input.len());
    assert!(
        matches!(ev.last(), Some(Event::ToolCallEnd { .. })),
        "{ev:?}"
    );
    // And the text ending there still completes it at finish, with no error.
    let ev = split(Format::Hermes, input);
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"a": 1}))]);
    assert!(errors(&ev).is_empty());
}

#[test]
fn hermes_malformed_calls_are_errors_with_the_raw_text() {
    // Not JSON at all: nothing after the marker can begin a call, so it is text (the
    // recovery rule: a literal `<tool_call>` streams on).
    let input = "a <tool_call>\n<function=f>oops</tool_call> b";
    let ev = split(Format::Hermes, input);
    assert_eq!(text(&ev), input);
    assert!(kinds(&ev).is_empty());
    // Broken arguments after the name: the call's own error, with its raw text.
    let input = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": tru}}</tool_call>ok";
    let ev = split(Format::Hermes, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::InvalidArguments,
            Some(0),
            input.trim_end_matches("ok").into()
        )]
    );
    assert_eq!(text(&ev), "ok");
    // No name.
    let input = "<tool_call>{\"arguments\": {}}</tool_call>";
    let ev = split(Format::Hermes, input);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::MissingName, None, input.into())]
    );
}

#[test]
fn hermes_truncated_calls() {
    let input = "x<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"é";
    let ev = split(Format::Hermes, input);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::Truncated, Some(0), input[1..].into())]
    );
    let input = "x<tool_call>{\"nam";
    let ev = split(Format::Hermes, input);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::Truncated, None, input[1..].into())]
    );
}

/// A bare `<tool_call>` at the end (watsonx granite leaks one), with whitespace or part
/// of its close after it, is a call cut off before its payload, as `<tool_call>{"na` is:
/// `truncated`, those bytes its raw. An empty block is no call.
#[test]
fn hermes_bare_opener_at_the_end_is_cut_off_an_empty_block_dropped() {
    for input in ["<tool_call>", "<tool_call>\n  ", "<tool_call></tool"] {
        let ev = split(Format::Hermes, &format!("a {input}"));
        assert_eq!(text(&ev), "a ", "{ev:?}");
        assert_eq!(
            kinds(&ev),
            vec![(ErrorKind::Truncated, None, input.to_owned())]
        );
        // `auto` at the end picks the pattern that matched (`hermes`'s) and gives the same.
        let auto = split(Format::Auto, &format!("a {input}"));
        assert_eq!(text(&auto), text(&ev));
        assert_eq!(kinds(&auto), kinds(&ev));
    }
    let ev = split(Format::Hermes, "a<tool_call>\n</tool_call>b");
    assert_eq!(ev, vec![Event::Text { delta: "ab".into() }]);
}

#[test]
fn hermes_partial_markers_are_released_verbatim() {
    let ev = split(Format::Hermes, "1 < 2 and <tool_ca");
    assert_eq!(text(&ev), "1 < 2 and <tool_ca");
    let ev = split(Format::Hermes, "x <tool_callx> \n");
    assert_eq!(text(&ev), "x <tool_callx> \n");
}

#[test]
fn hermes_think_then_call() {
    let input = "<think>\nI should call f.\n</think>\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call><|im_end|>";
    let ev = split(Format::Hermes, input);
    assert_eq!(reasoning(&ev), "I should call f.");
    assert_eq!(text(&ev), "");
    assert_eq!(calls(&ev).len(), 1);
}

#[test]
fn invalid_utf8_in_text_is_replaced() {
    let input: &[u8] = b"a\xFFb<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>\xE2\x82";
    let make = || common::parser(Format::Hermes);
    let ev = assert_split_invariant(&make, input, 20);
    assert_eq!(text(&ev), "a\u{FFFD}b\u{FFFD}");
    assert_eq!(calls(&ev).len(), 1);
}

/// `hermes`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    universal_for(Format::Hermes)
}

/// The answers to the universal cases of a syntax of `hermes`' calls and `<think>`
/// reasoning (`hermes`, `ernie45`).
pub(crate) fn universal_for(format: Format) -> crate::universal::Universal {
    universal_between(format, "<tool_call>", "</tool_call>")
}

/// The answers to the universal cases of a syntax of JSON call objects (`name`,
/// `arguments`) between `open` and `close`, with `<think>` reasoning (`hermes`,
/// `ernie45`, `longcat`, `nemotron`, `jamba`, `hunyuan`).
pub(crate) fn universal_between(
    format: Format,
    open: &str,
    close: &str,
) -> crate::universal::Universal {
    use crate::exact::{args, call as done, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use ErrorKind::{InvalidArguments as Bad, TrailingArguments as Trailing, Truncated as Cut};
    Universal {
        format,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    format!(r#"Hi {open}{{"name": "f", "arguments": {{"a": 1}}}}{close} bye"#),
                    vec![one(t("Hi ")), done(0, "f", r#"{"a": 1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    format!(r#"Hi {open}{{"name": "f", "arguments": {{"a": 1"#),
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            &format!(r#"{open}{{"name": "f", "arguments": {{"a": 1"#),
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    format!(r#"{open}{{"name": "f", "arguments": {{"a": x}}}}{close} bye"#),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            &format!(r#"{open}{{"name": "f", "arguments": {{"a": x}}}}{close}"#),
                        )),
                        one(t(" bye")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    format!("Use a literal {open} tag in prose."),
                    vec![one(t(&format!("Use a literal {open} tag in prose.")))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    format!("done{close} ok"),
                    vec![one(t(&format!("done{close} ok")))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    format!(
                        r#"{open}{{"name": "f", "arguments": {{"a": 1{open}{{"name": "g", "arguments": {{}}}}{close}"#
                    ),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            &format!(r#"{open}{{"name": "f", "arguments": {{"a": 1"#),
                        )),
                        done(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    format!(
                        r#"{open}{{"name": "f", "arguments": {{}}, "arguments": {{}}}}{close}"#
                    ),
                    vec![
                        done(0, "f", "{}"),
                        one(err(
                            Trailing,
                            None,
                            // Only the bytes after the ended call: not the call again.
                            &format!(r#", "arguments": {{}}}}{close}"#),
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

/// `hermes`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "hermes",
            "opener between JSON tokens of the arguments",
            r#"<tool_call>{"name": "f", "arguments": {"a": 1<tool_call>{"name": "g", "arguments": {}}</tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<tool_call>{"name": "f", "arguments": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "hermes",
            "opener before the arguments",
            r#"<tool_call>{"name": "f"<tool_call>{"name": "g", "arguments": {}}</tool_call>"#,
            [
                start(0, "f"),
                err(Cut, Some(0), r#"<tool_call>{"name": "f""#),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "hermes",
            "opener after the arguments closed, the object not: the call is complete",
            r#"<tool_call>{"name": "f", "arguments": {"a": 1}<tool_call>{"name": "g", "arguments": {}}</tool_call>"#,
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", "{}")],
        ),
        fx!(
            "hermes",
            "opener after a broken call ends the skip",
            r#"<tool_call>{"name": "f", "arguments": {"a": x}}<tool_call>{"name": "g", "arguments": {}}</tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "#),
                err(
                    Bad,
                    Some(0),
                    r#"<tool_call>{"name": "f", "arguments": {"a": x}}"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "hermes",
            "a text opener inside a JSON string is content",
            r#"<tool_call>{"name": "f", "arguments": {"a": "x<tool_call>y"}}</tool_call>"#,
            [call(0, "f", r#"{"a": "x<tool_call>y"}"#)]
        ),
        fx!(
            "hermes",
            "a text closer inside a JSON string does not close the call",
            r#"<tool_call>{"name": "f", "arguments": {"a": "x</tool_call>y"}}</tool_call>"#,
            [call(0, "f", r#"{"a": "x</tool_call>y"}"#)]
        ),
        fx!(
            "hermes",
            "an undefined member instead of the arguments",
            r#"<tool_call>{"name": "delete_files", "args": {"p": 1}}</tool_call>"#,
            [
                start(0, "delete_files"),
                err(
                    Member,
                    Some(0),
                    r#"<tool_call>{"name": "delete_files", "args": {"p": 1}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "hermes",
            "a duplicate \"arguments\" after the first closed",
            r#"<tool_call>{"name": "f", "arguments": {"a": 1}, "arguments": {"a": 2}}</tool_call>"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(Trailing, None, r#", "arguments": {"a": 2}}</tool_call>"#),
            ],
        ),
        fx!(
            "hermes",
            "\"parameters\" after \"arguments\" is a duplicate",
            r#"<tool_call>{"name": "f", "arguments": {"a": 1}, "parameters": {}}</tool_call>"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(Trailing, None, r#", "parameters": {}}</tool_call>"#),
            ],
        ),
        fx!(
            "hermes",
            "a duplicate name before the arguments",
            r#"<tool_call>{"name": "f", "name": "g", "arguments": {}}</tool_call>"#,
            [
                start(0, "f"),
                err(
                    Member,
                    Some(0),
                    r#"<tool_call>{"name": "f", "name": "g", "arguments": {}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "hermes",
            "a raw tab in a string",
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ty\"}}</tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ty\"}}</tool_call>"
                ),
            ],
        ),
        fx!(
            "hermes",
            "a raw newline in a string, text after the call",
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ny\"}}</tool_call> after",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"x\ny\"}}</tool_call>"
                ),
                t(" after"),
            ],
        ),
        fx!(
            "hermes",
            "a lone high surrogate",
            r#"<tool_call>{"name": "f", "arguments": {"a": "\ud800"}}</tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "\ud800"#),
                err(
                    Bad,
                    Some(0),
                    r#"<tool_call>{"name": "f", "arguments": {"a": "\ud800"}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "hermes",
            "a lone low surrogate",
            r#"<tool_call>{"name": "f", "arguments": {"a": "\udc00"}}</tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "\udc0"#),
                err(
                    Bad,
                    Some(0),
                    r#"<tool_call>{"name": "f", "arguments": {"a": "\udc00"}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "hermes",
            "a surrogate pair is fine",
            r#"<tool_call>{"name": "f", "arguments": {"a": "\ud83d\ude00"}}</tool_call>"#,
            [call(0, "f", r#"{"a": "\ud83d\ude00"}"#)]
        ),
        fx!(
            "hermes",
            "a literal <tool_call> in prose (vllm#22975)",
            PROSE,
            [t(PROSE)],
        ),
        fx!(
            "hermes",
            "whitespace before a marker is text",
            "A  \n\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
            [t("A  \n\n"), call(0, "f", "{}")],
        ),
        fx!(
            "hermes",
            "whitespace after a call is text",
            "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n\nB",
            [call(0, "f", "{}"), t("\n\nB")]
        ),
    ]
}

/// `hermes`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::Hermes;
    Edges {
        broken: vec![
            b(
                Hermes,
                "cut",
                (
                    "Hi ",
                    "",
                    "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"é",
                    "",
                ),
                Cut,
                0,
                "Hi ",
            ),
            b(
                Hermes,
                "corrupt",
                (
                    "Hi ",
                    "",
                    "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": x}}\n</tool_call>",
                    " after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
        ],
        markers: vec![(
            Hermes,
            "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>",
            "A",
            " B",
            "A B",
        )],
    }
}

/// vLLM's `ripple` parser (Ricursive Ripple) reads this syntax: its doc's shape, the
/// reasoning the model chose to write, the answer, a call framed by newlines.
#[test]
fn ripple_is_hermes() {
    assert_eq!("ripple".parse::<Format>(), Ok(Format::Hermes));
    let input = "<think>\nThe user wants the weather.\n</think>\nChecking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let ev = split(Format::Hermes, input);
    assert_eq!(reasoning(&ev), "The user wants the weather.");
    assert_eq!(text(&ev), "Checking.\n");
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "get_weather", json!({"city": "Paris"}))]
    );
}

/// Found by the `schema` fuzz target (CI, 2026-12-07; its input was `"arguments":""` then
/// bytes that are not UTF-8): string-encoded arguments that close, then junk before the
/// object's `}`. The call ends at the string's closing quote; the error about the junk
/// carries only the bytes after it (as after an object: `{}xx}</tool_call>` gives
/// `xx}</tool_call>`), at every split. The call's End used to be emitted before the piece
/// holding the quote was in the call's raw text, so where the ended call's bytes stopped
/// depended on the chunking (whole: the whole object again; byte by byte: from the quote).
#[test]
fn string_encoded_arguments_then_junk_at_every_split() {
    use crate::exact::{call, check_fixtures, err, fx, one};
    check_fixtures(
        Format::Hermes,
        &[
            fx(
                "string-encoded arguments, then junk",
                "<tool_call>{\"name\":\"t\",\"arguments\":\"\"xx}</tool_call>",
                vec![
                    call(0, "t", "{}"),
                    one(err(ErrorKind::InvalidJson, None, "xx}</tool_call>")),
                ],
            ),
            fx(
                "string-encoded object arguments, then bytes that are not UTF-8",
                "<tool_call>{\"name\":\"t\",\"arguments\":\"{\\\"a\\\":1}\"\u{fffd}}</tool_call> ok",
                vec![
                    call(0, "t", r#"{"a":1}"#),
                    one(err(ErrorKind::InvalidJson, None, "\u{fffd}}</tool_call>")),
                    one(crate::exact::t(" ok")),
                ],
            ),
        ],
    );
}
