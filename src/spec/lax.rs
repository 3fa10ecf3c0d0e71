//! `json` calls with transformers' `content_args.unquoted_keys` / `string_delims`,
//! compiled onto the [Gemma engine](crate::text::gemma): bare-key objects whose strings
//! sit between a token (Gemma 4's `<|"|>`, FunctionGemma's `<escape>`), the name from
//! the call's `open_pattern`.
//!
//! What is read (anything else is an error naming the key):
//!
//! - `open_pattern`: a literal (its regex metacharacters escaped, as `re.escape` or
//!   `regex::escape` writes them) then `call:(?P<G>\w+)`: `<\|tool_call>call:(?P<name>\w+)`;
//! - `close`: one literal (`<tool_call|>`), or a `close_pattern` spelling one
//!   (`<tool_call\|>\s*`, [`close_literals`]: the template reader turns such a close of
//!   any field into its literals when the calls run here);
//! - `content_args`: `unquoted_keys: true` and `string_delims: [[Q, Q]]`, one pair whose
//!   open and close are the same token, beginning with `<` and holding no other `<`
//!   (`allow_non_json: false` is accepted too);
//! - `transform`: `{"type": "function", "function": {"name": "{G}", "arguments": "{content}"}}`.
//!
//! Where the engine and transformers differ (the engine is the model's grammar, not a
//! rewrite of it into JSON):
//!
//! - transformers quotes a key only right after `{` or `,` and only `\w+` ones
//!   (`(?<=[{,])(\w+):`); the engine reads keys after whitespace too and any bare word
//!   (see [`scan::gemma`](crate::scan::gemma)), and reads a key written as a string.
//! - transformers replaces every `Q…Q` of the body first, so a `Q` can stand anywhere;
//!   the engine reads one as a value or key only. Bare values other than numbers,
//!   `true`, `false`, `null` (and Python's `True`, `False`, `None`) are an error, and so
//!   is a JSON-quoted string value (`{location: "London"}`, which transformers' rewrite
//!   leaves as JSON and transformers.js' whitespace test reads): the gemma engine's
//!   grammar is the chat template's, which writes every string between `Q`s.
//! - The name: `\w+` in the pattern; the engine reads `[A-Za-z0-9_.:-]` (Gemma 4's
//!   dotted and namespaced names), whitespace before `call:`, and Gemma 4's bare
//!   `<|tool_call>:NAME{` opener (vllm#53431), which the pattern does not match.
//! - A close marker inside a string does not end the call; the call's own close is
//!   optional once its arguments closed (text after them is text again).

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::SpecError;
use crate::text::gemma::Dialect;

type Result<T> = std::result::Result<T, SpecError>;

/// The keys of `content_args` that ask for this engine.
pub(super) const LAX_KEYS: &[&str] = &["unquoted_keys", "string_delims"];

/// What a `json` field's open pattern ends with, before the name group.
const CALL: &str = "call:(?P<";
/// What follows the group's name.
const NAME: &str = ">\\w+)";

/// Regex metacharacters (escaped in a literal).
fn is_meta(c: char) -> bool {
    "\\.+*?()|[]{}^$#&-~".contains(c)
}

