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
