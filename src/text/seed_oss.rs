//! `seed-oss`: ByteDance Seed-OSS, Qwen3-Coder's XML inside `<seed:tool_call>`:
//!
//! ```text
//! <seed:think>The user wants the weather.</seed:think>
//! <seed:tool_call>
//! <function=get_weather>
//! <parameter=location>Paris</parameter>
//! </function>
//! </seed:tool_call>
//! ```
//!
//! The [`xml`](super::xml) scanner with these markers; values as in
//! [`qwen_xml`](super::qwen_xml):
//!
//! - `ToolCallStart` at the `>` that ends the function name. One call per section.
//! - Without a schema a value is a JSON string unless its complete trimmed text parses
//!   as a JSON non-string (number, `true`/`false`/`null`, object, array).
//! - One leading and one trailing newline of a value are stripped.
//! - Lenient: `<function=..>` without `<seed:tool_call>`; missing closing tags as in
//!   [`xml`](super::xml).
//! - Reasoning: `<seed:think>…</seed:think>`; `<seed:eos>` is dropped.

use crate::text::xml::{Dialect, End};

/// The `seed-oss` markers.
pub(crate) static DIALECT: Dialect = Dialect {
    what: "<function=..>",
    sections: &[("<seed:tool_call>", "</seed:tool_call>")],
    call_open: "<function=",
    bare_calls: true,
    multi: false,
    name_end: End::Gt,
    call_close: "</function>",
    param_open: "<parameter=",
    key_end: End::Gt,
    param_close: "</parameter>",
    trim_newline: true,
    string_attr: false,
    reasoning: &[("<seed:think>", "</seed:think>")],
    drops: &["<seed:eos>"],
};
