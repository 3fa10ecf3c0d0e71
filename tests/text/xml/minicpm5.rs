//! `minicpm5`: MiniCPM 5's bare `<function name="..">` calls (vLLM's `minicpm5xml`
//! parser; that name parses as this format). Exact events at every chunking and every
//! prefix.

use crate::exact::*;
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::Format;

#[test]
fn minicpm5_fixtures() {
    assert_eq!("minicpm5xml".parse::<Format>(), Ok(Format::MiniCpm5));
    check_fixtures(
        Format::MiniCpm5,
        &[
            fx(
                "single, values on their own lines",
                "<function name=\"get_weather\">\n<param name=\"city\">\nParis\n</param>\n<param name=\"days\">3</param>\n</function>",
                vec![call(0, "get_weather", r#"{"city":"Paris","days":3}"#)],
            ),
            fx(
                "reasoning, text around, several calls, Python literals, no arguments",
                "<think>hm</think>Ok <function name=\"a\"><param name=\"b\">True</param><param name=\"n\">None</param></function>\n<function name=\"now\"></function> done",
                vec![
                    one(r("hm")),
                    one(t("Ok ")),
                    call(0, "a", r#"{"b":true,"n":null}"#),
                    one(t("\n")),
                    call(1, "now", "{}"),
                    one(t(" done")),
                ],
            ),
            fx(
                "unicode, escapes, markup and a nested object in values; other attributes",
                "<function name=\"edit\" id=\"1\"><param name=\"q\">é 😀 \"q\" \\ <b></param><param name=\"o\">{\"a\": [1, {\"b\": null}]}</param></function>",
                vec![call(
                    0,
                    "edit",
                    r#"{"q":"é 😀 \"q\" \\ <b>","o":{"a": [1, {"b": null}]}}"#,
                )],
            ),
            fx(
                "qwen-xml's <function=..> and a literal tag are text",
                "Use <function=f> or <function name= here.",
                vec![one(t("Use <function=f> or <function name= here."))],
            ),
            fx(
                "truncated in a value",
                "<function name=\"f\"><param name=\"a\">x",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"x"#)),
                    one(err(
                        Cut,
                        Some(0),
                        "<function name=\"f\"><param name=\"a\">x",
                    )),
                ],
            ),
            fx(
                "a call between the parameters of an unclosed one",
                "<function name=\"f\"><param name=\"a\">1</param><function name=\"g\"><param name=\"b\">2</param></function>",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":1"#)),
                    one(err(
                        Cut,
                        Some(0),
                        "<function name=\"f\"><param name=\"a\">1</param>",
                    )),
                    call(1, "g", r#"{"b":2}"#),
                ],
            ),
            fx(
                "a repeated parameter is an error, the next call counts",
                "<function name=\"f\"><param name=\"a\">1</param><param name=\"a\">2</param></function><function name=\"g\"></function>",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":1"#)),
                    one(err(
                        Bad,
                        Some(0),
                        "<function name=\"f\"><param name=\"a\">1</param><param name=\"a\">2</param></function>",
                    )),
                    call(1, "g", "{}"),
                ],
            ),
        ],
    );
}

#[test]
fn a_damaged_name_quote_is_an_error_not_a_junk_name() {
    // Issue 33: `name="get_weather index="1"` made a call named `get_weather index=`.
    check_fixtures(
        Format::MiniCpm5,
        &[fx(
            "a damaged quote after the name",
            "<function name=\"get_weather index=\"1\"><param name=\"a\">1</param></function> ok",
            vec![
                one(err(
                    Bad,
                    None,
                    "<function name=\"get_weather index=\"1\"><param name=\"a\">1</param></function>",
                )),
                one(t(" ok")),
            ],
        )],
    );
}

/// `minicpm5`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::MiniCpm5,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A<function name="f"><param name="a">1</param></function> B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi <function name="f"><param name="a">1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"#)),
                        one(err(Cut, Some(0), r#"<function name="f"><param name="a">1"#)),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <function name=\"f\"><param name=\"a\nb\">1</param></function> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "<function name=\"f\"><param name=\"a\nb\">1</param></function>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                // raw is all the rest: "<function name=\" tag.\nMore.".
                sample(
                    "Use a literal <function name=\" tag.\nMore.",
                    vec![one(t("Use a literal <function name=\" tag.\nMore."))],
                ),
            ),
            (
                Case::StrayClose,
                sample("done</function> ok", vec![one(t("done</function> ok"))]),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<function name="f"><param name="a">1</param><function name="g"></function>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<function name="f"><param name="a">1</param>"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"Hi <function name="f"><param name="a">1</param><param name="a">2</param></function> after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<function name="f"><param name="a">1</param><param name="a">2</param></function>"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<function name="get weather index="></function>"#,
                    vec![one(err(
                        Bad,
                        None,
                        r#"<function name="get weather index="></function>"#,
                    ))],
                ),
            ),
        ],
    }
}

#[test]
fn cdata_values_are_unwrapped() {
    // Issue 33: a `<![CDATA[..]]>` value kept its wrapper (`"<![CDATA[x]]>"`). Its content
    // is the value, verbatim: a tag in it is content; whitespace around it is layout.
    check_fixtures(
        Format::MiniCpm5,
        &[
            fx(
                "markup, a `]` before the close, a close tag inside, text after the section",
                "<function name=\"f\"><param name=\"a\"><![CDATA[x <b> ]]&y]]]></param><param name=\"b\">\n<![CDATA[</param> \"q\"\n]]>\n</param><param name=\"c\"> <![CDATA[1]]> z</param></function> ok",
                vec![
                    call(
                        0,
                        "f",
                        r#"{"a":"x <b> ]]&y]","b":"</param> \"q\"\n","c":"1 z"}"#,
                    ),
                    one(t(" ok")),
                ],
            ),
            fx(
                "a prefix of the opener is text of the value",
                "<function name=\"f\"><param name=\"a\"><![CD</param><param name=\"b\"><![CDATAx</param></function>",
                vec![call(0, "f", r#"{"a":"<![CD","b":"<![CDATAx"}"#)],
            ),
            fx(
                "cut off inside the section",
                "<function name=\"f\"><param name=\"a\"><![CDATA[x]",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"x"#)),
                    one(err(
                        Cut,
                        Some(0),
                        "<function name=\"f\"><param name=\"a\"><![CDATA[x]",
                    )),
                ],
            ),
        ],
    );
}
