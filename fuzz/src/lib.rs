//! Helpers shared by the fuzz targets: how a fuzz input is read (a header selecting the
//! format, framing and limits, then a chunking pattern, then the body), the runners that
//! feed a [`Parser`] whole and chunked, and the event contract of DESIGN.md (the
//! tests' own checker, `tests/common/contract.rs`).
//!
//! Every target iterates [`Format::all`], so a format merged into the crate is fuzzed
//! without touching this crate.

use toolstream::{Event, Format, Framing, Limits, Parser, ParserConfig, merge_deltas};

// The contract checker is the tests' own (one copy; the fuzz crate is outside the main
// crate's workspace and the checker is not part of toolstream's public API).
#[path = "../../tests/common/contract.rs"]
mod contract;
pub use contract::check_contract;

/// Every framing, in a fixed order (index 0 of the framing selector means "the format's
/// default").
pub const FRAMINGS: [Framing; 5] = [
    Framing::Sse,
    Framing::Ndjson,
    Framing::JsonArray,
    Framing::EventStream,
    Framing::Text,
];

/// Reads the chunking pattern at the front of `data`: one byte `n` (taken mod 9), then
/// `n` chunk lengths. Returns the pattern and the rest.
pub fn take_pattern(data: &[u8]) -> (&[u8], &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return (&[], &[]);
    };
    let n = usize::from(n % 9).min(rest.len());
    rest.split_at(n)
}

/// Cuts `body` into chunks whose lengths cycle through `pattern` (a 0 is an empty
/// feed). An empty or all-zero pattern gives the body whole.
pub fn chunks<'a>(pattern: &[u8], body: &'a [u8]) -> Vec<&'a [u8]> {
    if pattern.iter().all(|&b| b == 0) {
        return vec![body];
    }
    let mut out = Vec::new();
    let mut rest = body;
    let mut i = 0;
    while !rest.is_empty() {
        let n = usize::from(pattern[i % pattern.len()]).min(rest.len());
        let (a, b) = rest.split_at(n);
        out.push(a);
        rest = b;
        i += 1;
    }
    out
}

/// One byte → small limits (or the defaults for 0xFF), so that limit paths are fuzzed
/// and memory bounds are meaningful at fuzz-input sizes. A second byte picks the depth.
pub fn limits_from(sel: u8, depth_sel: u8) -> Limits {
    let mut l = Limits::default();
    if sel == 0xFF {
        return l;
    }
    let pick = |shift: u8| usize::from((sel >> shift) & 3) * 2;
    l.max_line_bytes = 64 << pick(0);
    l.max_argument_bytes = 16 << pick(2);
    l.max_calls = 1 << ((sel >> 4) & 3);
    l.max_held_bytes = 16 << pick(6);
    l.max_depth = [1, 2, 4, 16, 128][usize::from(depth_sel % 5)];
    l
}

/// What [`Parser::retained_bytes`] may hold at most under `l`: a partial framing unit
/// (line and event data, each within the limit; the event type, whose invalid UTF-8 can
/// triple in size), each call's arguments (and what trails them, bounded by the same
/// limit), held-back text, and a small constant.
pub fn retained_bound(l: &Limits) -> usize {
    5usize
        .saturating_mul(l.max_line_bytes)
        .saturating_add(
            l.max_calls
                .saturating_mul(l.max_argument_bytes.saturating_mul(2)),
        )
        .saturating_add(l.max_held_bytes)
        .saturating_add(256)
}

/// A parser configuration read from a fuzz header.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// The format.
    pub format: Format,
    /// An explicit framing, or `None` for the format's default.
    pub framing: Option<Framing>,
    /// A content scanner for envelope formats.
    pub content: Option<Format>,
    /// The limits.
    pub limits: Limits,
    /// Declare the tools `f` and `get_weather` ([`ParserConfig::tools`]): calls to other names
    /// are `undeclared_tool` errors, marker-less headers count only those names.
    pub tools: bool,
}

impl Config {
    /// Reads 4 header bytes: format, framing/content, limits, depth (its high bit: tools).
    pub fn read(data: &[u8]) -> Option<(Config, &[u8])> {
        let (h, rest) = data.split_at_checked(4)?;
        let formats: Vec<Format> = Format::all().collect();
        let format = formats[usize::from(h[0]) % formats.len()];
        let framing = match usize::from(h[1] & 7) {
            0 | 6 | 7 => None,
            n => Some(FRAMINGS[n - 1]),
        };
        let content = match usize::from(h[1] >> 3) % (formats.len() + 1) {
            0 => None,
            n => Some(formats[n - 1]),
        };
        let limits = limits_from(h[2], h[3]);
        Some((
            Config {
                format,
                framing,
                content,
                limits,
                tools: h[3] & 0x80 != 0,
            },
            rest,
        ))
    }

