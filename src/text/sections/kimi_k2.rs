//! `kimi-k2`: Kimi K2's special-token calls, whose head is the model's own call id
//! (`functions.NAME:IDX`, kept verbatim). The [special-token section engine](super)
//! with these [`Tokens`]:

use std::borrow::Cow::Borrowed;

use crate::text::sections::{Head, THINK_TAGS, Tokens};

/// `kimi-k2`: Kimi K2 (Instruct, Thinking).
pub(crate) const KIMI_K2: Tokens = Tokens {
    label: Borrowed("Kimi K2"),
    calls_begin: Borrowed("<|tool_calls_section_begin|>"),
    calls_end: Borrowed("<|tool_calls_section_end|>"),
    call_begin: Borrowed("<|tool_call_begin|>"),
    call_end: Borrowed("<|tool_call_end|>"),
    sep: Borrowed("<|tool_call_argument_begin|>"),
    eos: Borrowed(&[Borrowed("<|im_end|>")]),
    head: Head::KimiId,
    reasoning: Borrowed(THINK_TAGS),
    calls_end_reasoning: true,
};
