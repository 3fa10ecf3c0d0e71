//! The strict reader: a spec's JSON to a [`Syntax`]. Every key is checked (an unknown
//! one is an error naming its path), every value's type too, and whatever no engine
//! can do is an error naming the key that asks for it.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::lax::LAX_KEYS;
use super::regions::{Body, Kind, Plan, Region, Values};
use super::{Engine, SpecError, Syntax};
use crate::scan::pattern::{Delimiter, PatternSet};
use crate::text::json::{Opener, Payload, Table as JsonTable};
use crate::text::kit::json_call::Shape;
use crate::text::kit::table::Shared;
use crate::text::xml::{End, KindAttr, Table as XmlTable};

type Result<T> = std::result::Result<T, SpecError>;

/// Keys of a `response_template`.
const TEMPLATE_KEYS: &[&str] = &[
    "version",
    "defaults",
    "fields",
    "start_anchor",
    "start_anchor_pattern",
];

/// Keys of a template field.
const FIELD_KEYS: &[&str] = &[
    "open",
    "open_pattern",
    "close",
    "close_pattern",
    "content",
    "content_args",
    "repeats",
    "optional",
    "transform",
    "transform_each",
    "join",
];

/// transformers' content parsers.
const CONTENTS: &[&str] = &[
    "text",
    "int",
    "float",
    "bool",
    "json",
    "xml-inline",
    "kv-lines",
    "python-call-list",
];

/// Keys of our `toolstream` object.
const TOOLSTREAM_KEYS: &[&str] = &[
    "name",
    "engine",
    "openers",
    "keys",
    "xml",
    "reasoning",
    "citations",
    "header",
    "pythonic",
    "sections",
];

/// Keys that say an object is a `tokenizer_config.json` (it holds other things than a
/// spec, which are not read).
const TOKENIZER_KEYS: &[&str] = &[
    "tokenizer_class",
    "chat_template",
    "added_tokens_decoder",
    "model_max_length",
    "bos_token",
    "eos_token",
    "pad_token",
    "unk_token",
    "clean_up_tokenization_spaces",
];

/// The members a call object's id is under when the spec does not say
/// (`toolstream.keys.id`): OpenAI's `id`, Cohere's `tool_call_id`, the Responses API's
/// `call_id`. transformers' transform ignores members it does not name; here a member
/// the syntax does not define is an error, so these are defined.
const DEFAULT_ID_KEYS: &[&str] = &["id", "tool_call_id", "call_id"];

/// Field names that are reasoning.
const REASONING_FIELDS: &[&str] = &["thinking", "reasoning", "reasoning_content"];

fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_owned()
    } else {
        format!("{base}.{key}")
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn object<'a>(path: &str, v: &'a Value) -> Result<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| SpecError::new(path, format!("must be an object, not {}", type_name(v))))
}

fn string<'a>(path: &str, v: &'a Value) -> Result<&'a str> {
    v.as_str()
        .ok_or_else(|| SpecError::new(path, format!("must be a string, not {}", type_name(v))))
}

fn boolean(path: &str, v: &Value) -> Result<bool> {
    v.as_bool()
        .ok_or_else(|| SpecError::new(path, format!("must be true or false, not {}", type_name(v))))
}

fn nonempty(path: &str, s: &str) -> Result<String> {
    if s.is_empty() {
        return Err(SpecError::new(path, "must not be empty"));
    }
    Ok(s.to_owned())
}

/// An unknown key is an error naming it.
fn known(base: &str, map: &Map<String, Value>, allowed: &[&str]) -> Result<()> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(SpecError::new(
            join(base, k),
            format!("unknown key (known here: {})", allowed.join(", ")),
        )),
        None => Ok(()),
    }
}

/// A literal or a non-empty list of non-empty literals (duplicates dropped, first
/// kept).
fn literals(path: &str, v: &Value) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    match v {
        Value::String(s) => out.push(nonempty(path, s)?),
        Value::Array(items) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                let p = format!("{path}[{i}]");
                let s = nonempty(&p, string(&p, item)?)?;
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        Value::Array(_) => return Err(SpecError::new(path, "must hold at least one literal")),
        _ => {
            return Err(SpecError::new(
                path,
                format!(
                    "must be a string or a list of strings, not {}",
                    type_name(v)
                ),
            ));
        }
    }
    Ok(out)
}

/// A delimiter: `lit` (literals; `"eos"`, the end of the output, only alone) or `pat`
/// (a regular expression, checked when the syntax is compiled). `(None, None)` when
/// neither is given.
fn delimiter(
    base: &str,
    map: &Map<String, Value>,
    lit: &str,
    pat: &str,
) -> Result<(Option<Vec<String>>, Option<String>)> {
    if let Some(p) = map.get(pat) {
        let path = join(base, pat);
        if map.contains_key(lit) {
            return Err(SpecError::new(
                path,
                format!("cannot be given with `{lit}`"),
            ));
        }
        let p = nonempty(&path, string(&path, p)?)?;
        return Ok((None, Some(p)));
    }
    let Some(v) = map.get(lit) else {
        return Ok((None, None));
    };
    let path = join(base, lit);
    let lits = literals(&path, v)?;
    if lits.len() > 1 && lits.iter().any(|l| l == "eos") {
        return Err(SpecError::new(
            path,
            "\"eos\" cannot be combined with other literals",
        ));
    }
    Ok((Some(lits), None))
}

/// A template field, read.
#[derive(Clone)]
struct Field<'a> {
    path: String,
    open: Option<Vec<String>>,
    close: Option<Vec<String>>,
    /// `open_pattern` / `close_pattern`, when given instead of the literals.
    open_pattern: Option<String>,
    close_pattern: Option<String>,
    content: &'a str,
    args: Option<&'a Map<String, Value>>,
    transform: Option<&'a Value>,
    transform_each: bool,
    /// `join`: what goes between the values of a repeated text field.
    join: Option<String>,
}

fn field<'a>(path: String, v: &'a Value) -> Result<Field<'a>> {
    let map = object(&path, v)?;
    known(&path, map, FIELD_KEYS)?;
    let (open, open_pattern) = delimiter(&path, map, "open", "open_pattern")?;
    let (close, close_pattern) = delimiter(&path, map, "close", "close_pattern")?;
    let content = match map.get("content") {
        None => "text",
        Some(c) => {
            let p = join(&path, "content");
            let c = string(&p, c)?;
            if !CONTENTS.contains(&c) {
                return Err(SpecError::new(
                    p,
                    format!(
                        "unknown content parser {c:?} (known: {})",
                        CONTENTS.join(", ")
                    ),
                ));
            }
            c
        }
    };
    let args = match map.get("content_args") {
        None => None,
        Some(a) => Some(object(&join(&path, "content_args"), a)?),
    };
    for key in ["repeats", "optional"] {
        if let Some(b) = map.get(key) {
            boolean(&join(&path, key), b)?;
        }
    }
    let mut joined = None;
    if let Some(j) = map.get("join") {
        joined = Some(string(&join(&path, "join"), j)?.to_owned());
        if map.get("repeats") != Some(&Value::Bool(true)) {
            return Err(SpecError::new(
                join(&path, "join"),
                "requires `repeats: true` (it joins a field's repeated values)",
            ));
        }
    }
    let transform_each = match map.get("transform_each") {
        None => false,
        Some(b) => boolean(&join(&path, "transform_each"), b)?,
    };
    let transform = map.get("transform");
    if transform_each && transform.is_none() {
        return Err(SpecError::new(
            join(&path, "transform_each"),
            "is set but the field has no `transform`",
        ));
    }
    if open.as_ref().is_some_and(|o| o.iter().any(|l| l == "eos")) {
        return Err(SpecError::new(
            join(&path, "open"),
            "\"eos\" can only close a field",
        ));
    }
    Ok(Field {
        path,
        open,
        close,
        open_pattern,
        close_pattern,
        content,
        args,
        transform,
        transform_each,
        join: joined,
    })
}

/// A `text` field's `content_args`: only `strip` (whitespace trimming of the final
/// value in transformers; the events here are the model's bytes as they stream).
fn text_args(f: &Field<'_>) -> Result<()> {
    if f.content != "text" {
        return Err(SpecError::new(
            join(&f.path, "content"),
            format!("must be \"text\" here (not {:?})", f.content),
        ));
    }
    if let Some(args) = f.args {
        let base = join(&f.path, "content_args");
        known(&base, args, &["strip"])?;
        if let Some(s) = args.get("strip") {
            boolean(&join(&base, "strip"), s)?;
        }
    }
    if f.transform.is_some() {
        return Err(SpecError::new(
            join(&f.path, "transform"),
            "a text field's value is streamed as text or reasoning; it takes no transform",
        ));
    }
    Ok(())
}

