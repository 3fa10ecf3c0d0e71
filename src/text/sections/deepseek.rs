//! `deepseek`: DeepSeek V3 / R1 and V3.1's special-token calls. The
//! [special-token section engine](super) with these [`Tokens`]:

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::row::{Builtin, Detect, Row, Tok};
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
    literal_sections: false,
};

/// Raw model text with DeepSeek's special-token calls (V3 / R1 fenced JSON, V3.1).
pub(crate) const ROW: Row = Row {
    format: Format::DeepSeek,
    name: "deepseek",
    aliases: &["deepseek_v3", "deepseek_v31", "deepseekv3", "deepseekv31"],
    about: "raw model text: <｜tool▁call▁begin｜>function<｜tool▁sep｜>name ```json{..}```<｜tool▁call▁end｜> (V3, R1) and name<｜tool▁sep｜>{..} (V3.1)",
    engine: Builtin::Sections(&DEEPSEEK),
    detect: &[
        Detect {
            rank: 160,
            pattern: &[Tok::Lit("<｜tool▁calls▁begin｜>".as_bytes())],
        },
        Detect {
            rank: 170,
            pattern: &[Tok::Lit("<｜tool▁call▁begin｜>".as_bytes())],
        },
    ],
    example: "<think>\nThe user wants a file.\n</think>\n\n{prose}{call}<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>{args}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
};
