//! `hermes`: `<tool_call>{"name": .., "arguments": ..}</tool_call>` (Hermes 2/3, Qwen 2.5
//! and Qwen3, Ricursive Ripple, many fine-tunes). The `hermes` scanner is the [JSON-call engine](super),
//! [`JsonCalls`], with its [`HERMES`] table:
//!
//! ```text
//!   Text ──<tool_call>──> Open ──'{'──> Object ──object closed──> After ──</tool_call>──> Text
//!                          │ </tool_call> or end: empty, dropped   │ other text: back to Text
//!                          └─ anything else ──> Skip (malformed) ──</tool_call>──> Error ──> Text
//! ```
//!
//! Quirks and rules:
//!
//! - vLLM's `qwen3_json` and `ripple` parsers read this syntax (their names are aliases).
//!   Ripple's (vLLM's `vllm.parser.ripple`): the same plain-text tags with optional
//!   framing newlines, `<think>…</think>` only when the model decides to think (the
//!   generation prompt does not open it, so no `reasoning_open`).
//!
//! - With or without newlines around the JSON, several calls in a row, text around them;
//!   the text stage ([`reasoning`](crate::text::kit::reasoning)) handles `<think>`, keeps the
//!   whitespace before `<tool_call>` as text and drops the end-of-turn tokens `<|im_end|>` /
//!   `<|endoftext|>`.
//! - `ToolCallStart` is emitted by the feed that completes the `"name"` string; the
//!   arguments are the model's own bytes: the value of `"arguments"` (or `"parameters"`)
//!   sliced out of the JSON text, its end found with
//!   [`JsonScanner`](crate::scan::json::JsonScanner). Arguments written
//!   before the name are buffered (bounded by `max_argument_bytes`) and flushed after the
//!   Start. An `"id"` before the name is used as the call id (one after it is ignored).
//!   Any other key, a second `"arguments"` / `"parameters"` or a second `"name"` is an
//!   error with the raw call (the kit's [recovery rule](crate::text::kit::recovery)).
//! - `ToolCallEnd` when the arguments value closes; a call without arguments gets `{}`
//!   when its object closes.
//! - `</tool_call>` ends the call; when it is missing, text after the closed JSON object
//!   is text again, and at the end of input a call whose JSON closed is complete.
//! - An empty `<tool_call>` (only whitespace up to `</tool_call>` or the end of the text)
//!   is no call and is dropped: watsonx granite-3-8b leaks the bare tag into `content`
//!   right before the server's own parsed calls.
//! - Malformed call text (not a JSON object, broken JSON, no name) → an `Error` carrying
//!   the call's raw text from `<tool_call>` through `</tool_call>`; for a call whose
//!   Start was emitted it is the call's error (with its index). A call cut off by the end
//!   of input → `Error` of kind `Truncated` with its bytes.

use crate::format::Format;
use crate::text::json::{PLAIN, Payload, Table, opener};
use crate::text::kit::table::{THINK_TAGS, list, tok};
use crate::text::row::{Builtin, Detect, Row, Tok};

/// `hermes`: `<tool_call>{..}</tool_call>`.
pub(crate) const HERMES: Table = Table {
    openers: list![opener("<tool_call>", Some("</tool_call>"), Payload::Object)],
    reasoning: THINK_TAGS,
    drops: list![tok("<|im_end|>"), tok("<|endoftext|>")],
    ..PLAIN
};

