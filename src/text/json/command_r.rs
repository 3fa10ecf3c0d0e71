//! `command-r`: Command R7B / A `<|START_ACTION|>[..]<|END_ACTION|>`, and Command A
//! Reasoning / North (Cohere's "cmd4" format). The [JSON-call engine](super) with this
//! table.
//!
//! cmd3 (R7B, A) writes its answer between `<|START_RESPONSE|>` and `<|END_RESPONSE|>`;
//! cmd4 (A Reasoning, North) between `<|START_TEXT|>` and `<|END_TEXT|>`: all four are
//! dropped, the text between them is text. Both write reasoning between
//! `<|START_THINKING|>` and `<|END_THINKING|>`, and cite documents inline as
//! `<co>cited text</co: 0:[1,2],1:[3]>`: the markup is removed from text and reasoning
//! alike, the cited text kept (as Cohere's own `melody` filter that vLLM's
//! `cohere_command3` / `cohere_command4` parsers run: `foo <co>bar</co: 0:[1]>` gives
//! `foo bar`). The citations' anchors are not reported (no event carries them).

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::json_call::Shape;
use crate::text::kit::table::{Pair, list, pair, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `command-r`: Command R7B / A `<|START_ACTION|>[..]<|END_ACTION|>`.
pub(crate) const COMMAND_R: Table = Table {
    openers: list![opener(
        "<|START_ACTION|>",
        Some("<|END_ACTION|>"),
        Payload::Either,
    )],
    shape: Shape::Fields {
        name: list![tok("tool_name")],
        args: list![tok("parameters")],
        id: list![tok("tool_call_id")],
    },
    reasoning: list![pair("<|START_THINKING|>", "<|END_THINKING|>")],
    drops: list![
        tok("<|START_RESPONSE|>"),
        tok("<|END_RESPONSE|>"),
        tok("<|START_TEXT|>"),
        tok("<|END_TEXT|>"),
        tok("<|END_OF_TURN_TOKEN|>"),
    ],
    citations: Some(CITATIONS),
    ..PLAIN
};

/// Cohere's citation markup: the opening token, the closing token's head (its anchors
/// and `>` follow).
pub(crate) const CITATIONS: Pair = pair("<co>", "</co: ");

/// Raw Cohere Command R7B / Command A text:
/// `<|START_ACTION|>[{"tool_call_id": .., "tool_name": .., "parameters": ..}]<|END_ACTION|>`,
/// `<|START_THINKING|>` reasoning, `<|START_RESPONSE|>` text; Command A Reasoning /
/// North (cmd4): `<|START_TEXT|>` text. Citations `<co>..</co: 0:[1]>` are removed.
pub(crate) const ROW: Row = Row {
    format: Format::CommandR,
    name: "command-r",
    aliases: &["cohere_command3", "cohere_command4"],
    about: "raw Cohere Command R7B / A text: <|START_ACTION|>[{\"tool_name\": .., \"parameters\": ..}]<|END_ACTION|>, <|START_THINKING|> reasoning; Command A Reasoning / North: <|START_TEXT|>; citations <co>..</co: ..> removed",
    engine: Builtin::Json(&COMMAND_R),
    detect: &[Detect {
        rank: 310,
        pattern: &[Tok::Lit(b"<|START_ACTION|>")],
    }],
    example: "{prose}{call}<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"write_file\", \"parameters\": {args}}]<|END_ACTION|>",
};
