//! `plamo3`: PLaMo 3's tool requests (vLLM's `plamo3` parser), special-token sections
//! with the name between its own tags and JSON arguments:
//!
//! ```text
//! <|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"city": "Tokyo"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>
//! ```
//!
//! The [special-token section engine](super) with these [`Tokens`]: the request's two
//! opening tags are its begin token, the name's closing tag and the arguments' opening
//! tags (with the JSON constraint tokens `<|plamo:constrain|>json<|plamo:msg|>` the model
//! writes there) its separator, the arguments' and the request's closing tags its end
//! token. The tags are not single tokens in PLaMo 3's vocabulary (each is three or more):
//! a tag split anywhere is held, as every marker is. `<|plamo:tag|>` (end of turn) is
//! dropped; `<|plamo:begin_think:plamo|>` … `<|plamo:end_think:plamo|>` is reasoning.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::sections::{Head, Tokens};

/// `plamo3`: PLaMo 3.
pub(crate) const PLAMO3: Tokens = Tokens {
    label: Borrowed("PLaMo 3"),
    calls_begin: Borrowed("<|plamo:begin_tool_requests:plamo|>"),
    calls_end: Borrowed("<|plamo:end_tool_requests:plamo|>"),
    call_begin: Borrowed("<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>"),
    call_end: Borrowed("<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>"),
    sep: Borrowed(
        "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>",
    ),
    eos: Borrowed(&[Borrowed("<|plamo:tag|>")]),
    head: Head::DeepSeek,
    reasoning: Borrowed(&[(
        Borrowed("<|plamo:begin_think:plamo|>"),
        Borrowed("<|plamo:end_think:plamo|>"),
    )]),
    calls_end_reasoning: false,
    literal_sections: true,
};

/// Raw PLaMo 3 text: `<|plamo:begin_tool_requests:plamo|>` sections, the name between
/// `<|plamo:begin_tool_name:plamo|>` tags, JSON arguments.
pub(crate) const ROW: Row = Row {
    format: Format::Plamo3,
    name: "plamo3",
    aliases: &[],
    about: "raw PLaMo 3 text: <|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>name<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>..{..}<|plamo:end_tool_arguments:plamo|>..",
    engine: Builtin::Sections(&PLAMO3),
    detect: &[
        Detect {
            rank: 510,
            pattern: &[Tok::Lit(b"<|plamo:begin_tool_requests:plamo|>")],
        },
        Detect {
            rank: 520,
            pattern: &[Tok::Lit(b"<|plamo:begin_tool_request:plamo|>")],
        },
    ],
    example: "{prose}{call}<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>write_file<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{args}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>",
};
