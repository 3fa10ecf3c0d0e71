//! `inkling`: Inkling's typed content blocks (vLLM's `inkling` parser): a call is
//! `<|content_invoke_tool_json|>{"name": .., "args": {..}}<|end_message|>`. Exact events
//! at every chunking and every prefix.

use crate::exact::*;
use toolstream::ErrorKind::{
    InvalidArguments, InvalidJson, MissingName, TrailingArguments, Truncated as Cut,
    UnexpectedPayload,
};
use toolstream::Format;

const TOOL: &str = "<|message_model|><|content_invoke_tool_json|>";

#[test]
fn inkling_fixtures() {
    assert_eq!("inkling".parse::<Format>(), Ok(Format::Inkling));
    check_fixtures(
        Format::Inkling,
        &[
            fx(
                "single",
                format!(
                    "{TOOL}{{\"name\":\"get_weather\",\"args\":{{\"city\":\"SF\"}}}}<|end_message|>"
                ),
                vec![call(0, "get_weather", r#"{"city":"SF"}"#)],
            ),
            fx(
                "thinking, text and tool blocks; several calls; no args; end of sampling",
                format!(
                    "<|message_model|><|content_thinking|>Two lookups.<|end_message|><|message_model|><|content_text|>Checking.<|end_message|>{TOOL}{{\"name\": \"a\", \"args\": {{\"n\": 1}}}}<|end_message|>{TOOL}{{\"name\": \"now\"}}<|content_model_end_sampling|><|message_model|><|content_text|> Done.<|end_message|>"
                ),
                vec![
                    one(r("Two lookups.")),
                    one(t("Checking.")),
                    call(0, "a", r#"{"n": 1}"#),
                    call(1, "now", "{}"),
                    one(t(" Done.")),
                ],
            ),
            fx(
                "unicode, escapes and nesting in the args",
                format!(
                    "{TOOL}{{\"name\":\"edit\",\"args\":{{\"q\":\"é 😀 \\\"q\\\" \\\\ \\n <|end_message|>\",\"o\":{{\"a\":[1,{{\"b\":null}}]}}}}}}<|end_message|>"
                ),
                vec![call(
                    0,
                    "edit",
                    r#"{"q":"é 😀 \"q\" \\ \n <|end_message|>","o":{"a":[1,{"b":null}]}}"#,
                )],
            ),
            fx(
                "a literal tool token in prose",
                "Use <|content_invoke_tool_json|> tokens.",
                vec![one(t("Use <|content_invoke_tool_json|> tokens."))],
            ),
            fx(
                "truncated in the args",
                format!("{TOOL}{{\"name\":\"f\",\"args\":{{\"a\":\"x"),
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a":"x"#)),
                    one(err(
                        Cut,
                        Some(0),
                        "<|content_invoke_tool_json|>{\"name\":\"f\",\"args\":{\"a\":\"x",
                    )),
                ],
            ),
            fx(
                "a tool block inside an unclosed call object",
                format!(
                    "{TOOL}{{\"name\":\"f\",\"args\":{{\"a\":1}}{TOOL}{{\"name\":\"g\",\"args\":{{}}}}<|end_message|>"
                ),
                vec![
                    call(0, "f", r#"{"a":1}"#),
                    one(err(
                        InvalidJson,
                        None,
                        // (The ended call's bytes are not repeated.)
                        "<|message_model|>",
                    )),
                    call(1, "g", "{}"),
                ],
            ),
            fx(
                "\"arguments\" is not this syntax's member: an error with the raw call",
                format!("{TOOL}{{\"name\":\"f\",\"arguments\":{{\"a\":1}}}}<|end_message|> x"),
                vec![
                    one(start(0, "f")),
                    one(err(
                        UnexpectedPayload,
                        Some(0),
                        "<|content_invoke_tool_json|>{\"name\":\"f\",\"arguments\":{\"a\":1}}<|end_message|>",
                    )),
                    one(t(" x")),
                ],
            ),
            fx(
                "a second args member is an error after the call",
                format!(
                    "{TOOL}{{\"name\":\"f\",\"args\":{{\"a\":1}},\"args\":{{\"b\":2}}}}<|end_message|>"
                ),
                vec![
                    call(0, "f", r#"{"a":1}"#),
                    one(err(
                        TrailingArguments,
                        None,
                        ",\"args\":{\"b\":2}}<|end_message|>",
                    )),
                ],
            ),
        ],
    );
}

/// `inkling`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Inkling,
        reasoning: Some(("<|content_thinking|>", "<|end_message|>")),
        reasoning_close_dropped: true,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A<|message_model|><|content_invoke_tool_json|>{"name": "f", "args": {"a": 1}}<|end_message|> B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a": 1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi <|content_invoke_tool_json|>{"name": "f", "args": {"a": 1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|content_invoke_tool_json|>{"name": "f", "args": {"a": 1"#,
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"Hi <|content_invoke_tool_json|>{"name": "f", "args": {"a": x}}<|end_message|> after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<|content_invoke_tool_json|>{"name": "f", "args": {"a": x}}<|end_message|>"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <|content_invoke_tool_json|> tag.",
                    vec![one(t("Use a literal <|content_invoke_tool_json|> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample("done<|end_message|> ok", vec![one(t("done ok"))]),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<|content_invoke_tool_json|>{"name": "f", "args": {"a": 1<|content_invoke_tool_json|>{"name": "g", "args": {}}<|end_message|>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|content_invoke_tool_json|>{"name": "f", "args": {"a": 1"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"<|content_invoke_tool_json|>{"name": "f", "args": {}, "args": {}}<|end_message|>"#,
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            ErrorKind::TrailingArguments,
                            None,
                            r#", "args": {}}<|end_message|>"#,
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                not_applicable(crate::universal::JSON_STRING_NAME),
            ),
        ],
    }
}

#[test]
fn the_name_in_the_message_header_is_the_calls() {
    // Issue 33: the template writes the tool's name in the message header as well
    // (`<|message_model|>search<|content_invoke_tool_json|>{..}`); it was released as
    // text. It is the call's: never text, in the call's raw text; a header that no call
    // opener follows is text, as before.
    const HEAD: &str = "<|message_model|>search<|content_invoke_tool_json|>";
    check_fixtures(
        Format::Inkling,
        &[
            fx(
                "the template's order: args, then name",
                format!(
                    "{HEAD}{{\"args\":{{\"q\":\"x\"}},\"name\":\"search\"}}<|end_message|><|message_model|><|content_text|> Done.<|end_message|>"
                ),
                vec![call(0, "search", r#"{"q":"x"}"#), one(t(" Done."))],
            ),
            fx(
                "a broken call's error carries the header",
                format!("{HEAD}{{\"name\":\"search\",\"arguments\":{{}}}}<|end_message|> x"),
                vec![
                    one(start(0, "search")),
                    one(err(
                        UnexpectedPayload,
                        Some(0),
                        &format!("{HEAD}{{\"name\":\"search\",\"arguments\":{{}}}}<|end_message|>"),
                    )),
                    one(t(" x")),
                ],
            ),
            fx(
                "the header names the call: an object without a name is that tool's call",
                format!("A {HEAD}{{\"args\": {{\"q\": \"x\"}}}}<|end_message|> B"),
                vec![
                    one(t("A ")),
                    call(0, "search", r#"{"q": "x"}"#),
                    one(t(" B")),
                ],
            ),
            fx(
                "the header names the call: an empty object is its call without arguments",
                format!("{HEAD}{{}}<|end_message|>"),
                vec![call(0, "search", "{}")],
            ),
            fx(
                "an object naming another tool than its header: an error with the call's bytes",
                format!("{HEAD}{{\"name\": \"find\", \"args\": {{}}}}<|end_message|> x"),
                vec![
                    one(start(0, "search")),
                    one(err(
                        InvalidArguments,
                        Some(0),
                        &format!("{HEAD}{{\"name\": \"find\", \"args\": {{}}}}<|end_message|>"),
                    )),
                    one(t(" x")),
                ],
            ),
            fx(
                "a header that is no name names nothing: no call",
                "<|message_model|>get weather<|content_invoke_tool_json|>{\"args\": {}}<|end_message|> x".to_owned(),
                vec![
                    one(err(
                        MissingName,
                        None,
                        "<|message_model|>get weather<|content_invoke_tool_json|>{\"args\": {}}<|end_message|>",
                    )),
                    one(t(" x")),
                ],
            ),
            fx(
                "cut off in the header, or before the call",
                "<|message_model|>sea".to_owned(),
                vec![one(t("sea"))],
            ),
            fx(
                "a header no call opener follows is text",
                "<|message_model|>hi<|content_text|>there<|end_message|><|message_model|>a\nb<|message_model|>r<|content_thinking|>m<|end_message|>"
                    .to_owned(),
                vec![one(t("hitherea\nbr")), one(r("m"))],
            ),
        ],
    );
}
