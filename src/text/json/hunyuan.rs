//! `hunyuan`: Hunyuan-A13B, `<tool_calls>[..]</tool_calls>` inside `<answer>`. The
//! [JSON-call engine](super) with this table.

use crate::format::Format;
use crate::text::json::{PLAIN, Table};
use crate::text::json::jamba::TOOL_CALLS;
use crate::text::kit::table::{THINK_TAGS, list, tok};
use crate::text::row::{Builtin, Row};

/// `hunyuan`: Hunyuan-A13B, `<tool_calls>[..]</tool_calls>` inside `<answer>`.
pub(crate) const HUNYUAN: Table = Table {
    openers: list![TOOL_CALLS],
    reasoning: THINK_TAGS,
    drops: list![tok("<answer>"), tok("</answer>")],
    ..PLAIN
};

/// Raw Tencent Hunyuan-A13B text: `<tool_calls>[..]</tool_calls>` (inside `<answer>`).
pub(crate) const ROW: Row = Row {
    format: Format::Hunyuan,
    name: "hunyuan",
    aliases: &["hunyuan_a13b"],
    about: "raw Hunyuan-A13B text: <think>..</think><answer>..<tool_calls>[{..}]</tool_calls></answer>",
    engine: Builtin::Json(&HUNYUAN),
    detect: &[],
    example: "{prose}{call}<tool_calls>[{\"name\": \"write_file\", \"arguments\": {args}}]</tool_calls>",
};
