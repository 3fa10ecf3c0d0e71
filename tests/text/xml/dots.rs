//! `dots`: the dots models' `<dots_function_call>` blocks (vLLM's `dots` parser). Its
//! answers to the universal cases, and the shape of vLLM's parser doc, at every chunking
//! and every prefix.

use crate::exact::*;
use crate::universal::{Case, Universal, sample};
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::Format;

const OPEN: &str = "<dots_function_call><invoke name=\"";
const CLOSE: &str = "</invoke></dots_function_call>";

/// vLLM's doc shape over lines, a value on its own lines; detected by `auto`.
#[test]
fn dots_fixtures() {
    let input = "Sure.\n<dots_function_call>\n<invoke name=\"search\">\n<parameter name=\"query\">weather in Shanghai</parameter>\n<parameter name=\"n\">\n3\n</parameter>\n</invoke>\n<invoke name=\"now\">\n</invoke>\n</dots_function_call>";
    let want = vec![
        one(t("Sure.\n")),
        call(0, "search", r#"{"query":"weather in Shanghai","n":3}"#),
        call(1, "now", "{}"),
    ];
    check_fixtures(
        Format::Dots,
        &[fx("two invokes over lines", input, want.clone())],
    );
    check_fixtures(Format::Auto, &[fx("detected", input, want)]);
}

/// `dots`' answers to the universal cases.
pub(crate) fn universal() -> Universal {
    Universal {
        format: Format::Dots,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    format!("Hi {OPEN}f\"><parameter name=\"a\">1</parameter>{CLOSE} bye"),
                    vec![one(t("Hi ")), call(0, "f", r#"{"a":1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    format!("{OPEN}f\"><parameter name=\"a\">x"),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"x"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<invoke name=\"f\"><parameter name=\"a\">x",
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    format!("{OPEN}f\"><parameter name=\"a>1</parameter>{CLOSE} ok"),
                    vec![
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "<invoke name=\"f\"><parameter name=\"a>1</parameter></invoke>",
                        )),
                        one(t(" ok")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <dots_function_call> tag.",
                    vec![one(t("Use a literal <dots_function_call> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done</dots_function_call> ok",
                    vec![one(t("done</dots_function_call> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    format!(
                        "{OPEN}f\"><parameter name=\"a\">1</parameter><invoke name=\"g\">{CLOSE}"
                    ),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<invoke name=\"f\"><parameter name=\"a\">1</parameter>",
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    format!(
                        "{OPEN}f\"><parameter name=\"a\">1</parameter><parameter name=\"a\">2</parameter>{CLOSE}"
                    ),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            "<invoke name=\"f\"><parameter name=\"a\">1</parameter><parameter name=\"a\">2</parameter></invoke>",
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    format!("{OPEN}get weather index={CLOSE}"),
                    vec![one(err(
                        Bad,
                        None,
                        "<invoke name=\"get weather index=</invoke>",
                    ))],
                ),
            ),
        ],
    }
}
