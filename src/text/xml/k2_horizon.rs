//! `k2-horizon`: K2 Horizon's IFM calls (vLLM's `k2_horizon` parser, its default `xml`
//! tool format):
//!
//! ```text
//! <ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call></ifm|tool_calls>
//! ```
//!
//! HY v4's shape ([`hy_v4`](super::hy_v4): GLM's call body, the name up to the first tag
//! or the line's end, `<ifm|arg_key>k</ifm|arg_key>` then `<ifm|arg_value>v</ifm|arg_value>`)
//! in a section of several calls, every tag in the `ifm|` namespace. The [`xml`](super)
//! scanner with these markers:
//!
//! - Values without a schema as GLM's: a JSON string unless the complete trimmed value
//!   parses as a JSON non-string (vLLM coerces by the declared schema: declare the tools
//!   to get that here).
//! - A call outside `<ifm|tool_calls>` is text (vLLM reads calls only inside the group).
//! - Not read: the `xml_typed` format (an `<ifm|arg_type>` between key and value: read
//!   with GLM's rule for a missing `<arg_value>`, the type tags become part of the value
//!   text) and the `json` format (a JSON call object in `<ifm|tool_call>`: an error with
//!   its bytes), both chosen by a chat-template option.
//! - Reasoning: `<think>…</think>`.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{THINK_TAGS, list, pair};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, PLAIN, Table};

/// The `k2-horizon` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("IFM <ifm|tool_call>"),
    sections: list![pair("<ifm|tool_calls>", "</ifm|tool_calls>")],
    call_open: Borrowed("<ifm|tool_call>"),
    bare_calls: false,
    multi: true,
    name_end: End::Line,
    call_close: Borrowed("</ifm|tool_call>"),
    param_open: Borrowed("<ifm|arg_key>"),
    key_end: End::Tags,
    key_tags: (Borrowed("</ifm|arg_key>"), Borrowed("<ifm|arg_value>")),
    param_close: Borrowed("</ifm|arg_value>"),
    reasoning: THINK_TAGS,
    ..PLAIN
};

/// Raw K2 Horizon text (IFM tags):
/// `<ifm|tool_calls><ifm|tool_call>name<ifm|arg_key>k</ifm|arg_key><ifm|arg_value>v</ifm|arg_value></ifm|tool_call></ifm|tool_calls>`.
pub(crate) const ROW: Row = Row {
    format: Format::K2Horizon,
    name: "k2-horizon",
    aliases: &[],
    about: "raw K2 Horizon text: <ifm|tool_calls><ifm|tool_call>name<ifm|arg_key>k</ifm|arg_key><ifm|arg_value>v</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 500,
        pattern: &[Tok::Lit(b"<ifm|tool_calls>")],
    }],
    example: "{prose}{call}<ifm|tool_calls><ifm|tool_call>write_file<ifm|arg_key>path</ifm|arg_key><ifm|arg_value>notes.txt</ifm|arg_value><ifm|arg_key>content</ifm|arg_key><ifm|arg_value>{content}</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
};
