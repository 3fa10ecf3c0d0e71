//! `longcat`: `<longcat_tool_call>{..}</longcat_tool_call>`. The [JSON-call engine](super)
//! with this table.

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::table::{THINK_TAGS, list};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `longcat`: `<longcat_tool_call>{..}</longcat_tool_call>`.
pub(crate) const LONGCAT: Table = Table {
    openers: list![opener(
        "<longcat_tool_call>",
        Some("</longcat_tool_call>"),
        Payload::Object,
    )],
    reasoning: THINK_TAGS,
    ..PLAIN
};

/// Raw Meituan LongCat-Flash text: `<longcat_tool_call>{..}</longcat_tool_call>`.
pub(crate) const ROW: Row = Row {
    format: Format::Longcat,
    name: "longcat",
    aliases: &[],
    about: "raw LongCat-Flash text: <longcat_tool_call>{\"name\": .., \"arguments\": ..}</longcat_tool_call>",
    engine: Builtin::Json(&LONGCAT),
    detect: &[Detect {
        rank: 380,
        pattern: &[Tok::Lit(b"<longcat_tool_call>")],
    }],
    example: "{prose}{call}<longcat_tool_call>{\"name\": \"write_file\", \"arguments\": {args}}</longcat_tool_call>",
};
