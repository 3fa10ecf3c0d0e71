//! `auto` past bytes that begin no pattern: prose full of the bytes detection patterns
//! begin with (`<`, `[`, `{`, `f`, `]`), each followed by a byte that continues some
//! pattern or none, then a call. The text and the call are what the detected format
//! gives for the same bytes, at every chunking (a possible start cut from the byte after
//! it waits for that byte; one that byte rules out is text at once).

use toolstream::{Event, Format, Parser, ParserConfig};

use crate::common::{assert_split_invariant, calls, reasoning, text};

/// Prose whose pattern-starting bytes all come to nothing: a lone `<`, HTML tags, words
/// with `f`, `functools` without its `[`, brackets with a number or a word, braces,
/// a `]`, the first bytes of real markers (`<tool_`, `<|python`, `<|tool_call`), a
/// `<think` that is no tag.
const NOISE: &str = "a < b, </b> <i>of</i> fun functools f x[0] = [a b] {x} ]] \
    <tool_ <|python <|tool_call <think not a tag, [{ \"n\": 1}] [ ( déjà < 😀 f";

/// A call of a syntax that `auto` detects.
const CALLS: &[(Format, &str)] = &[
    (
        Format::Hermes,
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
    ),
    (
        Format::QwenXml,
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    ),
    (Format::LlamaPythonic, "[get_weather(city='Paris')]"),
    (
        Format::LlamaJson,
        "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
    ),
    (
        Format::Gemma4,
        "<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|>",
    ),
];

/// Whether `format` reads `<think>` reasoning in its text, as `auto` does before it
/// detects a syntax (its universal fixture says so; the pythonic and Gemma syntaxes here
/// do not: their output would differ).
fn reads_think(format: Format) -> bool {
    crate::universal::fixture_of(format)
        .and_then(|u| u.reasoning)
        .is_some_and(|(open, _)| open == "<think>")
}

fn run(format: Format, config: &ParserConfig, input: &str) -> Vec<Event> {
    let config = config.clone().id_prefix("call_");
    assert_split_invariant(
        &move || Parser::with_config(format, config.clone()),
        input.as_bytes(),
        20,
    )
}

#[test]
fn auto_detects_a_call_after_near_misses_as_the_format_does() {
    let config = ParserConfig::new();
    for (format, call) in CALLS {
        let mut inputs = vec![format!("{NOISE} {call}"), format!("{NOISE}{call}")];
        if reads_think(*format) {
            inputs.push(format!("<think>{NOISE}</think>{NOISE} {call} {NOISE}"));
        }
        for input in inputs {
            let want = run(*format, &config, &input);
            let got = run(Format::Auto, &config, &input);
            assert_eq!(calls(&got), calls(&want), "{format:?}: {input}");
            assert_eq!(calls(&got).len(), 1, "{format:?}: {input}");
            assert_eq!(text(&got), text(&want), "{format:?}: {input}");
            assert_eq!(reasoning(&got), reasoning(&want), "{format:?}: {input}");
        }
    }
}

#[test]
fn auto_passes_near_misses_on_as_text() {
    let config = ParserConfig::new();
    let got = run(Format::Auto, &config, NOISE);
    assert_eq!(text(&got), NOISE);
    assert!(calls(&got).is_empty());
}

#[test]
fn auto_near_misses_of_the_options_reasoning_tags() {
    // A tag that begins with a byte no pattern begins with, and one that begins like
    // patterns do: their first byte followed by another is text; the tags themselves
    // open reasoning as in the format detected later.
    let config = ParserConfig::new().reasoning_tags(&[("@think", "@end"), ("[R]", "[/R]")]);
    let input = "@x @ thin@k [Rx] [R [f](1) @think r1 @end [R]r2[/R] ok ";
    for (format, call) in CALLS.iter().filter(|(f, _)| reads_think(*f)) {
        let input = format!("{input}{call}");
        let want = run(*format, &config, &input);
        let got = run(Format::Auto, &config, &input);
        assert_eq!(calls(&got), calls(&want), "{format:?}: {input}");
        assert_eq!(text(&got), text(&want), "{format:?}: {input}");
        assert_eq!(reasoning(&got), reasoning(&want), "{format:?}: {input}");
        assert!(reasoning(&got).contains("r1") && reasoning(&got).contains("r2"));
        assert!(text(&got).starts_with("@x @ thin@k [Rx] [R [f](1)"));
    }
}
