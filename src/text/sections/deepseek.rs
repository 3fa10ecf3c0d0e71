//! `deepseek`: DeepSeek V3 / R1 and V3.1's special-token calls. The
//! [special-token section engine](super) with these [`Tokens`]:

use std::borrow::Cow::Borrowed;

use crate::text::sections::{Head, THINK_TAGS, Tokens};

/// `deepseek`: V3 / R1 and V3.1.
pub(crate) const DEEPSEEK: Tokens = Tokens {
    label: Borrowed("DeepSeek"),
    calls_begin: Borrowed("<｜tool▁calls▁begin｜>"),
    calls_end: Borrowed("<｜tool▁calls▁end｜>"),
    call_begin: Borrowed("<｜tool▁call▁begin｜>"),
    call_end: Borrowed("<｜tool▁call▁end｜>"),
    sep: Borrowed("<｜tool▁sep｜>"),
    eos: Borrowed(&[Borrowed("<｜end▁of▁sentence｜>")]),
    head: Head::DeepSeek,
    reasoning: Borrowed(THINK_TAGS),
    calls_end_reasoning: false,
};
