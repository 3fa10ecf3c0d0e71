//! `phi4-mini`: `functools[{..}, ..]`. The [JSON-call engine](super) with this table.

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::table::{THINK_TAGS, list, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `phi4-mini`: `functools[{..}, ..]`.
pub(crate) const PHI4_MINI: Table = Table {
    openers: list![opener("functools[", None, Payload::ArrayBody)],
    reasoning: THINK_TAGS,
    drops: list![tok("<|end|>")],
    ..PLAIN
};

/// Raw Microsoft Phi-4-mini text: `functools[{"name": .., "arguments": ..}]`.
pub(crate) const ROW: Row = Row {
    format: Format::Phi4Mini,
    name: "phi4-mini",
    aliases: &["phi4_mini_json"],
    about: "raw Phi-4-mini text: functools[{\"name\": .., \"arguments\": ..}]",
    engine: Builtin::Json(&PHI4_MINI),
    detect: &[Detect {
        rank: 370,
        pattern: &[Tok::Lit(b"functools[")],
    }],
    example: "{prose}{call}functools[{\"name\": \"write_file\", \"arguments\": {args}}]",
};
