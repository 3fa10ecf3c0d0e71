//! `llama-pythonic`: Llama 3.2 / Llama 4 pythonic call lists, bare or after a marker token. The
//! [pythonic engine](super) with this [`Frame`]:

use std::borrow::Cow;

use crate::text::pythonic::Frame;

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
