//! `nemotron`: Llama-Nemotron, Nemotron Nano v2 (`<TOOLCALL>{..}</TOOLCALL>`). Its answers to the universal cases; its other fixtures
//! are still in `json/tables.rs` and the rule tables.

use crate::universal::Universal;
use toolstream::Format;

/// `nemotron`'s answers to the universal cases: `hermes`' with its own markers.
pub(crate) fn universal() -> Universal {
    crate::json::hermes::universal_between(Format::Nemotron, "<TOOLCALL>", "</TOOLCALL>")
}
