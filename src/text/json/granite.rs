//! `granite`: Granite 3.0 `<|tool_call|>[..]`, Granite 3.1+ `<tool_call>[..]`, Granite 4
//! `<tool_call>{..}</tool_call>`. The [JSON-call engine](super) with this table.
//!
//! vLLM's `granite` parser reads the 3.0 token and the 3.1 string before a JSON list and
//! nothing after it; Granite 4's template writes one object per `<tool_call>` tag. So
//! `<tool_call>` takes an object (its `</tool_call>` expected) or an array (a
//! `</tool_call>` after it is consumed when present; a broken call in it is skipped to its
//! balancing bracket and the array's later calls count).

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::table::{THINK_TAGS, list, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `granite`: Granite 3.0 `<|tool_call|>[..]`, 3.1+ `<tool_call>[..]`, 4 `<tool_call>{..}</tool_call>`.
pub(crate) const GRANITE: Table = Table {
    openers: list![
        opener("<|tool_call|>", None, Payload::Either),
        opener(
            "<tool_call>",
            Some("</tool_call>"),
            Payload::EitherOpenArray,
        ),
    ],
    reasoning: THINK_TAGS,
    drops: list![
        tok("<response>"),
        tok("</response>"),
        tok("<|end_of_text|>"),
    ],
    ..PLAIN
};

/// Raw IBM Granite text: `<|tool_call|>[{"name": .., "arguments": ..}]` (3.0),
/// `<tool_call>[..]` (3.1+) and `<tool_call>{..}</tool_call>` (4).
pub(crate) const ROW: Row = Row {
    format: Format::Granite,
    name: "granite",
    aliases: &["granite4", "granite_toolcall_parser"],
    about: "raw IBM Granite text: <|tool_call|>[{\"name\": .., \"arguments\": ..}] (3.0), <tool_call>[..] (3.1+), <tool_call>{..}</tool_call> (4)",
    engine: Builtin::Json(&GRANITE),
    detect: &[
        Detect {
            rank: 40,
            pattern: &[Tok::Lit(b"<tool_call>"), Tok::Ws, Tok::Lit(b"[")],
        },
        Detect {
            rank: 320,
            pattern: &[Tok::Lit(b"<|tool_call|>")],
        },
    ],
    example: "{prose}{call}<|tool_call|>[{\"name\": \"write_file\", \"arguments\": {args}}]",
};
