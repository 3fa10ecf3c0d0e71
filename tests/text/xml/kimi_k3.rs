//! `kimi-k3`: Kimi K3's XTML tool channel at every chunking (whole, byte by byte, every
//! split, random splits). The shapes are those of vLLM's, TensorRT-LLM's and SGLang's K3
//! parsers (their docstrings quote the checkpoint's `encoding_k3.py`).

use crate::common::*;
use crate::exact::{split, split_with};
use serde_json::json;
use toolstream::{ErrorKind, Format, ParserConfig, Tools};

const F: Format = Format::KimiK3;

/// A K3 call: `args` are `(key, type, value)`.
fn k3_call(name: &str, index: usize, args: &[(&str, Option<&str>, &str)]) -> String {
    let mut s = format!("<|open|>call tool=\"{name}\" index=\"{index}\"<|sep|>");
    for (key, ty, value) in args {
        let ty = ty.map_or(String::new(), |t| format!(" type=\"{t}\""));
        s.push_str(&format!(
            "<|open|>argument key=\"{key}\"{ty}<|sep|>{value}<|close|>argument<|sep|>"
        ));
    }
    s.push_str("<|close|>call<|sep|>");
    s
}

fn tools_section(calls: &[String]) -> String {
    format!(
        "<|open|>tools<|sep|>{}<|close|>tools<|sep|>",
        calls.concat()
    )
}

#[test]
fn typed_argument_channels_several_calls_text_around() {
    let section = tools_section(&[
        k3_call(
            "get_weather",
            1,
            &[
                ("city", Some("string"), "Hang \"zhou\" 杭州 😀\n\\"),
                ("days", Some("number"), "3"),
                ("include_details", Some("boolean"), "true"),
                ("none", Some("null"), "null"),
                (
                    "opts",
                    Some("object"),
                    "{\"unit\": \"c\", \"x\": [1.5, null]}",
                ),
                ("tags", Some("array"), "[\"a\", \"b\"]"),
                ("zip", Some("string"), "007"),
                ("untyped", None, "12"),
            ],
        ),
        k3_call("search", 2, &[("query", Some("string"), "vLLM parser")]),
    ]);
    let input = format!(
        "<|open|>response<|sep|>Checking 😀.<|close|>response<|sep|>{section}<|close|>message<|sep|><|end_of_msg|>"
    );
    let ev = split(F, &input);
    assert_eq!(text(&ev), "Checking 😀.");
    assert_eq!(
        calls(&ev),
        vec![
            call(
                "call_0",
                "get_weather",
                json!({"city": "Hang \"zhou\" 杭州 😀\n\\", "days": 3, "include_details": true,
                       "none": null, "opts": {"unit": "c", "x": [1.5, null]}, "tags": ["a", "b"],
                       "zip": "007", "untyped": "12"})
            ),
            call("call_1", "search", json!({"query": "vLLM parser"})),
        ]
    );
    assert!(errors(&ev).is_empty(), "{ev:?}");
    assert_start_at(F, &input, "get_weather\"");
}

#[test]
fn empty_arguments_escaped_names_and_json_that_does_not_parse() {
    let section = tools_section(&[
        k3_call("now", 1, &[]),
        k3_call(
            "a&amp;b&quot;c",
            2,
            &[("k&quot;&amp;quot;", Some("number"), "1 2")],
        ),
    ]);
    let ev = split(F, &section);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "now", json!({})),
            // `&quot;` first, then `&amp;`: `&amp;quot;` is the text `&quot;`.
            call("call_1", "a&b\"c", json!({"k\"&quot;": "1 2"})),
        ]
    );
}

#[test]
fn reasoning_channel_and_the_open_generation_prompt() {
    let section = tools_section(&[k3_call("f", 1, &[("a", Some("number"), "1")])]);
    let input = format!(
        "<|open|>think<|sep|>The user wants f.<|close|>think<|sep|><|open|>response<|sep|>Sure.<|close|>response<|sep|>{section}"
    );
    let ev = split(F, &input);
    assert_eq!(reasoning(&ev), "The user wants f.");
    assert_eq!(text(&ev), "Sure.");
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"a": 1}))]);
    // K3's generation prompt opens the think channel: the completion starts inside it.
    let input = format!(
        "Thinking…<|close|>think<|sep|><|open|>response<|sep|>Ok<|close|>response<|sep|>{section}"
    );
    let ev = split_with(F, ParserConfig::new().reasoning_open(true), &input);
    assert_eq!(reasoning(&ev), "Thinking…");
    assert_eq!(text(&ev), "Ok");
    assert_eq!(calls(&ev).len(), 1);
}

#[test]
fn the_schema_takes_precedence_over_the_type_attribute() {
    let tools = Tools::from_json(
        r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object",
        "properties":{"zip":{"type":"string"},"n":{"type":"integer"}}}}}]"#,
    )
    .unwrap();
    let input = tools_section(&[k3_call(
        "f",
        1,
        &[("zip", Some("number"), "01234"), ("n", None, "7")],
    )]);
    let ev = split_with(F, ParserConfig::new().tools(tools), &input);
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "f", json!({"zip": "01234", "n": 7}))]
    );
}