/// A `json` field with transformers' `unquoted_keys` / `string_delims`: the gemma
/// engine's calls.
fn lax(f: &Field<'_>) -> bool {
    f.content == "json"
        && f.args
            .is_some_and(|a| LAX_KEYS.iter().any(|k| a.contains_key(*k)))
}

/// What a spec says, before it is compiled onto an engine.
struct Read<'a> {
    anchors: Vec<String>,
    /// `start_anchor_pattern`.
    anchor_pattern: Option<String>,
    reasoning: Vec<(String, String)>,
    drops: Vec<String>,
    /// The `tool_calls` field; `None`: a template without calls (reasoning and text only).
    calls: Option<Field<'a>>,
    /// Every field, in the template's order (for a spec with patterns).
    fields: Vec<(String, Field<'a>)>,
    /// A delimiter is a regular expression: the spec runs on the regions engine.
    patterned: bool,
}

/// Whether the regions engine reads these calls (with literal delimiters too).
fn regions_read(f: &Field<'_>) -> bool {
    // A name from a group of the open needs an open pattern.
    match f.content {
        "json" if !lax(f) => match json_body(f) {
            Ok(Body::Args { .. }) => f.open_pattern.is_some(),
            Ok(_) => true,
            Err(_) => false,
        },
        "xml-inline" => f.open_pattern.is_some() && tags_body(f).is_ok(),
        _ => false,
    }
}

/// `sections`: the spec runs on the sections engine, whose `tool_calls` patterns are
/// checked, not compiled (`super::sections`). `plain`: the spec has no `toolstream`
/// object but its name (transformers' template as written): one without a leftover field
/// (bytes outside every region are no field's) or without `tool_calls` runs on the
/// regions engine, which reads both as transformers does.
fn template<'a>(base: &str, v: &'a Value, sections: bool, plain: bool) -> Result<Read<'a>> {
    let map = object(base, v)?;
    known(base, map, TEMPLATE_KEYS)?;
    if let Some(version) = map.get("version")
        && version.as_u64() != Some(1)
    {
        return Err(SpecError::new(
            join(base, "version"),
            format!("only version 1 is known (got {version})"),
        ));
    }
    if let Some(d) = map.get("defaults") {
        object(&join(base, "defaults"), d)?;
    }
    let (anchors, anchor_pattern) = delimiter(base, map, "start_anchor", "start_anchor_pattern")?;
    let anchors = anchors.unwrap_or_default();
    if anchors.iter().any(|a| a == "eos") {
        return Err(SpecError::new(
            join(base, "start_anchor"),
            "\"eos\" cannot start the output",
        ));
    }
    let fields_path = join(base, "fields");
    let fields = match map.get("fields") {
        Some(f) => object(&fields_path, f)?,
        None => return Err(SpecError::new(fields_path, "is required")),
    };
    if fields.is_empty() {
        return Err(SpecError::new(fields_path, "must name at least one field"));
    }
    let mut implicit: Option<String> = None;
    let mut reasoning = Vec::new();
    let mut drops = Vec::new();
    let mut calls = None;
    let mut all = Vec::new();
    for (name, v) in fields {
        let f = field(join(&fields_path, name), v)?;
        if f.open.is_none() && f.open_pattern.is_none() {
            if let Some(other) = &implicit {
                return Err(SpecError::new(
                    f.path,
                    format!(
                        "at most one field may have no `open` (the leftover text); `{other}` has none already"
                    ),
                ));
            }
            implicit = Some(name.clone());
        }
        all.push((name.clone(), f));
    }
    // The gemma engine's delimiters are literals: a close pattern that spells literals
    // (TRL's `<tool_call\|>\s*`) is read as them when the calls run there.
    if !sections
        && all
            .iter()
            .any(|(n, f)| n == "tool_calls" && lax(f) && f.open_pattern.is_some())
    {
        for (_, f) in &mut all {
            if let Some(lits) = f
                .close_pattern
                .as_deref()
                .and_then(super::lax::close_literals)
            {
                f.close = Some(lits);
                f.close_pattern = None;
            }
        }
    }
    // The open pattern of gemma-engine calls is read by that engine (`gemma::dialect`).
    let calls_field = all.iter().find(|(n, _)| n == "tool_calls").map(|(_, f)| f);
    let patterned = anchor_pattern.is_some()
        || all.iter().any(|(n, f)| {
            (f.open_pattern.is_some() && !(n == "tool_calls" && (lax(f) || sections)))
                || (f.close_pattern.is_some() && !(n == "tool_calls" && sections))
        })
        || (plain
            && !sections
            && (calls_field.is_none()
                || (implicit.as_deref() != Some("content")
                    && calls_field.is_some_and(regions_read))));
    for (name, f) in all.iter().cloned() {
        if patterned {
            if name == "tool_calls" {
                calls = Some(f);
            }
            continue;
        }
        match name.as_str() {
            "tool_calls" => calls = Some(f),
            "content" => {
                text_args(&f)?;
                for lit in f.open.iter().chain(f.close.iter()).flatten() {
                    if lit != "eos" && !drops.contains(lit) {
                        drops.push(lit.clone());
                    }
                }
            }
            n if REASONING_FIELDS.contains(&n) => {
                text_args(&f)?;
                let Some(open) = f.open else {
                    return Err(SpecError::new(
                        f.path,
                        "reasoning needs an `open` literal (reasoning without an opening tag is ParserConfig::reasoning_open)",
                    ));
                };
                let close = match f.close.as_deref() {
                    Some([c]) if c != "eos" => c.clone(),
                    _ => {
                        return Err(SpecError::new(
                            join(&f.path, "close"),
                            "reasoning needs exactly one closing literal",
                        ));
                    }
                };
                for o in open {
                    reasoning.push((o, close.clone()));
                }
            }
            _ => {
                return Err(SpecError::new(
                    f.path,
                    format!(
                        "no event carries a field named {name:?}: toolstream reads `content`, `tool_calls` and reasoning ({})",
                        REASONING_FIELDS.join(", ")
                    ),
                ));
            }
        }
    }
    if calls.is_none() && !patterned {
        return Err(SpecError::new(
            join(&fields_path, "tool_calls"),
            "is required: the field that holds the calls",
        ));
    }
    Ok(Read {
        anchors,
        anchor_pattern,
        reasoning,
        drops,
        calls,
        fields: all,
        patterned,
    })
}

/// The whole document: which of the three inputs it is, then the syntax.
pub(super) fn syntax(v: &Value) -> Result<Syntax> {
    let map = object("", v)?;
    let (base, template_value, ext) = if let Some(t) = map.get("response_template") {
        let ours = map.contains_key("toolstream")
            || !map.keys().any(|k| TOKENIZER_KEYS.contains(&k.as_str()));
        if ours {
            known("", map, &["response_template", "toolstream"])?;
        }
        let ext = if ours { map.get("toolstream") } else { None };
        ("response_template", t, ext)
    } else if map.contains_key("fields") || map.contains_key("version") {
        ("", v, None)
    } else {
        return Err(SpecError::new(
            "",
            "not a spec: expected a response_template object (with `fields`), a tokenizer_config.json holding `response_template`, or {\"response_template\": .., \"toolstream\": ..}",
        ));
    };
    let sections = ext.and_then(|e| e.get("engine")) == Some(&Value::from("sections"));
    let plain = ext
        .and_then(Value::as_object)
        .is_none_or(|m| m.keys().all(|k| k == "name"));
    let read = template(base, template_value, sections, plain)?;
    let ext = match ext {
        Some(e) => {
            let m = object("toolstream", e)?;
            known("toolstream", m, TOOLSTREAM_KEYS)?;
            Some(m)
        }
        None => None,
    };
    // xml-inline calls without toolstream.xml are read with their tag_pattern.
    let tags = read
        .calls
        .as_ref()
        .is_some_and(|c| c.content == "xml-inline")
        && ext_get(ext, "xml").is_none()
        && !sections;
    if read.patterned || tags {
        return regions(&read, ext, template_value);
    }
    compile(read, ext)
}

