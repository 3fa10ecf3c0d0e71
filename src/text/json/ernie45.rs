//! `ernie45`: Baidu ERNIE 4.5's calls (vLLM's `ernie45` parser): `hermes`' JSON call
//! objects in `<tool_call>` … `</tool_call>`, with ERNIE's thinking and response tags:
//!
//! ```text
//! <think>
//! abc
//! </think>
//!
//! <tool_call>
//! {"name": "get_weather", "arguments": {"city": "Beijing"}}
//! </tool_call>
//! ```
//!
//! The [JSON-call engine](super) with `hermes`' opener and keys; `<response>` and
//! `</response>` (around the answer of the thinking model) are dropped from the text;
//! reasoning `<think>…</think>` (its line breaks dropped). `auto` reads the same bytes as
//! `hermes` (the same marker): this format is for the response tags.

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::table::{THINK_TAGS, list, tok};
use crate::text::row::{Builtin, Row};

/// `ernie45`: `<tool_call>{..}</tool_call>`, `<response>` dropped.
pub(crate) const ERNIE45: Table = Table {
    openers: list![opener("<tool_call>", Some("</tool_call>"), Payload::Object)],
    reasoning: THINK_TAGS,
    drops: list![tok("<response>"), tok("</response>")],
    ..PLAIN
};

/// Raw ERNIE 4.5 text: `<tool_call>{"name": .., "arguments": ..}</tool_call>`, `<think>`,
/// `<response>` tags dropped.
pub(crate) const ROW: Row = Row {
    format: Format::Ernie45,
    name: "ernie45",
    aliases: &[],
    about: "raw ERNIE 4.5 text: <tool_call>{\"name\": .., \"arguments\": ..}</tool_call>, <think> reasoning, <response> dropped",
    engine: Builtin::Json(&ERNIE45),
    detect: &[],
    example: "<think>\nThe user wants a file.\n</think>\n\n<response>\n{prose}\n</response>{call}\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": {args}}\n</tool_call>",
};
