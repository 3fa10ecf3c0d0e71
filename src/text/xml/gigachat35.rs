//! `gigachat35`: GigaChat 3.5's GCML call syntax (vLLM's `gigachat35` parser; note the
//! full-width `｜` bars, multi-byte markers that may be split at any byte):
//!
//! ```text
//! <｜GCML｜tool_calls>
//! <｜GCML｜invoke name="get_weather">
//! <｜GCML｜parameter name="city" string="true">Moscow</｜GCML｜parameter>
//! <｜GCML｜parameter name="days" string="false">3</｜GCML｜parameter>
//! </｜GCML｜invoke>
//! </｜GCML｜tool_calls>
//! ```
//!
//! DeepSeek's DSML ([`deepseek_dsml`](super::deepseek_dsml)) with the `｜GCML｜`
//! sentinel: the [`xml`](super) scanner with these markers. (GigaChat 3 and 3.1's
//! `<|function_call|>{..}` JSON calls are [`gigachat3`](crate::text::json::gigachat3).)
//!
//! - Several invokes per section; an invoke outside a section is text (vLLM reads calls
//!   only after `<｜GCML｜tool_calls>`). `ToolCallStart` at the `"` that closes the name.
//! - Each value's kind from its `string` attribute, as DSML's: `string="true"` → the
//!   raw text as a JSON string, streamed; `string="false"` → JSON text (a JSON string
//!   decoded, text that does not parse kept as a string). A declared schema takes precedence; with neither
//!   (no `string` attribute: vLLM then takes a string), a value is a JSON string unless
//!   its complete trimmed text parses as a JSON non-string. Values are taken exactly.
//! - `</s>`, the end-of-sequence token vLLM strips from the end of the output, is
//!   dropped from the text. Reasoning: `<think>…</think>` (as `gigachat3`).

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{THINK_TAGS, list, pair, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, KindAttr, PLAIN, Table};

/// The `gigachat35` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("GCML <invoke name=..>"),
    sections: list![pair("<｜GCML｜tool_calls>", "</｜GCML｜tool_calls>")],
    call_open: Borrowed("<｜GCML｜invoke name=\""),
    bare_calls: false,
    multi: true,
    name_end: End::Quote,
    call_close: Borrowed("</｜GCML｜invoke>"),
    param_open: Borrowed("<｜GCML｜parameter name=\""),
    key_end: End::Quote,
    param_close: Borrowed("</｜GCML｜parameter>"),
    kind_attr: KindAttr::DsmlString,
    reasoning: THINK_TAGS,
    drops: list![tok("</s>")],
    ..PLAIN
};

/// Raw GigaChat 3.5 text with GCML calls:
/// `<｜GCML｜tool_calls><｜GCML｜invoke name="f"><｜GCML｜parameter name="k" string="true">v</｜GCML｜parameter>…`.
pub(crate) const ROW: Row = Row {
    format: Format::GigaChat35,
    name: "gigachat35",
    aliases: &[],
    about: "raw GigaChat 3.5 text: <｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"k\" string=\"true\">v</｜GCML｜parameter>…",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 450,
        pattern: &[Tok::Lit("<｜GCML｜tool_calls>".as_bytes())],
    }],
    example: "{prose}{call}\n<｜GCML｜tool_calls>\n<｜GCML｜invoke name=\"write_file\">\n<｜GCML｜parameter name=\"path\" string=\"true\">notes.txt</｜GCML｜parameter>\n<｜GCML｜parameter name=\"content\" string=\"true\">{content}</｜GCML｜parameter>\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>",
};
