//! `zaya1`: Zyphra ZAYA1's calls, Qwen3-Coder's XML ([`qwen_xml`]) inside Zyphra's own
//! section tokens:
//!
//! ```text
//! <zyphra_tool_call>
//! <function=search_docs>
//! <parameter=query>
//! zaya cache
//! </parameter>
//! </function>
//! </zyphra_tool_call>
//! ```
//!
//! Checked against the model card (the tokenizer's single tokens `<zyphra_tool_call>` /
//! `</zyphra_tool_call>`, ids 101-102, `<zyphra_tool_response>` for results) and the
//! peers' `zaya_xml` parsers (vLLM-MLX's, and a Swift client's `XMLFunctionParser` with
//! these start and end tags), whose tests write the Qwen3 XML body above. The
//! [`xml`](super) scanner with `qwen-xml`'s markers:
//!
//! - One leading and one trailing newline of a value are layout (the template's); values
//!   without a schema as in `qwen-xml` (a value that parses as a JSON non-string is JSON,
//!   else the model's text). The peers' test value `"zaya cache"`, quotes included, stays
//!   that text here (their parsers unwrap a JSON-quoted string to `zaya cache`).
//! - A `<function=` outside the section opens a call too, as in `qwen-xml`.
//! - Reasoning: `<think>…</think>`; `<|im_end|>` and `<|endoftext|>` are dropped.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{list, pair};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::Table;
use crate::text::xml::qwen_xml;

/// The `zaya1` markers: `qwen-xml`'s inside Zyphra's section tokens.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("<zyphra_tool_call> <function=..>"),
    sections: list![pair("<zyphra_tool_call>", "</zyphra_tool_call>")],
    ..qwen_xml::DIALECT
};

/// Raw Zyphra ZAYA1 text: Qwen3-Coder XML calls inside
/// `<zyphra_tool_call>` .. `</zyphra_tool_call>`.
pub(crate) const ROW: Row = Row {
    format: Format::Zaya1,
    name: "zaya1",
    aliases: &["zaya_xml"],
    about: "raw Zyphra ZAYA1 text: <zyphra_tool_call><function=name><parameter=key>value</parameter></function></zyphra_tool_call>",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 490,
        pattern: &[Tok::Lit(b"<zyphra_tool_call>")],
    }],
    example: "{prose}{call}\n<zyphra_tool_call>\n<function=write_file>\n<parameter=path>\nnotes.txt\n</parameter>\n<parameter=content>\n{content}\n</parameter>\n</function>\n</zyphra_tool_call>",
};
