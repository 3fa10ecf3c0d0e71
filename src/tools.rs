//! Declared tools: the `tools` array of the request, read once, so that scanners can type
//! parameter values from their JSON Schema and tell declared names from undeclared ones.
//!
//! Accepts the shapes clients send: OpenAI Chat (`{"type":"function","function":{"name",
//! "parameters"}}`), OpenAI Responses / flat (`{"type":"function","name","parameters"}`),
//! Anthropic (`{"name","input_schema"}`), or `{"name","parameters"}`; either as a bare
//! array or as an object holding it under `"tools"`.

use crate::check::schema::Compiled;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// The largest `tools` document [`Tools::from_json`] (and the CLI's `--tools`) reads:
/// 16 MiB, far above any real request's tools (OpenAI takes at most 128 tools).
pub const MAX_TOOLS_BYTES: usize = 16 << 20;

/// The most names a `tools` document may declare, tools and their parameters together
/// (what [`Tools`] keeps in memory): 100,000.
pub const MAX_TOOLS_NAMES: usize = 100_000;

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

/// The tools a request declared: their names, and how each parameter's value becomes JSON
/// (from its JSON Schema) in the XML-parameter syntaxes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tools {
    /// Tool name → parameter name → kind.
    tools: HashMap<String, HashMap<String, ValueKind>>,
    /// Tool name → its parameter schema, compiled for validation (tools with a schema).
    schemas: HashMap<String, ToolSchema>,
}

/// A tool's parameter schema as declared, and compiled once for streaming validation
/// (shared by every parser: [`Arc`]).
#[derive(Debug, Clone)]
struct ToolSchema {
    value: Value,
    compiled: Arc<Compiled>,
}

