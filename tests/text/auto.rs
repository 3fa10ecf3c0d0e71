//! `auto`: the syntax detected from the text (`src/text/auto.rs`). Its answers to the
//! universal cases, each detected as the syntax it is written in.

/// `auto`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Auto,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"Hi <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call> bye"#,
                    vec![one(t("Hi ")), call(0, "f", r#"{"a": 1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi [f(a=1, b='x",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1,"b":"x"#)),
                        one(err(Cut, Some(0), "[f(a=1, b='x")),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": x}}\n</tool_call> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": x}}\n</tool_call>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <tool_call> tag.",
                    vec![one(t("Use a literal <tool_call> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample("done</tool_call> ok", vec![one(t("done</tool_call> ok"))]),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<tool_call>{"name": "f", "arguments": {"a": 1<tool_call>{"name": "g", "arguments": {}}</tool_call>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<tool_call>{"name": "f", "arguments": {"a": 1"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"<tool_call>{"name": "f", "arguments": {}, "arguments": {}}</tool_call>"#,
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            ErrorKind::TrailingArguments,
                            None,
                            r#", "arguments": {}}</tool_call>"#,
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    "<tool_call>\n<function=get weather\">\n</function>\n</tool_call>",
                    vec![one(err(
                        Bad,
                        None,
                        "<tool_call>\n<function=get weather\">\n</function>\n</tool_call>",
                    ))],
                ),
            ),
        ],
    }
}

/// `auto`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "auto",
            "<|python_tag|>[ at the end: a pythonic call list cut off, not code",
            "A <|python_tag|>[",
            [t("A "), err(Cut, None, "<|python_tag|>[")],
        ),
        fx!(
            "auto",
            "<|python_tag|> and a list with no call name in it: text, as in llama-pythonic and llama-json",
            "A <|python_tag|>[1, 2] B",
            [t("A <|python_tag|>[1, 2] B")],
        ),
        fx!(
            "auto",
            "<|python_tag|> and a list whose first name breaks: llama-pythonic's error, not code",
            "<|python_tag|>[get weather(a=1)] after",
            [
                err(Bad, None, "<|python_tag|>[get weather(a=1)]"),
                t(" after")
            ],
        ),
        fx!(
            "auto",
            "<|python_tag|> and an array of JSON calls: llama-json's",
            r#"<|python_tag|>[{"name": "f", "parameters": {}}] B"#,
            [call(0, "f", "{}"), t(" B")],
        ),
        fx!(
            "auto",
            "<|python_tag|> and code: llama-json's code interpreter",
            "<|python_tag|>print(1)",
            [call(0, "code_interpreter", r#"{"code":"print(1)"}"#)],
        ),
        fx!(
            "auto",
            "a JSON call array: no bracket text",
            r#"[{"name": "f", "parameters": {}}, {"name": "g", "parameters": {}}]"#,
            [call(0, "f", "{}"), call(1, "g", "{}")],
        ),
        fx!(
            "auto",
            "a JSON array that holds no call is text",
            r#"See [1, {"a": 2}] and [ {"names": "x"}]."#,
            [t(r#"See [1, {"a": 2}] and [ {"names": "x"}]."#)]
        ),
        fx!(
            "auto",
            "text before a JSON call array",
            r#"Calling: [{"name": "f", "parameters": {"a": 1}}]"#,
            [t("Calling: "), call(0, "f", r#"{"a": 1}"#)]
        ),
    ]
}

/// `auto`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::Truncated as Cut;
    use toolstream::Format::Auto;
    Edges {
        broken: vec![b(
            Auto,
            "json cut",
            ("Hi ", "", "{\"name\": \"f\", \"parameters\": {\"a\": 1", ""),
            Cut,
            0,
            "Hi ",
        )],
        markers: vec![
            (Auto, "<|python_tag|>[f(a=1)]", "A ", " B", "A  B"),
            (
                Auto,
                "<|python_start|>[f(a=1)]<|python_end|>",
                "A ",
                " B",
                "A  B",
            ),
            (
                Auto,
                "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1}}",
                "A ",
                " B",
                "A  B",
            ),
        ],
    }
}