fn ext_get<'a>(ext: Option<&'a Map<String, Value>>, key: &str) -> Option<&'a Value> {
    ext.and_then(|m| m.get(key))
}

fn compile(read: Read<'_>, ext: Option<&Map<String, Value>>) -> Result<Syntax> {
    let name = match ext_get(ext, "name") {
        Some(n) => nonempty("toolstream.name", string("toolstream.name", n)?)?,
        None => "spec".to_owned(),
    };
    let reasoning = match ext_get(ext, "reasoning") {
        Some(r) => {
            let pairs = pairs("toolstream.reasoning", r)?;
            if let Some(first) = read.reasoning.first()
                && pairs.first() != Some(first)
            {
                return Err(SpecError::new(
                    "toolstream.reasoning",
                    "its first pair must be the reasoning field's `open` and `close`",
                ));
            }
            pairs
        }
        None => read.reasoning.clone(),
    };
    let reasoning: Vec<_> = reasoning
        .into_iter()
        .map(|(o, c)| (Cow::Owned(o), Cow::Owned(c)))
        .collect();
    let drops: Vec<Cow<'static, str>> = read.drops.iter().cloned().map(Cow::Owned).collect();
    let Some(calls) = read.calls.as_ref() else {
        return Err(SpecError::new(
            "fields.tool_calls",
            "is required: the field that holds the calls",
        ));
    };
    let engine_path = "toolstream.engine";
    let wanted = match ext_get(ext, "engine") {
        Some(e) => Some(string(engine_path, e)?),
        None => None,
    };
    if wanted != Some("sections") && ext_get(ext, "sections").is_some() {
        return Err(SpecError::new(
            "toolstream.sections",
            "is read by the sections engine only (toolstream.engine \"sections\")",
        ));
    }
    let engine = match (calls.content, wanted) {
        (_, Some("sections")) => {
            for key in ["xml", "openers", "keys", "citations", "header", "pythonic"] {
                if ext_get(ext, key).is_some() {
                    return Err(SpecError::new(
                        format!("toolstream.{key}"),
                        "is not read by the sections engine",
                    ));
                }
            }
            let fields = super::sections::Fields {
                path: &calls.path,
                open: calls.open.as_deref(),
                open_pattern: calls.open_pattern.as_deref(),
                close: calls.close.as_deref(),
                close_pattern: calls.close_pattern.as_deref(),
                content: calls.content,
                args: calls.args,
                transform: calls.transform,
                transform_each: calls.transform_each,
            };
            Engine::Sections(Shared::new(super::sections::tokens(
                fields,
                ext_get(ext, "sections"),
                &name,
                reasoning,
                drops,
            )?))
        }
        ("json", None | Some("gemma")) if lax(calls) => {
            for key in ["xml", "openers", "keys", "citations", "header"] {
                if ext_get(ext, key).is_some() {
                    return Err(SpecError::new(
                        format!("toolstream.{key}"),
                        "is not read by the gemma engine (json calls with string_delims)",
                    ));
                }
            }
            let fields = super::lax::Fields {
                open_pattern: calls.open_pattern.as_deref(),
                close: calls.close.as_deref(),
                args: calls.args,
                transform: calls.transform,
                transform_each: calls.transform_each,
            };
            Engine::Gemma(Shared::new(super::lax::dialect(
                &calls.path,
                fields,
                reasoning,
                drops,
            )?))
        }
        ("python-call-list", None | Some("pythonic")) => {
            for key in ["xml", "openers", "keys", "citations", "header"] {
                if ext_get(ext, key).is_some() {
                    return Err(SpecError::new(
                        format!("toolstream.{key}"),
                        "is not read by the pythonic engine (python-call-list calls)",
                    ));
                }
            }
            let fields = super::pylist::Fields {
                path: &calls.path,
                open: calls.open.as_deref(),
                close: calls.close.as_deref(),
                args: calls.args,
                transform: calls.transform,
                transform_each: calls.transform_each,
            };
            Engine::Pythonic(Shared::new(super::pylist::frame(
                fields,
                ext_get(ext, "pythonic"),
                reasoning,
                drops,
            )?))
        }
        (_, Some("pythonic")) => {
            return Err(SpecError::new(
                engine_path,
                "\"pythonic\" reads python-call-list calls",
            ));
        }
        ("json", Some("gemma")) => {
            return Err(SpecError::new(
                engine_path,
                "\"gemma\" reads json calls with content_args.unquoted_keys and string_delims",
            ));
        }
        ("json", None | Some("json")) => {
            for key in ["xml"] {
                if ext_get(ext, key).is_some() {
                    return Err(SpecError::new(
                        format!("toolstream.{key}"),
                        "is for the xml engine; these calls are json",
                    ));
                }
            }
            Engine::Json(Shared::new(json_table(calls, ext, reasoning, drops)?))
        }
        ("xml-inline", None | Some("xml")) => {
            for key in ["openers", "keys", "citations", "header"] {
                if ext_get(ext, key).is_some() {
                    return Err(SpecError::new(
                        format!("toolstream.{key}"),
                        "is for the json engine; these calls are xml-inline",
                    ));
                }
            }
            Engine::Xml(Shared::new(xml_table(calls, ext, reasoning, drops)?))
        }
        (_, Some(e)) if e != "json" && e != "xml" && e != "gemma" => {
            return Err(SpecError::new(
                engine_path,
                format!(
                    "unknown engine {e:?} (known: \"json\", \"xml\", \"gemma\", \"pythonic\", \"sections\")"
                ),
            ));
        }
        ("json" | "xml-inline", Some(e)) => {
            return Err(SpecError::new(
                engine_path,
                format!("{e:?} does not read {:?} calls", calls.content),
            ));
        }
        (c, _) => {
            return Err(SpecError::new(
                join(&calls.path, "content"),
                format!(
                    "no engine reads {c:?} calls from a spec yet (\"json\": JSON call objects; \"xml-inline\": XML parameters)"
                ),
            ));
        }
    };
    Ok(Syntax {
        name,
        engine,
        anchors: read.anchors,
    })
}

