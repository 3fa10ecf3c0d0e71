//! `qwen-xml`: the XML-ish call syntax of Qwen3-Coder and Qwen3.5:
//!
//! ```text
//! <tool_call>
//! <function=web_search>
//! <parameter=query>
//! Python 3.14 new features
//! </parameter>
//! </function>
//! </tool_call>
//! ```
//!
//! One call per `<tool_call>`. The scanner and the rules every XML-parameter syntax
//! shares (streaming, typing by the tool schema, leniency, errors) are in
//! [`xml`](super); this syntax's own:
//!
//! - `ToolCallStart` at the `>` that ends the function name.
//! - Without a schema a value is a JSON string unless its complete trimmed text parses
//!   as a JSON non-string (number, `true`/`false`/`null`, object, array); see
//!   [`xml`](super) for when it streams and when it is held.
//! - Exactly one leading and one trailing newline of a value are stripped (the template
//!   writes `<parameter=k>\nvalue\n</parameter>`).
//! - Lenient: `<function=..>` without `<tool_call>`; a missing `</parameter>`,
//!   `</function>` or `</tool_call>` (see [`xml`](super)). `<tool_call>` with nothing
//!   in it is dropped.
//! - Reasoning: `<think>…</think>`; `<|im_end|>` and `<|endoftext|>` are dropped.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{THINK_TAGS, list, pair, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, KindAttr, PLAIN, Table};

/// The `qwen-xml` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("<function=..>"),
    sections: list![pair("<tool_call>", "</tool_call>")],
    call_open: Borrowed("<function="),
    bare_calls: true,
    multi: false,
    name_end: End::Gt,
    call_close: Borrowed("</function>"),
    param_open: Borrowed("<parameter="),
    key_end: End::Gt,
    param_close: Borrowed("</parameter>"),
    trim_newline: true,
    kind_attr: KindAttr::None,
    reasoning: THINK_TAGS,
    drops: list![tok("<|im_end|>"), tok("<|endoftext|>")],
    ..PLAIN
};

/// Raw model text with Qwen3-Coder / Qwen3.5 XML calls:
/// `<tool_call><function=name><parameter=key>value</parameter></function></tool_call>`.
pub(crate) const ROW: Row = Row {
    format: Format::QwenXml,
    name: "qwen-xml",
    aliases: &["qwen3_coder", "qwen3_xml", "mimo", "step3p5"],
    about: "raw model text: <tool_call><function=name><parameter=key>value</parameter></function></tool_call> (Qwen3-Coder, Qwen3.5)",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 10,
        pattern: &[Tok::Lit(b"<tool_call>"), Tok::Ws, Tok::Lit(b"<function=")],
    }],
    example: "{prose}{call}\n<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.txt\n</parameter>\n<parameter=content>\n{content}\n</parameter>\n</function>\n</tool_call>",
};
