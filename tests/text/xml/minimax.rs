//! `minimax`: XML character references in MiniMax M2 values, decoded at every chunking
//! (a reference cut at any byte is held until it is complete or cannot be one).

use crate::common::*;
use crate::exact::{split, split_with};
use serde_json::json;
use toolstream::{Format, ParserConfig, Tools};

const F: Format = Format::MiniMax;

fn one(value: &str) -> String {
    format!(
        "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"v\">{value}</parameter>\n</invoke>\n</minimax:tool_call>"
    )
}

#[test]
fn character_references_in_values_are_decoded() {
    for (value, want) in [
        (
            "a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;",
            json!("a <b> & \"c\" 'd'"),
        ),
        ("&#60;tag&#x3E; &#X1F600;", json!("<tag> 😀")),
        // Not references: text as it is.
        (
            "AT&T & co; &bogus; &#xZZ; &",
            json!("AT&T & co; &bogus; &#xZZ; &"),
        ),
        ("x &amp", json!("x &amp")),
        // A reference is decoded once: `&amp;lt;` is the text `&lt;`.
        ("&amp;lt;", json!("&lt;")),
        // Decoded before the value is typed: a number, an object.
        ("&#49;2", json!(12)),
        (
            "{&quot;a&quot;: [1, &quot;&lt;&quot;]}",
            json!({"a": [1, "<"]}),
        ),
        ("", json!("")),
    ] {
        let ev = split(F, &one(value));
        assert_eq!(
            calls(&ev),
            vec![call("call_0", "f", json!({ "v": want }))],
            "{value}"
        );
    }
}

#[test]
fn a_string_value_streams_with_references_decoded() {
    let tools = Tools::from_json(
        r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object",
        "properties":{"v":{"type":"string"}}}}}]"#,
    )
    .unwrap();
    let input = one("if a &lt; b &amp;&amp; c &gt; 0 {}");
    let ev = split_with(F, ParserConfig::new().tools(tools), &input);
    assert_eq!(
        calls(&ev),
        vec![call("call_0", "f", json!({"v": "if a < b && c > 0 {}"}))]
    );
    // The raw text of a failed call keeps the model's bytes (references undecoded).
    let cut = "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"v\">a &lt; b";
    let ev = split(F, cut);
    assert_eq!(
        kinds(&ev),
        vec![(
            toolstream::ErrorKind::Truncated,
            Some(0),
            "<invoke name=\"f\">\n<parameter name=\"v\">a &lt; b".into()
        )]
    );
}

#[test]
fn a_damaged_name_quote_is_an_error_not_a_junk_name() {
    // Issue 33: `name="get_weather index="1"` (the name's closing quote lost) made a
    // call named `get_weather index=`. A quoted name with whitespace or markup in it is
    // no name: the call is an error with its bytes; the next call counts.
    let bad =
        "<invoke name=\"get_weather index=\"1\"><parameter name=\"city\">P</parameter></invoke>";
    let input =
        format!("<minimax:tool_call>{bad}<invoke name=\"g\"></invoke></minimax:tool_call> ok");
    let ev = split(Format::MiniMax, &input);
    assert_eq!(calls(&ev), vec![call("call_0", "g", json!({}))]);
    assert_eq!(
        kinds(&ev),
        vec![(toolstream::ErrorKind::InvalidArguments, None, bad.into())]
    );
    assert_eq!(text(&ev), " ok");
}

