//! `granite`: Granite 3.1+'s `<tool_call>[..]` (vLLM's `granite` parser reads it: a JSON
//! list after the string `<tool_call>`, nothing after it), beside Granite 4's
//! `<tool_call>{..}</tool_call>` and 3.0's `<|tool_call|>[..]`. Exact events at every
//! chunking and every prefix ([`crate::exact`]); `tables.rs` runs its generated
//! fixtures on the 3.1 form too.

use crate::exact::*;
use toolstream::ErrorKind::{InvalidArguments as Bad, MissingName, Truncated as Cut};
use toolstream::Format;

const NESTED: &str = r#"{"q": "é 😀 \"quoted\" \\ \n line", "n": {"a": [1, -2.5e3, {"b": null}]}, "u": "\u00e9\ud83d\ude00", "t": true}"#;

#[test]
fn granite31_fixtures() {
    let w = r#"{"city": "Paris"}"#;
    check_fixtures(
        Format::Granite,
        &[
            fx(
                "single",
                format!(r#"<tool_call>[{{"name": "get_weather", "arguments": {w}}}]"#),
                vec![call(0, "get_weather", w)],
            ),
            fx(
                "several calls, end-of-text token",
                r#"<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": [1]}}]<|end_of_text|>"#,
                vec![call(0, "a", "{}"), call(1, "b", r#"{"x": [1]}"#)],
            ),
            fx(
                "text before and after",
                r#"Sure. <tool_call> [{"name": "f", "arguments": {}}]
Done."#,
                vec![one(t("Sure. ")), call(0, "f", "{}"), one(t("\nDone."))],
            ),
            fx(
                "a </tool_call> after the list is consumed",
                r#"<tool_call>[{"name": "f", "arguments": {}}]</tool_call> ok"#,
                vec![call(0, "f", "{}"), one(t(" ok"))],
            ),
            fx(
                "nested, unicode and escaped values",
                format!(r#"<tool_call>[{{"name": "edit_file", "arguments": {NESTED}}}]"#),
                vec![call(0, "edit_file", NESTED)],
            ),
            fx(
                "empty arguments and none",
                r#"<tool_call>[{"name": "now", "arguments": {}}, {"name": "ping"}]"#,
                vec![call(0, "now", "{}"), call(1, "ping", "{}")],
            ),
            fx("an empty list", "a<tool_call>[]b", vec![one(t("ab"))]),
            fx(
                "Granite 4's object form beside it",
                r#"<tool_call>{"name": "f", "arguments": {}}</tool_call><tool_call>[{"name": "g", "arguments": {}}]"#,
                vec![call(0, "f", "{}"), call(1, "g", "{}")],
            ),
            fx(
                "a literal marker in prose",
                "Use <tool_call> tags.",
                vec![one(t("Use <tool_call> tags."))],
            ),
            fx(
                "truncated inside the list",
                r#"<tool_call>[{"name": "f", "arguments": {}}, {"name": "g", "arguments": {"a": "x"#,
                vec![
                    call(0, "f", "{}"),
                    one(start(1, "g")),
                    one(args(1, r#"{"a": "x"#)),
                    one(err(Cut, Some(1), r#"{"name": "g", "arguments": {"a": "x"#)),
                ],
            ),
            fx(
                "a broken call in the list: skipped to its bracket, the later calls count",
                r#"<tool_call>[{"name": "f", "arguments": {"a": x}}, {"name": "g", "arguments": {}}] after"#,
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a": "#)),
                    one(err(
                        Bad,
                        Some(0),
                        r#"<tool_call>[{"name": "f", "arguments": {"a": x}}"#,
                    )),
                    call(1, "g", "{}"),
                    one(t(" after")),
                ],
            ),
            fx(
                "a nameless call in the list",
                r#"<tool_call>[{"arguments": {}}, {"name": "g", "arguments": {}}]"#,
                vec![
                    one(err(MissingName, None, r#"<tool_call>[{"arguments": {}}"#)),
                    call(0, "g", "{}"),
                ],
            ),
        ],
    );
}

#[test]
fn a_byte_flip_in_a_call_leaves_the_next_call_whole() {
    // Issue 33: in `<|tool_call|>[..]` a flipped byte in call 0 split the valid call 1
    // between an error and text. Every one-bit flip of every byte of call 0: call 1 is
    // a call, or all of its bytes are in one error or one text event, at every split.
    use toolstream::Event;
    let c0 = r#"{"name": "f", "arguments": {"a": "x", "n": [1, 2]}}"#;
    let c1 = r#"{"name": "g", "arguments": {"b": 2}}"#;
    for (i, c) in c0.char_indices() {
        for bit in 0..7 {
            let flipped = char::from(c as u8 ^ (1 << bit));
            let input = format!(
                "<|tool_call|>[{}{flipped}{}, {c1}] after",
                &c0[..i],
                &c0[i + 1..]
            );
            let ev = crate::exact::split(Format::Granite, &input);
            let whole = ev.iter().any(|e| match e {
                Event::ToolCallEnd { name, .. } => name == "g",
                Event::Error { raw, .. } => raw.contains(c1),
                Event::Text { delta } => delta.contains(c1),
                _ => false,
            });
            assert!(whole, "call 1 split: {input:?}\n{ev:?}");
        }
    }
}
