//! `lfm2`: Liquid LFM2's pythonic call list between `<|tool_call_start|>` and
//! `<|tool_call_end|>`. The [pythonic engine](super) with this [`Frame`]:

use std::borrow::Cow;

use crate::format::Format;
use crate::text::pythonic::{Frame, THINK_PAIR};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `lfm2`: `<|tool_call_start|>[f(a=1), g()]<|tool_call_end|>`.
pub(crate) const LFM2: Frame = Frame {
    open: Cow::Borrowed(&[Cow::Borrowed(b"<|tool_call_start|>")]),
    close: Cow::Borrowed(&[Cow::Borrowed(b"<|tool_call_end|>")]),
    bare_list: false,
    bracketless: false,
    reasoning: THINK_PAIR,
    drops: Cow::Borrowed(&[Cow::Borrowed("<|im_end|>")]),
};

/// Raw Liquid LFM2 output: pythonic calls inside
/// `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`.
pub(crate) const ROW: Row = Row {
    format: Format::Lfm2,
    name: "lfm2",
    aliases: &[],
    about: "raw Liquid LFM2 text: <|tool_call_start|>[f(a=1, b='x'), g()]<|tool_call_end|> (pythonic calls)",
    engine: Builtin::Pythonic(&LFM2),
    detect: &[Detect {
        rank: 230,
        pattern: &[Tok::Lit(b"<|tool_call_start|>")],
    }],
    example: "{prose}{call}<|tool_call_start|>[write_file(path='notes.txt', content='{py}')]<|tool_call_end|>",
};
