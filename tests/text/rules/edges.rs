//! Rules every text format keeps at its edges, each tested over every text syntax at
//! every chunking:
//!
//! - a call error's `raw` is the model's own bytes of that call, from its first marker
//!   byte (a cut-off call and a corrupted one);
//! - a special token that introduces a call is consumed as a marker, never leaked into
//!   text;
//! - a closing reasoning tag with no opening one is text, byte for byte, unless the
//!   block was declared open (`reasoning_open`), when everything before it is reasoning.

use crate::common::*;
use toolstream::{ErrorKind, Event, Format, Framing, Parser, ParserConfig};

/// Every text format, from `Format::all()`, so a new one cannot be left out.
fn text_formats() -> Vec<Format> {
    Format::all()
        .filter(|f| f.default_framing() == Framing::Text)
        .collect()
}

/// A text format's reasoning tag pair (the one `reasoning_open` starts in), or `None`
/// where its scanner has no reasoning tags: a syntax with a universal fixture says it
/// there; the older syntaxes are listed here.
fn reasoning_tags(f: Format) -> Option<(&'static str, &'static str)> {
    use Format::*;
    // A syntax with its own universal fixture says its pair there.
    if let Some(u) = crate::universal::fixture_of(f) {
        return u.reasoning;
    }
    const THINK: (&str, &str) = ("<think>", "</think>");
    match f {
        Hermes | QwenXml | DeepSeek | Granite | Jamba | Hunyuan | Nemotron | Phi4Mini | Longcat
        | InternLm | GigaChat3 | KimiK2 | Glm | MiniMax | DeepSeekDsml => Some(THINK),
        Mistral => Some(("[THINK]", "[/THINK]")),
        Gemma4 => Some(("<|channel>thought", "<channel|>")),
        HyV4 | HyV3 | GigaChat35 | MiniCpm5 | Step3 => Some(THINK),
        // Its closing token `<|end_message|>` ends every block: outside reasoning it is
        // dropped, not text ([`drops_close`]).
        Inkling => Some(("<|content_thinking|>", "<|end_message|>")),
        // FunctionGemma (270M) has no reasoning tags.
        FunctionGemma => None,
        CommandR => Some(("<|START_THINKING|>", "<|END_THINKING|>")),
        Apertus => Some(("<|inner_prefix|>", "<|inner_suffix|>")),
        SeedOss => Some(("<seed:think>", "</seed:think>")),
        KimiK3 => Some(("<|open|>think<|sep|>", "<|close|>think<|sep|>")),
        MiniMaxM3 => Some(("<mm:think>", "</mm:think>")),
        // Reasoning is Harmony's `analysis` channel, not a tag pair.
        Harmony => None,
        // Llama 3.x / 4 have no reasoning tags.
        LlamaPythonic | LlamaJson => None,
        // A `<think>` block before the syntax is known is reasoning (and the detected
        // syntax's own after it).
        Auto => Some(THINK),
        // The pythonic engine reads a reasoning block with the kit's text stage.
        Lfm2 | Olmo3 => Some(THINK),
        _ => panic!("{f}: add its reasoning tags (or None, with the reason) here"),
    }
}

/// The text formats with reasoning tags, with their pair.
fn reasoning_formats() -> Vec<(Format, &'static str, &'static str)> {
    text_formats()
        .into_iter()
        .filter_map(|f| reasoning_tags(f).map(|(o, c)| (f, o, c)))
        .collect()
}

/// The formats whose reasoning closing tag is also an end-of-block token dropped from
/// the text (Inkling's `<|end_message|>`, Muse's `<|eom|>`): outside reasoning it is
/// dropped, not text.
fn drops_close(f: Format) -> bool {
    matches!(f, Format::Inkling | Format::Muse)
}

/// `text` as a format shows it: without `close` where the format drops it.
fn shown(f: Format, text: &str, close: &str) -> String {
    if drops_close(f) && reasoning_tags(f).is_some_and(|(_, c)| c == close) {
        text.replace(close, "")
    } else {
        text.to_owned()
    }
}

