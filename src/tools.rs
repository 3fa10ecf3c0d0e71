//! Declared tools: the `tools` array of the request, read once, so that scanners can type
//! parameter values from their JSON Schema and tell declared names from undeclared ones.
//!
//! Accepts the shapes clients send: OpenAI Chat (`{"type":"function","function":{"name",
//! "parameters"}}`), OpenAI Responses / flat (`{"type":"function","name","parameters"}`),
//! Anthropic (`{"name","input_schema"}`), or `{"name","parameters"}`; either as a bare
//! array or as an object holding it under `"tools"`.

use serde_json::Value;
use std::collections::HashMap;

/// How a parameter's value text becomes JSON in the XML-parameter syntaxes (`qwen-xml`,
/// `glm`, `minimax`, `seed-oss`, ...), decided from the parameter's JSON Schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueKind {
    /// No schema for this parameter: the documented schema-less rule (a JSON non-string
    /// when the whole trimmed value parses as one, else a string).
    Infer,
    /// The schema allows only `string`: the raw text is a JSON string, streamed as it
    /// arrives, never parsed (`"007"` stays `"007"`).
    String,
    /// The schema allows no `string` (`integer`, `number`, `boolean`, `null`, `object`,
    /// `array`): the value is JSON text; text that does not parse as JSON is kept as a
    /// string so nothing is lost.
    Json,
}

/// The tools a request declared, with each parameter's value kind (from its JSON Schema).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tools {
    /// Tool name → parameter name → kind.
    tools: HashMap<String, HashMap<String, ValueKind>>,
}

/// Why a `tools` document could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolsError(String);

impl std::fmt::Display for ToolsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolsError {}

impl Tools {
    /// Reads a `tools` array (OpenAI Chat / Responses, Anthropic or `{"name",
    /// "parameters"}` entries), or an object with a `"tools"` array (a whole request body).
    ///
    /// ```
    /// let tools = toolstream::Tools::from_json(r#"[{"type":"function","function":{
    ///     "name":"get_weather","parameters":{"type":"object","properties":{
    ///     "city":{"type":"string"},"days":{"type":"integer"}}}}}]"#).unwrap();
    /// assert!(tools.is_declared("get_weather"));
    /// assert!(!tools.is_declared("rm_rf"));
    /// ```
    pub fn from_json(text: &str) -> Result<Self, ToolsError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| ToolsError(format!("tools: {e}")))?;
        Self::from_value(&value)
    }

    /// [`Tools::from_json`] for an already parsed value.
    pub fn from_value(value: &Value) -> Result<Self, ToolsError> {
        let list = match value {
            Value::Array(list) => list,
            Value::Object(o) => match o.get("tools") {
                Some(Value::Array(list)) => list,
                _ => return Err(ToolsError("tools: expected an array of tools".into())),
            },
            _ => return Err(ToolsError("tools: expected an array of tools".into())),
        };
        let mut tools = HashMap::new();
        for (i, entry) in list.iter().enumerate() {
            let f = entry.get("function").unwrap_or(entry);
            let Some(name) = f.get("name").and_then(Value::as_str) else {
                return Err(ToolsError(format!("tools[{i}]: no \"name\"")));
            };
            let schema = f
                .get("parameters")
                .or_else(|| f.get("input_schema"))
                .or_else(|| f.get("parametersJsonSchema"));
            let mut params = HashMap::new();
            if let Some(props) = schema
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
            {
                for (key, prop) in props {
                    params.insert(key.clone(), value_kind(prop));
                }
            }
            tools.insert(name.to_owned(), params);
        }
        Ok(Tools { tools })
    }

    /// Whether a tool of this name was declared.
    pub fn is_declared(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// The declared tool names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// How a value of `tool`'s parameter `param` becomes JSON ([`ValueKind::Infer`] when
    /// the tool or parameter is not declared).
    pub(crate) fn value_kind(&self, tool: &str, param: &str) -> ValueKind {
        self.tools
            .get(tool)
            .and_then(|p| p.get(param))
            .copied()
            .unwrap_or(ValueKind::Infer)
    }
}

/// The kind of a property schema: the set of JSON types it allows (`type` as a string or
/// an array, `nullable`, `anyOf` / `oneOf`, `enum` / `const` values).
fn value_kind(schema: &Value) -> ValueKind {
    let mut string = false;
    let mut other = false;
    collect_types(schema, &mut string, &mut other, 0);
    match (string, other) {
        (true, false) => ValueKind::String,
        (false, true) => ValueKind::Json,
        _ => ValueKind::Infer,
    }
}

fn collect_types(schema: &Value, string: &mut bool, other: &mut bool, depth: usize) {
    if depth > 16 {
        return;
    }
    let mut note = |t: &str| {
        if t == "string" {
            *string = true;
        } else {
            *other = true;
        }
    };
    match schema.get("type") {
        Some(Value::String(t)) => note(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).for_each(&mut note),
        _ => {}
    }
    if schema.get("nullable").and_then(Value::as_bool) == Some(true) {
        *other = true;
    }
    for values in ["enum"].iter().filter_map(|k| schema.get(*k)) {
        for v in values.as_array().into_iter().flatten() {
            if v.is_string() {
                *string = true;
            } else {
                *other = true;
            }
        }
    }
    if let Some(v) = schema.get("const") {
        if v.is_string() {
            *string = true;
        } else {
            *other = true;
        }
    }
    for key in ["anyOf", "oneOf"] {
        for s in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect_types(s, string, other, depth + 1);
        }
    }
    // Implied types when `type` is absent.
    if schema.get("type").is_none() {
        if schema.get("properties").is_some() {
            *other = true;
        }
        if schema.get("items").is_some() {
            *other = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_schemas() {
        let tools = Tools::from_json(
            r#"{"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{
                "s":{"type":"string"},
                "n":{"type":"integer"},
                "o":{"type":"object"},
                "sn":{"type":["string","null"]},
                "nullable_int":{"type":"integer","nullable":true},
                "any":{"anyOf":[{"type":"string"},{"type":"number"}]},
                "anyn":{"anyOf":[{"type":"number"},{"type":"null"}]},
                "e":{"enum":["a","b"]},
                "free":{}
            }}}},
            {"name":"anthropic_style","input_schema":{"type":"object","properties":{"b":{"type":"boolean"}}}}]}"#,
        )
        .unwrap();
        assert_eq!(tools.value_kind("f", "s"), ValueKind::String);
        assert_eq!(tools.value_kind("f", "n"), ValueKind::Json);
        assert_eq!(tools.value_kind("f", "o"), ValueKind::Json);
        assert_eq!(tools.value_kind("f", "sn"), ValueKind::Infer);
        assert_eq!(tools.value_kind("f", "nullable_int"), ValueKind::Json);
        assert_eq!(tools.value_kind("f", "any"), ValueKind::Infer);
        assert_eq!(tools.value_kind("f", "anyn"), ValueKind::Json);
        assert_eq!(tools.value_kind("f", "e"), ValueKind::String);
        assert_eq!(tools.value_kind("f", "free"), ValueKind::Infer);
        assert_eq!(tools.value_kind("f", "missing"), ValueKind::Infer);
        assert_eq!(tools.value_kind("nope", "s"), ValueKind::Infer);
        assert_eq!(tools.value_kind("anthropic_style", "b"), ValueKind::Json);
        assert!(tools.is_declared("anthropic_style"));
        assert!(Tools::from_json("3").is_err());
        assert!(Tools::from_json(r#"[{"type":"function"}]"#).is_err());
    }
}
