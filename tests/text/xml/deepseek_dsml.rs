//! `deepseek-dsml`: V4.1's spaced tags, the doubled-bar leak and JSON bodies, each at
//! every chunking (whole, byte by byte, every split, random splits).

use crate::common::*;
use crate::exact::{split, split_with};
use serde_json::json;
use toolstream::{ErrorKind, Event, Format, ParserConfig, Tools};

const F: Format = Format::DeepSeekDsml;

#[test]
fn v41_spaced_tags_several_calls_text_around() {
    let input = "Let me check 😀.\n\n<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"get_weather\">\n<｜DSML｜ parameter name=\"city\" string=\"true\">杭州 \"old\" \\ town</｜DSML｜ parameter>\n<｜DSML｜ parameter name=\"days\" string=\"false\">3</｜DSML｜ parameter>\n<｜DSML｜ parameter name=\"opts\" string=\"false\">{\"unit\": \"c\", \"x\": [1, null]}</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n<｜DSML｜ invoke name=\"now\">\n</｜DSML｜ invoke>\n</｜DSML｜ calls> Done ✓";
    let ev = split(F, input);
    assert_eq!(text(&ev), "Let me check 😀.\n\n Done ✓");
    assert_eq!(
        calls(&ev),
        vec![
            call(
                "call_0",
                "get_weather",
                json!({"city": "杭州 \"old\" \\ town", "days": 3, "opts": {"unit": "c", "x": [1, null]}})
            ),
            call("call_1", "now", json!({})),
        ]
    );
    assert!(errors(&ev).is_empty(), "{ev:?}");
    assert_start_at(F, input, "get_weather\"");
}

#[test]
fn v41_invoke_outside_a_block_is_a_call() {
    let input = "a <｜DSML｜ invoke name=\"f\"><｜DSML｜ parameter name=\"q\" string=\"true\">007</｜DSML｜ parameter></｜DSML｜ invoke> b";
    let ev = split(F, input);
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"q": "007"}))]);
    assert_eq!(text(&ev), "a  b");
}

#[test]
fn the_doubled_bar_leak_with_and_without_its_section() {
    let input = "x <｜｜DSML｜｜tool_calls>\n<｜｜DSML｜｜invoke name=\"edit\">\n<｜｜DSML｜｜parameter name=\"filePath\" string=\"true\">/a/b.ejs</｜｜DSML｜｜parameter>\n<｜｜DSML｜｜parameter name=\"n\" string=\"false\">2</｜｜DSML｜｜parameter>\n</｜｜DSML｜｜invoke>\n</｜｜DSML｜｜tool_calls> y";
    let ev = split(F, input);
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "edit",
            json!({"filePath": "/a/b.ejs", "n": 2})
        )]
    );
    assert_eq!(text(&ev), "x  y");
    // Bare invokes, one after the other (as leaked by hosted APIs).
    let input = "<｜｜DSML｜｜invoke name=\"think\"><｜｜DSML｜｜parameter name=\"thought\">step one</｜｜DSML｜｜parameter></｜｜DSML｜｜invoke><｜｜DSML｜｜invoke name=\"web_search\"><｜｜DSML｜｜parameter name=\"query\">step two</｜｜DSML｜｜parameter></｜｜DSML｜｜invoke>";
    let ev = split(F, input);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "think", json!({"thought": "step one"})),
            call("call_1", "web_search", json!({"query": "step two"})),
        ]
    );
    // The doubled bars with V4.1's spaced tags.
    let input = "<｜｜DSML｜｜ calls><｜｜DSML｜｜ invoke name=\"terminal\"><｜｜DSML｜｜ parameter name=\"cmd\" string=\"true\">ls -la</｜｜DSML｜｜ parameter></｜｜DSML｜｜ invoke></｜｜DSML｜｜ calls>";
    let ev = split(F, input);
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "terminal", json!({"cmd": "ls -la"}))]
    );
    assert_eq!(text(&ev), "");
}

