//! `plamo3`: PLaMo 3's tool requests (vLLM's `plamo3` parser). Its answers to the
//! universal cases, and the shape of vLLM's tests, at every chunking (the many-byte tags
//! split at every byte) and every prefix.

use crate::exact::*;
use crate::universal::{Case, Universal, not_applicable, sample};
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

/// Issue 33: PLaMo 3's section tags are several ordinary tokens, so they are dropped only
/// where they frame calls: the opening tag followed (past whitespace) by a request, the
/// closing tag of a section a request opened. Anywhere else they are text, byte for
/// byte, and what follows them is read as it would be without them.
#[test]
fn section_tags_are_text_unless_they_frame_requests() {
    let think = ("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>");
    let rows = [
        fx(
            "whitespace between the section tag and its request is dropped with it",
            format!("A {REQUESTS}\n {BEGIN}f{SEP}{{}}{END}\n{END_REQUESTS}B"),
            vec![one(t("A ")), call(0, "f", "{}"), one(t("\nB"))],
        ),
        fx(
            "a section tag before another: the first is text",
            format!("{REQUESTS}{REQUESTS}{BEGIN}f{SEP}{{}}{END}{END_REQUESTS}"),
            vec![one(t(REQUESTS)), call(0, "f", "{}")],
        ),
        fx(
            "a section tag before a reasoning tag sharing its prefix: text, then reasoning",
            format!("Use {REQUESTS}{}plan{}ok", think.0, think.1),
            vec![
                one(t(&format!("Use {REQUESTS}"))),
                one(r("plan")),
                one(t("ok")),
            ],
        ),
        fx(
            "a section tag at the end of the input, whitespace after it",
            format!("Use {REQUESTS} \n"),
            vec![one(t(&format!("Use {REQUESTS} \n")))],
        ),
        fx(
            "a section close after the section closed: text",
            format!("{REQUESTS}{BEGIN}f{SEP}{{}}{END}{END_REQUESTS} x{END_REQUESTS}"),
            vec![call(0, "f", "{}"), one(t(&format!(" x{END_REQUESTS}")))],
        ),
    ];
    check_fixtures(Format::Plamo3, &rows);
}

/// `plamo3`'s answers to the universal cases.
pub(crate) fn universal() -> Universal {
    Universal {
        format: Format::Plamo3,
        reasoning: Some(("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>")),
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
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
                sample(
                    format!("Use a literal {REQUESTS} tag."),
                    vec![one(t(&format!("Use a literal {REQUESTS} tag.")))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
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