fn pairs(path: &str, v: &Value) -> Result<Vec<(String, String)>> {
    let Value::Array(items) = v else {
        return Err(SpecError::new(
            path,
            format!(
                "must be a list of [open, close] pairs, not {}",
                type_name(v)
            ),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let p = format!("{path}[{i}]");
            match item.as_array().map(Vec::as_slice) {
                Some([o, c]) => Ok((
                    nonempty(&format!("{p}[0]"), string(&format!("{p}[0]"), o)?)?,
                    nonempty(&format!("{p}[1]"), string(&format!("{p}[1]"), c)?)?,
                )),
                _ => Err(SpecError::new(p, "must be a pair [open, close] of strings")),
            }
        })
        .collect()
}

fn strings(path: &str, v: &Value) -> Result<Vec<Cow<'static, str>>> {
    let Value::Array(items) = v else {
        return Err(SpecError::new(
            path,
            format!("must be a list of strings, not {}", type_name(v)),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let p = format!("{path}[{i}]");
            Ok(Cow::Owned(nonempty(&p, string(&p, s)?)?))
        })
        .collect()
}

/// A transform placeholder: `"{x}"` → `x`.
fn placeholder(v: &Value) -> Option<&str> {
    v.as_str()?.strip_prefix('{')?.strip_suffix('}')
}

/// The keys a JSON call field's `transform` names: `(name key, arguments key)`.
fn transform_keys(f: &Field<'_>) -> Result<(String, String)> {
    let path = join(&f.path, "transform");
    let Some(t) = f.transform else {
        return Err(SpecError::new(
            path,
            "is required for json calls (where the name and the arguments are), unless toolstream.keys says it",
        ));
    };
    let shape_error = || {
        SpecError::new(
            path.clone(),
            "toolstream reads {\"type\": \"function\", \"function\": \"{content}\"} or {\"type\": \"function\", \"function\": {\"name\": \"{..}\", \"arguments\": \"{..}\"}}",
        )
    };
    let map = t.as_object().ok_or_else(shape_error)?;
    known(&path, map, &["type", "function"])?;
    if let Some(ty) = map.get("type")
        && ty.as_str() != Some("function")
    {
        return Err(SpecError::new(join(&path, "type"), "must be \"function\""));
    }
    let function = map.get("function").ok_or_else(shape_error)?;
    let fpath = join(&path, "function");
    if let Some(p) = placeholder(function) {
        if p == "content" && !f.transform_each {
            return Ok(("name".to_owned(), "arguments".to_owned()));
        }
        return Err(SpecError::new(
            fpath,
            "must be \"{content}\" (a call object per field) or an object with name and arguments",
        ));
    }
    let fmap = object(&fpath, function)?;
    known(&fpath, fmap, &["name", "arguments"])?;
    let key = |k: &str| -> Result<String> {
        let p = join(&fpath, k);
        let v = fmap
            .get(k)
            .ok_or_else(|| SpecError::new(p.clone(), "is required"))?;
        let Some(ph) = placeholder(v) else {
            return Err(SpecError::new(p, "must be a placeholder \"{..}\""));
        };
        if f.transform_each {
            if ph.contains('.') || ph == "content" || ph.is_empty() {
                return Err(SpecError::new(
                    p,
                    "with transform_each, name a key of each call object: \"{tool_name}\"",
                ));
            }
            return Ok(ph.to_owned());
        }
        match ph.strip_prefix("content.") {
            Some(key) if !key.is_empty() && !key.contains('.') => Ok(key.to_owned()),
            _ => Err(SpecError::new(
                p,
                format!(
                    "{{{ph}}} is not a key of the call object (\"{{content.name}}\"); a capture of open_pattern needs regular-expression delimiters, not supported yet"
                ),
            )),
        }
    };
    Ok((key("name")?, key("arguments")?))
}

fn json_table(
    f: &Field<'_>,
    ext: Option<&Map<String, Value>>,
    reasoning: Vec<(Cow<'static, str>, Cow<'static, str>)>,
    drops: Vec<Cow<'static, str>>,
) -> Result<JsonTable> {
    if let Some(args) = f.args {
        let base = join(&f.path, "content_args");
        if let Some((k, _)) = args
            .iter()
            .find(|(k, v)| !(k.as_str() == "allow_non_json" && **v == Value::Bool(false)))
        {
            let p = join(&base, k);
            return Err(SpecError::new(
                p,
                match k.as_str() {
                    "unquoted_keys" | "string_delims" => {
                        "the json engine reads standard JSON call objects only (bare keys and string delimiters run on the gemma engine: open_pattern `<MARKER>call:(?P<name>\\w+)`, the name and arguments from the transform {\"name\": \"{name}\", \"arguments\": \"{content}\"})"
                    }
                    "allow_non_json" => {
                        "a call whose content is not JSON is an error here, never text"
                    }
                    _ => "unknown key (json content takes no arguments here)",
                },
            ));
        }
    }
    let opens = f.open.clone().ok_or_else(|| {
        SpecError::new(
            join(&f.path, "open"),
            "is required: the marker that opens a call",
        )
    })?;
    let closes: Vec<String> = f
        .close
        .iter()
        .flatten()
        .filter(|c| *c != "eos")
        .cloned()
        .collect();
    let openers = match ext_get(ext, "openers") {
        Some(o) => {
            let openers = json_openers(o)?;
            let mut listed: Vec<&str> = openers.iter().map(|o| &*o.marker).collect();
            let mut given: Vec<&str> = opens.iter().map(String::as_str).collect();
            listed.sort_unstable();
            given.sort_unstable();
            if listed != given {
                return Err(SpecError::new(
                    join(&f.path, "open"),
                    "must list the same markers as toolstream.openers",
                ));
            }
            let mut listed: Vec<&str> = openers.iter().filter_map(|o| o.close.as_deref()).collect();
            let mut given: Vec<&str> = closes.iter().map(String::as_str).collect();
            listed.sort_unstable();
            listed.dedup();
            given.sort_unstable();
            if listed != given {
                return Err(SpecError::new(
                    join(&f.path, "close"),
                    "must list the close markers of toolstream.openers",
                ));
            }
            openers
        }
        None => {
            if closes.len() > 1 {
                return Err(SpecError::new(
                    join(&f.path, "close"),
                    "several close markers need toolstream.openers to say which opener each closes",
                ));
            }
            let payload = if f.transform_each {
                Payload::Either
            } else {
                Payload::Object
            };
            opens
                .iter()
                .map(|m| Opener {
                    marker: Cow::Owned(m.clone()),
                    close: closes.first().cloned().map(Cow::Owned),
                    payload,
                })
                .collect()
        }
    };
    let shape = match ext_get(ext, "keys") {
        Some(k) => {
            let shape = keys(k)?;
            if f.transform.is_some() {
                let (name, args) = transform_keys(f)?;
                let agrees = match &shape {
                    Shape::Fields {
                        name: n, args: a, ..
                    } => n.iter().any(|k| *k == name) && a.iter().any(|k| *k == args),
                    Shape::NameKey => false,
                };
                if !agrees {
                    return Err(SpecError::new(
                        "toolstream.keys",
                        format!(
                            "must include the transform's name key {name:?} and arguments key {args:?}"
                        ),
                    ));
                }
            }
            shape
        }
        None => {
            let (name, args) = transform_keys(f)?;
            if f.transform.is_some() {
                let path = join(&join(&f.path, "transform"), "function");
                super::members::check(&path, f.transform_each, &name, &args)?;
            }
            Shape::Fields {
                name: vec![Cow::Owned(name)].into(),
                args: vec![Cow::Owned(args)].into(),
                id: DEFAULT_ID_KEYS
                    .iter()
                    .map(|k| Cow::Borrowed(*k))
                    .collect::<Vec<_>>()
                    .into(),
            }
        }
    };
    let citations = match ext_get(ext, "citations") {
        Some(c) => Some(citations(c)?),
        None => None,
    };
    let header = match ext_get(ext, "header") {
        Some(v) => {
            let p = "toolstream.header";
            Some(Cow::Owned(nonempty(p, string(p, v)?)?))
        }
        None => None,
    };
    Ok(JsonTable {
        openers: openers.into(),
        shape,
        reasoning: reasoning.into(),
        drops: drops.into(),
        citations,
        header,
    })
}

/// `toolstream.citations`: `[open, close_head]`, citation markup dropped from the text
/// and reasoning (Cohere's `["<co>", "</co: "]`).
fn citations(v: &Value) -> Result<(Cow<'static, str>, Cow<'static, str>)> {
    let path = "toolstream.citations";
    let Value::Array(items) = v else {
        return Err(SpecError::new(
            path,
            format!("must be a list, not {}", type_name(v)),
        ));
    };
    let [open, close] = items.as_slice() else {
        return Err(SpecError::new(
            path,
            "must hold two markers: [open, close head] (the close head's anchors and `>` follow it)",
        ));
    };
    let one = |i: usize, item: &Value| -> Result<Cow<'static, str>> {
        let p = format!("{path}[{i}]");
        Ok(Cow::Owned(nonempty(&p, string(&p, item)?)?))
    };
    Ok((one(0, open)?, one(1, close)?))
}

fn json_openers(v: &Value) -> Result<Vec<Opener>> {
    let path = "toolstream.openers";
    let Value::Array(items) = v else {
        return Err(SpecError::new(
            path,
            format!("must be a list, not {}", type_name(v)),
        ));
    };
    if items.is_empty() {
        return Err(SpecError::new(path, "must hold at least one opener"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let p = format!("{path}[{i}]");
            let m = object(&p, item)?;
            known(&p, m, &["open", "close", "payload"])?;
            let open = match m.get("open") {
                Some(o) => nonempty(&join(&p, "open"), string(&join(&p, "open"), o)?)?,
                None => return Err(SpecError::new(join(&p, "open"), "is required")),
            };
            let close = match m.get("close") {
                None | Some(Value::Null) => None,
                Some(c) => Some(nonempty(&join(&p, "close"), string(&join(&p, "close"), c)?)?),
            };
            let pp = join(&p, "payload");
            let payload = match m.get("payload").map(|v| string(&pp, v)).transpose()? {
                None | Some("object") => Payload::Object,
                Some("either") => Payload::Either,
                Some("array-body") => Payload::ArrayBody,
                Some("either-open-array") => Payload::EitherOpenArray,
                Some(other) => {
                    return Err(SpecError::new(
                        pp,
                        format!("unknown payload {other:?} (known: \"object\", \"either\", \"either-open-array\", \"array-body\")"),
                    ));
                }
            };
            Ok(Opener {
                marker: Cow::Owned(open),
                close: close.map(Cow::Owned),
                payload,
            })
        })
        .collect()
}

fn keys(v: &Value) -> Result<Shape> {
    let path = "toolstream.keys";
    if v.as_str() == Some("name-as-key") {
        return Ok(Shape::NameKey);
    }
    let m = object(path, v).map_err(|_| {
        SpecError::new(
            path,
            "must be \"name-as-key\" or {\"name\": [..], \"arguments\": [..], \"id\": [..]}",
        )
    })?;
    known(path, m, &["name", "arguments", "id"])?;
    let list = |k: &str, required: bool| -> Result<Vec<Cow<'static, str>>> {
        let p = join(path, k);
        match m.get(k) {
            Some(v) => {
                let l = strings(&p, v)?;
                if required && l.is_empty() {
                    return Err(SpecError::new(p, "must hold at least one key"));
                }
                Ok(l)
            }
            None if required => Err(SpecError::new(p, "is required")),
            None => Ok(Vec::new()),
        }
    };
    Ok(Shape::Fields {
        name: list("name", true)?.into(),
        args: list("arguments", true)?.into(),
        id: list("id", false)?.into(),
    })
}

