//! `qwen-xml`: own fixtures at every chunking and the raw-text captures.

use crate::common::*;
use crate::exact::split;
use serde_json::json;
use toolstream::{ErrorKind, Format, Parser, ParserConfig};

#[test]
fn qwen_xml_typed_parameters_several_calls() {
    let input = "Sure — 😀\n<tool_call>\n<function=get_wéather>\n<parameter=city>\nZürich\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=opts>\n{\"unit\": \"c\", \"x\": [1, null]}\n</parameter>\n<parameter=flag>\ntrue\n</parameter>\n<parameter=note>\ntrue story\n</parameter>\n<parameter=neg>\n-1.5e3\n</parameter>\n<parameter=when>\n2025-01-02\n</parameter>\n<parameter=q>\n\"quoted\" a\\b\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=now>\n</function>\n</tool_call> ok";
    let ev = split(Format::QwenXml, input);
    assert_eq!(text(&ev), "Sure — 😀\n\n ok");
    assert_eq!(
        calls(&ev),
        vec![
            call(
                "call_0",
                "get_wéather",
                json!({"city": "Zürich", "days": 3, "opts": {"unit": "c", "x": [1, null]}, "flag": true,
                       "note": "true story", "neg": -1.5e3, "when": "2025-01-02", "q": "\"quoted\" a\\b"})
            ),
            call("call_1", "now", json!({})),
        ]
    );
    assert_start_at(Format::QwenXml, input, "<function=get_wéather>");
}

#[test]
fn qwen_xml_strings_stream_as_they_arrive() {
    let input = "<tool_call>\n<function=write>\n<parameter=content>\nline one\nline two\n</parameter>\n</function>\n</tool_call>";
    let cut = input.find("line two").unwrap();
    let ev = events_before(Format::QwenXml, input, cut);
    // The newline before the cut may be the value's last one: held.
    assert_eq!(args_text(&ev, 0), "{\"content\":\"line one");
    let ev = split(Format::QwenXml, input);
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "write",
            json!({"content": "line one\nline two"})
        )]
    );
    // Only one leading and one trailing newline are stripped.
    let ev = split(
        Format::QwenXml,
        "<function=w><parameter=c>\n\n x \n\n</parameter></function>",
    );
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "w", json!({"c": "\n x \n"}))]
    );
    // An empty value is the empty string.
    let ev = split(
        Format::QwenXml,
        "<function=w><parameter=c>\n</parameter></function>",
    );
    assert_eq!(calls(&ev), vec![call("call_0", "w", json!({"c": ""}))]);
}

#[test]
fn qwen_xml_lenient_closing_tags() {
    // Missing </parameter>, missing </function>.
    let input =
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\nx <y> z\n</tool_call>after";
    let ev = split(Format::QwenXml, input);
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "f", json!({"a": 1, "b": "x <y> z"}))]
    );
    assert_eq!(text(&ev), "after");
    // No <tool_call> wrapper and no </tool_call>.
    let ev = split(
        Format::QwenXml,
        "a <function=f><parameter=n>7</parameter></function> b",
    );
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"n": 7}))]);
    assert_eq!(text(&ev), "a  b");
}

#[test]
fn qwen_xml_malformed_and_truncated() {
    let input = "x<tool_call>\n<function=bad\nname>\n</function>\n</tool_call>y";
    let ev = split(Format::QwenXml, input);
    assert_eq!(
        kinds(&ev),
        vec![(
            ErrorKind::InvalidArguments,
            None,
            input[1..input.len() - 1].into()
        )]
    );
    assert_eq!(text(&ev), "xy");
    let input = "x<tool_call>\n<function=f>\n<parameter=a>\nhalf";
    let ev = split(Format::QwenXml, input);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::Truncated, Some(0), input[1..].into())]
    );
    // A bare opener at the end: cut off before its call, its bytes in the error.
    let ev = split(Format::QwenXml, "<tool_call>\n");
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::Truncated, None, "<tool_call>\n".into())]
    );
    // Stray text inside a function is reported, the call still completes.
    let ev = split(
        Format::QwenXml,
        "<function=f>oops<parameter=a>1</parameter></function>",
    );
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"a": 1}))]);
    assert_eq!(
        kinds(&ev),
        vec![(ErrorKind::UnexpectedPayload, None, "oops".into())]
    );
}

#[test]
fn qwen_xml_raw_text_captures() {
    let caps = captures("qwen-xml");
    if captures_dir().is_none() {
        return;
    }
    assert!(!caps.is_empty());
    for cap in caps {
        let make = maker("qwen-xml", cap.framing);
        let ev = assert_split_invariant(&make, &cap.bytes, 30);
        let src = String::from_utf8_lossy(&cap.bytes);
        assert!(errors(&ev).is_empty(), "{}: {ev:?}", cap.path);
        assert_eq!(
            calls(&ev).len(),
            src.matches("<function=").count(),
            "{}",
            cap.path
        );
        if cap.path.contains("think-close-then-xml") {
            assert_eq!(
                calls(&ev),
                vec![call(
                    "call_0",
                    "web_search",
                    json!({"query": "Python 3.14 new features changes enhancements 2025"})
                )]
            );
            assert!(text(&ev).starts_with("The user is asking"));
            // With the output starting inside reasoning, that text is reasoning.
            let f = cap.framing;
            let make = move || {
                Parser::with_config(
                    Format::QwenXml,
                    ParserConfig::new().framing(f).reasoning_open(true),
                )
            };
            let ev = assert_split_invariant(&make, &cap.bytes, 10);
            assert!(
                reasoning(&ev).starts_with("The user is asking")
                    && reasoning(&ev).ends_with("answer.")
            );
            assert_eq!(text(&ev), "");
            assert_eq!(calls(&ev).len(), 1);
        }
    }
}

