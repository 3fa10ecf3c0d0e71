//! `gigachat35`: GigaChat 3.5's GCML (vLLM's `gigachat35` parser): DSML's grammar with
//! the `｜GCML｜` sentinel. Exact events at every chunking (the multi-byte bars split at
//! every byte) and every prefix.

use crate::exact::*;
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::Format;

#[test]
fn gigachat35_fixtures() {
    assert_eq!("gigachat35".parse::<Format>(), Ok(Format::GigaChat35));
    check_fixtures(
        Format::GigaChat35,
        &[
            fx(
                "single, typed by the string attribute, trailing </s> dropped",
                "<｜GCML｜tool_calls>\n<｜GCML｜invoke name=\"get_weather\">\n<｜GCML｜parameter name=\"city\" string=\"true\">Moscow</｜GCML｜parameter>\n<｜GCML｜parameter name=\"days\" string=\"false\">3</｜GCML｜parameter>\n<｜GCML｜parameter name=\"id\" string=\"true\">007</｜GCML｜parameter>\n</｜GCML｜invoke>\n</｜GCML｜tool_calls></s>",
                vec![call(
                    0,
                    "get_weather",
                    r#"{"city":"Moscow","days":3,"id":"007"}"#,
                )],
            ),
            fx(
                "reasoning, text around, several calls, no arguments",
                "<think>plan</think>Сейчас. <｜GCML｜tool_calls><｜GCML｜invoke name=\"a\"><｜GCML｜parameter name=\"o\" string=\"false\">{\"k\": [1, 2]}</｜GCML｜parameter></｜GCML｜invoke><｜GCML｜invoke name=\"now\"></｜GCML｜invoke></｜GCML｜tool_calls> Готово.",
                vec![
                    one(r("plan")),
                    one(t("Сейчас. ")),
                    call(0, "a", r#"{"o":{"k": [1, 2]}}"#),
                    call(1, "now", "{}"),
                    one(t(" Готово.")),
                ],
            ),
            fx(
                "unicode, quotes, backslashes and markup in a string value",
                "<｜GCML｜tool_calls><｜GCML｜invoke name=\"edit\"><｜GCML｜parameter name=\"q\" string=\"true\">é 😀 \"q\" \\ <b>\n</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>",
                vec![call(0, "edit", r#"{"q":"é 😀 \"q\" \\ <b>\n"}"#)],
            ),
            fx(
                "an invoke outside a section is text",
                "x <｜GCML｜invoke name=\"f\"></｜GCML｜invoke>",
                vec![one(t("x <｜GCML｜invoke name=\"f\"></｜GCML｜invoke>"))],
            ),
            fx(
                "truncated in a value",
                "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"true\">x",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"x"#)),
                    one(err(
                        Cut,
                        Some(0),
                        "<｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"true\">x",
                    )),
                ],
            ),
            fx(
                "an invoke between the parameters of an unclosed one",
                "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"false\">1</｜GCML｜parameter><｜GCML｜invoke name=\"g\"><｜GCML｜parameter name=\"b\" string=\"true\">2</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":1"#)),
                    one(err(
                        Cut,
                        Some(0),
                        "<｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"false\">1</｜GCML｜parameter>",
                    )),
                    call(1, "g", r#"{"b":"2"}"#),
                ],
            ),
            fx(
                "a repeated parameter is an error, the next invoke counts",
                "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"true\">1</｜GCML｜parameter><｜GCML｜parameter name=\"a\" string=\"true\">2</｜GCML｜parameter></｜GCML｜invoke><｜GCML｜invoke name=\"g\"></｜GCML｜invoke></｜GCML｜tool_calls>",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"1""#)),
                    one(err(
                        Bad,
                        Some(0),
                        "<｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"true\">1</｜GCML｜parameter><｜GCML｜parameter name=\"a\" string=\"true\">2</｜GCML｜parameter></｜GCML｜invoke>",
                    )),
                    call(1, "g", "{}"),
                ],
            ),
        ],
    );
}

#[test]
fn a_json_string_in_a_string_false_value_is_decoded() {
    // Issue 33: `string="false"` says the value is JSON text; a JSON string is JSON
    // text (vLLM's parser `json.loads` it), so its quotes and escapes are read, not
    // kept. Text that does not parse (an unclosed quote, a string then more text) stays
    // the raw text as a string.
    check_fixtures(
        Format::GigaChat35,
        &[
            fx(
                "a JSON string, escapes decoded",
                "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"city\" string=\"false\"> \"Mos\\\"cow\\u00e9\" \n</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>",
                vec![call(0, "f", r#"{"city":"Mos\"cow\u00e9"}"#)],
            ),
            fx(
                "not one JSON string: the raw text",
                "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"false\">\"x\" y</｜GCML｜parameter><｜GCML｜parameter name=\"b\" string=\"false\">\"open</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>",
                vec![call(0, "f", r#"{"a":"\"x\" y","b":"\"open"}"#)],
            ),
        ],
    );
}

/// `gigachat35`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::GigaChat35,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A<｜GCML｜tool_calls><｜GCML｜invoke name="f"><｜GCML｜parameter name="a" string="false">1</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls> B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi <｜GCML｜tool_calls><｜GCML｜invoke name="f"><｜GCML｜parameter name="a" string="false">1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<｜GCML｜invoke name="f"><｜GCML｜parameter name="a" string="false">1"#,
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\nb\" string=\"false\">1</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "<｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\nb\" string=\"false\">1</｜GCML｜parameter></｜GCML｜invoke>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <｜GCML｜tool_calls> tag.",
                    vec![one(t("Use a literal <｜GCML｜tool_calls> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done</｜GCML｜tool_calls> ok",
                    vec![one(t("done</｜GCML｜tool_calls> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<｜GCML｜tool_calls><｜GCML｜invoke name="f"><｜GCML｜parameter name="a" string="false">1</｜GCML｜parameter><｜GCML｜invoke name="g"></｜GCML｜invoke></｜GCML｜tool_calls>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<｜GCML｜invoke name="f"><｜GCML｜parameter name="a" string="false">1</｜GCML｜parameter>"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"Hi <｜GCML｜tool_calls><｜GCML｜invoke name="f"><｜GCML｜parameter name="a" string="true">1</｜GCML｜parameter><｜GCML｜parameter name="a" string="true">2</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls> after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"1""#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<｜GCML｜invoke name="f"><｜GCML｜parameter name="a" string="true">1</｜GCML｜parameter><｜GCML｜parameter name="a" string="true">2</｜GCML｜parameter></｜GCML｜invoke>"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<｜GCML｜tool_calls><｜GCML｜invoke name="get weather index="></｜GCML｜invoke></｜GCML｜tool_calls>"#,
                    vec![one(err(
                        Bad,
                        None,
                        r#"<｜GCML｜invoke name="get weather index="></｜GCML｜invoke>"#,
                    ))],
                ),
            ),
        ],
    }
}
