//! Marker-based text syntaxes (`hermes`, `qwen-xml`, `mistral`, `deepseek`, `harmony`)
//! together: the leaked-content captures, the reasoning tags in content, and generated
//! text with generated calls cut anywhere. Each syntax's own fixtures are in its family's
//! folder (`json/hermes.rs`, `xml/qwen_xml.rs`, `json/mistral.rs`,
//! `sections/deepseek.rs`, `harmony.rs`), run through `exact.rs`' [`split`].

use crate::common;
use crate::common::*;
use serde_json::{Value, json};
use toolstream::{Event, Format, Framing, Parser, ParserConfig};

use crate::exact::split;

#[test]
fn text_formats_have_text_framing_and_names() {
    for (name, f) in [
        ("hermes", Format::Hermes),
        ("qwen-xml", Format::QwenXml),
        ("mistral", Format::Mistral),
        ("deepseek", Format::DeepSeek),
        ("harmony", Format::Harmony),
    ] {
        assert_eq!(name.parse::<Format>().unwrap(), f);
        assert_eq!(f.default_framing(), Framing::Text);
    }
}

// ---------------------------------------------------------------- leaked content

/// A capture of an OpenAI-compatible server, its content routed through `content`.
fn leaked(
    path: &str,
    content: Format,
    configure: fn(ParserConfig) -> ParserConfig,
) -> Option<Vec<Event>> {
    let dir = captures_dir()?;
    let bytes = std::fs::read(dir.join(path)).expect("capture");
    let make = move || {
        Parser::with_config(
            Format::OpenAiChat,
            configure(
                ParserConfig::new()
                    .framing(Framing::Ndjson)
                    .content_format(content),
            ),
        )
    };
    Some(assert_split_invariant(&make, &bytes, 20))
}

#[test]
fn vllm_qwen35_xml_call_leaked_into_content_is_found() {
    let Some(ev) = leaked(
        "vllm/qwen3.5-35b-a3b-xml-tool-call-in-content-no-parser.ndjson",
        Format::QwenXml,
        |c| c,
    ) else {
        return;
    };
    assert_eq!(
        calls(&ev),
        vec![call(
            "call_0",
            "web_search",
            json!({"query": "Python 3.14 new features changes enhancements 2025"})
        )]
    );
    // Without `reasoning_open` the template's stray `</think>` is text, byte for byte
    // (bytes are never dropped); it is the only markup left in the text.
    let t = text(&ev);
    assert!(t.starts_with("The user is asking"), "{t:?}");
    assert_eq!(t.matches("</think>").count(), 1, "{t:?}");
    assert!(!t.replacen("</think>", "", 1).contains('<'), "{t:?}");
    assert!(errors(&ev).is_empty());
    // The chat template opened <think>: with `reasoning_open` the text before </think> is reasoning.
    let ev = leaked(
        "vllm/qwen3.5-35b-a3b-xml-tool-call-in-content-no-parser.ndjson",
        Format::QwenXml,
        |c| c.reasoning_open(true),
    )
    .unwrap();
    assert!(reasoning(&ev).starts_with("The user is asking"));
    assert_eq!(text(&ev), "");
    assert_eq!(calls(&ev).len(), 1);
    assert!(matches!(ev.last(), Some(Event::Finish { .. })));
}

/// The lone tag is a call cut off before its payload (`truncated`, the tag its raw: no
/// byte dropped); the server's own calls count.
#[test]
fn watsonx_granite_lone_tool_call_tag_before_parsed_calls_is_cut_off() {
    let Some(ev) = leaked(
        "watsonx/granite-3-8b-tool_call-tag-text-then-parallel.ndjson",
        Format::Hermes,
        |c| c,
    ) else {
        return;
    };
    // The content is only "<tool_call>"; the server parsed the calls itself.
    assert_eq!(text(&ev), "");
    assert_eq!(
        kinds(&ev),
        vec![(toolstream::ErrorKind::Truncated, None, "<tool_call>".into())]
    );
    let names: Vec<String> = calls(&ev).into_iter().map(|c| c.name).collect();
    assert_eq!(names, ["get_weather", "get_time"]);
}

#[test]
fn vllm_qwen3_think_tags_in_content_become_reasoning() {
    let Some(ev) = leaked(
        "vllm/qwen3-0.6b-think-in-content-then-call.ndjson",
        Format::Hermes,
        |c| c,
    ) else {
        return;
    };
    let r = reasoning(&ev);
    assert!(
        r.starts_with("Okay, the user") && r.ends_with("tool_call tags."),
        "{r:?}"
    );
    assert!(!text(&ev).contains("think"));
    assert_eq!(calls(&ev).len(), 1);
}

