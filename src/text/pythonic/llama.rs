//! `llama-pythonic`: Llama 3.2 / Llama 4 pythonic call lists, bare or after a marker token. The
//! [pythonic engine](super) with this [`Frame`]:

use std::borrow::Cow;

use crate::format::Format;
use crate::text::pythonic::Frame;
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `llama-pythonic`: a bare `[`, or after `<|python_tag|>` / Llama 4's `<|python_start|>`.
pub(crate) const LLAMA: Frame = Frame {
    open: Cow::Borrowed(&[
        Cow::Borrowed(b"<|python_tag|>"),
        Cow::Borrowed(b"<|python_start|>"),
    ]),
    close: Cow::Borrowed(&[Cow::Borrowed(b"<|python_end|>")]),
    bare_list: true,
    bracketless: false,
    reasoning: Cow::Borrowed(&[]),
    drops: Cow::Borrowed(&[]),
};

/// Raw Llama 3.2 / Llama 4 output with pythonic tool calls `[f(a=1, b='x'), g()]`
/// (arguments converted to JSON as they stream). See `text::pythonic`.
pub(crate) const ROW: Row = Row {
    format: Format::LlamaPythonic,
    name: "llama-pythonic",
    aliases: &["llama4_pythonic", "pythonic"],
    about: "raw Llama 3.2/4 text with pythonic tool calls [f(a=1, b='x'), g()]",
    engine: Builtin::Pythonic(&LLAMA),
    detect: &[
        Detect {
            rank: 200,
            pattern: &[
                // A list after the tag whose first element begins a name is a call
                // list (a name that breaks is its error, never code); `[{` is
                // `llama-json`'s array of calls, another list text in both.
                Tok::Lit(b"<|python_tag|>"),
                Tok::Ws,
                Tok::Lit(b"["),
                Tok::Ws,
                Tok::Ident,
            ],
        },
        Detect {
            rank: 210,
            pattern: &[Tok::Lit(b"<|python_start|>")],
        },
        Detect {
            rank: 300,
            pattern: &[Tok::Lit(b"["), Tok::Ws, Tok::Ident, Tok::Lit(b"(")],
        },
    ],
    example: "{prose}{call}[write_file(path='notes.txt', content='{py}')]",
};
