//! `gigachat3`: GigaChat 3 `function call<|role_sep|>\n{..}` and GigaChat 3.1
//! `<|function_call|>{..}`. The [JSON-call engine](super) with this table. (GigaChat 3.5
//! writes DSML-like `<｜GCML｜tool_calls>` sections instead: vLLM's `gigachat35` parser.)
//!
//! One call object per marker, no close marker (the call ends at the object's `}`);
//! GigaChat 3's text before a call ends with `<|message_sep|>`, dropped. `</s>`, the
//! end-of-sequence token GigaChat 3.1 leaves after a call when special tokens
//! are kept (vLLM's parser strips it from the end of the output), is dropped wherever
//! it stands in the text, as every syntax's end-of-turn tokens are.

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::table::{THINK_TAGS, list, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `gigachat3`: `function call<|role_sep|>\n{..}` (3), `<|function_call|>{..}` (3.1).
pub(crate) const GIGACHAT3: Table = Table {
    openers: list![
        opener("function call<|role_sep|>", None, Payload::Object),
        opener("<|function_call|>", None, Payload::Object),
    ],
    reasoning: THINK_TAGS,
    drops: list![tok("<|message_sep|>"), tok("</s>")],
    ..PLAIN
};

/// Raw GigaChat 3 text: `function call<|role_sep|>\n{"name": .., "arguments": ..}`;
/// GigaChat 3.1: `<|function_call|>{"name": .., "arguments": ..}` (a trailing `</s>` dropped).
pub(crate) const ROW: Row = Row {
    format: Format::GigaChat3,
    name: "gigachat3",
    aliases: &[],
    about: "raw GigaChat 3 text: function call<|role_sep|>{\"name\": .., \"arguments\": ..}; 3.1: <|function_call|>{..}",
    engine: Builtin::Json(&GIGACHAT3),
    detect: &[
        Detect {
            rank: 410,
            pattern: &[Tok::Lit(b"function call<|role_sep|>")],
        },
        Detect {
            rank: 420,
            pattern: &[Tok::Lit(b"<|function_call|>")],
        },
    ],
    example: "{prose}{call}function call<|role_sep|>\n{\"name\": \"write_file\", \"arguments\": {args}}",
};
