//! `step3`: StepFun Step-3's StepTML calls (vLLM's and SGLang's `step3` parsers). Exact
//! events at every chunking (the multi-byte bars split at every byte) and every prefix.

use crate::exact::*;
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::Format;

const BEGIN: &str = "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"";
const END: &str = "</steptml:invoke><｜tool_call_end｜>";

#[test]
fn step3_fixtures() {
    assert_eq!("step3".parse::<Format>(), Ok(Format::Step3));
    check_fixtures(
        Format::Step3,
        &[
            fx(
                "single, on lines, text around (SGLang's test shape)",
                format!(
                    "Let me help you.\n<｜tool_calls_begin｜>\n{BEGIN}search\">\n<steptml:parameter name=\"query\">rust programming</steptml:parameter>\n<steptml:parameter name=\"limit\">10</steptml:parameter>\n{END}\n<｜tool_calls_end｜>\nHere are the results..."
                ),
                vec![
                    one(t("Let me help you.\n")),
                    call(0, "search", r#"{"query":"rust programming","limit":10}"#),
                    one(t("\nHere are the results...")),
                ],
            ),
            fx(
                "reasoning, several calls, no arguments",
                format!(
                    "<think>two</think><｜tool_calls_begin｜>{BEGIN}a\"><steptml:parameter name=\"o\">{{\"k\": [1]}}</steptml:parameter>{END}{BEGIN}now\">{END}<｜tool_calls_end｜>"
                ),
                vec![
                    one(r("two")),
                    call(0, "a", r#"{"o":{"k": [1]}}"#),
                    call(1, "now", "{}"),
                ],
            ),
            fx(
                "unicode, escapes and markup in a value",
                format!(
                    "<｜tool_calls_begin｜>{BEGIN}edit\"><steptml:parameter name=\"q\">é 😀 \"q\" \\ <b>\n</steptml:parameter>{END}<｜tool_calls_end｜>"
                ),
                vec![call(0, "edit", r#"{"q":"é 😀 \"q\" \\ <b>\n"}"#)],
            ),
            fx(
                "a call outside the section is text",
                format!("x {BEGIN}f\">{END}"),
                vec![one(t(&format!("x {BEGIN}f\">{END}")))],
            ),
            fx(
                "truncated in a value",
                format!("<｜tool_calls_begin｜>{BEGIN}f\"><steptml:parameter name=\"a\">x"),
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"x"#)),
                    one(err(
                        Cut,
                        Some(0),
                        &format!("{BEGIN}f\"><steptml:parameter name=\"a\">x"),
                    )),
                ],
            ),
            fx(
                "a call between the parameters of an unclosed one",
                format!(
                    "<｜tool_calls_begin｜>{BEGIN}f\"><steptml:parameter name=\"a\">1</steptml:parameter>{BEGIN}g\">{END}<｜tool_calls_end｜>"
                ),
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":1"#)),
                    one(err(
                        Cut,
                        Some(0),
                        &format!("{BEGIN}f\"><steptml:parameter name=\"a\">1</steptml:parameter>"),
                    )),
                    call(1, "g", "{}"),
                ],
            ),
            fx(
                "a repeated parameter is an error, the next call counts",
                format!(
                    "<｜tool_calls_begin｜>{BEGIN}f\"><steptml:parameter name=\"a\">1</steptml:parameter><steptml:parameter name=\"a\">2</steptml:parameter>{END}{BEGIN}g\">{END}<｜tool_calls_end｜>"
                ),
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":1"#)),
                    one(err(
                        Bad,
                        Some(0),
                        &format!(
                            "{BEGIN}f\"><steptml:parameter name=\"a\">1</steptml:parameter><steptml:parameter name=\"a\">2</steptml:parameter>{END}"
                        ),
                    )),
                    call(1, "g", "{}"),
                ],
            ),
        ],
    );
}

/// `step3`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Step3,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜> B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="a">1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="a">1"#,
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\nb\">1</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\nb\">1</steptml:parameter></steptml:invoke><｜tool_call_end｜>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <｜tool_calls_begin｜> tag.",
                    vec![one(t("Use a literal <｜tool_calls_begin｜> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done<｜tool_calls_end｜> ok",
                    vec![one(t("done<｜tool_calls_end｜> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="g"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter>"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"Hi <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter><steptml:parameter name="a">2</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜> after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="a">1</steptml:parameter><steptml:parameter name="a">2</steptml:parameter></steptml:invoke><｜tool_call_end｜>"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get weather index="></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"#,
                    vec![one(err(
                        Bad,
                        None,
                        r#"<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get weather index="></steptml:invoke><｜tool_call_end｜>"#,
                    ))],
                ),
            ),
        ],
    }
}