#[test]
fn stray_closing_reasoning_tag_is_text_byte_for_byte() {
    for f in text_formats() {
        let own = reasoning_tags(f).map(|(_, c)| c);
        for close in ["</think>", "[/THINK]"].into_iter().chain(own) {
            let input = format!("I planned it.\n{close}\n\nHere is the answer.");
            let make = move || Parser::new(f);
            let ev = assert_split_invariant(&make, input.as_bytes(), 40);
            if f == Format::Harmony {
                // Harmony text outside channels is reasoning-free text as well.
                assert_eq!(text(&ev) + &reasoning(&ev), input, "{f}");
            } else {
                assert_eq!(text(&ev), shown(f, &input, close), "{f}");
                assert_eq!(reasoning(&ev), "", "{f}");
            }
            assert!(errors(&ev).is_empty(), "{f}: {ev:?}");
        }
    }
}

#[test]
fn stray_closing_reasoning_tag_after_a_closed_block_is_text() {
    for (f, open, close) in reasoning_formats() {
        let input = format!("{open}a{close}b {close} c");
        let make = move || Parser::new(f);
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "a", "{f}");
        assert_eq!(text(&ev), shown(f, &format!("b {close} c"), close), "{f}");
    }
}

#[test]
fn with_reasoning_open_everything_before_the_closing_tag_is_reasoning() {
    for (f, _, close) in reasoning_formats() {
        let input = format!("I planned it.\n{close}\n\nHere is the answer.");
        let make = move || Parser::with_config(f, ParserConfig::new().reasoning_open(true));
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "I planned it.", "{f}");
        assert_eq!(text(&ev), "Here is the answer.", "{f}");
        assert!(errors(&ev).is_empty(), "{f}: {ev:?}");
        // A second closing tag has no block to close: text.
        let input = format!("plan{close}answer{close}more");
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "plan", "{f}");
        assert_eq!(
            text(&ev),
            shown(f, &format!("answer{close}more"), close),
            "{f}"
        );
    }
}

#[test]
fn stray_closing_tag_before_a_call_keeps_the_call() {
    // Each format's first call of `marker_calls()` (the text before it is one byte).
    let mut cases = Vec::new();
    for (f, call, ..) in marker_calls() {
        if let Some((_, close)) = reasoning_tags(f)
            && !cases.iter().any(|&(g, _, _)| g == f)
        {
            cases.push((f, close, call));
        }
    }
    for (f, close, call) in cases {
        let input = format!("x{close}{call}");
        let ev = assert_split_invariant(&(move || Parser::new(f)), input.as_bytes(), 40);
        assert_eq!(text(&ev), shown(f, &format!("x{close}"), close), "{f}");
        assert_eq!(calls(&ev).len(), 1, "{f}");
        let make = move || Parser::with_config(f, ParserConfig::new().reasoning_open(true));
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        assert_eq!(reasoning(&ev), "x", "{f}");
        assert_eq!(text(&ev), "", "{f}");
        assert_eq!(calls(&ev).len(), 1, "{f}");
    }
}

/// A call error's expected shape: the text around it, the error's kind, index and raw.
struct Broken {
    format: Format,
    what: &'static str,
    before: &'static str,
    /// The model's bytes of the broken call (the error's raw, exactly).
    call: &'static str,
    /// Calls of the same list before the broken one (their bytes come first).
    lead: &'static str,
    after: &'static str,
    kind: ErrorKind,
    index: usize,
    /// The visible text expected.
    text: &'static str,
}

fn b(
    format: Format,
    what: &'static str,
    (before, lead, call, after): (&'static str, &'static str, &'static str, &'static str),
    kind: ErrorKind,
    index: usize,
    text: &'static str,
) -> Broken {
    Broken {
        format,
        what,
        before,
        call,
        lead,
        after,
        kind,
        index,
        text,
    }
}

