//! `gemma4`: the bare `<|tool_call>:NAME{..}` opener (the `call` keyword left out),
//! which Gemma 4 writes now and then and vLLM's parser dropped silently (vllm#53431),
//! beside `<|tool_call>call:NAME{..}`. Exact events at every chunking and every prefix.

use crate::exact::*;
use toolstream::ErrorKind::{InvalidArguments as Bad, MissingName, Truncated as Cut};
use toolstream::Format;

#[test]
fn gemma4_bare_opener_fixtures() {
    check_fixtures(
        Format::Gemma4,
        &[
            fx(
                "single",
                r#"<|tool_call>:get_weather{city:<|"|>Paris<|"|>}<tool_call|>"#,
                vec![call(0, "get_weather", r#"{"city":"Paris"}"#)],
            ),
            fx(
                "text around, the end-of-turn token dropped",
                r#"Let me check. <|tool_call>:f{n:3}<tool_call|> Done.<turn|>"#,
                vec![
                    one(t("Let me check. ")),
                    call(0, "f", r#"{"n":3}"#),
                    one(t(" Done.")),
                ],
            ),
            // Gemma 4 ends a turn that calls a tool with `<|tool_response>` (llama.cpp's
            // end of generation, transformers' response_schema ends there): a server that
            // does not strip it leaves it in the text.
            fx(
                "the tool-response token after a call dropped",
                "<|channel>thought\nx<channel|><|tool_call>call:f{a:1}<tool_call|><|tool_response>",
                vec![one(r("x")), call(0, "f", r#"{"a":1}"#)],
            ),
            fx(
                "several calls, both openers",
                r#"<|tool_call>:a{}<tool_call|><|tool_call>call:b{x:[1,true]}<tool_call|><|tool_call>:c{}<tool_call|>"#,
                vec![
                    call(0, "a", "{}"),
                    call(1, "b", r#"{"x":[1,true]}"#),
                    call(2, "c", "{}"),
                ],
            ),
            fx(
                "nested, unicode and escaped values",
                "<|tool_call>:edit{q:<|\"|>é 😀 \"q\" \\ \n<|\"|>,o:{k:[{z:null}]}}<tool_call|>",
                vec![call(
                    0,
                    "edit",
                    r#"{"q":"é 😀 \"q\" \\ \n","o":{"k":[{"z":null}]}}"#,
                )],
            ),
            fx(
                "a literal opener followed by ':' and no name",
                "<|tool_call>:{a:1}<tool_call|> x",
                vec![
                    one(err(MissingName, None, "<|tool_call>:{a:1}<tool_call|>")),
                    one(t(" x")),
                ],
            ),
            fx(
                "the opener followed by something else is text",
                "Use <|tool_call> tokens.",
                vec![one(t("Use <|tool_call> tokens."))],
            ),
            fx(
                "truncated in the name",
                "<|tool_call>:get_we",
                vec![one(err(Cut, None, "<|tool_call>:get_we"))],
            ),
            fx(
                "truncated in the arguments",
                "<|tool_call>:f{a:<|\"|>x",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"x"#)),
                    one(err(Cut, Some(0), "<|tool_call>:f{a:<|\"|>x")),
                ],
            ),
            fx(
                "malformed arguments, a later call counts",
                "<|tool_call>:f{a:x}<tool_call|><|tool_call>:g{}<tool_call|>",
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"#)),
                    one(err(Bad, Some(0), "<|tool_call>:f{a:x}<tool_call|>")),
                    call(1, "g", "{}"),
                ],
            ),
        ],
    );
}

/// `gemma4`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Gemma4,
        reasoning: Some(("<|channel>thought", "<channel|>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "A<|tool_call>call:f{a:1}<tool_call|> B",
                    vec![one(t("A")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi <|tool_call>call:f{a:<|"|>é"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"é"#)),
                        one(err(Cut, Some(0), r#"<|tool_call>call:f{a:<|"|>é"#)),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"Hi <|tool_call>call:f{a:x,b:<|"|>}<|"|>}<tool_call|> after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<|tool_call>call:f{a:x,b:<|"|>}<|"|>}<tool_call|>"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <|tool_call> tag.",
                    vec![one(t("Use a literal <|tool_call> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample("done<tool_call|> ok", vec![one(t("done<tool_call|> ok"))]),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    "<|tool_call>call:f{a:1,<|tool_call>call:g{}<tool_call|>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(Cut, Some(0), "<|tool_call>call:f{a:1,")),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    "<|tool_call>call:f{a:1,a:2}<tool_call|>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(Bad, Some(0), "<|tool_call>call:f{a:1,a:2}<tool_call|>")),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<|tool_call>call:get weather" x{}<tool_call|>"#,
                    vec![one(err(
                        ErrorKind::MissingName,
                        None,
                        r#"<|tool_call>call:get weather" x{}<tool_call|>"#,
                    ))],
                ),
            ),
        ],
    }
}

/// `gemma4`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "gemma4",
            "<|tool_call> inside the arguments",
            "<|tool_call>call:f{a:1<|tool_call>call:g{b:1}<tool_call|>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(Cut, Some(0), "<|tool_call>call:f{a:1"),
                call(1, "g", r#"{"b":1}"#),
            ],
        ),
        fx!(
            "gemma4",
            "<|tool_call> where a value begins (its <| read as the start of <|\"|>)",
            "<|tool_call>call:f{a:<|tool_call>call:g{b:1}<tool_call|>",
            [
                start(0, "f"),
                args(0, r#"{"a":"#),
                err(Cut, Some(0), "<|tool_call>call:f{a:"),
                call(1, "g", r#"{"b":1}"#),
            ],
        ),
        fx!(
            "gemma4",
            "a missing closing <|\"|>: the close token ends the call, the next one counts",
            r#"<|tool_call>call:f{a:<|"|>x}<tool_call|><|tool_call>call:g{b:1}<tool_call|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x}"#),
                err(Bad, Some(0), r#"<|tool_call>call:f{a:<|"|>x}<tool_call|>"#),
                call(1, "g", r#"{"b":1}"#),
            ],
        ),
        fx!(
            "gemma4",
            "<|tool_call> inside a string: the call is cut short there",
            r#"<|tool_call>call:f{a:<|"|>x<|tool_call>call:g{b:1}<tool_call|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x"#),
                err(Cut, Some(0), r#"<|tool_call>call:f{a:<|"|>x"#),
                call(1, "g", r#"{"b":1}"#),
            ],
        ),
        fx!(
            "gemma4",
            "'<' and token prefixes inside a string are content",
            r#"<|tool_call>call:f{a:<|"|>1<2 <b> <|" <tool_call| <|tool_cal<<|"|>}<tool_call|>"#,
            [call(
                0,
                "f",
                r#"{"a":"1<2 <b> <|\" <tool_call| <|tool_cal<"}"#
            )],
        ),
        fx!(
            "gemma4",
            "the text ends in a string on a token prefix",
            r#"<|tool_call>call:f{a:<|"|>x<tool_ca"#,
            [
                start(0, "f"),
                args(0, r#"{"a":"x<tool_ca"#),
                err(Cut, Some(0), r#"<|tool_call>call:f{a:<|"|>x<tool_ca"#),
            ],
        ),
        fx!(
            "gemma4",
            "a repeated key, once bare and once a string",
            r#"<|tool_call>call:f{a:1,<|"|>a<|"|>:2}<tool_call|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Bad,
                    Some(0),
                    r#"<|tool_call>call:f{a:1,<|"|>a<|"|>:2}<tool_call|>"#
                ),
            ],
        ),
        fx!(
            "gemma4",
            "the same key in two nested objects is no repeat",
            "<|tool_call>call:f{a:{k:1},b:{k:2}}<tool_call|>",
            [call(0, "f", r#"{"a":{"k":1},"b":{"k":2}}"#)],
        ),
        fx!(
            "gemma4",
            "a repeated key",
            "<|tool_call>call:f{a:1,a:2}<tool_call|>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(Bad, Some(0), "<|tool_call>call:f{a:1,a:2}<tool_call|>"),
            ],
        ),
        fx!(
            "gemma4",
            "a literal <|tool_call> in prose",
            "Use a literal <|tool_call> tag.",
            [t("Use a literal <|tool_call> tag.")],
        ),
        fx!(
            "gemma4",
            "whitespace before a marker is text",
            "A  \n<|tool_call>call:f{a:1}<tool_call|> B",
            [t("A  \n"), call(0, "f", r#"{"a":1}"#), t(" B")],
        ),
    ]
}
