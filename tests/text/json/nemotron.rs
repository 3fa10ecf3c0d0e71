//! `nemotron`: Llama-Nemotron, Nemotron Nano v2 (`<TOOLCALL>{..}</TOOLCALL>`). Its answers to the universal cases; its other fixtures
//! are still in `json/tables.rs` and the rule tables.

use crate::universal::Universal;
use toolstream::Format;

/// `nemotron`'s answers to the universal cases: `hermes`' with its own markers.
pub(crate) fn universal() -> Universal {
    crate::json::hermes::universal_between(Format::Nemotron, "<TOOLCALL>", "</TOOLCALL>")
}

/// `nemotron`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "nemotron",
            "opener inside a list's call",
            r#"<TOOLCALL>[{"name": "f", "arguments": {"a": 1<TOOLCALL>[{"name": "g", "arguments": {}}]</TOOLCALL>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<TOOLCALL>[{"name": "f", "arguments": {"a": 1"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "nemotron",
            "a literal <TOOLCALL> in prose",
            "Use a literal <TOOLCALL> tag in prose.",
            [t("Use a literal <TOOLCALL> tag in prose.")],
        ),
    ]
}

/// `nemotron`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::Nemotron;
    Edges {
        broken: vec![
            b(
                Nemotron,
                "cut",
                (
                    "Hi ",
                    "",
                    "<TOOLCALL>[{\"name\": \"f\", \"arguments\": {\"a\": 1",
                    "",
                ),
                Cut,
                0,
                "Hi ",
            ),
            b(
                Nemotron,
                "corrupt",
                (
                    "Hi ",
                    "",
                    "<TOOLCALL>[{\"name\": \"f\", \"arguments\": {\"a\": x}}]</TOOLCALL>",
                    " after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
        ],
        markers: vec![(
            Nemotron,
            "<TOOLCALL>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</TOOLCALL>",
            "A",
            " B",
            "A B",
        )],
    }
}

/// `nemotron` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[crate::json::tables::Syn {
    format: toolstream::Format::Nemotron,
    open: "<TOOLCALL>",
    close: Some("</TOOLCALL>"),
    payload: crate::json::tables::Payload::Array,
    name: Some("name"),
    args: "arguments",
    id: None,
    reserved: &[
        "<TOOLCALL>",
        "</TOOLCALL>",
        "<|eot_id|>",
        "<think>",
        "</think>",
    ],
}];
