//! `inkling`: Inkling's typed content blocks (vLLM's `inkling` parser), every marker a
//! special token:
//!
//! ```text
//! <|message_model|><|content_thinking|>…reasoning…<|end_message|>
//! <|message_model|><|content_text|>…visible text…<|end_message|>
//! <|message_model|><|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "SF"}}<|end_message|>
//! ```
//!
//! The [JSON-call engine](super) with this table:
//!
//! - A call is one `{"name": .., "args": {..}}` object after
//!   `<|content_invoke_tool_json|>`, closed by `<|end_message|>` (or by the end of the
//!   object: `<|content_model_end_sampling|>` after it is dropped, as vLLM's parser also
//!   ends a block there). The `args` object is the arguments, the model's bytes as they
//!   stream; no `args` member is `{}`; another member (`"arguments"`) is an error with
//!   the raw call, as in every JSON-call syntax.
//! - Reasoning: `<|content_thinking|>…<|end_message|>`.
//! - The block markers that only say a text block follows (`<|message_model|>`,
//!   `<|content_text|>`, `<|content_invoke_tool_text|>`, `<|content_tool_error|>`,
//!   whose contents vLLM shows as text), `<|end_message|>` after text and
//!   `<|content_model_end_sampling|>` are dropped from the text.
//! - The template writes the tool's name in the message header too:
//!   `<|message_model|>get_weather<|content_invoke_tool_json|>{..}`. That name is the
//!   call's, never text: the text after `<|message_model|>` is held up to the next `<`
//!   (bounded, on one line); a call opener there begins the call, whose raw text then
//!   starts at `<|message_model|>` ([`Table::header`](super::Table::header)); any other
//!   token after it makes the held text text again. The header's name names the call
//!   (`ToolCallStart` at the object's `{`), so an object without `name` is that tool's
//!   call; the template writes both, and an object whose `name` differs from its header's
//!   is an `invalid_arguments` error with the call's bytes (never one of the two names
//!   silently). A header that is no name (whitespace, a quote, a brace in it) names
//!   nothing: the object's `name` must then be the same text, and there is no call.
//! - Not read: a thinking block ended by `<|content_model_end_sampling|>` (reasoning
//!   then runs to the next `<|end_message|>`).

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::json_call::Shape;
use crate::text::kit::table::{list, pair, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `inkling`: `<|content_invoke_tool_json|>{"name": .., "args": ..}<|end_message|>`.
pub(crate) const INKLING: Table = Table {
    openers: list![opener(
        "<|content_invoke_tool_json|>",
        Some("<|end_message|>"),
        Payload::Object,
    )],
    shape: Shape::Fields {
        name: list![tok("name")],
        args: list![tok("args")],
        id: list![],
    },
    reasoning: list![pair("<|content_thinking|>", "<|end_message|>")],
    drops: list![
        tok("<|message_model|>"),
        tok("<|content_text|>"),
        tok("<|content_invoke_tool_text|>"),
        tok("<|content_tool_error|>"),
        tok("<|end_message|>"),
        tok("<|content_model_end_sampling|>"),
    ],
    header: Some(tok(HEADER)),
    ..PLAIN
};

/// The token that begins a message, whose header may name the call.
pub(crate) const HEADER: &str = "<|message_model|>";

/// Raw Inkling text: typed content blocks,
/// `<|content_invoke_tool_json|>{"name": .., "args": {..}}<|end_message|>`.
pub(crate) const ROW: Row = Row {
    format: Format::Inkling,
    name: "inkling",
    aliases: &[],
    about: "raw Inkling text: <|content_invoke_tool_json|>{\"name\": .., \"args\": {..}}<|end_message|>, <|content_thinking|> reasoning",
    engine: Builtin::Json(&INKLING),
    detect: &[Detect {
        rank: 470,
        pattern: &[Tok::Lit(b"<|content_invoke_tool_json|>")],
    }],
    example: "{prose}{call}<|message_model|><|content_invoke_tool_json|>{\"name\": \"write_file\", \"args\": {args}}<|end_message|>",
};
