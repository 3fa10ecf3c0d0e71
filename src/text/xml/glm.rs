//! `glm`: the call syntax of GLM-4.5, 4.6, 4.7 and 5 (Zhipu / Z.ai):
//!
//! ```text
//! <tool_call>get_weather
//! <arg_key>city</arg_key>
//! <arg_value>Beijing</arg_value>
//! <arg_key>days</arg_key>
//! <arg_value>3</arg_value>
//! </tool_call>
//! ```
//!
//! The [`xml`](super) scanner with these markers:
//!
//! - The name runs from `<tool_call>` to the end of its line, or to the next tag:
//!   GLM-4.7 writes `<tool_call>get_weather<arg_key>..` with no newline. `ToolCallStart`
//!   at that newline or `<`. A name holding spaces, quotes or braces
//!   (`<tool_call>{"name": ..}`) is not this syntax: an error with the raw call. A name
//!   line that is no name (a space before it, whitespace or markup in it) ending at its
//!   line break is a call only if a tag follows (a malformed one, that error); prose after
//!   it, or the end of the text, makes `<tool_call>` and the line text, byte for byte (`Use
//!   a literal <tool_call> tag.`), decided on the line's first 256 bytes at most.
//! - `<arg_key>k</arg_key>`, optional whitespace, `<arg_value>v</arg_value>`. Values are
//!   taken exactly (no newline stripped): the template writes a string as is and any
//!   other value JSON-dumped, so without a schema a value is a JSON string unless its
//!   complete trimmed text parses as a JSON non-string (number, `true`/`false`/`null`,
//!   object, array), and Python's `True`, `False`, `None` (GLM writes Python values at
//!   times) are `true`, `false`, `null`. A string parameter whose value reads `true`,
//!   `None` or `12` needs the schema ([`ParserConfig::tools`](crate::ParserConfig::tools)) to stay a
//!   string.
//! - No section: each `<tool_call>` holds one call; a missing `</arg_value>` is lenient
//!   as in [`xml`](super), and so is a missing `<arg_value>` (GLM-4.7 drops it at
//!   times under load: `<arg_key>q</arg_key>text</arg_value>`): whatever follows
//!   `</arg_key>` and its whitespace is then the value.
//! - Reasoning: `<think>…</think>`; `<|user|>`, `<|observation|>` and `<|endoftext|>`
//!   are dropped.
//!
//! vLLM's `ling3` (Ling 3: GLM-4.7's calls, thinking on by default: give
//! [`ParserConfig::reasoning_open`](crate::ParserConfig::reasoning_open); vLLM also ends
//! an open `<think>` at `<tool_call>`, which is not read here) and `poolside_v1`
//! (Poolside v1: GLM-4's calls) parse as this format.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{THINK_TAGS, list, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, KindAttr, PLAIN, Table};

/// The `glm` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("GLM <tool_call>"),
    sections: list![],
    call_open: Borrowed("<tool_call>"),
    bare_calls: true,
    multi: false,
    name_end: End::Line,
    call_close: Borrowed("</tool_call>"),
    param_open: Borrowed("<arg_key>"),
    key_end: End::Tags,
    key_tags: (Borrowed("</arg_key>"), Borrowed("<arg_value>")),
    param_close: Borrowed("</arg_value>"),
    trim_newline: false,
    kind_attr: KindAttr::None,
    py_literals: true,
    reasoning: THINK_TAGS,
    drops: list![
        tok("<|user|>"),
        tok("<|observation|>"),
        tok("<|endoftext|>")
    ],
    ..PLAIN
};

/// Raw GLM-4.5 / 4.6 / 4.7 / 5 text: `<tool_call>name\n<arg_key>k</arg_key>\n<arg_value>v</arg_value></tool_call>`.
pub(crate) const ROW: Row = Row {
    format: Format::Glm,
    name: "glm",
    aliases: &["glm45", "glm47", "ling3", "poolside_v1", "spark25"],
    about: "raw model text: <tool_call>name\\n<arg_key>k</arg_key>\\n<arg_value>v</arg_value></tool_call> (GLM-4.5, 4.6, 4.7, 5)",
    engine: Builtin::Xml(&DIALECT),
    detect: &[
        Detect {
            rank: 20,
            pattern: &[
                Tok::Lit(b"<tool_call>"),
                Tok::Ident,
                Tok::Ws,
                Tok::Lit(b"<arg_key>"),
            ],
        },
        Detect {
            rank: 30,
            pattern: &[
                Tok::Lit(b"<tool_call>"),
                Tok::Ident,
                Tok::Ws,
                Tok::Lit(b"</tool_call>"),
            ],
        },
    ],
    example: "{prose}{call}\n<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>notes.txt</arg_value>\n<arg_key>content</arg_key>\n<arg_value>{content}</arg_value>\n</tool_call>",
};
