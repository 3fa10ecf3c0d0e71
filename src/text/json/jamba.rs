//! `jamba`: `<tool_calls>[..]</tool_calls>`. The [JSON-call engine](super) with this table.

use crate::format::Format;
use crate::text::json::{Dialect, Payload, opener};
use crate::text::kit::json_call::{NAME_ARGUMENTS, Shape};
use crate::text::kit::reasoning::THINK;
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `jamba`: `<tool_calls>[..]</tool_calls>`.
pub(crate) const JAMBA: Dialect = Dialect {
    openers: &[opener(
        "<tool_calls>",
        Some("</tool_calls>"),
        Payload::Either,
    )],
    shape: Shape::Fields(NAME_ARGUMENTS),
    reasoning: THINK,
    drops: &[],
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
};
