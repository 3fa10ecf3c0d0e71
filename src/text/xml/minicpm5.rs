//! `minicpm5`: MiniCPM 5's XML calls (vLLM's `minicpm5xml` parser), bare `<function>`
//! elements:
//!
//! ```text
//! <function name="get_weather">
//! <param name="city">Paris</param>
//! <param name="days">3</param>
//! </function>
//! ```
//!
//! The [`xml`](super) scanner with these markers:
//!
//! - No section: each `<function name="..">` holds one call; `ToolCallStart` at the `"`
//!   that closes the name (other attributes up to `>` are read and ignored).
//! - `<param name="k">v</param>`; one leading and one trailing newline of a value are
//!   layout (vLLM strips all surrounding whitespace: other whitespace is kept here).
//!   Without a schema a value is a JSON string unless its complete trimmed text parses
//!   as a JSON non-string; Python's `True`, `False`, `None` are `true`, `false`, `null`
//!   (vLLM falls back to Python literals).
//! - A value written as `<![CDATA[..]]>` (whitespace around it is layout) is the
//!   string of its content, verbatim: tags in it (`</param>` too) are content.
//! - Not read (vLLM's parser repairs them): single-quoted names (`name='f'`), the
//!   collapsed `<functionname="f">`, tokenizer `Ġ`/`Ċ` bytes,
//!   `properties`/`arguments` wrapper parameters and its tool-name aliases; vLLM also drops calls to tools that were not declared (here every call is
//!   reported).
//! - Reasoning: `<think>…</think>`.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{THINK_TAGS, list};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, PLAIN, Table};

/// The `minicpm5` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("MiniCPM <function name=..>"),
    sections: list![],
    call_open: Borrowed("<function name=\""),
    bare_calls: true,
    multi: false,
    name_end: End::Quote,
    call_close: Borrowed("</function>"),
    param_open: Borrowed("<param name=\""),
    key_end: End::Quote,
    param_close: Borrowed("</param>"),
    trim_newline: true,
    py_literals: true,
    cdata: true,
    reasoning: THINK_TAGS,
    ..PLAIN
};

/// Raw MiniCPM 5 text: `<function name="f"><param name="k">v</param></function>`.
pub(crate) const ROW: Row = Row {
    format: Format::MiniCpm5,
    name: "minicpm5",
    aliases: &["minicpm5xml"],
    about: "raw MiniCPM 5 text: <function name=\"f\"><param name=\"k\">v</param></function>",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 460,
        pattern: &[Tok::Lit(b"<function name=\"")],
    }],
    example: "{prose}{call}\n<function name=\"write_file\">\n<param name=\"path\">notes.txt</param>\n<param name=\"content\">\n{content}\n</param>\n</function>",
};
