//! String-encoded arguments in the JSON-call syntaxes (issue 22 build 3):
//! `"arguments": "{\"a\": 1}"` is decoded to the object it holds; the deltas are the
//! decoded text (escapes split across feeds held until complete). Exact events at every
//! chunking (an escape, a `\uXXXX` and a surrogate pair split at every byte) and every
//! prefix.

use crate::exact::*;
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::Format;

fn hermes(args: &str) -> String {
    format!("<tool_call>{{\"name\": \"f\", \"arguments\": {args}}}</tool_call>")
}

#[test]
fn string_encoded_arguments_hermes() {
    check_fixtures(
        Format::Hermes,
        &[
            fx(
                "an object in a string",
                format!("A {} B", hermes(r#""{\"a\": 1, \"b\": [true, null]}""#)),
                vec![
                    one(t("A ")),
                    call(0, "f", r#"{"a": 1, "b": [true, null]}"#),
                    one(t(" B")),
                ],
            ),
            fx(
                "escapes inside: newline, quotes, backslash, \\u, a surrogate pair, raw UTF-8",
                hermes(
                    r#""{\"s\": \"x\\ny \\\"q\\\" \\\\ \\u00e9 \\ud83d\\ude00 é\", \"u\": \"\u00e9\"}""#,
                ),
                vec![call(
                    0,
                    "f",
                    r#"{"s": "x\ny \"q\" \\ \u00e9 \ud83d\ude00 é", "u": "é"}"#,
                )],
            ),
            fx(
                "whitespace around the object is left out / kept after it",
                hermes(r#"" \n {\"a\": {\"n\": []}} ""#),
                vec![call(0, "f", r#"{"a": {"n": []}}"#)],
            ),
            fx(
                "an empty string is {}",
                hermes(r#""""#),
                vec![call(0, "f", "{}")],
            ),
            fx(
                "an object written as one (unchanged)",
                hermes(r#"{"a": "{\"b\": 1}"}"#),
                vec![call(0, "f", r#"{"a": "{\"b\": 1}"}"#)],
            ),
            fx(
                "a string that holds no object is an error with the raw call",
                format!("{} B", hermes(r#""hello""#)),
                vec![
                    one(start(0, "f")),
                    one(err(Bad, Some(0), &hermes(r#""hello""#))),
                    one(t(" B")),
                ],
            ),
            fx(
                "text after the object in the string: an error, the call never completes",
                format!("{} B", hermes(r#""{\"a\": 1} x""#)),
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a": 1}"#)),
                    one(err(Bad, Some(0), &hermes(r#""{\"a\": 1} x""#))),
                    one(t(" B")),
                ],
            ),
            fx(
                "an unfinished object in the string",
                hermes(r#""{\"a\": 1""#),
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a": 1"#)),
                    one(err(Bad, Some(0), &hermes(r#""{\"a\": 1""#))),
                ],
            ),
            fx(
                "a lone surrogate escape in the outer string",
                hermes(r#""{\"a\": \"\ud83d\"}""#),
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a": ""#)),
                    one(err(Bad, Some(0), &hermes(r#""{\"a\": \"\ud83d\"}""#))),
                ],
            ),
            fx(
                "truncated inside the string, after the object",
                r#"<tool_call>{"name": "f", "arguments": "{\"a\": 1}"#,
                vec![
                    one(start(0, "f")),
                    one(args(0, r#"{"a": 1}"#)),
                    one(err(
                        Cut,
                        Some(0),
                        r#"<tool_call>{"name": "f", "arguments": "{\"a\": 1}"#,
                    )),
                ],
            ),
            fx(
                "a string before the name is not decoded",
                r#"<tool_call>{"arguments": "{\"a\": 1}", "name": "f"}</tool_call>"#,
                vec![call(0, "f", r#""{\"a\": 1}""#)],
            ),
        ],
    );
}

/// The same rule in other tables of the engine and in `mistral`'s lists (the shared
/// call-object walker).
#[test]
fn string_encoded_arguments_other_syntaxes() {
    check_fixtures(
        Format::Longcat,
        &[fx(
            "longcat",
            r#"<longcat_tool_call>{"name": "f", "arguments": "{\"a\": \"<\/longcat_tool_call>\"}"}</longcat_tool_call>"#,
            vec![call(0, "f", r#"{"a": "</longcat_tool_call>"}"#)],
        )],
    );
    check_fixtures(
        Format::Inkling,
        &[fx(
            "inkling",
            r#"<|content_invoke_tool_json|>{"name": "f", "args": "{\"a\": 1}"}<|end_message|>"#,
            vec![call(0, "f", r#"{"a": 1}"#)],
        )],
    );
    check_fixtures(
        Format::Mistral,
        &[fx(
            "mistral v3 list",
            r#"[TOOL_CALLS][{"name": "f", "arguments": "{\"a\": 1}"}, {"name": "g", "arguments": {"b": 2}}]"#,
            vec![call(0, "f", r#"{"a": 1}"#), call(1, "g", r#"{"b": 2}"#)],
        )],
    );
}
