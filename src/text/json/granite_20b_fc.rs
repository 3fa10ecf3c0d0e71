//! `granite-20b-fc`: IBM granite-20b-functioncalling's calls (vLLM's `granite-20b-fc`
//! parser and its `tool_chat_template_granite20b_fc.jinja`): each call a JSON object
//! after `<function_call>`, no closing marker:
//!
//! ```text
//! <function_call> {"name": "get_weather", "arguments": {"city": "Paris"}} <function_call> {"name": ..}
//! ```
//!
//! The [JSON-call engine](super) with one opener without a close (the call ends where its
//! object does, as `gigachat3`'s), keys `name` and `arguments`; `<|endoftext|>` is dropped.

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::table::{list, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `granite-20b-fc`: `<function_call> {..}`.
pub(crate) const GRANITE_20B_FC: Table = Table {
    openers: list![opener("<function_call>", None, Payload::Object)],
    drops: list![tok("<|endoftext|>")],
    ..PLAIN
};

/// Raw IBM granite-20b-functioncalling text: `<function_call> {"name": .., "arguments": ..}`.
pub(crate) const ROW: Row = Row {
    format: Format::Granite20bFc,
    name: "granite-20b-fc",
    aliases: &[],
    about: "raw IBM granite-20b-functioncalling text: <function_call> {\"name\": .., \"arguments\": ..}, one object per marker",
    engine: Builtin::Json(&GRANITE_20B_FC),
    detect: &[Detect {
        rank: 530,
        pattern: &[Tok::Lit(b"<function_call>")],
    }],
    example: "{prose}{call}<function_call> {\"name\": \"write_file\", \"arguments\": {args}}<|endoftext|>",
};