#[test]
fn bedrock_gpt_oss_reasoning_tags_in_content_become_reasoning() {
    let path = "bedrock-openai-compat/gpt-oss-20b-reasoning-tags-in-content-then-call.ndjson";
    let Some(ev) = leaked(path, Format::Hermes, |c| {
        c.reasoning_tags(&[("<reasoning>", "</reasoning>")])
    }) else {
        return;
    };
    // Every content chunk is wrapped in its own <reasoning>…</reasoning>.
    assert_eq!(
        reasoning(&ev),
        "We need to use function get_boiling_point. We have liquid_name: \"myawesomeliquid\". Provide celsius? The default is true. So should return boiling point in Celsius. Let's call."
    );
    assert_eq!(text(&ev), "");
    assert_eq!(
        calls(&ev),
        vec![call(
            "chatcmpl-tool-93e7bd9564cd4994",
            "get_boiling_point",
            json!({"liquid_name": "myawesomeliquid", "celsius": true})
        )]
    );
}

// ---------------------------------------------------------------- generated

/// Markers a generated text must not contain (it would be syntax, not text).
const FORBIDDEN: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "<think>",
    "</think>",
    "<|im_end|>",
    "<|endoftext|>",
    "[TOOL_CALLS]",
    "[THINK]",
    "[/THINK]",
    "</s>",
    "<｜",
    "<|start|>",
    "<|channel|>",
    "<|message|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|constrain|>",
];

/// One argument value rendered for qwen-xml, and the value it must decode to.
fn qwen_value(v: &Value) -> (String, Value) {
    match v {
        Value::String(s) => {
            let typed = match serde_json::from_str::<Value>(s.trim()) {
                Ok(x) if !x.is_string() => x,
                _ => v.clone(),
            };
            (s.clone(), typed)
        }
        other => (other.to_string(), other.clone()),
    }
}

/// Renders a call in `format`; `alt` picks the syntax's other variant.
fn render(
    format: Format,
    name: &str,
    args: &serde_json::Map<String, Value>,
    alt: bool,
) -> (String, Value) {
    let json = Value::Object(args.clone()).to_string();
    let want = Value::Object(args.clone());
    match format {
        Format::Hermes if alt => (
            format!("<tool_call>{{\"arguments\": {json}, \"name\": \"{name}\"}}</tool_call>"),
            want,
        ),
        Format::Hermes => (
            format!("<tool_call>\n{{\"name\": \"{name}\", \"arguments\": {json}}}\n</tool_call>"),
            want,
        ),
        Format::QwenXml => {
            let mut s = format!("<tool_call>\n<function={name}>\n");
            let mut typed = serde_json::Map::new();
            for (k, v) in args {
                let (text, value) = qwen_value(v);
                s.push_str(&format!("<parameter={k}>\n{text}\n</parameter>\n"));
                typed.insert(k.clone(), value);
            }
            s.push_str("</function>\n</tool_call>");
            (s, Value::Object(typed))
        }
        Format::Mistral if alt => (
            format!("[TOOL_CALLS][{{\"name\": \"{name}\", \"arguments\": {json}}}]"),
            want,
        ),
        Format::Mistral => (format!("[TOOL_CALLS]{name}[ARGS]{json}"), want),
        Format::DeepSeek if alt => (
            format!(
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{json}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
            ),
            want,
        ),
        Format::DeepSeek => (
            format!(
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{json}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
            ),
            want,
        ),
        Format::Harmony if alt => (
            format!(
                "<|start|>assistant to=functions.{name}<|channel|>commentary json<|message|>{json}<|call|>"
            ),
            want,
        ),
        Format::Harmony => (
            format!(
                "<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{json}<|call|>"
            ),
            want,
        ),
        _ => unreachable!(),
    }
}

fn text_piece() -> impl proptest::strategy::Strategy<Value = String> {
    let parts = vec![
        "a", "é", "😀", " ", "\n", "<", "[", "]", "|", "｜", "t", "/", ">", "{", "<tool", "_call",
        "[TOOL", "<thi", "<|cha", "<｜tool", "</tool_", "<func", "x", "▁",
    ];
    proptest::collection::vec(proptest::sample::select(parts), 0..8).prop_map(|v| v.concat())
}

