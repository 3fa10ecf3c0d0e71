//! What declaring a request's tools costs (issue 31: "compiling a 100-tool set ≤ 1 ms"):
//! `Tools` built from 100 realistic tool definitions, their parameter schemas compiled for
//! streaming validation (`ParserConfig::validate_arguments`), next to what any client pays
//! anyway to read the same JSON:
//!
//! - `tools_100/serde_value`: `serde_json::from_str::<Value>` of the tools JSON (the baseline);
//! - `tools_100/from_json`: `Tools::from_json` of the same text (read, checked, compiled);
//! - `tools_100/from_value`: `Tools::from_value` of the parsed value (what a server holding
//!   the request's JSON pays: the compile and the per-tool bookkeeping).
//!
//! The set (`tool_set`) is generated, deterministic: 100 OpenAI-style function tools over 20
//! domains (files, HTTP, SQL, calendars, tickets, cloud, ...), each with a description and
//! 3–11 parameters drawn from the shapes real tool schemas use: strings with `maxLength`,
//! `format` or `pattern`, enums of 2–9 members, integer and number bounds, `multipleOf`,
//! nullable unions, booleans with defaults, arrays with `minItems` / `maxItems`, nested
//! objects with `required` and `additionalProperties: false`, `$ref` into `$defs` (an address
//! and an item shared by several parameters), and an occasional `anyOf`. About 180 KB of JSON.
//!
//! Instruction counts: with `TOOLS_PROFILE="<from_json|from_value|serde_value> <runs>"` set,
//! the binary builds the set `runs` times and exits, for callgrind (total at runs = 2 minus
//! runs = 1):
//!
//! ```sh
//! cargo bench --bench tools_compile --no-run
//! TOOLS_PROFILE="from_json 2" valgrind --tool=callgrind target/release/deps/tools_compile-*
//! ```

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use serde_json::{Map, Value, json};
use toolstream::Tools;

/// A small deterministic generator (an LCG): the same set on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.next(from.len())]
    }
}

const DOMAINS: [(&str, &[&str], &str); 20] = [
    (
        "file",
        &["read", "write", "list", "delete", "move"],
        "a file in the workspace",
    ),
    ("http", &["get", "post", "head"], "an HTTP endpoint"),
    (
        "sql",
        &["query", "explain", "migrate"],
        "the application's database",
    ),
    (
        "calendar",
        &["create_event", "list_events", "cancel_event"],
        "the user's calendar",
    ),
    ("email", &["send", "search", "draft"], "the user's mailbox"),
    (
        "ticket",
        &["create", "update", "comment", "close"],
        "the issue tracker",
    ),
    (
        "git",
        &["commit", "diff", "log", "checkout"],
        "the repository",
    ),
    (
        "k8s",
        &["apply", "scale", "logs", "rollout"],
        "a Kubernetes cluster",
    ),
    ("weather", &["current", "forecast"], "a weather service"),
    ("flight", &["search", "book"], "an airline booking system"),
    ("payment", &["charge", "refund"], "the payment provider"),
    ("crm", &["find_contact", "update_deal"], "the CRM"),
    ("search", &["web", "news", "images"], "a search engine"),
    (
        "storage",
        &["upload", "presign", "list_objects"],
        "an object store",
    ),
    ("chat", &["post_message", "create_channel"], "the team chat"),
    ("shell", &["run", "kill"], "a sandboxed shell"),
    (
        "browser",
        &["open", "click", "screenshot"],
        "a headless browser",
    ),
    ("map", &["geocode", "route"], "a maps service"),
    ("doc", &["summarize", "translate"], "a document store"),
    (
        "metrics",
        &["query_range", "alert"],
        "the monitoring system",
    ),
];

const WORDS: [&str; 24] = [
    "path",
    "name",
    "query",
    "limit",
    "offset",
    "mode",
    "format",
    "priority",
    "owner",
    "tags",
    "timeout",
    "region",
    "language",
    "status",
    "title",
    "body",
    "recipients",
    "start",
    "end",
    "units",
    "retries",
    "labels",
    "filter",
    "options",
];

const ENUMS: [&[&str]; 8] = [
    &["asc", "desc"],
    &["low", "medium", "high", "urgent"],
    &["celsius", "fahrenheit", "kelvin"],
    &["json", "csv", "markdown", "html", "text"],
    &[
        "draft",
        "open",
        "in_progress",
        "blocked",
        "review",
        "done",
        "wontfix",
    ],
    &[
        "us-east-1",
        "us-west-2",
        "eu-west-1",
        "eu-central-1",
        "ap-south-1",
        "ap-northeast-1",
    ],
    &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
    &["en", "fr", "de", "es", "it", "pt", "ja", "zh", "ko"],
];

fn describe(rng: &mut Rng, what: &str) -> String {
    let adverb = rng.pick(&["Exactly", "At most", "Roughly", "Only"]);
    format!(
        "{adverb} the {what} to use. Leave it out to use the default; the tool rejects values it does not know."
    )
}

