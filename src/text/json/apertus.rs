//! `apertus`: `<|tools_prefix|>[{"name": {args}}]<|tools_suffix|>`. The [JSON-call
//! engine](super) with this table.

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::json_call::Shape;
use crate::text::kit::table::{list, pair, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `apertus`: `<|tools_prefix|>[{"name": {args}}]<|tools_suffix|>`.
pub(crate) const APERTUS: Table = Table {
    openers: list![opener(
        "<|tools_prefix|>",
        Some("<|tools_suffix|>"),
        Payload::Either,
    )],
    shape: Shape::NameKey,
    reasoning: list![pair("<|inner_prefix|>", "<|inner_suffix|>")],
    drops: list![tok("<|assistant_end|>")],
    ..PLAIN
};

/// Raw Swiss AI Apertus text: `<|tools_prefix|>[{"name": {args}}]<|tools_suffix|>`.
pub(crate) const ROW: Row = Row {
    format: Format::Apertus,
    name: "apertus",
    aliases: &["apertus2509"],
    about: "raw Apertus text: <|tools_prefix|>[{\"name\": {args}}]<|tools_suffix|>, <|inner_prefix|> reasoning",
    engine: Builtin::Json(&APERTUS),
    detect: &[Detect {
        rank: 400,
        pattern: &[Tok::Lit(b"<|tools_prefix|>")],
    }],
    example: "{prose}{call}<|tools_prefix|>[{\"write_file\": {args}}]<|tools_suffix|>",
};
