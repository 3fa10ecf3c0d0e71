//! `gemma4`, `lfm2` and `olmo3`: a fixture table per syntax (single call, several calls,
//! text around them, nested / unicode / escaped values, empty arguments, truncated and
//! malformed calls) at whole / 1-byte / every split / random splits, a one-shot oracle
//! for Gemma 4's argument syntax, and generated streams (random values rendered in each
//! syntax, cut anywhere) checked against the values they were rendered from.

use crate::common::*;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig, Syntax};

/// One fixture: input, the visible text, the calls that end, and the errors (`(kind,
/// raw)` of each `Error`: a call's own once its Start was emitted).
struct Case {
    name: &'static str,
    input: String,
    text: &'static str,
    calls: Vec<(&'static str, Value)>,
    errors: Vec<(ErrorKind, String)>,
}

fn ok(
    name: &'static str,
    input: &str,
    text: &'static str,
    calls: Vec<(&'static str, Value)>,
) -> Case {
    Case {
        name,
        input: input.to_owned(),
        text,
        calls,
        errors: Vec::new(),
    }
}

/// A case whose last call fails: its error's raw is `raw` (the model's bytes).
fn bad(
    name: &'static str,
    (before, raw, after): (&str, &str, &str),
    text: &'static str,
    calls: Vec<(&'static str, Value)>,
    kind: ErrorKind,
) -> Case {
    Case {
        name,
        input: format!("{before}{raw}{after}"),
        text,
        calls,
        errors: vec![(kind, raw.to_owned())],
    }
}

fn run_cases(format: Format, cases: &[Case]) {
    run_cases_on(&format.to_string(), &move || Parser::new(format), cases);
}

/// `format`'s cases through the spec `toolstream spec FORMAT` prints, read back from
/// its text (as `parse --syntax FILE` reads it): the same events as the built-in.
fn run_cases_through_spec(format: Format, cases: &[Case]) {
    let text = serde_json::to_string_pretty(&Syntax::builtin(format).unwrap().to_json()).unwrap();
    let syntax = Syntax::from_json(&text).unwrap();
    run_cases_on(
        &format!("{format} (spec)"),
        &move || Parser::with_syntax(syntax.clone(), ParserConfig::new()),
        cases,
    );
}

fn run_cases_on(label: &str, make: &dyn Fn() -> Parser, cases: &[Case]) {
    for c in cases {
        let events = assert_split_invariant(make, c.input.as_bytes(), 40);
        let label = format!("{label} {}: {events:?}", c.name);
        assert_eq!(text(&events), c.text, "{label}");
        let got: Vec<(String, Value)> = calls(&events)
            .into_iter()
            .map(|k| (k.name, k.arguments))
            .collect();
        let want: Vec<(String, Value)> = c
            .calls
            .iter()
            .map(|(n, a)| ((*n).to_owned(), a.clone()))
            .collect();
        assert_eq!(got, want, "{label}");
        let errs: Vec<(ErrorKind, String)> = events
            .iter()
            .filter_map(|e| match e {
                Event::Error { kind, raw, .. } => Some((*kind, raw.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(errs, c.errors, "{label}");
    }
}

// ---------------------------------------------------------------------------------
// gemma4

const Q: &str = "<|\"|>";

fn gemma_cases() -> Vec<Case> {
    use ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    let call = |name: &str, args: &str| format!("<|tool_call>call:{name}{args}<tool_call|>");
    vec![
        ok(
            "single",
            &call("get_weather", &format!("{{city:{Q}Paris{Q}}}")),
            "",
            vec![("get_weather", json!({"city": "Paris"}))],
        ),
        ok(
            "several calls, text around",
            &format!(
                "Let me check.\n{}{}\nDone.",
                call("a", &format!("{{x:{Q}1{Q}}}")),
                call("b", "{n:3,f:-1.5e3,t:true,u:False,z:None}")
            ),
            "Let me check.\n\nDone.",
            vec![
                ("a", json!({"x": "1"})),
                (
                    "b",
                    json!({"n": 3, "f": -1500.0, "t": true, "u": false, "z": null}),
                ),
            ],
        ),
        ok(
            "nested, unicode, escaped",
            &call(
                "tools.shell-exec",
                &format!(
                    "{{cmd:{Q}echo \"{{hi}}\" \\ [x] <b> <|x é 😀\n\t{Q},env:{{HOME:{Q}/root{Q},list:[1,{Q}two{Q},[],{{}}]}},{Q}odd key{Q}:null,ключ:0}}"
                ),
            ),
            "",
            vec![(
                "tools.shell-exec",
                json!({"cmd": "echo \"{hi}\" \\ [x] <b> <|x é 😀\n\t",
                       "env": {"HOME": "/root", "list": [1, "two", [], {}]},
                       "odd key": null, "ключ": 0}),
            )],
        ),
        ok(
            "empty arguments",
            &call("ping", "{}"),
            "",
            vec![("ping", json!({}))],
        ),
        ok(
            "whitespace and trailing comma",
            "<|tool_call> call:f{ a : 1 ,\n b : [ 1 , 2 , ] , }\n<tool_call|>",
            "",
            vec![("f", json!({"a": 1, "b": [1, 2]}))],
        ),
        ok(
            "reasoning block, end of turn",
            &format!(
                "<|channel>thought\nweather?\n<channel|>Sure.{}<turn|>",
                call("f", "{}")
            ),
            "Sure.",
            vec![("f", json!({}))],
        ),
        ok(
            "no closing marker: the call stands, text after",
            "<|tool_call>call:f{a:1} and more",
            // As in `hermes`: whitespace where the closing marker was expected is dropped.
            "and more",
            vec![("f", json!({"a": 1}))],
        ),
        ok(
            "text that only looks like a call",
            "call:f{a:1} <|tool_ <tool_call|> <|\"|>",
            "call:f{a:1} <|tool_ <tool_call|> <|\"|>",
            vec![],
        ),
        bad(
            "cut in a string",
            ("Hi ", "<|tool_call>call:f{a:<|\"|>abc <|", ""),
            "Hi ",
            vec![],
            Cut,
        ),
        bad(
            "cut in the name",
            ("Hi ", "<|tool_call>call:get_wea", ""),
            "Hi ",
            vec![],
            Cut,
        ),
        bad(
            "an unquoted string",
            ("", "<|tool_call>call:f{a:x}<tool_call|>", " after"),
            " after",
            vec![],
            Bad,
        ),
        bad(
            "a JSON-quoted string, then a good call",
            (
                "",
                "<|tool_call>call:f{a:\"x\"}<tool_call|>",
                &call("g", "{}"),
            ),
            "",
            vec![("g", json!({}))],
            Bad,
        ),
        bad(
            "a bad number",
            ("", "<|tool_call>call:f{n:01}<tool_call|>", ""),
            "",
            vec![],
            Bad,
        ),
        bad(
            "a second call cut off",
            (&call("g", "{}"), "<|tool_call>call:f{a:[1,", ""),
            "",
            vec![("g", json!({}))],
            Cut,
        ),
    ]
}

#[test]
fn gemma4_fixtures() {
    run_cases(Format::Gemma4, &gemma_cases());
}

#[test]
fn gemma4_fixtures_through_its_spec() {
    run_cases_through_spec(Format::Gemma4, &gemma_cases());
}

#[test]
fn gemma4_header_errors_carry_the_raw_call() {
    // A malformed header has no Start: its error has no index, and carries the bytes.
    let ev = assert_split_invariant(
        &(|| Parser::new(Format::Gemma4)),
        b"<|tool_call>call:{a:1}<tool_call|> x",
        40,
    );
    assert_eq!(
        errors(&ev),
        vec![&Event::Error {
            path: None,
            kind: ErrorKind::MissingName,
            message: "a <|tool_call> without call:NAME{".into(),
            index: None,
            raw: "<|tool_call>call:{a:1}<tool_call|>".into(),
        }]
    );
    // Without `call:` nothing after the marker can begin a call: it is text (the
    // recovery rule).
    let input = "<|tool_call>f{a:1}<tool_call|> x";
    let ev = assert_split_invariant(&(|| Parser::new(Format::Gemma4)), input.as_bytes(), 40);
    assert!(errors(&ev).is_empty(), "{ev:?}");
    assert_eq!(text(&ev), input);
}

#[test]
fn gemma4_start_comes_with_the_brace_and_strings_stream() {
    let mut p = Parser::new(Format::Gemma4);
    let mut ev = Vec::new();
    p.feed(b"<|tool_call>call:f", &mut ev).unwrap();
    assert!(!ev.iter().any(|e| matches!(e, Event::ToolCallStart { .. })));
    p.feed(b"{a:<|\"|>par", &mut ev).unwrap();
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::ToolCallStart { name, .. } if name == "f"))
    );
    let args: String = ev
        .iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(args, "{\"a\":\"par");
    p.feed(b"is<|\"|>}", &mut ev).unwrap();
    assert!(ev.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })));
}

// ---------------------------------------------------------------------------------
// lfm2 and olmo3

fn lfm2_cases() -> Vec<Case> {
    use ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    vec![
        ok(
            "single",
            "<|tool_call_start|>[get_weather(city=\"Paris\")]<|tool_call_end|>",
            "",
            vec![("get_weather", json!({"city": "Paris"}))],
        ),
        ok(
            "several calls, text around",
            "Checking. <|tool_call_start|>[a(x=1), b(y='é 😀\\n', z=[1, {'k': None}])]<|tool_call_end|> Done.",
            "Checking.  Done.",
            vec![
                ("a", json!({"x": 1})),
                ("b", json!({"y": "é 😀\n", "z": [1, {"k": null}]})),
            ],
        ),
        ok(
            "empty arguments",
            "<|tool_call_start|>[ping()]<|tool_call_end|>",
            "",
            vec![("ping", json!({}))],
        ),
        ok(
            "a bare list is text (lfm2 calls need their marker)",
            "see [f(a=1)] here",
            "see [f(a=1)] here",
            vec![],
        ),
        ok(
            "a marker with no call is text",
            "a <|tool_call_start|> b",
            "a <|tool_call_start|> b",
            vec![],
        ),
        bad(
            "cut",
            ("x ", "<|tool_call_start|>[f(a='ab", ""),
            "x ",
            vec![],
            Cut,
        ),
        bad(
            "malformed, then text",
            ("", "<|tool_call_start|>[f(a=b)]", "<|tool_call_end|> ok"),
            " ok",
            vec![],
            Bad,
        ),
        bad(
            "second call malformed",
            ("<|tool_call_start|>[g(), ", "f(1)]", "<|tool_call_end|>"),
            "",
            vec![("g", json!({}))],
            Bad,
        ),
    ]
}

fn olmo3_cases() -> Vec<Case> {
    use ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    vec![
        ok(
            "single",
            "<function_calls>\nget_weather(city='NYC')\n</function_calls>",
            "",
            vec![("get_weather", json!({"city": "NYC"}))],
        ),
        ok(
            "one per line, text around",
            "I'll look.\n<function_calls>\nget_weather(city='NYC')\nget_time(tz=\"EST\", fmt={'h': 24})\n</function_calls>\nOK.",
            "I'll look.\n\nOK.",
            vec![
                ("get_weather", json!({"city": "NYC"})),
                ("get_time", json!({"tz": "EST", "fmt": {"h": 24}})),
            ],
        ),
        ok(
            "bracketed list",
            "<function_calls>[a(), b(x=null, y=true)]</function_calls>",
            "",
            vec![("a", json!({})), ("b", json!({"x": null, "y": true}))],
        ),
        ok(
            "unicode and escapes",
            "<function_calls>\nf(s='tab\\there \"q\" \\\\ ключ 😀')\n</function_calls>",
            "",
            vec![("f", json!({"s": "tab\there \"q\" \\ ключ 😀"}))],
        ),
        ok(
            "prose after the calls without the closing tag",
            "<function_calls>\nf()\nDone here.",
            "\nDone here.",
            vec![("f", json!({}))],
        ),
        bad(
            "cut",
            ("", "<function_calls>\nf(a=[1, 2", ""),
            "",
            vec![],
            Cut,
        ),
        bad(
            "malformed second call",
            ("<function_calls>\ng()\n", "h(a=x)", "\n</function_calls>!"),
            "!",
            vec![("g", json!({}))],
            Bad,
        ),
    ]
}

#[test]
fn lfm2_fixtures() {
    run_cases(Format::Lfm2, &lfm2_cases());
}

#[test]
fn olmo3_fixtures() {
    run_cases(Format::Olmo3, &olmo3_cases());
}

/// LFM2 (Thinking) and OLMo 3 Think write `<think>` before their calls: reasoning,
/// read with the rules of every marker syntax (line breaks next to the tags dropped, a
/// call inside reasoning is reasoning); `lfm2` drops `<|im_end|>`. Every split, whole and
/// through the format's spec.
#[test]
fn lfm2_and_olmo3_read_reasoning() {
    let lfm = "<|tool_call_start|>[get_weather(city='Paris')]<|tool_call_end|>";
    let olmo = "<function_calls>\nget_weather(city='Paris')\n</function_calls>";
    for (format, call) in [(Format::Lfm2, lfm), (Format::Olmo3, olmo)] {
        let syntax = Syntax::builtin(format).unwrap();
        let spec = Syntax::from_json(&syntax.to_json().to_string()).unwrap();
        let makers: [Box<dyn Fn() -> Parser>; 2] = [
            Box::new(move || Parser::with_config(format, ParserConfig::new().id_prefix("call_"))),
            Box::new(move || {
                Parser::with_syntax(spec.clone(), ParserConfig::new().id_prefix("call_"))
            }),
        ];
        for make in &makers {
            let input = format!("<think>\nIt is [f(x=1)] é.\n</think>\n\n{call} Done.");
            let ev = assert_split_invariant(make, input.as_bytes(), 20);
            assert_eq!(reasoning(&ev), "It is [f(x=1)] é.", "{format}");
            assert_eq!(text(&ev), " Done.", "{format}");
            assert_eq!(calls(&ev).len(), 1, "{format}: {ev:?}");
            assert_eq!(calls(&ev)[0].arguments, json!({"city": "Paris"}));
            // Cut off inside reasoning: all of it is reasoning.
            let ev = assert_split_invariant(make, b"A\n<think>\nstill <thinking", 0);
            assert_eq!(
                (text(&ev), reasoning(&ev)),
                ("A".into(), "still <thinking".into())
            );
        }
        // The output starts inside reasoning (the prompt opened `<think>`).
        let make = move || Parser::with_config(format, ParserConfig::new().reasoning_open(true));
        let input = format!("plan {call}</think>\n{call}");
        let ev = assert_split_invariant(&make, input.as_bytes(), 20);
        assert_eq!(reasoning(&ev), format!("plan {call}"), "{format}");
        assert_eq!(calls(&ev).len(), 1, "{format}");
    }
    // Both templates are ChatML: their end of turn is dropped.
    for format in [Format::Lfm2, Format::Olmo3] {
        let ev = crate::exact::split(format, "Done.<|im_end|>");
        assert_eq!(text(&ev), "Done.", "{format}");
    }
    // Llama has no reasoning tags: text.
    let ev = crate::exact::split(Format::LlamaPythonic, "<think>a</think>[f(x=1)]");
    assert_eq!(text(&ev), "<think>a</think>");
    assert_eq!(calls(&ev).len(), 1);
}

#[test]
fn lfm2_and_olmo3_fixtures_through_their_specs() {
    run_cases_through_spec(Format::Lfm2, &lfm2_cases());
    run_cases_through_spec(Format::Olmo3, &olmo3_cases());
}

#[test]
fn auto_detects_each_syntax() {
    for (input, name) in [
        ("a <|tool_call>call:f{x:1}<tool_call|>", "f"),
        ("a <|tool_call_start|>[f(x=1)]<|tool_call_end|>", "f"),
        ("a <function_calls>\nf(x=1)\n</function_calls>", "f"),
    ] {
        let ev = assert_split_invariant(&(|| Parser::new(Format::Auto)), input.as_bytes(), 40);
        assert_eq!(
            calls(&ev),
            vec![call("call_0", name, json!({"x": 1}))],
            "{input}"
        );
        assert_eq!(text(&ev), "a ", "{input}");
    }
}

#[test]
fn markers_split_at_every_byte() {
    // Every two-piece split is run by `assert_split_invariant`; here each marker is also
    // preceded by text that is itself a partial marker, so a held prefix is released.
    for (format, input, want_text) in [
        (
            Format::Gemma4,
            "<|tool_<|tool_call>call:f{a:<|\"|><|\"<|\"|>}<tool_call|>",
            "<|tool_",
        ),
        (
            Format::Lfm2,
            "<|tool_call_<|tool_call_start|>[f(a='<|tool_call_end|>')]<|tool_call_end|>",
            "<|tool_call_",
        ),
        (
            Format::Olmo3,
            "<function_<function_calls>\nf(a='</function_calls>')\n</function_calls>",
            "<function_",
        ),
    ] {
        let ev = assert_split_invariant(&(move || Parser::new(format)), input.as_bytes(), 40);
        assert_eq!(text(&ev), want_text, "{format}");
        assert_eq!(calls(&ev).len(), 1, "{format}: {ev:?}");
    }
}

// ---------------------------------------------------------------------------------
// The one-shot oracle for Gemma 4 arguments, and generated streams

/// Parses complete Gemma 4 argument text (`{k:v,..}`) in one shot: a plain recursive
/// descent over the whole string, nothing incremental.
fn gemma_oracle(s: &str) -> Option<Value> {
    fn ws(s: &str) -> &str {
        s.trim_start_matches([' ', '\t', '\n', '\r'])
    }
    fn string(s: &str) -> Option<(String, &str)> {
        let body = s.strip_prefix(Q)?;
        let end = body.find(Q)?;
        Some((body[..end].to_owned(), &body[end + Q.len()..]))
    }
    fn value(s: &str) -> Option<(Value, &str)> {
        let s = ws(s);
        if s.starts_with(Q) {
            let (t, rest) = string(s)?;
            return Some((Value::String(t), rest));
        }
        if let Some(mut rest) = s.strip_prefix('[') {
            let mut items = Vec::new();
            loop {
                rest = ws(rest);
                if let Some(r) = rest.strip_prefix(']') {
                    return Some((Value::Array(items), r));
                }
                let (v, r) = value(rest)?;
                items.push(v);
                rest = ws(r);
                rest = rest.strip_prefix(',').unwrap_or(rest);
            }
        }
        if let Some(mut rest) = s.strip_prefix('{') {
            let mut map = Map::new();
            loop {
                rest = ws(rest);
                if let Some(r) = rest.strip_prefix('}') {
                    return Some((Value::Object(map), r));
                }
                let (k, r) = if rest.starts_with(Q) {
                    string(rest)?
                } else {
                    let n =
                        rest.find(|c: char| ":,{}[]<>\"'\\".contains(c) || c.is_whitespace())?;
                    (rest[..n].to_owned(), &rest[n..])
                };
                let r = ws(r).strip_prefix(':')?;
                let (v, r) = value(r)?;
                map.insert(k, v);
                rest = ws(r);
                rest = rest.strip_prefix(',').unwrap_or(rest);
            }
        }
        let n = s
            .find(|c: char| ",}] \t\n\r".contains(c))
            .unwrap_or(s.len());
        let word = &s[..n];
        let v = match word {
            "true" | "True" => Value::Bool(true),
            "false" | "False" => Value::Bool(false),
            "null" | "None" => Value::Null,
            _ => serde_json::from_str::<serde_json::Number>(word)
                .ok()?
                .into(),
        };
        Some((v, &s[n..]))
    }
    let (v, rest) = value(s)?;
    (v.is_object() && rest.is_empty()).then_some(v)
}

/// Renders a value as Gemma 4 writes it (the chat template's `format_argument`).
fn gemma_render(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{Q}{s}{Q}"),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(gemma_render).collect::<Vec<_>>().join(",")
        ),
        Value::Object(m) => {
            let members: Vec<String> = m
                .iter()
                .map(|(k, v)| {
                    let bare = !k.is_empty()
                        && k.chars().all(|c| {
                            !(":,{}[]<>\"'\\".contains(c) || c.is_whitespace() || c.is_control())
                        });
                    let key = if bare {
                        k.clone()
                    } else {
                        format!("{Q}{k}{Q}")
                    };
                    format!("{key}:{}", gemma_render(v))
                })
                .collect();
            format!("{{{}}}", members.join(","))
        }
        other => other.to_string(),
    }
}