    /// A fresh parser.
    pub fn parser(&self) -> Parser {
        let l = &self.limits;
        let mut config = ParserConfig::new()
            .max_argument_bytes(l.max_argument_bytes)
            .max_calls(l.max_calls)
            .max_held_bytes(l.max_held_bytes)
            .max_line_bytes(l.max_line_bytes)
            .max_depth(l.max_depth);
        if let Some(f) = self.framing {
            config = config.framing(f);
        }
        if let Some(c) = self.content {
            config = config.content_format(c);
        }
        if self.tools {
            let tools = toolstream::Tools::from_json(
                r#"[{"name": "f", "parameters": {}}, {"name": "get_weather", "parameters": {}}]"#,
            )
            .expect("a valid tools array");
            config = config.tools(tools);
        }
        Parser::with_config(self.format, config)
    }
}

/// Feeds `chunks`, checking after every feed that the retained bytes stay within
/// `bound`; finishes; returns the merged events.
pub fn run_parser(make: &dyn Fn() -> Parser, chunks: &[&[u8]], bound: usize) -> Vec<Event> {
    let mut p = make();
    let mut out = Vec::new();
    for c in chunks {
        p.feed(c, &mut out).expect("feed before finish never fails");
        let r = p.retained_bytes();
        assert!(
            r <= bound,
            "retained {r} bytes > bound {bound} (limits {:?})",
            p.limits()
        );
    }
    p.finish(&mut out).expect("first finish never fails");
    assert!(p.finish(&mut out).is_err(), "second finish must fail");
    merge_deltas(&mut out);
    out
}

/// The parser target's body: the input fed whole and cut by the pattern gives the same
/// merged events, which keep the contract, with memory within the limits' bound.
pub fn parser_target(data: &[u8]) {
    let Some((cfg, rest)) = Config::read(data) else {
        return;
    };
    let (pattern, body) = take_pattern(rest);
    let bound = retained_bound(&cfg.limits);
    let make = || cfg.parser();
    let whole = run_parser(&make, &[body], bound);
    check_contract(&whole);
    let cut = chunks(pattern, body);
    if cut.len() > 1 {
        let got = run_parser(&make, &cut, bound);
        assert_eq!(
            got, whole,
            "chunked {:?} differs from whole ({cfg:?})",
            pattern
        );
    }
}

/// Reads fuzz bytes as choices (0 once they run out).
pub struct Choices<'a>(pub &'a [u8]);

impl Choices<'_> {
    /// The next byte.
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    /// A choice below `n`.
    pub fn below(&mut self, n: u8) -> u8 {
        self.byte() % n.max(1)
    }
}

/// Names, strings and patterns the schema generator draws from.
const NAMES: [&str; 5] = ["a", "ab", "b", "c/d", "é"];
const PATTERNS: [&str; 10] = [
    "^a", "b$", "^[ab]*$", "é", "^a.?b", "\\d", "^(ab|b)$", "a(?=b)", "\\s", "[",
];

