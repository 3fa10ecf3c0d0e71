//! Special-token section calls, compiled onto the [section engine](crate::text::sections)
//! (`deepseek`, `kimi-k2`): a section token around the calls, and per call a begin
//! token, a head (the name, or the model's own call id), a separator, the JSON
//! arguments and an end token. A spec runs on this engine when `toolstream.engine` is
//! `"sections"`; the tokens are in `toolstream.sections`:
//!
//! | key | what |
//! | --- | --- |
//! | `calls_begin`, `calls_end` | open and close the section of calls (both required; dropped from the text, or only where they frame calls with `literal_sections`) |
//! | `call_begin` | opens one call (required; begins with `<` or `[` and is at least two bytes: a special token, never string content) |
//! | `sep` | between the head and the arguments (required) |
//! | `call_end` | closes one call (required) |
//! | `head` | how the text between `call_begin` and `sep` reads (required): `"deepseek"` (the name; or V3's type `function`, the name then following on its own line after `sep`) or `"kimi-id"` (the model's call id `functions.NAME:IDX`, kept verbatim as the call's id; the name is NAME) |
//! | `calls_end_reasoning` | `calls_begin` and `call_begin` end an open reasoning block (Kimi K2 may omit `</think>` before its calls); default `false` |
//! | `literal_sections` | the section tokens are dropped only where they frame calls (`calls_begin` followed, past whitespace, by `call_begin`; `calls_end` after a call began) and are text anywhere else (tags written as several ordinary tokens, as PLaMo 3's); default `false` (dropped wherever they stand) |
//! | `label` | what the messages call the syntax (`a malformed DeepSeek tool call`); default the spec's `toolstream.name` |
//!
//! The five tokens are non-empty and all different. The template says the rest, as
//! for the other engines: `fields.content.close` lists the tokens dropped from the
//! text, which must include `calls_begin` and `calls_end` (the others are end-of-turn
//! tokens: `<｜end▁of▁sentence｜>`); the reasoning field (and `toolstream.reasoning`)
//! the reasoning tags (`deepseek` and `kimi-k2` read `<think>` / `</think>`; a spec
//! without one has no reasoning stage). The `tool_calls` field is what transformers runs
//! ([`toolstream spec deepseek`](crate::Syntax::to_json) writes it so): an
//! `open_pattern` whose named group `name` is the call's name (and, for `kimi-id`, `id`
//! its id), the fence the engine skips (`` ```json ``) in the open and close patterns:
//!
//! ~~~json
//! {"open_pattern": "<｜tool▁call▁begin｜>\\s*(?:function<｜tool▁sep｜>(?!\\s*[\\[{]))?(?P<name>[^\\s<]+)\\s*(?:<｜tool▁sep｜>|\\n)(?:\\s*```json)?\\s*",
//!  "close_pattern": "\\s*(?:```)?\\s*<｜tool▁call▁end｜>", "content": "json", "repeats": true,
//!  "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}
//! ~~~
//!
//! The patterns are not compiled: the engine reads the head as its [module
//! docs](crate::text::sections) say, and the reader checks that they are the ones written
//! for the tokens (so a spec never says one thing to transformers and another here). The
//! literal forms `open` = `call_begin` and `close` = `call_end` are read the same way
//! (what a hand-written spec may use). The transform is the one above; for `kimi-id` it
//! is `{"type": "function", "id": "{id}", "function": {"name": "{name}", "arguments":
//! "{content}"}}`. No `content_args`, no `transform_each`.

use serde_json::{Map, Value, json};

use super::SpecError;
use super::lax::escape;
use crate::text::sections::{Head, Token, Tokens};

type Result<T> = std::result::Result<T, SpecError>;

/// The keys of `toolstream.sections`.
const KEYS: &[&str] = &[
    "calls_begin",
    "calls_end",
    "call_begin",
    "sep",
    "call_end",
    "head",
    "calls_end_reasoning",
    "literal_sections",
    "label",
];

const PATH: &str = "toolstream.sections";

/// The parts of the template's `tool_calls` field this engine reads.
pub(super) struct Fields<'a> {
    pub(super) path: &'a str,
    pub(super) open: Option<&'a [String]>,
    pub(super) open_pattern: Option<&'a str>,
    pub(super) close: Option<&'a [String]>,
    pub(super) close_pattern: Option<&'a str>,
    pub(super) content: &'a str,
    pub(super) args: Option<&'a Map<String, Value>>,
    pub(super) transform: Option<&'a Value>,
    pub(super) transform_each: bool,
}

fn head_name(h: Head) -> &'static str {
    match h {
        Head::DeepSeek => "deepseek",
        Head::KimiId => "kimi-id",
    }
}

