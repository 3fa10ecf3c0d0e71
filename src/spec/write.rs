//! A [`Syntax`] written as a spec (ours: `{"response_template": .., "toolstream": ..}`),
//! which [`read`](super::read) reads back to an equal syntax: the template says what
//! transformers' format can, the `toolstream` object the rest.

use serde_json::{Map, Value, json};

use super::read::kind_attr_name;
use super::{Engine, Syntax};
use crate::text::json::{Payload, Table as JsonTable};
use crate::text::kit::json_call::Shape;
use crate::text::xml::{End, KindAttr, Table as XmlTable};

/// One literal, or a list of them.
fn lits<S: AsRef<str>>(items: &[S]) -> Value {
    match items {
        [one] => json!(one.as_ref()),
        _ => Value::Array(items.iter().map(|s| json!(s.as_ref())).collect()),
    }
}

pub(super) fn spec(syntax: &Syntax) -> Value {
    if let Engine::Regions(p) = &syntax.engine {
        // Written back as read: the template says it all.
        return json!({"response_template": p.source, "toolstream": {"name": syntax.name}});
    }
    let mut fields = Map::new();
    let mut ext = Map::new();
    ext.insert("name".into(), json!(syntax.name));
    let section_drops = match &syntax.engine {
        Engine::Sections(t) => super::sections::drops(t),
        _ => Vec::new(),
    };
    let (reasoning, drops) = match &syntax.engine {
        Engine::Json(t) => (&t.reasoning[..], &t.drops[..]),
        Engine::Xml(t) => (&t.reasoning[..], &t.drops[..]),
        Engine::Gemma(d) => (&d.reasoning[..], &d.drops[..]),
        Engine::Pythonic(f) => (&f.reasoning[..], &f.drops[..]),
        Engine::Sections(t) => (&t.reasoning[..], &section_drops[..]),
        Engine::Regions(_) => return Value::Null,
    };
    if let Some((open, close)) = reasoning.first() {
        fields.insert(
            "thinking".into(),
            json!({"open": open, "close": close, "content": "text"}),
        );
    }
    if reasoning.len() > 1 {
        ext.insert(
            "reasoning".into(),
            Value::Array(reasoning.iter().map(|(o, c)| json!([o, c])).collect()),
        );
    }
    let calls = match &syntax.engine {
        Engine::Json(t) => {
            ext.insert("engine".into(), json!("json"));
            json_calls(t, &mut ext)
        }
        Engine::Xml(t) => {
            ext.insert("engine".into(), json!("xml"));
            xml_calls(t, &mut ext)
        }
        Engine::Gemma(d) => {
            ext.insert("engine".into(), json!("gemma"));
            super::lax::field(d)
        }
        Engine::Pythonic(f) => {
            ext.insert("engine".into(), json!("pythonic"));
            let (field, flags) = super::pylist::field(f);
            ext.insert("pythonic".into(), flags);
            field
        }
        Engine::Sections(t) => {
            ext.insert("engine".into(), json!("sections"));
            let (field, tokens) = super::sections::field(t);
            ext.insert("sections".into(), tokens);
            field
        }
        Engine::Regions(_) => return Value::Null,
    };
    fields.insert("tool_calls".into(), calls);
    let mut content = Map::new();
    if !drops.is_empty() {
        content.insert("close".into(), lits(drops));
    }
    content.insert("content".into(), json!("text"));
    fields.insert("content".into(), Value::Object(content));
    let mut template = Map::new();
    template.insert("version".into(), json!(1));
    template.insert("defaults".into(), json!({"role": "assistant"}));
    if !syntax.anchors.is_empty() {
        template.insert("start_anchor".into(), lits(&syntax.anchors));
    }
    template.insert("fields".into(), Value::Object(fields));
    json!({"response_template": template, "toolstream": ext})
}