/// Keys of `toolstream.xml`.
const XML_KEYS: &[&str] = &[
    "what",
    "sections",
    "call_open",
    "bare_calls",
    "multi",
    "name_end",
    "call_close",
    "param_open",
    "key_end",
    "param_close",
    "trim_newline",
    "string_attr",
    "json_body",
    "py_literals",
    "entities",
    "cdata",
    "name_sep",
    "kind_attr",
    "attrs_end",
    "json_block",
    "attr_entities",
    "tag_params",
    "variants",
    "headers",
];

fn ending(path: &str, v: &Value) -> Result<(End, Option<(String, String)>)> {
    match v {
        Value::String(s) => match s.as_str() {
            "gt" => Ok((End::Gt, None)),
            "quote" => Ok((End::Quote, None)),
            "line" => Ok((End::Line, None)),
            other => Err(SpecError::new(
                path,
                format!(
                    "unknown ending {other:?} (known: \"gt\", \"quote\", \"line\", or [key close tag, value open tag])"
                ),
            )),
        },
        // The value's opening tag may be empty: the key's closing tag opens the value too.
        Value::Array(items) => match items.as_slice() {
            [Value::String(close), Value::String(open)] if !close.is_empty() => {
                Ok((End::Tags, Some((close.clone(), open.clone()))))
            }
            _ => Err(SpecError::new(
                path,
                "must be a pair [key close tag, value open tag] (the second may be \"\")",
            )),
        },
        _ => Err(SpecError::new(
            path,
            format!("must be a string or a pair of tags, not {}", type_name(v)),
        )),
    }
}

fn xml_table(
    f: &Field<'_>,
    ext: Option<&Map<String, Value>>,
    reasoning: Vec<(Cow<'static, str>, Cow<'static, str>)>,
    drops: Vec<Cow<'static, str>>,
) -> Result<XmlTable> {
    let base = "toolstream.xml";
    let Some(x) = ext_get(ext, "xml") else {
        return Err(SpecError::new(
            join(&f.path, "content"),
            "xml-inline calls need toolstream.xml: their markers (tag_pattern is a regular expression, not supported yet)",
        ));
    };
    if let Some(args) = f.args {
        let b = join(&f.path, "content_args");
        known(
            &b,
            args,
            &["tag_pattern", "value_parser", "merge_duplicates"],
        )?;
        if let Some(t) = args.get("tag_pattern") {
            string(&join(&b, "tag_pattern"), t)?;
        }
        if let Some(t) = args.get("value_parser") {
            object(&join(&b, "value_parser"), t)?;
        }
        if let Some(m) = args.get("merge_duplicates")
            && boolean(&join(&b, "merge_duplicates"), m)?
        {
            return Err(SpecError::new(
                join(&b, "merge_duplicates"),
                "a repeated parameter is an error here, never merged",
            ));
        }
    }
    if let Some(t) = f.transform {
        let ok = t
            == &serde_json::json!({"type": "function", "function": {"name": "{name}", "arguments": "{content}"}});
        if !ok {
            return Err(SpecError::new(
                join(&f.path, "transform"),
                "xml-inline calls take {\"type\": \"function\", \"function\": {\"name\": \"{name}\", \"arguments\": \"{content}\"}} or none (toolstream.xml says where the name is)",
            ));
        }
    }
    let m = object(base, x)?;
    let mut table = xml_spelling(base, m)?;
    let variants_path = join(base, "variants");
    let variants = match m.get("variants") {
        None => Vec::new(),
        Some(Value::Array(items)) if items.is_empty() => {
            return Err(SpecError::new(
                variants_path,
                "must hold at least one spelling (leave it out for none)",
            ));
        }
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let p = format!("{variants_path}[{i}]");
                let vm = object(&p, item)?;
                if vm.contains_key("variants") {
                    return Err(SpecError::new(
                        join(&p, "variants"),
                        "a variant is one spelling: it has no variants of its own",
                    ));
                }
                if vm.contains_key("headers") {
                    return Err(SpecError::new(
                        join(&p, "headers"),
                        "recipient headers are the text's, the top level's only",
                    ));
                }
                out.push(xml_spelling(&p, vm)?);
            }
            out
        }
        Some(v) => {
            return Err(SpecError::new(
                variants_path,
                format!(
                    "must be a list of toolstream.xml objects (one per spelling), not {}",
                    type_name(v)
                ),
            ));
        }
    };
    // A spelling whose call-opening marker an earlier one has would never be read (the
    // text stage gives a marker to the first spelling that has it).
    let mut starts: Vec<&str> = Vec::new();
    for (t, table) in std::iter::once(&table).chain(&variants).enumerate() {
        let p = if t == 0 {
            base.to_owned()
        } else {
            format!("{variants_path}[{}]", t - 1)
        };
        let mine: Vec<(String, &str)> = table
            .sections
            .iter()
            .enumerate()
            .map(|(j, (o, _))| (format!("{p}.sections[{j}][0]"), &**o))
            .chain(
                std::iter::once((join(&p, "call_open"), &*table.call_open))
                    .filter(|_| table.bare_calls),
            )
            .collect();
        for (path, marker) in &mine {
            if t > 0 && starts.contains(marker) {
                return Err(SpecError::new(
                    path.clone(),
                    format!(
                        "{marker:?} already opens calls of an earlier spelling (this one would never be read)"
                    ),
                ));
            }
        }
        starts.extend(mine.iter().map(|(_, m)| *m));
    }
    // The template's tool_calls field says what opens and closes the calls: each
    // spelling's sections' tags (or its call tags without sections), the top level's
    // first, then each variant's (a tag listed once).
    let mut want_open: Vec<&str> = Vec::new();
    let mut want_close: Vec<&str> = Vec::new();
    for t in std::iter::once(&table).chain(&variants) {
        let (o, c): (Vec<&str>, Vec<&str>) = if t.sections.is_empty() {
            (vec![&*t.call_open], vec![&*t.call_close])
        } else {
            t.sections.iter().map(|(o, c)| (&**o, &**c)).unzip()
        };
        for (want, tags) in [(&mut want_open, o), (&mut want_close, c)] {
            for tag in tags {
                if !want.contains(&tag) {
                    want.push(tag);
                }
            }
        }
    }
    let which = if variants.is_empty() {
        ""
    } else {
        ", the top level's then each variant's"
    };
    let opens: Vec<&str> = f.open.iter().flatten().map(String::as_str).collect();
    if opens != want_open {
        return Err(SpecError::new(
            join(&f.path, "open"),
            format!(
                "must be {want_open:?}: the sections' opening tags (or toolstream.xml.call_open without sections){which}"
            ),
        ));
    }
    let closes: Vec<&str> = f.close.iter().flatten().map(String::as_str).collect();
    if closes != want_close {
        return Err(SpecError::new(
            join(&f.path, "close"),
            format!(
                "must be {want_close:?}: the sections' closing tags (or toolstream.xml.call_close without sections){which}"
            ),
        ));
    }
    table.variants = variants
        .into_iter()
        .map(Shared::new)
        .collect::<Vec<_>>()
        .into();
    table.headers = match m.get("headers") {
        None => None,
        Some(v) => {
            let (opens, end) = headers(&join(base, "headers"), v)?;
            Some((opens.into(), end))
        }
    };
    table.reasoning = reasoning.into();
    table.drops = drops.into();
    Ok(table)
}

