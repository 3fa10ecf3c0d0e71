//! `apertus`: Apertus' `<|tools_prefix|>[{name: args}]` calls: its answers to the universal cases.

/// `apertus`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Apertus,
        reasoning: Some(("<|inner_prefix|>", "<|inner_suffix|>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A<|tools_prefix|>[{"f": {"a": 1}}]<|tools_suffix|> B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a": 1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi <|tools_prefix|>[{"f": {"a": 1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(Cut, Some(0), r#"<|tools_prefix|>[{"f": {"a": 1"#)),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"Hi <|tools_prefix|>[{"f": {"a": x}}]<|tools_suffix|> after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<|tools_prefix|>[{"f": {"a": x}}]<|tools_suffix|>"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <|tools_prefix|> tag.",
                    vec![one(t("Use a literal <|tools_prefix|> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done<|tools_suffix|> ok",
                    vec![one(t("done<|tools_suffix|> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<|tools_prefix|>[{"f": {"a": 1<|tools_prefix|>[{"g": {}}]<|tools_suffix|>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(Cut, Some(0), r#"<|tools_prefix|>[{"f": {"a": 1"#)),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"<|tools_prefix|>[{"f": {}, "f": {}}]<|tools_suffix|>"#,
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            ErrorKind::TrailingArguments,
                            None,
                            r#", "f": {}}]<|tools_suffix|>"#,
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

/// `apertus`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![fx!(
        "apertus",
        "a second name key",
        r#"<|tools_prefix|>[{"f": {"a": 1}, "g": {}}]<|tools_suffix|>"#,
        [
            call(0, "f", r#"{"a": 1}"#),
            err(Trailing, None, r#", "g": {}}]<|tools_suffix|>"#),
        ],
    )]
}

/// `apertus` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[crate::json::tables::Syn {
    format: toolstream::Format::Apertus,
    open: "<|tools_prefix|>",
    close: Some("<|tools_suffix|>"),
    payload: crate::json::tables::Payload::Array,
    name: None,
    args: "",
    id: None,
    reserved: &[
        "<|tools_prefix|>",
        "<|inner_prefix|>",
        "<|inner_suffix|>",
        "<|assistant_end|>",
    ],
}];

/// Reasoning wrappers and end-of-turn tokens around calls (from `json/tables.rs`).
#[test]
fn apertus_reasoning_wrappers_and_end_of_turn_tokens() {
    crate::json::tables::check_wrappers(&[(
        toolstream::Format::Apertus,
        "<|inner_prefix|>thinking<|inner_suffix|>Ok.<|tools_prefix|>[{\"f\": {}}]<|tools_suffix|><|assistant_end|>",
        "thinking",
        "Ok.",
        1,
    )]);
}
