//! `kimi-k2`: Kimi K2's special-token calls, whose head is the model's own call id
//! (`functions.NAME:IDX`, kept verbatim). The [special-token section engine](super)
//! with these [`Tokens`]:

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::row::{Builtin, Detect, Row, Tok};
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
    literal_sections: false,
};

/// Raw Kimi K2 text: `<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{..}<|tool_call_end|>`
/// (the model's id kept as the call id).
pub(crate) const ROW: Row = Row {
    format: Format::KimiK2,
    name: "kimi-k2",
    aliases: &[],
    about: "raw Kimi K2 text: <|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{..}<|tool_call_end|> (the model's ids kept)",
    engine: Builtin::Sections(&KIMI_K2),
    detect: &[
        Detect {
            rank: 430,
            pattern: &[Tok::Lit(b"<|tool_calls_section_begin|>")],
        },
        Detect {
            rank: 440,
            pattern: &[Tok::Lit(b"<|tool_call_begin|>")],
        },
    ],
    example: "{prose}{call}<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>",
};
