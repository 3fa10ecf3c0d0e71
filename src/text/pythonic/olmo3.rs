//! `olmo3`: OLMo 3's calls between `<function_calls>` and `</function_calls>`, one per
//! line. The [pythonic engine](super) with this [`Frame`]:

use std::borrow::Cow;

use crate::text::pythonic::{Frame, THINK_PAIR};

/// `olmo3`: `<function_calls>\nf(a=1)\ng()\n</function_calls>` (brackets optional).
pub(crate) const OLMO3: Frame = Frame {
    open: Cow::Borrowed(&[Cow::Borrowed(b"<function_calls>")]),
    close: Cow::Borrowed(&[Cow::Borrowed(b"</function_calls>")]),
    bare_list: false,
    bracketless: true,
    reasoning: THINK_PAIR,
    drops: Cow::Borrowed(&[]),
};
