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
