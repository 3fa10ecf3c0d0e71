//! `auto` reads the reasoning tags before it has detected a syntax, as every syntax it
//! may detect reads them (issue 22): a `<think>..</think>` block before the first call is
//! reasoning, a marker inside it is reasoning too (unless `calls_in_reasoning`), and the
//! options (`reasoning_tags`, `reasoning_open`, `calls_in_reasoning`) apply. Each input
//! gives `auto` the same events as the syntax it detects, whole, byte by byte, at every
//! split and at random splits, and every prefix keeps the contract.

use crate::common::{assert_split_invariant, calls, reasoning, text};
use crate::exact::*;
use toolstream::{Format, Parser, ParserConfig};

/// One call of `f` with `{"a": 1}` in the form of syntaxes that read `<think>` blocks.
const CALLS: &[(Format, &str)] = &[
    (
        Format::Hermes,
        "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>",
    ),
    (
        Format::QwenXml,
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
    ),
    (
        Format::Glm,
        "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
    ),
    (
        Format::Mistral,
        "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": 1}}]",
    ),
    (
        Format::DeepSeek,
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ),
    (
        Format::MiniMax,
        "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call>",
    ),
];

/// `auto` and `format` with `config` give the same events for `input` (each at every
/// chunking); every prefix of `input` keeps the contract under `auto`. `auto`'s events.
fn same_as(format: Format, config: &ParserConfig, input: &str) -> Vec<toolstream::Event> {
    let c = config.clone();
    let want = assert_split_invariant(
        &move || Parser::with_config(format, c.clone()),
        input.as_bytes(),
        0,
    );
    let c = config.clone();
    let make = move || Parser::with_config(Format::Auto, c.clone());
    let got = assert_split_invariant(&make, input.as_bytes(), 20);
    assert_eq!(evs(&got), evs(&want), "{format}: {input:?}");
    check_prefixes(&make, input, &got);
    got
}

#[test]
fn a_think_block_before_the_first_call_is_reasoning() {
    for (format, call_text) in CALLS {
        let input = format!("Hi\n<think>\nplan <tool_call> x\n</think>\n\nOk {call_text} bye");
        let got = same_as(*format, &ParserConfig::new(), &input);
        assert_eq!(reasoning(&got), "plan <tool_call> x", "{format}");
        assert!(text(&got).starts_with("HiOk "), "{format}: {got:?}");
        assert_eq!(calls(&got).len(), 1, "{format}");
    }
}

/// A syntax that reads no `<think>` (its own reasoning markup, or none: `llama-json`,
/// `gemma4`, ...) gives such a block as text; `auto`, which cannot know the syntax before
/// its first call, reads it as reasoning. The calls and the text after them agree.
#[test]
fn before_detection_the_block_is_reasoning_for_every_syntax() {
    for (format, call_text) in [
        (
            Format::LlamaJson,
            "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1}}",
        ),
        (Format::Gemma4, "<|tool_call>call:f{a:1}<tool_call|>"),
    ] {
        let input = format!("<think>plan</think>Ok {call_text} bye");
        let own = assert_split_invariant(&make(format), input.as_bytes(), 0);
        let auto = assert_split_invariant(&make(Format::Auto), input.as_bytes(), 20);
        assert_eq!(
            text(&own),
            format!("<think>plan</think>Ok  bye"),
            "{format}"
        );
        assert_eq!(reasoning(&auto), "plan", "{format}");
        assert_eq!(text(&auto), "Ok  bye", "{format}");
        assert_eq!(calls(&auto), calls(&own), "{format}");
        assert_eq!(calls(&auto).len(), 1, "{format}");
    }
}

#[test]
fn the_reasoning_options_apply_before_detection() {
    let hermes = CALLS[0].1;
    // The template opened the block: the output holds only its end.
    let open = ParserConfig::new().reasoning_open(true);
    let got = same_as(
        Format::Hermes,
        &open,
        &format!("plan\n</think>\n\nOk {hermes}"),
    );
    assert_eq!(reasoning(&got), "plan");
    assert_eq!(text(&got), "Ok ");
    // Other tags (Bedrock's gpt-oss): `<think>` is then text.
    let tags = ParserConfig::new().reasoning_tags(&[("<reasoning>", "</reasoning>")]);
    let input = format!("<reasoning>r</reasoning><think>t</think>{hermes}");
    let got = same_as(Format::Hermes, &tags, &input);
    assert_eq!(reasoning(&got), "r");
    assert_eq!(text(&got), "<think>t</think>");
    // A call inside reasoning: extracted with calls_in_reasoning, and the block goes on.
    let inside = ParserConfig::new().calls_in_reasoning(true);
    let input = format!("<think>a {hermes} b</think>c");
    let got = same_as(Format::Hermes, &inside, &input);
    assert_eq!(calls(&got).len(), 1);
    assert_eq!(reasoning(&got), "a  b");
    assert_eq!(text(&got), "c");
    // Without the option it is reasoning, and nothing is detected from it.
    let got = same_as(Format::Hermes, &ParserConfig::new(), &input);
    assert!(calls(&got).is_empty());
    assert_eq!(text(&got), "c");
}

/// The exact events, with ids pinned, at every chunking and every prefix.
#[test]
fn auto_reasoning_fixtures() {
    check_fixtures(
        Format::Auto,
        &[
            fx(
                "a think block, then a hermes call",
                "<think>\nplan\n</think>\n\nOk <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
                vec![one(r("plan")), one(t("Ok ")), call(0, "f", "{}")],
            ),
            fx(
                "a stray closing tag is text, no call",
                "a</think>b",
                vec![one(t("a</think>b"))],
            ),
            fx(
                "a reasoning block cut off",
                "x <think>still thinking",
                vec![one(t("x ")), one(r("still thinking"))],
            ),
        ],
    );
}
