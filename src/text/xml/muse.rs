//! `muse`: Meta's Muse Glimmer (MuseSpark) calls, ATEM blocks of `<atem:invoke>` /
//! `<atem:parameter>` inside recipient-framed messages:
//!
//! ```text
//!  to=self<|message|>The user wants the weather.<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>
//! <atem:invoke name="get_weather">
//! <atem:parameter name="city">Paris</atem:parameter>
//! </atem:invoke>
//! </atem:function_calls><|eom|>
//! ```
//!
//! Checked against the chat template (its tool prompt: the block above, "String and
//! scalar parameters should be specified as is, while lists and objects should use JSON
//! format. Note that spaces for string values are not stripped"), vLLM's
//! `muse_glimmer` parser (channel scoping, the recipient header
//! `(<|start|>assistant)? to=NAME<|message|>`, `<|eom|>` / `<|eot|>` ending a message,
//! names with `&quot;` / `&amp;` unescaped), SGLang's `muse` detector and reasoning parser
//! (`to=self` is reasoning, `to=user` the answer, another recipient a tool channel) and
//! Modular MAX's `muse_glimmer` parser (values byte for byte), and their tests' shapes.
//! The [`xml`](super) scanner with these markers, and the text stage's
//! [recipient headers](crate::text::kit::reasoning::TextStage::headers):
//!
//! - **Channels.** A header ` to=NAME<|message|>` (with or without `<|start|>assistant`
//!   before it; the first message of a turn has none, the prompt ends with it) opens a
//!   message. `to=self` is reasoning, up to its `<|eom|>`. Every other header is
//!   dropped and its body is text: `to=user`'s is the answer; a tool recipient's
//!   (`to=get_weather`) holds the `<atem:function_calls>` block, read as calls (any
//!   other text in it is text, never dropped). `<|start|>assistant`, `<|eom|>`,
//!   `<|eot|>`, `<|end_of_text|>`, `<|begin_of_text|>` and a bare `<|message|>` (a
//!   header with no recipient: the answer) are dropped. A call written inside `to=self`
//!   reasoning is reasoning, as vLLM scopes it (`calls_in_reasoning` extracts it).
//! - Several `<atem:invoke>`s per block. `ToolCallStart` at the `"` that closes the name;
//!   `&quot;` and `&amp;` in a name or key are decoded (vLLM unescapes them).
//! - A value is the model's bytes, whitespace included (the template: "spaces for
//!   string values are not stripped"); without a schema it is a JSON string unless its
//!   trimmed text parses as a JSON non-string (lists and objects are JSON, the template
//!   says; SGLang and MAX `json.loads` every value), so `"quoted"` stays that text, quotes
//!   included (their parsers unwrap it). Declare the tools to type values by schema, as
//!   vLLM does.
//! - `auto` detects it by a tool channel's header (`<|start|>assistant to=NAME<|message|>`,
//!   before harmony's `<|start|>`) or by `<atem:function_calls>`; what comes before is
//!   text there (the first message's `to=self` reasoning too): give `muse` to read it.
//! - Not read: vLLM's name normalisation against the request's tools
//!   (`get_weather.get_weather` for a bare `get_weather`: the name is the model's here)
//!   and a header whose recipient has other bytes than ASCII letters, digits, `_`, `.`,
//!   `-` (text, as written).
//! - A reasoning message the model leaves without `<|eom|>`: the next message's
//!   `<|start|>assistant`, or `<|eot|>` / `<|end_of_text|>` / `<|begin_of_text|>`, ends
//!   it (they are dropped, as anywhere; the next header is read, so a tool channel's calls
//!   after it are calls); cut off by the end of the output, it is reasoning to there. An
//!   `<atem:function_calls>` block inside it stays reasoning (vLLM's scoping), closed or
//!   not.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{list, pair, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, PLAIN, Table};

/// The `muse` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("<atem:function_calls> <atem:invoke name=..>"),
    sections: list![pair("<atem:function_calls>", "</atem:function_calls>")],
    call_open: Borrowed("<atem:invoke name=\""),
    bare_calls: false,
    multi: true,
    name_end: End::Quote,
    call_close: Borrowed("</atem:invoke>"),
    param_open: Borrowed("<atem:parameter name=\""),
    key_end: End::Quote,
    param_close: Borrowed("</atem:parameter>"),
    attr_entities: true,
    reasoning: list![pair("to=self<|message|>", "<|eom|>")],
    drops: list![
        tok("<|start|>assistant"),
        tok("<|message|>"),
        tok("<|eom|>"),
        tok("<|eot|>"),
        tok("<|end_of_text|>"),
        tok("<|begin_of_text|>"),
    ],
    headers: Some((list![tok(" to="), tok("to=")], Borrowed("<|message|>"))),
    ..PLAIN
};

/// Raw Muse Glimmer text: `<atem:function_calls><atem:invoke name="f"><atem:parameter
/// name="k">v</atem:parameter></atem:invoke></atem:function_calls>` in recipient-framed
/// messages (`to=self<|message|>` reasoning).
pub(crate) const ROW: Row = Row {
    format: Format::Muse,
    name: "muse",
    aliases: &["muse_glimmer"],
    about: "raw Muse Glimmer text: to=self<|message|>..<|eom|>, <atem:function_calls><atem:invoke name=\"f\"><atem:parameter name=\"k\">v</atem:parameter></atem:invoke></atem:function_calls>",
    engine: Builtin::Xml(&DIALECT),
    // A tool channel's header, before harmony's `<|start|>` (gpt-oss writes
    // `<|start|>assistant to=functions.f<|channel|>..`: no `<|message|>` after the name).
    detect: &[
        Detect {
            rank: 175,
            pattern: &[
                Tok::Lit(b"<|start|>assistant to="),
                Tok::Ident,
                Tok::Lit(b"<|message|>"),
            ],
        },
        Detect {
            rank: 550,
            pattern: &[Tok::Lit(b"<atem:function_calls>")],
        },
    ],
    example: " to=self<|message|>{prose}<|eom|><|start|>assistant to=write_file<|message|>{call}<atem:function_calls>\n<atem:invoke name=\"write_file\">\n<atem:parameter name=\"path\">notes.txt</atem:parameter>\n<atem:parameter name=\"content\">{content}</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>",
};
