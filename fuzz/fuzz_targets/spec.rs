//! Syntax specs: a random valid spec (markers from a small alphabet; literal and
//! pattern delimiters; `json` call objects, `json` arguments named by an open pattern's
//! group, `xml-inline` parameters, or special-token sections (`toolstream.engine`
//! `"sections"`, either head, the literal or the pattern form of its `tool_calls`
//! field); optional reasoning and content fields) and a random
//! input built from the spec's own markers and noise. Checks that the input fed whole and
//! cut by a fuzzer-chosen chunking gives the same merged events, that they keep the
//! event contract, and the recovery rule: no completed call's arguments hold a call-open
//! marker outside a JSON string (a call never takes another call's bytes).
//!
//! Input: byte 0 and 1 choose the spec, then the chunking pattern (`take_pattern`), then
//! the body's tokens, one byte each (a token of the spec's alphabet, or the byte itself
//! as noise).
#![no_main]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolstream::{Event, Parser, ParserConfig, Syntax};
use toolstream_fuzz::{check_contract, chunks, run_parser, take_pattern};

/// A spec and the strings its inputs are built from.
struct Spec {
    spec: Value,
    /// Call-open markers as they appear in text (for the recovery check).
    open_heads: Vec<&'static str>,
    tokens: Vec<&'static str>,
}

