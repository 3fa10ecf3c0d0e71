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
