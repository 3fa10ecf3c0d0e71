//! `auto` reads a reasoning block before it knows the syntax: `<think>…</think>` (or the
//! options' tags) is reasoning, and the output around it is what the detected format
//! gives for the same bytes, at every chunking (Qwen 3, DeepSeek R1, GLM, Kimi write
//! their reasoning before their calls; until session 11 `auto` passed it on as text).

use toolstream::{Event, Format, Parser, ParserConfig};

use crate::common::{assert_split_invariant, calls, reasoning, text};

/// A call of each syntax whose reasoning tags are `<think>` / `</think>`.
const CALLS: &[(Format, &str)] = &[
    (
        Format::Hermes,
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
    ),
    (
        Format::QwenXml,
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    ),
    (
        Format::DeepSeek,
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ),
    (
        Format::KimiK2,
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>",
    ),
    (
        Format::Glm,
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
    ),
];

/// Reasoning and text around a call: `{}` is the call.
const SHAPES: &[&str] = &[
    "<think>\nThe user wants the weather.\n</think>\n\n{}",
    "<think>Two steps: é, then 日本.</think>{} Done.",
    "Let me think. \n<think>\nhmm\n\n</think>\n\n \nOK {}\n",
    "<think>a</think>\n<think>b <tool_call> is prose here</think>\r\n{}",
    "<think></think>{}",
    "<think>cut off before its close {}",
    "text </think> without an open tag {}",
];

fn run(format: Format, config: &ParserConfig, input: &str) -> Vec<Event> {
    let config = config.clone().id_prefix("call_");
    assert_split_invariant(
        &move || Parser::with_config(format, config.clone()),
        input.as_bytes(),
        20,
    )
}

#[test]
fn auto_reads_reasoning_before_the_syntax_as_the_format_does() {
    let config = ParserConfig::new();
    for (format, call) in CALLS {
        for shape in SHAPES {
            let input = shape.replace("{}", call);
            let want = run(*format, &config, &input);
            let got = run(Format::Auto, &config, &input);
            assert_eq!(got, want, "{format} — {input:?}");
        }
    }
    // The merged events say it plainly for one of them.
    let input = SHAPES[0].replace("{}", CALLS[0].1);
    let got = run(Format::Auto, &config, &input);
    assert_eq!(reasoning(&got), "The user wants the weather.");
    assert_eq!(text(&got), "");
    assert_eq!(calls(&got).len(), 1);
}

#[test]
fn auto_output_that_starts_inside_reasoning() {
    // `reasoning_open`: the prompt opened `<think>`; everything up to `</think>` is
    // reasoning, and the detected scanner starts outside it.
    let config = ParserConfig::new().reasoning_open(true);
    for (format, call) in CALLS {
        for input in [
            format!("I should check.\n</think>\n\n{call}"),
            format!("<think>\nI should check.</think>{call} after"),
            format!("never closed {call}"),
        ] {
            let want = run(*format, &config, &input);
            let got = run(Format::Auto, &config, &input);
            assert_eq!(got, want, "{format} — {input:?}");
        }
    }
    let got = run(Format::Auto, &config, "R</think>\n\nHi");
    assert_eq!((reasoning(&got), text(&got)), ("R".into(), "Hi".into()));
}

#[test]
fn auto_reads_the_options_reasoning_tags() {
    let config = ParserConfig::new().reasoning_tags(&[("<reasoning>", "</reasoning>")]);
    let (format, call) = CALLS[0];
    let input = format!("<reasoning>\nplan\n</reasoning>\n{call}<think>x</think>");
    let want = run(format, &config, &input);
    let got = run(Format::Auto, &config, &input);
    assert_eq!(got, want);
    assert_eq!(reasoning(&got), "plan");
    // Without a call the output is text and reasoning alone, the line breaks next to
    // the tags dropped as every marker syntax drops them.
    let input = "A\n\n<reasoning>\nplan\n</reasoning>\n\nB\n";
    let got = run(Format::Auto, &config, input);
    assert_eq!(got, run(format, &config, input));
    assert_eq!(
        (reasoning(&got), text(&got)),
        ("plan".into(), "AB\n".into())
    );
    // Tags that begin with a byte no call pattern begins with.
    let config = ParserConfig::new().reasoning_tags(&[("«r»", "«/r»")]);
    let input = format!("«r»\nplan «\n«/r»\n{call} «");
    let got = run(Format::Auto, &config, &input);
    assert_eq!(got, run(format, &config, &input));
    assert_eq!(reasoning(&got), "plan «");
}

#[test]
fn auto_reads_many_blocks_in_one_feed() {
    // Each block hands back where the bytes after it begin (no copy of the rest of the
    // feed): thousands of blocks in one feed, then a call, read like the format.
    let (format, call) = CALLS[0];
    let input = format!("{}\n{call}", "<think>x</think>y".repeat(3000));
    let make = |f: Format| move || Parser::with_config(f, ParserConfig::new().id_prefix("call_"));
    let want = crate::common::run_whole(&make(format), input.as_bytes());
    for size in [input.len(), 1, 7] {
        let got = crate::common::run_sized(&make(Format::Auto), input.as_bytes(), size);
        assert_eq!(got, want, "pieces of {size}");
    }
    assert_eq!(reasoning(&want), "x".repeat(3000));
    assert_eq!(text(&want), format!("{}\n", "y".repeat(3000)));
}