/// `qwen-xml`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    universal_in(
        Format::QwenXml,
        "<tool_call>",
        "</tool_call>",
        ("<think>", "</think>"),
    )
}

/// The answers to the universal cases of a syntax of `qwen-xml`'s calls in the section
/// `open` .. `close` (`qwen-xml`, `seed-oss`, `zaya1`), with `reasoning` its pair.
pub(crate) fn universal_in(
    format: Format,
    open: &str,
    close: &str,
    reasoning: (&'static str, &'static str),
) -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, sample};
    use ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    let open_call = format!("{open}\n<function=");
    let close_call = format!("</function>\n{close}");
    let (o, c) = (open_call.as_str(), close_call.as_str());
    crate::universal::Universal {
        format,
        reasoning: Some(reasoning),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    format!("Hi {o}f>\n<parameter=a>\n1\n</parameter>\n{c} bye"),
                    vec![one(t("Hi ")), call(0, "f", r#"{"a":1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    format!("{o}f>\n<parameter=a>\nx"),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"x"#)),
                        one(err(Cut, Some(0), &format!("{o}f>\n<parameter=a>\nx"))),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    format!("{o}f>\n<parameter=a\n1\n</parameter>\n{c} ok"),
                    vec![
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            &format!("{o}f>\n<parameter=a\n1\n</parameter>\n{c}"),
                        )),
                        one(t(" ok")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    format!("Use a literal {open} tag."),
                    vec![one(t(&format!("Use a literal {open} tag.")))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    format!("done{close} ok"),
                    vec![one(t(&format!("done{close} ok")))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    format!("{o}f>\n<parameter=a>\n1\n</parameter>\n{o}g>\n{c}"),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            &format!("{o}f>\n<parameter=a>\n1\n</parameter>\n"),
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    format!(
                        "{o}f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n{c}"
                    ),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            &format!(
                                "{o}f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n{c}"
                            ),
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    format!("{o}get weather\" x>\n{c}"),
                    vec![one(err(Bad, None, &format!("{o}get weather\" x>\n{c}")))],
                ),
            ),
        ],
    }
}

/// `qwen-xml`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "qwen-xml",
            "a missing </function>: <function= after a parameter",
            "<tool_call><function=f><parameter=a>1</parameter><function=g><parameter=a>2</parameter></function></tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    "<tool_call><function=f><parameter=a>1</parameter>"
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
        fx!(
            "qwen-xml",
            "a missing </function>: <tool_call> after a parameter",
            "<tool_call><function=f><parameter=a>1</parameter><tool_call><function=g><parameter=a>2</parameter></function></tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    "<tool_call><function=f><parameter=a>1</parameter>"
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
        fx!(
            "qwen-xml",
            "a missing </parameter>: <function= in a value is content, the repeated parameter an error",
            "<tool_call><function=f><parameter=a>1<function=g><parameter=a>2</parameter></function></tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":"1<function=g>""#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call><function=f><parameter=a>1<function=g><parameter=a>2</parameter></function></tool_call>"
                ),
            ],
        ),
        fx!(
            "qwen-xml",
            "a repeated parameter",
            "<tool_call><function=f><parameter=a>1</parameter><parameter=a>2</parameter></function></tool_call>",
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Bad,
                    Some(0),
                    "<tool_call><function=f><parameter=a>1</parameter><parameter=a>2</parameter></function></tool_call>"
                ),
            ],
        ),
        fx!(
            "qwen-xml",
            "a literal <tool_call> in prose",
            PROSE,
            [t(PROSE)],
        ),
        fx!(
            "qwen-xml",
            "whitespace before a marker is text",
            "A \n<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
            [t("A \n"), call(0, "f", r#"{"a":1}"#)],
        ),
    ]
}

/// `qwen-xml`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::QwenXml;
    Edges {
        broken: vec![
            b(
                QwenXml,
                "cut",
                ("Hi ", "", "<tool_call>\n<function=f>\n<parameter=a>\n1", ""),
                Cut,
                0,
                "Hi ",
            ),
            b(
                QwenXml,
                "corrupt",
                (
                    "Hi ",
                    "",
                    "<tool_call>\n<function=f>\n<parameter=a\nb>1</parameter>\n</function>\n</tool_call>",
                    " after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
        ],
        markers: vec![
            (
                QwenXml,
                "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
                "A",
                " B",
                "A B",
            ),
            (
                QwenXml,
                "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>",
                "A",
                " B",
                "A B",
            ),
        ],
    }
}

/// `qwen-xml`'s rows of the XML fixture table (`xml/tables.rs`, which runs them with the
/// family's, typed with and without the schema where a row says so).
pub(crate) fn table() -> Vec<crate::xml::tables::Fx> {
    use crate::xml::tables::fx;
    use serde_json::json;
    use toolstream::Format;
    vec![
        fx(
            "qwen-xml: a Json-kind value that is not JSON stays a string",
            Format::QwenXml,
            "<tool_call><function=f><parameter=n>about 3</parameter><parameter=b>Nope</parameter><parameter=o>{\"a\": </parameter></function></tool_call>",
        )
        .typed()
        .call("f", json!({"n": "about 3", "b": "Nope", "o": "{\"a\": "})),
    ]
}