#[test]
fn a_json_object_directly_inside_invoke() {
    // Every spelling; the object's bytes are the arguments, a closing tag inside one of
    // its strings is content.
    for (open, close, inv, inv_close) in [
        (
            "<｜DSML｜tool_calls>",
            "</｜DSML｜tool_calls>",
            "<｜DSML｜invoke",
            "</｜DSML｜invoke>",
        ),
        (
            "<｜DSML｜ calls>",
            "</｜DSML｜ calls>",
            "<｜DSML｜ invoke",
            "</｜DSML｜ invoke>",
        ),
        (
            "<｜｜DSML｜｜tool_calls>",
            "</｜｜DSML｜｜tool_calls>",
            "<｜｜DSML｜｜invoke",
            "</｜｜DSML｜｜invoke>",
        ),
    ] {
        let input = format!(
            "A{open}\n{inv} name=\"f\">\n{{\"a\": \"{inv_close} é 😀\", \"b\": [1, {{\"c\": null}}]}}\n{inv_close}\n{inv} name=\"g\">{{}}{inv_close}{close}B"
        );
        let ev = split(F, &input);
        assert_eq!(
            calls(&ev),
            vec![
                call(
                    "call_0",
                    "f",
                    json!({"a": format!("{inv_close} é 😀"), "b": [1, {"c": null}]})
                ),
                call("call_1", "g", json!({})),
            ],
            "{input}"
        );
        assert_eq!(text(&ev), "AB", "{input}");
        assert!(errors(&ev).is_empty(), "{ev:?}");
        // The object's bytes stream as they arrive: the model's own text.
        assert!(args_text(&ev, 0).starts_with("{\"a\": \""), "{ev:?}");
    }
}

#[test]
fn a_broken_json_body_is_an_error_with_its_bytes() {
    let input = "<｜DSML｜tool_calls><｜DSML｜invoke name=\"f\">{\"a\": 1,,}</｜DSML｜invoke><｜DSML｜invoke name=\"g\">{\"b\": 2}</｜DSML｜invoke></｜DSML｜tool_calls>";
    let ev = split(F, input);
    assert_eq!(calls(&ev), vec![call("call_1", "g", json!({"b": 2}))]);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::InvalidArguments,
            Some(0),
            "<｜DSML｜invoke name=\"f\">{\"a\": 1,,}</｜DSML｜invoke>".into()
        )]
    );
    // Parameters after a JSON body: the arguments twice.
    let input = "<｜DSML｜tool_calls><｜DSML｜invoke name=\"f\">{\"a\": 1}<｜DSML｜parameter name=\"a\">2</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>";
    let ev = split(F, input);
    assert!(calls(&ev).is_empty(), "{ev:?}");
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::InvalidArguments,
            Some(0),
            "<｜DSML｜invoke name=\"f\">{\"a\": 1}<｜DSML｜parameter name=\"a\">2</｜DSML｜parameter></｜DSML｜invoke>".into()
        )]
    );
    // Cut off inside the object.
    let input = "<｜DSML｜ calls><｜DSML｜ invoke name=\"f\">{\"a\": \"x";
    let ev = split(F, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::Truncated,
            Some(0),
            "<｜DSML｜ invoke name=\"f\">{\"a\": \"x".into()
        )]
    );
}

#[test]
fn v41_truncation_empty_and_typed_by_the_schema() {
    // Cut inside a value, inside a tag, after the name.
    for (input, raw) in [
        (
            "<｜DSML｜ calls><｜DSML｜ invoke name=\"f\"><｜DSML｜ parameter name=\"a\" string=\"true\">x",
            "<｜DSML｜ invoke name=\"f\"><｜DSML｜ parameter name=\"a\" string=\"true\">x",
        ),
        (
            "<｜DSML｜ calls><｜DSML｜ invoke name=\"f\"></｜DSML｜ inv",
            "<｜DSML｜ invoke name=\"f\"></｜DSML｜ inv",
        ),
        ("<｜DSML｜ invoke name=\"f", "<｜DSML｜ invoke name=\"f"),
    ] {
        let ev = split(F, input);
        // (A name cut off before its `"` never started a call.)
        let index = input
            .ends_with('f')
            .then_some(())
            .map_or(Some(0), |()| None);
        assert_eq!(
            kinds(&ev),
            vec![(ErrorKind::Truncated, index, raw.into())],
            "{input}"
        );
        assert_eq!(text(&ev), "");
    }
    // A section with nothing in it is no call; an invoke with no parameters is `{}`.
    let ev = split(F, "a<｜DSML｜ calls>\n</｜DSML｜ calls>b");
    assert!(calls(&ev).is_empty() && errors(&ev).is_empty(), "{ev:?}");
    assert_eq!(text(&ev), "ab");
    // The schema takes precedence where the model wrote no `string` attribute.
    let tools = Tools::from_json(
        r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object",
        "properties":{"zip":{"type":"string"},"n":{"type":"integer"}}}}}]"#,
    )
    .unwrap();
    let input = "<｜DSML｜ invoke name=\"f\"><｜DSML｜ parameter name=\"zip\">01234</｜DSML｜ parameter><｜DSML｜ parameter name=\"n\">7</｜DSML｜ parameter></｜DSML｜ invoke>";
    let ev = split_with(F, ParserConfig::new().tools(tools), input);
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "f", json!({"zip": "01234", "n": 7}))]
    );
}

