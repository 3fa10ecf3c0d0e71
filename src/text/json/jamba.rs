//! `jamba`: `<tool_calls>[..]</tool_calls>`. The [JSON-call engine](super) with this table.

use crate::format::Format;
use crate::text::json::{Opener, Payload, Table, opener};
use crate::text::kit::json_call::NAME_ARGUMENTS;
use crate::text::kit::table::{THINK_TAGS, list};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `<tool_calls>` .. `</tool_calls>` around an array or an object (`hunyuan`'s too).
pub(crate) const TOOL_CALLS: Opener =
    opener("<tool_calls>", Some("</tool_calls>"), Payload::Either);

/// `jamba`: `<tool_calls>[..]</tool_calls>`.
pub(crate) const JAMBA: Table = Table {
    openers: list![TOOL_CALLS],
    shape: NAME_ARGUMENTS,
    reasoning: THINK_TAGS,
    drops: list![],
    citations: None,
    header: None,
};

/// The registry row of `jamba` ([`SYNTAXES`](crate::text::SYNTAXES)).
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
