//! The XML-parameter syntaxes (`qwen-xml`, `seed-oss`, `glm`, `minimax`,
//! `deepseek-dsml`): a fixture table run whole, byte by byte, at every split point and at
//! random splits, values typed with and without the declared tools' schema, and
//! generated calls under random chunkings against a one-shot oracle.
//!
//! Cases the peers' streaming parsers get wrong are among the fixtures (each is run at
//! every split point): a start marker or a closing tag cut into pieces (SGLang's
//! minimax-m2 flushed a partial `<minimax:tool_call>` as text; vLLM-Ascend leaked pieces of
//! `</parameter>` into arguments), several parameters, closes or invokes in one chunk
//! (vLLM's minimax_m2 and GLM parsers dropped arguments with `stream_interval > 1`), two
//! invokes with the same parameter name (SGLang's minimax-m2 let the later one overwrite
//! the earlier), a malformed invoke before a valid one (it swallowed the rest), an empty
//! invoke (`""` instead of `{}`), GLM zero-argument calls and GLM-4.7's missing
//! `<arg_value>`, `<` and partial closing tags inside values, DSML's full-width markers cut
//! mid-character, values that look like JSON but are not.

use crate::common;
use crate::common::*;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig, Tools};

const XML_FORMATS: [Format; 7] = [
    Format::QwenXml,
    Format::SeedOss,
    Format::Glm,
    Format::MiniMax,
    Format::DeepSeekDsml,
    Format::KimiK3,
    Format::MiniMaxM3,
];

/// Tool `f`'s parameters: `zip`, `s` strings; `n` integer; `b` boolean; `o` object.
const TOOLS: &str = r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object",
    "properties":{"zip":{"type":"string"},"s":{"type":"string"},"n":{"type":"integer"},
    "b":{"type":"boolean"},"o":{"type":"object"}}}}}]"#;

fn maker(format: Format, tools: bool) -> impl Fn() -> Parser {
    let tools = tools.then(|| Tools::from_json(TOOLS).unwrap());
    move || {
        let config = ParserConfig::new();
        match &tools {
            Some(t) => Parser::with_config(format, config.tools(t.clone())),
            None => Parser::with_config(format, config),
        }
    }
}