#[test]
fn spellings_do_not_mix_within_a_call() {
    // A V4 call's value holding a V4.1 tag: value text (the V4 table reads it).
    let input = "<｜DSML｜tool_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\" string=\"true\">see </｜DSML｜ parameter> here</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>";
    let ev = split(F, input);
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "f",
            json!({"a": "see </｜DSML｜ parameter> here"})
        )]
    );
    // After a V4.1 call, a V4 section reads with V4's tags.
    let input = "<｜DSML｜ invoke name=\"a\"></｜DSML｜ invoke> <｜DSML｜function_calls><｜DSML｜invoke name=\"b\"></｜DSML｜invoke></｜DSML｜function_calls>";
    let ev = split(F, input);
    assert_eq!(
        calls(&ev),
        vec![
            call("call_0", "a", json!({})),
            call("call_1", "b", json!({}))
        ]
    );
    assert_eq!(text(&ev), " ");
    assert!(ev.iter().all(|e| !matches!(e, Event::Error { .. })));
}

#[test]
fn a_literal_section_tag_in_prose_then_another_spellings_call() {
    // The literal tag is text again, and so is what follows it, where the other
    // spelling's section opens its call (it was lost when the input came in one piece).
    for (literal, section, tag) in [
        ("<｜DSML｜ calls>", "function_calls", "｜DSML｜"),
        ("<｜DSML｜function_calls>", "calls", "｜DSML｜ "),
        ("<｜｜DSML｜｜tool_calls>", "tool_calls", "｜DSML｜"),
    ] {
        let input = format!(
            "Use a literal {literal} tag in prose, then <{tag}{section}>\n<{tag}invoke name=\"get_weather\">\n<{tag}parameter name=\"city\" string=\"true\">Paris</{tag}parameter>\n</{tag}invoke>\n</{tag}{section}> ok"
        );
        let ev = split(F, &input);
        assert_eq!(
            calls(&ev),
            vec![call("call_0", "get_weather", json!({"city": "Paris"}))],
            "{input}"
        );
        assert_eq!(
            text(&ev),
            format!("Use a literal {literal} tag in prose, then  ok"),
            "{input}"
        );
        assert!(errors(&ev).is_empty(), "{ev:?}");
    }
}

#[test]
fn literal_section_tags_of_alternating_spellings_then_a_call() {
    // Each literal tag is text; the text after it is read again from where it began,
    // so the next spelling's literal tag (and then the call) is found in the same piece.
    let prose = "<｜DSML｜ calls> a <｜DSML｜function_calls> b ".repeat(20);
    let input = format!(
        "{prose}<｜｜DSML｜｜invoke name=\"f\"><｜｜DSML｜｜parameter name=\"x\" string=\"false\">1</｜｜DSML｜｜parameter></｜｜DSML｜｜invoke>."
    );
    let ev = split(F, &input);
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"x": 1}))]);
    assert_eq!(text(&ev), format!("{prose}."));
    assert!(errors(&ev).is_empty(), "{ev:?}");
}