/// `toolstream.xml.headers`: `{"open": [..], "end": ".."}`, recipient headers in the text
/// (Muse's ` to=NAME<|message|>`).
fn headers(path: &str, v: &Value) -> Result<(Vec<Cow<'static, str>>, Cow<'static, str>)> {
    let m = object(path, v)?;
    known(path, m, &["open", "end"])?;
    let open = match m.get("open") {
        Some(v) => literals(&join(path, "open"), v)?,
        None => return Err(SpecError::new(join(path, "open"), "is required")),
    };
    let end = match m.get("end") {
        Some(v) => {
            let p = join(path, "end");
            nonempty(&p, string(&p, v)?)?
        }
        None => return Err(SpecError::new(join(path, "end"), "is required")),
    };
    Ok((open.into_iter().map(Cow::Owned).collect(), Cow::Owned(end)))
}

/// Value-kind attribute schemes (`toolstream.xml.kind_attr`).
const KIND_ATTRS: &[(&str, KindAttr)] = &[
    ("none", KindAttr::None),
    ("dsml-string", KindAttr::DsmlString),
    ("xtml-type", KindAttr::XtmlType),
];

/// The spelling of a [`KindAttr`] in a spec.
pub(super) fn kind_attr_name(k: KindAttr) -> &'static str {
    KIND_ATTRS
        .iter()
        .find(|(_, v)| *v == k)
        .map_or("none", |(n, _)| n)
}

/// One spelling of an XML syntax: a `toolstream.xml` object (the top level, or one of
/// its `variants`, at `base`), without reasoning, dropped tokens and variants.
fn xml_spelling(base: &str, m: &Map<String, Value>) -> Result<XmlTable> {
    known(base, m, XML_KEYS)?;
    let req_str = |k: &str| -> Result<Cow<'static, str>> {
        let p = join(base, k);
        match m.get(k) {
            Some(v) => Ok(Cow::Owned(nonempty(&p, string(&p, v)?)?)),
            None => Err(SpecError::new(p, "is required")),
        }
    };
    let flag = |k: &str| -> Result<bool> {
        match m.get(k) {
            Some(v) => boolean(&join(base, k), v),
            None => Ok(false),
        }
    };
    let sections: Vec<(Cow<'static, str>, Cow<'static, str>)> = match m.get("sections") {
        Some(s) => pairs(&join(base, "sections"), s)?
            .into_iter()
            .map(|(o, c)| (Cow::Owned(o), Cow::Owned(c)))
            .collect(),
        None => Vec::new(),
    };
    let what = match m.get("what") {
        Some(w) => Cow::Owned(nonempty(
            &join(base, "what"),
            string(&join(base, "what"), w)?,
        )?),
        None => Cow::Borrowed("call"),
    };
    let call_open = req_str("call_open")?;
    let call_close = req_str("call_close")?;
    let (name_end, name_tags) = match m.get("name_end") {
        Some(v) => ending(&join(base, "name_end"), v)?,
        None => return Err(SpecError::new(join(base, "name_end"), "is required")),
    };
    if name_tags.is_some() {
        return Err(SpecError::new(
            join(base, "name_end"),
            "a function name ends at \"gt\", \"quote\" or \"line\" (tags end keys only)",
        ));
    }
    let (key_end, key_tags) = match m.get("key_end") {
        Some(v) => ending(&join(base, "key_end"), v)?,
        None => return Err(SpecError::new(join(base, "key_end"), "is required")),
    };
    let bare_calls = flag("bare_calls")?;
    let multi = flag("multi")?;
    if sections.is_empty() && !bare_calls {
        return Err(SpecError::new(
            join(base, "bare_calls"),
            "must be true when there are no sections (nothing would open a call)",
        ));
    }
    let param_open = req_str("param_open")?;
    let param_close = req_str("param_close")?;
    // The value-kind attribute: `kind_attr`, or the older `string_attr` (`true` is
    // "dsml-string", `false` "none"); both given must agree.
    let legacy = match m.get("string_attr") {
        Some(v) => Some(if boolean(&join(base, "string_attr"), v)? {
            KindAttr::DsmlString
        } else {
            KindAttr::None
        }),
        None => None,
    };
    let kind_path = join(base, "kind_attr");
    let kind_attr = match m.get("kind_attr") {
        None => legacy.unwrap_or(KindAttr::None),
        Some(v) => {
            let s = string(&kind_path, v)?;
            let Some(&(_, k)) = KIND_ATTRS.iter().find(|(n, _)| *n == s) else {
                return Err(SpecError::new(
                    kind_path,
                    format!(
                        "unknown value-kind attribute {s:?} (known: \"none\", \"dsml-string\", \"xtml-type\")"
                    ),
                ));
            };
            if let Some(l) = legacy.filter(|l| *l != k) {
                return Err(SpecError::new(
                    kind_path,
                    format!(
                        "{s:?} disagrees with string_attr ({}, which says {:?}); give one of them",
                        l == KindAttr::DsmlString,
                        kind_attr_name(l)
                    ),
                ));
            }
            k
        }
    };
    let quoted = name_end == End::Quote || key_end == End::Quote;
    if kind_attr != KindAttr::None && key_end != End::Quote {
        return Err(SpecError::new(
            kind_path,
            "a value-kind attribute is read after a quoted key: needs key_end \"quote\"",
        ));
    }
    let attrs_path = join(base, "attrs_end");
    let attrs_end = match m.get("attrs_end") {
        None => Cow::Borrowed(">"),
        Some(v) => {
            let s = nonempty(&attrs_path, string(&attrs_path, v)?)?;
            if s != ">" && !s.starts_with('<') {
                return Err(SpecError::new(
                    attrs_path,
                    "must be \">\" or a tag beginning with '<' (attributes stop at '<')",
                ));
            }
            if s != ">" && !quoted {
                return Err(SpecError::new(
                    attrs_path,
                    "attributes are read after a quoted name or key: needs name_end or key_end \"quote\"",
                ));
            }
            Cow::Owned(s)
        }
    };
    let json_body = flag("json_body")?;
    let block_path = join(base, "json_block");
    let json_block = match m.get("json_block") {
        None => None,
        Some(v) => {
            let mut p = pairs(&format!("[{block_path}]"), &Value::Array(vec![v.clone()])).map_err(
                |_| {
                    SpecError::new(
                        block_path.clone(),
                        "must be a pair [open tag, close tag] of non-empty strings",
                    )
                },
            )?;
            let (open, close) = p.pop().unwrap_or_default();
            if !json_body {
                return Err(SpecError::new(
                    block_path,
                    "tags around a JSON body need json_body: true",
                ));
            }
            if !open.starts_with('<') {
                return Err(SpecError::new(
                    format!("{block_path}[0]"),
                    "must begin with '<' (the body is told from a parameter by it)",
                ));
            }
            Some((Cow::Owned(open), Cow::Owned(close)))
        }
    };
    let tag_params = flag("tag_params")?;
    if tag_params {
        // The scanner reads every tag in a call as `param_open` + name + `>` and knows
        // the call's and the section's by their names `invoke` and `tool_call`.
        let p = &*param_open;
        let want = |key: &str, want: String, got: &str| -> Result<()> {
            if got == want {
                Ok(())
            } else {
                Err(SpecError::new(
                    join(base, key),
                    format!(
                        "must be {want:?} with tag_params (every tag in a call is param_open, a name and '>'; the call's is `invoke`)"
                    ),
                ))
            }
        };
        want("call_open", format!("{p}invoke name=\""), &call_open)?;
        want("call_close", format!("{p}/invoke>"), &call_close)?;
        want("param_close", format!("{p}/"), &param_close)?;
        for (j, (o, c)) in sections.iter().enumerate() {
            let (wo, wc) = (format!("{p}tool_call>"), format!("{p}/tool_call>"));
            if (&**o, &**c) != (wo.as_str(), wc.as_str()) {
                return Err(SpecError::new(
                    format!("{}[{j}]", join(base, "sections")),
                    format!(
                        "must be [{wo:?}, {wc:?}] with tag_params (the section's tag is `tool_call`)"
                    ),
                ));
            }
        }
        let refuse = |key: &str, why: &str| Err(SpecError::new(join(base, key), why.to_owned()));
        if name_end != End::Quote {
            return refuse(
                "name_end",
                "must be \"quote\" with tag_params (`invoke name=\"..\"`)",
            );
        }
        if key_end != End::Gt {
            return refuse(
                "key_end",
                "must be \"gt\" with tag_params (a parameter's tag name ends at '>')",
            );
        }
        if kind_attr != KindAttr::None {
            return refuse("kind_attr", "tag-named parameters have no attributes");
        }
        if attrs_end != ">" {
            return refuse(
                "attrs_end",
                "must be \">\" with tag_params (a call opened inside another is read to its '>')",
            );
        }
        if json_body {
            return refuse(
                "json_body",
                "a call with tag-named parameters has no JSON body",
            );
        }
    }
    let key_tags = key_tags.unwrap_or_default();
    Ok(XmlTable {
        what,
        call_open,
        bare_calls,
        multi,
        name_end,
        name_sep: match m.get("name_sep") {
            None => Cow::Borrowed(""),
            Some(v) => {
                let p = join(base, "name_sep");
                Cow::Owned(nonempty(&p, string(&p, v)?)?)
            }
        },
        call_close,
        param_open,
        key_end,
        key_tags: (Cow::Owned(key_tags.0), Cow::Owned(key_tags.1)),
        param_close,
        trim_newline: flag("trim_newline")?,
        kind_attr,
        attrs_end,
        json_body,
        json_block,
        py_literals: flag("py_literals")?,
        entities: flag("entities")?,
        cdata: flag("cdata")?,
        attr_entities: flag("attr_entities")?,
        tag_params,
        variants: Cow::Borrowed(&[]),
        sections: sections.into(),
        reasoning: Cow::Borrowed(&[]),
        drops: Cow::Borrowed(&[]),
        headers: None,
    })
}

