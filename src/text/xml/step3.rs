//! `step3`: StepFun Step-3's StepTML calls (vLLM's and SGLang's `step3` parsers; note
//! the full-width `｜` bars, multi-byte markers that may be split at any byte):
//!
//! ```text
//! <｜tool_calls_begin｜>
//! <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
//! <steptml:parameter name="city">Paris</steptml:parameter>
//! </steptml:invoke><｜tool_call_end｜>
//! <｜tool_calls_end｜>
//! ```
//!
//! The [`xml`](super) scanner with these markers:
//!
//! - A section of several calls. A call opens with the whole
//!   `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="` (the call type
//!   `function`, the only one the peers read, written with no space around it) and
//!   closes with `</steptml:invoke><｜tool_call_end｜>` (no space between: as the model
//!   writes it). `ToolCallStart` at the `"` that closes the name.
//! - `<steptml:parameter name="k">v</steptml:parameter>`. Without a schema a value is a
//!   JSON string unless its complete trimmed text parses as a JSON non-string (vLLM
//!   keeps schema-less values strings and strips them: declare the tools to get
//!   strings here; values are taken exactly).
//! - A call outside the section is text (the peers read calls only inside it).
//! - Reasoning: `<think>…</think>`.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{THINK_TAGS, list, pair};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, PLAIN, Table};

/// The `step3` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("Step-3 <steptml:invoke name=..>"),
    sections: list![pair("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>")],
    call_open: Borrowed("<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\""),
    bare_calls: false,
    multi: true,
    name_end: End::Quote,
    call_close: Borrowed("</steptml:invoke><｜tool_call_end｜>"),
    param_open: Borrowed("<steptml:parameter name=\""),
    key_end: End::Quote,
    param_close: Borrowed("</steptml:parameter>"),
    reasoning: THINK_TAGS,
    ..PLAIN
};

/// Raw StepFun Step-3 text:
/// `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f"><steptml:parameter name="k">v</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`.
pub(crate) const ROW: Row = Row {
    format: Format::Step3,
    name: "step3",
    aliases: &[],
    about: "raw StepFun Step-3 text: <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"k\">v</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 480,
        pattern: &[Tok::Lit("<｜tool_calls_begin｜>".as_bytes())],
    }],
    example: "{prose}{call}\n<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"write_file\">\n<steptml:parameter name=\"path\">notes.txt</steptml:parameter>\n<steptml:parameter name=\"content\">{content}</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>",
};
