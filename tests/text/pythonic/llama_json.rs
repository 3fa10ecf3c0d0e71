//! `llama-json`: Llama 3.x JSON calls (`{"name", "parameters"}`, `<|python_tag|>`): its answers to the universal cases.

/// `llama-json`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::LlamaJson,
        reasoning: None,
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A <|python_tag|>{"name": "f", "parameters": {"a": 1}} B"#,
                    vec![one(t("A ")), call(0, "f", r#"{"a": 1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi {"name": "f", "parameters": {"a": 1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(Cut, Some(0), r#"{"name": "f", "parameters": {"a": 1"#)),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"Hi {"name": "f", "parameters": {"a": x}} after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"{"name": "f", "parameters": {"a": x}}"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                not_applicable(
                    "`<|python_tag|>` followed by anything but a call object is Llama 3.1's `code_interpreter` call (its built-in tool), the code running to the end of the input, so the tag is never alone (the recovery rows show it; a prefix of it completes a call with the code so far, which the sample's prefix check refuses)",
                ),
            ),
            (
                Case::StrayClose,
                not_applicable(crate::universal::NO_CLOSING_MARKER),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<|python_tag|>{"name": "f", "parameters": {"a": 1<|python_tag|>{"name": "g", "parameters": {}}"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|python_tag|>{"name": "f", "parameters": {"a": 1"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"{"name": "f", "parameters": {}, "parameters": {}}"#,
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            ErrorKind::TrailingArguments,
                            None,
                            r#", "parameters": {}}"#,
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

/// `llama-json`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "llama-json",
            "a '<' again inside a partial tag after the arguments closed: the tag's bytes stay the trailing error's",
            r#"{"name": "f", "parameters": {"a": 1}<|<|python_tag|>{"name": "g", "parameters": {}}"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(
                    Trailing,
                    None,
                    r#"<|<|python_tag|>{"name": "g", "parameters": {}}"#
                ),
            ],
        ),
        fx!(
            "llama-json",
            "<|python_tag|> between members ends the call",
            r#"<|python_tag|>{"name": "f", <|python_tag|>{"name": "g", "parameters": {}}"#,
            [
                start(0, "f"),
                err(Cut, Some(0), r#"<|python_tag|>{"name": "f", "#),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "llama-json",
            "a '<' between JSON tokens that begins no tag breaks the call",
            r#"{"name": "f", "parameters": {"a": 1<|python_t>}} after"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Bad,
                    Some(0),
                    r#"{"name": "f", "parameters": {"a": 1<|python_t>}}"#
                ),
                t(" after"),
            ],
        ),
        fx!(
            "llama-json",
            "<|python_tag|> after the arguments closed, the object not",
            r#"<|python_tag|>{"name": "f", "parameters": {"a": 1}<|python_tag|>{"name": "g", "parameters": {}}"#,
            [call(0, "f", r#"{"a": 1}"#), call(1, "g", "{}")],
        ),
        fx!(
            "llama-json",
            "a '<' after the arguments closed that is not the tag: trailing text of the call",
            r#"<|python_tag|>{"name": "f", "parameters": {"a": 1}<|python_t>x"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(Trailing, None, r#"<|python_t>x"#),
            ],
        ),
        fx!(
            "llama-json",
            "the text ends on a prefix of the tag after the arguments closed",
            r#"{"name": "f", "parameters": {"a": 1}<|python"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(Trailing, None, r#"<|python"#),
            ],
        ),
        fx!(
            "llama-json",
            "a second <|python_tag|> after code starts a call object",
            r#"<|python_tag|>print(1)<|python_tag|>{"name": "g", "parameters": {}}"#,
            [
                call(0, "code_interpreter", r#"{"code":"print(1)"}"#),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "llama-json",
            "an undefined member after the arguments",
            r#"{"name": "f", "parameters": {"a": 1}, "args": {}}"#,
            [
                call(0, "f", r#"{"a": 1}"#),
                err(Trailing, None, r#", "args": {}}"#),
            ],
        ),
        fx!(
            "llama-json",
            "an undefined member instead of the arguments",
            r#"{"name": "f", "args": {"a": 1}}"#,
            [
                start(0, "f"),
                err(Member, Some(0), r#"{"name": "f", "args": {"a": 1}}"#),
            ],
        ),
        fx!(
            "llama-json",
            "a raw tab in a string",
            "{\"name\": \"f\", \"parameters\": {\"a\": \"x\ty\"}}",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "{\"name\": \"f\", \"parameters\": {\"a\": \"x\ty\"}}"
                ),
            ],
        ),
        fx!(
            "llama-json",
            "a second <|python_tag|> starts the next code call",
            "<|python_tag|>f()<|python_tag|>g()",
            [
                call(0, "code_interpreter", r#"{"code":"f()"}"#),
                call(1, "code_interpreter", r#"{"code":"g()"}"#),
            ],
        ),
        fx!(
            "llama-json",
            "<|python_tag|> then a list with no call in it: text, the tag with it",
            "A <|python_tag|>[1, 2] B <|python_tag|> [g()]",
            [t("A <|python_tag|>[1, 2] B <|python_tag|> [g()]")],
        ),
        fx!(
            "llama-json",
            "<|python_tag|> then an object with no call in it: text, the tag with it",
            r#"A <|python_tag|> {"answer": 42} B"#,
            [t(r#"A <|python_tag|> {"answer": 42} B"#)],
        ),
        fx!(
            "llama-json",
            "<|python_tag|> then an array of calls",
            r#"A <|python_tag|>[{"name": "f", "parameters": {}}, {"name": "g", "parameters": {}}] B"#,
            [t("A "), call(0, "f", "{}"), call(1, "g", "{}"), t(" B")],
        ),
        fx!(
            "llama-json",
            "<|python_tag|> then an array whose call breaks: its raw from the tag through the ]",
            r#"<|python_tag|>[{"name": "f", "parameters": {'a': 1}} ] B"#,
            [
                start(0, "f"),
                args(0, "{"),
                err(
                    Bad,
                    Some(0),
                    r#"<|python_tag|>[{"name": "f", "parameters": {'a': 1}} ]"#
                ),
                t(" B"),
            ],
        ),
        fx!(
            "llama-json",
            "an array whose first call breaks, then a call: the array's bytes are the calls'",
            r#"[{"name": "f", "parameters": {'a': 1}}, {"name": "g", "parameters": {}}] B"#,
            [
                start(0, "f"),
                args(0, "{"),
                err(Bad, Some(0), r#"[{"name": "f", "parameters": {'a': 1}}"#),
                call(1, "g", "{}"),
                t(" B"),
            ],
        ),
        fx!(
            "llama-json",
            "an array whose call breaks, then no `]`: the error, then the text",
            r#"[{"name": "f", "parameters": {'a': 1}} B"#,
            [
                start(0, "f"),
                args(0, "{"),
                err(Bad, Some(0), r#"[{"name": "f", "parameters": {'a': 1}}"#),
                t(" B"),
            ],
        ),
        fx!(
            "llama-json",
            "a JSON call array",
            r#"[{"name": "f", "parameters": {}}, {"name": "g", "parameters": {}}]"#,
            [call(0, "f", "{}"), call(1, "g", "{}")]
        ),
    ]
}

/// `llama-json`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::LlamaJson;
    Edges {
        broken: vec![
            b(
                LlamaJson,
                "array cut",
                (
                    "Hi ",
                    "",
                    "[{\"name\": \"f\", \"parameters\": {\"a\": 1",
                    "",
                ),
                Cut,
                0,
                "Hi ",
            ),
            b(
                LlamaJson,
                "array second call corrupt (the array's `]` right after it ends its raw text)",
                (
                    "Hi ",
                    "[{\"name\": \"g\", \"parameters\": {}}, ",
                    "{\"name\": \"f\", \"parameters\": {\"a\": 'x'}}]",
                    " after",
                ),
                Bad,
                1,
                "Hi  after",
            ),
            b(
                LlamaJson,
                "python tag cut",
                (
                    "Hi ",
                    "",
                    "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1",
                    "",
                ),
                Cut,
                0,
                "Hi ",
            ),
            b(
                LlamaJson,
                "built-in corrupt",
                (
                    "Hi ",
                    "",
                    "<|python_tag|>brave_search.call(query=x)",
                    " after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
            b(
                LlamaJson,
                "built-in cut",
                ("Hi ", "", "<|python_tag|>brave_search.call(query='x", ""),
                Cut,
                0,
                "Hi ",
            ),
        ],
        markers: vec![(LlamaJson, "<|python_tag|>f.call(a=1)", "A ", " B", "A  B")],
    }
}
