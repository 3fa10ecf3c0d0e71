//! `gemma4`: Gemma 4's `<|tool_call>call:NAME{k:<|"|>v<|"|>,n:3}<tool_call|>` (and the
//! bare `<|tool_call>:NAME{..}` it also writes). The [Gemma engine](super) with this
//! table: `<|channel>thought` … `<channel|>` is reasoning, `<turn|>` is dropped.

use std::borrow::Cow;

use crate::text::gemma::Dialect;

/// `gemma4`'s tokens.
pub(crate) const GEMMA4: Dialect = Dialect {
    open: Cow::Borrowed("<|tool_call>"),
    close: Cow::Borrowed("<tool_call|>"),
    quote: Cow::Borrowed("<|\"|>"),
    reasoning: Cow::Borrowed(&[(
        Cow::Borrowed("<|channel>thought"),
        Cow::Borrowed("<channel|>"),
    )]),
    drops: Cow::Borrowed(&[Cow::Borrowed("<turn|>")]),
};
