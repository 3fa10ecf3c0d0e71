//! `jamba`: AI21 Jamba (`<tool_calls>{..}</tool_calls>`). Its answers to the universal cases; its other fixtures
//! are still in `json/tables.rs` and the rule tables.

use crate::universal::Universal;
use toolstream::Format;

/// `jamba`'s answers to the universal cases: `hermes`' with its own markers.
pub(crate) fn universal() -> Universal {
    crate::json::hermes::universal_between(Format::Jamba, "<tool_calls>", "</tool_calls>")
}

/// `jamba`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::Jamba;
    Edges {
        broken: vec![
            b(
                Jamba,
                "cut",
                (
                    "Hi ",
                    "",
                    "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": \"é",
                    "",
                ),
                Cut,
                0,
                "Hi ",
            ),
            b(
                Jamba,
                "corrupt",
                (
                    "Hi ",
                    "",
                    "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": x, \"b\": \"]\"}}]</tool_calls>",
                    " after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
        ],
        markers: vec![(
            Jamba,
            "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</tool_calls>",
            "A",
            " B",
            "A B",
        )],
    }
}

/// `jamba` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[crate::json::tables::Syn {
    format: toolstream::Format::Jamba,
    open: "<tool_calls>",
    close: Some("</tool_calls>"),
    payload: crate::json::tables::Payload::Array,
    name: Some("name"),
    args: "arguments",
    id: None,
    reserved: &["<tool_calls>", "</tool_calls>", "<think>", "</think>"],
}];
