//! `minimax-m3`: MiniMax M3's namespace-prefixed, tag-named parameters at every chunking
//! (whole, byte by byte, every split, random splits). Shapes from the peers' M3 parsers
//! and tests (SGLang's gateway, TensorRT-LLM, vLLM).

use crate::common::*;
use crate::exact::{split, split_with};
use serde_json::json;
use toolstream::{ErrorKind, Event, Format, ParserConfig, Tools};

const F: Format = Format::MiniMaxM3;
const NS: &str = "]<]minimax[>[";

/// `NS<name>body NS</name>`.
fn el(name: &str, body: &str) -> String {
    format!("{NS}<{name}>{body}{NS}</{name}>")
}

fn invoke(name: &str, body: &str) -> String {
    format!("{NS}<invoke name=\"{name}\">\n{body}\n{NS}</invoke>")
}

fn section(invokes: &[String]) -> String {
    format!("{NS}<tool_call>\n{}\n{NS}</tool_call>", invokes.join("\n"))
}

#[test]
fn nested_objects_item_arrays_several_calls_text_around() {
    let order = [
        el("user_id", "42"),
        el(
            "shipping",
            &format!("\n{}\n{}\n", el("city", "Singapore"), el("zip", "018956")),
        ),
        el(
            "items",
            &[
                el(
                    "item",
                    &format!("{}{}", el("sku", "book-001"), el("qty", "2")),
                ),
                el("item", "x \"y\" é😀\\"),
            ]
            .concat(),
        ),
        el("note", "a <b> [c]\nd"),
        el("cc", ""),
    ]
    .join("\n");
    let input = format!(
        "我再查几条。{}\nDone ✓",
        section(&[invoke("create_order", &order), invoke("now", "")])
    );
    let ev = split(F, &input);
    assert_eq!(text(&ev), "我再查几条。\nDone ✓");
    assert_eq!(
        calls(&ev),
        vec![
            call(
                "call_0",
                "create_order",
                json!({"user_id": "42", "shipping": {"city": "Singapore", "zip": "018956"},
                       "items": [{"sku": "book-001", "qty": "2"}, "x \"y\" é😀\\"],
                       "note": "a <b> [c]\nd", "cc": ""})
            ),
            call("call_1", "now", json!({})),
        ]
    );
    assert!(errors(&ev).is_empty(), "{ev:?}");
    assert_start_at(F, &input, "create_order\"");
}

#[test]
fn values_typed_by_the_schema_at_the_top_level() {
    let tools = Tools::from_json(
        r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object",
        "properties":{"zip":{"type":"string"},"n":{"type":"integer"},"tags":{"type":"array"}}}}}]"#,
    )
    .unwrap();
    let body = [
        el("zip", "01234"),
        el("n", "7"),
        el("tags", &[el("item", "1"), el("item", "b")].concat()),
        el("free", "true"),
    ]
    .concat();
    let input = section(&[invoke("f", &body)]);
    let ev = split_with(F, ParserConfig::new().tools(tools), &input);
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "f",
            json!({"zip": "01234", "n": 7, "tags": [1, "b"], "free": true})
        )]
    );
    // A string parameter streams as it arrives (before its close).
    let cut = input.find("1234").unwrap() + 4;
    let ev = events_before(F, &input, cut);
    assert_eq!(args_text(&ev, 0), "{\"zip\":\"01234");
}