/// Raw model text with `<tool_call>{"name": .., "arguments": ..}</tool_call>` calls
/// (Hermes, Qwen 2.5 / Qwen3).
pub(crate) const ROW: Row = Row {
    format: Format::Hermes,
    name: "hermes",
    aliases: &["qwen3_json", "ripple", "qwen", "qwen25", "trinity"],
    about: "raw model text: <tool_call>{\"name\": .., \"arguments\": ..}</tool_call> (Hermes, Qwen 2.5, Qwen3)",
    engine: Builtin::Json(&HERMES),
    detect: &[Detect {
        rank: 50,
        pattern: &[Tok::Lit(b"<tool_call>")],
    }],
    example: "<think>\nThe user wants a file.\n</think>\n\n{prose}{call}\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": {args}}\n</tool_call>",
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::Calls;
    use crate::event::{ErrorKind, Event, merge_deltas};
    use crate::limits::Limits;
    use crate::text::json::JsonCalls;
    use crate::text::kit::reasoning::ReasoningOptions;
    use crate::text::kit::util::ReadsChars;
    use serde_json::json;

    fn run(pieces: &[&str]) -> Vec<Event> {
        let mut calls = Calls::new(Limits::default());
        let mut h = JsonCalls::new(&HERMES, &Limits::default(), &ReasoningOptions::default());
        let mut out = Vec::new();
        for p in pieces {
            h.feed(p.as_bytes(), &mut calls, &mut out);
        }
        h.finish(&mut calls, &mut out);
        calls.close_all(&mut out);
        merge_deltas(&mut out);
        out
    }

    #[test]
    fn one_call_with_text() {
        let ev = run(&[
            "Hi \n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\nbye",
        ]);
        assert_eq!(
            ev,
            vec![
                Event::Text {
                    delta: "Hi \n".into()
                },
                Event::ToolCallStart {
                    index: 0,
                    id: "call_0".into(),
                    name: "f".into()
                },
                Event::ToolCallArgs {
                    index: 0,
                    delta: "{\"a\": 1}".into()
                },
                Event::ToolCallEnd {
                    index: 0,
                    id: "call_0".into(),
                    name: "f".into(),
                    arguments: json!({"a": 1})
                },
                Event::Text {
                    delta: "\nbye".into()
                },
            ]
        );
    }

    #[test]
    fn nameless_call_with_arguments_does_not_count_against_max_calls() {
        let limits = Limits {
            max_calls: 1,
            ..Limits::default()
        };
        let text = "<tool_call>{\"arguments\": {\"a\": 1}}</tool_call>\
                    <tool_call>{\"arguments\": {}, \"name\": \"f\"}</tool_call>";
        // Whole and byte by byte: the same events.
        for piece in [text.len(), 1] {
            let mut calls = Calls::new(limits);
            let mut h = JsonCalls::new(&HERMES, &limits, &ReasoningOptions::default());
            let mut out = Vec::new();
            for p in text.as_bytes().chunks(piece) {
                h.feed(p, &mut calls, &mut out);
            }
            h.finish(&mut calls, &mut out);
            calls.close_all(&mut out);
            merge_deltas(&mut out);
            assert!(
                matches!(&out[..], [
                    Event::Error { kind: ErrorKind::MissingName, index: None, raw, .. },
                    Event::ToolCallStart { index: 0, .. },
                    Event::ToolCallArgs { .. },
                    Event::ToolCallEnd { index: 0, .. },
                ] if raw.starts_with("<tool_call>{") && raw.ends_with("</tool_call>")),
                "{out:?}"
            );
            assert_eq!(calls.retained(), 0);
        }
    }

    #[test]
    fn arguments_before_name() {
        let ev = run(&["<tool_call>{\"arguments\": {\"a\": [1]}, \"name\": \"g\"}</tool_call>"]);
        assert!(
            matches!(ev.get(2), Some(Event::ToolCallEnd { arguments, .. }) if arguments == &json!({"a": [1]})),
            "{ev:?}"
        );
    }

    /// `text` fed whole and byte by byte under `limits` (and declared tools): the same
    /// events, deltas merged; the argument bytes are kept once, in the call's raw text
    /// (the call table keeps no copy of them besides).
    fn run_limited(text: &str, limits: Limits, tools: Option<&str>) -> Vec<Event> {
        let mut all: Vec<Vec<Event>> = Vec::new();
        for piece in [text.len(), 1] {
            let declared = tools.map(|t| {
                std::sync::Arc::new(crate::tools::Tools::from_json(t).unwrap_or_default())
            });
            let mut calls = Calls::new(limits).with_declared(declared);
            let mut h = JsonCalls::new(&HERMES, &limits, &ReasoningOptions::default());
            let mut out = Vec::new();
            for p in text.as_bytes().chunks(piece) {
                h.feed(p, &mut calls, &mut out);
                assert_eq!(calls.retained_besides_raw(), 0);
            }
            h.finish(&mut calls, &mut out);
            calls.close_all(&mut out);
            merge_deltas(&mut out);
            all.push(out);
        }
        assert_eq!(all[0], all[1]);
        all.swap_remove(0)
    }

    /// The text before the arguments is longer than the raw text's bound: the error text
    /// would be cut there, but the call still has all its argument bytes.
    #[test]
    fn arguments_after_a_head_past_the_bound_are_kept() {
        let limits = Limits {
            max_argument_bytes: 32,
            ..Limits::default()
        };
        let pad = "x".repeat(40);
        let text = format!(
            "<tool_call>{{\"id\": \"{pad}\", \"name\": \"f\", \"arguments\": {{\"a\": \"é€\"}}}}</tool_call>"
        );
        let ev = run_limited(&text, limits, None);
        assert!(
            matches!(&ev[..], [
                Event::ToolCallStart { index: 0, .. },
                Event::ToolCallArgs { delta, .. },
                Event::ToolCallEnd { arguments, .. },
            ] if delta == "{\"a\": \"é€\"}" && arguments == &json!({"a": "é€"})),
            "{ev:?}"
        );
        // Before the name too.
        let text = format!(
            "<tool_call>{{\"id\": \"{pad}\", \"arguments\": {{\"a\": 1}}, \"name\": \"f\"}}</tool_call>"
        );
        let ev = run_limited(&text, limits, None);
        assert!(
            matches!(ev.get(2), Some(Event::ToolCallEnd { arguments, .. }) if arguments == &json!({"a": 1})),
            "{ev:?}"
        );
    }

    /// Arguments past `max_argument_bytes`: the call's error carries their first bytes;
    /// an undeclared call's error carries the call's text (its first bytes).
    #[test]
    fn arguments_past_the_bound() {
        let limits = Limits {
            max_argument_bytes: 16,
            ..Limits::default()
        };
        let text = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"0123456789abcdef\"}}</tool_call>";
        let ev = run_limited(text, limits, None);
        assert!(
            matches!(ev.last(), Some(Event::Error { path: _, kind: ErrorKind::LimitExceeded, index: Some(0), raw, message })
                if raw == "{\"a\": \"012345678" && message.ends_with("the first 16 bytes are kept, 9 dropped")),
            "{ev:?}"
        );
        let ev = run_limited(text, limits, Some(r#"[{"name": "g"}]"#));
        assert!(
            matches!(&ev[..], [Event::Error { kind: ErrorKind::UndeclaredTool, index: None, raw, .. }]
                if raw == "<tool_call>{\"nam"),
            "{ev:?}"
        );
    }
}