impl PartialEq for ToolSchema {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl Eq for ToolSchema {}

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
    /// Bounded: a text longer than [`MAX_TOOLS_BYTES`] or declaring more than
    /// [`MAX_TOOLS_NAMES`] tools and parameters is an error, and the text is read
    /// without building a JSON value of it (only the names and the parameters' kinds are
    /// kept). Two tools of the same name are an error.
    ///
    /// ```
    /// let tools = toolstream::Tools::from_json(r#"[{"type":"function","function":{
    ///     "name":"get_weather","parameters":{"type":"object","properties":{
    ///     "city":{"type":"string"},"days":{"type":"integer"}}}}}]"#).unwrap();
    /// assert!(tools.is_declared("get_weather"));
    /// assert!(!tools.is_declared("rm_rf"));
    /// assert!(toolstream::Tools::from_json(r#"[{"name":"a"},{"name":"a"}]"#).is_err());
    /// ```
    pub fn from_json(text: &str) -> Result<Self, ToolsError> {
        if text.len() > MAX_TOOLS_BYTES {
            return Err(ToolsError(format!(
                "tools: the document is {} bytes, over the limit of {MAX_TOOLS_BYTES} bytes (16 MiB)",
                text.len()
            )));
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let list = de
            .deserialize_any(DocVisitor)
            .and_then(|list| de.end().map(|()| list))
            .map_err(|e| ToolsError(format!("tools: {e}")))?;
        Self::from_entries(list)
    }

    /// [`Tools::from_json`] for an already parsed value.
    pub fn from_value(value: &Value) -> Result<Self, ToolsError> {
        let list = DocVisitor
            .deserialize(value)
            .map_err(|e| ToolsError(format!("tools: {e}")))?;
        Self::from_entries(list)
    }

    /// The tools of the entries read, checked: each has a name, no name twice.
    fn from_entries(list: Vec<Entry>) -> Result<Self, ToolsError> {
        let mut tools: HashMap<String, HashMap<String, ValueKind>> = HashMap::new();
        let mut schemas = HashMap::new();
        let mut first: HashMap<String, usize> = HashMap::new();
        for (i, entry) in list.into_iter().enumerate() {
            let entry = match entry.function {
                Some(f) => *f,
                None => entry,
            };
            let Some(name) = entry.name else {
                return Err(ToolsError(format!("tools[{i}]: no \"name\"")));
            };
            if let Some(j) = first.get(&name) {
                return Err(ToolsError(format!(
                    "tools[{i}]: the name {name:?} is declared twice (also tools[{j}])"
                )));
            }
            first.insert(name.clone(), i);
            let params = entry.schema.map(|s| s.params).unwrap_or_default();
            if let Some(value) = entry.raw_schema {
                let compiled = Arc::new(Compiled::new(&value));
                schemas.insert(name.clone(), ToolSchema { value, compiled });
            }
            tools.insert(name, params);
        }
        Ok(Tools { tools, schemas })
    }

    /// Whether a tool of this name was declared.
    pub fn is_declared(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// The declared tool names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// `tool`'s compiled parameter schema, if it declared one.
    pub(crate) fn schema(&self, tool: &str) -> Option<Arc<Compiled>> {
        self.schemas.get(tool).map(|s| Arc::clone(&s.compiled))
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
/// an array, `nullable`, `anyOf` / `oneOf`, `enum` / `const` values); `anyOf` / `oneOf`
/// followed 16 levels deep.
fn value_kind(types: Types) -> ValueKind {
    match (types.string, types.other) {
        (true, false) => ValueKind::String,
        (false, true) => ValueKind::Json,
        _ => ValueKind::Infer,
    }
}

// The `tools` document is read with serde visitors that keep only what `Tools` needs (no
// `serde_json::Value` of the whole text, whose memory is many times the text's). Each
// follows the rules of a `Value` lookup: a key given twice counts once, with its last
// value; a value of an unexpected type counts as absent.

/// A value of any type, consumed, classified (`as_str`, `as_bool`).
enum Shape {
    Str(String),
    Bool(bool),
    Other,
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Shape, E> {
        Ok(Shape::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Shape, E> {
        Ok(Shape::Str(v))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Shape, E> {
        Ok(Shape::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::Other)
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<Shape, E> {
        Ok(Shape::Other)
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<Shape, E> {
        Ok(Shape::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Shape, E> {
        Ok(Shape::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Shape, E> {
        Ok(Shape::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Shape::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Shape::Other)
    }
}

impl<'de> DeserializeSeed<'de> for ShapeVisitor {
    type Value = Shape;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        d.deserialize_any(self)
    }
}

/// The scalar `visit_*` methods of a visitor for which a non-object (or non-array) value
/// counts as absent: each gives `$empty`.
macro_rules! scalars_are {
    ($t:ty, $empty:expr) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<$t, E> {
            Ok($empty)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$t, E> {
            Ok($empty)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$t, E> {
            Ok($empty)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$t, E> {
            Ok($empty)
        }
        fn visit_i128<E: de::Error>(self, _: i128) -> Result<$t, E> {
            Ok($empty)
        }
        fn visit_u128<E: de::Error>(self, _: u128) -> Result<$t, E> {
            Ok($empty)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$t, E> {
            Ok($empty)
        }
        fn visit_unit<E: de::Error>(self) -> Result<$t, E> {
            Ok($empty)
        }
    };
}

/// The whole document: an array of tools, or an object with one under `"tools"`.
struct DocVisitor;

impl<'de> Visitor<'de> for DocVisitor {
    type Value = Vec<Entry>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of tools")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Entry>, A::Error> {
        let mut list = Vec::new();
        let mut names = 0usize;
        while let Some(entry) = seq.next_element_seed(EntryVisitor { nested: false })? {
            names = names.saturating_add(1).saturating_add(entry.names());
            if names > MAX_TOOLS_NAMES {
                return Err(de::Error::custom(format_args!(
                    "more than {MAX_TOOLS_NAMES} tools and parameters (the limit)"
                )));
            }
            list.push(entry);
        }
        Ok(list)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Entry>, A::Error> {
        let mut list = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "tools" {
                list = Some(map.next_value_seed(ToolsArray)?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        list.flatten()
            .ok_or_else(|| de::Error::custom("expected an array of tools"))
    }
}

impl<'de> DeserializeSeed<'de> for DocVisitor {
    type Value = Vec<Entry>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Entry>, D::Error> {
        d.deserialize_any(self)
    }
}

/// The value of a request's `"tools"`: the array, or `None` for anything else.
struct ToolsArray;

impl<'de> Visitor<'de> for ToolsArray {
    type Value = Option<Vec<Entry>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of tools")
    }
    scalars_are!(Option<Vec<Entry>>, None);
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        DocVisitor.visit_seq(seq).map(Some)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

impl<'de> DeserializeSeed<'de> for ToolsArray {
    type Value = Option<Vec<Entry>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// One entry of the array: its name and schema, or those of its `"function"`.
#[derive(Default)]
struct Entry {
    /// `"function"` (OpenAI Chat), when present: the entry that counts.
    function: Option<Box<Entry>>,
    /// `"name"`, when a string.
    name: Option<String>,
    /// The first present of `"parameters"`, `"input_schema"`, `"parametersJsonSchema"`.
    schema: Option<Schema>,
    /// The same schema, as declared.
    raw_schema: Option<Value>,
}

impl Entry {
    /// The parameter names it declares.
    fn names(&self) -> usize {
        let schema = |e: &Entry| e.schema.as_ref().map_or(0, |s| s.params.len());
        schema(self) + self.function.as_deref().map_or(0, schema)
    }
}

/// Reads an [`Entry`]; `nested`: inside `"function"` (whose own `"function"` is ignored).
struct EntryVisitor {
    nested: bool,
}

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tool")
    }
    scalars_are!(Entry, Entry::default());
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Entry::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        let mut entry = Entry::default();
        // The schemas under each of the three keys, by precedence.
        let mut schemas: [Option<(Schema, Value)>; 3] = [None, None, None];
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "function" if !self.nested => {
                    entry.function = Some(Box::new(
                        map.next_value_seed(EntryVisitor { nested: true })?,
                    ));
                }
                "name" => {
                    entry.name = match map.next_value_seed(ShapeVisitor)? {
                        Shape::Str(s) => Some(s),
                        _ => None,
                    };
                }
                "parameters" | "input_schema" | "parametersJsonSchema" => {
                    let at = match &*key {
                        "parameters" => 0,
                        "input_schema" => 1,
                        _ => 2,
                    };
                    let value: Value = map.next_value()?;
                    let schema = SchemaVisitor
                        .deserialize(&value)
                        .map_err(de::Error::custom)?;
                    if let Some(slot) = schemas.get_mut(at) {
                        *slot = Some((schema, value));
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if let Some((schema, value)) = schemas.into_iter().flatten().next() {
            entry.schema = Some(schema);
            entry.raw_schema = Some(value);
        }
        Ok(entry)
    }
}

impl<'de> DeserializeSeed<'de> for EntryVisitor {
    type Value = Entry;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Entry, D::Error> {
        d.deserialize_any(self)
    }
}

/// A tool's parameter schema: the kinds of its `"properties"`.
#[derive(Default)]
struct Schema {
    params: HashMap<String, ValueKind>,
}

struct SchemaVisitor;

impl<'de> Visitor<'de> for SchemaVisitor {
    type Value = Schema;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON Schema")
    }
    scalars_are!(Schema, Schema::default());
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Schema, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Schema::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Schema, A::Error> {
        let mut schema = Schema::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "properties" {
                schema.params = map.next_value_seed(PropertiesVisitor)?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(schema)
    }
}

impl<'de> DeserializeSeed<'de> for SchemaVisitor {
    type Value = Schema;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Schema, D::Error> {
        d.deserialize_any(self)
    }
}

/// `"properties"`: parameter name → kind (empty unless an object).
struct PropertiesVisitor;

impl<'de> Visitor<'de> for PropertiesVisitor {
    type Value = HashMap<String, ValueKind>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of property schemas")
    }
    scalars_are!(HashMap<String, ValueKind>, HashMap::new());
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(HashMap::new())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut params = HashMap::new();
        while let Some(key) = map.next_key::<String>()? {
            let types = map.next_value_seed(TypesVisitor { depth: 0 })?;
            params.insert(key, value_kind(types));
            if params.len() > MAX_TOOLS_NAMES {
                return Err(de::Error::custom(format_args!(
                    "more than {MAX_TOOLS_NAMES} tools and parameters (the limit)"
                )));
            }
        }
        Ok(params)
    }
}

impl<'de> DeserializeSeed<'de> for PropertiesVisitor {
    type Value = HashMap<String, ValueKind>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// Whether a schema allows strings, other types, or both.
#[derive(Debug, Default, Clone, Copy)]
struct Types {
    string: bool,
    other: bool,
}

impl Types {
    fn note(&mut self, shape: &Shape) {
        match shape {
            Shape::Str(_) => self.string = true,
            _ => self.other = true,
        }
    }
    fn note_type(&mut self, t: &str) {
        if t == "string" {
            self.string = true;
        } else {
            self.other = true;
        }
    }
    fn or(self, b: Types) -> Types {
        Types {
            string: self.string || b.string,
            other: self.other || b.other,
        }
    }
}

/// A property schema's [`Types`]; past depth 16 (nested `anyOf` / `oneOf`) none.
struct TypesVisitor {
    depth: usize,
}

impl<'de> Visitor<'de> for TypesVisitor {
    type Value = Types;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON Schema")
    }
    scalars_are!(Types, Types::default());
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Types, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Types::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Types, A::Error> {
        if self.depth > 16 {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(Types::default());
        }
        // Each key's contribution (its last occurrence), and what is present.
        let mut of_type: Option<Types> = None;
        let (mut nullable, mut of_enum, mut of_const) = (Types::default(), None, None);
        let (mut any_of, mut one_of) = (Types::default(), Types::default());
        let (mut properties, mut items) = (false, false);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "type" => {
                    let mut t = Types::default();
                    match map.next_value_seed(TypeField)? {
                        TypeList::One(s) => t.note_type(&s),
                        TypeList::Many(ts) => ts.iter().for_each(|s| t.note_type(s)),
                        TypeList::None => {}
                    }
                    of_type = Some(t);
                }
                "nullable" => {
                    nullable = Types::default();
                    if let Shape::Bool(true) = map.next_value_seed(ShapeVisitor)? {
                        nullable.other = true;
                    }
                }
                "enum" => of_enum = Some(map.next_value_seed(EnumValues)?),
                "const" => {
                    let mut t = Types::default();
                    t.note(&map.next_value_seed(ShapeVisitor)?);
                    of_const = Some(t);
                }
                "anyOf" => any_of = map.next_value_seed(Alternatives(self.depth + 1))?,
                "oneOf" => one_of = map.next_value_seed(Alternatives(self.depth + 1))?,
                "properties" => {
                    map.next_value::<IgnoredAny>()?;
                    properties = true;
                }
                "items" => {
                    map.next_value::<IgnoredAny>()?;
                    items = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let mut t = of_type
            .unwrap_or_default()
            .or(nullable)
            .or(of_enum.unwrap_or_default())
            .or(of_const.unwrap_or_default())
            .or(any_of)
            .or(one_of);
        // Implied types when `type` is absent.
        if of_type.is_none() && (properties || items) {
            t.other = true;
        }
        Ok(t)
    }
}

impl<'de> DeserializeSeed<'de> for TypesVisitor {
    type Value = Types;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Types, D::Error> {
        d.deserialize_any(self)
    }
}

/// `"type"`: one name, an array of names (non-strings skipped), or neither.
enum TypeList {
    One(String),
    Many(Vec<String>),
    None,
}

struct TypeField;

impl<'de> Visitor<'de> for TypeField {
    type Value = TypeList;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a type name or an array of them")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<TypeList, E> {
        Ok(TypeList::One(v.to_owned()))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<TypeList, E> {
        Ok(TypeList::None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<TypeList, E> {
        Ok(TypeList::None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<TypeList, E> {
        Ok(TypeList::None)
    }
    fn visit_i128<E: de::Error>(self, _: i128) -> Result<TypeList, E> {
        Ok(TypeList::None)
    }
    fn visit_u128<E: de::Error>(self, _: u128) -> Result<TypeList, E> {
        Ok(TypeList::None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<TypeList, E> {
        Ok(TypeList::None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<TypeList, E> {
        Ok(TypeList::None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TypeList, A::Error> {
        let mut names = Vec::new();
        while let Some(shape) = seq.next_element_seed(ShapeVisitor)? {
            if let Shape::Str(s) = shape {
                names.push(s);
            }
        }
        Ok(TypeList::Many(names))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TypeList, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(TypeList::None)
    }
}

impl<'de> DeserializeSeed<'de> for TypeField {
    type Value = TypeList;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TypeList, D::Error> {
        d.deserialize_any(self)
    }
}

/// `"enum"`: whether its values include strings and other values (none unless an array).
struct EnumValues;

impl<'de> Visitor<'de> for EnumValues {
    type Value = Types;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of values")
    }
    scalars_are!(Types, Types::default());
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Types, A::Error> {
        let mut t = Types::default();
        while let Some(shape) = seq.next_element_seed(ShapeVisitor)? {
            t.note(&shape);
        }
        Ok(t)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Types, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Types::default())
    }
}

impl<'de> DeserializeSeed<'de> for EnumValues {
    type Value = Types;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Types, D::Error> {
        d.deserialize_any(self)
    }
}

/// `"anyOf"` / `"oneOf"`: the union of its schemas' types at depth `.0` (none unless an
/// array).
struct Alternatives(usize);

impl<'de> Visitor<'de> for Alternatives {
    type Value = Types;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of schemas")
    }
    scalars_are!(Types, Types::default());
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Types, A::Error> {
        let mut t = Types::default();
        while let Some(one) = seq.next_element_seed(TypesVisitor { depth: self.0 })? {
            t = t.or(one);
        }
        Ok(t)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Types, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Types::default())
    }
}

impl<'de> DeserializeSeed<'de> for Alternatives {
    type Value = Types;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Types, D::Error> {
        d.deserialize_any(self)
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

    #[test]
    fn duplicate_names_are_an_error() {
        let e = Tools::from_json(
            r#"[{"name":"a"},{"type":"function","function":{"name":"b"}},{"name":"b","input_schema":{}}]"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"tools[2]: the name "b" is declared twice (also tools[1])"#
        );
        let v: Value = serde_json::from_str(r#"{"tools":[{"name":"x"},{"name":"x"}]}"#).unwrap();
        assert!(Tools::from_value(&v).is_err());
    }

    #[test]
    fn the_document_is_bounded() {
        let big = format!("[{}]", " ".repeat(MAX_TOOLS_BYTES));
        let e = Tools::from_json(&big).unwrap_err().to_string();
        assert!(e.contains("over the limit of 16777216 bytes"), "{e}");
        let many: Vec<String> = (0..=MAX_TOOLS_NAMES)
            .map(|i| format!(r#"{{"name":"t{i}"}}"#))
            .collect();
        let e = Tools::from_json(&format!("[{}]", many.join(",")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than 100000 tools and parameters"), "{e}");
        let ok: Vec<String> = (0..1000).map(|i| format!(r#"{{"name":"t{i}"}}"#)).collect();
        assert_eq!(
            Tools::from_json(&format!("[{}]", ok.join(",")))
                .unwrap()
                .names()
                .count(),
            1000
        );
        // Trailing text is refused, as serde_json refuses it.
        assert!(Tools::from_json(r#"[{"name":"a"}] x"#).is_err());
    }

    /// The kinds as read from a `serde_json::Value` (the reader before it streamed).
    fn reference_kind(schema: &Value) -> ValueKind {
        fn collect(schema: &Value, string: &mut bool, other: &mut bool, depth: usize) {
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
            for v in schema
                .get("enum")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if v.is_string() {
                    *string = true
                } else {
                    *other = true
                }
            }
            if let Some(v) = schema.get("const") {
                if v.is_string() {
                    *string = true
                } else {
                    *other = true
                }
            }
            for key in ["anyOf", "oneOf"] {
                for s in schema
                    .get(key)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    collect(s, string, other, depth + 1);
                }
            }
            if schema.get("type").is_none()
                && (schema.get("properties").is_some() || schema.get("items").is_some())
            {
                *other = true;
            }
        }
        let (mut s, mut o) = (false, false);
        collect(schema, &mut s, &mut o, 0);
        value_kind(Types {
            string: s,
            other: o,
        })
    }

    use proptest::prelude::*;

    /// Property schemas made of the keys the kinds depend on (some repeated, some of
    /// the wrong type), nested.
    fn schema() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("{}".to_owned()),
            Just("1".to_owned()),
            Just("null".to_owned()),
            Just(r#""string""#.to_owned()),
            Just("[]".to_owned()),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            let member = prop_oneof![
                Just(r#""type":"string""#.to_owned()),
                Just(r#""type":"integer""#.to_owned()),
                Just(r#""type":["string","null",3]"#.to_owned()),
                Just(r#""type":null"#.to_owned()),
                Just(r#""nullable":true"#.to_owned()),
                Just(r#""nullable":"yes""#.to_owned()),
                Just(r#""enum":["a",1]"#.to_owned()),
                Just(r#""enum":["a"]"#.to_owned()),
                Just(r#""enum":{"a":1}"#.to_owned()),
                Just(r#""const":12345678901234567890123"#.to_owned()),
                Just(r#""const":"x""#.to_owned()),
                Just(r#""properties":{}"#.to_owned()),
                Just(r#""items":1"#.to_owned()),
                Just(r#""description":"d""#.to_owned()),
                proptest::collection::vec(inner.clone(), 0..3)
                    .prop_map(|v| format!(r#""anyOf":[{}]"#, v.join(","))),
                proptest::collection::vec(inner, 0..3)
                    .prop_map(|v| format!(r#""oneOf":[{}]"#, v.join(","))),
            ];
            proptest::collection::vec(member, 0..5).prop_map(|m| format!("{{{}}}", m.join(",")))
        })
    }

    proptest! {
        /// The streaming reader gives each parameter the kind the `Value` reader gave.
        #[test]
        fn kinds_as_read_from_a_value(props in proptest::collection::vec(schema(), 1..4)) {
            let body: Vec<String> = props.iter().enumerate().map(|(i, p)| format!(r#""p{i}":{p}"#)).collect();
            let text = format!(
                r#"[{{"name":"f","parameters":{{"type":"object","properties":{{{}}}}}}}]"#,
                body.join(",")
            );
            let tools = Tools::from_json(&text).unwrap();
            let v: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(&Tools::from_value(&v).unwrap(), &tools);
            for (i, p) in props.iter().enumerate() {
                let schema: Value = serde_json::from_str(p).unwrap();
                prop_assert_eq!(tools.value_kind("f", &format!("p{i}")), reference_kind(&schema), "{}", p);
            }
        }
    }
}
