//! `solar-open2`: Upstage Solar Open 2's calls (vLLM's `solar_open2` parser):
//!
//! ```text
//! <|tool_call:start|>get_weather
//! <|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>
//! <|tool_call:end|>
//! ```
//!
//! GLM's call body ([`glm`](super::glm): the name is the rest of the opener's line) in
//! special tokens, each call on its own (no section around them): a key follows
//! `<|tool_arg:start|>` and ends at `<|tool_arg:value|>`, which also opens the value (no
//! second tag: the value starts right after it, whitespace included), and
//! `<|tool_arg:end|>` closes it. The [`xml`](super) scanner with these markers:
//!
//! - Values as GLM's: without a schema a value is a JSON string unless its complete
//!   trimmed text parses as a JSON non-string (vLLM's parser, without a schema, keeps
//!   every value a string: declare the tools to get that here).
//! - A value ends at its own `<|tool_arg:end|>`: a call's close or another opener inside it
//!   is a dropped close, and the call an error carrying its bytes (vLLM completes such a
//!   call with the value cut there), never completed with the arguments before it. A
//!   literal `<|tool_call:` that is no whole token is value text, as in vLLM's tests.
//! - Reasoning: `<|think:start|>…<|think:end|>`.
//!
//! Checked against vLLM's parser and its tests (`test_solar_open2_tool_parser.py`).

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{list, pair};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, PLAIN, Table};

/// The `solar-open2` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("Solar <|tool_call:start|>"),
    call_open: Borrowed("<|tool_call:start|>"),
    bare_calls: true,
    name_end: End::Line,
    call_close: Borrowed("<|tool_call:end|>"),
    param_open: Borrowed("<|tool_arg:start|>"),
    key_end: End::Tags,
    key_tags: (Borrowed("<|tool_arg:value|>"), Borrowed("")),
    param_close: Borrowed("<|tool_arg:end|>"),
    reasoning: list![pair("<|think:start|>", "<|think:end|>")],
    ..PLAIN
};

/// Raw Upstage Solar Open 2 text: `<|tool_call:start|>name` then, a line each,
/// `<|tool_arg:start|>k<|tool_arg:value|>v<|tool_arg:end|>`, then `<|tool_call:end|>`;
/// `<|think:start|>` reasoning.
pub(crate) const ROW: Row = Row {
    format: Format::SolarOpen2,
    name: "solar-open2",
    aliases: &[],
    about: "raw Upstage Solar Open 2 text: <|tool_call:start|>name\\n<|tool_arg:start|>k<|tool_arg:value|>v<|tool_arg:end|>\\n<|tool_call:end|>, <|think:start|> reasoning",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 545,
        pattern: &[Tok::Lit(b"<|tool_call:start|>")],
    }],
    example: "<|think:start|>The user wants a file.<|think:end|>{prose}{call}\n<|tool_call:start|>write_file\n<|tool_arg:start|>path<|tool_arg:value|>notes.txt<|tool_arg:end|>\n<|tool_arg:start|>content<|tool_arg:value|>{content}<|tool_arg:end|>\n<|tool_call:end|>",
};
