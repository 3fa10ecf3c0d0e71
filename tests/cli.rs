//! The `toolstream` command as a new user meets it: `parse` with no `--format` (detection)
//! on every recorded capture and every sample, and the messages for wrong arguments.

#![cfg(feature = "cli")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn exe() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toolstream"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Runs `toolstream args..` with `stdin` on its standard input.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = exe()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// The NDJSON events of `out`, adjacent deltas of the same kind and index merged (any
/// chunking gives the same events once merged).
fn merged(out: &Output) -> Vec<Value> {
    let mut events: Vec<Value> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let e: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        if let Some(last) = events.last_mut()
            && last["type"] == e["type"]
            && last["index"] == e["index"]
            && matches!(
                e["type"].as_str(),
                Some("text" | "reasoning" | "tool_call_args")
            )
        {
            let joined = format!(
                "{}{}",
                last["delta"].as_str().unwrap(),
                e["delta"].as_str().unwrap()
            );
            last["delta"] = Value::String(joined);
            continue;
        }
        events.push(e);
    }
    events
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts that `out`'s stderr says `text`.
fn assert_said(out: &Output, text: &str) {
    let said = stderr(out);
    assert!(said.contains(text), "stderr lacks {text:?}: {said}");
}

#[test]
fn parse_without_format_equals_the_right_format_on_every_capture() {
    let Some(dir) = common::captures_dir() else {
        return;
    };
    let table: BTreeMap<String, Value> =
        serde_json::from_slice(&std::fs::read(dir.join("FORMATS.json")).unwrap()).unwrap();
    assert!(table.len() >= 100, "{} captures", table.len());
    let mut failures = Vec::new();
    for (path, v) in &table {
        let file = dir.join(path);
        let bytes = std::fs::read(&file).unwrap();
        // The right format as FORMATS.json says (a pretty-printed document compacted to
        // one NDJSON line, as its note says).
        let right_input = if v["note"].as_str().is_some_and(|n| n.contains("compact")) {
            let value: Value = serde_json::from_slice(&bytes).unwrap();
            let mut b = serde_json::to_vec(&value).unwrap();
            b.push(b'\n');
            b
        } else {
            bytes.clone()
        };
        let format = v["format"].as_str().unwrap();
        let framing = v["framing"].as_str().unwrap();
        let right = run(
            &[
                "parse",
                "--id-prefix",
                "call_",
                "--format",
                format,
                "--framing",
                framing,
            ],
            &right_input,
        );
        let detected = run(
            &[
                "parse",
                "-v",
                "--id-prefix",
                "call_",
                file.to_str().unwrap(),
            ],
            b"",
        );
        assert!(right.status.success(), "{path}: {}", stderr(&right));
        if !detected.status.success() || merged(&detected) != merged(&right) {
            failures.push(format!(
                "{path} ({format}, {framing}): {}",
                stderr(&detected)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "detection differs:\n{}",
        failures.join("\n")
    );
}

fn samples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut all: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x != "md"))
        .collect();
    all.sort();
    all
}

#[test]
fn parse_without_format_on_every_sample() {
    for path in samples() {
        let name = path.file_stem().unwrap().to_str().unwrap();
        let file = path.to_str().unwrap();
        let given = run(&["parse", "--format", name, file], b"");
        let detected = run(&["parse", "-v", file], b"");
        assert!(detected.status.success(), "{file}: {}", stderr(&detected));
        let said = stderr(&detected);
        let (given, detected) = (merged(&given), merged(&detected));
        let calls = |events: &[Value]| -> Vec<Value> {
            events
                .iter()
                .filter(|e| e["type"] == "tool_call_end")
                .map(|e| e["arguments"].clone())
                .collect()
        };
        assert!(!calls(&given).is_empty(), "{file}");
        if said.contains("format auto, framing text") {
            // Raw text: the `auto` scanner finds the same calls.
            assert_eq!(calls(&detected), calls(&given), "{file}");
        } else {
            assert!(said.contains(&format!("format {name},")), "{file}: {said}");
            assert_eq!(detected, given, "{file}");
        }
    }
}

