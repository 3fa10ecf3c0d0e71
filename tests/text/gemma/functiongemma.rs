//! `functiongemma`: FunctionGemma's
//! `<start_function_call>call:NAME{k:<escape>v<escape>}<end_function_call>` (vLLM's
//! `functiongemma` parser, llama.cpp's `function_gemma` handler). Exact events at every
//! chunking and every prefix.

use crate::exact::*;
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::Format;

#[test]
fn functiongemma_fixtures() {
    check_fixtures(
        Format::FunctionGemma,
        &[
            fx(
                "single",
                "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>",
                vec![call(0, "get_weather", r#"{"city":"Paris"}"#)],
            ),
            fx(
                "text around, the end-of-turn token dropped",
                "Sure. <start_function_call>call:f{n:3,b:true}<end_function_call> ok<end_of_turn>",
                vec![
                    one(t("Sure. ")),
                    call(0, "f", r#"{"n":3,"b":true}"#),
                    one(t(" ok")),
                ],
            ),
            // FunctionGemma generates `<start_function_response>` after its calls, a stop
            // sequence for engines (Google's formatting guide): dropped when it is left in.
            fx(
                "the function-response token after a call dropped",
                "<start_function_call>call:f{a:1}<end_function_call><start_function_response>",
                vec![call(0, "f", r#"{"a":1}"#)],
            ),
            fx(
                "several calls",
                "<start_function_call>call:a{}<end_function_call><start_function_call>call:b{x:<escape>1<escape>}<end_function_call>",
                vec![call(0, "a", "{}"), call(1, "b", r#"{"x":"1"}"#)],
            ),
            fx(
                "nested, unicode and escaped values, a '<' in a string",
                "<start_function_call>call:edit{q:<escape>é 😀 \"q\" \\ a<b <esc\n<escape>,o:{k:[<escape>x<escape>,-2.5e3]}}<end_function_call>",
                vec![call(
                    0,
                    "edit",
                    r#"{"q":"é 😀 \"q\" \\ a<b <esc\n","o":{"k":["x",-2.5e3]}}"#,
                )],
            ),
            fx(
                "empty arguments",
                "<start_function_call>call:now{}<end_function_call>",
                vec![call(0, "now", "{}")],
            ),
            fx(
                "Gemma 4's tokens are text here",
                r#"<|tool_call>call:f{}<tool_call|>"#,
                vec![one(t(r#"<|tool_call>call:f{}<tool_call|>"#))],
            ),
            fx(
                "a literal opener in prose",
                "Write <start_function_call> first.",
                vec![one(t("Write <start_function_call> first."))],
            ),
            fx(
                "truncated in the arguments",
                "Hi <start_function_call>call:f{a:<escape>x",
                vec![
                    one(t("Hi ")),
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"x"#)),
                    one(err(Cut, Some(0), "<start_function_call>call:f{a:<escape>x")),
                ],
            ),
            fx(
                "malformed arguments, a later call counts",
                "<start_function_call>call:f{a:x}<end_function_call> <start_function_call>call:g{}<end_function_call>",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"#)),
                    one(err(
                        Bad,
                        Some(0),
                        "<start_function_call>call:f{a:x}<end_function_call>",
                    )),
                    one(t(" ")),
                    call(1, "g", "{}"),
                ],
            ),
            fx(
                "an opener inside a broken call ends it",
                "<start_function_call>call:f{a:<start_function_call>call:g{}<end_function_call>",
                vec![
                    one(start(0, "f")),
                    // Nothing of the `<` was written: a string's `"` waits for its
                    // whole `<escape>`.
                    one(args(0, r#"{"a":"#)),
                    one(err(Cut, Some(0), "<start_function_call>call:f{a:")),
                    call(1, "g", "{}"),
                ],
            ),
        ],
    );
}

/// `functiongemma`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::FunctionGemma,
        reasoning: None,
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "A<start_function_call>call:f{a:1}<end_function_call> B",
                    vec![one(t("A")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi <start_function_call>call:f{a:<escape>é",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"é"#)),
                        one(err(Cut, Some(0), "<start_function_call>call:f{a:<escape>é")),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <start_function_call>call:f{a:x,b:<escape>}<escape>}<end_function_call> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"#)),
                        one(err(
                            Bad,
                            Some(0),
                            "<start_function_call>call:f{a:x,b:<escape>}<escape>}<end_function_call>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <start_function_call> tag.",
                    vec![one(t("Use a literal <start_function_call> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done<end_function_call> ok",
                    vec![one(t("done<end_function_call> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    "<start_function_call>call:f{a:1,<start_function_call>call:g{}<end_function_call>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(Cut, Some(0), "<start_function_call>call:f{a:1,")),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    "<start_function_call>call:f{a:1,a:2}<end_function_call>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            "<start_function_call>call:f{a:1,a:2}<end_function_call>",
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<start_function_call>call:get weather" x{}<end_function_call>"#,
                    vec![one(err(
                        ErrorKind::MissingName,
                        None,
                        r#"<start_function_call>call:get weather" x{}<end_function_call>"#,
                    ))],
                ),
            ),
        ],
    }
}
