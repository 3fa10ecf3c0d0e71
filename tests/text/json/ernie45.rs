//! `ernie45`: Baidu ERNIE 4.5 (vLLM's `ernie45` parser): `hermes`' calls with ERNIE's
//! `<think>` and `<response>` tags. Its answers to the universal cases, and the shape of
//! vLLM's parser doc, at every chunking and every prefix.

use crate::exact::*;
use crate::universal::{Case, Universal, not_applicable, sample};
use toolstream::ErrorKind::{
    InvalidArguments as Bad, TrailingArguments as Trailing, Truncated as Cut,
};
use toolstream::Format;

/// The thinking model's shape (`abc\n</think>\n\n\n<tool_call>\n..\n</tool_call>\n`), and
/// an answer in `<response>` tags.
#[test]
fn ernie45_fixtures() {
    check_fixtures(
        Format::Ernie45,
        &[
            fx(
                "reasoning then a call over lines",
                "<think>\nabc\n</think>\n\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Beijing\"}}\n</tool_call>\n",
                vec![
                    one(r("abc")),
                    call(0, "get_weather", r#"{"city": "Beijing"}"#),
                ],
            ),
            fx(
                "an answer in response tags",
                "<think>\nhm\n</think>\n<response>Sunny.</response>",
                vec![one(r("hm")), one(t("Sunny."))],
            ),
        ],
    );
}

/// `ernie45`'s answers to the universal cases.
pub(crate) fn universal() -> Universal {
    Universal {
        format: Format::Ernie45,
        reasoning: Some(("<think>", "</think>")),
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"Hi <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call> bye"#,
                    vec![one(t("Hi ")), call(0, "f", r#"{"a": 1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"<tool_call>{"name": "f", "arguments": {"a": 1"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<tool_call>{"name": "f", "arguments": {"a": 1"#,
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"<tool_call>{"name": "f", "arguments": {"a": x}}</tool_call> ok"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<tool_call>{"name": "f", "arguments": {"a": x}}</tool_call>"#,
                        )),
                        one(t(" ok")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <tool_call> tag.",
                    vec![one(t("Use a literal <tool_call> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample("done</tool_call> ok", vec![one(t("done</tool_call> ok"))]),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<tool_call>{"name": "f", "arguments": {"a": 1<tool_call>{"name": "g", "arguments": {}}</tool_call>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<tool_call>{"name": "f", "arguments": {"a": 1"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"<tool_call>{"name": "f", "arguments": {}, "arguments": {}}</tool_call>"#,
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            Trailing,
                            None,
                            r#"<tool_call>{"name": "f", "arguments": {}, "arguments": {}}</tool_call>"#,
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                not_applicable(
                    "the name is a JSON string: whatever string the model closed is its name (declared tools refuse an unknown one)",
                ),
            ),
        ],
    }
}
