//! `hy-v4`: Tencent Hunyuan's HY v4 call syntax (vLLM's `hy_v4` parser):
//!
//! ```text
//! <tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call></tool_calls>
//! ```
//!
//! GLM's call body ([`glm`](super::glm): the name up to the first tag or line end,
//! `<arg_key>k</arg_key>` then `<arg_value>v</arg_value>`) inside a `<tool_calls>`
//! section of several calls. The [`xml`](super) scanner with these markers:
//!
//! - Values as GLM's: without a schema a value is a JSON string unless its complete
//!   trimmed text parses as a JSON non-string (vLLM's parser, without a schema, keeps
//!   every value a string: declare the tools to get that here).
//! - A value ends at its own `</arg_value>`: a call's or section's close (or the next
//!   `<arg_key>`) inside it is a dropped close or a literal tag, either way the call is
//!   malformed (an error with its raw text read to its own close), never completed with
//!   the arguments before it.
//! - Checkpoints may suffix the structural tokens (`<tool_calls:6124c78e>`,
//!   `<arg_key:6124c78e>`, `<think:6124c78e>`, ...; vLLM reads the suffix from the
//!   tokenizer's vocabulary). The suffix of HY4-preview and of hosted Hy3 output,
//!   `:6124c78e`, is read as a second spelling (a call is read with the spelling its
//!   first tag has); other suffixes are text.
//! - Reasoning: `<think>…</think>` (and `<think:6124c78e>…</think:6124c78e>`).
//!
//! HY v3 (vLLM's `hy_v3`) writes a `<tool_sep>` token between the name and the first
//! `<arg_key>`, which the scanner's name rules do not read yet: not supported.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::Shared;
use crate::text::kit::table::{list, pair};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, PLAIN, Table};

/// The `hy-v4` markers, and the suffixed spelling.
pub(crate) const DIALECT: Table = Table {
    reasoning: list![
        pair("<think>", "</think>"),
        pair("<think:6124c78e>", "</think:6124c78e>"),
    ],
    variants: list![Shared::Static(&SUFFIXED)],
    ..UNSUFFIXED
};

/// The unsuffixed tokens.
const UNSUFFIXED: Table = Table {
    what: Borrowed("HY <tool_call>"),
    sections: list![pair("<tool_calls>", "</tool_calls>")],
    call_open: Borrowed("<tool_call>"),
    bare_calls: false,
    multi: true,
    name_end: End::Line,
    call_close: Borrowed("</tool_call>"),
    param_open: Borrowed("<arg_key>"),
    key_end: End::Tags,
    key_tags: (Borrowed("</arg_key>"), Borrowed("<arg_value>")),
    param_close: Borrowed("</arg_value>"),
    ..PLAIN
};

/// The tokens with the checkpoint suffix `:6124c78e`.
pub(crate) const SUFFIXED: Table = Table {
    sections: list![pair("<tool_calls:6124c78e>", "</tool_calls:6124c78e>")],
    call_open: Borrowed("<tool_call:6124c78e>"),
    call_close: Borrowed("</tool_call:6124c78e>"),
    param_open: Borrowed("<arg_key:6124c78e>"),
    key_end: End::Tags,
    key_tags: (
        Borrowed("</arg_key:6124c78e>"),
        Borrowed("<arg_value:6124c78e>"),
    ),
    param_close: Borrowed("</arg_value:6124c78e>"),
    ..UNSUFFIXED
};

/// Raw Tencent HY v4 text: `<tool_calls><tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call></tool_calls>`.
pub(crate) const ROW: Row = Row {
    format: Format::HyV4,
    name: "hy-v4",
    aliases: &[],
    about: "raw Tencent HY v4 text: <tool_calls><tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call></tool_calls>",
    engine: Builtin::Xml(&DIALECT),
    detect: &[
        Detect {
            rank: 340,
            pattern: &[Tok::Lit(b"<tool_calls>"), Tok::Ws, Tok::Lit(b"<tool_call>")],
        },
        Detect {
            rank: 332,
            pattern: &[Tok::Lit(b"<tool_calls:6124c78e>")],
        },
    ],
    example: "{prose}{call}<tool_calls><tool_call>write_file<arg_key>path</arg_key><arg_value>notes.txt</arg_value><arg_key>content</arg_key><arg_value>{content}</arg_value></tool_call></tool_calls>",
};
