//! `phi4-mini`: Phi-4-mini's `functools[..]` calls: its answers to the universal cases.

/// `phi4-mini`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, not_applicable, sample};
    use toolstream::ErrorKind::{self, InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::Phi4Mini,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"Afunctools[{"name": "f", "arguments": {"a": 1}}] B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a": 1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi functools[{"name": "f", "arguments": {"a": 1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"functools[{"name": "f", "arguments": {"a": 1"#,
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    r#"Hi functools[{"name": "f", "arguments": {"a": x}}] after"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"functools[{"name": "f", "arguments": {"a": x}}"#,
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal functools[ tag.",
                    vec![one(t("Use a literal functools[ tag."))],
                ),
            ),
            (
                Case::StrayClose,
                not_applicable(crate::universal::NO_CLOSING_MARKER),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"functools[{"name": "f", "arguments": {"a": 1functools[{"name": "g", "arguments": {}}]"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"functools[{"name": "f", "arguments": {"a": 1"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"functools[{"name": "f", "arguments": {}, "arguments": {}}]"#,
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            ErrorKind::TrailingArguments,
                            None,
                            r#", "arguments": {}}"#,
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

/// A broken call object is skipped to the bracket that balances it, the list's later calls
/// still count (from `rules/edges.rs`).
#[test]
fn phi4_mini_a_broken_call_with_no_close_marker_leaks_nothing() {
    crate::rules::edges::a_broken_call_with_no_close_marker_leaks_nothing(
        toolstream::Format::Phi4Mini,
        "functools[",
    );
}

/// `phi4-mini` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[crate::json::tables::Syn {
    format: toolstream::Format::Phi4Mini,
    open: "functools[",
    close: None,
    payload: crate::json::tables::Payload::ArrayBody,
    name: Some("name"),
    args: "arguments",
    id: None,
    reserved: &["functools[", "<|end|>", "<think>", "</think>"],
}];