/// For every text format: a call cut off by the end of the input, and a corrupted one;
/// the error's raw is the model's own bytes of the call from its first marker byte.
fn broken_calls() -> Vec<Broken> {
    use ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use Format::*;
    let hermes_bad = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": x}}\n</tool_call>";
    vec![
        b(
            HyV3,
            "cut",
            (
                "Hi ",
                "<tool_calls>",
                "<tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            HyV3,
            "corrupt",
            (
                "Hi ",
                "<tool_calls>",
                "<tool_call>f<tool_sep><arg_key>a\nb</arg_key><arg_value>1</arg_value></tool_call>",
                "</tool_calls> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            GigaChat35,
            "cut",
            (
                "Hi ",
                "<｜GCML｜tool_calls>",
                "<｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"false\">1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            GigaChat35,
            "corrupt",
            (
                "Hi ",
                "<｜GCML｜tool_calls>",
                "<｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"true\">1</｜GCML｜parameter><｜GCML｜parameter name=\"a\" string=\"true\">2</｜GCML｜parameter></｜GCML｜invoke>",
                "</｜GCML｜tool_calls> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            MiniCpm5,
            "cut",
            ("Hi ", "", "<function name=\"f\"><param name=\"a\">1", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            MiniCpm5,
            "corrupt",
            (
                "Hi ",
                "",
                "<function name=\"f\"><param name=\"a\">1</param><param name=\"a\">2</param></function>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Step3,
            "cut",
            (
                "Hi ",
                "<｜tool_calls_begin｜>",
                "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Step3,
            "corrupt",
            (
                "Hi ",
                "<｜tool_calls_begin｜>",
                "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">1</steptml:parameter><steptml:parameter name=\"a\">2</steptml:parameter></steptml:invoke><｜tool_call_end｜>",
                "<｜tool_calls_end｜> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Inkling,
            "cut",
            (
                "Hi ",
                "",
                "<|content_invoke_tool_json|>{\"name\": \"f\", \"args\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Inkling,
            "corrupt",
            (
                "Hi ",
                "",
                "<|content_invoke_tool_json|>{\"name\": \"f\", \"args\": {\"a\": x}}<|end_message|>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Hermes,
            "cut",
            (
                "Hi ",
                "",
                "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"é",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Hermes,
            "corrupt",
            ("Hi ", "", hermes_bad, " after"),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            QwenXml,
            "cut",
            ("Hi ", "", "<tool_call>\n<function=f>\n<parameter=a>\n1", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            QwenXml,
            "corrupt",
            (
                "Hi ",
                "",
                "<tool_call>\n<function=f>\n<parameter=a\nb>1</parameter>\n</function>\n</tool_call>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Mistral,
            "v11 cut",
            ("Hi ", "", "[TOOL_CALLS]f[ARGS]{\"a\": [1, ", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Mistral,
            "v11 corrupt",
            (
                "Hi ",
                "",
                "[TOOL_CALLS]f[ARGS]{\"a\": x, \"b\": \"}\"}",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Mistral,
            "v3 cut",
            (
                "Hi ",
                "",
                "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Mistral,
            "v3 corrupt",
            (
                "Hi ",
                "",
                "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": x}}",
                "] after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Mistral,
            "v3 second call cut",
            (
                "Hi ",
                "[TOOL_CALLS][{\"name\": \"g\", \"arguments\": {}}, ",
                "{\"name\": \"f\", \"arguments\": {\"a\": 1",
                "",
            ),
            Cut,
            1,
            "Hi ",
        ),
        b(
            DeepSeek,
            "cut",
            (
                "Hi ",
                "<｜tool▁calls▁begin｜>",
                "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            DeepSeek,
            "corrupt",
            (
                "Hi ",
                "<｜tool▁calls▁begin｜>",
                "<｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": x}<｜tool▁call▁end｜>",
                "<｜tool▁calls▁end｜> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Harmony,
            "cut",
            (
                "",
                "",
                "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1",
                "",
            ),
            Cut,
            0,
            "",
        ),
        b(
            Harmony,
            "corrupt",
            (
                "",
                "",
                "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": x}<|call|>",
                "",
            ),
            Bad,
            0,
            "",
        ),
        b(
            LlamaPythonic,
            "cut",
            ("Hi ", "", "[f(a=1, b='x", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            LlamaPythonic,
            "corrupt",
            ("Hi ", "", "[f(a=1, b=x, c=')')]", " after"),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            LlamaPythonic,
            "second call corrupt",
            ("Hi ", "[g(), ", "f(a=x)]", " after"),
            Bad,
            1,
            "Hi  after",
        ),
        b(
            LlamaPythonic,
            "python tag cut",
            ("Hi ", "", "<|python_tag|> [f(a=1", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            LlamaPythonic,
            "python_start corrupt",
            ("Hi ", "", "<|python_start|>[f(1)]", "<|python_end|> after"),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            LlamaJson,
            "cut",
            ("Hi ", "", "{\"name\": \"f\", \"parameters\": {\"a\": 1", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            LlamaJson,
            "corrupt",
            (
                "Hi ",
                "",
                "{\"name\": \"f\", \"parameters\": {\"a\": x}}",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            LlamaJson,
            "array cut",
            (
                "Hi ",
                "",
                "[{\"name\": \"f\", \"parameters\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            LlamaJson,
            "array second call corrupt",
            (
                "Hi ",
                "[{\"name\": \"g\", \"parameters\": {}}, ",
                "{\"name\": \"f\", \"parameters\": {\"a\": 'x'}}",
                "] after",
            ),
            Bad,
            1,
            "Hi  after",
        ),
        b(
            LlamaJson,
            "python tag cut",
            (
                "Hi ",
                "",
                "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            LlamaJson,
            "built-in corrupt",
            (
                "Hi ",
                "",
                "<|python_tag|>brave_search.call(query=x)",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            LlamaJson,
            "built-in cut",
            ("Hi ", "", "<|python_tag|>brave_search.call(query='x", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Auto,
            "hermes corrupt",
            ("Hi ", "", hermes_bad, " after"),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Lfm2,
            "cut",
            ("Hi ", "", "<|tool_call_start|>[f(a=1, b='x", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Lfm2,
            "second call corrupt",
            (
                "Hi ",
                "<|tool_call_start|>[g(), ",
                "f(a=x)]",
                "<|tool_call_end|> after",
            ),
            Bad,
            1,
            "Hi  after",
        ),
        b(
            Olmo3,
            "cut",
            ("Hi ", "", "<function_calls>\nf(a=1, b='x", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Olmo3,
            "corrupt",
            (
                "Hi ",
                "",
                "<function_calls>\nf(a=1, b=x)",
                "\n</function_calls> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Gemma4,
            "cut",
            ("Hi ", "", "<|tool_call>call:f{a:<|\"|>é", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Gemma4,
            "corrupt",
            (
                "Hi ",
                "",
                "<|tool_call>call:f{a:x,b:<|\"|>}<|\"|>}<tool_call|>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            FunctionGemma,
            "cut",
            ("Hi ", "", "<start_function_call>call:f{a:<escape>é", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            FunctionGemma,
            "corrupt",
            (
                "Hi ",
                "",
                "<start_function_call>call:f{a:x,b:<escape>}<escape>}<end_function_call>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            CommandR,
            "cut",
            (
                "Hi ",
                "",
                "<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            CommandR,
            "corrupt",
            (
                "Hi ",
                "",
                "<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {\"a\": x}}]<|END_ACTION|>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Granite,
            "cut",
            (
                "Hi ",
                "",
                "<|tool_call|>[{\"name\": \"f\", \"arguments\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Granite,
            "corrupt",
            (
                "Hi ",
                "",
                "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": x}}</tool_call>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Jamba,
            "cut",
            (
                "Hi ",
                "",
                "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": \"é",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Jamba,
            "corrupt",
            (
                "Hi ",
                "",
                "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": x, \"b\": \"]\"}}]</tool_calls>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Hunyuan,
            "second call cut",
            (
                "Hi ",
                "<tool_calls>[{\"name\": \"g\", \"arguments\": {}}, ",
                "{\"name\": \"f\", \"arguments\": {\"a\": 1",
                "",
            ),
            Cut,
            1,
            "Hi ",
        ),
        b(
            Hunyuan,
            "second call corrupt",
            (
                "Hi ",
                "<tool_calls>[{\"name\": \"g\", \"arguments\": {}}, ",
                "{\"name\": \"f\", \"arguments\": {\"a\": x}}]</tool_calls>",
                " after",
            ),
            Bad,
            1,
            "Hi  after",
        ),
        b(
            Nemotron,
            "cut",
            (
                "Hi ",
                "",
                "<TOOLCALL>[{\"name\": \"f\", \"arguments\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Nemotron,
            "corrupt",
            (
                "Hi ",
                "",
                "<TOOLCALL>[{\"name\": \"f\", \"arguments\": {\"a\": x}}]</TOOLCALL>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Phi4Mini,
            "cut",
            (
                "Hi ",
                "",
                "functools[{\"name\": \"f\", \"arguments\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Phi4Mini,
            "corrupt",
            (
                "Hi ",
                "",
                "functools[{\"name\": \"f\", \"arguments\": {\"a\": x}}",
                "] after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Longcat,
            "cut",
            (
                "Hi ",
                "",
                "<longcat_tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Longcat,
            "corrupt",
            (
                "Hi ",
                "",
                "<longcat_tool_call>{\"name\": \"f\", \"arguments\": {\"a\": x}}</longcat_tool_call>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            InternLm,
            "cut",
            (
                "Hi ",
                "",
                "<|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            InternLm,
            "corrupt",
            (
                "Hi ",
                "",
                "<|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {\"a\": x}}<|action_end|>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Apertus,
            "cut",
            ("Hi ", "", "<|tools_prefix|>[{\"f\": {\"a\": 1", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Apertus,
            "corrupt",
            (
                "Hi ",
                "",
                "<|tools_prefix|>[{\"f\": {\"a\": x}}]<|tools_suffix|>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            GigaChat3,
            "cut",
            (
                "Hi ",
                "",
                "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            GigaChat3,
            "corrupt",
            (
                "Hi ",
                "",
                "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": x}}",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            KimiK2,
            "cut",
            (
                "Hi ",
                "<|tool_calls_section_begin|>",
                "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            KimiK2,
            "corrupt",
            (
                "Hi ",
                "<|tool_calls_section_begin|>",
                "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": x}<|tool_call_end|>",
                "<|tool_calls_section_end|> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Glm,
            "cut",
            (
                "Hi ",
                "",
                "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Glm,
            "corrupt",
            (
                "Hi ",
                "",
                "<tool_call>f\n<arg_key>a\nb</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            MiniMax,
            "cut",
            (
                "Hi ",
                "<minimax:tool_call>\n",
                "<invoke name=\"f\">\n<parameter name=\"a\">1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            MiniMax,
            "corrupt",
            (
                "Hi ",
                "<minimax:tool_call>\n",
                "<invoke name=\"f\">\n<parameter name=\"a\nb\">1</parameter>\n</invoke>",
                "\n</minimax:tool_call> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            SeedOss,
            "cut",
            (
                "Hi ",
                "",
                "<seed:tool_call>\n<function=f>\n<parameter=a>\n1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            SeedOss,
            "corrupt",
            (
                "Hi ",
                "",
                "<seed:tool_call>\n<function=f>\n<parameter=a\nb>1</parameter>\n</function>\n</seed:tool_call>",
                " after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            DeepSeekDsml,
            "cut",
            (
                "Hi ",
                "<｜DSML｜function_calls>\n",
                "<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"false\">1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            DeepSeekDsml,
            "corrupt",
            (
                "Hi ",
                "<｜DSML｜function_calls>\n",
                "<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\nb\" string=\"false\">1</｜DSML｜parameter>\n</｜DSML｜invoke>",
                "\n</｜DSML｜function_calls> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            KimiK3,
            "cut",
            (
                "Hi ",
                "<|open|>tools<|sep|>",
                "<|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"number\"<|sep|>1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            KimiK3,
            "corrupt",
            (
                "Hi ",
                "<|open|>tools<|sep|>",
                "<|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\nb\" type=\"number\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>",
                "<|close|>tools<|sep|> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            MiniMaxM3,
            "cut",
            (
                "Hi ",
                "]<]minimax[>[<tool_call>\n",
                "]<]minimax[>[<invoke name=\"f\">\n]<]minimax[>[<a>1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            MiniMaxM3,
            "corrupt",
            (
                "Hi ",
                "]<]minimax[>[<tool_call>\n",
                "]<]minimax[>[<invoke name=\"f\">\n]<]minimax[>[<a\nb>1]<]minimax[>[</a>\n]<]minimax[>[</invoke>",
                "\n]<]minimax[>[</tool_call> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            HyV4,
            "cut",
            (
                "Hi ",
                "<tool_calls>",
                "<tool_call>f<arg_key>a</arg_key><arg_value>1",
                "",
            ),
            Cut,
            0,
            "Hi ",
        ),
        b(
            HyV4,
            "corrupt",
            (
                "Hi ",
                "<tool_calls>",
                "<tool_call>f<arg_key>a\nb</arg_key><arg_value>1</arg_value></tool_call>",
                "</tool_calls> after",
            ),
            Bad,
            0,
            "Hi  after",
        ),
        b(
            Auto,
            "pythonic cut",
            ("Hi ", "", "[f(a=1, b='x", ""),
            Cut,
            0,
            "Hi ",
        ),
        b(
            Auto,
            "json cut",
            ("Hi ", "", "{\"name\": \"f\", \"parameters\": {\"a\": 1", ""),
            Cut,
            0,
            "Hi ",
        ),
    ]
}

#[test]
fn a_call_error_carries_the_models_bytes_from_its_first_marker_byte() {
    let cases = broken_calls();
    // (A syntax with a universal fixture answers these with exact events there: its
    // cut and corrupt calls.)
    let own = |f: Format| crate::universal::fixture_of(f).is_some();
    for f in text_formats().into_iter().filter(|f| !own(*f)) {
        for kind in [ErrorKind::Truncated, ErrorKind::InvalidArguments] {
            assert!(
                cases.iter().any(|c| c.format == f && c.kind == kind),
                "{f}: add a {kind:?} call to broken_calls()"
            );
        }
    }
    let mut failed = Vec::new();
    for case in cases {
        let what = format!("{} {}", case.format, case.what);
        if let Err(e) = std::panic::catch_unwind(|| check_broken(&case)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "panic".to_string());
            failed.push(format!("{what}: {msg}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

fn check_broken(case: &Broken) {
    {
        let input = format!("{}{}{}{}", case.before, case.lead, case.call, case.after);
        let f = case.format;
        let make = move || Parser::new(f);
        let ev = assert_split_invariant(&make, input.as_bytes(), 40);
        let errs: Vec<_> = errors(&ev)
            .into_iter()
            .filter(|e| matches!(e, Event::Error { index: Some(_), .. }))
            .collect();
        let label = format!("{f} {}: {ev:?}", case.what);
        assert_eq!(errs.len(), 1, "{label}");
        let Event::Error {
            kind, index, raw, ..
        } = errs[0]
        else {
            unreachable!()
        };
        assert_eq!(*kind, case.kind, "{label}");
        assert_eq!(*index, Some(case.index), "{label}");
        assert_eq!(raw, case.call, "{label}");
        assert_eq!(text(&ev), case.text, "{label}");
        assert_eq!(errors(&ev).len(), 1, "{label}");
    }
}

/// For every text syntax: the special tokens that introduce (or close) a call are
/// consumed with it, never text; the text around the call is exact.
#[test]
fn call_introducing_tokens_are_markers_never_text() {
    let cases = marker_calls();
    // (A syntax with a universal fixture answers this with exact events there: its call
    // with text around it, and its marker alone.)
    let own = |f: Format| crate::universal::fixture_of(f).is_some();
    for f in text_formats().into_iter().filter(|f| !own(*f)) {
        assert!(
            cases.iter().any(|c| c.0 == f),
            "{f}: add a call to marker_calls()"
        );
    }
    for &(f, call, before, after, want) in &cases {
        let input = format!("{before}{call}{after}");
        let ev = assert_split_invariant(&(move || Parser::new(f)), input.as_bytes(), 40);
        let label = format!("{f} {call}: {ev:?}");
        let got = calls(&ev);
        assert_eq!(got.len(), 1, "{label}");
        assert_eq!(got[0].name, "f", "{label}");
        // (MiniMax M3 without a schema reads every leaf as its text, as its peers.)
        let a = if f == Format::MiniMaxM3 {
            serde_json::json!({"a": "1"})
        } else {
            serde_json::json!({"a": 1})
        };
        assert_eq!(got[0].arguments, a, "{label}");
        // The whitespace before a marker is text (the recovery rule).
        assert_eq!(text(&ev), want, "{label}");
        assert!(errors(&ev).is_empty(), "{label}");
    }
}

/// A call-introducing token that no call follows is text, byte for byte.
#[test]
fn a_token_with_no_call_after_it_is_text() {
    for input in [
        "see <|python_tag|> here",
        "see <|python_start|>[1, 2] here<|python_end|>",
    ] {
        let ev = assert_split_invariant(
            &(|| Parser::new(Format::LlamaPythonic)),
            input.as_bytes(),
            40,
        );
        assert_eq!(text(&ev), input);
        assert!(calls(&ev).is_empty());
    }
}

/// For every text format, a call with the tokens that introduce (and close) it:
/// `(format, call, before, after, visible text)`.
fn marker_calls() -> Vec<(
    Format,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
)> {
    use Format::*;
    vec![
        (
            HyV3,
            "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls>",
            "A",
            " B",
            "A B",
        ),
        (
            GigaChat35,
            "<｜GCML｜tool_calls><｜GCML｜invoke name=\"f\"><｜GCML｜parameter name=\"a\" string=\"false\">1</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>",
            "A",
            " B",
            "A B",
        ),
        (
            MiniCpm5,
            "<function name=\"f\"><param name=\"a\">1</param></function>",
            "A",
            " B",
            "A B",
        ),
        (
            Step3,
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">1</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
            "A",
            " B",
            "A B",
        ),
        (
            Inkling,
            "<|message_model|><|content_invoke_tool_json|>{\"name\": \"f\", \"args\": {\"a\": 1}}<|end_message|>",
            "A",
            " B",
            "A B",
        ),
        (
            Hermes,
            "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>",
            "A",
            " B",
            "A B",
        ),
        (
            QwenXml,
            "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
            "A",
            " B",
            "A B",
        ),
        (
            QwenXml,
            "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>",
            "A",
            " B",
            "A B",
        ),
        (Mistral, "[TOOL_CALLS]f[ARGS]{\"a\": 1}", "A", " B", "A B"),
        (
            Mistral,
            "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": 1}}]",
            "A",
            " B",
            "A B",
        ),
        (
            DeepSeek,
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            "A",
            " B",
            "A B",
        ),
        (
            Harmony,
            "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1}<|call|>",
            "",
            "",
            "",
        ),
        (LlamaPythonic, "<|python_tag|>[f(a=1)]", "A ", " B", "A  B"),
        (
            LlamaPythonic,
            "<|python_start|>[f(a=1)]<|python_end|>",
            "A ",
            " B",
            "A  B",
        ),
        (
            LlamaPythonic,
            "<|python_tag|> \n[f(a=1)]",
            "A ",
            " B",
            "A  B",
        ),
        (
            LlamaJson,
            "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1}}",
            "A ",
            " B",
            "A  B",
        ),
        (LlamaJson, "<|python_tag|>f.call(a=1)", "A ", " B", "A  B"),
        (Auto, "<|python_tag|>[f(a=1)]", "A ", " B", "A  B"),
        (
            Auto,
            "<|python_start|>[f(a=1)]<|python_end|>",
            "A ",
            " B",
            "A  B",
        ),
        (
            Auto,
            "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1}}",
            "A ",
            " B",
            "A  B",
        ),
        (
            Lfm2,
            "<|tool_call_start|>[f(a=1)]<|tool_call_end|>",
            "A ",
            " B",
            "A  B",
        ),
        (
            Olmo3,
            "<function_calls>\nf(a=1)\n</function_calls>",
            "A ",
            " B",
            "A  B",
        ),
        (
            Gemma4,
            "<|tool_call>call:f{a:1}<tool_call|>",
            "A",
            " B",
            "A B",
        ),
        (
            FunctionGemma,
            "<start_function_call>call:f{a:1}<end_function_call>",
            "A",
            " B",
            "A B",
        ),
        (
            CommandR,
            "<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {\"a\": 1}}]<|END_ACTION|>",
            "A",
            " B",
            "A B",
        ),
        (
            Granite,
            "<|tool_call|>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]",
            "A",
            "",
            "A",
        ),
        (
            Granite,
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>",
            "A",
            " B",
            "A B",
        ),
        (
            Jamba,
            "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</tool_calls>",
            "A",
            " B",
            "A B",
        ),
        (
            Hunyuan,
            "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</tool_calls>",
            "A",
            " B",
            "A B",
        ),
        (
            Nemotron,
            "<TOOLCALL>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</TOOLCALL>",
            "A",
            " B",
            "A B",
        ),
        (
            Phi4Mini,
            "functools[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]",
            "A",
            " B",
            "A B",
        ),
        (
            Longcat,
            "<longcat_tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</longcat_tool_call>",
            "A",
            " B",
            "A B",
        ),
        (
            InternLm,
            "<|action_start|><|plugin|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}<|action_end|>",
            "A",
            " B",
            "A B",
        ),
        (
            Apertus,
            "<|tools_prefix|>[{\"f\": {\"a\": 1}}]<|tools_suffix|>",
            "A",
            " B",
            "A B",
        ),
        (
            GigaChat3,
            "function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
            "A",
            "",
            "A",
        ),
        (
            KimiK2,
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1}<|tool_call_end|><|tool_calls_section_end|>",
            "A",
            " B",
            "A B",
        ),
        (
            Glm,
            "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
            "A",
            " B",
            "A B",
        ),
        (
            MiniMax,
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call>",
            "A",
            " B",
            "A B",
        ),
        (
            SeedOss,
            "<seed:tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</seed:tool_call>",
            "A",
            " B",
            "A B",
        ),
        (
            DeepSeekDsml,
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"false\">1</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            "A",
            " B",
            "A B",
        ),
        (
            HyV4,
            "<tool_calls><tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls>",
            "A",
            " B",
            "A B",
        ),
        (
            MiniMaxM3,
            "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"f\">\n]<]minimax[>[<a>1]<]minimax[>[</a>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
            "A",
            " B",
            "A B",
        ),
        (
            KimiK3,
            "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"number\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
            "A",
            " B",
            "A B",
        ),
    ]
}

/// A syntax without a close marker: a broken call object is skipped to the bracket that
/// balances it (none of it is text), and the array's later calls still count.
#[test]
fn a_broken_call_with_no_close_marker_leaks_nothing_and_the_list_goes_on() {
    let cases = [
        (Format::Phi4Mini, "functools["),
        (Format::Granite, "<|tool_call|>["),
    ];
    for (f, open) in cases {
        let bad = format!("{open}{{\"name\": \"f\", \"arguments\": {{\"a\": x, \"b\": \"}}\"}}}}");
        let input = format!("Hi {bad}, {{\"name\": \"g\", \"arguments\": {{}}}}] after");
        let ev = assert_split_invariant(&(move || Parser::new(f)), input.as_bytes(), 40);
        let label = format!("{f}: {ev:?}");
        let errs = errors(&ev);
        assert_eq!(errs.len(), 1, "{label}");
        let Event::Error { raw, index, .. } = errs[0] else {
            unreachable!()
        };
        assert_eq!(raw, &bad, "{label}");
        assert_eq!(*index, Some(0), "{label}");
        let got = calls(&ev);
        assert_eq!(got.len(), 1, "{label}");
        assert_eq!(got[0].name, "g", "{label}");
        assert_eq!(text(&ev), "Hi  after", "{label}");
    }
}
