//! `internlm`: InternLM's `<|action_start|><|plugin|>` calls: its answers to the universal cases.

/// `internlm`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::InternLm,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "A<|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}<|action_end|> B",
                    vec![one(t("A")), call(0, "f", r#"{"a": 1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi <|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1",
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {\"a\": x}}<|action_end|> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            "<|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {\"a\": x}}<|action_end|>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <|action_start|> tag.",
                    vec![one(t("Use a literal <|action_start|> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done<|action_end|> ok",
                    vec![one(t("done<|action_end|> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    "<|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1<|action_start|><|plugin|>\n{\"name\": \"g\", \"arguments\": {}}<|action_end|>",
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1",
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    "<|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {}, \"arguments\": {}}<|action_end|>",
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            ErrorKind::TrailingArguments,
                            None,
                            r#", "arguments": {}}<|action_end|>"#,
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

/// `internlm`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "internlm",
            "special-token opener inside a JSON string",
            r#"<|action_start|><|plugin|>{"name": "f", "arguments": {"a": "x<|action_start|><|plugin|>{"name": "g", "arguments": {}}<|action_end|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|action_start|><|plugin|>{"name": "f", "arguments": {"a": "x"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "internlm",
            "'<' and a token prefix inside a string are content",
            r#"<|action_start|><|plugin|>{"name": "f", "arguments": {"a": "<b> <|action_sta <<|plugin|>"}}<|action_end|>"#,
            [call(0, "f", r#"{"a": "<b> <|action_sta <<|plugin|>"}"#)],
        ),
    ]
}

/// `internlm` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[crate::json::tables::Syn {
    format: toolstream::Format::InternLm,
    open: "<|action_start|><|plugin|>",
    close: Some("<|action_end|>"),
    payload: crate::json::tables::Payload::Object,
    name: Some("name"),
    args: "parameters",
    id: None,
    reserved: &[
        "<|action_start|><|plugin|>",
        "<|im_end|>",
        "<think>",
        "</think>",
    ],
}];

/// Reasoning wrappers and end-of-turn tokens around calls (from `json/tables.rs`).
#[test]
fn internlm_reasoning_wrappers_and_end_of_turn_tokens() {
    crate::json::tables::check_wrappers(&[(
        toolstream::Format::InternLm,
        "Sure.<|action_start|><|plugin|>\n{\"name\": \"f\", \"parameters\": {}}<|action_end|><|im_end|>",
        "",
        "Sure.",
        1,
    )]);
}
