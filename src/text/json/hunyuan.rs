//! `hunyuan`: Hunyuan-A13B, `<tool_calls>[..]</tool_calls>` inside `<answer>`. The
//! [JSON-call engine](super) with this table.

use crate::format::Format;
use crate::text::json::Dialect;
use crate::text::json::jamba::JAMBA;
use crate::text::kit::json_call::{NAME_ARGUMENTS, Shape};
use crate::text::kit::reasoning::THINK;
use crate::text::row::{Builtin, Row};

/// `hunyuan`: Hunyuan-A13B, `<tool_calls>[..]</tool_calls>` inside `<answer>`.
pub(crate) const HUNYUAN: Dialect = Dialect {
    openers: JAMBA.openers,
    shape: Shape::Fields(NAME_ARGUMENTS),
    reasoning: THINK,
    drops: &["<answer>", "</answer>"],
};

/// The registry row of `hunyuan` ([`SYNTAXES`](crate::text::SYNTAXES)).
pub(crate) const ROW: Row = Row {
    format: Format::Hunyuan,
    name: "hunyuan",
    aliases: &["hunyuan_a13b"],
    about: "raw Hunyuan-A13B text: <think>..</think><answer>..<tool_calls>[{..}]</tool_calls></answer>",
    engine: Builtin::Json(&HUNYUAN),
    detect: &[],
};
