//! `lfm2`: Liquid LFM2's pythonic call list between `<|tool_call_start|>` and
//! `<|tool_call_end|>`. The [pythonic engine](super) with this [`Frame`]:

use std::borrow::Cow;

use crate::text::pythonic::{Frame, THINK_PAIR};

/// `lfm2`: `<|tool_call_start|>[f(a=1), g()]<|tool_call_end|>`.
pub(crate) const LFM2: Frame = Frame {
    open: Cow::Borrowed(&[Cow::Borrowed(b"<|tool_call_start|>")]),
    close: Cow::Borrowed(&[Cow::Borrowed(b"<|tool_call_end|>")]),
    bare_list: false,
    bracketless: false,
    reasoning: THINK_PAIR,
    drops: Cow::Borrowed(&[Cow::Borrowed("<|im_end|>")]),
};
