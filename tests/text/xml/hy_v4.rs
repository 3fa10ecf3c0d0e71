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

#[test]
fn tags_with_the_checkpoint_suffix_are_read() {
    // Issue 33: HY4-preview's (and hosted Hy3's) structural tokens carry the checkpoint
    // suffix `:6124c78e` (vLLM reads it from the vocabulary), reasoning tags too.
    check_fixtures(
        Format::HyV4,
        &[
            fx(
                "suffixed, several calls, reasoning and text around",
                "<think:6124c78e>plan</think:6124c78e>Ok.\n<tool_calls:6124c78e>\n<tool_call:6124c78e>get_weather\n<arg_key:6124c78e>city</arg_key:6124c78e>\n<arg_value:6124c78e>Beijing</arg_value:6124c78e>\n<arg_key:6124c78e>n</arg_key:6124c78e>\n<arg_value:6124c78e>2</arg_value:6124c78e>\n</tool_call:6124c78e>\n<tool_call:6124c78e>now\n</tool_call:6124c78e>\n</tool_calls:6124c78e> done",
                vec![
                    one(r("plan")),
                    one(t("Ok.\n")),
                    call(0, "get_weather", r#"{"city":"Beijing","n":2}"#),
                    call(1, "now", "{}"),
                    one(t(" done")),
                ],
            ),
            fx(
                "a suffixed tag in prose",
                "Use <tool_calls:6124c78e> tags.",
                vec![one(t("Use <tool_calls:6124c78e> tags."))],
            ),
        ],
    );
    // `auto` detects the suffixed section.
    let input = "<tool_calls:6124c78e><tool_call:6124c78e>f<arg_key:6124c78e>a</arg_key:6124c78e><arg_value:6124c78e>x</arg_value:6124c78e></tool_call:6124c78e></tool_calls:6124c78e>";
    let want = crate::common::assert_split_invariant(&make(Format::HyV4), input.as_bytes(), 0);
    let got = crate::common::assert_split_invariant(&make(Format::Auto), input.as_bytes(), 10);
    assert_eq!(evs(&got), evs(&want));
    assert_eq!(crate::common::calls(&got).len(), 1);
}

#[test]
fn a_call_close_inside_a_value_is_an_error_not_half_a_call() {
    // Issue 33: a literal `</tool_call>` inside `<arg_value>` completed the call with
    // the arguments before it. A value ends only at its own close: a call's or
    // section's close (or the next key) before it makes the call malformed, read to its
    // own close; the section goes on.
    check_fixtures(
        Format::HyV4,
        &[
            fx(
                "a literal call close in a value",
                "<tool_calls><tool_call>f<arg_key>a</arg_key><arg_value>x </tool_call> y</arg_value><arg_key>b</arg_key><arg_value>2</arg_value></tool_call><tool_call>g</tool_call></tool_calls> ok",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"x "#)),
                    one(err(
                        Bad,
                        Some(0),
                        "<tool_call>f<arg_key>a</arg_key><arg_value>x </tool_call> y</arg_value><arg_key>b</arg_key><arg_value>2</arg_value></tool_call>",
                    )),
                    call(1, "g", "{}"),
                    one(t(" ok")),
                ],
            ),
            fx(
                "a dropped value close before the call's",
                "<tool_calls><tool_call>f<arg_key>a</arg_key><arg_value>1</tool_call></tool_calls> ok",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"#)),
                    one(err(
                        Bad,
                        Some(0),
                        "<tool_call>f<arg_key>a</arg_key><arg_value>1</tool_call></tool_calls>",
                    )),
                    one(t(" ok")),
                ],
            ),
        ],
    );
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

/// `hy-v4`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![fx!(
        "hy-v4",
        "a call tag between the parameters of an unclosed call",
        "<tool_calls><tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value><tool_call>g<arg_key>b</arg_key><arg_value>2</arg_value></tool_call></tool_calls>",
        [
            start(0, "f"),
            args(0, r#"{"a":1"#),
            err(
                Cut,
                Some(0),
                "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value>"
            ),
            call(1, "g", r#"{"b":2}"#),
        ],
    )]
}

/// `hy-v4`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::HyV4;
    Edges {
        broken: vec![
            b(
                HyV4,
                "cut",
                (
                    "Hi ",
                    "<tool_calls>",
                    "<tool_call>f<arg_key>a</arg_key><arg_value>1",
                    "",
                ),
                Cut,
                0,
                "Hi ",
            ),
            b(
                HyV4,
                "corrupt",
                (
                    "Hi ",
                    "<tool_calls>",
                    "<tool_call>f<arg_key>a\nb</arg_key><arg_value>1</arg_value></tool_call>",
                    "</tool_calls> after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
        ],
        markers: vec![(
            HyV4,
            "<tool_calls><tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls>",
            "A",
            " B",
            "A B",
        )],
    }
}
