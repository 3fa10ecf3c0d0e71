//! `minimax`: the call syntax of MiniMax M2 (M2.1, M2.5):
//!
//! ```text
//! <minimax:tool_call>
//! <invoke name="get_weather">
//! <parameter name="city">Beijing</parameter>
//! </invoke>
//! <invoke name="get_time">
//! <parameter name="tz">Asia/Shanghai</parameter>
//! </invoke>
//! </minimax:tool_call>
//! ```
//!
//! The [`xml`](super) scanner with these markers:
//!
//! - Several `<invoke>`s per section. `ToolCallStart` at the `"` that closes the name;
//!   other attributes up to `>` are ignored.
//! - Values are taken exactly (no newline stripped). Without a schema a value is a JSON
//!   string unless its complete trimmed text parses as a JSON non-string (number,
//!   `true`/`false`/`null`, object, array) — the template writes strings as is and other
//!   values as JSON.
//! - XML character references in values are decoded (`&lt;` → `<`, `&amp;` → `&`,
//!   `&quot;`, `&apos;`, `&gt;`, numeric `&#60;` / `&#x3C;`): M2 served through some
//!   engines escapes values as XML. A `&` that begins none of them is text; a value
//!   that means a literal `&lt;` cannot be told from an escaped `<`.
//! - A malformed `<invoke>` is reported through its `</invoke>`; the section goes on.
//! - Reasoning: `<think>…</think>` (M2 interleaves thinking between calls); the
//!   end-of-turn token `[e~[` is dropped.

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{THINK_TAGS, list, pair, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, KindAttr, PLAIN, Table};

/// The `minimax` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("<invoke name=..>"),
    sections: list![pair("<minimax:tool_call>", "</minimax:tool_call>")],
    call_open: Borrowed("<invoke name=\""),
    bare_calls: false,
    multi: true,
    name_end: End::Quote,
    call_close: Borrowed("</invoke>"),
    param_open: Borrowed("<parameter name=\""),
    key_end: End::Quote,
    param_close: Borrowed("</parameter>"),
    trim_newline: false,
    kind_attr: KindAttr::None,
    entities: true,
    reasoning: THINK_TAGS,
    drops: list![tok("[e~[")],
    ..PLAIN
};

/// Raw MiniMax M2 text: `<minimax:tool_call><invoke name="f"><parameter name="k">v</parameter></invoke></minimax:tool_call>`.
pub(crate) const ROW: Row = Row {
    format: Format::MiniMax,
    name: "minimax",
    aliases: &["minimax_m2"],
    about: "raw model text: <minimax:tool_call><invoke name=\"f\"><parameter name=\"k\">v</parameter></invoke></minimax:tool_call> (MiniMax M2)",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 60,
        pattern: &[Tok::Lit(b"<minimax:tool_call>")],
    }],
    example: "{prose}{call}\n<minimax:tool_call>\n<invoke name=\"write_file\">\n<parameter name=\"path\">notes.txt</parameter>\n<parameter name=\"content\">{content}</parameter>\n</invoke>\n</minimax:tool_call>",
};