fn json_calls(t: &JsonTable, ext: &mut Map<String, Value>) -> Value {
    let mut field = Map::new();
    if let Some((open, close_head)) = &t.citations {
        ext.insert("citations".into(), json!([open, close_head]));
    }
    if let Some(header) = &t.header {
        ext.insert("header".into(), json!(header));
    }
    let opens: Vec<&str> = t.openers.iter().map(|o| &*o.marker).collect();
    let mut closes: Vec<&str> = t
        .openers
        .iter()
        .filter_map(|o| o.close.as_deref())
        .collect();
    closes.sort_unstable();
    closes.dedup();
    field.insert("open".into(), lits(&opens));
    if !closes.is_empty() {
        field.insert("close".into(), lits(&closes));
    }
    field.insert("content".into(), json!("json"));
    field.insert("repeats".into(), json!(true));
    let each =
        t.openers.first().map(|o| o.payload) != Some(Payload::Object) && t.shape != Shape::NameKey;
    match &t.shape {
        Shape::Fields { name, args, id } => {
            let (n, a) = (
                name.first().map_or("name", |k| k),
                args.first().map_or("arguments", |k| k),
            );
            let function = if each {
                json!({"name": format!("{{{n}}}"), "arguments": format!("{{{a}}}")})
            } else if n == "name" && a == "arguments" {
                json!("{content}")
            } else {
                json!({"name": format!("{{content.{n}}}"), "arguments": format!("{{content.{a}}}")})
            };
            field.insert(
                "transform".into(),
                json!({"type": "function", "function": function}),
            );
            if each {
                field.insert("transform_each".into(), json!(true));
            }
            ext.insert(
                "keys".into(),
                json!({"name": name, "arguments": args, "id": id}),
            );
        }
        Shape::NameKey => {
            ext.insert("keys".into(), json!("name-as-key"));
        }
    }
    // What the field alone says: each opener with the one close, the payload from
    // transform_each. Anything else needs the openers spelled out.
    let derived = if each {
        Payload::Either
    } else {
        Payload::Object
    };
    let plain = closes.len() <= 1
        && t.openers
            .iter()
            .all(|o| o.payload == derived && o.close.as_deref() == closes.first().copied());
    if !plain {
        ext.insert(
            "openers".into(),
            Value::Array(
                t.openers
                    .iter()
                    .map(|o| {
                        json!({
                            "open": o.marker,
                            "close": o.close,
                            "payload": match o.payload {
                                Payload::Object => "object",
                                Payload::Either => "either",
                                Payload::EitherOpenArray => "either-open-array",
                                Payload::ArrayBody => "array-body",
                            },
                        })
                    })
                    .collect(),
            ),
        );
    }
    Value::Object(field)
}

fn ending(
    end: End,
    tags: &(
        std::borrow::Cow<'static, str>,
        std::borrow::Cow<'static, str>,
    ),
) -> Value {
    match end {
        End::Gt => json!("gt"),
        End::Quote => json!("quote"),
        End::Line => json!("line"),
        End::Tags => json!([tags.0, tags.1]),
    }
}

fn xml_calls(t: &XmlTable, ext: &mut Map<String, Value>) -> Value {
    // Each spelling's sections' tags (or its call tags without sections), the top
    // level's first, then each variant's; a tag listed once.
    let mut opens: Vec<&str> = Vec::new();
    let mut closes: Vec<&str> = Vec::new();
    for t in std::iter::once(t).chain(t.variants.iter().map(|v| &**v)) {
        let (o, c): (Vec<&str>, Vec<&str>) = if t.sections.is_empty() {
            (vec![&*t.call_open], vec![&*t.call_close])
        } else {
            t.sections.iter().map(|(o, c)| (&**o, &**c)).unzip()
        };
        for (all, tags) in [(&mut opens, o), (&mut closes, c)] {
            for tag in tags {
                if !all.contains(&tag) {
                    all.push(tag);
                }
            }
        }
    }
    let mut xml = xml_spelling(t);
    if let Some((open, end)) = &t.headers {
        xml.insert("headers".into(), json!({"open": open, "end": end}));
    }
    if !t.variants.is_empty() {
        xml.insert(
            "variants".into(),
            Value::Array(
                t.variants
                    .iter()
                    .map(|v| Value::Object(xml_spelling(v)))
                    .collect(),
            ),
        );
    }
    ext.insert("xml".into(), Value::Object(xml));
    json!({
        "open": lits(&opens),
        "close": lits(&closes),
        "content": "xml-inline",
        "repeats": true,
    })
}

/// One spelling's `toolstream.xml` object (its variants aside).
fn xml_spelling(t: &XmlTable) -> Map<String, Value> {
    let mut xml = Map::new();
    for (key, value) in [
        ("what", json!(t.what)),
        (
            "sections",
            json!(
                t.sections
                    .iter()
                    .map(|(o, c)| json!([o, c]))
                    .collect::<Vec<_>>()
            ),
        ),
        ("call_open", json!(t.call_open)),
        ("bare_calls", json!(t.bare_calls)),
        ("multi", json!(t.multi)),
        ("name_end", ending(t.name_end, &t.key_tags)),
        ("call_close", json!(t.call_close)),
        ("param_open", json!(t.param_open)),
        ("key_end", ending(t.key_end, &t.key_tags)),
        ("param_close", json!(t.param_close)),
        ("trim_newline", json!(t.trim_newline)),
    ] {
        xml.insert(key.into(), value);
    }
    // The keys added after the first specs are written only when set, so that a spec
    // of a syntax that does not use them reads in the versions before them too (the
    // older `string_attr` is read, never written: `kind_attr` says it).
    if t.kind_attr != KindAttr::None {
        xml.insert("kind_attr".into(), json!(kind_attr_name(t.kind_attr)));
    }
    if t.attrs_end != ">" {
        xml.insert("attrs_end".into(), json!(t.attrs_end));
    }
    for (key, on) in [
        ("json_body", t.json_body),
        ("py_literals", t.py_literals),
        ("entities", t.entities),
        ("cdata", t.cdata),
        ("attr_entities", t.attr_entities),
        ("tag_params", t.tag_params),
    ] {
        if on {
            xml.insert(key.into(), json!(true));
        }
    }
    if let Some((open, close)) = &t.json_block {
        xml.insert("json_block".into(), json!([open, close]));
    }
    if !t.name_sep.is_empty() {
        xml.insert("name_sep".into(), json!(t.name_sep));
    }
    xml
}
