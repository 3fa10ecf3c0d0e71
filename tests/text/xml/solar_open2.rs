//! `solar-open2`: Upstage Solar Open 2's special-token calls (vLLM's `solar_open2` parser).
//! Its answers to the universal cases (GLM's, with its tokens), and the shapes of vLLM's
//! tests, at every chunking and every prefix.

use crate::exact::*;
use crate::universal::Universal;
use toolstream::ErrorKind::InvalidArguments as Bad;
use toolstream::Format;

const CALL: (&str, &str) = ("<|tool_call:start|>", "<|tool_call:end|>");

/// One argument line: `<|tool_arg:start|>k<|tool_arg:value|>v<|tool_arg:end|>`.
fn arg(k: &str, v: &str) -> String {
    format!("<|tool_arg:start|>{k}<|tool_arg:value|>{v}<|tool_arg:end|>\n")
}

/// Reasoning, text, two calls (one without arguments), a value's own whitespace and
/// newlines kept, a literal `<|tool_call:` in a value, a dropped argument end; detected by
/// `auto`.
#[test]
fn solar_open2_fixtures() {
    let (co, cc) = CALL;
    let two = format!(
        "<|think:start|>I should use a tool<|think:end|>Sure.{co}get_weather\n{}{}{cc}\n{co}get_time\n{cc} ok",
        arg("city", "Seoul"),
        arg("days", "3")
    );
    let kept = format!(
        "{co}write_file\n{}{cc}",
        arg("content", " two\nlines <|tool_call: not a token\n")
    );
    check_fixtures(
        Format::SolarOpen2,
        &[
            fx(
                "reasoning, text, two calls",
                two.clone(),
                vec![
                    one(r("I should use a tool")),
                    one(t("Sure.")),
                    call(0, "get_weather", r#"{"city":"Seoul","days":3}"#),
                    one(t("\n")),
                    call(1, "get_time", "{}"),
                    one(t(" ok")),
                ],
            ),
            fx(
                "a value's whitespace and a literal token prefix kept",
                kept,
                vec![call(
                    0,
                    "write_file",
                    r#"{"content":" two\nlines <|tool_call: not a token\n"}"#,
                )],
            ),
            // vLLM completes `broken` with the value cut at the dropped `<|tool_arg:end|>`;
            // here the call is an error carrying its bytes, and the next call is whole.
            fx(
                "a dropped argument end",
                format!(
                    "{co}broken\n<|tool_arg:start|>a<|tool_arg:value|>oops{cc}{co}get_weather\n{}{cc}",
                    arg("city", "Seoul")
                ),
                vec![
                    one(start(0, "broken")),
                    one(args(0, r#"{"a":"oops"#)),
                    one(err(
                        Bad,
                        Some(0),
                        &format!("{co}broken\n<|tool_arg:start|>a<|tool_arg:value|>oops{cc}"),
                    )),
                    call(1, "get_weather", r#"{"city":"Seoul"}"#),
                ],
            ),
        ],
    );
    // `auto` knows `<think>` before a syntax is detected, not Solar's reasoning tokens.
    let calls = two.split_once("<|think:end|>").map(|(_, c)| c).unwrap();
    assert_eq!(
        evs(&split(Format::Auto, calls)),
        evs(&split(Format::SolarOpen2, calls))
    );
}

/// `solar-open2`'s answers to the universal cases: GLM's, with its tokens (the value has
/// no opening tag of its own) and `<|think:start|>` reasoning.
pub(crate) fn universal() -> Universal {
    use crate::xml::glm::{GlmTags, universal_in};
    const SOLAR: GlmTags = GlmTags {
        call: CALL,
        key: ("<|tool_arg:start|>", "<|tool_arg:value|>"),
        value: ("", "<|tool_arg:end|>"),
    };
    Universal {
        reasoning: Some(("<|think:start|>", "<|think:end|>")),
        ..universal_in(Format::SolarOpen2, &SOLAR, None)
    }
}
