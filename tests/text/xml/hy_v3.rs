//! `hy-v3`: Tencent Hy3 (vLLM's `hy_v3` parser; `hy_v3` parses as this format): HY v4's
//! markers with `<tool_sep>` after the name. Exact events at every chunking and every
//! prefix.

use crate::exact::*;
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut, UnexpectedPayload};
use toolstream::Format;

#[test]
fn hy_v3_fixtures() {
    assert_eq!("hy_v3".parse::<Format>(), Ok(Format::HyV3));
    check_fixtures(
        Format::HyV3,
        &[
            fx(
                "single, inline",
                "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>date</arg_key><arg_value>2026-03-30</arg_value></tool_call></tool_calls>",
                vec![call(
                    0,
                    "get_weather",
                    r#"{"city":"Beijing","date":"2026-03-30"}"#,
                )],
            ),
            fx(
                "reasoning, text, several calls on lines, typed values, no arguments",
                "<think>two</think>Checking.<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>n</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls> done",
                vec![
                    one(r("two")),
                    one(t("Checking.")),
                    call(0, "get_weather", r#"{"city":"Beijing","n":3}"#),
                    call(1, "get_current_date", "{}"),
                    one(t(" done")),
                ],
            ),
            fx(
                "unicode, escapes, markup and a nested object in values",
                "<tool_calls><tool_call>edit<tool_sep><arg_key>q</arg_key><arg_value>é 😀 \"q\" \\ <b>\n</arg_value><arg_key>o</arg_key><arg_value>{\"a\": [1, {\"b\": null}]}</arg_value></tool_call></tool_calls>",
                vec![call(
                    0,
                    "edit",
                    r#"{"q":"é 😀 \"q\" \\ <b>\n","o":{"a": [1, {"b": null}]}}"#,
                )],
            ),
            fx(
                "without <tool_sep>: read as HY v4's",
                "<tool_calls><tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls>",
                vec![call(0, "f", r#"{"a":1}"#)],
            ),
            fx(
                "a literal tag in prose",
                "Use <tool_calls> tags.",
                vec![one(t("Use <tool_calls> tags."))],
            ),
            fx(
                "truncated inside <tool_sep>",
                "A <tool_calls><tool_call>f<tool_s",
                vec![
                    one(t("A ")),
                    one(start(0, "f")),
                    one(err(Cut, Some(0), "<tool_call>f<tool_s")),
                ],
            ),
            fx(
                "truncated in a value",
                "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>x",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"x"#)),
                    one(err(
                        Cut,
                        Some(0),
                        "<tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>x",
                    )),
                ],
            ),
            fx(
                "a second <tool_sep> is stray text in the call, reported after it",
                "<tool_calls><tool_call>f<tool_sep><tool_sep><arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls> B",
                vec![
                    call(0, "f", r#"{"a":1}"#),
                    one(err(UnexpectedPayload, None, "<tool_sep>")),
                    one(t(" B")),
                ],
            ),
            fx(
                "a call tag between the parameters of an unclosed call",
                "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value><tool_call>g<tool_sep><arg_key>b</arg_key><arg_value>2</arg_value></tool_call></tool_calls>",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":1"#)),
                    one(err(
                        Cut,
                        Some(0),
                        "<tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value>",
                    )),
                    call(1, "g", r#"{"b":2}"#),
                ],
            ),
            fx(
                "a repeated key is an error, the next call counts",
                "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value><arg_key>a</arg_key><arg_value>2</arg_value></tool_call><tool_call>g<tool_sep></tool_call></tool_calls>",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":1"#)),
                    one(err(
                        Bad,
                        Some(0),
                        "<tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value><arg_key>a</arg_key><arg_value>2</arg_value></tool_call>",
                    )),
                    call(1, "g", "{}"),
                ],
            ),
        ],
    );
}

#[test]
fn tags_with_the_checkpoint_suffix_are_read() {
    // Issue 33: hosted Hy3 output carries the checkpoint suffix `:6124c78e` on every
    // structural token, `<tool_sep:6124c78e>` too.
    check_fixtures(
        Format::HyV3,
        &[fx(
            "suffixed, text before",
            "直接搜索。\n<tool_calls:6124c78e>\n<tool_call:6124c78e>web_search<tool_sep:6124c78e>\n<arg_key:6124c78e>query</arg_key:6124c78e>\n<arg_value:6124c78e>北京 天气 今天 实时</arg_value:6124c78e>\n</tool_call:6124c78e>\n</tool_calls:6124c78e>",
            vec![
                one(t("直接搜索。\n")),
                call(0, "web_search", r#"{"query":"北京 天气 今天 实时"}"#),
            ],
        )],
    );
    let input = "<tool_calls:6124c78e><tool_call:6124c78e>f<tool_sep:6124c78e><arg_key:6124c78e>a</arg_key:6124c78e><arg_value:6124c78e>1</arg_value:6124c78e></tool_call:6124c78e></tool_calls:6124c78e>";
    let want = crate::common::assert_split_invariant(&make(Format::HyV3), input.as_bytes(), 0);
    let got = crate::common::assert_split_invariant(&make(Format::Auto), input.as_bytes(), 10);
    assert_eq!(evs(&got), evs(&want));
    assert_eq!(crate::common::calls(&got).len(), 1);
}

/// `hy-v3`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::HyV3,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "A<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls> B",
                    vec![one(t("A")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi <tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1",
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <tool_calls><tool_call>f<tool_sep><arg_key>a\nb</arg_key><arg_value>1</arg_value></tool_call></tool_calls> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "<tool_call>f<tool_sep><arg_key>a\nb</arg_key><arg_value>1</arg_value></tool_call>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <tool_calls> tag.",
                    vec![one(t("Use a literal <tool_calls> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample("done</tool_calls> ok", vec![one(t("done</tool_calls> ok"))]),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value><tool_call>g<tool_sep></tool_call></tool_calls>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value>",
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value><arg_key>a</arg_key><arg_value>2</arg_value></tool_call></tool_calls>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            "<tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value><arg_key>a</arg_key><arg_value>2</arg_value></tool_call>",
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<tool_calls><tool_call>get weather" x<tool_sep></tool_call></tool_calls>"#,
                    vec![one(err(
                        Bad,
                        None,
                        r#"<tool_call>get weather" x<tool_sep></tool_call>"#,
                    ))],
                ),
            ),
        ],
    }
}