/// The `open_pattern` written for `t`.
fn open_pattern(t: &Tokens) -> String {
    let (b, s) = (escape(&t.call_begin), escape(&t.sep));
    match t.head {
        Head::DeepSeek => format!(
            r"{b}\s*(?:function{s}(?!\s*[\[{{]))?(?P<name>[^\s<]+)\s*(?:{s}|\n)(?:\s*```json)?\s*"
        ),
        Head::KimiId => format!(
            r"{b}\s*(?P<id>(?:functions\.)?(?P<name>[^\s<]+?)(?::\d+)?)\s*{s}(?:\s*```json)?\s*"
        ),
    }
}

/// The `close_pattern` written for `t`.
fn close_pattern(t: &Tokens) -> String {
    format!(r"\s*(?:```)?\s*{}", escape(&t.call_end))
}

/// The transform of a head.
fn transform(h: Head) -> Value {
    let function = json!({"name": "{name}", "arguments": "{content}"});
    match h {
        Head::DeepSeek => json!({"type": "function", "function": function}),
        Head::KimiId => json!({"type": "function", "id": "{id}", "function": function}),
    }
}

fn token(m: &Map<String, Value>, key: &str) -> Result<String> {
    let path = format!("{PATH}.{key}");
    match m.get(key) {
        None => Err(SpecError::new(path, "is required")),
        Some(Value::String(s)) if s.is_empty() => Err(SpecError::new(path, "must not be empty")),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(SpecError::new(path, "must be a string")),
    }
}

/// The table of a spec on this engine: `ext` is `toolstream.sections`, `name` the
/// spec's name, `reasoning` and `drops` what the template's other fields say.
pub(super) fn tokens(
    f: Fields<'_>,
    ext: Option<&Value>,
    name: &str,
    reasoning: Vec<(Token, Token)>,
    drops: Vec<Token>,
) -> Result<Tokens> {
    let m = match ext {
        Some(Value::Object(m)) => m,
        Some(_) => return Err(SpecError::new(PATH, "must be an object")),
        None => {
            return Err(SpecError::new(
                PATH,
                "is required with toolstream.engine \"sections\": the tokens",
            ));
        }
    };
    if let Some(k) = m.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(SpecError::new(
            format!("{PATH}.{k}"),
            format!("unknown key (known here: {})", KEYS.join(", ")),
        ));
    }
    let mut seen: Vec<(&str, String)> = Vec::new();
    for key in ["calls_begin", "calls_end", "call_begin", "sep", "call_end"] {
        let t = token(m, key)?;
        if let Some((other, _)) = seen.iter().find(|(_, s)| *s == t) {
            return Err(SpecError::new(
                format!("{PATH}.{key}"),
                format!("must differ from {PATH}.{other}"),
            ));
        }
        seen.push((key, t));
    }
    let tok = |k: &str| {
        seen.iter()
            .find(|(key, _)| *key == k)
            .map(|(_, t)| t.clone())
            .unwrap_or_default()
    };
    let call_begin = tok("call_begin");
    if !(call_begin.starts_with('<') || call_begin.starts_with('[')) || call_begin.len() < 2 {
        return Err(SpecError::new(
            format!("{PATH}.call_begin"),
            "must begin with `<` or `[` and be at least two bytes: a special token (never string content, so a call that begins inside an argument string ends the open one)",
        ));
    }
    let head = match m.get("head") {
        None => return Err(SpecError::new(format!("{PATH}.head"), "is required")),
        Some(Value::String(h)) if h == "deepseek" => Head::DeepSeek,
        Some(Value::String(h)) if h == "kimi-id" => Head::KimiId,
        Some(v) => {
            return Err(SpecError::new(
                format!("{PATH}.head"),
                format!("must be \"deepseek\" or \"kimi-id\", not {v}"),
            ));
        }
    };
    let calls_end_reasoning = match m.get("calls_end_reasoning") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(SpecError::new(
                format!("{PATH}.calls_end_reasoning"),
                "must be true or false",
            ));
        }
    };
    let literal_sections = match m.get("literal_sections") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(SpecError::new(
                format!("{PATH}.literal_sections"),
                "must be true or false",
            ));
        }
    };
    let label = match m.get("label") {
        None => name.to_owned(),
        Some(_) => token(m, "label")?,
    };
    // The drops: the section tokens, then the end-of-turn tokens.
    let content = match f.path.strip_suffix("tool_calls") {
        Some(fields) => format!("{fields}content.close"),
        None => "fields.content.close".to_owned(),
    };
    let (calls_begin, calls_end) = (tok("calls_begin"), tok("calls_end"));
    for t in [&calls_begin, &calls_end] {
        if !drops.iter().any(|d| d == t) {
            return Err(SpecError::new(
                content.clone(),
                format!(
                    "must list {t:?}: the section tokens of toolstream.sections are dropped from the text"
                ),
            ));
        }
    }
    let eos: Vec<Token> = drops
        .into_iter()
        .filter(|d| *d != calls_begin && *d != calls_end)
        .collect();
    if let Some(d) = eos.iter().find(|d| seen.iter().any(|(_, t)| t == &***d)) {
        return Err(SpecError::new(
            content,
            format!("{d:?} is a call token of toolstream.sections, never dropped from the text"),
        ));
    }
    let t = Tokens {
        label: Token::Owned(label),
        calls_begin: Token::Owned(calls_begin),
        calls_end: Token::Owned(calls_end),
        call_begin: Token::Owned(call_begin),
        call_end: Token::Owned(tok("call_end")),
        sep: Token::Owned(tok("sep")),
        eos: eos.into(),
        head,
        reasoning: reasoning.into(),
        calls_end_reasoning,
        literal_sections,
    };
    check_field(&f, &t)?;
    Ok(t)
}

