//! `hy-v3`: Tencent Hunyuan's Hy3 call syntax (vLLM's `hy_v3` parser, `tencent/Hy3-preview`):
//!
//! ```text
//! <tool_calls>
//! <tool_call>get_weather<tool_sep>
//! <arg_key>city</arg_key>
//! <arg_value>Beijing</arg_value>
//! </tool_call>
//! </tool_calls>
//! ```
//!
//! [`hy_v4`](super::hy_v4)'s markers with a `<tool_sep>` token after the function name
//! ([`Table::name_sep`]). The [`xml`](super) scanner with these markers:
//!
//! - The name runs from `<tool_call>` to the next tag (or line end); `ToolCallStart` at
//!   that `<`. `<tool_sep>` (whitespace before it allowed) is then consumed; a call
//!   without it reads as HY v4's (`<tool_call>name<arg_key>..`), as vLLM's parser does
//!   not (it needs the separator).
//! - Values as GLM's and HY v4's: without a schema a value is a JSON string unless its
//!   complete trimmed text parses as a JSON non-string (vLLM's parser, without a
//!   schema, keeps every value a string: declare the tools to get that here).
//! - A call with no parameters (`<tool_call>get_date<tool_sep></tool_call>`) has `{}`.
//! - Per-checkpoint token suffixes (vLLM reads `token_suffix` from the tokenizer
//!   config): `:6124c78e`, the suffix of hosted Hy3 output, is read as `hy-v4`'s
//!   suffixed spelling with `<tool_sep:6124c78e>`; other suffixes are text.
//! - Reasoning: `<think>…</think>`.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::Shared;
use crate::text::kit::table::list;
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{Table, hy_v4};

/// The `hy-v3` markers: `hy-v4`'s and `<tool_sep>` after the name.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("Hy3 <tool_call>"),
    name_sep: Borrowed("<tool_sep>"),
    variants: list![Shared::Static(&SUFFIXED)],
    ..hy_v4::DIALECT
};

/// `hy-v4`'s suffixed spelling with `<tool_sep:6124c78e>`.
const SUFFIXED: Table = Table {
    what: Borrowed("Hy3 <tool_call>"),
    name_sep: Borrowed("<tool_sep:6124c78e>"),
    ..hy_v4::SUFFIXED
};

/// Raw Tencent Hy3 text: HY v4's markers with `<tool_sep>` after the name:
/// `<tool_calls><tool_call>name<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value></tool_call></tool_calls>`.
pub(crate) const ROW: Row = Row {
    format: Format::HyV3,
    name: "hy-v3",
    aliases: &[],
    about: "raw Tencent Hy3 text: <tool_calls><tool_call>name<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value></tool_call></tool_calls>",
    engine: Builtin::Xml(&DIALECT),
    detect: &[
        Detect {
            rank: 330,
            pattern: &[
                Tok::Lit(b"<tool_calls>"),
                Tok::Ws,
                Tok::Lit(b"<tool_call>"),
                Tok::Ident,
                Tok::Lit(b"<tool_sep>"),
            ],
        },
        Detect {
            rank: 331,
            pattern: &[
                Tok::Lit(b"<tool_calls:6124c78e>"),
                Tok::Ws,
                Tok::Lit(b"<tool_call:6124c78e>"),
                Tok::Ident,
                Tok::Lit(b"<tool_sep:6124c78e>"),
            ],
        },
    ],
    example: "{prose}{call}\n<tool_calls>\n<tool_call>write_file<tool_sep>\n<arg_key>path</arg_key>\n<arg_value>notes.txt</arg_value>\n<arg_key>content</arg_key>\n<arg_value>{content}</arg_value>\n</tool_call>\n</tool_calls>",
};
