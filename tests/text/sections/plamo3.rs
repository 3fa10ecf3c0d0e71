//! `plamo3`: PLaMo 3's tool requests (vLLM's `plamo3` parser). Its answers to the
//! universal cases, and the shape of vLLM's tests, at every chunking (the many-byte tags
//! split at every byte) and every prefix.

use crate::exact::*;
use crate::universal::{Case, Universal, broken, not_applicable, sample};
use toolstream::ErrorKind::{InvalidArguments as Bad, MissingName, Truncated as Cut};
use toolstream::Format;

const REQUESTS: &str = "<|plamo:begin_tool_requests:plamo|>";
const END_REQUESTS: &str = "<|plamo:end_tool_requests:plamo|>";
const BEGIN: &str = "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>";
const SEP: &str = "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>";
const END: &str = "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>";

/// Reasoning, text, two requests, the end-of-turn token dropped; detected by `auto`.
#[test]
fn plamo3_fixtures() {
    let input = format!(
        "<|plamo:begin_think:plamo|>weather first<|plamo:end_think:plamo|>Checking.{REQUESTS}{BEGIN}get_weather{SEP}{{\"city\": \"Tokyo\"}}{END}{BEGIN}now{SEP}{{}}{END}{END_REQUESTS}<|plamo:tag|>"
    );
    let want = vec![
        one(r("weather first")),
        one(t("Checking.")),
        call(0, "get_weather", r#"{"city": "Tokyo"}"#),
        call(1, "now", "{}"),
    ];
    check_fixtures(Format::Plamo3, &[fx("two requests", input.clone(), want)]);
    let detected = split(
        Format::Auto,
        &format!("Ok.{REQUESTS}{BEGIN}now{SEP}{{}}{END}{END_REQUESTS}"),
    );
    assert_eq!(
        evs(&detected),
        [vec![t("Ok.")], call(0, "now", "{}")].concat()
    );
}

/// `plamo3`'s answers to the universal cases.
pub(crate) fn universal() -> Universal {
    const TAGS_DROPPED: &str = "the section engine drops its section tokens wherever they stand (DeepSeek's are single special tokens); PLaMo 3's tags are several ordinary tokens, so a tag in prose should stay text";
    Universal {
        format: Format::Plamo3,
        reasoning: Some(("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>")),
        answers: vec![
            (
                Case::Call,
                sample(
                    format!("Hi {REQUESTS}{BEGIN}f{SEP}{{\"a\": 1}}{END}{END_REQUESTS} bye"),
                    vec![one(t("Hi ")), call(0, "f", r#"{"a": 1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    format!("{REQUESTS}{BEGIN}f{SEP}{{\"a\": 1"),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(Cut, Some(0), &format!("{BEGIN}f{SEP}{{\"a\": 1"))),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    format!("{REQUESTS}{BEGIN}f{SEP}{{\"a\": x}}{END}{END_REQUESTS} ok"),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            &format!("{BEGIN}f{SEP}{{\"a\": x}}{END}"),
                        )),
                        one(t(" ok")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                broken(
                    TAGS_DROPPED,
                    format!("Use a literal {REQUESTS} tag."),
                    vec![one(t(&format!("Use a literal {REQUESTS} tag.")))],
                ),
            ),
            (
                Case::StrayClose,
                broken(
                    TAGS_DROPPED,
                    format!("done{END_REQUESTS} ok"),
                    vec![one(t(&format!("done{END_REQUESTS} ok")))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    format!(
                        "{REQUESTS}{BEGIN}f{SEP}{{\"a\": 1{BEGIN}g{SEP}{{}}{END}{END_REQUESTS}"
                    ),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(Cut, Some(0), &format!("{BEGIN}f{SEP}{{\"a\": 1"))),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                not_applicable(
                    "a request has one name and one arguments value, each between its own tags; a key repeated inside the arguments is the model's JSON, passed as its bytes",
                ),
            ),
            (
                Case::JunkName,
                sample(
                    format!("{REQUESTS}{BEGIN}get weather\" x{SEP}{{}}{END}{END_REQUESTS}"),
                    vec![one(err(
                        MissingName,
                        None,
                        &format!("{BEGIN}get weather\" x{SEP}{{}}{END}"),
                    ))],
                ),
            ),
        ],
    }
}
