//! `python-call-list` calls, compiled onto the [pythonic engine](crate::text::pythonic):
//! `[get_weather(city='Paris', days=3), get_time()]` after an opening token (`lfm2`'s
//! `<|tool_call_start|>`), or bare (`llama-pythonic`), or one call per line (`olmo3`).
//!
//! The field is written as transformers.js' LFM template writes it (transformers'
//! `python-call-list` content parser gives a list of `{name, arguments}` objects):
//!
//! ```json
//! {"open": "<|tool_call_start|>", "close": "<|tool_call_end|>", "content": "python-call-list",
//!  "transform_each": true,
//!  "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{arguments}"}}}
//! ```
//!
//! with `toolstream.pythonic` `{"bare_list": true}` when a bare `[` opens a list too (no
//! token needed: `llama-pythonic`) and `{"bracketless": true}` when calls may come one
//! per line without brackets after the token (`olmo3`). `close` is optional.
//!
//! Where the engine differs from that parser (which reads the whole region once it
//! closed): the calls stream (Start at each call's `(`, arguments as they arrive); a
//! call whose arguments are not literals is an error with its raw bytes and the calls
//! around it stand (the parser fails the whole list); a list's text after its `]` is
//! text (the parser fails on trailing content); positional arguments are an error (the
//! parser fails too); Python's `b''` bytes, sets and expressions are errors in both.
//! The template's reasoning field (`thinking`: `<think>` / `</think>`) and the `content`
//! field's end tokens (`<|im_end|>`) are read as by the other engines: a reasoning block
//! is read by the kit's text stage, end tokens are dropped from the text. Both must
//! begin with `<` here (the engine reads its text byte by byte up to each `<` or `[`);
//! other tags are refused naming the field. So transformers.js' LFM template loads as
//! written (`lfm2`'s own spec).

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::SpecError;
use crate::text::pythonic::{Frame, Tokens};

type Result<T> = std::result::Result<T, SpecError>;

/// The parts of a template field this engine reads.
pub(super) struct Fields<'a> {
    pub(super) path: &'a str,
    pub(super) open: Option<&'a [String]>,
    pub(super) close: Option<&'a [String]>,
    pub(super) args: Option<&'a Map<String, Value>>,
    pub(super) transform: Option<&'a Value>,
    pub(super) transform_each: bool,
}

fn tokens(lits: &[String]) -> Tokens {
    Cow::Owned(
        lits.iter()
            .map(|l| Cow::Owned(l.as_bytes().to_vec()))
            .collect(),
    )
}

fn flag(path: &str, m: &Map<String, Value>, key: &str) -> Result<bool> {
    match m.get(key) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(SpecError::new(
            format!("{path}.{key}"),
            "must be true or false",
        )),
    }
}

/// The frame of a `python-call-list` field; `ext` is `toolstream.pythonic`; `reasoning`
/// and `drops` the template's reasoning pairs and dropped end tokens.
pub(super) fn frame(
    f: Fields<'_>,
    ext: Option<&Value>,
    reasoning: Vec<(Cow<'static, str>, Cow<'static, str>)>,
    drops: Vec<Cow<'static, str>>,
) -> Result<Frame> {
    let path = f.path;
    let (bare_list, bracketless) = match ext {
        None => (false, false),
        Some(Value::Object(m)) => {
            let p = "toolstream.pythonic";
            if let Some(k) = m.keys().find(|k| *k != "bare_list" && *k != "bracketless") {
                return Err(SpecError::new(
                    format!("{p}.{k}"),
                    "unknown key (known: bare_list, bracketless)",
                ));
            }
            (flag(p, m, "bare_list")?, flag(p, m, "bracketless")?)
        }
        Some(_) => {
            return Err(SpecError::new(
                "toolstream.pythonic",
                "must be an object: {\"bare_list\": .., \"bracketless\": ..}",
            ));
        }
    };
    if let Some((k, _)) = f.args.and_then(|a| a.iter().next()) {
        return Err(SpecError::new(
            format!("{path}.content_args.{k}"),
            "unknown key (python-call-list content takes no arguments)",
        ));
    }
    let want = "must be {\"type\": \"function\", \"function\": {\"name\": \"{name}\", \"arguments\": \"{arguments}\"}} with transform_each: true (each parsed call is {name, arguments})";
    if !f.transform_each {
        return Err(SpecError::new(format!("{path}.transform_each"), want));
    }
    let ok = f.transform.is_some_and(|t| {
        *t == json!({"type": "function", "function": {"name": "{name}", "arguments": "{arguments}"}})
            || *t == json!({"function": {"name": "{name}", "arguments": "{arguments}"}})
    });
    if !ok {
        return Err(SpecError::new(format!("{path}.transform"), want));
    }
    let open = f.open.unwrap_or_default();
    if open.is_empty() && !bare_list {
        return Err(SpecError::new(
            format!("{path}.open"),
            "is required: the token that opens a call list (or toolstream.pythonic.bare_list: a bare `[` opens one)",
        ));
    }
    let close = f.close.unwrap_or_default();
    if close.iter().any(|c| c == "eos") {
        return Err(SpecError::new(
            format!("{path}.close"),
            "\"eos\" is not read here: a list needs no close (the end of the input ends it)",
        ));
    }
    if let Some((o, _)) = reasoning.iter().find(|(o, _)| !o.starts_with('<')) {
        return Err(SpecError::new(
            "fields.thinking.open",
            format!(
                "{o:?}: the pythonic engine finds reasoning tags that begin with `<` (its text is read byte by byte up to each `<` or `[`)"
            ),
        ));
    }
    if let Some(d) = drops.iter().find(|d| !d.starts_with('<')) {
        return Err(SpecError::new(
            "fields.content.close",
            format!("{d:?}: the pythonic engine drops tokens that begin with `<`"),
        ));
    }
    Ok(Frame {
        open: tokens(open),
        close: tokens(close),
        bare_list,
        bracketless,
        reasoning: Cow::Owned(reasoning),
        drops: Cow::Owned(drops),
    })
}

fn lits(tokens: &Tokens) -> Value {
    let items: Vec<Value> = tokens
        .iter()
        .map(|t| json!(String::from_utf8_lossy(t)))
        .collect();
    match items.as_slice() {
        [one] => one.clone(),
        _ => Value::Array(items),
    }
}

/// The `tool_calls` field of `frame` (what [`frame`] reads back), and its
/// `toolstream.pythonic`.
pub(super) fn field(frame: &Frame) -> (Value, Value) {
    let mut field = Map::new();
    if !frame.open.is_empty() {
        field.insert("open".into(), lits(&frame.open));
    }
    if !frame.close.is_empty() {
        field.insert("close".into(), lits(&frame.close));
    }
    field.insert("content".into(), json!("python-call-list"));
    field.insert("repeats".into(), json!(true));
    field.insert("transform_each".into(), json!(true));
    field.insert(
        "transform".into(),
        json!({"type": "function", "function": {"name": "{name}", "arguments": "{arguments}"}}),
    );
    (
        Value::Object(field),
        json!({"bare_list": frame.bare_list, "bracketless": frame.bracketless}),
    )
}
