//! `functiongemma`: FunctionGemma (`google/functiongemma-270m-it`),
//! `<start_function_call>call:NAME{k:<escape>v<escape>,n:3}<end_function_call>`. The
//! [Gemma engine](super) with this table.
//!
//! The grammar is Gemma 4's with other tokens (its chat template's `format_argument`
//! writes strings between `<escape>` tokens and numbers, booleans, objects and arrays
//! bare, as llama.cpp's `function_gemma` handler reads them). An `<escape>`-quoted
//! value is always a string: vLLM's `functiongemma` parser reads only
//! `key:<escape>value<escape>` pairs and JSON-decodes a quoted value when it can
//! (`<escape>42<escape>` → `42`); here the model's quoting is kept (`"42"`), and bare
//! values, nested objects and arrays are read too. No reasoning tags (a 270M
//! non-thinking model); `<end_of_turn>` is dropped.

use std::borrow::Cow;

use crate::format::Format;
use crate::text::gemma::Dialect;
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `functiongemma`'s tokens.
pub(crate) const FUNCTIONGEMMA: Dialect = Dialect {
    open: Cow::Borrowed("<start_function_call>"),
    close: Cow::Borrowed("<end_function_call>"),
    quote: Cow::Borrowed("<escape>"),
    reasoning: Cow::Borrowed(&[]),
    drops: Cow::Borrowed(&[
        Cow::Borrowed("<end_of_turn>"),
        Cow::Borrowed("<start_function_response>"),
    ]),
};

/// Raw FunctionGemma text: `<start_function_call>call:name{k:<escape>v<escape>,n:3}<end_function_call>`
/// (Gemma 4's argument grammar with other tokens).
pub(crate) const ROW: Row = Row {
    format: Format::FunctionGemma,
    name: "functiongemma",
    aliases: &[],
    about: "raw FunctionGemma text: <start_function_call>call:name{k:<escape>v<escape>}<end_function_call>, arguments converted to JSON as they stream",
    engine: Builtin::Gemma(&FUNCTIONGEMMA),
    detect: &[Detect {
        rank: 260,
        pattern: &[Tok::Lit(b"<start_function_call>")],
    }],
    example: "{prose}{call}<start_function_call>call:write_file{path:<escape>notes.txt<escape>,content:<escape>{content}<escape>}<end_function_call>",
};
