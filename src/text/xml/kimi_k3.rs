//! `kimi-k3`: Kimi K3's XTML tool channel. K3 ships no Jinja template; its checkpoint's
//! `encoding_k3.py` renders the tags from the special tokens `<|open|>`, `<|close|>` and
//! `<|sep|>` with plain-text headers (newlines added here for reading; the model writes
//! none):
//!
//! ```text
//! <|open|>tools<|sep|>
//! <|open|>call tool="get_weather" index="1"<|sep|>
//! <|open|>argument key="city" type="string"<|sep|>Hangzhou<|close|>argument<|sep|>
//! <|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|>
//! <|close|>call<|sep|>
//! <|close|>tools<|sep|>
//! ```
//!
//! Checked against vLLM's `kimi_k3` parser, TensorRT-LLM's `KimiK3ToolParser` and
//! SGLang's detector tests (their docstrings quote the checkpoint's encoder); the
//! [`xml`](super) scanner with these markers:
//!
//! - Several calls per `tools` section. `ToolCallStart` at the `"` that closes the tool
//!   name; the header's other attributes run to `<|sep|>`.
//! - Typed argument channels: `type="string"` (or no `type`) → the raw text as a JSON
//!   string, streamed, never parsed; `number`, `boolean`, `null`, `object`, `array` →
//!   JSON text (text that does not parse is kept as a string). A declared schema
//!   ([`Parser::tools`](crate::Parser::tools)) takes precedence for parameters it types.
//!   Values are taken exactly.
//! - Attribute values are escaped by the encoder (`&` → `&amp;`, then `"` → `&quot;`):
//!   a tool name or key is unescaped (`&quot;` first, then `&amp;`).
//! - Ids: the `index` attribute numbers the calls within the turn (`1`, `2`, … again in
//!   the next turn), so it is not an id that stays unique in a conversation (unlike
//!   Kimi K2's `functions.NAME:IDX`, [`kimi_k2`](crate::text::sections::kimi_k2)); calls
//!   get the parser's ids (`call_0`, …, or [`ParserConfig`](crate::ParserConfig)'s
//!   prefix / unique ids).
//! - Reasoning: the `think` channel `<|open|>think<|sep|>…<|close|>think<|sep|>`. K3's
//!   generation prompt opens it already, so a completion begins inside it: set
//!   `reasoning_open` for such streams. The visible channel's tags
//!   (`<|open|>response<|sep|>`, `<|close|>response<|sep|>`) and the message's end
//!   (`<|close|>message<|sep|>`, `<|end_of_msg|>`) are dropped from the text.
//! - A call body may instead hold one JSON block,
//!   `<|open|>json type="object"<|sep|>{..}<|close|>json<|sep|>` (the encoder writes it
//!   for arguments it could not split into typed channels): the object is the
//!   arguments, the model's bytes as they stream; text in it that is not one JSON object
//!   makes the call an error with its raw text.
//! - Malformed calls, missing closing tags, a call-opening tag inside a call: as in
//!   [`xml`](super).

use std::borrow::Cow::Borrowed;

use crate::format::Format;
use crate::text::kit::table::{list, pair, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};
use crate::text::xml::{End, KindAttr, PLAIN, Table};

/// The `kimi-k3` markers.
pub(crate) const DIALECT: Table = Table {
    what: Borrowed("XTML <|open|>call"),
    sections: list![pair("<|open|>tools<|sep|>", "<|close|>tools<|sep|>")],
    call_open: Borrowed("<|open|>call tool=\""),
    bare_calls: false,
    multi: true,
    name_end: End::Quote,
    call_close: Borrowed("<|close|>call<|sep|>"),
    param_open: Borrowed("<|open|>argument key=\""),
    key_end: End::Quote,
    param_close: Borrowed("<|close|>argument<|sep|>"),
    trim_newline: false,
    kind_attr: KindAttr::XtmlType,
    attrs_end: Borrowed("<|sep|>"),
    attr_entities: true,
    json_body: true,
    json_block: Some((
        Borrowed("<|open|>json type=\"object\"<|sep|>"),
        Borrowed("<|close|>json<|sep|>"),
    )),
    reasoning: list![pair("<|open|>think<|sep|>", "<|close|>think<|sep|>")],
    drops: list![
        tok("<|open|>response<|sep|>"),
        tok("<|close|>response<|sep|>"),
        tok("<|close|>message<|sep|>"),
        tok("<|end_of_msg|>"),
    ],
    ..PLAIN
};

/// Raw Kimi K3 text with XTML calls:
/// `<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="k" type="string"<|sep|>v<|close|>argument<|sep|>…`.
pub(crate) const ROW: Row = Row {
    format: Format::KimiK3,
    name: "kimi-k3",
    aliases: &[],
    about: "raw Kimi K3 text: <|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"k\" type=\"string\"<|sep|>v<|close|>argument<|sep|>.. (XTML)",
    engine: Builtin::Xml(&DIALECT),
    detect: &[Detect {
        rank: 130,
        pattern: &[Tok::Lit(b"<|open|>tools<|sep|>")],
    }],
    example: "{prose}{call}<|open|>tools<|sep|><|open|>call tool=\"write_file\" index=\"1\"<|sep|><|open|>argument key=\"path\" type=\"string\"<|sep|>notes.txt<|close|>argument<|sep|><|open|>argument key=\"content\" type=\"string\"<|sep|>{content}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
};
