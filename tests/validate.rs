//! Catching a bad call while it streams (issue 31): the runaway guard
//! (`ParserConfig::max_repeats`) and streaming JSON-Schema validation
//! (`ParserConfig::validate_arguments`). Each case runs whole, byte by byte and at every
//! split point, against the one-shot result.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig, merge_deltas};

/// The events of `input` fed in the given pieces, deltas merged, and the number of input
/// bytes fed when each event was emitted.
fn run_cut(
    format: Format,
    config: &ParserConfig,
    input: &[u8],
    cuts: &[usize],
) -> (Vec<Event>, Vec<usize>) {
    let mut p = Parser::with_config(format, config.clone());
    let mut ev = Vec::new();
    let mut at = Vec::new();
    let mut from = 0;
    for &c in cuts.iter().chain([&input.len()]) {
        p.feed(&input[from..c], &mut ev).unwrap();
        at.resize(ev.len(), c);
        from = c;
    }
    p.finish(&mut ev).unwrap();
    at.resize(ev.len(), input.len());
    // Where the error came: the fed bytes when it was emitted.
    let err_at: Vec<usize> = ev
        .iter()
        .zip(&at)
        .filter(|(e, _)| matches!(e, Event::Error { .. }))
        .map(|(_, a)| *a)
        .collect();
    merge_deltas(&mut ev);
    (ev, err_at)
}

/// `input` whole, byte by byte, and cut once at every point: the same events; the error
/// (if any) emitted by the feed carrying byte `err_byte` (its offset in `input`).
fn every_split(
    format: Format,
    config: &ParserConfig,
    input: &[u8],
    err_byte: Option<usize>,
) -> Vec<Event> {
    let (whole, _) = run_cut(format, config, input, &[]);
    let bytes: Vec<usize> = (1..input.len()).collect();
    let (by_byte, at) = run_cut(format, config, input, &bytes);
    assert_eq!(by_byte, whole, "byte by byte");
    if let Some(b) = err_byte {
        assert_eq!(
            at.first().copied(),
            Some(b + 1),
            "the error comes with byte {b}"
        );
    }
    let step = (input.len() / 400).max(1);
    for cut in (1..input.len()).step_by(step) {
        let (ev, _) = run_cut(format, config, input, &[cut]);
        assert_eq!(ev, whole, "cut at {cut}");
    }
    whole
}

fn error_of(ev: &[Event]) -> Option<(ErrorKind, Option<usize>, &str, Option<&str>)> {
    ev.iter().find_map(|e| match e {
        Event::Error {
            kind,
            index,
            raw,
            path,
            ..
        } => Some((*kind, *index, raw.as_str(), path.as_deref())),
        _ => None,
    })
}

fn args_of(ev: &[Event], i: usize) -> String {
    ev.iter()
        .filter_map(|e| match e {
            Event::ToolCallArgs { index, delta } if *index == i => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn invoke_repeated_6099_times_is_stopped_early() {
    let head = r#"<tool_call>{"name":"write","arguments":{"text":"done"#;
    let looping = "</invoke>".repeat(6099);
    let input = format!("{head}{looping}\"}}}}</tool_call>after");
    let config = ParserConfig::new().max_repeats(10);
    // 11 copies of the 9-byte period: the byte that completes the 11th.
    let args_start = head.find("{\"text\"").unwrap();
    let err_byte = head.len() + 11 * 9 - 1;
    let ev = every_split(Format::Hermes, &config, input.as_bytes(), Some(err_byte));
    let (kind, index, raw, path) = error_of(&ev).expect("an error");
    assert_eq!((kind, index, path), (ErrorKind::Repetition, Some(0), None));
    assert_eq!(
        raw,
        &input[..=err_byte],
        "the model's bytes of the call through the offending byte"
    );
    assert_eq!(args_of(&ev, 0), input[args_start..err_byte]);
    assert!(
        !ev.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })),
        "{ev:?}"
    );
    // The text after the call is still text; nothing else is reported about the call.
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, Event::Error { .. }))
            .count(),
        1,
        "{ev:?}"
    );
    assert!(
        ev.contains(&Event::Text {
            delta: "after".into()
        }),
        "{ev:?}"
    );
}

