//! `gemma4`: Gemma 4's `<|tool_call>call:NAME{k:<|"|>v<|"|>,n:3}<tool_call|>` (and the
//! bare `<|tool_call>:NAME{..}` it also writes). The [Gemma engine](super) with this
//! table: `<|channel>thought` … `<channel|>` is reasoning, `<turn|>` is dropped.

use std::borrow::Cow;

use crate::format::Format;
use crate::text::gemma::Dialect;
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `gemma4`'s tokens.
pub(crate) const GEMMA4: Dialect = Dialect {
    open: Cow::Borrowed("<|tool_call>"),
    close: Cow::Borrowed("<tool_call|>"),
    quote: Cow::Borrowed("<|\"|>"),
    reasoning: Cow::Borrowed(&[(
        Cow::Borrowed("<|channel>thought"),
        Cow::Borrowed("<channel|>"),
    )]),
    drops: Cow::Borrowed(&[Cow::Borrowed("<turn|>"), Cow::Borrowed("<|tool_response>")]),
};

/// Raw Gemma 4 output: `<|tool_call>call:name{k:<|"|>v<|"|>,n:3}<tool_call|>`, also the
/// bare `<|tool_call>:name{..}` (arguments converted to JSON as they stream).
pub(crate) const ROW: Row = Row {
    format: Format::Gemma4,
    name: "gemma4",
    aliases: &[],
    about: "raw Gemma 4 text: <|tool_call>call:name{k:<|\"|>v<|\"|>,n:3}<tool_call|>",
    engine: Builtin::Gemma(&GEMMA4),
    detect: &[Detect {
        rank: 250,
        pattern: &[Tok::Lit(b"<|tool_call>")],
    }],
    example: "<|channel>thought\nThe user wants a file.\n<channel|>{prose}{call}<|tool_call>call:write_file{path:<|\"|>notes.txt<|\"|>,content:<|\"|>{content}<|\"|>}<tool_call|>",
};
