//! `minimax-m3`: MiniMax M3's calls, every tag prefixed by the namespace token
//! `]<]minimax[>[`, parameters named by their tag (newlines added here for reading):
//!
//! ```text
//! ]<]minimax[>[<tool_call>
//! ]<]minimax[>[<invoke name="create_order">
//! ]<]minimax[>[<user_id>42]<]minimax[>[</user_id>
//! ]<]minimax[>[<shipping>]<]minimax[>[<city>Singapore]<]minimax[>[</city>]<]minimax[>[</shipping>
//! ]<]minimax[>[<items>]<]minimax[>[<item>1]<]minimax[>[</item>]<]minimax[>[<item>2]<]minimax[>[</item>]<]minimax[>[</items>
//! ]<]minimax[>[</invoke>
//! ]<]minimax[>[</tool_call>
//! ```
//!
//! Learned from the peers' M3 parsers and tests (SGLang's gateway `minimax_m3`,
//! TensorRT-LLM / AMD's `MiniMax-M3 tool-call format`, vLLM's `M3TextParser` docstring;
//! no chat template of the checkpoint is in the stored material). The [`xml`](super)
//! scanner with [tag-named parameters](super::Table::tag_params):
//!
//! - Several invokes per `tool_call` section. `ToolCallStart` at the `"` that closes the
//!   name.
//! - A parameter is `]<]minimax[>[<key>value]<]minimax[>[</key>`. A value whose first
//!   tag comes before any text is nested: children named `item` make a JSON array, other
//!   names an object keyed by them (`{"city": "Singapore"}`), to any depth
//!   (`max_depth`); text mixed with child tags, a repeated key in an object or a close
//!   tag of another element makes the call an error with its raw text.
//! - A top-level value is typed by the declared schema
//!   ([`Parser::tools`](crate::Parser::tools)) where it says the parameter's type.
//!   Without a schema for the call's tool every leaf is its text, a JSON string
//!   (`42`, `true`, `{"a": 1}` stay strings), as vLLM's and SGLang's M3 parsers read
//!   it; with one, an untyped leaf (nested ones too: the schema's nested types are not
//!   read here) is a JSON string unless its complete trimmed text parses as a JSON
//!   non-string. An empty element is `""` (SGLang's gateway reads it as `null` where
//!   the schema allows null). Values are taken exactly.
//! - The section's close ends the call (its own close missing). An element still open
//!   at the call's (or section's) close, or a child other than `item` in an array, is
//!   a dropped close (what followed it was read into it): the call is an error with its
//!   raw text, never completed with values moved.
//! - Reasoning: `<mm:think>…</mm:think>` (the peers' M3 default) and `<think>…</think>`.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{list, pair};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, KindAttr, PLAIN, Table};

/// The namespace token before every tag.
macro_rules! ns {
    ($tag:literal) => {
        concat!("]<]minimax[>[", $tag)
    };
}

/// The `minimax-m3` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("MiniMax M3 <invoke name=..>"),
    sections: list![pair(ns!("<tool_call>"), ns!("</tool_call>"))],
    call_open: Borrowed(ns!("<invoke name=\"")),
    bare_calls: false,
    multi: true,
    name_end: End::Quote,
    call_close: Borrowed(ns!("</invoke>")),
    param_open: Borrowed(ns!("<")),
    key_end: End::Gt,
    param_close: Borrowed(ns!("</")),
    trim_newline: false,
    kind_attr: KindAttr::None,
    tag_params: true,
    reasoning: list![
        pair("<mm:think>", "</mm:think>"),
        pair("<think>", "</think>")
    ],
    drops: list![],
    ..PLAIN
};

/// Raw MiniMax M3 text: every tag prefixed by `]<]minimax[>[`, parameters named by
/// their tag, `<item>` arrays: `]<]minimax[>[<invoke name="f">]<]minimax[>[<k>v]<]minimax[>[</k>…`.
pub(crate) const ROW: Row = Row {
    format: Format::MiniMaxM3,
    name: "minimax-m3",
    aliases: &[],
    about: "raw MiniMax M3 text: ]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<k>v]<]minimax[>[</k>.. (tag-named parameters, <item> arrays)",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 140,
        pattern: &[Tok::Lit(b"]<]minimax[>[<tool_call>")],
    }],
    example: "{prose}{call}\n]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"write_file\">\n]<]minimax[>[<path>notes.txt]<]minimax[>[</path>\n]<]minimax[>[<content>{content}]<]minimax[>[</content>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
};