#[test]
fn repetition_in_a_provider_stream() {
    let args = format!("{{\"q\":\"{}\"}}", "ab".repeat(40));
    let frag = serde_json::to_string(&args).unwrap();
    let mut body = String::new();
    for piece in [&frag[..1], &frag[1..]] {
        let _ = piece;
    }
    body.push_str(&format!(
        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"id\":\"c1\",\"function\":{{\"name\":\"s\",\"arguments\":{frag}}}}}]}}}}]}}\n\n"
    ));
    body.push_str("data: [DONE]\n\n");
    let config = ParserConfig::new().max_repeats(5);
    let ev = every_split(Format::OpenAiChat, &config, body.as_bytes(), None);
    let (kind, index, raw, _) = error_of(&ev).expect("an error");
    assert_eq!((kind, index), (ErrorKind::Repetition, Some(0)));
    // Period 2, 6 copies: 12 bytes of it, from `"q":"` on.
    let start = "{\"q\":\"".len();
    // `"ab` ... the run of period 2 starts at `a`: 6 copies end at start + 11.
    assert_eq!(raw, &args[..start + 12]);
    assert_eq!(args_of(&ev, 0), args[..start + 11]);
    assert!(!ev.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })));
}

#[test]
fn off_by_default_and_below_the_bound_nothing_changes() {
    let input = format!(
        r#"<tool_call>{{"name":"f","arguments":{{"a":"{}"}}}}</tool_call>"#,
        "xyz".repeat(4)
    );
    let plain = every_split(Format::Hermes, &ParserConfig::new(), input.as_bytes(), None);
    let guarded = every_split(
        Format::Hermes,
        &ParserConfig::new().max_repeats(4),
        input.as_bytes(),
        None,
    );
    assert_eq!(plain, guarded);
    assert!(plain.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })));
    let tripped = every_split(
        Format::Hermes,
        &ParserConfig::new().max_repeats(3),
        input.as_bytes(),
        None,
    );
    assert_eq!(error_of(&tripped).map(|e| e.0), Some(ErrorKind::Repetition));
}

// ---- Streaming JSON-Schema validation ----

use toolstream::Tools;

const WEATHER: &str = r##"[{"type":"function","function":{"name":"weather","parameters":{
    "type":"object",
    "properties":{
        "city":{"type":"string","minLength":2,"maxLength":12},
        "unit":{"enum":["celsius","fahrenheit"]},
        "days":{"type":"integer","minimum":1,"maximum":14},
        "hourly":{"type":"boolean"},
        "tags":{"type":"array","items":{"type":"string"},"maxItems":2,"minItems":1},
        "at":{"$ref":"#/$defs/point"}
    },
    "required":["city"],
    "additionalProperties":false,
    "$defs":{"point":{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},"required":["lat","lon"]}}
}}}]"##;

fn validating(tools: &str) -> ParserConfig {
    ParserConfig::new()
        .tools(Tools::from_json(tools).unwrap())
        .validate_arguments(true)
}

/// A Hermes call of the first tool of `WEATHER` with these arguments: the error's kind,
/// path and the argument text emitted before it (`None`: the call ended).
fn verdict(args: &str) -> Option<(ErrorKind, String, String)> {
    verdict_of(WEATHER, "weather", args)
}