#[test]
fn pretty_printed_json_is_read() {
    let pretty = "{\n  \"object\": \"chat.completion.chunk\",\n  \"choices\": [\n    {\n      \"index\": 0,\n      \"delta\": {\"tool_calls\": [{\"index\": 0, \"id\": \"c1\", \"function\": {\"name\": \"f\", \"arguments\": \"{}\"}}]},\n      \"finish_reason\": \"tool_calls\"\n    }\n  ]\n}\n";
    for args in [
        &["parse", "-v"][..],
        &["parse", "-v", "--format", "openai-chat"][..],
    ] {
        let out = run(args, pretty.as_bytes());
        assert!(stderr(&out).contains("framing json"), "{}", stderr(&out));
        let events = merged(&out);
        assert!(
            events.iter().any(|e| e["type"] == "tool_call_end"),
            "{events:?}"
        );
    }
}

#[test]
fn a_wrong_framing_is_one_error_naming_the_right_one() {
    let sse = std::fs::read("samples/openai-chat.sse").unwrap();
    let out = run(
        &["parse", "--format", "openai-chat", "--framing", "ndjson"],
        &sse,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("looks like SSE") && err.contains("--framing sse"),
        "{err}"
    );

    // The same without --format (the format detected, the framing given).
    let out = run(&["parse", "--framing", "ndjson"], &sse);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--framing sse"), "{}", stderr(&out));

    let ndjson = std::fs::read("samples/ollama.ndjson").unwrap();
    let out = run(
        &["parse", "--format", "ollama", "--framing", "eventstream"],
        &ndjson,
    );
    let err = stderr(&out);
    assert!(
        err.contains("looks like NDJSON") && err.contains("--framing ndjson"),
        "{err}"
    );

    // Without --framing the framing the bytes are in is used (and said with -v).
    let out = run(
        &["parse", "-v", "--format", "bedrock"],
        &ndjson_of_bedrock(),
    );
    assert_said(&out, "framing ndjson (framing detected)");
}

/// A recorded-style Bedrock NDJSON body (`{"<eventType>": payload}` lines).
fn ndjson_of_bedrock() -> Vec<u8> {
    concat!(
        "{\"messageStart\":{\"role\":\"assistant\"}}\n",
        "{\"contentBlockStart\":{\"contentBlockIndex\":0,\"start\":{\"toolUse\":{\"toolUseId\":\"t1\",\"name\":\"f\"}}}}\n",
        "{\"contentBlockDelta\":{\"contentBlockIndex\":0,\"delta\":{\"toolUse\":{\"input\":\"{}\"}}}}\n",
        "{\"contentBlockStop\":{\"contentBlockIndex\":0}}\n",
        "{\"messageStop\":{\"stopReason\":\"tool_use\"}}\n",
    )
    .as_bytes()
    .to_vec()
}

