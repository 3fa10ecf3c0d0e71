//! `nemotron`: Llama-Nemotron / Nemotron Nano v2 `<TOOLCALL>[..]</TOOLCALL>`. The
//! [JSON-call engine](super) with this table.

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::table::{THINK_TAGS, list, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `nemotron`: Llama-Nemotron / Nemotron Nano v2 `<TOOLCALL>[..]</TOOLCALL>`.
pub(crate) const NEMOTRON: Table = Table {
    openers: list![opener("<TOOLCALL>", Some("</TOOLCALL>"), Payload::Either)],
    reasoning: THINK_TAGS,
    drops: list![tok("<|eot_id|>")],
    ..PLAIN
};

/// Raw NVIDIA Llama-Nemotron / Nemotron Nano v2 text: `<TOOLCALL>[..]</TOOLCALL>`.
pub(crate) const ROW: Row = Row {
    format: Format::Nemotron,
    name: "nemotron",
    aliases: &[],
    about: "raw Llama-Nemotron / Nemotron Nano v2 text: <TOOLCALL>[{\"name\": .., \"arguments\": ..}]</TOOLCALL>",
    engine: Builtin::Json(&NEMOTRON),
    detect: &[Detect {
        rank: 360,
        pattern: &[Tok::Lit(b"<TOOLCALL>")],
    }],
    example: "{prose}{call}<TOOLCALL>[{\"name\": \"write_file\", \"arguments\": {args}}]</TOOLCALL>",
};