/// Renders a value as a Python literal.
fn py_render(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let mut out = String::from("'");
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\'' => out.push_str("\\'"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if (c as u32) < 0x20 || c == '\u{7f}' => {
                        out.push_str(&format!("\\x{:02x}", c as u32))
                    }
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(py_render).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", py_render(&Value::String(k.clone())), py_render(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "None".into(),
        Value::Number(n) => n.to_string(),
    }
}

/// Strings Gemma 4 can carry (no `<|"|>` inside), in values and keys.
fn gemma_safe(v: &Value) -> bool {
    match v {
        Value::String(s) => !s.contains(Q),
        Value::Array(a) => a.iter().all(gemma_safe),
        Value::Object(m) => m.iter().all(|(k, v)| !k.contains(Q) && gemma_safe(v)),
        _ => true,
    }
}

/// Top-level argument objects with identifier keys (Python keyword arguments).
fn arb_kwargs() -> impl Strategy<Value = Value> {
    proptest::collection::btree_map("[a-z_][a-z0-9_]{0,6}", arb_value(), 0..4)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

/// Prose with none of the syntaxes' marker characters.
fn arb_prose() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 .,!?é😀\n]{0,16}[a-zA-Z.!]"
}

fn arb_name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,8}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn gemma_oracle_agrees_with_the_stream(args in arb_args(), cuts in proptest::collection::vec(0usize..400, 0..6)) {
        prop_assume!(gemma_safe(&args));
        let rendered = gemma_render(&args);
        prop_assert_eq!(gemma_oracle(&rendered), Some(args.clone()));
        let body = format!("<|tool_call>call:f{rendered}<tool_call|>");
        let want = (String::new(), vec![call("call_0", "f", args)]);
        generated_stream_decodes(&(|| Parser::new(Format::Gemma4)), body.as_bytes(), &cuts, want.into())?;
    }

    #[test]
    fn generated_streams_decode(
        parts in proptest::collection::vec((arb_prose(), arb_name(), arb_kwargs()), 1..4),
        tail in arb_prose(),
        cuts in proptest::collection::vec(0usize..2000, 0..8),
    ) {
        for format in [Format::Gemma4, Format::Lfm2, Format::Olmo3] {
            let mut body = String::new();
            let mut want_text = String::new();
            let mut want_calls = Vec::new();
            for (i, (prose, name, args)) in parts.iter().enumerate() {
                if format == Format::Gemma4 && !gemma_safe(args) {
                    continue;
                }
                body.push_str(prose);
                want_text.push_str(prose);
                let py_args: Vec<String> = args
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| format!("{k}={}", py_render(v)))
                    .collect();
                match format {
                    Format::Gemma4 => body.push_str(&format!("<|tool_call>call:{name}{}<tool_call|>", gemma_render(args))),
                    Format::Lfm2 => body.push_str(&format!("<|tool_call_start|>[{name}({})]<|tool_call_end|>", py_args.join(", "))),
                    _ => body.push_str(&format!("<function_calls>\n{name}({})\n</function_calls>", py_args.join(", "))),
                }
                want_calls.push(call(&format!("call_{}", want_calls.len()), name, args.clone()));
                let _ = i;
            }
            body.push_str(&tail);
            want_text.push_str(&tail);
            let make = move || Parser::new(format);
            generated_stream_decodes(&make, body.as_bytes(), &cuts, (want_text, want_calls).into())?;
        }
    }
}

