//! `olmo3`: OLMo 3's calls between `<function_calls>` and `</function_calls>`, one per
//! line. The [pythonic engine](super) with this [`Frame`]:

use std::borrow::Cow;

use crate::format::Format;
use crate::text::pythonic::{Frame, THINK_PAIR};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `olmo3`: `<function_calls>\nf(a=1)\ng()\n</function_calls>` (brackets optional).
pub(crate) const OLMO3: Frame = Frame {
    open: Cow::Borrowed(&[Cow::Borrowed(b"<function_calls>")]),
    close: Cow::Borrowed(&[Cow::Borrowed(b"</function_calls>")]),
    bare_list: false,
    bracketless: true,
    reasoning: THINK_PAIR,
    // Its template is ChatML: `<|im_end|>` ends the turn.
    drops: Cow::Borrowed(&[Cow::Borrowed("<|im_end|>")]),
};

/// Raw OLMo 3 output: pythonic calls inside `<function_calls>` .. `</function_calls>`,
/// one per line (brackets optional).
pub(crate) const ROW: Row = Row {
    format: Format::Olmo3,
    name: "olmo3",
    aliases: &[],
    about: "raw OLMo 3 text: <function_calls> pythonic calls, one per line </function_calls>",
    engine: Builtin::Pythonic(&OLMO3),
    detect: &[Detect {
        rank: 240,
        pattern: &[Tok::Lit(b"<function_calls>")],
    }],
    example: "{prose}{call}<function_calls>\nwrite_file(path='notes.txt', content='{py}')\n</function_calls>",
};
