//! `dots`: rednote hi lab's dots models (vLLM's `dots` parser): MiniMax M2's
//! `<invoke>` / `<parameter>` calls ([`minimax`](super::minimax)) in a
//! `<dots_function_call>` block:
//!
//! ```text
//! <dots_function_call>
//! <invoke name="search">
//! <parameter name="query">weather in Shanghai</parameter>
//! </invoke>
//! </dots_function_call>
//! ```
//!
//! The [`xml`](super) scanner with these markers:
//!
//! - Several `<invoke>`s per block, several blocks per reply. `ToolCallStart` at the `"`
//!   that closes the name.
//! - One leading and one trailing newline of a value are layout (vLLM strips a value's
//!   whitespace); without a schema a value is a JSON string unless its trimmed text
//!   parses as a JSON non-string (vLLM types values by the declared schema: declare the
//!   tools to get that here).
//! - Not read: vLLM's fallback of one JSON call object as the block's body (an error
//!   with its bytes here), and unquoted names (`<invoke name=search>`).
//! - Reasoning: `<think>…</think>`.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{THINK_TAGS, list, pair};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, PLAIN, Table};

/// The `dots` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("<dots_function_call> <invoke name=..>"),
    sections: list![pair("<dots_function_call>", "</dots_function_call>")],
    call_open: Borrowed("<invoke name=\""),
    bare_calls: false,
    multi: true,
    name_end: End::Quote,
    call_close: Borrowed("</invoke>"),
    param_open: Borrowed("<parameter name=\""),
    key_end: End::Quote,
    param_close: Borrowed("</parameter>"),
    trim_newline: true,
    reasoning: THINK_TAGS,
    ..PLAIN
};

/// Raw dots text: MiniMax M2's `<invoke name="f"><parameter name="k">v</parameter></invoke>`
/// calls in `<dots_function_call>` blocks.
pub(crate) const ROW: Row = Row {
    format: Format::Dots,
    name: "dots",
    aliases: &[],
    about: "raw dots text: <dots_function_call><invoke name=\"f\"><parameter name=\"k\">v</parameter></invoke></dots_function_call>",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 540,
        pattern: &[Tok::Lit(b"<dots_function_call>")],
    }],
    example: "{prose}{call}\n<dots_function_call>\n<invoke name=\"write_file\">\n<parameter name=\"path\">notes.txt</parameter>\n<parameter name=\"content\">{content}</parameter>\n</invoke>\n</dots_function_call>",
};