#[test]
fn truncated_and_malformed_calls() {
    // Cut inside a value: the call's bytes from its own opening tag.
    let input = "A<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"string\"<|sep|>x y";
    let ev = split(F, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::Truncated,
            Some(0),
            "<|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"string\"<|sep|>x y".into()
        )]
    );
    assert_eq!(text(&ev), "A");
    // Cut inside the header's `<|sep|>` (the call started at its name's `"`).
    let input = "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|se";
    let ev = split(F, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::Truncated,
            Some(0),
            "<|open|>call tool=\"f\" index=\"1\"<|se".into()
        )]
    );
    // A header that does not end in `<|sep|>`: the call is an error through its close;
    // the next call is read.
    let input = format!(
        "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|open|>argument key=\"a\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>{}<|close|>tools<|sep|>",
        k3_call("g", 2, &[("b", Some("number"), "2")])
    );
    let ev = split(F, &input);
    assert_eq!(calls(&ev), vec![call("call_1", "g", json!({"b": 2}))]);
    assert_eq!(errors(&ev).len(), 1, "{ev:?}");
}

#[test]
fn a_json_block_body() {
    let input = "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>json type=\"object\"<|sep|>{\"a\": \"<|close|>json<|sep|>\", \"b\": [1, null]}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>";
    let ev = split(F, input);
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "f",
            json!({"a": "<|close|>json<|sep|>", "b": [1, null]})
        )]
    );
    assert!(errors(&ev).is_empty(), "{ev:?}");
    // Not one JSON object: an error with the call's bytes.
    let input = "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>json type=\"object\"<|sep|>not json<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>";
    let ev = split(F, input);
    assert!(calls(&ev).is_empty(), "{ev:?}");
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::InvalidArguments,
            Some(0),
            "<|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>json type=\"object\"<|sep|>not json<|close|>json<|sep|><|close|>call<|sep|>".into()
        )]
    );
    // Cut inside the block's opening tag.
    let input = "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>json ty";
    let ev = split(F, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::Truncated,
            Some(0),
            "<|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>json ty".into()
        )]
    );
}

#[test]
fn a_literal_tools_tag_in_prose_with_no_call_is_text() {
    let input = "Use <|open|>tools<|sep|> then stop.";
    let ev = split(F, input);
    assert_eq!(text(&ev), input);
    assert!(calls(&ev).is_empty() && errors(&ev).is_empty(), "{ev:?}");
}

#[test]
fn a_damaged_name_quote_is_an_error_not_a_junk_name() {
    // Issue 33: `tool="get_weather index="1"` made a call named `get_weather index=`.
    let bad = "<|open|>call tool=\"get_weather index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"number\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>";
    let input = format!("<|open|>tools<|sep|>{bad}<|close|>tools<|sep|> ok");
    let ev = split(Format::KimiK3, &input);
    assert!(calls(&ev).is_empty(), "{ev:?}");
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::InvalidArguments, None, bad.into())]
    );
    assert_eq!(text(&ev), " ok");
}

/// `kimi-k3`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::KimiK3,
        reasoning: Some(("<|open|>think<|sep|>", "<|close|>think<|sep|>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    r#"A<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|> B"#,
                    vec![one(t("A")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    r#"Hi <|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1"#,
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1"#,
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\nb\" type=\"number\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "<|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\nb\" type=\"number\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <|open|>tools<|sep|> tag.",
                    vec![one(t("Use a literal <|open|>tools<|sep|> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done<|close|>tools<|sep|> ok",
                    vec![one(t("done<|close|>tools<|sep|> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|open|>call tool="g" index="2"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|>"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|open|>argument key="a" type="number"<|sep|>2<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|open|>argument key="a" type="number"<|sep|>2<|close|>argument<|sep|><|close|>call<|sep|>"#,
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<|open|>tools<|sep|><|open|>call tool="get weather index=" index="1"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"#,
                    vec![one(err(
                        Bad,
                        None,
                        r#"<|open|>call tool="get weather index=" index="1"<|sep|><|close|>call<|sep|>"#,
                    ))],
                ),
            ),
        ],
    }
}

/// `kimi-k3`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "kimi-k3",
            "a missing <|close|>call<|sep|>",
            r#"<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|open|>call tool="g" index="2"<|sep|><|open|>argument key="a" type="number"<|sep|>2<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|>"#
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
        fx!(
            "kimi-k3",
            "a repeated argument",
            r#"<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|open|>argument key="a" type="number"<|sep|>2<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Bad,
                    Some(0),
                    r#"<|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="number"<|sep|>1<|close|>argument<|sep|><|open|>argument key="a" type="number"<|sep|>2<|close|>argument<|sep|><|close|>call<|sep|>"#
                ),
            ],
        ),
        fx!(
            "kimi-k3",
            "a JSON block: an opener between JSON tokens",
            r#"<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>json type="object"<|sep|>{"a": 1 <|open|>call tool="g" index="2"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1 "#),
                err(
                    Cut,
                    Some(0),
                    r#"<|open|>call tool="f" index="1"<|sep|><|open|>json type="object"<|sep|>{"a": 1 "#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "kimi-k3",
            "a literal tools tag in prose",
            "Write <|open|>tools<|sep|> to call tools.",
            [t("Write <|open|>tools<|sep|> to call tools.")],
        ),
        fx!(
            "kimi-k3",
            "whitespace before a marker is text",
            "A \n<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"number\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
            [t("A \n"), call(0, "f", r#"{"a":1}"#)],
        ),
    ]
}