#[test]
fn wrapper_spellings_seen_in_production_are_read() {
    // Issue 33: V4.1's space with V4's name, and the V4 opener misspellings DeepSeek V4
    // Flash writes under speculative decoding (vllm#51914, read by vLLM's #56141), which
    // close with the canonical tag; and vLLM's V4.1 tolerances (the wrapper's space
    // dropped, `call` for `calls`). None of them is text.
    for (open, tag, close) in [
        (
            "<｜DSML｜ tool_calls>",
            "｜DSML｜ ",
            "</｜DSML｜ tool_calls>",
        ),
        ("<｜DSML｜toolcalls>", "｜DSML｜", "</｜DSML｜tool_calls>"),
        ("<｜DSML｜tool>", "｜DSML｜", "</｜DSML｜tool_calls>"),
        ("<｜DSML｜toolcalls>", "｜DSML｜", "</｜DSML｜toolcalls>"),
        ("<｜DSML｜calls>", "｜DSML｜ ", "</｜DSML｜ calls>"),
        ("<｜DSML｜ call>", "｜DSML｜ ", "</｜DSML｜ calls>"),
    ] {
        let input = format!(
            "Checking.\n\n{open}\n<{tag}invoke name=\"get_weather\">\n<{tag}parameter name=\"city\" string=\"true\">Seoul</{tag}parameter>\n<{tag}parameter name=\"days\" string=\"false\">2</{tag}parameter>\n</{tag}invoke>\n<{tag}invoke name=\"now\">\n</{tag}invoke>\n{close} ok"
        );
        let ev = split(F, &input);
        assert_eq!(
            calls(&ev),
            vec![
                call("call_0", "get_weather", json!({"city": "Seoul", "days": 2})),
                call("call_1", "now", json!({})),
            ],
            "{input}"
        );
        assert_eq!(text(&ev), "Checking.\n\n ok", "{input}");
        assert!(errors(&ev).is_empty(), "{input}: {ev:?}");
        // `auto` detects each spelling and reads it alike.
        assert_eq!(split(Format::Auto, &input), ev, "auto: {input}");
    }
}

#[test]
fn wrapper_misspellings_in_prose_are_no_call() {
    // A mention of a tolerated spelling with no invoke after it opens no call and loses
    // no byte (vLLM's prose fixtures).
    for input in [
        "Never emit <｜DSML｜tool> or <｜DSML｜toolcalls> as literal text.",
        "The V4.1 spelling is <｜DSML｜ calls>, not <｜DSML｜ tool_calls>.",
    ] {
        let ev = split(F, input);
        assert!(calls(&ev).is_empty(), "{input}: {ev:?}");
        assert!(errors(&ev).is_empty(), "{input}: {ev:?}");
        assert_eq!(text(&ev), input);
    }
}

#[test]
fn a_json_string_in_a_string_false_value_is_decoded() {
    // Issue 33: `string="false"` is JSON text, and a JSON string is JSON text: decoded
    // (as DeepSeek's reference parser and vLLM's `json.loads` it), in every spelling.
    for (tag, open, close) in [
        ("｜DSML｜", "<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"),
        ("｜DSML｜ ", "<｜DSML｜ calls>", "</｜DSML｜ calls>"),
    ] {
        let input = format!(
            "{open}<{tag}invoke name=\"f\"><{tag}parameter name=\"a\" string=\"false\">\"x\\ny \\\"z\\\"\"</{tag}parameter><{tag}parameter name=\"b\" string=\"true\">\"kept\"</{tag}parameter></{tag}invoke>{close}"
        );
        let ev = split(F, &input);
        assert_eq!(
            calls(&ev),
            vec![call(
                "call_0",
                "f",
                json!({"a": "x\ny \"z\"", "b": "\"kept\""})
            )],
            "{input}"
        );
        assert!(errors(&ev).is_empty(), "{ev:?}");
    }
}

#[test]
fn a_damaged_name_quote_is_an_error_not_a_junk_name() {
    // Issue 33: `name="get_weather index="1"` made a call named `get_weather index=`,
    // in every spelling.
    for (open, tag, close) in [
        ("<｜DSML｜tool_calls>", "｜DSML｜", "</｜DSML｜tool_calls>"),
        ("<｜DSML｜ calls>", "｜DSML｜ ", "</｜DSML｜ calls>"),
        (
            "<｜｜DSML｜｜tool_calls>",
            "｜｜DSML｜｜",
            "</｜｜DSML｜｜tool_calls>",
        ),
    ] {
        let bad = format!(
            "<{tag}invoke name=\"get_weather index=\"1\"><{tag}parameter name=\"a\" string=\"true\">x</{tag}parameter></{tag}invoke>"
        );
        let input = format!("{open}{bad}<{tag}invoke name=\"g\"></{tag}invoke>{close} ok");
        let ev = split(F, &input);
        assert_eq!(calls(&ev), vec![call("call_0", "g", json!({}))], "{input}");
        assert_eq!(
            kinds(&ev),
            vec![(ErrorKind::InvalidArguments, None, bad)],
            "{input}"
        );
        assert_eq!(text(&ev), " ok", "{input}");
    }
}

