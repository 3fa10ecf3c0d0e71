//! `olmo3`: OLMo 3's `<function_calls>` pythonic lines: its answers to the universal cases,
//! and its end-of-turn token.

use crate::exact::*;
use toolstream::Format;

/// OLMo 3's template is ChatML: a turn ends with `<|im_end|>`, which a server that does
/// not strip it leaves after the calls; dropped (as `lfm2` does).
#[test]
fn olmo3_end_of_turn_dropped() {
    check_fixtures(
        Format::Olmo3,
        &[fx(
            "the end-of-turn token after the calls dropped",
            "<think>plan</think>Sure.<function_calls>\nf(a=1)\n</function_calls><|im_end|>",
            vec![one(r("plan")), one(t("Sure.")), call(0, "f", r#"{"a":1}"#)],
        )],
    );
}

/// `olmo3`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Olmo3,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "A <function_calls>\nf(a=1)\n</function_calls> B",
                    vec![one(t("A ")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi <function_calls>\nf(a=1, b='x",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1,"b":"x"#)),
                        one(err(Cut, Some(0), "<function_calls>\nf(a=1, b='x")),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <function_calls>\nf(a=1, b=x)\n</function_calls> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1,"b":"#)),
                        one(err(Bad, Some(0), "<function_calls>\nf(a=1, b=x)")),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <function_calls> tag, then more.",
                    vec![one(t("Use a literal <function_calls> tag, then more."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done</function_calls> ok",
                    vec![one(t("done</function_calls> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    "<function_calls>\nf(a=1, <function_calls>\ng()\n</function_calls>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(Cut, Some(0), "<function_calls>\nf(a=1, ")),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    "<function_calls>\nf(a=1, a=2)\n</function_calls>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(Bad, Some(0), "<function_calls>\nf(a=1, a=2)")),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    "<function_calls>\nget weather(a=1)\n</function_calls>",
                    vec![one(t(
                        "<function_calls>\nget weather(a=1)\n</function_calls>",
                    ))],
                ),
            ),
        ],
    }
}

/// `olmo3`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![fx!(
        "olmo3",
        "a plain-text opener inside a string is content",
        "<function_calls>f(a=\"x<function_calls>y\")</function_calls>",
        [call(0, "f", r#"{"a":"x<function_calls>y"}"#)],
    )]
}