/// One fixture: input, whether the schema is given, and what it must decode to.
pub(crate) struct Fx {
    what: &'static str,
    format: Format,
    input: &'static str,
    tools: bool,
    text: &'static str,
    reasoning: &'static str,
    calls: Vec<(&'static str, Value)>,
    errors: Vec<(ErrorKind, Option<usize>, &'static str)>,
}

/// A row: what it shows, the syntax, the model's text (no calls, text or errors yet).
pub(crate) fn fx(what: &'static str, format: Format, input: &'static str) -> Fx {
    Fx {
        what,
        format,
        input,
        tools: false,
        text: "",
        reasoning: "",
        calls: Vec::new(),
        errors: Vec::new(),
    }
}

impl Fx {
    pub(crate) fn text(mut self, t: &'static str) -> Self {
        self.text = t;
        self
    }
    pub(crate) fn reasoning(mut self, t: &'static str) -> Self {
        self.reasoning = t;
        self
    }
    pub(crate) fn call(mut self, name: &'static str, args: Value) -> Self {
        self.calls.push((name, args));
        self
    }
    pub(crate) fn error(
        mut self,
        kind: ErrorKind,
        index: Option<usize>,
        raw: &'static str,
    ) -> Self {
        self.errors.push((kind, index, raw));
        self
    }
    pub(crate) fn typed(mut self) -> Self {
        self.tools = true;
        self
    }
}

/// Typed values: the same text with the schema (`want_typed`) and without (`want_inferred`).
const TYPED_WITH: fn() -> Value =
    || json!({"zip": "12345", "s": "true", "n": 42, "b": true, "o": {"a": [1, "x"]}});
const TYPED_WITHOUT: fn() -> Value =
    || json!({"zip": 12345, "s": true, "n": 42, "b": "True", "o": {"a": [1, "x"]}});

fn fixtures() -> Vec<Fx> {
    let typed: [(Format, &'static str); 5] = [
        (
            Format::QwenXml,
            "<tool_call>\n<function=f>\n<parameter=zip>\n12345\n</parameter>\n<parameter=s>\ntrue\n</parameter>\n<parameter=n>\n 42 \n</parameter>\n<parameter=b>\nTrue\n</parameter>\n<parameter=o>\n{\"a\": [1, \"x\"]}\n</parameter>\n</function>\n</tool_call>",
        ),
        (
            Format::SeedOss,
            "<seed:tool_call>\n<function=f>\n<parameter=zip>12345</parameter>\n<parameter=s>true</parameter>\n<parameter=n> 42 </parameter>\n<parameter=b>True</parameter>\n<parameter=o>{\"a\": [1, \"x\"]}</parameter>\n</function>\n</seed:tool_call>",
        ),
        (
            Format::Glm,
            "<tool_call>f\n<arg_key>zip</arg_key>\n<arg_value>12345</arg_value>\n<arg_key>s</arg_key>\n<arg_value>true</arg_value>\n<arg_key>n</arg_key>\n<arg_value> 42 </arg_value>\n<arg_key>b</arg_key>\n<arg_value>True</arg_value>\n<arg_key>o</arg_key>\n<arg_value>{\"a\": [1, \"x\"]}</arg_value>\n</tool_call>",
        ),
        (
            Format::MiniMax,
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"zip\">12345</parameter>\n<parameter name=\"s\">true</parameter>\n<parameter name=\"n\"> 42 </parameter>\n<parameter name=\"b\">True</parameter>\n<parameter name=\"o\">{\"a\": [1, \"x\"]}</parameter>\n</invoke>\n</minimax:tool_call>",
        ),
        (
            // No `string` attribute: the schema or the schema-less rule decides.
            Format::DeepSeekDsml,
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"zip\">12345</｜DSML｜parameter>\n<｜DSML｜parameter name=\"s\">true</｜DSML｜parameter>\n<｜DSML｜parameter name=\"n\"> 42 </｜DSML｜parameter>\n<｜DSML｜parameter name=\"b\">True</｜DSML｜parameter>\n<｜DSML｜parameter name=\"o\">{\"a\": [1, \"x\"]}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        ),
    ];
    let mut v = Vec::new();
    for (format, input) in typed {
        v.push(
            fx("typed by the schema", format, input)
                .typed()
                .call("f", TYPED_WITH()),
        );
        let mut without = TYPED_WITHOUT();
        if format == Format::Glm {
            // GLM writes Python values at times: its literals are read without a schema.
            without["b"] = json!(true);
        }
        v.push(fx("typed without a schema", format, input).call("f", without));
    }
    v.extend([
        // ------------------------------------------------------------ glm
        // ------------------------------------------------------------ minimax
        // ------------------------------------------------------------ seed-oss
        // ------------------------------------------------------------ deepseek-dsml
        // ------------------------------------------------------------ qwen-xml
    ]);
    // Each syntax's own rows (its file's `table()`, listed in the family's `TABLE`).
    for rows in crate::xml::TABLE {
        v.extend(rows());
    }
    v
}

#[test]
fn fixtures_decode_under_every_chunking() {
    for f in fixtures() {
        let make = maker(f.format, f.tools);
        let ev = assert_split_invariant(&make, f.input.as_bytes(), 40);
        let what = format!("{} ({}): {ev:?}", f.what, f.format);
        let got: Vec<(String, Value)> = calls(&ev)
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect();
        let want: Vec<(String, Value)> = f
            .calls
            .iter()
            .map(|(n, a)| ((*n).to_owned(), a.clone()))
            .collect();
        assert_eq!(got, want, "{what}");
        assert_eq!(text(&ev), f.text, "{what}");
        assert_eq!(reasoning(&ev), f.reasoning, "{what}");
        let want_errors: Vec<(ErrorKind, Option<usize>, String)> = f
            .errors
            .iter()
            .map(|(k, i, r)| (*k, *i, (*r).to_owned()))
            .collect();
        assert_eq!(kinds(&ev), want_errors, "{what}");
    }
}

#[test]
fn start_comes_with_the_byte_that_settles_the_name() {
    let cases = [
        (
            Format::Glm,
            "<tool_call>get_wéather\n<arg_key>a</arg_key>",
            "get_wéather\n",
        ),
        (
            Format::Glm,
            "<tool_call>get_weather<arg_key>a</arg_key>",
            "get_weather<",
        ),
        (
            Format::MiniMax,
            "<minimax:tool_call><invoke name=\"get_weather\">",
            "get_weather\"",
        ),
        (
            Format::SeedOss,
            "<seed:tool_call><function=get_weather>",
            "get_weather>",
        ),
        (
            Format::DeepSeekDsml,
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"get_weather\">",
            "get_weather\"",
        ),
    ];
    for (format, input, settled_by) in cases {
        assert_start_at(format, input, settled_by);
    }
}

/// A string value streams as it arrives: its bytes are out before its closing tag.
#[test]
fn string_values_stream_before_their_close() {
    let cases = [
        (
            Format::Glm,
            "<tool_call>f\n<arg_key>zip</arg_key>\n<arg_value>12345 and more",
            false,
        ),
        (
            Format::MiniMax,
            "<minimax:tool_call><invoke name=\"f\"><parameter name=\"zip\">12345 and more",
            true,
        ),
        (
            Format::DeepSeekDsml,
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"k\" string=\"true\">12345 and more",
            false,
        ),
        (
            Format::QwenXml,
            "<tool_call><function=f><parameter=zip>12345 and more",
            true,
        ),
    ];
    for (format, input, tools) in cases {
        let mut p = maker(format, tools)();
        let mut out = Vec::new();
        p.feed(input.as_bytes(), &mut out).unwrap();
        let args: String = out
            .iter()
            .filter_map(|e| match e {
                Event::ToolCallArgs { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert!(args.ends_with(":\"12345 and more"), "{format}: {args:?}");
    }
    // Typed as a string by the schema, a number-like value streams from its first byte.
    let mut p = maker(Format::Glm, true)();
    let mut out = Vec::new();
    p.feed(
        b"<tool_call>f\n<arg_key>zip</arg_key>\n<arg_value>123",
        &mut out,
    )
    .unwrap();
    assert!(
        out.iter()
            .any(|e| matches!(e, Event::ToolCallArgs { delta, .. } if delta.contains("123"))),
        "{out:?}"
    );
}

#[test]
fn formats_are_listed_and_detected_by_auto() {
    let cases = [
        (
            "glm",
            Format::Glm,
            "x <tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
        ),
        ("glm", Format::Glm, "<tool_call>now</tool_call>"),
        (
            "minimax",
            Format::MiniMax,
            "<minimax:tool_call><invoke name=\"f\"><parameter name=\"a\">1</parameter></invoke></minimax:tool_call>",
        ),
        (
            "seed-oss",
            Format::SeedOss,
            "<seed:tool_call><function=f><parameter=a>1</parameter></function></seed:tool_call>",
        ),
        (
            "deepseek-dsml",
            Format::DeepSeekDsml,
            "<｜DSML｜tool_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\" string=\"false\">1</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>",
        ),
    ];
    for (name, format, input) in cases {
        assert_eq!(name.parse::<Format>().unwrap(), format);
        assert_eq!(format.to_string(), name);
        assert!(Format::all().any(|f| f == format), "{name} not listed");
        let direct = assert_split_invariant(&maker(format, false), input.as_bytes(), 10);
        let auto = assert_split_invariant(&maker(Format::Auto, false), input.as_bytes(), 10);
        // (`auto` passes the text before its first marker on as it is.)
        assert_eq!(calls(&auto), calls(&direct), "{name}");
        assert_eq!(calls(&auto).len(), 1, "{name}: {auto:?}");
    }
    // Hermes JSON after `<tool_call>` is still hermes.
    let ev = run_whole(
        &maker(Format::Auto, false),
        b"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
    );
    assert_eq!(calls(&ev).len(), 1, "{ev:?}");
}

/// Memory stays bounded: a value past `max_argument_bytes`, or a name past 256 bytes, is
/// an error carrying the call, whatever the dialect and the chunking.
#[test]
fn long_values_stay_within_the_limits() {
    let mut limits = toolstream::Limits::default();
    limits.max_argument_bytes = 64;
    for format in XML_FORMATS {
        let tools = Tools::from_json(TOOLS).unwrap();
        let make =
            move || Parser::with_config(format, common::with_limits(limits).tools(tools.clone()));
        let long_value = one_param_call(format, &"7".repeat(200));
        let (head, tail) = call_parts(format, &"n".repeat(1000), false);
        let long_name = format!("{head}{tail}");
        let mut inputs = vec![long_value, long_name];
        // A Python literal followed by a long run of whitespace (a `Json` value).
        let (head, tail) = call_parts(format, "f", false);
        let padded = format!("True{}", " ".repeat(200));
        inputs.push(format!(
            "{head}{}{tail}",
            param(format, "n", &padded, false, None)
        ));
        if format == Format::Glm {
            // Line breaks before a GLM name count towards its bound.
            inputs.push(format!("<tool_call>{}f</tool_call>", "\n".repeat(1000)));
        }
        for input in inputs {
            let ev = assert_split_invariant(&make, input.as_bytes(), 5);
            run_bounded(&make, input.as_bytes(), retained_bound(&limits));
            assert!(
                ev.iter().any(|e| matches!(e, Event::Error { .. })),
                "{format}: {ev:?}"
            );
            assert!(calls(&ev).is_empty(), "{format}: {ev:?}");
        }
    }
}

/// What a scanner may hold: the raw call, stray text and an undecided value (each within
/// `max_argument_bytes`), held-back text, a name and a key (256 bytes each at most) and a
/// partial marker.
fn retained_bound(limits: &toolstream::Limits) -> usize {
    3 * limits.max_argument_bytes + limits.max_held_bytes + 2 * 256 + 64
}

/// Feeds `bytes` one at a time, checking the retained bytes after each; returns the
/// merged events.
fn run_bounded(make: &dyn Fn() -> Parser, bytes: &[u8], bound: usize) -> Vec<Event> {
    let mut p = make();
    let mut out = Vec::new();
    for b in bytes.chunks(1) {
        p.feed(b, &mut out).unwrap();
        let held = p.retained_bytes();
        assert!(
            held <= bound,
            "{held} > {bound}: {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    p.finish(&mut out).unwrap();
    toolstream::merge_deltas(&mut out);
    out
}

/// The fixtures mutated (bytes replaced, removed, repeated), with default and tiny
/// limits: the event contract holds and random chunkings agree with the whole input.
const MUTANTS: usize = 40;
const SEED: u64 = 0x0de1;

#[test]
fn mutated_fixtures_keep_the_contract() {
    let mut tiny = toolstream::Limits::default();
    tiny.max_argument_bytes = 24;
    tiny.max_held_bytes = 16;
    let mut rng = common::Rng::new(SEED);
    for f in fixtures() {
        for limits in [toolstream::Limits::default(), tiny] {
            let tools = f.tools.then(|| Tools::from_json(TOOLS).unwrap());
            let format = f.format;
            let make = move || {
                let config = common::with_limits(limits);
                match &tools {
                    Some(t) => Parser::with_config(format, config.tools(t.clone())),
                    None => Parser::with_config(format, config),
                }
            };
            let bound = retained_bound(&limits);
            for _ in 0..MUTANTS {
                let (bytes, whole) =
                    assert_mutant_keeps_contract(&make, f.input.as_bytes(), &mut rng, 12, f.what);
                let by_byte = run_bounded(&make, &bytes, bound);
                assert_eq!(by_byte, whole, "{} by byte", f.what);
            }
        }
    }
}

// ---------------------------------------------------------------- generated

/// The text before and after the parameters of call `name` in `format` (`alt`: the
/// syntax's other spelling: GLM-4.7 without newlines, DSML V4's section).
fn call_parts(format: Format, name: &str, alt: bool) -> (String, String) {
    let section = if alt { "tool_calls" } else { "function_calls" };
    match format {
        Format::QwenXml => (
            format!("<tool_call>\n<function={name}>\n"),
            "</function>\n</tool_call>".into(),
        ),
        Format::SeedOss => (
            format!("<seed:tool_call>\n<function={name}>\n"),
            "</function>\n</seed:tool_call>".into(),
        ),
        Format::Glm if alt => (format!("<tool_call>{name}"), "</tool_call>".into()),
        Format::Glm => (format!("<tool_call>{name}\n"), "</tool_call>".into()),
        Format::MiniMax => (
            format!("<minimax:tool_call>\n<invoke name=\"{name}\">\n"),
            "</invoke>\n</minimax:tool_call>".into(),
        ),
        // V4.1's spaced tags as the other spelling.
        Format::DeepSeekDsml if alt => (
            format!("<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"{name}\">\n"),
            "</｜DSML｜ invoke>\n</｜DSML｜ calls>".into(),
        ),
        Format::DeepSeekDsml => (
            format!("<｜DSML｜{section}>\n<｜DSML｜invoke name=\"{name}\">\n"),
            format!("</｜DSML｜invoke>\n</｜DSML｜{section}>"),
        ),
        Format::KimiK3 => (
            format!("<|open|>tools<|sep|><|open|>call tool=\"{name}\" index=\"1\"<|sep|>"),
            "<|close|>call<|sep|><|close|>tools<|sep|>".into(),
        ),
        Format::MiniMaxM3 => (
            format!("]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"{name}\">\n"),
            "]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>".into(),
        ),
        _ => unreachable!(),
    }
}

/// One parameter; `string`: DSML's `string="true|false"` attribute (`None`: none).
fn param(format: Format, key: &str, value: &str, alt: bool, string: Option<bool>) -> String {
    match format {
        Format::QwenXml | Format::SeedOss => format!("<parameter={key}>\n{value}\n</parameter>\n"),
        Format::Glm if alt => format!("<arg_key>{key}</arg_key><arg_value>{value}</arg_value>"),
        Format::Glm => format!("<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n"),
        Format::MiniMax => format!("<parameter name=\"{key}\">{value}</parameter>\n"),
        Format::DeepSeekDsml if alt => {
            let attr = string.map_or(String::new(), |s| format!(" string=\"{s}\""));
            format!("<｜DSML｜ parameter name=\"{key}\"{attr}>{value}</｜DSML｜ parameter>\n")
        }
        Format::DeepSeekDsml => {
            let attr = string.map_or(String::new(), |s| format!(" string=\"{s}\""));
            format!("<｜DSML｜parameter name=\"{key}\"{attr}>{value}</｜DSML｜parameter>\n")
        }
        Format::KimiK3 => {
            let attr = match string {
                Some(true) => " type=\"string\"",
                Some(false) => " type=\"number\"",
                None => "",
            };
            format!("<|open|>argument key=\"{key}\"{attr}<|sep|>{value}<|close|>argument<|sep|>")
        }
        Format::MiniMaxM3 => format!("]<]minimax[>[<{key}>{value}]<]minimax[>[</{key}>\n"),
        _ => unreachable!(),
    }
}

/// A call with one parameter `k` of value `value`.
fn one_param_call(format: Format, value: &str) -> String {
    let (head, tail) = call_parts(format, "f", false);
    format!("{head}{}{tail}", param(format, "k", value, false, None))
}

/// The one-shot oracle of a value's text: typed by `kind` (`Some(true)` string,
/// `Some(false)` JSON, `None` the schema-less rule); `py`: the schema-less rule reads
/// Python literals (GLM).
fn oracle(raw: &str, kind: Option<bool>, py: bool) -> Value {
    let trimmed = raw.trim_matches([' ', '\t', '\n', '\r']);
    if kind == Some(true) {
        return Value::from(raw);
    }
    if kind == Some(false) || py {
        match trimmed {
            "True" => return json!(true),
            "False" => return json!(false),
            "None" => return Value::Null,
            _ => {}
        }
    }
    match serde_json::from_str::<Value>(trimmed) {
        // Said to be JSON, a JSON string is decoded too.
        Ok(v) if !v.is_string() || kind == Some(false) => v,
        _ => Value::from(raw),
    }
}

/// Markers generated text and values must not contain.
const FORBIDDEN: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "</function>",
    "<parameter",
    "</parameter>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<minimax:",
    "</minimax:",
    "<invoke",
    "</invoke>",
    "<seed:",
    "</seed:",
    "<｜",
    "</｜",
    "<think>",
    "</think>",
    "<|",
    "[e~[",
    "]<]minimax[>[",
];

fn clean(s: &str) -> bool {
    !FORBIDDEN.iter().any(|m| s.contains(m))
}

fn piece() -> impl Strategy<Value = String> {
    let parts = vec![
        "a", "é", "😀", " ", "\n", "<", ">", "\"", "\\", "｜", "/", "{", "}", "[", "1", "-", "t",
        "True", "null", "<tool", "</arg", "<invoke", "</par", "<seed", "<｜DS", "x",
    ];
    proptest::collection::vec(proptest::sample::select(parts), 0..8).prop_map(|v| v.concat())
}

/// A value's text, and whether it is a string in the schema (`typed` runs).
fn value_text() -> impl Strategy<Value = String> {
    prop_oneof![
        piece(),
        proptest::sample::select(vec![
            "12",
            "-3.5",
            "true",
            "null",
            " 7 ",
            "tr",
            "1 2",
            "[x]",
            "007",
            "True",
            "None",
            "{\"a\": [1, \"é\"]}",
            "\"q\"",
            "",
            "\n",
        ])
        .prop_map(String::from),
        arb_value().prop_map(|v| v.to_string()),
    ]
}

type GenCall = (String, Vec<(String, String, bool)>, bool);

fn generated(format: Format, texts: &[String], calls_gen: &[GenCall], typed: bool, cuts: &[usize]) {
    let mut input = String::new();
    let mut want_text = String::new();
    let mut want = Vec::new();
    let mut tools = Map::new();
    for i in 0..=calls_gen.len() {
        let t = texts.get(i).map_or("", String::as_str);
        let t = if clean(t) { t } else { "" };
        input.push_str(t);
        let Some((name, params, alt)) = calls_gen.get(i) else {
            want_text.push_str(t);
            break;
        };
        want_text.push_str(t);
        let mut seen = std::collections::BTreeSet::new();
        let params: Vec<(String, String, bool)> = params
            .iter()
            .filter(|(k, v, _)| clean(v) && seen.insert(k.clone()))
            .cloned()
            .collect();
        let name = format!("{name}{i}");
        let mut args = Map::new();
        let mut props = Map::new();
        let (head, tail) = call_parts(format, &name, *alt);
        input.push_str(&head);
        for (k, v, is_string) in &params {
            // DSML's `alt` spelling and K3 say the kind in the value's attribute (K3
            // without one: a string).
            let attr = match format {
                Format::DeepSeekDsml if *alt => Some(*is_string),
                Format::KimiK3 if *alt => Some(*is_string),
                _ => None,
            };
            let kind = match (typed, format) {
                (true, _) => Some(*is_string),
                (false, Format::KimiK3) => Some(attr.unwrap_or(true)),
                // MiniMax M3 without a schema: every leaf is its text.
                (false, Format::MiniMaxM3) => Some(true),
                (false, _) => attr,
            };
            let py = format == Format::Glm && kind.is_none();
            args.insert(k.clone(), oracle(v, kind, py));
            props.insert(
                k.clone(),
                json!({"type": if *is_string { "string" } else { "integer" }}),
            );
            input.push_str(&param(format, k, v, *alt, attr));
        }
        input.push_str(&tail);
        tools.insert(name.clone(), Value::Object(props));
        want.push((name, Value::Object(args)));
    }
    let tools_json: Vec<Value> = tools
        .into_iter()
        .map(|(name, props)| {
            json!({"name": name, "parameters": {"type": "object", "properties": props}})
        })
        .collect();
    let declared = Tools::from_value(&Value::from(tools_json)).unwrap();
    let make = move || {
        let config = ParserConfig::new();
        let config = if typed {
            config.tools(declared.clone())
        } else {
            config
        };
        Parser::with_config(format, config)
    };
    let whole = run_whole(&make, input.as_bytes());
    check_contract(&whole);
    assert!(kinds(&whole).is_empty(), "{format} {input:?}: {whole:?}");
    let got: Vec<(String, Value)> = calls(&whole)
        .into_iter()
        .map(|c| (c.name, c.arguments))
        .collect();
    assert_eq!(got, want, "{format} {input:?}");
    assert_eq!(text(&whole), want_text, "{format} {input:?}");
    assert_eq!(
        run_chunks(&make, &cut_at(input.as_bytes(), cuts)),
        whole,
        "{format} {input:?} cut at {cuts:?}"
    );
    assert_eq!(
        run_sized(&make, input.as_bytes(), 1),
        whole,
        "{format} {input:?} by byte"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn generated_calls_any_split_against_the_oracle(
        texts in proptest::collection::vec(piece(), 0..4),
        calls_gen in proptest::collection::vec(
            (
                "[a-z_]{1,10}",
                proptest::collection::vec(("[a-z]{1,6}", value_text(), any::<bool>()), 0..4),
                any::<bool>(),
            ),
            0..3,
        ),
        typed in any::<bool>(),
        cuts in proptest::collection::vec(0usize..800, 0..12),
    ) {
        for format in XML_FORMATS {
            generated(format, &texts, &calls_gen, typed, &cuts);
        }
    }
}