// ------------------------------------------------------------------ pattern delimiters

/// The `toolstream` keys a spec with pattern delimiters may have.
const REGIONS_TOOLSTREAM_KEYS: &[&str] = &["name"];

/// A delimiter of a field: its literals or its pattern.
fn delim(lits: &Option<Vec<String>>, pattern: &Option<String>) -> Option<Delimiter> {
    match (lits, pattern) {
        (_, Some(p)) => Some(Delimiter::regex(p.clone())),
        (Some(l), None) => Some(Delimiter::literals(l.iter().cloned())),
        (None, None) => None,
    }
}

/// The path of a field's delimiter key, for errors.
fn delim_path(f: &Field<'_>, lit: &str, pattern: &Option<String>) -> String {
    if pattern.is_some() {
        join(&f.path, &format!("{lit}_pattern"))
    } else {
        join(&f.path, lit)
    }
}

/// A spec whose delimiters include a regular expression (or whose xml-inline calls are
/// read with their `tag_pattern`): compiled for the [regions engine](super::regions).
fn regions(read: &Read<'_>, ext: Option<&Map<String, Value>>, source: &Value) -> Result<Syntax> {
    if let Some(m) = ext
        && let Some(k) = m
            .keys()
            .find(|k| !REGIONS_TOOLSTREAM_KEYS.contains(&k.as_str()))
    {
        return Err(SpecError::new(
            join("toolstream", k),
            "is for the literal engines; a spec with pattern delimiters (or xml-inline calls read with tag_pattern) takes only toolstream.name",
        ));
    }
    let name = match ext_get(ext, "name") {
        Some(n) => nonempty("toolstream.name", string("toolstream.name", n)?)?,
        None => "spec".to_owned(),
    };
    let mut delims: Vec<Delimiter> = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    let mut add = |d: Delimiter, path: String| {
        delims.push(d);
        paths.push(path);
        delims.len() - 1
    };
    let mut regions = Vec::new();
    let mut drops = Vec::new();
    let mut calls_open = None;
    for (fname, f) in &read.fields {
        let kind = match fname.as_str() {
            "tool_calls" => Kind::Calls,
            "content" => Kind::Text,
            n if REASONING_FIELDS.contains(&n) => Kind::Reasoning,
            _ => {
                return Err(SpecError::new(
                    f.path.clone(),
                    format!(
                        "no event carries a field named {fname:?}: toolstream reads `content`, `tool_calls` and reasoning ({})",
                        REASONING_FIELDS.join(", ")
                    ),
                ));
            }
        };
        if kind != Kind::Calls {
            text_args(f)?;
        }
        let open = delim(&f.open, &f.open_pattern);
        let close = delim(&f.close, &f.close_pattern);
        let Some(open) = open else {
            match kind {
                Kind::Text => {
                    // The leftover text: its closes are tokens dropped from it.
                    if let Some(c) = close
                        && f.close.as_deref() != Some(&["eos".to_owned()])
                    {
                        drops.push(add(c, delim_path(f, "close", &f.close_pattern)));
                    }
                    continue;
                }
                Kind::Reasoning => {
                    return Err(SpecError::new(
                        f.path.clone(),
                        "reasoning needs an `open` or `open_pattern` (reasoning without an opening tag is ParserConfig::reasoning_open)",
                    ));
                }
                Kind::Calls => {
                    return Err(SpecError::new(
                        join(&f.path, "open"),
                        "is required: the marker that opens a call (`open` or `open_pattern`)",
                    ));
                }
            }
        };
        let open = add(open, delim_path(f, "open", &f.open_pattern));
        if kind == Kind::Calls {
            calls_open = Some(open);
        }
        let close = close.map(|c| add(c, delim_path(f, "close", &f.close_pattern)));
        regions.push(Region {
            kind,
            open,
            close,
            join: if kind == Kind::Calls {
                None
            } else {
                f.join.clone()
            },
        });
    }
    if let Some(p) = &read.anchor_pattern {
        // Anchored at the stream start: skipped when the input begins with it.
        drops.push(add(
            Delimiter::regex(format!(r"\A(?:{p})")),
            "start_anchor_pattern".to_owned(),
        ));
    }
    // Bytes outside every region are the leftover field's, when there is one (it can
    // only be `content` here); otherwise no field's (transformers drops them).
    let leftover = read
        .fields
        .iter()
        .find(|(n, f)| n == "content" && f.open.is_none() && f.open_pattern.is_none());
    let outside_text = leftover.is_some();
    let outside_join = leftover.and_then(|(_, f)| f.join.clone());
    let (body, tag) = match read.calls.as_ref() {
        // Reasoning and text only: no call region, so the body is never read.
        None => (
            Body::Object(Shape::Fields {
                name: Cow::Borrowed(&[]),
                args: Cow::Borrowed(&[]),
                id: Cow::Borrowed(&[]),
            }),
            None,
        ),
        Some(f) => match f.content {
            "json" => (json_body(f)?, None),
            "xml-inline" => {
                let (tag, values, group) = tags_body(f)?;
                let tag = add(
                    Delimiter::regex(tag),
                    join(&join(&f.path, "content_args"), "tag_pattern"),
                );
                (Body::Tags { group, tag, values }, Some(tag))
            }
            c => {
                return Err(SpecError::new(
                    join(&f.path, "content"),
                    format!(
                        "no engine reads {c:?} calls from a spec yet (\"json\": JSON call objects or arguments; \"xml-inline\": XML parameters)"
                    ),
                ));
            }
        },
    };
    let set = pattern_set(&delims, &paths)?;
    // The name of a call comes from a group of its open pattern.
    let calls_path = read
        .calls
        .as_ref()
        .map(|f| f.path.as_str())
        .unwrap_or_default();
    if let (Body::Args { group } | Body::Tags { group, .. }, Some(open)) = (&body, calls_open)
        && !set.group_names(open).any(|g| g == group)
    {
        return Err(SpecError::new(
            join(&join(&join(calls_path, "transform"), "function"), "name"),
            format!(
                "{{{group}}} must be a named group of the call's open_pattern (`(?P<{group}>...)`)"
            ),
        ));
    }
    if let Some(tag) = tag {
        for g in ["key", "value"] {
            if !set.group_names(tag).any(|n| n == g) {
                return Err(SpecError::new(
                    join(&join(calls_path, "content_args"), "tag_pattern"),
                    format!("must have a named group `{g}` (`(?P<{g}>...)`)"),
                ));
            }
        }
    }
    Ok(Syntax {
        name,
        engine: Engine::Regions(Box::new(Plan {
            delims,
            set,
            regions,
            drops,
            body,
            outside_text,
            outside_join,
            source: source.clone(),
        })),
        anchors: read.anchors.clone(),
    })
}

