//! `hunyuan`: Hunyuan-A13B (`<tool_calls>{..}</tool_calls>`). Its answers to the universal cases; its other fixtures
//! are still in `json/tables.rs` and the rule tables.

use crate::universal::Universal;
use toolstream::Format;

/// `hunyuan`'s answers to the universal cases: `hermes`' with its own markers.
pub(crate) fn universal() -> Universal {
    crate::json::hermes::universal_between(Format::Hunyuan, "<tool_calls>", "</tool_calls>")
}

/// `hunyuan`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::Hunyuan;
    Edges {
        broken: vec![
            b(
                Hunyuan,
                "second call cut",
                (
                    "Hi ",
                    "<tool_calls>[{\"name\": \"g\", \"arguments\": {}}, ",
                    "{\"name\": \"f\", \"arguments\": {\"a\": 1",
                    "",
                ),
                Cut,
                1,
                "Hi ",
            ),
            b(
                Hunyuan,
                "second call corrupt",
                (
                    "Hi ",
                    "<tool_calls>[{\"name\": \"g\", \"arguments\": {}}, ",
                    "{\"name\": \"f\", \"arguments\": {\"a\": x}}]</tool_calls>",
                    " after",
                ),
                Bad,
                1,
                "Hi  after",
            ),
        ],
        markers: vec![(
            Hunyuan,
            "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</tool_calls>",
            "A",
            " B",
            "A B",
        )],
    }
}

/// `hunyuan` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[crate::json::tables::Syn {
    format: toolstream::Format::Hunyuan,
    open: "<tool_calls>",
    close: Some("</tool_calls>"),
    payload: crate::json::tables::Payload::Array,
    name: Some("name"),
    args: "arguments",
    id: None,
    reserved: &[
        "<tool_calls>",
        "</tool_calls>",
        "<think>",
        "</think>",
        "<answer>",
        "</answer>",
    ],
}];

/// Reasoning wrappers and end-of-turn tokens around calls (from `json/tables.rs`).
#[test]
fn hunyuan_reasoning_wrappers_and_end_of_turn_tokens() {
    crate::json::tables::check_wrappers(&[(
        toolstream::Format::Hunyuan,
        "<think>\nneed weather\n</think>\n<answer>\nSure.\n<tool_calls>[{\"name\": \"f\", \"arguments\": {}}]</tool_calls>\n</answer>",
        "need weather",
        "Sure.\n\n",
        1,
    )]);
}