#[test]
fn slips_are_errors_with_the_calls_bytes() {
    // Text mixed with child tags.
    let bad = invoke("f", &el("o", &format!("text {}", el("k", "1"))));
    let ev = split(F, &section(&[bad.clone(), invoke("g", &el("a", "1"))]));
    assert_eq!(calls(&ev), vec![call("call_1", "g", json!({"a": "1"}))]);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::InvalidArguments, Some(0), bad)]
    );
    // A repeated key in a nested object, a repeated parameter.
    for body in [
        el("o", &[el("k", "1"), el("k", "2")].concat()),
        [el("a", "1"), el("a", "2")].concat(),
    ] {
        let bad = invoke("f", &body);
        let ev = split(F, &section(std::slice::from_ref(&bad)));
        assert!(calls(&ev).is_empty(), "{ev:?}");
        assert_eq!(
            kinds(&ev),
            vec![(ErrorKind::InvalidArguments, Some(0), bad)]
        );
    }
    // A close tag of another element.
    let bad = format!("{NS}<invoke name=\"f\">{NS}<a>1{NS}</b>{NS}</invoke>");
    let ev = split(F, &section(std::slice::from_ref(&bad)));
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::InvalidArguments, Some(0), bad)]
    );
    // Missing closes: the call's close with elements still open is an error (issue
    // 33), the section goes on.
    let bad = format!("{NS}<invoke name=\"f\">{NS}<o>{NS}<k>1{NS}</invoke>");
    let input = section(&[bad.clone(), invoke("g", "")]);
    let ev = split(F, &input);
    assert_eq!(calls(&ev), vec![call("call_1", "g", json!({}))]);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::InvalidArguments, Some(0), bad)]
    );
    // A tag broken by the next call's section (`NS</c` then `NS<tool_call>`): the
    // string streamed so far is the broken call's at every chunking (it was dropped
    // when the break came in the same piece), the next call reads.
    let broken = format!("{NS}<invoke name=\"f\">{NS}<city>Paris{NS}</c");
    let input = format!(
        "{NS}<tool_call>\n{broken}{}",
        section(&[invoke("g", &el("a", "1"))])
    );
    let ev = split(F, &input);
    assert_eq!(calls(&ev), vec![call("call_1", "g", json!({"a": "1"}))]);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::InvalidArguments,
            Some(0),
            format!("{broken}{NS}<tool_call>\n")
        )]
    );
    let args: String = ev
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs { index: 0, delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(args, "{\"city\":\"Paris");
    // Cut off inside a nested value and inside a tag.
    for input in [
        format!("{NS}<tool_call>{NS}<invoke name=\"f\">{NS}<o>{NS}<k>1"),
        format!("{NS}<tool_call>{NS}<invoke name=\"f\">{NS}<o>{NS}</"),
    ] {
        let ev = split(F, &input);
        let raw = input.strip_prefix(&format!("{NS}<tool_call>")).unwrap();
        assert_eq!(
            kinds(&ev),
            vec![(ErrorKind::Truncated, Some(0), raw.to_owned())]
        );
    }
}

#[test]
fn reasoning_and_prose_with_the_namespace_token() {
    let input = format!(
        "<mm:think>Plan: call f.</mm:think>Here ] <] [>[ a]<]b{}",
        section(&[invoke("f", &el("a", "1"))])
    );
    let ev = split(F, &input);
    assert_eq!(reasoning(&ev), "Plan: call f.");
    assert_eq!(text(&ev), "Here ] <] [>[ a]<]b");
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"a": "1"}))]);
}

#[test]
fn leaves_without_a_schema_are_strings_as_the_peers_read_them() {
    // Issue 33: vLLM's and SGLang's M3 parsers type a leaf only by its schema; without
    // one it is its text. Objects, arrays, numbers and literals written as text stay
    // strings, at the top level and nested.
    let body = [
        el("o", "{\"x\": 1}"),
        el("l", "[1, 2]"),
        el("n", "42"),
        el("t", "true"),
        el("z", " null "),
        el("nested", &[el("k", "{\"y\": [3]}"), el("m", "7")].concat()),
        el("arr", &[el("item", "1"), el("item", "false")].concat()),
    ]
    .concat();
    let input = section(&[invoke("f", &body)]);
    let want = json!({"o": "{\"x\": 1}", "l": "[1, 2]", "n": "42", "t": "true", "z": " null ",
                      "nested": {"k": "{\"y\": [3]}", "m": "7"}, "arr": ["1", "false"]});
    let ev = split(F, &input);
    assert_eq!(calls(&ev), vec![call("call_0", "f", want.clone())]);
    // Tools declared, but not this one (allowed): the same.
    let tools = Tools::from_json(
        r#"[{"type":"function","function":{"name":"g","parameters":{"type":"object",
        "properties":{"n":{"type":"integer"}}}}}]"#,
    )
    .unwrap();
    let config = ParserConfig::new().tools(tools).reject_undeclared(false);
    let ev = split_with(F, config, &input);
    assert_eq!(calls(&ev), vec![call("call_0", "f", want)]);
}

