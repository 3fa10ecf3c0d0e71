//! `internlm`: InternLM 2.5 / 3 `<|action_start|><|plugin|>\n{..}<|action_end|>`. The
//! [JSON-call engine](super) with this table.

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::table::{THINK_TAGS, list, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `internlm`: InternLM 2.5 / 3 `<|action_start|><|plugin|>\n{..}<|action_end|>`.
pub(crate) const INTERNLM: Table = Table {
    openers: list![opener(
        "<|action_start|><|plugin|>",
        Some("<|action_end|>"),
        Payload::Object,
    )],
    reasoning: THINK_TAGS,
    drops: list![tok("<|im_end|>")],
    ..PLAIN
};

/// Raw InternLM 2.5 / 3 text: `<|action_start|><|plugin|>{"name": .., "parameters": ..}<|action_end|>`.
pub(crate) const ROW: Row = Row {
    format: Format::InternLm,
    name: "internlm",
    aliases: &["interns1"],
    about: "raw InternLM 2.5 / 3 text: <|action_start|><|plugin|>{\"name\": .., \"parameters\": ..}<|action_end|>",
    engine: Builtin::Json(&INTERNLM),
    detect: &[Detect {
        rank: 390,
        pattern: &[Tok::Lit(b"<|action_start|><|plugin|>")],
    }],
    example: "{prose}{call}<|action_start|><|plugin|>\n{\"name\": \"write_file\", \"parameters\": {args}}<|action_end|>",
};