/// `minimax`'s answers to the universal cases.
pub(crate) fn universal() -> crate::universal::Universal {
    use crate::exact::{args, call, err, one, start, t};
    use crate::universal::{Case, Universal, sample};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    Universal {
        format: toolstream::Format::MiniMax,
        reasoning: Some(("<think>", "</think>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    "A<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call> B",
                    vec![one(t("A")), call(0, "f", r#"{"a":1}"#), one(t(" B"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    "Hi <minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<invoke name=\"f\">\n<parameter name=\"a\">1",
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    "Hi <minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\nb\">1</parameter>\n</invoke>\n</minimax:tool_call> after",
                    vec![
                        one(t("Hi ")),
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "<invoke name=\"f\">\n<parameter name=\"a\nb\">1</parameter>\n</invoke>",
                        )),
                        one(t(" after")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <minimax:tool_call> tag.",
                    vec![one(t("Use a literal <minimax:tool_call> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done</minimax:tool_call> ok",
                    vec![one(t("done</minimax:tool_call> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    r#"<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter><invoke name="g"></invoke></minimax:tool_call>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            r#"<invoke name="f"><parameter name="a">1</parameter>"#,
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    r#"<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter><parameter name="a">2</parameter></invoke></minimax:tool_call>"#,
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            r#"<invoke name="f"><parameter name="a">1</parameter><parameter name="a">2</parameter></invoke>"#,
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    r#"<minimax:tool_call><invoke name="get weather index="></invoke></minimax:tool_call>"#,
                    vec![one(err(
                        Bad,
                        None,
                        r#"<invoke name="get weather index="></invoke>"#,
                    ))],
                ),
            ),
        ],
    }
}

/// `minimax`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![
        fx!(
            "minimax",
            "a missing </invoke>",
            r#"<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter><invoke name="g"><parameter name="a">2</parameter></invoke></minimax:tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Cut,
                    Some(0),
                    r#"<invoke name="f"><parameter name="a">1</parameter>"#
                ),
                call(1, "g", r#"{"a":2}"#),
            ],
        ),
        fx!(
            "minimax",
            "a repeated parameter",
            r#"<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter><parameter name="a">2</parameter></invoke></minimax:tool_call>"#,
            [
                start(0, "f"),
                args(0, r#"{"a":1"#),
                err(
                    Bad,
                    Some(0),
                    r#"<invoke name="f"><parameter name="a">1</parameter><parameter name="a">2</parameter></invoke>"#
                ),
            ],
        ),
        fx!(
            "minimax",
            "whitespace before a marker is text",
            "A \n<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call>",
            [t("A \n"), call(0, "f", r#"{"a":1}"#)],
        ),
    ]
}

/// `minimax`'s rows of the XML fixture table (`xml/tables.rs`, which runs them with the
/// family's, typed with and without the schema where a row says so).
pub(crate) fn table() -> Vec<crate::xml::tables::Fx> {
    use crate::xml::tables::fx;
    use serde_json::json;
    use toolstream::ErrorKind;
    use toolstream::Format;
    vec![
        fx(
            "minimax two invokes in one section, text around",
            Format::MiniMax,
            "<think>need both</think>\n\nOn it.\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">東京</parameter>\n<parameter name=\"days\">2</parameter>\n</invoke>\n<invoke name=\"get_time\">\n<parameter name=\"city\">Asia/Tokyo</parameter>\n</invoke>\n</minimax:tool_call>\nThat's all.[e~[",
        )
        .reasoning("need both")
        .text("On it.\n\nThat's all.")
        .call("get_weather", json!({"city": "東京", "days": 2}))
        .call("get_time", json!({"city": "Asia/Tokyo"})),
        fx(
            "minimax escaped, nested and tag-like values, empty invoke",
            Format::MiniMax,
            "<minimax:tool_call><invoke name=\"run\"><parameter name=\"cmd\">echo \"<p>\" | grep '</param' \\n</parameter><parameter name=\"env\">{\"A\": {\"B\": [1.5e3]}}</parameter></invoke><invoke name=\"noop\"></invoke></minimax:tool_call>",
        )
        .call(
            "run",
            json!({"cmd": "echo \"<p>\" | grep '</param' \\n", "env": {"A": {"B": [1.5e3]}}}),
        )
        .call("noop", json!({})),
        fx(
            "minimax malformed invoke, the next one in the section still a call",
            Format::MiniMax,
            "<minimax:tool_call>\n<invoke name=bad>\n<parameter name=\"a\">1</parameter>\n</invoke>\n<invoke name=\"good\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call>",
        )
        .error(
            ErrorKind::InvalidArguments,
            None,
            "<minimax:tool_call>\n<invoke name=bad>\n<parameter name=\"a\">1</parameter>\n</invoke>",
        )
        .call("good", json!({"a": 1})),
        fx(
            "minimax truncated in the second invoke",
            Format::MiniMax,
            "<minimax:tool_call>\n<invoke name=\"a\">\n</invoke>\n<invoke name=\"b\">\n<parameter name=\"q\">hal",
        )
        .call("a", json!({}))
        .error(
            ErrorKind::Truncated,
            Some(1),
            "<invoke name=\"b\">\n<parameter name=\"q\">hal",
        ),
        fx(
            "minimax missing section close: text after is text",
            Format::MiniMax,
            "<minimax:tool_call>\n<invoke name=\"a\">\n</invoke>\nthen more",
        )
        .call("a", json!({}))
        .text("then more"),
    ]
}