/// One parameter's schema, of the shape `kind` (0..13).
fn param(rng: &mut Rng, kind: usize, word: &str, defs: &mut Map<String, Value>) -> Value {
    let description = describe(rng, word);
    match kind {
        0 => {
            json!({"type": "string", "description": description, "maxLength": 256 + rng.next(4096)})
        }
        1 => {
            let members = ENUMS[rng.next(ENUMS.len())];
            json!({"type": "string", "enum": members, "description": description})
        }
        2 => json!({"type": "integer", "minimum": 0, "maximum": 10 + rng.next(10_000),
                    "description": description}),
        3 => json!({"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5,
                    "description": description}),
        4 => json!({"type": "boolean", "default": rng.next(2) == 0, "description": description}),
        5 => json!({"type": "array", "items": {"type": "string", "maxLength": 64},
                    "minItems": 1, "maxItems": 5 + rng.next(50), "description": description}),
        6 => json!({"type": "object", "description": description,
                    "properties": {
                        "key": {"type": "string", "minLength": 1},
                        "value": {"type": ["string", "number", "boolean"]},
                        "mode": {"enum": ENUMS[rng.next(ENUMS.len())]},
                        "limits": {"type": "object", "properties": {
                            "max": {"type": "integer", "minimum": 1},
                            "burst": {"type": "integer", "minimum": 0}},
                          "additionalProperties": false}},
                    "required": ["key", "value"], "additionalProperties": false}),
        7 => {
            defs.insert(
                "Address".into(),
                json!({"type": "object", "properties": {
                    "street": {"type": "string", "maxLength": 200},
                    "city": {"type": "string"},
                    "postcode": {"type": "string", "pattern": "^[0-9A-Z -]{3,10}$"},
                    "country": {"type": "string", "minLength": 2, "maxLength": 2}},
                  "required": ["city", "country"], "additionalProperties": false}),
            );
            json!({"$ref": "#/$defs/Address", "description": description})
        }
        8 => json!({"type": ["string", "null"], "maxLength": 512, "description": description}),
        9 => {
            json!({"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,64}$", "description": description})
        }
        10 => {
            defs.insert(
                "Item".into(),
                json!({"type": "object", "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "quantity": {"type": "integer", "minimum": 1, "maximum": 999},
                    "price": {"type": "number", "minimum": 0},
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10}},
                  "required": ["id", "quantity"], "additionalProperties": false}),
            );
            json!({"type": "array", "items": {"$ref": "#/$defs/Item"}, "maxItems": 100,
                   "description": description})
        }
        11 => {
            json!({"anyOf": [{"type": "string", "format": "date-time"}, {"type": "integer", "minimum": 0}],
                     "description": description})
        }
        _ => json!({"type": "string", "format": "date-time", "description": description}),
    }
}

/// 100 OpenAI-style function tools (see the module docs).
fn tool_set() -> Value {
    let mut rng = Rng(31);
    let mut tools = Vec::new();
    let mut n = 0;
    'all: loop {
        for (domain, verbs, what) in DOMAINS {
            for verb in verbs {
                if tools.len() == 100 {
                    break 'all;
                }
                n += 1;
                let mut props = Map::new();
                let mut defs = Map::new();
                let count = 3 + rng.next(9);
                for i in 0..count {
                    let word = WORDS[(rng.next(WORDS.len()) + i) % WORDS.len()];
                    let kind = rng.next(13);
                    let schema = param(&mut rng, kind, word, &mut defs);
                    props.insert(word.to_owned(), schema);
                }
                let required: Vec<&String> = props.keys().take(1 + rng.next(2)).collect();
                let mut parameters = json!({"type": "object", "properties": props,
                    "required": required, "additionalProperties": false});
                if !defs.is_empty() {
                    parameters["$defs"] = Value::Object(defs);
                }
                tools.push(json!({"type": "function", "function": {
                    "name": format!("{domain}_{verb}_{n}"),
                    "description": format!("{} {what}: {verb} it. Returns a JSON object describing the result, or an error with a reason the model can act on.", verb.replace('_', " ")),
                    "parameters": parameters}}));
            }
        }
    }
    Value::Array(tools)
}

fn main() {
    let set = tool_set();
    let text = set.to_string();
    assert_eq!(set.as_array().unwrap().len(), 100);
    let tools = Tools::from_json(&text).unwrap();
    assert_eq!(tools.names().count(), 100);
    if let Ok(spec) = std::env::var("TOOLS_PROFILE") {
        let parts: Vec<&str> = spec.split_whitespace().collect();
        let [what, runs] = parts[..] else {
            panic!("TOOLS_PROFILE: <from_json|from_value|serde_value> <runs>");
        };
        let mut n = 0;
        for _ in 0..runs.parse::<usize>().unwrap() {
            n += match what {
                "from_json" => Tools::from_json(black_box(&text)).unwrap().names().count(),
                "from_value" => Tools::from_value(black_box(&set)).unwrap().names().count(),
                "serde_value" => serde_json::from_str::<Value>(black_box(&text))
                    .unwrap()
                    .as_array()
                    .map_or(0, Vec::len),
                _ => panic!("TOOLS_PROFILE: {what}?"),
            };
        }
        println!("{n} tools built, {} bytes of JSON each time", text.len());
        return;
    }
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .configure_from_args();
    let mut g = c.benchmark_group("tools_100");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("serde_value", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&text)).unwrap());
    });
    g.bench_function("from_json", |b| {
        b.iter(|| Tools::from_json(black_box(&text)).unwrap());
    });
    g.bench_function("from_value", |b| {
        b.iter(|| Tools::from_value(black_box(&set)).unwrap());
    });
    g.finish();
    c.final_summary();
}
