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
//! - Checkpoints may suffix the structural tokens per checkpoint (`<tool_call:6124c78e>`,
//!   read from the tokenizer's vocabulary by vLLM): only the unsuffixed tokens are read
//!   here; a suffixed output is text.
//! - Reasoning: `<think>…</think>`.
//!
//! HY v3 (vLLM's `hy_v3`) writes a `<tool_sep>` token between the name and the first
//! `<arg_key>`, which the scanner's name rules do not read yet: not supported.

use crate::format::Format;
use crate::text::kit::reasoning::THINK;
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{Dialect, End, PLAIN};

/// The `hy-v4` markers.
pub(crate) const DIALECT: Dialect = Dialect {
    what: "HY <tool_call>",
    sections: &[("<tool_calls>", "</tool_calls>")],
    call_open: "<tool_call>",
    bare_calls: false,
    multi: true,
    name_end: End::Line,
    call_close: "</tool_call>",
    param_open: "<arg_key>",
    key_end: End::Tags("</arg_key>", "<arg_value>"),
    param_close: "</arg_value>",
    reasoning: THINK,
    ..PLAIN
};

/// The registry row of `hy-v4` ([`SYNTAXES`](crate::text::SYNTAXES)).
pub(crate) const ROW: Row = Row {
    format: Format::HyV4,
    name: "hy-v4",
    aliases: &[],
    about: "raw Tencent HY v4 text: <tool_calls><tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call></tool_calls>",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 340,
        pattern: &[Tok::Lit(b"<tool_calls>"), Tok::Ws, Tok::Lit(b"<tool_call>")],
    }],
};