#[test]
fn argument_mistakes_get_clear_messages() {
    let out = run(&["parse", "--format", "anthropc"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_said(&out, "did you mean `anthropic`?");

    let out = run(&["parse", "--framing", "ndjsn"], b"");
    assert_said(&out, "did you mean `ndjson`?");

    let out = run(&["parse", "--speed", "2", "samples/anthropic.sse"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_said(&out, "does not take --speed");

    for flag in ["--offsets", "--fields"] {
        let out = run(
            &[
                "parse",
                "--emit",
                "openai-chat",
                flag,
                "samples/anthropic.sse",
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert_said(&out, "has no place for them");
    }
}

#[test]
fn help_demo_and_write() {
    let help = run(&["--help"], b"");
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("With no command, runs the demo"), "{text}");
    let parse_help = run(&["parse", "--help"], b"");
    let text = String::from_utf8_lossy(&parse_help.stdout);
    for framing in ["sse", "ndjson", "json-array", "eventstream", "text"] {
        assert!(
            text.contains(framing),
            "parse --help lists {framing}: {text}"
        );
    }

    let demo = run(&["demo", "--speed", "0"], b"");
    assert!(demo.status.success());
    assert!(String::from_utf8_lossy(&demo.stdout).contains("write_file complete"));

    let path = std::env::temp_dir().join(format!("toolstream-demo-{}.sse", std::process::id()));
    let out = run(&["demo", "--write", path.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let parsed = run(&["parse", "-v", path.to_str().unwrap()], b"");
    std::fs::remove_file(&path).unwrap();
    assert!(
        stderr(&parsed).contains("format openai-chat"),
        "{}",
        stderr(&parsed)
    );
    let names: Vec<Value> = merged(&parsed)
        .into_iter()
        .filter(|e| e["type"] == "tool_call_end")
        .map(|e| e["name"].clone())
        .collect();
    assert_eq!(names, ["write_file", "run"]);
}

#[test]
fn pretty_says_reasoning_in_words() {
    let out = run(
        &[
            "parse",
            "--pretty",
            "--format",
            "qwen-xml",
            "samples/qwen-xml.txt",
        ],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("reasoning: "), "{text}");
    assert!(text.contains("(end of reasoning)"), "{text}");
    assert!(stderr(&out).contains("format qwen-xml, framing text (given)"));
}

/// The library's events for `input` (fed whole), serialized as the CLI writes them, adjacent
/// deltas merged.
fn library_events(
    format: toolstream::Format,
    config: toolstream::ParserConfig,
    input: &[u8],
) -> Vec<Value> {
    let mut parser = toolstream::Parser::with_config(format, config);
    let mut events = Vec::new();
    parser.feed(input, &mut events).unwrap();
    parser.finish(&mut events).unwrap();
    toolstream::merge_deltas(&mut events);
    events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

/// Every `ParserConfig` option has one `parse` flag (ParserConfig's doc lists them): the
/// flag gives the events of the library configured with its setter, and those differ from
/// the defaults' (so each flag is seen to act).
#[test]
fn each_parser_option_has_its_flag() {
    use toolstream::{Format, ParserConfig, Tools};
    let tools_json = r#"[{"type":"function","function":{"name":"f","parameters":{}}}]"#;
    let tools_path =
        std::env::temp_dir().join(format!("toolstream-options-{}.json", std::process::id()));
    std::fs::write(&tools_path, tools_json).unwrap();
    let tools_arg = tools_path.to_str().unwrap().to_owned();
    let tools = || Tools::from_json(tools_json).unwrap();
    let hermes_call = |name: &str| {
        format!(r#"<tool_call>{{"name":"{name}","arguments":{{"a":[1,"x"]}}}}</tool_call>"#)
    };
    let two_calls = format!("{}{}", hermes_call("f"), hermes_call("f"));
    let openai_ndjson = concat!(
        r#"{"choices":[{"index":0,"delta":{"content":"<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>"}}]}"#,
        "\n",
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        "\n"
    );
    // The flags, the input, the configuration they stand for, and the one without the last
    // flag (whose events must differ: each flag is seen to act).
    type Case<'a> = (Vec<&'a str>, Format, String, ParserConfig, ParserConfig);
    let ndjson = || ParserConfig::new().framing(toolstream::Framing::Ndjson);
    let cases: Vec<Case<'_>> = vec![
        (
            vec!["--framing", "ndjson"],
            Format::OpenAiChat,
            openai_ndjson.to_owned(),
            ndjson(),
            ParserConfig::new(),
        ),
        (
            vec!["--framing", "ndjson", "--content", "hermes"],
            Format::OpenAiChat,
            openai_ndjson.to_owned(),
            ndjson().content_format(Format::Hermes),
            ndjson(),
        ),
        (
            vec!["--fields"],
            Format::Hermes,
            hermes_call("f"),
            ParserConfig::new().field_events(true),
            ParserConfig::new(),
        ),
        (
            vec!["--tools", &tools_arg],
            Format::Hermes,
            hermes_call("g"),
            ParserConfig::new().tools(tools()),
            ParserConfig::new(),
        ),
        (
            vec!["--tools", &tools_arg, "--allow-undeclared"],
            Format::LlamaPythonic,
            "[g(x=1)] [f(x=2)]".to_owned(),
            ParserConfig::new().tools(tools()).reject_undeclared(false),
            ParserConfig::new().tools(tools()),
        ),
        (
            vec!["--tool-names", "f,h"],
            Format::LlamaPythonic,
            "See [note(x=1)]. [f(x=2)]".to_owned(),
            ParserConfig::new().tool_names(["f", "h"]),
            ParserConfig::new(),
        ),
        (
            vec!["--calls-at-start-only"],
            Format::LlamaPythonic,
            "See [f(x=1)]".to_owned(),
            ParserConfig::new().calls_at_start_only(true),
            ParserConfig::new(),
        ),
        (
            vec!["--reasoning-open"],
            Format::Hermes,
            "Plan.</think>Done.".to_owned(),
            ParserConfig::new().reasoning_open(true),
            ParserConfig::new(),
        ),
        (
            vec![
                "--reasoning-tags",
                "<r>,</r>",
                "--reasoning-tags",
                "<q>,</q>",
            ],
            Format::Hermes,
            "<r>hm</r>ok<q>so</q>".to_owned(),
            ParserConfig::new().reasoning_tags(&[("<r>", "</r>"), ("<q>", "</q>")]),
            ParserConfig::new(),
        ),
        (
            vec!["--id-prefix", "turn7_"],
            Format::Hermes,
            hermes_call("f"),
            ParserConfig::new().id_prefix("turn7_"),
            ParserConfig::new(),
        ),
        (
            vec!["--max-calls", "1"],
            Format::Hermes,
            two_calls.clone(),
            ParserConfig::new().max_calls(1),
            ParserConfig::new(),
        ),
        (
            vec!["--max-argument-bytes", "4"],
            Format::Hermes,
            hermes_call("f"),
            ParserConfig::new().max_argument_bytes(4),
            ParserConfig::new(),
        ),
        (
            vec!["--max-depth", "1"],
            Format::Hermes,
            hermes_call("f"),
            ParserConfig::new().max_depth(1),
            ParserConfig::new(),
        ),
        (
            vec!["--max-held-bytes", "8"],
            Format::Hermes,
            format!(r#"ok <tool_call>{{"name": "{}"#, "x".repeat(40)),
            ParserConfig::new().max_held_bytes(8),
            ParserConfig::new(),
        ),
        (
            vec!["--framing", "ndjson", "--max-line-bytes", "16"],
            Format::OpenAiChat,
            openai_ndjson.to_owned(),
            ndjson().max_line_bytes(16),
            ndjson(),
        ),
    ];
    for (flags, format, input, config, without) in cases {
        let mut args = vec!["parse", "--format", format.name()];
        args.extend(&flags);
        let out = run(&args, input.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{flags:?}: {}", stderr(&out));
        let want = library_events(format, config, input.as_bytes());
        assert_eq!(merged(&out), want, "{flags:?}");
        let before = library_events(format, without, input.as_bytes());
        assert_ne!(want, before, "{flags:?} changes nothing on this input");
    }

    // `--unique-ids`: a prefix of its own per run.
    let ids: Vec<String> = (0..2)
        .map(|_| {
            let out = run(
                &["parse", "--format", "hermes", "--unique-ids"],
                hermes_call("f").as_bytes(),
            );
            let events = merged(&out);
            events[0]["id"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_ne!(ids[0], ids[1]);
    for id in &ids {
        assert!(
            id.starts_with("call_") && id.ends_with("_0") && id.len() == "call_".len() + 12 + 2,
            "{id}"
        );
    }
    let out = run(
        &[
            "parse",
            "--format",
            "hermes",
            "--unique-ids",
            "--id-prefix",
            "p",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let out = run(
        &["parse", "--format", "hermes", "--reasoning-tags", "<r>"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert_said(&out, "expected OPEN,CLOSE");
    let _ = std::fs::remove_file(&tools_path);
}

#[test]
fn reasoning_flags() {
    let input = b"Plan.\n<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>\n</think>\n\nDone.";
    let types = |out: &Output| -> Vec<String> {
        merged(out)
            .iter()
            .map(|e| e["type"].as_str().unwrap().to_owned())
            .collect()
    };
    // Without flags: no reasoning block was opened, so the closing tag is text and the
    // call (outside reasoning as far as the parser knows) is a call.
    let out = run(&["parse", "--format", "qwen-xml", "-"], input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(types(&out)[0], "text");
    // --reasoning-open: everything before `</think>` is reasoning, the call included.
    let out = run(
        &["parse", "--format", "qwen-xml", "--reasoning-open", "-"],
        input,
    );
    let ev = merged(&out);
    assert_eq!(types(&out), ["reasoning", "text"], "{ev:?}");
    assert!(ev[0]["delta"].as_str().unwrap().contains("<function=f>"));
    // ... and --calls-in-reasoning extracts the call, the reasoning around it kept.
    for chunk in ["1", "3", "1000"] {
        let out = run(
            &[
                "parse",
                "--format",
                "qwen-xml",
                "--reasoning-open",
                "--calls-in-reasoning",
                "--chunk-size",
                chunk,
                "-",
            ],
            input,
        );
        let ev = merged(&out);
        assert_eq!(
            types(&out),
            [
                "reasoning",
                "tool_call_start",
                "tool_call_args",
                "tool_call_end",
                "text"
            ],
            "{ev:?}"
        );
        assert_eq!(ev[0]["delta"], "Plan.\n");
        assert_eq!(ev[3]["arguments"], serde_json::json!({"a": 1}));
        assert_eq!(ev[4]["delta"], "Done.");
    }
    // --reasoning-tags: another pair.
    let out = run(
        &[
            "parse",
            "--format",
            "hermes",
            "--reasoning-tags",
            "<reasoning>,</reasoning>",
            "--calls-in-reasoning",
            "-",
        ],
        br#"<reasoning>a<tool_call>{"name": "g", "arguments": {}}</tool_call>b</reasoning>c"#,
    );
    let ev = merged(&out);
    assert_eq!(
        types(&out),
        [
            "reasoning",
            "tool_call_start",
            "tool_call_args",
            "tool_call_end",
            "reasoning",
            "text"
        ],
        "{ev:?}"
    );
    assert_eq!(ev[4]["delta"], "b");
    // A pair without its comma: exit 2 with a message saying how.
    let out = run(
        &[
            "parse",
            "--format",
            "hermes",
            "--reasoning-tags",
            "<think>",
            "-",
        ],
        b"x",
    );
    assert_eq!(out.status.code(), Some(2));
    assert_said(&out, "expected OPEN,CLOSE");
}

/// The stderr lines of `out` that start with `toolstream:` (hints and warnings).
fn hints(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.starts_with("toolstream:"))
        .map(str::to_owned)
        .collect()
}

/// A wrong `--format` gets one hint naming the detected format and the flags that fix it;
/// stdout's events are the same with or without the hint.
#[test]
fn a_wrong_format_gets_one_hint_naming_the_fix() {
    // A provider format on another provider's stream: errors, and one hint.
    let out = run(
        &["parse", "--format", "anthropic", "samples/openai-chat.sse"],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        hints(&out),
        [
            "toolstream: this looks like openai-chat (detected), not anthropic; try --format openai-chat or --format auto"
        ]
    );
    assert!(merged(&out).iter().any(|e| e["type"] == "error"));
    // A text syntax on an SSE envelope: passed through as text, and one hint.
    let out = run(
        &["parse", "--format", "hermes", "samples/anthropic.sse"],
        b"",
    );
    let said = hints(&out);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("SSE envelope")
            && said[0].contains("anthropic (detected)")
            && said[0].contains("--format anthropic --content hermes"),
        "{said:?}"
    );
    // The hint never changes stdout: the same events at any chunk size.
    let chunked = run(
        &[
            "parse",
            "--format",
            "hermes",
            "--chunk-size",
            "7",
            "samples/anthropic.sse",
        ],
        b"",
    );
    assert_eq!(merged(&chunked), merged(&out));
    assert_eq!(hints(&chunked), said);
    // The fix the hint names works: the call is found.
    let fixed = run(
        &[
            "parse",
            "--format",
            "anthropic",
            "--content",
            "hermes",
            "samples/anthropic.sse",
        ],
        b"",
    );
    assert!(hints(&fixed).is_empty(), "{}", stderr(&fixed));
    assert!(merged(&fixed).iter().any(|e| e["type"] == "tool_call_end"));
}

/// Every sample with its right format, or detected, gets no hint or warning.
#[test]
fn right_formats_get_no_hint() {
    for path in samples() {
        let name = path.file_stem().unwrap().to_str().unwrap();
        let file = path.to_str().unwrap();
        for args in [&["parse", "--format", name, file][..], &["parse", file][..]] {
            let out = run(args, b"");
            assert!(out.status.success(), "{args:?}: {}", stderr(&out));
            assert!(hints(&out).is_empty(), "{args:?}: {}", stderr(&out));
        }
    }
}

/// An unknown format name that is a prefix of several gets them all as "did you mean".
#[test]
fn an_ambiguous_format_name_gets_did_you_mean() {
    let out = run(
        &["parse", "--format", "openai", "samples/openai-chat.sse"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert_said(&out, "did you mean `openai-chat` or `openai-responses`?");
    // An alias one letter off is suggested too.
    let out = run(&["parse", "--content", "qwen3coder"], b"");
    assert_said(&out, "did you mean `qwen3_coder`?");
}

/// Binary input read as text: one warning on stderr (gzip named when it is gzip), the
/// bytes still passed through as text on stdout.
#[test]
fn binary_input_gets_one_warning() {
    // Deterministic noise: most bytes are not UTF-8.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let noise: Vec<u8> = (0..4000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    let out = run(&["parse"], &noise);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = hints(&out);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("does not look like text") && said[0].contains("U+FFFD"),
        "{said:?}"
    );
    assert!(merged(&out).iter().any(|e| e["type"] == "text"));
    let mut gzip = vec![0x1f, 0x8b, 0x08, 0x00];
    gzip.extend_from_slice(&noise);
    let out = run(&["parse"], &gzip);
    assert!(stderr(&out).contains("gunzip"), "{}", stderr(&out));
    // Text with a few Latin-1 bytes is still text: no warning.
    let mut latin1 = b"Caf\xe9 au lait, cr\xe8me br\xfbl\xe9e. ".repeat(20);
    latin1.extend_from_slice("and a long tail of plain words ".repeat(40).as_bytes());
    let out = run(&["parse"], &latin1);
    assert!(hints(&out).is_empty(), "{}", stderr(&out));
}

/// `--speed` is in the help of the demo and `serve` only, and refused elsewhere by name.
#[test]
fn speed_is_offered_only_where_it_paces() {
    for (args, offered) in [
        (&["--help"][..], true),
        (&["demo", "--help"][..], true),
        (&["serve", "--help"][..], true),
        (&["parse", "--help"][..], false),
        (&["proxy", "--help"][..], false),
        (&["spec", "--help"][..], false),
        (&["formats", "--help"][..], false),
    ] {
        let out = run(args, b"");
        let help = String::from_utf8_lossy(&out.stdout);
        assert_eq!(help.contains("--speed"), offered, "{args:?}: {help}");
    }
    for args in [
        &["formats", "--speed", "2"][..],
        &["spec", "hermes", "--speed", "2"][..],
    ] {
        let out = run(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("does not take --speed"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let out = run(&["demo", "--speed", "0"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
}

/// `serve` without `--format` detects the format as `parse` does (and says which).
#[test]
fn serve_detects_the_format() {
    use std::io::{BufRead, BufReader};
    for (file, format) in [
        ("samples/anthropic.sse", "anthropic"),
        ("samples/ollama.ndjson", "ollama"),
        ("samples/hermes.txt", "auto"),
    ] {
        let mut child = exe()
            .args(["serve", file, "--speed", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            line.starts_with("toolstream serve: http://127.0.0.1:")
                && line.contains(&format!(" as {format};")),
            "{file}: {line:?}"
        );
    }
}

/// A spec whose `transform` names a member no call object has (`{content.tol}`) is
/// refused when it loads, naming the key and the known members (it used to load and
/// fail every call).
#[test]
fn a_transform_naming_a_missing_member_is_refused_at_load() {
    let spec = serde_json::json!({
        "version": 1,
        "fields": {
            "tool_calls": {
                "open": "<tool_call>", "close": "</tool_call>", "content": "json",
                "repeats": true,
                "transform": {"type": "function",
                              "function": {"name": "{content.name}", "arguments": "{content.tol}"}}
            },
            "content": {"content": "text"}
        }
    });
    let path = std::env::temp_dir().join(format!("toolstream-tol-{}.json", std::process::id()));
    let parse_with = |spec: &str| {
        std::fs::write(&path, spec).unwrap();
        run(
            &[
                "parse",
                "--syntax",
                path.to_str().unwrap(),
                "samples/hermes.txt",
            ],
            b"",
        )
    };
    let out = parse_with(&spec.to_string());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("fields.tool_calls.transform.function.arguments")
            && said.contains("`tol`")
            && said.contains("arguments, parameters, args"),
        "{said}"
    );
    assert!(out.stdout.is_empty());
    // The right member loads and reads the calls.
    let out = parse_with(&spec.to_string().replace("content.tol", "content.arguments"));
    std::fs::remove_file(&path).unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(merged(&out).iter().any(|e| e["type"] == "tool_call_end"));
}

/// The demo shows the input it parses, then the events, wrapped on word boundaries at
/// `COLUMNS` (80 and 100 here): no line is longer, and wrapping only moves words (the
/// words are the same as on a line too wide to wrap). Its last line says how to put
/// `toolstream` on PATH.
#[test]
fn demo_shows_its_input_and_wraps_on_words() {
    let demo = |columns: &str| {
        let out = exe()
            .args(["demo", "--speed", "0"])
            .env("COLUMNS", columns)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let words =
        |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_owned).collect() };
    let unwrapped = demo("100000");
    assert!(
        unwrapped.contains("data: {\"id\": \"chatcmpl-demo\""),
        "the input is shown: {unwrapped}"
    );
    let input_at = unwrapped.find("data: ").unwrap();
    let call_at = unwrapped.find("call #0 write_file").unwrap();
    assert!(input_at < call_at, "the input comes before the events");
    for width in [80usize, 100] {
        let text = demo(&width.to_string());
        for line in text.lines() {
            assert!(
                line.chars().count() <= width,
                "{width}: a line of {}: {line:?}",
                line.chars().count()
            );
        }
        assert_eq!(words(&text), words(&unwrapped), "{width}: a word was split");
        assert!(text.lines().count() > unwrapped.lines().count());
        let last = text.lines().rev().take(2).collect::<Vec<_>>().join(" ");
        assert!(
            last.contains("cargo install --locked --path ."),
            "{width}: {last}"
        );
    }
}

/// docs/models.md's table names only formats this build knows, each a text syntax (what
/// `--content` takes), and every vLLM name it quotes is accepted.
#[test]
fn the_model_table_names_real_text_formats() {
    let doc = std::fs::read_to_string("docs/models.md").unwrap();
    let mut rows = 0;
    for line in doc
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| model"))
    {
        let cell = line.split(" | ").nth(1).unwrap();
        for name in cell.split('`').skip(1).step_by(2) {
            let format: toolstream::Format = name
                .parse()
                .unwrap_or_else(|e| panic!("docs/models.md: {line}: {e}"));
            assert_eq!(
                format.default_framing(),
                toolstream::Framing::Text,
                "{name} is not a text syntax"
            );
            rows += 1;
        }
    }
    assert!(rows >= 30, "{rows} formats in the table");
    let aliases = doc
        .split("--tool-call-parser` names are accepted")
        .nth(1)
        .and_then(|t| t.split("...").next())
        .unwrap();
    for name in aliases.split('`').skip(1).step_by(2) {
        assert!(name.parse::<toolstream::Format>().is_ok(), "{name}");
    }
}

/// README's "Cancel early": the `parse --validate` command it shows, run as printed from the
/// repository (the built binary first on `PATH`), prints exactly the violation it quotes;
/// the offset it reports is the undeclared key's first byte in the sample, and without
/// `--validate` the same call completes.
#[test]
fn readme_validate_command_prints_the_violation_it_shows() {
    let (command, shown) = common::console_block(
        common::readme_section("Cancel early"),
        "toolstream parse --validate",
    );
    let bin = Path::new(env!("CARGO_BIN_EXE_toolstream"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&command)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(out.status.success(), "`{command}`: {}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), shown, "`{command}`");
    let error: Value = serde_json::from_str(shown.trim_end()).unwrap();
    assert_eq!(error["kind"], "schema_violation");
    assert_eq!(error["path"], "");
    let sample =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/hermes.txt")).unwrap();
    let offset = usize::try_from(error["offset"].as_u64().unwrap()).unwrap();
    assert!(offset < sample.len(), "stopped mid-call");
    assert_eq!(
        &sample[offset - 1..offset + 3],
        b"days",
        "stopped at the undeclared key's first byte"
    );
    assert!(error["raw"].as_str().unwrap().ends_with("\"d"));
    // The tools file declares the tool (no undeclared_tool error) and, without --validate,
    // the call completes.
    let plain = run(
        &[
            "parse",
            "--tools",
            "samples/tools/weather.json",
            "samples/hermes.txt",
        ],
        b"",
    );
    let events = merged(&plain);
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "tool_call_end" && e["name"] == "get_weather"),
        "{events:?}"
    );
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:?}");
}
