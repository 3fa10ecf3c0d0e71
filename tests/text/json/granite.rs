//! `granite`: Granite 3.1+'s `<tool_call>[..]` (vLLM's `granite` parser reads it: a JSON
//! list after the string `<tool_call>`, nothing after it), beside Granite 4's
//! `<tool_call>{..}</tool_call>` and 3.0's `<|tool_call|>[..]`. Exact events at every
//! chunking and every prefix ([`crate::exact`]); `tables.rs` runs its generated
//! fixtures on the 3.1 form too.

use crate::exact::*;
use toolstream::ErrorKind::{InvalidArguments as Bad, MissingName, Truncated as Cut};
use toolstream::Format;

const NESTED: &str = r#"{"q": "é 😀 \"quoted\" \\ \n line", "n": {"a": [1, -2.5e3, {"b": null}]}, "u": "\u00e9\ud83d\ude00", "t": true}"#;

#[test]
fn granite31_fixtures() {
    let w = r#"{"city": "Paris"}"#;
    check_fixtures(
        Format::Granite,
        &[
            fx(
                "single",
                format!(r#"<tool_call>[{{"name": "get_weather", "arguments": {w}}}]"#),
                vec![call(0, "get_weather", w)],
            ),
            fx(
                "several calls, end-of-text token",
                r#"<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": [1]}}]<|end_of_text|>"#,
                vec![call(0, "a", "{}"), call(1, "b", r#"{"x": [1]}"#)],
            ),
            fx(
                "text before and after",
                r#"Sure. <tool_call> [{"name": "f", "arguments": {}}]
Done."#,
                vec![one(t("Sure. ")), call(0, "f", "{}"), one(t("\nDone."))],
            ),
            fx(
                "a </tool_call> after the list is consumed",
                r#"<tool_call>[{"name": "f", "arguments": {}}]</tool_call> ok"#,
                vec![call(0, "f", "{}"), one(t(" ok"))],
            ),
            fx(
                "nested, unicode and escaped values",
                format!(r#"<tool_call>[{{"name": "edit_file", "arguments": {NESTED}}}]"#),
                vec![call(0, "edit_file", NESTED)],
            ),
            fx(
                "empty arguments and none",
                r#"<tool_call>[{"name": "now", "arguments": {}}, {"name": "ping"}]"#,
                vec![call(0, "now", "{}"), call(1, "ping", "{}")],
            ),
            fx("an empty list", "a<tool_call>[]b", vec![one(t("ab"))]),
            fx(
                "Granite 4's object form beside it",
                r#"<tool_call>{"name": "f", "arguments": {}}</tool_call><tool_call>[{"name": "g", "arguments": {}}]"#,
                vec![call(0, "f", "{}"), call(1, "g", "{}")],
            ),
            fx(
                "a literal marker in prose",
                "Use <tool_call> tags.",
                vec![one(t("Use <tool_call> tags."))],
            ),
            fx(
                "truncated inside the list",
                r#"<tool_call>[{"name": "f", "arguments": {}}, {"name": "g", "arguments": {"a": "x"#,
                vec![
                    call(0, "f", "{}"),
                    one(start(1, "g")),
                    one(args(1, r#"{"a": "x"#)),
                    one(err(Cut, Some(1), r#"{"name": "g", "arguments": {"a": "x"#)),
                ],
            ),
            fx(
                "a broken call in the list: skipped to its bracket, the later calls count",
                r#"<tool_call>[{"name": "f", "arguments": {"a": x}}, {"name": "g", "arguments": {}}] after"#,
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a": "#)),
                    one(err(
                        Bad,
                        Some(0),
                        r#"<tool_call>[{"name": "f", "arguments": {"a": x}}"#,
                    )),
                    call(1, "g", "{}"),
                    one(t(" after")),
                ],
            ),
            fx(
                "a nameless call in the list",
                r#"<tool_call>[{"arguments": {}}, {"name": "g", "arguments": {}}]"#,
                vec![
                    one(err(MissingName, None, r#"<tool_call>[{"arguments": {}}"#)),
                    call(0, "g", "{}"),
                ],
            ),
        ],
    );
}

/// `granite`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Granite,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]"#,
                    vec![one(t("A")), call(0, "f", r#"{"a": 1}"#)],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi <|tool_call|>[{"name": "f", "arguments": {"a": 1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|tool_call|>[{"name": "f", "arguments": {"a": 1"#,
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"Hi <tool_call>{"name": "f", "arguments": {"a": x}}</tool_call> after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<tool_call>{"name": "f", "arguments": {"a": x}}</tool_call>"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <|tool_call|> tag.",
                    vec![one(t("Use a literal <|tool_call|> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample("done</tool_call> ok", vec![one(t("done</tool_call> ok"))]),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<|tool_call|>[{"name": "f", "arguments": {"a": 1<|tool_call|>[{"name": "g", "arguments": {}}]"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|tool_call|>[{"name": "f", "arguments": {"a": 1"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"<|tool_call|>[{"name": "f", "arguments": {}, "arguments": {}}]"#,
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

/// `granite`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "granite",
            "an undefined member",
            r#"<tool_call>{"name": "f", "args": {"p": 1}}</tool_call>"#,
            [
                start(0, "f"),
                err(
                    Member,
                    Some(0),
                    r#"<tool_call>{"name": "f", "args": {"p": 1}}</tool_call>"#
                ),
            ],
        ),
        fx!(
            "granite",
            "a literal <tool_call> in prose",
            PROSE,
            [t(PROSE)],
        ),
        fx!(
            "granite",
            "3.1: opener between JSON tokens of a list's call",
            r#"<tool_call>[{"name": "f", "arguments": {"a": 1<tool_call>[{"name": "g", "arguments": {}}]"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<tool_call>[{"name": "f", "arguments": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "granite",
            "3.1: an undefined member in a list's call, the next call counts",
            r#"<tool_call>[{"name": "delete_files", "args": {"p": 1}}, {"name": "g", "arguments": {}}]"#,
            [
                start(0, "delete_files"),
                err(
                    Member,
                    Some(0),
                    r#"<tool_call>[{"name": "delete_files", "args": {"p": 1}}"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "granite",
            "3.1: a duplicate \"arguments\"",
            r#"<tool_call>[{"name": "f", "arguments": {"a": 1}, "arguments": {"a": 2}}]"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(Trailing, None, r#", "arguments": {"a": 2}}"#),
            ],
        ),
        fx!(
            "granite",
            "3.1: a raw newline in a string",
            "<tool_call>[{\"name\": \"f\", \"arguments\": {\"a\": \"x\ny\"}}] after",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call>[{\"name\": \"f\", \"arguments\": {\"a\": \"x\ny\"}}"
                ),
                // The list goes on after the skipped call: its `]` ends it.
                t(" after"),
            ],
        ),
        fx!(
            "granite",
            "3.1: whitespace before the marker is text",
            "A \n<tool_call>[{\"name\": \"f\", \"arguments\": {}}]",
            [t("A \n"), call(0, "f", "{}")],
        ),
    ]
}

/// `granite`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::Edges;
    use toolstream::Format::Granite;
    Edges {
        broken: vec![],
        markers: vec![(
            Granite,
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>",
            "A",
            " B",
            "A B",
        )],
    }
}

/// A broken call object is skipped to the bracket that balances it, the list's later calls
/// still count (from `rules/edges.rs`).
#[test]
fn granite_a_broken_call_with_no_close_marker_leaks_nothing() {
    crate::rules::edges::a_broken_call_with_no_close_marker_leaks_nothing(
        toolstream::Format::Granite,
        "<|tool_call|>[",
    );
}

/// The texts generated text must not hold (its markers, tags, tokens).
const GRANITE_RESERVED: &[&str] = &[
    "<|tool_call|>",
    "<tool_call>",
    "<response>",
    "</response>",
    "<|end_of_text|>",
    "<think>",
    "</think>",
];

/// `granite` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[
    crate::json::tables::Syn {
        format: toolstream::Format::Granite,
        open: "<|tool_call|>",
        close: None,
        payload: crate::json::tables::Payload::Array,
        name: Some("name"),
        args: "arguments",
        id: None,
        reserved: GRANITE_RESERVED,
    },
    crate::json::tables::Syn {
        format: toolstream::Format::Granite,
        open: "<tool_call>",
        close: None,
        payload: crate::json::tables::Payload::Array,
        name: Some("name"),
        args: "arguments",
        id: None,
        reserved: GRANITE_RESERVED,
    },
    crate::json::tables::Syn {
        format: toolstream::Format::Granite,
        open: "<tool_call>",
        close: Some("</tool_call>"),
        payload: crate::json::tables::Payload::Object,
        name: Some("name"),
        args: "arguments",
        id: None,
        reserved: GRANITE_RESERVED,
    },
];

/// Reasoning wrappers and end-of-turn tokens around calls (from `json/tables.rs`).
#[test]
fn granite_reasoning_wrappers_and_end_of_turn_tokens() {
    crate::json::tables::check_wrappers(&[(
        toolstream::Format::Granite,
        "<think>hm</think><response>Here.</response><|tool_call|>[{\"name\": \"f\", \"arguments\": {}}]<|end_of_text|>",
        "hm",
        "Here.",
        1,
    )]);
}

#[test]
fn a_byte_flip_in_a_call_leaves_the_next_call_whole() {
    // Issue 33: in `<|tool_call|>[..]` a flipped byte in call 0 split the valid call 1
    // between an error and text. Every one-bit flip of every byte of call 0: call 1 is
    // a call, or all of its bytes are in one error or one text event, at every split.
    use toolstream::Event;
    let c0 = r#"{"name": "f", "arguments": {"a": "x", "n": [1, 2]}}"#;
    let c1 = r#"{"name": "g", "arguments": {"b": 2}}"#;
    for (i, c) in c0.char_indices() {
        for bit in 0..7 {
            let flipped = char::from(c as u8 ^ (1 << bit));
            let input = format!(
                "<|tool_call|>[{}{flipped}{}, {c1}] after",
                &c0[..i],
                &c0[i + 1..]
            );
            let ev = crate::exact::split(Format::Granite, &input);
            let whole = ev.iter().any(|e| match e {
                Event::ToolCallEnd { name, .. } => name == "g",
                Event::Error { raw, .. } => raw.contains(c1),
                Event::Text { delta } => delta.contains(c1),
                _ => false,
            });
            assert!(whole, "call 1 split: {input:?}\n{ev:?}");
        }
    }
}
