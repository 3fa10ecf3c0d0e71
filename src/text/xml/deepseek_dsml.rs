//! `deepseek-dsml`: the DSML call syntax of DeepSeek V3.2, V4 and V4.1 (note the
//! full-width `｜` bars: multi-byte markers that may be split at any byte):
//!
//! ```text
//! <｜DSML｜function_calls>
//! <｜DSML｜invoke name="get_weather">
//! <｜DSML｜parameter name="city" string="true">Hangzhou</｜DSML｜parameter>
//! <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
//! </｜DSML｜invoke>
//! </｜DSML｜function_calls>
//! ```
//!
//! Four spellings are read, each a table of the [`xml`](super) scanner (a call is read
//! with the spelling its first tag has):
//!
//! - V3.2's section `function_calls`, V4's `tool_calls`, tags `<｜DSML｜invoke`,
//!   `<｜DSML｜parameter`. (V3 / V3.1's `<｜tool▁call▁begin｜>` syntax is
//!   [`deepseek`](crate::text::sections::deepseek).)
//!   V4's opener misspelled as DeepSeek V4 Flash writes it at times (`<｜DSML｜toolcalls>`,
//!   `<｜DSML｜tool>`, vllm#51914; their close is the canonical `</｜DSML｜tool_calls>`
//!   or the same misspelling: any section close of the spelling ends the section).
//! - V4.1 (September 2026) puts a space after the sentinel in every tag:
//!   `<｜DSML｜ calls>`, `<｜DSML｜ invoke name="..">`, `<｜DSML｜ parameter name=".."
//!   string="..">`, `</｜DSML｜ parameter>`, `</｜DSML｜ invoke>`, `</｜DSML｜ calls>`; as in
//!   DeepSeek's reference parser, an invoke outside a `calls` block is a call too. Its
//!   section is also read as `<｜DSML｜ tool_calls>` (V4's name with V4.1's space),
//!   `<｜DSML｜ call>` and `<｜DSML｜calls>` (the wrapper's space dropped), as vLLM reads
//!   them.
//! - The doubled-bar leak seen on hosted APIs (`<｜｜DSML｜｜tool_calls>`,
//!   `<｜｜DSML｜｜invoke name="..">`, ...), with V3.2 / V4's tags or V4.1's spaced ones;
//!   these leaks also come without their section, so a bare invoke is a call.
//!
//! Rules, every spelling:
//!
//! - Several invokes per section. `ToolCallStart` at the `"` that closes the name.
//! - The model says each value's kind: `string="true"` → the raw text as a JSON string,
//!   streamed, never parsed; `string="false"` → JSON text (a JSON string decoded;
//!   Python `True`/`False`/`None` accepted, text that does not parse kept as a string). A declared schema
//!   ([`ParserConfig::tools`](crate::ParserConfig::tools)) takes precedence for parameters it types;
//!   with neither, a value is a JSON string unless its complete trimmed text parses as a
//!   JSON non-string. Values are taken exactly (no newline stripped).
//! - An invoke whose body is one JSON object (`<｜DSML｜invoke name="f">{"a": 1}</｜DSML｜invoke>`,
//!   the shape SGLang's and vLLM's DSML parsers also accept) has that object as its
//!   arguments, the model's bytes as they stream; a closing tag inside one of its strings
//!   does not close the call.
//! - A malformed invoke is reported through its `</｜DSML｜invoke>`; the section goes on.
//!   A call-opening tag of another spelling inside a call is value text, not an opener.
//! - Reasoning: `<think>…</think>`; `<｜end▁of▁sentence｜>` is dropped.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::Shared;
use crate::text::kit::table::{THINK_TAGS, list, pair, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, KindAttr, PLAIN, Table};

/// The `deepseek-dsml` markers: V3.2 / V4's, then the other spellings.
pub(crate) const DIALECT: Table = Table {
    reasoning: THINK_TAGS,
    drops: list![tok("<｜end▁of▁sentence｜>")],
    variants: list![
        Shared::Static(&V41),
        Shared::Static(&BARS),
        Shared::Static(&BARS_V41)
    ],
    ..V4
};

