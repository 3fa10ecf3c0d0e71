//! `jamba`: `<tool_calls>[..]</tool_calls>`. The [JSON-call engine](super) with this table.

use crate::format::Format;
use crate::text::json::{PLAIN, Opener, Payload, Table, opener};
use crate::text::kit::table::{THINK_TAGS, list};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `<tool_calls>` .. `</tool_calls>` around an array or an object (`hunyuan`'s too).
pub(crate) const TOOL_CALLS: Opener =
    opener("<tool_calls>", Some("</tool_calls>"), Payload::Either);

/// `jamba`: `<tool_calls>[..]</tool_calls>`.
pub(crate) const JAMBA: Table = Table {
    openers: list![TOOL_CALLS],
    reasoning: THINK_TAGS,
    ..PLAIN
};

/// Raw AI21 Jamba text: `<tool_calls>[{"name": .., "arguments": ..}]</tool_calls>`.
pub(crate) const ROW: Row = Row {
    format: Format::Jamba,
    name: "jamba",
    aliases: &[],
    about: "raw AI21 Jamba text: <tool_calls>[{\"name\": .., \"arguments\": ..}]</tool_calls>",
    engine: Builtin::Json(&JAMBA),
    detect: &[Detect {
        rank: 350,
        pattern: &[Tok::Lit(b"<tool_calls>")],
    }],
    example: "{prose}{call}<tool_calls>[{\"name\": \"write_file\", \"arguments\": {args}}]</tool_calls>",
};