fn build(a: u8, b: u8) -> Spec {
    let mut fields = serde_json::Map::new();
    let mut tokens: Vec<&'static str> = vec![
        " ", "\n", "x", "\"", "{", "}", "[", "]", ",", ":", "\\", "<", ">", "é",
    ];
    // The calls.
    let sections = a % 7 == 6;
    let kimi = b / 16 % 2 == 1;
    let (calls, heads): (Value, Vec<&'static str>) = match a % 7 {
        // Literal open and close, call objects: the json engine.
        0 => {
            tokens.extend(["<c>", "</c>", "{\"name\": \"f\", \"arguments\": {\"a\": \"<c>\"}}", "{\"name\": \"g\", \"arguments\": {}}"]);
            (
                json!({"open": "<c>", "close": "</c>", "content": "json",
                       "transform": {"type": "function", "function": "{content}"}}),
                vec!["<c>"],
            )
        }
        // Pattern open, literal close, call objects.
        1 => {
            tokens.extend(["<c>", "<c> \n", "</c>", "{\"name\": \"f\", \"arguments\": {\"a\": 1}}", "\"name\": \"h\"", "\"arguments\": [1]"]);
            (
                json!({"open_pattern": "<c>\\s*", "close": "</c>", "content": "json",
                       "transform": {"type": "function", "function": "{content}"}}),
                vec!["<c>"],
            )
        }
        // Name from the open's group, the body the arguments; close optional tail.
        2 => {
            tokens.extend(["<cf>", "<cgg>", "<c>", "</c>", "</c>\n", "{\"a\": \"</c>\"}", "{}", "[1, 2]", "7"]);
            (
                json!({"open_pattern": "<c(?P<name>\\w+)>", "close_pattern": "</c>\\s*", "content": "json",
                       "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}),
                vec!["<c"],
            )
        }
        // As 2, without a close: a call ends where its value does.
        3 => {
            tokens.extend(["<cf>", "<cgg>", "{\"a\": \"<cf>\"}", "{}", "\"s\""]);
            (
                json!({"open_pattern": "<c(?P<name>[a-z]+)>", "content": "json",
                       "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}),
                vec!["<c"],
            )
        }
        // xml-inline parameters per tag pattern.
        4 => {
            tokens.extend(["<c=f>", "<c=g>\n", "</c>", "<p=k>", "<p=j>", "</p>", "[1]", "v", "<p=k>1</p>"]);
            (
                json!({"open_pattern": "<c=(?P<name>\\w+)>", "close": "</c>", "content": "xml-inline",
                       "content_args": {"tag_pattern": "<p=(?P<key>\\w+)>\\s*(?P<value>.*?)\\s*</p>",
                                        "value_parser": {"name": "json", "args": {"allow_non_json": true}}},
                       "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}),
                vec!["<c="],
            )
        }
        // Special-token sections: `<|ks|><|k|>HEAD<|a|>{..}<|/k|><|/ks|>`.
        6 => {
            tokens.extend(["<|ks|>", "<|/ks|>", "<|k|>", "<|a|>", "<|/k|>", "f", "g", "function",
                           "\n```json\n", "\n```", "{\"a\": \"<|k|>\"}", "{}", "functions.f:0", ":1"]);
            let function = json!({"name": "{name}", "arguments": "{content}"});
            let transform = if kimi {
                json!({"type": "function", "id": "{id}", "function": function})
            } else {
                json!({"type": "function", "function": function})
            };
            (
                json!({"open": "<|k|>", "close": "<|/k|>", "content": "json", "transform": transform}),
                vec!["<|k|>"],
            )
        }
        // Optional header before the open, as Inkling's blocks.
        _ => {
            tokens.extend(["<m>", "<c>", "</c>", "hdr", "{\"name\": \"f\", \"args\": {\"q\": \"<c>\"}}"]);
            (
                json!({"open_pattern": "(?:<m>)?[^<]*<c>", "close": "</c>", "content": "json",
                       "transform": {"type": "function", "function": {"name": "{content.name}", "arguments": "{content.args}"}}}),
                vec!["<c>"],
            )
        }
    };
    fields.insert("tool_calls".into(), calls);
    match b % 4 {
        // The sections engine reads literal reasoning tags, and its content field is
        // its dropped tokens (below).
        1 | 2 if sections => {
            tokens.extend(["<t>", "</t>"]);
            fields.insert("thinking".into(), json!({"open": "<t>", "close": "</t>"}));
        }
        _ if sections => {}
        1 => {
            tokens.extend(["<t>", "</t>"]);
            fields.insert("thinking".into(), json!({"open": "<t>", "close": "</t>"}));
        }
        2 => {
            tokens.extend(["<t>", "<t>\n", "</t>"]);
            fields.insert("thinking".into(), json!({"open_pattern": "(?:^|<t>\\s*)", "close": "</t>"}));
        }
        3 => {
            tokens.extend(["<r>\n", "</r>", "\n</r>"]);
            fields.insert("content".into(), json!({"open": "<r>\n", "close_pattern": "\\n?</r>"}));
        }
        _ => {}
    }
    if sections {
        let mut drops = vec!["<|ks|>", "<|/ks|>"];
        if b / 4 % 2 == 1 {
            tokens.push("<e>");
            drops.push("<e>");
        }
        fields.insert("content".into(), json!({"close": drops}));
    } else if b / 4 % 2 == 1 && !fields.contains_key("content") {
        tokens.push("<e>");
        fields.insert("content".into(), json!({"close": "<e>"}));
    }
    let mut spec = json!({"version": 1, "fields": fields});
    if b / 8 % 2 == 1 {
        tokens.push("<s>");
        spec["start_anchor"] = json!("<s>");
    }
    if sections {
        spec = json!({"response_template": spec, "toolstream": {"engine": "sections", "sections": {
            "calls_begin": "<|ks|>", "calls_end": "<|/ks|>", "call_begin": "<|k|>", "sep": "<|a|>",
            "call_end": "<|/k|>", "head": if kimi { "kimi-id" } else { "deepseek" },
            "calls_end_reasoning": b / 64 % 2 == 1}}});
        // The pattern form `toolstream spec` writes (what transformers runs).
        if b / 32 % 2 == 1
            && let Ok(s) = Syntax::from_value(&spec)
        {
            spec = s.to_json();
        }
    }
    Spec {
        spec,
        open_heads: heads,
        tokens,
    }
}

/// Whether `args` (JSON text) holds `head` outside its strings.
fn outside_strings(args: &str, head: &str) -> bool {
    let b = args.as_bytes();
    let (mut i, mut in_str, mut esc) = (0, false, false);
    while i < b.len() {
        let c = b[i];
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
        } else if args[i..].starts_with(head) {
            return true;
        }
        i += 1;
    }
    false
}

/// The spec [`build`] makes for `a` and `b`, and its syntax, read once per distinct spec:
/// the compiled syntax (its DFAs) is reused by every input that builds the same spec
/// (keyed by the spec's text, so whatever bits of `a` and `b` `build` reads), and the
/// fuzzer's time goes to parsing, not to compiling the same patterns again.
fn spec_for(a: u8, b: u8) -> Arc<(Spec, Syntax)> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<(Spec, Syntax)>>>> = OnceLock::new();
    let s = build(a, b);
    let key = s.spec.to_string();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    cache
        .entry(key)
        .or_insert_with(|| {
            let syntax = match Syntax::from_value(&s.spec) {
                Ok(x) => x,
                Err(e) => panic!("a generated spec must read: {e}\n{}", s.spec),
            };
            Arc::new((s, syntax))
        })
        .clone()
}

fuzz_target!(|data: &[u8]| {
    let Some((&a, rest)) = data.split_first() else { return };
    let Some((&b, rest)) = rest.split_first() else { return };
    let built = spec_for(a, b);
    let (s, syntax) = &*built;
    let (pattern, toks) = take_pattern(rest);
    let mut body = Vec::new();
    for &t in toks {
        match s.tokens.get(usize::from(t) % (s.tokens.len() + 8)) {
            Some(tok) => body.extend_from_slice(tok.as_bytes()),
            None => body.push(t),
        }
    }
    let make = || Parser::with_syntax(syntax.clone(), ParserConfig::new());
    let bound = usize::MAX;
    let whole = run_parser(&make, &[&body], bound);
    check_contract(&whole);
    // The argument deltas are the model's own bytes: an open marker outside the
    // arguments' strings would be another call's.
    let mut args: std::collections::BTreeMap<usize, String> = Default::default();
    for e in &whole {
        if let Event::ToolCallArgs { index, delta } = e {
            args.entry(*index).or_default().push_str(delta);
        }
    }
    for e in &whole {
        if let Event::ToolCallEnd { index, .. } = e {
            let text = args.get(index).map(String::as_str).unwrap_or_default();
            for head in &s.open_heads {
                assert!(
                    !outside_strings(&text, head),
                    "a call's arguments hold another call's open marker {head:?}: {text}\n{:?}",
                    String::from_utf8_lossy(&body)
                );
            }
        }
    }
    let cut = chunks(pattern, &body);
    if cut.len() > 1 {
        let got = run_parser(&make, &cut, bound);
        assert_eq!(
            got,
            whole,
            "chunked {pattern:?} differs from whole for {:?} under {}",
            String::from_utf8_lossy(&body),
            s.spec
        );
    }
});