/// The `tool_calls` field says what the tokens say (see the [module docs](self)).
fn check_field(f: &Fields<'_>, t: &Tokens) -> Result<()> {
    let path = f.path;
    if f.content != "json" {
        return Err(SpecError::new(
            format!("{path}.content"),
            format!(
                "must be \"json\" on the sections engine (not {:?})",
                f.content
            ),
        ));
    }
    if let Some((k, _)) = f.args.and_then(|a| a.iter().next()) {
        return Err(SpecError::new(
            format!("{path}.content_args.{k}"),
            "unknown key (the sections engine's calls take no content_args)",
        ));
    }
    match (f.open, f.open_pattern) {
        (Some([o]), None) if *o == *t.call_begin => {}
        (None, Some(p)) if p == open_pattern(t) => {}
        (_, Some(_)) => {
            return Err(SpecError::new(
                format!("{path}.open_pattern"),
                format!(
                    "must be {:?} (the head of toolstream.sections.head {:?} after its tokens), or `open` the literal toolstream.sections.call_begin",
                    open_pattern(t),
                    head_name(t.head)
                ),
            ));
        }
        _ => {
            return Err(SpecError::new(
                format!("{path}.open"),
                format!(
                    "must be toolstream.sections.call_begin ({:?}), or `open_pattern` {:?}",
                    t.call_begin,
                    open_pattern(t)
                ),
            ));
        }
    }
    match (f.close, f.close_pattern) {
        (Some([c]), None) if *c == *t.call_end => {}
        (None, Some(p)) if p == close_pattern(t) => {}
        (_, Some(_)) => {
            return Err(SpecError::new(
                format!("{path}.close_pattern"),
                format!(
                    "must be {:?} (the optional fence, then toolstream.sections.call_end), or `close` the literal call_end",
                    close_pattern(t)
                ),
            ));
        }
        _ => {
            return Err(SpecError::new(
                format!("{path}.close"),
                format!(
                    "must be toolstream.sections.call_end ({:?}), or `close_pattern` {:?}",
                    t.call_end,
                    close_pattern(t)
                ),
            ));
        }
    }
    if f.transform_each {
        return Err(SpecError::new(
            format!("{path}.transform_each"),
            "must be false: each call has one head and one arguments object",
        ));
    }
    let want = transform(t.head);
    if f.transform != Some(&want) {
        return Err(SpecError::new(
            format!("{path}.transform"),
            format!(
                "must be {want} (toolstream.sections.head {:?})",
                head_name(t.head)
            ),
        ));
    }
    Ok(())
}

/// The tokens `t` drops from the text (`fields.content.close`).
pub(super) fn drops(t: &Tokens) -> Vec<Token> {
    let mut d = vec![t.calls_begin.clone(), t.calls_end.clone()];
    d.extend(t.eos.iter().cloned());
    d
}

/// The `tool_calls` field of `t` (what [`tokens`] reads back), and its
/// `toolstream.sections`.
pub(super) fn field(t: &Tokens) -> (Value, Value) {
    let field = json!({
        "open_pattern": open_pattern(t),
        "close_pattern": close_pattern(t),
        "content": "json",
        "repeats": true,
        "transform": transform(t.head),
    });
    let ext = json!({
        "calls_begin": t.calls_begin,
        "calls_end": t.calls_end,
        "call_begin": t.call_begin,
        "sep": t.sep,
        "call_end": t.call_end,
        "head": head_name(t.head),
        "calls_end_reasoning": t.calls_end_reasoning,
        "literal_sections": t.literal_sections,
        "label": t.label,
    });
    (field, ext)
}