/// Pieces of the three syntaxes, of the pythonic / JSON / Mistral ones (and of what breaks
/// them), for the mutation property.
const PIECES: &[&str] = &[
    "<|tool_call>",
    "<tool_call|>",
    "call:",
    "f",
    "get_weather",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ":",
    ",",
    "=",
    "<|\"|>",
    "<|",
    "\"",
    "'",
    "\\",
    "a",
    "1",
    "-2.5e3",
    "true",
    "None",
    " ",
    "\n",
    "é😀",
    "<|tool_call_start|>",
    "<|tool_call_end|>",
    "<function_calls>",
    "</function_calls>",
    "<|channel>thought",
    "<channel|>",
    "<turn|>",
    "x=",
    "<|python_tag|>",
    "<|python_start|>",
    "<|python_end|>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "\"name\"",
    "\"parameters\"",
    "\"f\"",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any sequence of the syntaxes' pieces (valid or not): the contract holds, and any
    /// chunking gives the events of the whole input (what the fuzz `parser` target checks
    /// for every format, here aimed at these three).
    #[test]
    fn pieces_in_any_order_keep_the_contract(
        picks in proptest::collection::vec(0usize..PIECES.len(), 0..48),
        cuts in proptest::collection::vec(0usize..400, 0..10),
        fmt in 0usize..7,
    ) {
        let body: String = picks.iter().map(|&i| PIECES[i]).collect();
        // The three syntaxes, `auto`, and the scanners the raw-bytes rule changed.
        let format = [
            Format::Gemma4,
            Format::Lfm2,
            Format::Olmo3,
            Format::Auto,
            Format::LlamaPythonic,
            Format::LlamaJson,
            Format::Mistral,
        ][fmt];
        let make = move || Parser::new(format);
        let whole = run_whole(&make, body.as_bytes());
        check_contract(&whole);
        prop_assert_eq!(run_chunks(&make, &cut_at(body.as_bytes(), &cuts)), whole.clone());
        prop_assert_eq!(run_sized(&make, body.as_bytes(), 1), whole);
    }
}