/// `deepseek-dsml`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::DeepSeekDsml,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "A<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"false\">1</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls> B",
                    vec![one(t("A")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi <｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"false\">1",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"false\">1",
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\nb\" string=\"false\">1</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\nb\" string=\"false\">1</｜DSML｜parameter>\n</｜DSML｜invoke>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <｜DSML｜function_calls> tag.",
                    vec![one(t("Use a literal <｜DSML｜function_calls> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done</｜DSML｜function_calls> ok",
                    vec![one(t("done</｜DSML｜function_calls> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="false">1</｜DSML｜parameter><｜DSML｜invoke name="g"></｜DSML｜invoke></｜DSML｜function_calls>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="false">1</｜DSML｜parameter>"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="false">1</｜DSML｜parameter><｜DSML｜parameter name="a" string="false">2</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="false">1</｜DSML｜parameter><｜DSML｜parameter name="a" string="false">2</｜DSML｜parameter></｜DSML｜invoke>"#,
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<｜DSML｜function_calls><｜DSML｜invoke name="get weather index="></｜DSML｜invoke></｜DSML｜function_calls>"#,
                    vec![one(err(
                        Bad,
                        None,
                        r#"<｜DSML｜invoke name="get weather index="></｜DSML｜invoke>"#,
                    ))],
                ),
            ),
        ],
    }
}

/// `deepseek-dsml`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "deepseek-dsml",
            "a missing </｜DSML｜invoke>",
            r#"<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="false">1</｜DSML｜parameter><｜DSML｜invoke name="g"><｜DSML｜parameter name="a" string="false">2</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="false">1</｜DSML｜parameter>"#
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
        fx!(
            "deepseek-dsml",
            "V4.1: a missing </｜DSML｜ invoke>",
            r#"<｜DSML｜ calls><｜DSML｜ invoke name="f"><｜DSML｜ parameter name="a" string="false">1</｜DSML｜ parameter><｜DSML｜ invoke name="g"><｜DSML｜ parameter name="a" string="false">2</｜DSML｜ parameter></｜DSML｜ invoke></｜DSML｜ calls>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<｜DSML｜ invoke name="f"><｜DSML｜ parameter name="a" string="false">1</｜DSML｜ parameter>"#
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
        fx!(
            "deepseek-dsml",
            "the doubled-bar leak: a missing </｜｜DSML｜｜invoke>",
            r#"<｜｜DSML｜｜invoke name="f"><｜｜DSML｜｜parameter name="a" string="false">1</｜｜DSML｜｜parameter><｜｜DSML｜｜invoke name="g"></｜｜DSML｜｜invoke>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<｜｜DSML｜｜invoke name="f"><｜｜DSML｜｜parameter name="a" string="false">1</｜｜DSML｜｜parameter>"#
                ),
                call(1, "g", "{}"),
            ],
        ),
        fx!(
            "deepseek-dsml",
            "a JSON body: an opener between JSON tokens",
            r#"<｜DSML｜ invoke name="f">{"a": 1 <｜DSML｜ invoke name="g">{"b": 2}</｜DSML｜ invoke>"#,
            [
                start(0, "f"),
                args(0, r#"{"a": 1 "#),
                err(Cut, Some(0), r#"<｜DSML｜ invoke name="f">{"a": 1 "#),
                call(1, "g", r#"{"b": 2}"#),
            ],
        ),
        fx!(
            "deepseek-dsml",
            "a JSON body: a closing tag inside a string is content",
            r#"<｜DSML｜ invoke name="f">{"a": "</｜DSML｜ invoke>"}</｜DSML｜ invoke>"#,
            [call(0, "f", r#"{"a": "</｜DSML｜ invoke>"}"#)],
        ),
        fx!(
            "deepseek-dsml",
            "a JSON body: a raw control character fails at its byte",
            "<｜DSML｜ invoke name=\"f\">{\"a\": \"x\ny\"}</｜DSML｜ invoke>",
            [
                start(0, "f"),
                args(0, r#"{"a": "x"#),
                err(
                    Bad,
                    Some(0),
                    "<｜DSML｜ invoke name=\"f\">{\"a\": \"x\ny\"}</｜DSML｜ invoke>"
                ),
            ],
        ),
        fx!(
            "deepseek-dsml",
            "V4.1: a repeated parameter",
            r#"<｜DSML｜ invoke name="f"><｜DSML｜ parameter name="a" string="false">1</｜DSML｜ parameter><｜DSML｜ parameter name="a" string="false">2</｜DSML｜ parameter></｜DSML｜ invoke>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Bad,
                    Some(0),
                    r#"<｜DSML｜ invoke name="f"><｜DSML｜ parameter name="a" string="false">1</｜DSML｜ parameter><｜DSML｜ parameter name="a" string="false">2</｜DSML｜ parameter></｜DSML｜ invoke>"#
                ),
            ],
        ),
    ]
}

/// `deepseek-dsml`'s rows of the XML fixture table (`xml/tables.rs`, which runs them with the
/// family's, typed with and without the schema where a row says so).
pub(crate) fn table() -> Vec<crate::xml::tables::Fx> {
    use crate::xml::tables::fx;
    use serde_json::json;
    use toolstream::ErrorKind;
    use toolstream::Format;
    vec![
        fx(
            "dsml V3.2: string attributes, two invokes",
            Format::DeepSeekDsml,
            "Checking.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"zip\" string=\"true\">007</｜DSML｜parameter>\n<｜DSML｜parameter name=\"n\" string=\"true\">42</｜DSML｜parameter>\n<｜DSML｜parameter name=\"days\" string=\"false\">5</｜DSML｜parameter>\n<｜DSML｜parameter name=\"ok\" string=\"false\">True</｜DSML｜parameter>\n<｜DSML｜parameter name=\"o\" string=\"false\">{\"a\": \"｜\"}</｜DSML｜parameter>\n<｜DSML｜parameter name=\"bad\" string=\"false\">not json</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"now\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls><｜end▁of▁sentence｜>",
        )
        .text("Checking.\n\n")
        .call(
            "get_weather",
            json!({"zip": "007", "n": "42", "days": 5, "ok": true, "o": {"a": "｜"}, "bad": "not json"}),
        )
        .call("now", json!({})),
        fx(
            "dsml V4 tool_calls section",
            Format::DeepSeekDsml,
            "<think>r</think><｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"bash\">\n<｜DSML｜parameter name=\"cmd\" string=\"true\">ls -la\n</｜DSML｜parameter>\n<｜DSML｜parameter name=\"timeout\" string=\"false\">15</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
        )
        .reasoning("r")
        .call("bash", json!({"cmd": "ls -la\n", "timeout": 15})),
        fx(
            "dsml: an invoke's attributes are not its parameters",
            Format::DeepSeekDsml,
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\" string=\"true\"><｜DSML｜parameter name=\"a\">7</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>",
        )
        .call("f", json!({"a": 7})),
        fx(
            "dsml: the schema overrides the string attribute",
            Format::DeepSeekDsml,
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"n\" string=\"true\">7</｜DSML｜parameter><｜DSML｜parameter name=\"zip\" string=\"false\">123</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>",
        )
        .typed()
        .call("f", json!({"n": 7, "zip": "123"})),
        fx(
            "dsml truncated inside a value",
            Format::DeepSeekDsml,
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"true\">hel",
        )
        .error(
            ErrorKind::Truncated,
            Some(0),
            "<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"true\">hel",
        ),
        fx(
            "dsml malformed attributes, the section goes on",
            Format::DeepSeekDsml,
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\" string=\"true\n\">1</｜DSML｜parameter></｜DSML｜invoke><｜DSML｜invoke name=\"g\"></｜DSML｜invoke></｜DSML｜function_calls>",
        )
        .error(
            ErrorKind::InvalidArguments,
            Some(0),
            "<｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\" string=\"true\n\">1</｜DSML｜parameter></｜DSML｜invoke>",
        )
        .call("g", json!({})),
        fx(
            "dsml: a character sharing its first byte with `｜` after `</` is text",
            Format::DeepSeekDsml,
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke>\n</\u{FFFD} tail",
        )
        .call("f", json!({}))
        .text("</\u{FFFD} tail"),
        fx(
            "dsml: a lone section open at the end is a call cut off",
            Format::DeepSeekDsml,
            "a<｜DSML｜function_calls>\n",
        )
        .text("a")
        .error(ErrorKind::Truncated, None, "<｜DSML｜function_calls>\n"),
    ]
}