/// One spelling: `pre` before each tag name (`<{pre}invoke`, `</{pre}invoke>`).
/// `whole` adds section tags written out (`<｜DSML｜calls>`, whose space is not `pre`'s).
macro_rules! dsml {
    (
        $pre:literal,
        [$(($open:literal, $close:literal)),*]
        $(+ [$(($whole_open:literal, $whole_close:literal)),*])?,
        bare: $bare:expr
    ) => {
        Table {
            what: Borrowed("DSML <invoke name=..>"),
            sections: list![
                $(pair(concat!("<", $pre, $open, ">"), concat!("</", $pre, $close, ">")),)*
                $($(pair($whole_open, $whole_close),)*)?
            ],
            call_open: Borrowed(concat!("<", $pre, "invoke name=\"")),
            bare_calls: $bare,
            multi: true,
            name_end: End::Quote,
            call_close: Borrowed(concat!("</", $pre, "invoke>")),
            param_open: Borrowed(concat!("<", $pre, "parameter name=\"")),
            key_end: End::Quote,
            param_close: Borrowed(concat!("</", $pre, "parameter>")),
            trim_newline: false,
            kind_attr: KindAttr::DsmlString,
            json_body: true,
            ..PLAIN
        }
    };
}

/// V3.2 (`function_calls`) and V4 (`tool_calls`), and V4's misspelled openers
/// (`toolcalls`, `tool`; their close is `tool_calls` or the same misspelling).
const V4: Table = dsml!(
    "｜DSML｜",
    [
        ("function_calls", "function_calls"),
        ("tool_calls", "tool_calls"),
        ("toolcalls", "toolcalls"),
        ("tool", "tool")
    ],
    bare: false
);
/// V4.1: a space after the sentinel; bare invokes are calls. Its section also as
/// `tool_calls` (V4's name), `call`, and `<｜DSML｜calls>` without the space.
const V41: Table = dsml!(
    "｜DSML｜ ",
    [("calls", "calls"), ("tool_calls", "tool_calls"), ("call", "call")]
        + [("<｜DSML｜calls>", "</｜DSML｜calls>")],
    bare: true
);
/// The doubled-bar leak of V3.2 / V4's tags.
const BARS: Table = dsml!(
    "｜｜DSML｜｜",
    [("function_calls", "function_calls"), ("tool_calls", "tool_calls")],
    bare: true
);
/// The doubled-bar leak of V4.1's spaced tags.
const BARS_V41: Table = dsml!("｜｜DSML｜｜ ", [("calls", "calls")], bare: true);

/// Raw DeepSeek V3.2 / V4 / V4.1 text with DSML calls:
/// `<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="k" string="true">v</｜DSML｜parameter>…`,
/// V4.1's spaced tags (`<｜DSML｜ calls>`) and the doubled-bar leak (`<｜｜DSML｜｜…>`).
pub(crate) const ROW: Row = Row {
    format: Format::DeepSeekDsml,
    name: "deepseek-dsml",
    aliases: &[
        "deepseek_v32",
        "deepseek_v4",
        "deepseek_v41",
        "deepseekv32",
        "deepseekv4",
    ],
    about: "raw model text: <｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"k\" string=\"true\">v</｜DSML｜parameter>.. (DeepSeek V3.2, V4 tool_calls, V4.1 <｜DSML｜ calls>, the <｜｜DSML｜｜ leak)",
    engine: Builtin::Xml(&DIALECT),
    detect: &[
        Detect {
            rank: 80,
            pattern: &[Tok::Lit("<｜DSML｜function_calls>".as_bytes())],
        },
        Detect {
            rank: 90,
            pattern: &[Tok::Lit("<｜DSML｜tool_calls>".as_bytes())],
        },
        Detect {
            rank: 100,
            pattern: &[Tok::Lit("<｜DSML｜ calls>".as_bytes())],
        },
        Detect {
            rank: 110,
            pattern: &[Tok::Lit("<｜DSML｜ invoke name=\"".as_bytes())],
        },
        Detect {
            rank: 111,
            pattern: &[Tok::Lit("<｜DSML｜ tool_calls>".as_bytes())],
        },
        Detect {
            rank: 112,
            pattern: &[Tok::Lit("<｜DSML｜ call>".as_bytes())],
        },
        Detect {
            rank: 113,
            pattern: &[Tok::Lit("<｜DSML｜calls>".as_bytes())],
        },
        Detect {
            rank: 114,
            pattern: &[Tok::Lit("<｜DSML｜toolcalls>".as_bytes())],
        },
        Detect {
            rank: 115,
            pattern: &[Tok::Lit("<｜DSML｜tool>".as_bytes())],
        },
        Detect {
            rank: 120,
            pattern: &[Tok::Lit("<｜｜DSML｜｜".as_bytes())],
        },
    ],
    example: "{prose}{call}\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write_file\">\n<｜DSML｜parameter name=\"path\" string=\"true\">notes.txt</｜DSML｜parameter>\n<｜DSML｜parameter name=\"content\" string=\"true\">{content}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
};