/// A JSON Schema over the validator's keywords (and some it ignores), driven by `c`.
pub fn schema_from(c: &mut Choices, depth: u8) -> serde_json::Value {
    use serde_json::{Map, Value, json};
    let pick = |c: &mut Choices, v: &[Value]| v[usize::from(c.below(v.len() as u8))].clone();
    let nums = [json!(0), json!(1), json!(-1), json!(2.5), json!(10), json!(-0.5), json!(1e300)];
    let mut s = Map::new();
    let kinds = if depth == 0 { 5 } else { 12 };
    match c.below(kinds) {
        0 => {
            s.insert("type".into(), json!("string"));
            for k in ["minLength", "maxLength"] {
                if c.below(3) == 0 {
                    s.insert(k.into(), json!(c.below(4)));
                }
            }
            if c.below(3) == 0 {
                s.insert("pattern".into(), json!(PATTERNS[usize::from(c.below(10))]));
            }
            if c.below(4) == 0 {
                s.insert("enum".into(), json!(["a", "ab", "é", ""]));
            }
        }
        1 | 2 => {
            s.insert("type".into(), json!(if c.below(2) == 0 { "integer" } else { "number" }));
            for k in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] {
                if c.below(3) == 0 {
                    s.insert(k.into(), pick(c, &nums));
                }
            }
        }
        3 => {
            let t = pick(c, &[json!("boolean"), json!("null"), json!(["string", "null"]), json!([])]);
            s.insert("type".into(), t);
        }
        4 => {
            let pool = [json!(1), json!("a"), json!(true), json!(null), json!({"a": 1}), json!([1, 2.0])];
            let n = 1 + c.below(3);
            let members: Vec<Value> = (0..n).map(|_| pick(c, &pool)).collect();
            s.insert("enum".into(), Value::Array(members));
        }
        5 | 6 => {
            s.insert("type".into(), json!("object"));
            let mut props = Map::new();
            for k in NAMES {
                if c.below(2) == 0 {
                    props.insert(k.into(), schema_from(c, depth - 1));
                }
            }
            s.insert("properties".into(), Value::Object(props));
            let req: Vec<Value> = NAMES.iter().filter(|_| c.below(4) == 0).map(|k| json!(k)).collect();
            s.insert("required".into(), Value::Array(req));
            match c.below(3) {
                0 => {
                    s.insert("additionalProperties".into(), json!(false));
                }
                1 => {
                    s.insert("additionalProperties".into(), schema_from(c, depth - 1));
                }
                _ => {}
            }
        }
        7 => {
            s.insert("type".into(), json!("array"));
            s.insert("items".into(), schema_from(c, depth - 1));
            if c.below(3) == 0 {
                s.insert("prefixItems".into(), json!([schema_from(c, depth - 1)]));
            }
            for k in ["minItems", "maxItems"] {
                if c.below(3) == 0 {
                    s.insert(k.into(), json!(c.below(4)));
                }
            }
        }
        8 | 9 | 10 => {
            let k = ["anyOf", "oneOf", "allOf"][usize::from(c.below(3))];
            let n = c.below(4);
            let b: Vec<Value> = (0..n).map(|_| schema_from(c, depth - 1)).collect();
            s.insert(k.into(), Value::Array(b));
        }
        _ => {
            return pick(c, &[json!({"$ref": "#/$defs/d"}), json!(true), json!(false), json!({"$ref": "#/nope"})]);
        }
    }
    Value::Object(s)
}

/// The schema target's body: a fuzzer-chosen schema (its `$defs/d` one more), call
/// arguments (raw bytes) through Hermes with `validate_arguments`, fed whole and split
/// at a fuzzer-chosen point (and byte by byte for short inputs): no panic, the same
/// events, the event contract.
pub fn schema_target(data: &[u8]) {
    use serde_json::json;
    let [split_hi, split_lo, n, rest @ ..] = data else {
        return;
    };
    let (spec, args) = rest.split_at(usize::from(*n).min(rest.len()));
    let mut c = Choices(spec);
    let mut schema = schema_from(&mut c, 3);
    let defs = schema_from(&mut c, 2);
    if let serde_json::Value::Object(o) = &mut schema {
        o.insert("$defs".into(), json!({ "d": defs }));
    }
    let Ok(tools) = toolstream::Tools::from_value(&json!([{"name": "t", "parameters": schema}]))
    else {
        return;
    };
    let config = ParserConfig::new()
        .tools(tools)
        .validate_arguments(true)
        .max_repeats(usize::from(c.byte() % 4) * 8);
    let mut body = br#"<tool_call>{"name":"t","arguments":"#.to_vec();
    body.extend_from_slice(args);
    body.extend_from_slice(b"}</tool_call>");
    let make = || Parser::with_config(Format::Hermes, config.clone());
    let bound = usize::MAX;
    let whole = run_parser(&make, &[&body], bound);
    check_contract(&whole);
    let at = (usize::from(*split_hi) << 8 | usize::from(*split_lo)) % (body.len() + 1);
    let (a, b) = body.split_at(at);
    let got = run_parser(&make, &[a, b], bound);
    assert_eq!(got, whole, "split at {at} differs from whole (schema {schema})");
    if body.len() <= 256 {
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        let got = run_parser(&make, &bytes, bound);
        assert_eq!(got, whole, "byte by byte differs from whole (schema {schema})");
    }
}