/// A literal in a pattern's syntax.
pub(super) fn escape(lit: &str) -> String {
    let mut out = String::with_capacity(lit.len() + 4);
    for c in lit.chars() {
        if is_meta(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The literal a pattern spells, if it is one: every metacharacter escaped (`\` then
/// ASCII punctuation), no class, group, repetition or anchor.
fn unescape(p: &str) -> Option<String> {
    let mut out = String::with_capacity(p.len());
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e) if e.is_ascii_punctuation() => out.push(e),
                _ => return None,
            },
            c if is_meta(c) && c != '-' && c != '#' && c != '&' && c != '~' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// The literals a close pattern spells, if it is one: `A`, `A|B` or `(?:A|B)`, each an
/// escaped literal, optionally followed by `\s*` (TRL's templates write every close as
/// `<tool_call\|>\s*`). The gemma engine reads such a close as its literals; the
/// whitespace the `\s*` would eat is text there.
pub(super) fn close_literals(pattern: &str) -> Option<Vec<String>> {
    let p = pattern.strip_suffix("\\s*").unwrap_or(pattern);
    let p = match p.strip_prefix("(?:").and_then(|q| q.strip_suffix(')')) {
        // `(?:A)|(?:B)` is no single group: the inner text must hold no parenthesis.
        Some(inner)
            if !inner
                .replace("\\(", "")
                .replace("\\)", "")
                .contains(['(', ')']) =>
        {
            inner
        }
        _ => p,
    };
    let mut parts = Vec::new();
    let mut part = String::new();
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                part.push(c);
                part.push(chars.next()?);
            }
            '|' => parts.push(std::mem::take(&mut part)),
            c => part.push(c),
        }
    }
    parts.push(part);
    parts
        .iter()
        .map(|q| unescape(q).filter(|l| !l.is_empty()))
        .collect()
}

/// The call's open marker and the name group from an `open_pattern`
/// `LITERAL call:(?P<G>\w+)`.
fn open_and_group(pattern: &str) -> Option<(String, String)> {
    let at = pattern.rfind(CALL)?;
    let (lit, rest) = pattern.split_at(at);
    let group = rest.get(CALL.len()..)?.strip_suffix(NAME)?;
    let open = unescape(lit)?;
    let ident = !group.is_empty()
        && group
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !group.starts_with(|c: char| c.is_ascii_digit());
    (ident && !open.is_empty()).then(|| (open, group.to_owned()))
}

/// The open pattern of `dialect`'s calls, with its name in group `name`.
pub(super) fn open_pattern(open: &str) -> String {
    format!("{}{CALL}name{NAME}", escape(open))
}

/// Why `content_args` of a `json` field cannot be read by the Gemma engine, as a
/// key's path and a message; the string token when it can.
fn quote(base: &str, args: &Map<String, Value>) -> Result<String> {
    let path = |k: &str| format!("{base}.{k}");
    for (k, v) in args {
        match (k.as_str(), v) {
            ("unquoted_keys", Value::Bool(true)) | ("string_delims", _) => {}
            ("allow_non_json", Value::Bool(false)) => {}
            ("unquoted_keys", _) => {
                return Err(SpecError::new(
                    path(k),
                    "must be true: the engine that reads string_delims (gemma's) always reads bare keys",
                ));
            }
            ("allow_non_json", _) => {
                return Err(SpecError::new(
                    path(k),
                    "a call whose content is not its grammar is an error here, never text",
                ));
            }
            _ => {
                return Err(SpecError::new(
                    path(k),
                    "unknown key (json content with string_delims takes unquoted_keys and string_delims)",
                ));
            }
        }
    }
    if !args.contains_key("unquoted_keys") {
        return Err(SpecError::new(
            path("unquoted_keys"),
            "is required with string_delims: the engine that reads them (gemma's) reads bare keys",
        ));
    }
    let dp = path("string_delims");
    let Some(delims) = args.get("string_delims") else {
        return Err(SpecError::new(
            path("unquoted_keys"),
            "the json engine reads standard JSON call objects only; bare keys are read by the gemma engine, with strings between a token (string_delims: [[\"<|\\\"|>\", \"<|\\\"|>\"]]), not with JSON strings",
        ));
    };
    let pair = match delims {
        Value::Array(items) if items.len() == 1 => items.first(),
        _ => None,
    };
    let pair = pair.and_then(Value::as_array).map(Vec::as_slice);
    let Some([Value::String(open), Value::String(close)]) = pair else {
        return Err(SpecError::new(
            dp,
            "must be one [open, close] pair of strings (the gemma engine reads one string token)",
        ));
    };
    if open != close {
        return Err(SpecError::new(
            format!("{dp}[0]"),
            "the open and close must be the same token (the gemma engine reads strings between two of one token)",
        ));
    }
    if !Dialect::quote_fits(open) {
        return Err(SpecError::new(
            format!("{dp}[0]"),
            "the token must begin with `<` and hold no other `<` (how the gemma engine finds it inside a string)",
        ));
    }
    Ok(open.clone())
}

/// The field's transform: `{"name": "{G}", "arguments": "{content}"}`; `G`.
fn name_group(path: &str, transform: Option<&Value>, each: bool) -> Result<String> {
    let want = "must be {\"type\": \"function\", \"function\": {\"name\": \"{G}\", \"arguments\": \"{content}\"}} (G the name group of open_pattern)";
    if each {
        return Err(SpecError::new(
            format!("{path}.transform_each"),
            "a gemma call holds one call (its arguments object)",
        ));
    }
    let tpath = format!("{path}.transform");
    let Some(t) = transform else {
        return Err(SpecError::new(tpath, want));
    };
    let ok = t.as_object().is_some_and(|m| {
        m.keys().all(|k| k == "type" || k == "function")
            && m.get("type").is_none_or(|v| v == "function")
    });
    let function = t.get("function").and_then(Value::as_object);
    let (Some(f), true) = (function, ok) else {
        return Err(SpecError::new(tpath, want));
    };
    let ph = |k: &str| {
        f.get(k)
            .and_then(Value::as_str)
            .and_then(|s| s.strip_prefix('{')?.strip_suffix('}'))
    };
    match (ph("name"), ph("arguments"), f.len()) {
        (Some(g), Some("content"), 2) if g != "content" && !g.contains('.') => Ok(g.to_owned()),
        _ => Err(SpecError::new(format!("{tpath}.function"), want)),
    }
}

/// A `json` calls field with `unquoted_keys` / `string_delims` as the Gemma engine's
/// dialect. `open`/`close` are the field's literals, `open_pattern` its pattern.
pub(super) fn dialect(
    path: &str,
    field: Fields<'_>,
    reasoning: Vec<(Cow<'static, str>, Cow<'static, str>)>,
    drops: Vec<Cow<'static, str>>,
) -> Result<Dialect> {
    let args_path = format!("{path}.content_args");
    let empty = Map::new();
    let quote = quote(&args_path, field.args.unwrap_or(&empty))?;
    let group = name_group(path, field.transform, field.transform_each)?;
    let shape = "the gemma engine reads a call's name after its marker: open_pattern `<MARKER>call:(?P<name>\\w+)` (the marker a literal, its metacharacters escaped)";
    let Some(pattern) = field.open_pattern else {
        return Err(SpecError::new(format!("{path}.open"), shape));
    };
    let opath = format!("{path}.open_pattern");
    let Some((open, g)) = open_and_group(pattern) else {
        return Err(SpecError::new(opath, shape));
    };
    if g != group {
        return Err(SpecError::new(
            format!("{path}.transform.function.name"),
            format!("{{{group}}} must be the name group of open_pattern (`(?P<{g}>\\w+)`)"),
        ));
    }
    let close = match field.close {
        Some([c]) if c != "eos" => c.clone(),
        _ => {
            return Err(SpecError::new(
                format!("{path}.close"),
                "the gemma engine needs one closing literal (`<tool_call|>`)",
            ));
        }
    };
    if open.contains(&quote) || close.contains(&quote) || open == close {
        return Err(SpecError::new(
            format!("{args_path}.string_delims[0]"),
            "the string token must differ from the call's markers",
        ));
    }
    Ok(Dialect {
        open: Cow::Owned(open),
        close: Cow::Owned(close),
        quote: Cow::Owned(quote),
        reasoning: Cow::Owned(reasoning),
        drops: Cow::Owned(drops),
    })
}

/// The parts of a template field this engine reads.
pub(super) struct Fields<'a> {
    pub(super) open_pattern: Option<&'a str>,
    pub(super) close: Option<&'a [String]>,
    pub(super) args: Option<&'a Map<String, Value>>,
    pub(super) transform: Option<&'a Value>,
    pub(super) transform_each: bool,
}

/// The `tool_calls` field of `dialect` (what [`dialect`] reads back).
pub(super) fn field(d: &Dialect) -> Value {
    json!({
        "open_pattern": open_pattern(&d.open),
        "close": d.close,
        "content": "json",
        "content_args": {"unquoted_keys": true, "string_delims": [[d.quote, d.quote]]},
        "repeats": true,
        "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_patterns_of_literals_are_read_as_literals() {
        let lits = |v: &[&str]| Some(v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(
            close_literals("<tool_call\\|>\\s*"),
            lits(&["<tool_call|>"])
        );
        assert_eq!(close_literals("<channel\\|>"), lits(&["<channel|>"]));
        assert_eq!(
            close_literals("(?:<turn\\|>|<\\|tool_response>|<eos>)\\s*"),
            lits(&["<turn|>", "<|tool_response>", "<eos>"])
        );
        assert_eq!(close_literals("a|b"), lits(&["a", "b"]));
        for bad in [
            "<a>\\s+",
            "<a>|",
            "(?:a)|(?:b)",
            "<a>.",
            "x(?:a|b)",
            "<a>\\n?",
            "",
        ] {
            assert_eq!(close_literals(bad), None, "{bad}");
        }
    }

    #[test]
    fn open_patterns_round_trip() {
        for open in ["<|tool_call>", "<start_function_call>", "[a.b]-{x}"] {
            let p = open_pattern(open);
            assert_eq!(open_and_group(&p), Some((open.to_owned(), "name".into())));
        }
        assert_eq!(
            open_and_group("<\\|tool_call>call:(?P<name>\\w+)"),
            Some(("<|tool_call>".into(), "name".into()))
        );
        for bad in [
            "<|tool_call>call:(?P<name>\\w+)",
            "<\\|tool_call>\\s*call:(?P<name>\\w+)",
            "<\\|tool_call>call:(?P<name>\\w+)\\s*",
            "call:(?P<name>\\w+)",
            "<\\|t>call:(?P<1x>\\w+)",
        ] {
            assert_eq!(open_and_group(bad), None, "{bad}");
        }
    }
}
