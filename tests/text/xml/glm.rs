//! `glm`: Python literals without a schema, at every chunking.

use crate::common::*;
use crate::exact::{split, split_with};
use serde_json::json;
use toolstream::{Format, ParserConfig, Tools};

const F: Format = Format::Glm;

#[test]
fn python_literals_without_a_schema() {
    let input = "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>True</arg_value>\n<arg_key>b</arg_key>\n<arg_value> False </arg_value>\n<arg_key>c</arg_key>\n<arg_value>None</arg_value>\n<arg_key>d</arg_key>\n<arg_value>Truth</arg_value>\n<arg_key>e</arg_key>\n<arg_value>None of these</arg_value>\n<arg_key>g</arg_key>\n<arg_value>true</arg_value>\n</tool_call>";
    let ev = split(F, input);
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "f",
            json!({"a": true, "b": false, "c": null, "d": "Truth", "e": "None of these", "g": true})
        )]
    );
    // A string parameter of the schema stays the model's text.
    let tools = Tools::from_json(
        r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object",
        "properties":{"a":{"type":"string"}}}}}]"#,
    )
    .unwrap();
    let input = "<tool_call>f<arg_key>a</arg_key><arg_value>None</arg_value></tool_call>";
    let ev = split_with(F, ParserConfig::new().tools(tools), input);
    assert_eq!(calls(&ev), vec![call("call_0", "f", json!({"a": "None"}))]);
}

#[test]
fn a_call_close_inside_a_value_is_an_error_not_half_a_call() {
    // Issue 33 (HY v4's slip, the same body as GLM's): a value in `<arg_value>` ends
    // only at `</arg_value>`; a literal `</tool_call>` in it makes the call an error
    // carrying its bytes through its own close, and the next call counts.
    let bad = "<tool_call>f\n<arg_key>code</arg_key>\n<arg_value>x </tool_call> y</arg_value>\n<arg_key>n</arg_key>\n<arg_value>2</arg_value>\n</tool_call>";
    let input = format!("{bad}<tool_call>g\n</tool_call> ok");
    let ev = split(F, &input);
    assert_eq!(calls(&ev), vec![call("call_1", "g", json!({}))]);
    assert_eq!(
        kinds(&ev),
        vec![(toolstream::ErrorKind::InvalidArguments, Some(0), bad.into())]
    );
    assert_eq!(text(&ev), " ok");
}
