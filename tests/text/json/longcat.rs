//! `longcat`: LongCat-Flash (`<longcat_tool_call>{..}</longcat_tool_call>`). Its answers to the universal cases; its other fixtures
//! are still in `json/tables.rs` and the rule tables.

use crate::universal::Universal;
use toolstream::Format;

/// `longcat`'s answers to the universal cases: `hermes`' with its own markers.
pub(crate) fn universal() -> Universal {
    crate::json::hermes::universal_between(
        Format::Longcat,
        "<longcat_tool_call>",
        "</longcat_tool_call>",
    )
}

/// `longcat`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![fx!(
        "longcat",
        "opener between JSON tokens",
        r#"<longcat_tool_call>{"name": "f", "arguments": {"a": 1<longcat_tool_call>{"name": "g", "arguments": {}}</longcat_tool_call>"#,
        [
            start(0, "f"),
            args(0, r#"{"a": 1"#),
            err(
                Cut,
                Some(0),
                r#"<longcat_tool_call>{"name": "f", "arguments": {"a": 1"#
            ),
            call(1, "g", "{}"),
        ],
    )]
}

/// `longcat`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::Longcat;
    Edges {
        broken: vec![
            b(
                Longcat,
                "cut",
                (
                    "Hi ",
                    "",
                    "<longcat_tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1",
                    "",
                ),
                Cut,
                0,
                "Hi ",
            ),
            b(
                Longcat,
                "corrupt",
                (
                    "Hi ",
                    "",
                    "<longcat_tool_call>{\"name\": \"f\", \"arguments\": {\"a\": x}}</longcat_tool_call>",
                    " after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
        ],
        markers: vec![(
            Longcat,
            "<longcat_tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</longcat_tool_call>",
            "A",
            " B",
            "A B",
        )],
    }
}

/// `longcat` as the JSON-call table (`json/tables.rs`) sees it: its markers and keys,
/// written independently of the scanner's own table.
pub(crate) const SYN: &[crate::json::tables::Syn] = &[crate::json::tables::Syn {
    format: toolstream::Format::Longcat,
    open: "<longcat_tool_call>",
    close: Some("</longcat_tool_call>"),
    payload: crate::json::tables::Payload::Object,
    name: Some("name"),
    args: "arguments",
    id: None,
    reserved: &["<longcat_tool_call>", "<think>", "</think>"],
}];