/// [`verdict`] for tool `name` of `tools`.
fn verdict_of(tools: &str, name: &str, args: &str) -> Option<(ErrorKind, String, String)> {
    let input = format!(r#"<tool_call>{{"name":"{name}","arguments":{args}}}</tool_call>"#);
    let head = format!(r#"<tool_call>{{"name":"{name}","arguments":"#).len();
    let ev = every_split(Format::Hermes, &validating(tools), input.as_bytes(), None);
    let err = error_of(&ev).map(|(k, i, raw, p)| {
        assert_eq!(i, Some(0));
        let emitted = args_of(&ev, 0);
        // The raw text runs through the offending character.
        assert!(
            raw.starts_with(&input[..head + emitted.len()]) && raw.len() > head + emitted.len()
        );
        (k, p.unwrap_or_default().to_owned(), emitted)
    });
    let ended = ev.iter().any(|e| matches!(e, Event::ToolCallEnd { .. }));
    assert_eq!(ended, err.is_none(), "{ev:?}");
    err
}

#[test]
fn schema_violations_at_their_first_byte() {
    let sv = ErrorKind::SchemaViolation;
    let cases: &[(&str, Option<(&str, &str)>)] = &[
        (
            r#"{"city":"Paris","unit":"celsius","days":3,"hourly":true,"tags":["a"],"at":{"lat":1,"lon":2.5}}"#,
            None,
        ),
        (
            r#"{"city":"Paris","unit":"kelvin"}"#,
            Some(("/unit", r#"{"city":"Paris","unit":""#)),
        ),
        (
            r#"{"city":"Paris","unit":"celsiusx"}"#,
            Some(("/unit", r#"{"city":"Paris","unit":"celsius"#)),
        ),
        (
            r#"{"city":"Paris","unit":"cels"}"#,
            Some(("/unit", r#"{"city":"Paris","unit":"cels"#)),
        ),
        // `1.5e1` would still be an integer: refused at the number's end.
        (
            r#"{"city":"Paris","days":1.5}"#,
            Some(("/days", r#"{"city":"Paris","days":1.5"#)),
        ),
        (r#"{"city":"Paris","days":2.0}"#, None),
        // Every integer starting `15` is past 14: at the `5`.
        (
            r#"{"city":"Paris","days":15}"#,
            Some(("/days", r#"{"city":"Paris","days":1"#)),
        ),
        (
            r#"{"city":"Paris","days":"3"}"#,
            Some(("/days", r#"{"city":"Paris","days":"#)),
        ),
        (
            r#"{"city":"Paris","colour":1}"#,
            Some(("", r#"{"city":"Paris","c"#)),
        ),
        (
            r#"{"city":"Paris","cit":1}"#,
            Some(("", r#"{"city":"Paris","cit"#)),
        ),
        (r#"{"unit":"celsius"}"#, Some(("", r#"{"unit":"celsius""#))),
        (r#"{"city":"P"}"#, Some(("/city", r#"{"city":"P"#))),
        (
            r#"{"city":"Llanfairpwllgwyngyll"}"#,
            Some(("/city", r#"{"city":"Llanfairpwll"#)),
        ),
        (
            r#"{"city":"Paris","tags":["a","b","c"]}"#,
            Some(("/tags", r#"{"city":"Paris","tags":["a","b","#)),
        ),
        (
            r#"{"city":"Paris","tags":[]}"#,
            Some(("/tags", r#"{"city":"Paris","tags":["#)),
        ),
        (
            r#"{"city":"Paris","tags":[1]}"#,
            Some(("/tags/0", r#"{"city":"Paris","tags":["#)),
        ),
        (
            r#"{"city":"Paris","at":{"lat":1}}"#,
            Some(("/at", r#"{"city":"Paris","at":{"lat":1"#)),
        ),
        (
            r#"{"city":"Paris","at":{"lat":true,"lon":1}}"#,
            Some(("/at/lat", r#"{"city":"Paris","at":{"lat":"#)),
        ),
        (r#"{"city":"Par\u00efs"}"#, None),
        (
            r#"{"city":"Paris","hourly":null}"#,
            Some(("/hourly", r#"{"city":"Paris","hourly":"#)),
        ),
        (r#"[1]"#, Some(("", ""))),
    ];
    for (args, want) in cases {
        let got = verdict(args);
        let want = want.map(|(path, emitted)| (sv, path.to_owned(), emitted.to_owned()));
        assert_eq!(got, want, "{args}");
    }
}

const SHAPES: &str = r##"[{"type":"function","function":{"name":"shape","parameters":{
    "type":"object",
    "properties":{
        "id":{"anyOf":[{"type":"integer","minimum":0},{"type":"string","pattern":"^id-[0-9]+$"}]},
        "kind":{"oneOf":[{"type":"string"},{"type":"string","maxLength":3}]},
        "code":{"type":"string","pattern":"[A-Z]{2}\\d"},
        "size":{"allOf":[{"type":"number","minimum":1},{"maximum":10}]},
        "dims":{"type":"array","items":{"anyOf":[{"$ref":"#/$defs/pt"},{"type":"null"}]}},
        "tag":{"type":"string","pattern":"(?<=a)b"}
    },
    "additionalProperties":false,
    "$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"],"additionalProperties":false}}
}}}]"##;

#[test]
fn any_of_one_of_all_of_and_pattern_at_their_first_byte() {
    let sv = ErrorKind::SchemaViolation;
    let cases: &[(&str, Option<(&str, &str)>)] = &[
        (
            r#"{"id":3,"kind":"circle","code":"xxAB1yy","size":5,"dims":[{"x":1},null],"tag":"zzz"}"#,
            None,
        ),
        // anyOf: the string branch dies at `-`, the integer one at `1` (`-0` would do).
        (r#"{"id":-1}"#, Some(("/id", r#"{"id":-"#))),
        (r#"{"id":true}"#, Some(("/id", r#"{"id":"#))),
        // pattern, anchored: dead at the first character no match can follow.
        (r#"{"id":"id-12x"}"#, Some(("/id", r#"{"id":"id-12"#))),
        (r#"{"id":"ix"}"#, Some(("/id", r#"{"id":"i"#))),
        (r#"{"id":"é"}"#, Some(("/id", r#"{"id":""#))),
        (r#"{"id":"id-"}"#, Some(("/id", r#"{"id":"id-"#))),
        // ... over the decoded string: `\u0069` is `i`.
        (r#"{"id":"\u0069d-7"}"#, None),
        // unanchored: never dead, refused at the closing quote.
        (r#"{"code":"ab1"}"#, Some(("/code", r#"{"code":"ab1"#))),
        (r#"{"code":"-\u0041B1"}"#, None),
        // oneOf: both branches accept "ab": at the close.
        (r#"{"kind":"ab"}"#, Some(("/kind", r#"{"kind":"ab"#))),
        (r#"{"kind":"abcd"}"#, None),
        (r#"{"kind":1}"#, Some(("/kind", r#"{"kind":"#))),
        // allOf: the failing branch's own keyword and path.
        (r#"{"size":11}"#, Some(("/size", r#"{"size":11"#))),
        (r#"{"size":0.5}"#, Some(("/size", r#"{"size":0.5"#))),
        (r#"{"size":"5"}"#, Some(("/size", r#"{"size":"#))),
        // anyOf of a $ref and null, inside items: the undeclared key's first byte.
        (
            r#"{"dims":[{"x":1},{"y":2}]}"#,
            Some(("/dims/1", r#"{"dims":[{"x":1},{""#)),
        ),
        (
            r#"{"dims":[{"x":1},{}]}"#,
            Some(("/dims/1", r#"{"dims":[{"x":1},{"#)),
        ),
        // A set ends with its value, also at the byte that closes the container too.
        (
            r#"{"dims":[null],"id":true}"#,
            Some(("/id", r#"{"dims":[null],"id":"#)),
        ),
        // A pattern the crate cannot compile (look-behind) is not checked.
        (r#"{"tag":"zzz"}"#, None),
    ];
    for (args, want) in cases {
        let got = verdict_of(SHAPES, "shape", args);
        let want = want.map(|(path, emitted)| (sv, path.to_owned(), emitted.to_owned()));
        assert_eq!(got, want, "{args}");
    }
}

// ---- Property: the streaming verdict is a whole-document validator's ----

use serde_json::{Value, json};

/// A small deterministic generator (the property's seed drives it).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
}

const KEYS: [&str; 5] = ["a", "ab", "b", "c/d", "é"];
const STRS: [&str; 8] = ["", "a", "ab", "abc", "b", "é", "a/b", "x~y"];

fn numbers() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(-1),
        json!(2),
        json!(3),
        json!(2.5),
        json!(-0.5),
        json!(10),
        json!(1.0),
        json!(4e1),
    ]
}

fn gen_schema(r: &mut Rng, depth: u32, defs: bool) -> Value {
    let kind = if depth == 0 {
        *r.pick(&[0, 1, 2, 3, 9])
    } else {
        r.below(12)
    };
    gen_schema_of(r, kind, depth, defs)
}

/// Patterns over the strings of `STRS`: anchored, unanchored, a class, an alternation,
/// and a look-ahead the crate cannot compile (not checked, by either side).
const PATTERNS: [&str; 8] = [
    "^a", "b$", "^[ab]*$", "é", "^a.?b", "\\d", "^(ab|b)$", "a(?=b)",
];

fn gen_schema_of(r: &mut Rng, kind: u64, depth: u32, defs: bool) -> Value {
    let mut s = serde_json::Map::new();
    match kind {
        0 => {
            s.insert("type".into(), json!("string"));
            if r.chance(40) {
                s.insert("minLength".into(), json!(r.below(3)));
            }
            if r.chance(40) {
                s.insert("maxLength".into(), json!(r.below(4)));
            }
            if r.chance(30) {
                let n = 1 + r.below(3);
                let members: Vec<Value> = (0..n).map(|_| json!(r.pick(&STRS))).collect();
                s.insert("enum".into(), Value::Array(members));
            } else if r.chance(40) {
                s.insert("pattern".into(), json!(r.pick(&PATTERNS)));
            }
        }
        1 | 2 => {
            s.insert(
                "type".into(),
                json!(if kind == 1 { "integer" } else { "number" }),
            );
            let nums = numbers();
            for k in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
                if r.chance(25) {
                    s.insert(k.into(), r.pick(&nums).clone());
                }
            }
            if r.chance(20) {
                s.insert(
                    "multipleOf".into(),
                    r.pick(&[json!(2), json!(0.5), json!(3)]).clone(),
                );
            }
        }
        3 => {
            let t = r
                .pick(&[
                    json!("boolean"),
                    json!("null"),
                    json!(["string", "null"]),
                    json!(["integer", "boolean"]),
                ])
                .clone();
            s.insert("type".into(), t);
        }
        4 | 5 => {
            s.insert("type".into(), json!("object"));
            let mut props = serde_json::Map::new();
            for k in KEYS {
                if r.chance(50) {
                    props.insert(k.into(), gen_schema(r, depth - 1, defs));
                }
            }
            let required: Vec<Value> = KEYS
                .iter()
                .filter(|_| r.chance(25))
                .map(|k| json!(k))
                .collect();
            s.insert("properties".into(), Value::Object(props));
            if !required.is_empty() {
                s.insert("required".into(), Value::Array(required));
            }
            match r.below(3) {
                0 => {
                    s.insert("additionalProperties".into(), json!(false));
                }
                1 => {
                    s.insert("additionalProperties".into(), gen_schema(r, 0, defs));
                }
                _ => {}
            }
        }
        6 => {
            s.insert("type".into(), json!("array"));
            s.insert("items".into(), gen_schema(r, depth - 1, defs));
            if r.chance(30) {
                s.insert("prefixItems".into(), json!([gen_schema(r, 0, defs)]));
            }
            if r.chance(40) {
                s.insert("minItems".into(), json!(r.below(3)));
            }
            if r.chance(40) {
                s.insert("maxItems".into(), json!(r.below(4)));
            }
        }
        7 => {
            let mut pool = numbers();
            pool.extend(STRS.iter().map(|s| json!(s)));
            pool.extend([json!(true), json!(null), json!({"a": 1}), json!([1])]);
            if r.chance(50) {
                s.insert("const".into(), r.pick(&pool).clone());
            } else {
                let members: Vec<Value> =
                    (0..1 + r.below(4)).map(|_| r.pick(&pool).clone()).collect();
                s.insert("enum".into(), Value::Array(members));
            }
        }
        8 if defs => return json!({"$ref": "#/$defs/d"}),
        // anyOf: branches of any kind (overlapping or not), next to a keyword of its own.
        9 => {
            let n = 1 + r.below(3);
            let branches: Vec<Value> = (0..n)
                .map(|_| gen_schema(r, depth.saturating_sub(1), defs))
                .collect();
            s.insert("anyOf".into(), Value::Array(branches));
            if r.chance(30) {
                s.insert("maxLength".into(), json!(1 + r.below(3)));
            }
        }
        // oneOf: branches of distinct types (exactly one can accept), or now and then two
        // string branches that overlap (refused at the close when both accept).
        10 => {
            if r.chance(20) {
                s.insert(
                    "oneOf".into(),
                    json!([{"type": "string"}, {"type": "string", "maxLength": r.below(3)}]),
                );
            } else {
                let mut kinds = vec![0, 3 - 2 + r.below(2), 11];
                if depth >= 2 {
                    kinds.extend([4, 6]);
                }
                let mut branches = Vec::new();
                for _ in 0..1 + r.below(3) {
                    let k = kinds.remove(r.below(kinds.len() as u64) as usize);
                    branches.push(match k {
                        11 => json!({"type": r.pick(&["boolean", "null"])}),
                        k => gen_schema_of(r, k, depth - 1, defs),
                    });
                    if kinds.is_empty() {
                        break;
                    }
                }
                s.insert("oneOf".into(), Value::Array(branches));
            }
        }
        _ => return json!({}),
    }
    Value::Object(s)
}

fn any_value(r: &mut Rng, depth: u32) -> Value {
    match r.below(if depth == 0 { 5 } else { 7 }) {
        0 => json!(null),
        1 => json!(r.chance(50)),
        2 | 3 => r.pick(&numbers()).clone(),
        4 => json!(r.pick(&STRS)),
        5 => Value::Array((0..r.below(4)).map(|_| any_value(r, depth - 1)).collect()),
        _ => {
            let mut m = serde_json::Map::new();
            for k in KEYS {
                if r.chance(40) {
                    m.insert(k.into(), any_value(r, depth - 1));
                }
            }
            Value::Object(m)
        }
    }
}

/// A value meant to fit `s` (often does), sometimes anything.
fn gen_value(r: &mut Rng, s: &Value, root: &Value, depth: u32) -> Value {
    if r.chance(8) || depth == 0 {
        return any_value(r, depth.min(2));
    }
    let s = match s.get("$ref") {
        Some(_) => root.pointer("/$defs/d").unwrap_or(&Value::Null),
        None => s,
    };
    for k in ["anyOf", "oneOf"] {
        if let Some(Value::Array(b)) = s.get(k)
            && !b.is_empty()
            && r.chance(85)
        {
            let branch = r.pick(b);
            return gen_value(r, branch, root, depth);
        }
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(Value::Array(m)) = s.get("enum") {
        return r.pick(m).clone();
    }
    let t = match s.get("type") {
        Some(Value::Array(ts)) => r.pick(ts).as_str().unwrap_or("").to_owned(),
        Some(t) => t.as_str().unwrap_or("").to_owned(),
        None => return any_value(r, 2),
    };
    match t.as_str() {
        "string" => json!(r.pick(&STRS)),
        "integer" => r
            .pick(&[json!(0), json!(1), json!(2), json!(3), json!(10), json!(-1)])
            .clone(),
        "number" => r.pick(&numbers()).clone(),
        "boolean" => json!(r.chance(50)),
        "null" => json!(null),
        "object" => {
            let mut m = serde_json::Map::new();
            let props = s.get("properties").and_then(Value::as_object);
            for k in KEYS {
                let p = props.and_then(|p| p.get(k));
                let required = s
                    .get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.contains(&json!(k)));
                if required || (p.is_some() && r.chance(60)) {
                    let v = match p {
                        Some(p) => gen_value(r, p, root, depth - 1),
                        None => any_value(r, 1),
                    };
                    m.insert(k.into(), v);
                }
            }
            Value::Object(m)
        }
        "array" => {
            let n = r.below(4);
            (0..n)
                .map(|i| {
                    let item = match (i, s.get("prefixItems")) {
                        (0, Some(Value::Array(p))) if !p.is_empty() => &p[0],
                        _ => s.get("items").unwrap_or(&Value::Null),
                    };
                    gen_value(r, item, root, depth - 1)
                })
                .collect()
        }
        _ => any_value(r, 2),
    }
}

/// Replaces one random node of `v` with something random.
fn mutate(r: &mut Rng, v: &mut Value) {
    let descend = r.chance(60);
    match v {
        Value::Object(m) if descend && !m.is_empty() => {
            let k = m
                .keys()
                .nth(r.below(m.len() as u64) as usize)
                .cloned()
                .unwrap_or_default();
            if let Some(child) = m.get_mut(&k) {
                mutate(r, child);
            }
        }
        Value::Array(a) if descend && !a.is_empty() => {
            let i = r.below(a.len() as u64) as usize;
            mutate(r, &mut a[i]);
        }
        _ => *v = any_value(r, 1),
    }
}

fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// The reference: a whole-document validator of the same keywords.
fn valid(s: &Value, root: &Value, v: &Value) -> bool {
    let Value::Object(o) = s else {
        return s != &Value::Bool(false);
    };
    if let Some(Value::String(r)) = o.get("$ref") {
        return root.pointer(&r[1..]).is_none_or(|t| valid(t, root, v));
    }
    let is_type = |t: &str| match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => true,
    };
    match o.get("type") {
        Some(Value::String(t)) if !is_type(t) => return false,
        Some(Value::Array(ts)) if !ts.iter().any(|t| is_type(t.as_str().unwrap_or(""))) => {
            return false;
        }
        _ => {}
    }
    if let Some(c) = o.get("const")
        && !json_eq(c, v)
    {
        return false;
    }
    if let Some(Value::Array(m)) = o.get("enum")
        && !m.iter().any(|m| json_eq(m, v))
    {
        return false;
    }
    let count = |k: &str| {
        o.get(k)
            .and_then(Value::as_array)
            .map(|b| b.iter().filter(|b| valid(b, root, v)).count())
    };
    if count("anyOf") == Some(0)
        || count("oneOf").is_some_and(|n| n != 1)
        || o.get("allOf")
            .and_then(Value::as_array)
            .is_some_and(|b| b.iter().any(|b| !valid(b, root, v)))
    {
        return false;
    }
    // ECMA-262 `search`: a match anywhere (an uncompilable pattern is not checked).
    if let (Some(Value::String(p)), Value::String(st)) = (o.get("pattern"), v)
        && let Ok(re) = regex_automata::meta::Regex::new(p)
        && !re.is_match(st.as_str())
    {
        return false;
    }
    match v {
        Value::String(st) => {
            let n = st.chars().count() as u64;
            if o.get("minLength")
                .and_then(Value::as_u64)
                .is_some_and(|m| n < m)
                || o.get("maxLength")
                    .and_then(Value::as_u64)
                    .is_some_and(|m| n > m)
            {
                return false;
            }
        }
        Value::Number(num) => {
            let x = num.as_f64().unwrap_or(0.0);
            let b = |k: &str| o.get(k).and_then(Value::as_f64);
            if b("minimum").is_some_and(|m| x < m)
                || b("maximum").is_some_and(|m| x > m)
                || b("exclusiveMinimum").is_some_and(|m| x <= m)
                || b("exclusiveMaximum").is_some_and(|m| x >= m)
                || b("multipleOf").is_some_and(|m| (x / m).fract() != 0.0)
            {
                return false;
            }
        }
        Value::Array(a) => {
            let n = a.len() as u64;
            if o.get("minItems")
                .and_then(Value::as_u64)
                .is_some_and(|m| n < m)
                || o.get("maxItems")
                    .and_then(Value::as_u64)
                    .is_some_and(|m| n > m)
            {
                return false;
            }
            let prefix = o.get("prefixItems").and_then(Value::as_array);
            for (i, e) in a.iter().enumerate() {
                let item = match prefix.and_then(|p| p.get(i)) {
                    Some(p) => Some(p),
                    None => o.get("items"),
                };
                if item.is_some_and(|item| !valid(item, root, e)) {
                    return false;
                }
            }
        }
        Value::Object(m) => {
            let props = o.get("properties").and_then(Value::as_object);
            if let Some(Value::Array(req)) = o.get("required")
                && req
                    .iter()
                    .any(|k| !m.contains_key(k.as_str().unwrap_or("")))
            {
                return false;
            }
            for (k, e) in m {
                match (props.and_then(|p| p.get(k)), o.get("additionalProperties")) {
                    (Some(p), _) => {
                        if !valid(p, root, e) {
                            return false;
                        }
                    }
                    (None, Some(a)) => {
                        if !valid(a, root, e) {
                            return false;
                        }
                    }
                    (None, None) => {}
                }
            }
        }
        _ => {}
    }
    true
}

/// The error (kind and the argument bytes before its byte) of `args` for tool `t` with
/// `schema`, through Hermes and OpenAI Chat, at several chunkings (all the same).
fn streamed(schema: &Value, args: &str, r: &mut Rng) -> Option<usize> {
    let tools = Tools::from_value(&json!([{"name": "t", "parameters": schema}])).unwrap();
    let config = ParserConfig::new().tools(tools).validate_arguments(true);
    let hermes = format!(r#"<tool_call>{{"name":"t","arguments":{args}}}</tool_call>"#);
    let frag = serde_json::to_string(args).unwrap();
    let openai = format!(
        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"id\":\"c\",\"function\":{{\"name\":\"t\",\"arguments\":{frag}}}}}]}}}}]}}\n\ndata: [DONE]\n\n"
    );
    let mut seen: Option<Option<usize>> = None;
    for (format, input) in [(Format::Hermes, hermes), (Format::OpenAiChat, openai)] {
        let n = input.len();
        let mut chunkings: Vec<Vec<usize>> = vec![vec![], (1..n).collect()];
        for _ in 0..3 {
            let mut cuts: Vec<usize> = (0..1 + r.below(6))
                .map(|_| 1 + r.below(n as u64 - 1) as usize)
                .collect();
            cuts.sort_unstable();
            cuts.dedup();
            chunkings.push(cuts);
        }
        let mut first: Option<Vec<Event>> = None;
        for cuts in &chunkings {
            let (ev, _) = run_cut(format, &config, input.as_bytes(), cuts);
            match &first {
                Some(f) => assert_eq!(&ev, f, "{format:?} cuts {cuts:?}"),
                None => first = Some(ev),
            }
        }
        let ev = first.unwrap_or_default();
        let got = match error_of(&ev) {
            Some((ErrorKind::SchemaViolation, Some(0), _, Some(_))) => Some(args_of(&ev, 0).len()),
            None => {
                assert!(
                    ev.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })),
                    "{ev:?}"
                );
                None
            }
            other => panic!("{other:?}"),
        };
        match seen {
            Some(s) => assert_eq!(s, got, "Hermes and OpenAI Chat"),
            None => seen = Some(got),
        }
    }
    seen.flatten()
}

/// One random case: `None` when its value is not an object (skipped), else whether it
/// was valid (after asserting the streaming verdict is the reference's).
fn one_case(seed: u64) -> Option<bool> {
    let mut r = Rng(seed);
    // Tools take objects (a string is encoded arguments in several syntaxes).
    let mut schema = gen_schema_of(&mut r, 4, 3, true);
    let defs = gen_schema(&mut r, 2, false);
    if let Value::Object(o) = &mut schema {
        o.insert("$defs".into(), json!({"d": defs}));
    }
    let mut value = gen_value(&mut r, &schema, &schema, 4);
    if r.chance(50) {
        mutate(&mut r, &mut value);
    }
    if !value.is_object() {
        return None;
    }
    let args = serde_json::to_string(&value).unwrap();
    let want = valid(&schema, &schema, &value);
    let got = streamed(&schema, &args, &mut r);
    assert_eq!(
        got.is_none(),
        want,
        "schema {schema} args {args} error at {got:?}"
    );
    Some(want)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
    #[test]
    fn streaming_verdict_is_the_whole_document_verdict(seed in proptest::prelude::any::<u64>()) {
        let _ = one_case(seed);
    }
}

#[test]
fn both_verdicts_are_exercised() {
    let verdicts: Vec<bool> = (0..400).filter_map(one_case).collect();
    let valid = verdicts.iter().filter(|v| **v).count();
    assert!(verdicts.len() > 200, "{}", verdicts.len());
    assert!(
        valid > verdicts.len() / 5 && valid < verdicts.len() * 4 / 5,
        "{valid} of {}",
        verdicts.len()
    );
}