#[test]
fn an_element_that_never_closes_is_an_error() {
    // Issue 33: `<broken>oops` ended by the call's close completed the call.
    let bad = format!("{NS}<invoke name=\"f\">\n{NS}<broken>oops\n{NS}</invoke>");
    let input = format!("a {}", section(&[bad.clone(), invoke("g", &el("q", "x"))]));
    let ev = split(F, &input);
    assert_eq!(calls(&ev), vec![call("call_1", "g", json!({"q": "x"}))]);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::InvalidArguments, Some(0), bad)]
    );
    assert_eq!(text(&ev), "a ");
    // Ended by the section's close.
    let bad = format!("{NS}<invoke name=\"f\">{NS}<broken>oops{NS}</tool_call>");
    let ev = split(F, &format!("{NS}<tool_call>{bad} b"));
    assert!(calls(&ev).is_empty(), "{ev:?}");
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::InvalidArguments, Some(0), bad)]
    );
    assert_eq!(text(&ev), " b");
}

#[test]
fn a_dropped_close_does_not_move_the_next_parameter_inside() {
    // Issue 33: with `</a>` dropped, `<b>` became an item of `a` (`{"a": [1, 2, 3]}`,
    // `b` gone). A child other than `item` in an array is an error, and so is the
    // call's close with `a` open.
    for body in [
        [el("item", "1"), el("item", "2"), el("b", "3")].concat(),
        [el("item", "1"), el("item", "2")].concat() + &el("b", "3") + NS + "</a>",
    ] {
        let bad = format!("{NS}<invoke name=\"f\">{NS}<a>{body}{NS}</invoke>");
        let ev = split(F, &section(std::slice::from_ref(&bad)));
        assert!(calls(&ev).is_empty(), "{ev:?}");
        assert_eq!(
            kinds(&ev),
            vec![(ErrorKind::InvalidArguments, Some(0), bad)]
        );
    }
}

/// `minimax-m3`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::MiniMaxM3,
        reasoning: Some(("<mm:think>", "</mm:think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "A]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">\n]<]minimax[>[<a>1]<]minimax[>[</a>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call> B",
                    vec![one(t("A")), call(0, "f", r#"{"a":"1"}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi ]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">\n]<]minimax[>[<a>1",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "]<]minimax[>[<invoke name=\"f\">\n]<]minimax[>[<a>1",
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi ]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">\n]<]minimax[>[<a\nb>1]<]minimax[>[</a>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "]<]minimax[>[<invoke name=\"f\">\n]<]minimax[>[<a\nb>1]<]minimax[>[</a>\n]<]minimax[>[</invoke>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal ]<]minimax[>[<tool_call> tag.",
                    vec![one(t("Use a literal ]<]minimax[>[<tool_call> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done]<]minimax[>[</tool_call> ok",
                    vec![one(t("done]<]minimax[>[</tool_call> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[<invoke name="g">]<]minimax[>[</invoke>]<]minimax[>[</tool_call>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"1""#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"]<]minimax[>[<invoke name="f">]<]minimax[>[<a>1]<]minimax[>[</a>"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[<a>2]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"1""#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"]<]minimax[>[<invoke name="f">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[<a>2]<]minimax[>[</a>]<]minimax[>[</invoke>"#,
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="get weather index=">]<]minimax[>[</invoke>]<]minimax[>[</tool_call>"#,
                    vec![one(err(
                        Bad,
                        None,
                        r#"]<]minimax[>[<invoke name="get weather index=">]<]minimax[>[</invoke>"#,
                    ))],
                ),
            ),
        ],
    }
}

/// `minimax-m3`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "minimax-m3",
            "a missing </invoke>",
            "]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[<invoke name=\"g\">]<]minimax[>[<a>2]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":"1""#),
                err(
                    Cut,
                    Some(0),
                    "]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>1]<]minimax[>[</a>"
                ),
                call(1, "g", r#"{"a":"2"}"#),
            ],
        ),
        fx!(
            "minimax-m3",
            "a repeated parameter",
            "]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[<a>2]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":"1""#),
                err(
                    Bad,
                    Some(0),
                    "]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[<a>2]<]minimax[>[</a>]<]minimax[>[</invoke>"
                ),
            ],
        ),
        fx!(
            "minimax-m3",
            "an opener inside a nested value is value text",
            "]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<a>x <invoke name=\"g\"> y]<]minimax[>[</a>]<]minimax[>[</invoke>]<]minimax[>[</tool_call>",
            [call(0, "f", r#"{"a":"x <invoke name=\"g\"> y"}"#)],
        ),
    ]
}
