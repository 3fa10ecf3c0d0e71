//! `lfm2`: Liquid LFM2's pythonic call list between `<|tool_call_start|>` and
//! `<|tool_call_end|>`, at every chunking and every prefix. (Its reasoning and marker
//! rules with `gemma4`'s and `olmo3`'s are in `gemma_pythonic.rs`.)

use crate::exact::*;
use toolstream::Format;

#[test]
fn a_line_break_inside_a_quoted_string_is_content() {
    // Issue 33: LFM2 writes multi-line values (shell commands, code) with raw line
    // breaks inside single- or double-quoted strings, invalid Python that SGLang's LFM2
    // parser reads as the string's content; the call was an error.
    check_fixtures(
        Format::Lfm2,
        &[fx(
            "raw line breaks in quoted strings",
            "Run it.<|tool_call_start|>[bash(cmd='cd /tmp\nls -la', note=\"a\r\nb\")]<|tool_call_end|> ok",
            vec![
                one(t("Run it.")),
                call(0, "bash", r#"{"cmd":"cd /tmp\nls -la","note":"a\r\nb"}"#),
                one(t(" ok")),
            ],
        )],
    );
}

/// `lfm2`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Lfm2,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "A <|tool_call_start|>[f(a=1)]<|tool_call_end|> B",
                    vec![one(t("A ")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi <|tool_call_start|>[f(a=1, b='x",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1,"b":"x"#)),
                        one(err(Cut, Some(0), "<|tool_call_start|>[f(a=1, b='x")),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <|tool_call_start|>[f(a=1, b=x)]<|tool_call_end|> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1,"b":"#)),
                        one(err(Bad, Some(0), "<|tool_call_start|>[f(a=1, b=x)]")),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <|tool_call_start|> tag.",
                    vec![one(t("Use a literal <|tool_call_start|> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done<|tool_call_end|> ok",
                    vec![one(t("done<|tool_call_end|> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    "<|tool_call_start|>[f(a=1, <|tool_call_start|>[g()]<|tool_call_end|>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(Cut, Some(0), "<|tool_call_start|>[f(a=1, ")),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    "<|tool_call_start|>[f(a=1, a=2)]<|tool_call_end|>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(Bad, Some(0), "<|tool_call_start|>[f(a=1, a=2)]")),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    "<|tool_call_start|>[get weather(a=1)]<|tool_call_end|>",
                    vec![one(err(Bad, None, "<|tool_call_start|>[get weather(a=1)]"))],
                ),
            ),
        ],
    }
}

/// `lfm2`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "lfm2",
            "<|tool_call_start|> inside a string",
            r#"<|tool_call_start|>[f(a="x<|tool_call_start|>[g()]<|tool_call_end|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x"#),
                err(Cut, Some(0), r#"<|tool_call_start|>[f(a="x"#),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "lfm2",
            "a repeated keyword argument",
            "<|tool_call_start|>[f(a=1, a=2)]<|tool_call_end|>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(Bad, Some(0), "<|tool_call_start|>[f(a=1, a=2)]"),
            ]
        ),
        fx!(
            "lfm2",
            "a second <|tool_call_start|> before the first list's close token",
            "<|tool_call_start|>[f()]<|tool_call_start|>[g()]<|tool_call_end|>",
            [call(0, "f", "{}"), call(1, "g", "{}")]
        ),
        fx!(
            "lfm2",
            "a malformed list's ] is in the error",
            "<|tool_call_start|>[f(a=1), g(b=]<|tool_call_end|>",
            [
                call(0, "f", r#"{"a":1}"#),
                start(1, "g"),
                args(1, r#"{"b":"#),
                err(Bad, Some(1), "g(b=]"),
            ]
        ),
    ]
}

/// `lfm2`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::InvalidArguments as Bad;
    use toolstream::Format::Lfm2;
    Edges {
        broken: vec![b(
            Lfm2,
            "second call corrupt",
            (
                "Hi ",
                "<|tool_call_start|>[g(), ",
                "f(a=x)]",
                "<|tool_call_end|> after",
            ),
            Bad,
            1,
            "Hi  after",
        )],
        markers: vec![],
    }
}
