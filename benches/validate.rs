//! Issue 31's checks on one 64 KB call (PERFORMANCE.md "Issue 31: checks while the
//! arguments stream"): Hermes, fed whole, to a tool with a 20-property schema
//! (`additionalProperties: false`; strings with `maxLength`, integers with `minimum`,
//! arrays of strings, a string enum), with the checks off, the runaway guard
//! (`max_repeats(64)`), validation, or both.
//!
//! - `members`: 64 KB of short members (the 20 properties' keys and values over and
//!   over: every few bytes a key to match, the validator's worst case);
//! - `long`: one 64 KB string and two short members (a `write_file` call);
//! - `compile`: `Tools::from_value` of 100 such tools (the schemas compiled once).
//!
//! Instruction counts: with `VALIDATE_PROFILE="<members|long|compile> <off|repeats|validate|both> <runs> [<chunk>]"`
//! the binary runs that workload `runs` times and exits, for callgrind (PERFORMANCE.md's
//! figures are the total at runs = 2 minus runs = 1):
//!
//! ```sh
//! cargo bench --bench validate --no-run
//! VALIDATE_PROFILE="members validate 2" valgrind --tool=callgrind target/release/deps/validate-*
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
use serde_json::{Value, json};
use toolstream::{Event, Format, Parser, ParserConfig, Tools};

const LEN: usize = 65_536;

/// The 20-property schema of tool `name`.
fn tool(name: &str) -> Value {
    let mut props = serde_json::Map::new();
    for i in 0..20 {
        let s = match i % 5 {
            0 => json!({"type": "string", "maxLength": 200}),
            1 => json!({"type": "integer", "minimum": 0}),
            2 => json!({"type": "array", "items": {"type": "string"}}),
            3 => json!({"enum": ["celsius", "fahrenheit", "kelvin"]}),
            _ => json!({"type": "string"}),
        };
        props.insert(format!("field_{i:02}"), s);
    }
    json!({"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": props, "additionalProperties": false,
        "required": ["field_00"]
    }}})
}

/// The arguments of one call: `members` (short members over and over) or one long string.
fn arguments(members: bool) -> String {
    if !members {
        let text = "lorem ipsum dolor sit amet, \\\"quoted\\\" and naïve\\n".repeat(LEN / 48);
        return format!(r#"{{"field_00":"main.rs","field_04":"{text}","field_01":3}}"#);
    }
    let mut s = String::from("{");
    let mut i = 0;
    while s.len() < LEN {
        if i > 0 {
            s.push(',');
        }
        let v = match i % 5 {
            0 => r#""short text""#.to_owned(),
            1 => format!("{}", i * 7),
            2 => r#"["a","bc"]"#.to_owned(),
            3 => r#""fahrenheit""#.to_owned(),
            _ => r#""x""#.to_owned(),
        };
        s.push_str(&format!(r#""field_{:02}":{v}"#, i % 20));
        i += 1;
    }
    s.push('}');
    s
}

fn config(mode: &str) -> ParserConfig {
    let tools = Tools::from_value(&json!([tool("write_file")])).unwrap();
    let c = ParserConfig::new().tools(tools);
    match mode {
        "off" => c,
        "repeats" => c.max_repeats(64),
        "validate" => c.validate_arguments(true),
        "both" => c.max_repeats(64).validate_arguments(true),
        other => panic!("mode {other}"),
    }
}

fn body(members: bool) -> Vec<u8> {
    format!(
        r#"<tool_call>{{"name":"write_file","arguments":{}}}</tool_call>"#,
        arguments(members)
    )
    .into_bytes()
}

/// Feeds `body` whole; the events' count (a call end, not an error, is asserted once).
fn run(config: &ParserConfig, body: &[u8], out: &mut Vec<Event>) -> usize {
    run_chunks(config, body, 0, out)
}

/// [`run`] in `chunk`-byte feeds (0: whole).
fn run_chunks(config: &ParserConfig, body: &[u8], chunk: usize, out: &mut Vec<Event>) -> usize {
    out.clear();
    let mut p = Parser::with_config(Format::Hermes, config.clone());
    for c in body.chunks(if chunk == 0 { body.len().max(1) } else { chunk }) {
        p.feed(c, out).unwrap();
    }
    p.finish(out).unwrap();
    out.len()
}

fn compile_100() -> usize {
    let tools: Vec<Value> = (0..100).map(|i| tool(&format!("tool_{i}"))).collect();
    let v = Value::Array(tools);
    Tools::from_value(black_box(&v)).unwrap().names().count()
}

fn profile(spec: &str) {
    let parts: Vec<&str> = spec.split_whitespace().collect();
    let (&[kind, mode, runs] | &[kind, mode, runs, _]) = &parts[..] else {
        panic!(
            "VALIDATE_PROFILE: <members|long|compile> <off|repeats|validate|both> <runs> [<chunk>]"
        );
    };
    let chunk: usize = parts.get(3).map_or(0, |c| c.parse().unwrap());
    let runs: usize = runs.parse().unwrap();
    if kind == "compile" {
        let n: usize = (0..runs).map(|_| compile_100()).sum();
        println!("{n} tools");
        return;
    }
    let config = config(mode);
    let body = body(kind == "members");
    let mut out = Vec::new();
    let n: usize = (0..runs)
        .map(|_| run_chunks(&config, black_box(&body), chunk, &mut out))
        .sum();
    println!("{n} events, {} input bytes", body.len());
}

fn main() {
    if let Ok(spec) = std::env::var("VALIDATE_PROFILE") {
        return profile(&spec);
    }
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
        .configure_from_args();
    let mut out = Vec::new();
    for members in [true, false] {
        let body = body(members);
        let name = if members { "members" } else { "long" };
        // The workloads are valid: each mode ends the call.
        for mode in ["off", "validate"] {
            run(&config(mode), &body, &mut out);
            assert!(
                out.iter().any(|e| matches!(e, Event::ToolCallEnd { .. })),
                "{name} {mode}: {out:?}"
            );
        }
        let mut g = c.benchmark_group(format!("validate_{name}"));
        g.throughput(Throughput::Bytes(body.len() as u64));
        for mode in ["off", "repeats", "validate", "both"] {
            let config = config(mode);
            g.bench_function(mode, |b| {
                b.iter(|| run(&config, black_box(&body), &mut out))
            });
        }
        g.finish();
    }
    c.bench_function("validate_compile_100_tools", |b| b.iter(compile_100));
    c.final_summary();
}
