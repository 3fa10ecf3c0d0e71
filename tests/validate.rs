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
        // An integer starting `1.5` is 15 or more (`1.5e1`): past 14 at the `5`.
        (
            r#"{"city":"Paris","days":1.5}"#,
            Some(("/days", r#"{"city":"Paris","days":1."#)),
        ),
        // ... while `1.0` is still 1.
        (r#"{"city":"Paris","days":1.0}"#, None),
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
            Some(("/tags", r#"{"city":"Paris","tags":["a","b""#)),
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
    let kind = if depth == 0 { r.below(4) } else { r.below(12) };
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
            // One of: members, lengths, a pattern (together they can leave no string
            // to complete a prefix with, where each alone still can: the earliest-byte
            // property holds for satisfiable schemas whose keywords do not interact).
            s.insert("type".into(), json!("string"));
            match r.below(3) {
                0 => {
                    let n = 1 + r.below(3);
                    let members: Vec<Value> = (0..n).map(|_| json!(r.pick(&STRS))).collect();
                    s.insert("enum".into(), Value::Array(members));
                }
                1 => {
                    let min = r.below(3);
                    if r.chance(50) {
                        s.insert("minLength".into(), json!(min));
                    }
                    if r.chance(50) {
                        s.insert("maxLength".into(), json!(min + r.below(3)));
                    }
                }
                _ => {
                    s.insert("pattern".into(), json!(r.pick(&PATTERNS)));
                }
            }
        }
        1 | 2 => {
            s.insert(
                "type".into(),
                json!(if kind == 1 { "integer" } else { "number" }),
            );
            // Satisfiable bounds (an integer and a multiple of 3 fit between them);
            // `multipleOf` alone (with bounds it is checked at the number's end only).
            let lower = r.pick(&[-1.0, -0.5, 0.0, 1.0, 2.0, 2.5]).to_owned();
            let upper = lower + r.pick(&[4.0, 8.0]);
            let num = |x: f64| {
                if x.fract() == 0.0 {
                    json!(x as i64)
                } else {
                    json!(x)
                }
            };
            let lo = *r.pick(&["minimum", "exclusiveMinimum", ""]);
            let hi = *r.pick(&["maximum", "exclusiveMaximum", ""]);
            if !lo.is_empty() && r.chance(50) {
                s.insert(lo.into(), num(lower));
            }
            if !hi.is_empty() && r.chance(50) {
                s.insert(hi.into(), num(upper));
            }
            if s.len() == 1 && r.chance(25) {
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
            let closed = r.below(3);
            // Required names are declared when no other name is allowed.
            let required: Vec<Value> = KEYS
                .iter()
                .filter(|k| closed != 0 || props.contains_key(**k))
                .filter(|_| r.chance(25))
                .map(|k| json!(k))
                .collect();
            s.insert("properties".into(), Value::Object(props));
            if !required.is_empty() {
                s.insert("required".into(), Value::Array(required));
            }
            match closed {
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
            let min = r.below(3);
            if r.chance(40) {
                s.insert("minItems".into(), json!(min));
            }
            if r.chance(40) {
                s.insert("maxItems".into(), json!(min + r.below(2)));
            }
        }
        7 => {
            let mut pool = numbers();
            pool.extend(STRS.iter().map(|s| json!(s)));
            // No containers: an object or array member is compared at the value's close
            // (documented), not at the earliest byte.
            pool.extend([json!(true), json!(null)]);
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

// ---- Property: the reported byte is the earliest ----
//
// When the stream is refused at byte k, the text before it must still have a valid
// completion. The test establishes it without the streaming code: it reads the prefix
// into a partial value (`Partial`: the values read, the last one open), then searches
// for a completion guided by the schema (`complete`: strings extended by short suffixes
// and by the enum members they start, numbers by digits, fractions and exponents,
// containers closed after filling their required members and minItems), and accepts a
// candidate only when the reference validator `valid` accepts the whole value. The
// candidate extends the prefix by construction (its decoded text, its number text, its
// members in order), so finding one proves the prefix completable.

/// A JSON text cut anywhere.
#[derive(Debug)]
enum Partial {
    /// No byte of the value yet.
    Empty,
    Done(Value),
    /// An open string: its decoded text and a pending `\uX..` escape (digits, value).
    Str(String, Option<(u32, u32)>),
    Num(String),
    Lit(String),
    /// An open array: its elements, the open last one, and whether one must follow (after `,`).
    Arr(Vec<Value>, Option<Box<Partial>>, bool),
    Obj(Vec<(String, Value)>, Pend),
}

#[derive(Debug)]
enum Pend {
    /// After `{` or a member: a key or the close.
    Free,
    /// After `,`: a key.
    MustKey,
    /// In a key.
    Key(String, Option<(u32, u32)>),
    /// After a key: its value (open or not begun).
    Val(String, Box<Partial>),
}

fn skip_ws(s: &[u8], i: &mut usize) {
    while s.get(*i).is_some_and(|b| b" \t\r\n".contains(b)) {
        *i += 1;
    }
}

/// A string from its opening quote: the decoded text, or the open prefix.
fn read_str(s: &[u8], i: &mut usize) -> Result<String, (String, Option<(u32, u32)>)> {
    *i += 1;
    let mut out: Vec<u8> = Vec::new();
    let lossy = |o: &[u8]| String::from_utf8_lossy(o).into_owned();
    loop {
        let Some(&b) = s.get(*i) else {
            return Err((lossy(&out), None));
        };
        *i += 1;
        match b {
            b'"' => return Ok(lossy(&out)),
            b'\\' => {
                let Some(&e) = s.get(*i) else {
                    return Err((lossy(&out), Some((0, 0))));
                };
                *i += 1;
                let c = match e {
                    b'n' => '\n',
                    b't' => '\t',
                    b'r' => '\r',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'u' => {
                        let mut acc = 0;
                        for n in 0..4 {
                            let Some(&h) = s.get(*i) else {
                                return Err((lossy(&out), Some((n, acc))));
                            };
                            *i += 1;
                            acc = acc * 16 + (h as char).to_digit(16).unwrap();
                        }
                        char::from_u32(acc).unwrap_or('\u{FFFD}')
                    }
                    other => other as char,
                };
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
            _ => out.push(b),
        }
    }
}

/// The value at `i` of a prefix of JSON text.
fn read_partial(s: &[u8], i: &mut usize) -> Partial {
    skip_ws(s, i);
    match s.get(*i) {
        None => Partial::Empty,
        Some(b'"') => match read_str(s, i) {
            Ok(t) => Partial::Done(json!(t)),
            Err((t, pending)) => Partial::Str(t, pending),
        },
        Some(b'[') => {
            *i += 1;
            let mut items = Vec::new();
            let mut must = false;
            loop {
                skip_ws(s, i);
                match s.get(*i) {
                    None => return Partial::Arr(items, None, must),
                    Some(b']') => {
                        *i += 1;
                        return Partial::Done(Value::Array(items));
                    }
                    Some(b',') => {
                        *i += 1;
                        must = true;
                    }
                    Some(_) => match read_partial(s, i) {
                        Partial::Done(v) => {
                            items.push(v);
                            must = false;
                        }
                        open => return Partial::Arr(items, Some(Box::new(open)), false),
                    },
                }
            }
        }
        Some(b'{') => {
            *i += 1;
            let mut members = Vec::new();
            let mut must = false;
            loop {
                skip_ws(s, i);
                match s.get(*i) {
                    None => {
                        return Partial::Obj(
                            members,
                            if must { Pend::MustKey } else { Pend::Free },
                        );
                    }
                    Some(b'}') => {
                        *i += 1;
                        return Partial::Done(Value::Object(members.into_iter().collect()));
                    }
                    Some(b',') => {
                        *i += 1;
                        must = true;
                    }
                    Some(_) => {
                        let key = match read_str(s, i) {
                            Ok(k) => k,
                            Err((k, pending)) => {
                                return Partial::Obj(members, Pend::Key(k, pending));
                            }
                        };
                        skip_ws(s, i);
                        if s.get(*i) == Some(&b':') {
                            *i += 1;
                        }
                        match read_partial(s, i) {
                            Partial::Done(v) => {
                                members.push((key, v));
                                must = false;
                            }
                            open => return Partial::Obj(members, Pend::Val(key, Box::new(open))),
                        }
                    }
                }
            }
        }
        Some(b't' | b'f' | b'n') => {
            let start = *i;
            while s.get(*i).is_some_and(u8::is_ascii_lowercase) {
                *i += 1;
            }
            let t = String::from_utf8_lossy(&s[start..*i]).into_owned();
            match (s.get(*i), t.as_str()) {
                (None, _) => Partial::Lit(t),
                (_, "true") => Partial::Done(json!(true)),
                (_, "false") => Partial::Done(json!(false)),
                _ => Partial::Done(Value::Null),
            }
        }
        Some(_) => {
            let start = *i;
            while s.get(*i).is_some_and(|b| b"0123456789.eE+-".contains(b)) {
                *i += 1;
            }
            let t = String::from_utf8_lossy(&s[start..*i]).into_owned();
            match s.get(*i) {
                None => Partial::Num(t),
                Some(_) => Partial::Done(serde_json::from_str(&t).unwrap()),
            }
        }
    }
}

/// `s` with its `$ref` followed.
fn resolved<'a>(s: &'a Value, root: &'a Value) -> &'a Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) => root.pointer(&r[1..]).unwrap_or(&Value::Bool(true)),
        None => s,
    }
}

/// The ways to satisfy `s`: each a list of schemas that must all hold (one branch of each
/// `anyOf` / `oneOf`, every member of `allOf`).
fn alternatives(s: &Value, root: &Value, depth: u32) -> Vec<Vec<Value>> {
    let s = resolved(s, root);
    let mut alts = vec![vec![s.clone()]];
    if depth == 0 {
        return alts;
    }
    for k in ["allOf", "anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = s.get(k) else {
            continue;
        };
        alts = if k == "allOf" {
            // Every member: the product of their alternatives.
            branches.iter().fold(alts, |acc, b| {
                combine(&acc, &alternatives(b, root, depth - 1))
            })
        } else {
            // One branch: the union of each branch's alternatives.
            let mut union = Vec::new();
            for b in branches {
                union.extend(combine(&alts, &alternatives(b, root, depth - 1)));
            }
            union.truncate(12);
            union
        };
    }
    alts
}

/// Each of `alts` joined with each of `more` (at most 12 of them).
fn combine(alts: &[Vec<Value>], more: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let mut next = Vec::new();
    for a in alts {
        for b in more {
            let mut c = a.clone();
            c.extend(b.iter().cloned());
            next.push(c);
        }
    }
    next.truncate(12);
    next
}

/// Every schema of `all` accepts `v`.
fn valid_all(all: &[Value], root: &Value, v: &Value) -> bool {
    all.iter().all(|s| valid(s, root, v))
}

/// The schemas a member `key` must satisfy under an alternative.
fn member_schemas(alt: &[Value], root: &Value, key: &str) -> Vec<Value> {
    alt.iter()
        .filter_map(|s| {
            let s = resolved(s, root);
            match s.get("properties").and_then(|p| p.get(key)) {
                Some(p) => Some(p.clone()),
                None => s.get("additionalProperties").cloned(),
            }
        })
        .collect()
}

/// The schemas element `i` must satisfy under an alternative.
fn item_schemas(alt: &[Value], root: &Value, i: usize) -> Vec<Value> {
    alt.iter()
        .filter_map(|s| {
            let s = resolved(s, root);
            match s.get("prefixItems").and_then(|p| p.get(i)) {
                Some(p) => Some(p.clone()),
                None => s.get("items").cloned(),
            }
        })
        .collect()
}

/// Short strings over the generator's characters (and `1`, for `\d`).
fn suffixes(max: usize) -> Vec<String> {
    let alphabet = ["a", "b", "x", "é", "1", "~"];
    let mut out = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..max {
        let next: Vec<String> = last
            .iter()
            .flat_map(|p| alphabet.iter().map(move |c| format!("{p}{c}")))
            .collect();
        out.extend(next.iter().cloned());
        last = next;
    }
    out
}

/// Up to a few completions of `p` that every schema of `all` accepts.
fn complete(all: &[Value], root: &Value, p: &Partial, depth: u32) -> Vec<Value> {
    const FEW: usize = 4;
    let keep = |c: Vec<Value>| -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        for v in c {
            if valid_all(all, root, &v) && !out.contains(&v) {
                out.push(v);
                if out.len() == FEW {
                    break;
                }
            }
        }
        out
    };
    let members: Vec<Value> = all
        .iter()
        .flat_map(|s| alternatives(s, root, 3).into_iter().flatten())
        .flat_map(|s| {
            let s = resolved(&s, root).clone();
            let mut m: Vec<Value> = s
                .get("enum")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            m.extend(s.get("const").cloned());
            m
        })
        .collect();
    let strings = |prefix: &str, pending: Option<(u32, u32)>, longest: usize| -> Vec<Value> {
        let fits = |w: &str| match pending {
            None => true,
            Some((n, acc)) => w
                .chars()
                .next()
                .is_some_and(|c| (c as u32) >> (4 * (4 - n)) == acc),
        };
        let mut c: Vec<Value> = members
            .iter()
            .filter_map(Value::as_str)
            .filter_map(|m| m.strip_prefix(prefix).filter(|w| fits(w)).map(|_| json!(m)))
            .collect();
        c.extend(
            suffixes(longest)
                .into_iter()
                .filter(|w| fits(w))
                .map(|w| json!(format!("{prefix}{w}"))),
        );
        c
    };
    // Target values (the members, halves and multiples over the generator's range) in
    // every text that spells them (plain, a mantissa shifted by an exponent, leading
    // zeros after the point): those extending the text so far.
    let numbers = |t: &str| -> Vec<Value> {
        let mut targets: Vec<f64> = members.iter().filter_map(Value::as_f64).collect();
        targets.extend((-40..=90).map(|i| f64::from(i) / 2.0));
        targets.extend((0..=40).map(|i| f64::from(i) * 3.0));
        targets.extend([100.0, 102.0, 150.0, 0.25, -0.25]);
        if t.is_empty() {
            return targets.into_iter().map(|v| json!(v)).collect();
        }
        let mut out = Vec::new();
        // The text's own mantissa, a digit more, scaled.
        for d in ["", "0", "1", "2", "3", "5", "9"] {
            for e in ["", "e-3", "e-2", "e-1", "e0", "e1", "e2", "e3"] {
                if let Ok(v @ Value::Number(_)) =
                    serde_json::from_str::<Value>(&format!("{t}{d}{e}"))
                {
                    out.push(v);
                }
            }
        }
        for v in targets {
            let sign = if v < 0.0 { "-" } else { "" };
            let sci = format!("{:e}", v.abs());
            let (mantissa, exp) = sci.split_once('e').unwrap();
            let exp: i32 = exp.parse().unwrap();
            let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
            let n = digits.len() as i32;
            let mut texts = vec![json!(v).to_string()];
            if v.fract() == 0.0 {
                texts.push(format!("{}", v as i64));
            }
            for z in 0..3 {
                let zeros = "0".repeat(z as usize);
                texts.push(format!("{sign}0.{zeros}{digits}e{}", exp + 1 + z));
                texts.push(format!("{sign}{digits}{zeros}e{}", exp - n + 1 - z));
                texts.push(format!(
                    "{sign}{}.{}{zeros}e{exp}",
                    &digits[..1],
                    &digits[1..]
                ));
            }
            for text in texts {
                if text.starts_with(t)
                    && let Ok(v @ Value::Number(_)) = serde_json::from_str::<Value>(&text)
                {
                    out.push(v);
                }
            }
        }
        out
    };
    let alts = || -> Vec<Vec<Value>> {
        all.iter().fold(vec![vec![]], |acc, s| {
            combine(&acc, &alternatives(s, root, 3))
        })
    };
    match p {
        Partial::Done(v) => keep(vec![v.clone()]),
        Partial::Str(t, pending) => keep(strings(t, *pending, 3)),
        Partial::Num(t) => keep(numbers(t)),
        Partial::Lit(t) => keep(
            [json!(true), json!(false), Value::Null]
                .into_iter()
                .filter(|v| v.to_string().starts_with(t.as_str()))
                .collect(),
        ),
        Partial::Empty => {
            let mut c = members.clone();
            c.extend(strings("", None, 2));
            c.extend(STRS.iter().map(|s| json!(s)));
            c.extend(numbers(""));
            c.extend([json!(true), json!(false), Value::Null]);
            if depth > 0 {
                c.extend(complete(
                    all,
                    root,
                    &Partial::Arr(vec![], None, false),
                    depth - 1,
                ));
                c.extend(complete(
                    all,
                    root,
                    &Partial::Obj(vec![], Pend::Free),
                    depth - 1,
                ));
            }
            keep(c)
        }
        Partial::Arr(items, last, must) => {
            let mut c = Vec::new();
            for alt in alts() {
                let mut heads: Vec<Vec<Value>> = Vec::new();
                match last {
                    Some(open) => {
                        for e in complete(&item_schemas(&alt, root, items.len()), root, open, depth)
                        {
                            let mut h = items.clone();
                            h.push(e);
                            heads.push(h);
                        }
                    }
                    None if *must => {
                        for e in complete(
                            &item_schemas(&alt, root, items.len()),
                            root,
                            &Partial::Empty,
                            depth,
                        ) {
                            let mut h = items.clone();
                            h.push(e);
                            heads.push(h);
                        }
                    }
                    None => heads.push(items.clone()),
                }
                let min = alt
                    .iter()
                    .filter_map(|s| resolved(s, root).get("minItems").and_then(Value::as_u64))
                    .max()
                    .unwrap_or(0) as usize;
                for mut h in heads {
                    while h.len() < min {
                        match complete(
                            &item_schemas(&alt, root, h.len()),
                            root,
                            &Partial::Empty,
                            depth.saturating_sub(1),
                        )
                        .into_iter()
                        .next()
                        {
                            Some(e) => h.push(e),
                            None => break,
                        }
                    }
                    c.push(Value::Array(h));
                }
            }
            keep(c)
        }
        Partial::Obj(members, pend) => {
            let mut c = Vec::new();
            for alt in alts() {
                let mut heads: Vec<Vec<(String, Value)>> = Vec::new();
                let has = |m: &[(String, Value)], k: &str| m.iter().any(|(n, _)| n == k);
                let declared: Vec<String> = alt
                    .iter()
                    .filter_map(|s| {
                        resolved(s, root)
                            .get("properties")
                            .and_then(Value::as_object)
                    })
                    .flat_map(|p| p.keys().cloned())
                    .chain(KEYS.iter().map(|k| k.to_string()))
                    .collect();
                // A key not among the members first; when none completes, a repeated one:
                // the streaming validator checks each occurrence of a key (JSON allows it;
                // the value as parsed keeps the last), so `{"a":10,"` is completable by a
                // second `"a"` when no other key is allowed.
                let with_key = |heads: &mut Vec<Vec<(String, Value)>>, keys: Vec<String>| {
                    let before = heads.len();
                    let fresh = keys.iter().filter(|k| !has(members, k));
                    let again = keys.iter().filter(|k| has(members, k));
                    for (pass, k) in fresh.map(|k| (0, k)).chain(again.map(|k| (1, k))) {
                        if pass == 1 && heads.len() > before {
                            break;
                        }
                        for v in complete(
                            &member_schemas(&alt, root, k),
                            root,
                            &Partial::Empty,
                            depth.saturating_sub(1),
                        ) {
                            let mut h = members.clone();
                            h.retain(|(n, _)| n != k);
                            h.push((k.clone(), v));
                            heads.push(h);
                        }
                    }
                };
                match pend {
                    Pend::Free => heads.push(members.clone()),
                    Pend::MustKey => with_key(&mut heads, declared.clone()),
                    Pend::Key(t, pending) => {
                        let keys: Vec<String> = strings(t, *pending, 2)
                            .into_iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .chain(
                                declared
                                    .iter()
                                    .filter(|k| k.starts_with(t.as_str()))
                                    .cloned(),
                            )
                            .collect();
                        with_key(&mut heads, keys);
                    }
                    Pend::Val(k, open) => {
                        for v in complete(&member_schemas(&alt, root, k), root, open, depth) {
                            let mut h = members.clone();
                            h.push((k.clone(), v));
                            heads.push(h);
                        }
                    }
                }
                let required: Vec<String> = alt
                    .iter()
                    .filter_map(|s| resolved(s, root).get("required").and_then(Value::as_array))
                    .flatten()
                    .filter_map(|k| k.as_str().map(str::to_owned))
                    .collect();
                for mut h in heads.into_iter().take(8) {
                    for k in &required {
                        if has(&h, k) {
                            continue;
                        }
                        if let Some(v) = complete(
                            &member_schemas(&alt, root, k),
                            root,
                            &Partial::Empty,
                            depth.saturating_sub(1),
                        )
                        .into_iter()
                        .next()
                        {
                            h.push((k.clone(), v));
                        }
                    }
                    c.push(Value::Object(h.into_iter().collect()));
                }
            }
            keep(c)
        }
    }
}

/// Whether `prefix` (argument text) has a completion `schema` accepts.
fn completable(schema: &Value, prefix: &str) -> bool {
    let p = read_partial(prefix.as_bytes(), &mut 0);
    !complete(std::slice::from_ref(schema), schema, &p, 6).is_empty()
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
    if let Some(k) = got {
        assert!(
            completable(&schema, &args[..k]),
            "schema {schema} args {args}: refused at byte {k}, but {:?} has no valid completion",
            &args[..k]
        );
    }
    Some(want)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
    #[test]
    fn streaming_verdict_is_the_whole_document_verdict(seed in proptest::prelude::any::<u64>()) {
        let _ = one_case(seed);
    }
}

/// A seed that once failed the property (kept as plain tests: proptest's regression file
/// replays them too, but only where proptest's persistence is on). 13919213002267911120:
/// `{"a":10,"é":3}` with only `a` allowed is refused at `é`, and `{"a":10,"` is completable
/// by a second `"a"` (the reference once skipped keys already present).
#[test]
fn property_regressions() {
    let _ = one_case(13_919_213_002_267_911_120);
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

/// Branch sets nested past the budget (3^8 branch validators, more than the 256 a call
/// holds) are not checked from where they do not fit: never a false error, and what the
/// shallower sets see is still refused at its byte.
#[test]
fn branch_sets_past_the_budget_never_refuse_a_valid_value() {
    let mut s = json!({"type": "string"});
    for _ in 0..8 {
        s = json!({"anyOf": [{"type": "string", "maxLength": 0}, {"type": "integer"}, s]});
    }
    let tools = json!([{"type": "function", "function": {"name": "deep", "parameters": {
        "type": "object", "properties": {"v": s}, "additionalProperties": false}}}]);
    let tools = tools.to_string();
    assert_eq!(verdict_of(&tools, "deep", r#"{"v":"abcdef"}"#), None);
    assert_eq!(verdict_of(&tools, "deep", r#"{"v":3}"#), None);
    // Every branch of the outer sets refuses `true` at its first byte; the sets that
    // did not fit accept anything, so the value passes: unchecked, not refused.
    assert_eq!(verdict_of(&tools, "deep", r#"{"v":true}"#), None);
    assert_eq!(
        verdict_of(&tools, "deep", r#"{"w":1}"#),
        Some((
            ErrorKind::SchemaViolation,
            String::new(),
            r#"{""#.to_owned()
        ))
    );
}

// ---- The same verdicts through every syntax family and the provider formats ----

/// `v` as a Python literal (the pythonic syntaxes' arguments).
fn python_literal(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(python_literal).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}: {}", json!(k), python_literal(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// `v` as Gemma 4 writes a value: strings in `<|"|>`, bare keys.
fn gemma_value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("<|\"|>{s}<|\"|>"),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(gemma_value).collect::<Vec<_>>().join(",")
        ),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{k}:{}", gemma_value(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        other => other.to_string(),
    }
}

/// A call of `weather` with arguments `o` as `format` writes it.
fn rendered(format: Format, o: &serde_json::Map<String, Value>) -> String {
    let json = Value::Object(o.clone()).to_string();
    match format {
        Format::QwenXml => {
            let params: String = o
                .iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    format!("<parameter={k}>\n{v}\n</parameter>\n")
                })
                .collect();
            format!("<tool_call>\n<function=weather>\n{params}</function>\n</tool_call>")
        }
        Format::LlamaPythonic => {
            let kw: Vec<String> = o
                .iter()
                .map(|(k, v)| format!("{k}={}", python_literal(v)))
                .collect();
            format!("[weather({})]", kw.join(", "))
        }
        Format::Gemma4 => {
            let kv: Vec<String> = o
                .iter()
                .map(|(k, v)| format!("{k}:{}", gemma_value(v)))
                .collect();
            format!("<|tool_call>call:weather{{{}}}<tool_call|>", kv.join(","))
        }
        Format::Anthropic => {
            // The arguments in 5-byte `input_json_delta`s, as Anthropic streams them.
            let chars: Vec<char> = json.chars().collect();
            let deltas: String = chars
                .chunks(5)
                .map(|c| {
                    let piece: String = c.iter().collect();
                    format!(
                        "event: content_block_delta\ndata: {}\n\n",
                        json!({"type": "content_block_delta", "index": 0,
                            "delta": {"type": "input_json_delta", "partial_json": piece}})
                    )
                })
                .collect();
            format!(
                "event: message_start\ndata: {}\n\nevent: content_block_start\ndata: {}\n\n{deltas}event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\nevent: message_delta\ndata: {}\n\nevent: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n",
                json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                    "role": "assistant", "content": [], "model": "m", "stop_reason": null,
                    "usage": {"input_tokens": 1, "output_tokens": 1}}}),
                json!({"type": "content_block_start", "index": 0, "content_block":
                    {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}}),
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                    "usage": {"output_tokens": 9}}),
            )
        }
        Format::Gemini => format!(
            "data: {}\n\n",
            json!({"candidates": [{"content": {"role": "model", "parts":
                [{"functionCall": {"name": "weather", "args": Value::Object(o.clone())}}]},
                "finishReason": "STOP"}]})
        ),
        _ => unreachable!("{format:?}"),
    }
}

/// Validation checks the JSON each syntax decodes to, wherever it comes from: for every
/// case of [`schema_violations_at_their_first_byte`], through the XML-parameter, pythonic
/// and Gemma syntaxes and the Anthropic and Gemini streams (at every split), the error's
/// kind and JSON Pointer are what Hermes gives for the arguments that syntax decodes to
/// without validation (the XML syntaxes type a parameter by the schema, so `"3"` there is
/// the integer 3), and the call ends exactly when there is no error.
#[test]
fn every_family_checks_the_value_it_decodes() {
    let cases = [
        r#"{"city":"Paris","unit":"celsius","days":3,"hourly":true,"tags":["a"],"at":{"lat":1,"lon":2.5}}"#,
        r#"{"city":"Paris","unit":"kelvin"}"#,
        r#"{"city":"Paris","unit":"celsiusx"}"#,
        r#"{"city":"Paris","days":1.5}"#,
        r#"{"city":"Paris","days":15}"#,
        r#"{"city":"Paris","days":"3"}"#,
        r#"{"city":"Paris","colour":1}"#,
        r#"{"unit":"celsius"}"#,
        r#"{"city":"P"}"#,
        r#"{"city":"Llanfairpwllgwyngyll"}"#,
        r#"{"city":"Paris","tags":["a","b","c"]}"#,
        r#"{"city":"Paris","tags":[]}"#,
        r#"{"city":"Paris","tags":[1]}"#,
        r#"{"city":"Paris","at":{"lat":1}}"#,
        r#"{"city":"Paris","at":{"lat":true,"lon":1}}"#,
        r#"{"city":"Par\u00efs"}"#,
        r#"{"city":"Paris","hourly":null}"#,
    ];
    let typed = ParserConfig::new().tools(Tools::from_json(WEATHER).unwrap());
    let mut violations = 0;
    for args in cases {
        let o: Value = serde_json::from_str(args).unwrap();
        let o = o.as_object().unwrap();
        for format in [
            Format::QwenXml,
            Format::LlamaPythonic,
            Format::Gemma4,
            Format::Anthropic,
            Format::Gemini,
        ] {
            let input = rendered(format, o);
            let (plain, _) = run_cut(format, &typed, input.as_bytes(), &[]);
            let decoded = plain
                .iter()
                .find_map(|e| match e {
                    Event::ToolCallEnd { arguments, .. } => Some(arguments.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{format:?} {input}: {plain:?}"));
            let want = verdict(&decoded.to_string()).map(|(k, path, _)| (k, path));
            let ev = every_split(format, &validating(WEATHER), input.as_bytes(), None);
            let got = error_of(&ev).map(|(k, i, _, p)| {
                assert_eq!(i, Some(0), "{format:?} {input}");
                (k, p.unwrap_or_default().to_owned())
            });
            assert_eq!(got, want, "{format:?} {input}");
            let ended = ev.iter().any(|e| matches!(e, Event::ToolCallEnd { .. }));
            assert_eq!(ended, got.is_none(), "{format:?} {input}: {ev:?}");
            violations += usize::from(got.is_some());
        }
    }
    // Most cases are violations in every family (the XML syntaxes' "3" is not).
    assert!(violations >= 15 * 5 - 1, "{violations}");
}

/// The `schema` fuzz target's finding (CI, 2026-12-07): an `anyOf` with no branch, empty
/// string-encoded arguments, then bytes that are not UTF-8 before the object's `}`: the
/// same events at every split (the junk's error carried the call's bytes again when fed
/// whole; see `json::hermes::string_encoded_arguments_then_junk_at_every_split`).
#[test]
fn empty_any_of_then_invalid_utf8_at_every_split() {
    let tools = Tools::from_value(&json!([{"name": "t", "parameters": {
        "anyOf": [],
        "$defs": {"d": {"type": "string", "minLength": 0, "maxLength": 0, "pattern": "^a",
                        "enum": ["a", "ab", "é", ""]}}
    }}]))
    .unwrap();
    let config = ParserConfig::new().tools(tools).validate_arguments(true);
    let body =
        b"<tool_call>{\"name\":\"t\",\"arguments\":\"\"\xff\xff\xff\xff\xff\xff}</tool_call>";
    let ev = every_split(Format::Hermes, &config, body, None);
    let raws: Vec<&str> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Error { raw, .. } => Some(raw.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        raws.iter().all(|r| !r.contains("\"name\"")),
        "no error repeats the call's bytes: {ev:?}"
    );
}
