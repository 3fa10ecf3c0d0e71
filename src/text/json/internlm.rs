//! `internlm`: InternLM 2.5 / 3 `<|action_start|><|plugin|>\n{..}<|action_end|>`. The
//! [JSON-call engine](super) with this table.

use crate::format::Format;
use crate::text::json::{Dialect, Payload, opener};
use crate::text::kit::json_call::{NAME_ARGUMENTS, Shape};
use crate::text::kit::reasoning::THINK;
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `internlm`: InternLM 2.5 / 3 `<|action_start|><|plugin|>\n{..}<|action_end|>`.
pub(crate) const INTERNLM: Dialect = Dialect {
    openers: &[opener(
        "<|action_start|><|plugin|>",
        Some("<|action_end|>"),
        Payload::Object,
    )],
    shape: Shape::Fields(NAME_ARGUMENTS),
    reasoning: THINK,
    drops: &["<|im_end|>"],
};

/// The registry row of `internlm` ([`SYNTAXES`](crate::text::SYNTAXES)).
pub(crate) const ROW: Row = Row {
    format: Format::InternLm,
    name: "internlm",
    aliases: &[],
    about: "raw InternLM 2.5 / 3 text: <|action_start|><|plugin|>{\"name\": .., \"parameters\": ..}<|action_end|>",
    engine: Builtin::Json(&INTERNLM),
    detect: &[Detect {
        rank: 390,
        pattern: &[Tok::Lit(b"<|action_start|><|plugin|>")],
    }],
};
