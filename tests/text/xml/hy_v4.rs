//! `hy-v4`: Tencent HY v4 (vLLM's `hy_v4` parser; `hy_v4` parses as this format):
//! `<tool_calls><tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value></tool_call></tool_calls>`.
//! Exact events at every chunking and every prefix.

use crate::exact::*;
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::Format;

#[test]
fn hy_v4_fixtures() {
    assert_eq!("hy_v4".parse::<Format>(), Ok(Format::HyV4));
    check_fixtures(
        Format::HyV4,
        &[
            fx(
                "single",
                "<tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call></tool_calls>",
                vec![call(0, "get_weather", r#"{"city":"Beijing"}"#)],
            ),
            fx(
                "reasoning, text, several calls, typed values",
                "<think>need two</think>Sure.<tool_calls><tool_call>a<arg_key>n</arg_key><arg_value>3</arg_value><arg_key>s</arg_key><arg_value>x y</arg_value></tool_call><tool_call>now</tool_call></tool_calls>",
                vec![
                    one(r("need two")),
                    one(t("Sure.")),
                    call(0, "a", r#"{"n":3,"s":"x y"}"#),
                    call(1, "now", "{}"),
                ],
            ),
            fx(
                "unicode, escapes and markup in a value",
                "<tool_calls><tool_call>edit<arg_key>q</arg_key><arg_value>é 😀 \"q\" \\ <b>\n</arg_value></tool_call></tool_calls> done",
                vec![
                    call(0, "edit", r#"{"q":"é 😀 \"q\" \\ <b>\n"}"#),
                    one(t(" done")),
                ],
            ),
            fx(
                "a literal tag in prose",
                "Use <tool_calls> tags.",
                vec![one(t("Use <tool_calls> tags."))],
            ),
            fx(
                "truncated in a value",
                "<tool_calls><tool_call>f<arg_key>a</arg_key><arg_value>x",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"x"#)),
                    one(err(
                        Cut,
                        Some(0),
                        "<tool_call>f<arg_key>a</arg_key><arg_value>x",
                    )),
                ],
            ),
            fx(
                "a repeated key is an error, the next call counts",
                "<tool_calls><tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>a</arg_key><arg_value>2</arg_value></tool_call><tool_call>g</tool_call></tool_calls>",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":1"#)),
                    one(err(
                        Bad,
                        Some(0),
                        "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>a</arg_key><arg_value>2</arg_value></tool_call>",
                    )),
                    call(1, "g", "{}"),
                ],
            ),
        ],
    );
}

/// `auto` picks `hy-v4` for `<tool_calls><tool_call>` (jamba's `<tool_calls>[` stays jamba).
#[test]
fn auto_detects_hy_v4() {
    let input = "Ok. <tool_calls>\n<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls>";
    let want = crate::common::assert_split_invariant(&make(Format::HyV4), input.as_bytes(), 0);
    let got = crate::common::assert_split_invariant(&make(Format::Auto), input.as_bytes(), 10);
    assert_eq!(evs(&got), evs(&want));
    assert_eq!(crate::common::calls(&got).len(), 1);
}

/// `hy-v4`'s answers to the universal cases: GLM's in a `<tool_calls>` section.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::xml::glm::{GLM_TAGS, universal_in};
    universal_in(
        Format::HyV4,
        &GLM_TAGS,
        Some(("<tool_calls>", "</tool_calls>")),
    )
}
