//! `kimi-k2`: Kimi K2's tool-call section tokens: its answers to the universal cases.

/// `kimi-k2`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::KimiK2,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|> B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a": 1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi <|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1"#,
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"Hi <|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": x}<|tool_call_end|><|tool_calls_section_end|> after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": x}<|tool_call_end|>"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <|tool_calls_section_begin|> tag.",
                    vec![one(t("Use a literal  tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample("done<|tool_calls_section_end|> ok", vec![one(t("done ok"))]),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                not_applicable(crate::universal::ONE_NAME_ONE_ARGUMENTS),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<|tool_calls_section_begin|><|tool_call_begin|>functions.get weather" x:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"#,
                    vec![one(err(
                        ErrorKind::MissingName,
                        None,
                        r#"<|tool_call_begin|>functions.get weather" x:0<|tool_call_argument_begin|>{}<|tool_call_end|>"#,
                    ))],
                ),
            ),
        ],
    }
}

/// `kimi-k2`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "kimi-k2",
            "call-begin token inside a JSON string",
            r#"<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": "x<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{"b": 2}<|tool_call_end|><|tool_calls_section_end|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": "x"#
                ),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "kimi-k2",
            "call-begin token between JSON tokens",
            r#"<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1<|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{"b": 2}<|tool_call_end|><|tool_calls_section_end|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1"#
                ),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
    ]
}

/// `kimi-k2` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[crate::json::tables::Syn {
    format: toolstream::Format::KimiK2,
    open: "<|tool_calls_section_begin|>",
    close: Some("<|tool_calls_section_end|>"),
    payload: crate::json::tables::Payload::Kimi,
    name: None,
    args: "",
    id: None,
    reserved: &["<|tool_call", "<|im_end|>", "<think>", "</think>"],
}];

/// Reasoning wrappers and end-of-turn tokens around calls (from `json/tables.rs`).
#[test]
fn kimi_k2_reasoning_wrappers_and_end_of_turn_tokens() {
    crate::json::tables::check_wrappers(&[
        (
            toolstream::Format::KimiK2,
            "<think>plan</think>Sure.<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|><|im_end|>",
            "plan",
            "Sure.",
            1,
        ),
        (
            toolstream::Format::KimiK2,
            "Sure.<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>\n<|tool_calls_section_end|>",
            "",
            "Sure.\n\n",
            1,
        ),
        (
            // Kimi K2 may omit `</think>` before its calls (vllm#32216): the call
            // markers end the reasoning.
            toolstream::Format::KimiK2,
            "<think>plan<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>Done.",
            "plan",
            "Done.",
            1,
        ),
        (
            toolstream::Format::KimiK2,
            "<think>plan\n<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>",
            "plan\n",
            "",
            1,
        ),
    ]);
}

/// Kimi K2: the model's own ids are kept verbatim; a head without the `functions.`
/// prefix or the index still names the tool.
#[test]
fn kimi_ids_are_the_models_own() {
    let input = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>search:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin|>functions.a.b:2<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>";
    let ev = crate::json::tables::split_both(toolstream::Format::KimiK2, input, 20);
    assert_eq!(
        crate::common::calls(&ev),
        vec![
            crate::common::call(
                "functions.get_weather:0",
                "get_weather",
                serde_json::json!({"city": "Paris"})
            ),
            crate::common::call("search:1", "search", serde_json::json!({})),
            crate::common::call("functions.a.b:2", "a.b", serde_json::json!({})),
        ]
    );
}
