//! `seed-oss`: ByteDance Seed-OSS, Qwen3-Coder's XML inside `<seed:tool_call>`:
//!
//! ```text
//! <seed:think>The user wants the weather.</seed:think>
//! <seed:tool_call>
//! <function=get_weather>
//! <parameter=location>Paris</parameter>
//! </function>
//! </seed:tool_call>
//! ```
//!
//! The [`xml`](super) scanner with these markers; values as in
//! [`qwen_xml`]:
//!
//! - `ToolCallStart` at the `>` that ends the function name. One call per section.
//! - Without a schema a value is a JSON string unless its complete trimmed text parses
//!   as a JSON non-string (number, `true`/`false`/`null`, object, array).
//! - One leading and one trailing newline of a value are stripped.
//! - Lenient: `<function=..>` without `<seed:tool_call>`; missing closing tags as in
//!   [`xml`](super).
//! - Reasoning: `<seed:think>…</seed:think>`; `<seed:eos>` is dropped.

use crate::format::Format;
use crate::text::kit::table::{list, pair, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::Table;
use crate::text::xml::qwen_xml;

/// The `seed-oss` markers: `qwen-xml`'s inside its own section and reasoning tags.
pub(crate) const DIALECT: Table = Table {
    sections: list![pair("<seed:tool_call>", "</seed:tool_call>")],
    reasoning: list![pair("<seed:think>", "</seed:think>")],
    drops: list![tok("<seed:eos>")],
    ..qwen_xml::DIALECT
};

/// Raw ByteDance Seed-OSS text: `<seed:tool_call>` around Qwen3-Coder XML calls,
/// `<seed:think>` reasoning.
pub(crate) const ROW: Row = Row {
    format: Format::SeedOss,
    name: "seed-oss",
    aliases: &[],
    about: "raw model text: <seed:tool_call><function=name><parameter=key>value</parameter></function></seed:tool_call>, <seed:think> (ByteDance Seed-OSS)",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 70,
        pattern: &[Tok::Lit(b"<seed:tool_call>")],
    }],
    example: "{prose}{call}\n<seed:tool_call>\n<function=write_file>\n<parameter=path>notes.txt</parameter>\n<parameter=content>{content}</parameter>\n</function>\n</seed:tool_call>",
};