fn arg_value() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    prop_oneof![
        "\\PC{0,10}".prop_map(Value::from),
        proptest::sample::select(vec![
            "12",
            "-3.5",
            "true",
            "null",
            "{\"a\": [1]}",
            " 7 ",
            "tr",
            "1 2",
            "[x]"
        ])
        .prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(json!({"k": ["é", 1, null]})),
    ]
}

use proptest::strategy::Strategy;

fn generated(
    format: Format,
    texts: Vec<String>,
    gen_calls: Vec<(String, serde_json::Map<String, Value>, bool)>,
    cuts: Vec<usize>,
) {
    let texts: Vec<String> = texts
        .into_iter()
        .filter(|t| !FORBIDDEN.iter().any(|m| t.contains(m)))
        .collect();
    let texts: Vec<String> = (0..=gen_calls.len())
        .map(|i| texts.get(i).cloned().unwrap_or_default())
        .collect();
    let mut input = String::new();
    let mut want_text = String::new();
    let mut want_calls = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        input.push_str(t);
        match gen_calls.get(i) {
            Some((name, args, alt)) => {
                want_text.push_str(t);
                let args: serde_json::Map<String, Value> = args
                    .iter()
                    .filter(|(_, v)| !v.as_str().is_some_and(|s| s.contains('<')))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let (text, value) = render(format, name, &args, *alt);
                input.push_str(&text);
                want_calls.push(call(&format!("call_{i}"), name, value));
            }
            None => want_text.push_str(t),
        }
    }
    let make = move || common::parser(format);
    let whole = run_whole(&make, input.as_bytes());
    check_contract(&whole);
    assert!(errors(&whole).is_empty(), "{input:?}: {whole:?}");
    assert_eq!(calls(&whole), want_calls, "{input:?}");
    assert_eq!(text(&whole), want_text, "{input:?}");
    assert_eq!(
        run_chunks(&make, &cut_at(input.as_bytes(), &cuts)),
        whole,
        "{input:?} cut at {cuts:?}"
    );
    assert_eq!(
        run_sized(&make, input.as_bytes(), 1),
        whole,
        "{input:?} byte by byte"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    #[test]
    fn generated_text_and_calls_any_split(
        texts in proptest::collection::vec(text_piece(), 0..4),
        gen_calls in proptest::collection::vec(("[a-z_]{1,12}", proptest::collection::btree_map("[a-z]{1,6}", arg_value(), 0..4).prop_map(|m| m.into_iter().collect::<serde_json::Map<_, _>>()), proptest::prelude::any::<bool>()), 0..3),
        cuts in proptest::collection::vec(0usize..600, 0..12),
    ) {
        for format in [Format::Hermes, Format::QwenXml, Format::Mistral, Format::DeepSeek, Format::Harmony] {
            generated(format, texts.clone(), gen_calls.clone(), cuts.clone());
        }
    }
}

/// Scanners hand the call table argument bytes they have already scanned; a top-level
/// scalar (a number closes only when the next byte or the end arrives) must still end
/// the call, mid-stream and at the end of input, however the text is chunked.
#[test]
fn scalar_arguments_end_the_call_mid_stream_and_at_the_end() {
    let cases: &[(Format, &str, Value)] = &[
        (Format::Mistral, "[TOOL_CALLS]f[ARGS]42", json!(42)),
        (
            Format::Mistral,
            "[TOOL_CALLS]f[ARGS]-1.5e3 after",
            json!(-1.5e3),
        ),
        (Format::Mistral, "[TOOL_CALLS]f[ARGS]true", json!(true)),
        (
            Format::DeepSeek,
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>7",
            json!(7),
        ),
        (
            Format::DeepSeek,
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>7<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            json!(7),
        ),
        (
            Format::Harmony,
            "<|channel|>commentary to=functions.f <|constrain|>json<|message|>12",
            json!(12),
        ),
        (
            Format::Harmony,
            "<|channel|>commentary to=functions.f <|constrain|>json<|message|>12<|call|>",
            json!(12),
        ),
        (
            Format::Hermes,
            "<tool_call>{\"name\": \"f\", \"arguments\": 3}</tool_call>",
            json!(3),
        ),
        (
            Format::QwenXml,
            "<tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>",
            json!({"n": 3}),
        ),
    ];
    for (format, input, want) in cases {
        let ev = split(*format, input);
        assert_eq!(
            calls(&ev),
            vec![call("call_0", "f", want.clone())],
            "{format}: {input}: {ev:?}"
        );
    }
}