/// The delimiters compiled; an error names the key of the one that does not compile.
fn pattern_set(delims: &[Delimiter], paths: &[String]) -> Result<PatternSet> {
    PatternSet::new(delims.iter().cloned()).map_err(|e| {
        let path = paths.get(e.pattern()).cloned().unwrap_or_default();
        // The anchor's pattern is compiled as `\A(?:..)`: offsets in the spec's text.
        let shift = if path == "start_anchor_pattern" { 5 } else { 0 };
        let at = e
            .offset()
            .and_then(|o| o.checked_sub(shift))
            .map(|o| format!(" (at byte {o})"))
            .unwrap_or_default();
        SpecError::new(path, format!("{}{at}", e.message()))
    })
}

/// A `json` call field's body under pattern delimiters: a call object, or the
/// arguments value with the name from the open's group.
fn json_body(f: &Field<'_>) -> Result<Body> {
    if let Some(args) = f.args {
        let base = join(&f.path, "content_args");
        if let Some((k, _)) = args
            .iter()
            .find(|(k, v)| !(k.as_str() == "allow_non_json" && **v == Value::Bool(false)))
        {
            return Err(SpecError::new(
                join(&base, k),
                match k.as_str() {
                    "unquoted_keys" | "string_delims" => {
                        "bare keys and string delimiters run on the gemma engine, whose other delimiters are literals (only the call's open_pattern `<MARKER>call:(?P<name>\\w+)` is a pattern)"
                    }
                    "allow_non_json" => {
                        "a call whose content is not JSON is an error here, never text"
                    }
                    _ => "unknown key (json content takes no arguments here)",
                },
            ));
        }
    }
    let path = join(&f.path, "transform");
    let Some(t) = f.transform else {
        return Err(SpecError::new(
            path,
            "is required for json calls (where the name and the arguments are)",
        ));
    };
    let map = object(&path, t)?;
    known(&path, map, &["type", "function"])?;
    if let Some(ty) = map.get("type")
        && ty.as_str() != Some("function")
    {
        return Err(SpecError::new(join(&path, "type"), "must be \"function\""));
    }
    let fpath = join(&path, "function");
    let ids = || -> Vec<Cow<'static, str>> {
        DEFAULT_ID_KEYS.iter().map(|k| Cow::Borrowed(*k)).collect()
    };
    let function = map
        .get("function")
        .ok_or_else(|| SpecError::new(fpath.clone(), "is required"))?;
    if placeholder(function) == Some("content") {
        return Ok(Body::Object(Shape::Fields {
            name: vec![Cow::Borrowed("name")].into(),
            args: vec![Cow::Borrowed("arguments")].into(),
            id: ids().into(),
        }));
    }
    let fmap = object(&fpath, function)?;
    known(&fpath, fmap, &["name", "arguments"])?;
    let get = |k: &str| -> Result<&str> {
        let p = join(&fpath, k);
        let v = fmap
            .get(k)
            .ok_or_else(|| SpecError::new(p.clone(), "is required"))?;
        placeholder(v).ok_or_else(|| SpecError::new(p, "must be a placeholder \"{..}\""))
    };
    let (name, args) = (get("name")?, get("arguments")?);
    if f.transform_each {
        // Each element of the list is a call object; the placeholders are its keys.
        let plain = |k: &str| !k.is_empty() && !k.contains('.');
        if !(plain(name) && plain(args) && name != args) {
            return Err(SpecError::new(
                fpath,
                "with transform_each: {\"name\": \"{K}\", \"arguments\": \"{A}\"} (K and A keys of each call object)",
            ));
        }
        return Ok(Body::List(Shape::Fields {
            name: vec![Cow::Owned(name.to_owned())].into(),
            args: vec![Cow::Owned(args.to_owned())].into(),
            id: ids().into(),
        }));
    }
    fn key(ph: &str) -> Option<&str> {
        ph.strip_prefix("content.")
            .filter(|k| !k.is_empty() && !k.contains('.'))
    }
    match (key(name), key(args), args) {
        (Some(n), Some(a), _) => Ok(Body::Object(Shape::Fields {
            name: vec![Cow::Owned(n.to_owned())].into(),
            args: vec![Cow::Owned(a.to_owned())].into(),
            id: ids().into(),
        })),
        (None, _, "content") if !name.is_empty() && !name.contains('.') && name != "content" => {
            Ok(Body::Args {
                group: name.to_owned(),
            })
        }
        _ => Err(SpecError::new(
            fpath,
            "toolstream reads {\"name\": \"{content.K}\", \"arguments\": \"{content.A}\"} (a call object) or {\"name\": \"{G}\", \"arguments\": \"{content}\"} (G a group of open_pattern, the content the arguments)",
        )),
    }
}

/// An `xml-inline` call field's body: (tag pattern, what a value is, name group).
fn tags_body(f: &Field<'_>) -> Result<(String, Values, String)> {
    let b = join(&f.path, "content_args");
    let Some(args) = f.args else {
        return Err(SpecError::new(
            b,
            "xml-inline calls need content_args.tag_pattern (or toolstream.xml: their markers as literals)",
        ));
    };
    known(
        &b,
        args,
        &["tag_pattern", "value_parser", "merge_duplicates"],
    )?;
    let tp = join(&b, "tag_pattern");
    let tag = match args.get("tag_pattern") {
        Some(t) => nonempty(&tp, string(&tp, t)?)?,
        None => return Err(SpecError::new(tp, "is required")),
    };
    if let Some(m) = args.get("merge_duplicates")
        && boolean(&join(&b, "merge_duplicates"), m)?
    {
        return Err(SpecError::new(
            join(&b, "merge_duplicates"),
            "a repeated parameter is an error here, never merged",
        ));
    }
    let values = match args.get("value_parser") {
        None => Values::Raw,
        Some(v) => {
            let vp = join(&b, "value_parser");
            let m = object(&vp, v)?;
            known(&vp, m, &["name", "args"])?;
            match m.get("name").and_then(Value::as_str) {
                Some("json") => {}
                Some("text") => {}
                _ => {
                    return Err(SpecError::new(
                        join(&vp, "name"),
                        "toolstream reads values as \"json\" (JSON when they parse, else strings) or \"text\"",
                    ));
                }
            }
            let json = m.get("name").and_then(Value::as_str) == Some("json");
            let mut string_delims = Vec::new();
            if let Some(a) = m.get("args") {
                let ap = join(&vp, "args");
                let am = object(&ap, a)?;
                if json {
                    known(&ap, am, &["allow_non_json", "string_delims", "strip"])?;
                } else {
                    known(&ap, am, &["strip"])?;
                }
                if let Some(x) = am.get("allow_non_json")
                    && !boolean(&join(&ap, "allow_non_json"), x)?
                {
                    return Err(SpecError::new(
                        join(&ap, "allow_non_json"),
                        "must be true: a value that is not JSON is a string here",
                    ));
                }
                if let Some(x) = am.get("strip")
                    && !boolean(&join(&ap, "strip"), x)?
                {
                    return Err(SpecError::new(
                        join(&ap, "strip"),
                        "must be true: a value's surrounding whitespace is not kept here",
                    ));
                }
                if let Some(d) = am.get("string_delims") {
                    string_delims = pairs(&join(&ap, "string_delims"), d)?;
                }
            }
            if json {
                Values::Json { string_delims }
            } else {
                Values::Text
            }
        }
    };
    let path = join(&f.path, "transform");
    let group = match f.transform {
        None => {
            return Err(SpecError::new(
                path,
                "is required: {\"type\": \"function\", \"function\": {\"name\": \"{G}\", \"arguments\": \"{content}\"}} (G a group of open_pattern)",
            ));
        }
        Some(t) => {
            let name = t
                .get("function")
                .and_then(|f| f.get("name"))
                .and_then(placeholder);
            let ok = t.get("type").is_none_or(|ty| ty == "function")
                && t.as_object().is_some_and(|m| {
                    m.len() <= 2 && m.keys().all(|k| k == "type" || k == "function")
                })
                && t.get("function")
                    .and_then(Value::as_object)
                    .is_some_and(|m| m.len() == 2)
                && t.get("function")
                    .and_then(|f| f.get("arguments"))
                    .and_then(placeholder)
                    == Some("content");
            match name {
                Some(n) if ok && !n.is_empty() && !n.contains('.') && n != "content" => {
                    n.to_owned()
                }
                _ => {
                    return Err(SpecError::new(
                        path,
                        "xml-inline calls take {\"type\": \"function\", \"function\": {\"name\": \"{G}\", \"arguments\": \"{content}\"}} (G a group of open_pattern)",
                    ));
                }
            }
        }
    };
    Ok((tag, values, group))
}
