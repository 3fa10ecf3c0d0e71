//! `command-r`: Cohere's cmd4 format (Command A Reasoning, North): `<|START_TEXT|>` …
//! `<|END_TEXT|>` around the answer, and citations `<co>cited</co: 0:[1,2]>` removed
//! from text and reasoning with the cited text kept (vLLM's `cohere_command4` parser
//! through Cohere's `melody` filter; its fixtures: `This is a rainbow <co>emoji:
//! 🌈</co: 0:[1]>` → `This is a rainbow emoji: 🌈`). Exact events at every chunking and
//! every prefix; the generated tables of `tables.rs` cover the action syntax.

use crate::exact::*;
use toolstream::ErrorKind::Truncated as Cut;
use toolstream::Format;

const ACTION: &str = r#"<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "query1"}}]<|END_ACTION|>"#;

#[test]
fn cmd4_fixtures() {
    check_fixtures(
        Format::CommandR,
        &[
            fx(
                "text between START_TEXT and END_TEXT",
                "<|START_TEXT|>Hello there.<|END_TEXT|><|END_OF_TURN_TOKEN|>",
                vec![one(t("Hello there."))],
            ),
            fx(
                "reasoning, text, an action",
                format!(
                    "<|START_THINKING|>I will call foo.<|END_THINKING|><|START_TEXT|>Let me look.<|END_TEXT|>{ACTION}<|END_OF_TURN_TOKEN|>"
                ),
                vec![
                    one(r("I will call foo.")),
                    one(t("Let me look.")),
                    call(0, "foo", r#"{"query": "query1"}"#),
                ],
            ),
            fx(
                "citations in reasoning and text (vLLM's cmd4 fixture, START_TEXT form)",
                "<|START_THINKING|>This is a rainbow <co>emoji: 🌈</co: 0:[1]><|END_THINKING|>\n<|START_TEXT|>foo <co>bar</co: 0:[1,2],1:[3,4]><|END_TEXT|>",
                vec![one(r("This is a rainbow emoji: 🌈")), one(t("foo bar"))],
            ),
            fx(
                "cmd3's START_RESPONSE with a citation",
                "<|START_RESPONSE|>The <co>sky is blue</co: 1:[0]>.<|END_RESPONSE|>",
                vec![one(t("The sky is blue."))],
            ),
            fx(
                "several citations, whitespace around them kept",
                "A <co>b</co: 0:[1]> and <co> c </co: 0:[2]>\n",
                vec![one(t("A b and  c \n"))],
            ),
            fx(
                "something that is not a citation's anchors is text",
                "x </co: y> and </co: 0:[1] z",
                vec![one(t("x </co: y> and </co: 0:[1] z"))],
            ),
            fx(
                "a citation head cut off by the end is text",
                "done <co>it</co: 0:[",
                vec![one(t("done it</co: 0:["))],
            ),
            fx(
                "citation markup inside a call's arguments is the arguments'",
                r#"<|START_ACTION|>[{"tool_call_id": "1", "tool_name": "say", "parameters": {"s": "<co>x</co: 0:[1]>"}}]<|END_ACTION|>"#,
                vec![call(0, "say", r#"{"s": "<co>x</co: 0:[1]>"}"#)],
            ),
            fx(
                "truncated inside an action",
                r#"<|START_TEXT|>Ok.<|END_TEXT|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "foo", "parameters": {"q": "a"#,
                vec![
                    one(t("Ok.")),
                    one(start(0, "foo")),
                    one(args(0, r#"{"q": "a"#)),
                    one(err(
                        Cut,
                        Some(0),
                        r#"<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "foo", "parameters": {"q": "a"#,
                    )),
                ],
            ),
        ],
    );
}

/// `command-r`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::CommandR,
        reasoning: Some(("<|START_THINKING|>", "<|END_THINKING|>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1}}]<|END_ACTION|> B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a": 1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi <|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1"#,
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"Hi <|START_ACTION|>[{"tool_name": "f", "parameters": {"a": x}}]<|END_ACTION|> after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": x}}]<|END_ACTION|>"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <|START_ACTION|> tag.",
                    vec![one(t("Use a literal <|START_ACTION|> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done<|END_ACTION|> ok",
                    vec![one(t("done<|END_ACTION|> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1<|START_ACTION|>[{"tool_name": "g", "parameters": {}}]<|END_ACTION|>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"<|START_ACTION|>[{"tool_name": "f", "parameters": {}, "parameters": {}}]<|END_ACTION|>"#,
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            ErrorKind::TrailingArguments,
                            None,
                            r#", "parameters": {}}]<|END_ACTION|>"#,
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

/// `command-r`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "command-r",
            "a duplicate \"parameters\"",
            r#"<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1}, "parameters": {"a": 2}}]<|END_ACTION|>"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#", "parameters": {"a": 2}}]<|END_ACTION|>"#
                ),
            ],
        ),
        fx!(
            "command-r",
            "a raw tab in a string (a broken list call is skipped to the close marker)",
            "<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {\"a\": \"x\ty\"}}]<|END_ACTION|>",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {\"a\": \"x\ty\"}}]<|END_ACTION|>"
                ),
            ],
        ),
        fx!(
            "command-r",
            "whitespace before a marker is text",
            "A \n<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {\"a\": 1}}]<|END_ACTION|>",
            [t("A \n"), call(0, "f", r#"{"a": 1}"#)],
        ),
        fx!(
            "command-r",
            "cmd4: an opener inside an action's arguments, after <|START_TEXT|>",
            r#"<|START_TEXT|>See doc.<|END_TEXT|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1<|START_ACTION|>[{"tool_call_id": "1", "tool_name": "g", "parameters": {}}]<|END_ACTION|>"#,
            [
                t("See doc."),
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
    ]
}

/// `command-r` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[crate::json::tables::Syn {
    format: toolstream::Format::CommandR,
    open: "<|START_ACTION|>",
    close: Some("<|END_ACTION|>"),
    payload: crate::json::tables::Payload::Array,
    name: Some("tool_name"),
    args: "parameters",
    id: Some("tool_call_id"),
    reserved: &["<|START_", "<|END_", "<think>", "</think>"],
}];

/// Reasoning wrappers and end-of-turn tokens around calls (from `json/tables.rs`).
#[test]
fn command_r_reasoning_wrappers_and_end_of_turn_tokens() {
    crate::json::tables::check_wrappers(&[
        (
            toolstream::Format::CommandR,
            "<|START_THINKING|>I will call f.<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"f\", \"parameters\": {}}]<|END_ACTION|><|END_OF_TURN_TOKEN|>",
            "I will call f.",
            "",
            1,
        ),
        (
            toolstream::Format::CommandR,
            "<|START_THINKING|>No tool.<|END_THINKING|><|START_RESPONSE|>Hello!<|END_RESPONSE|>",
            "No tool.",
            "Hello!",
            0,
        ),
    ]);
}
