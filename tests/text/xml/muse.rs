//! `muse`: Muse Glimmer's ATEM blocks in recipient-framed messages (vLLM's
//! `muse_glimmer`, SGLang's `muse`). The shapes of the peers' tests (reasoning then a
//! call, reasoning then the answer, the answer alone, two invokes with typed values),
//! the headers' edges, and its answers to the universal cases, at every chunking and
//! every prefix.

use crate::exact::*;
use crate::universal::{Case, Universal, sample};
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::{Format, Parser, ParserConfig};

const OPEN: &str = "<atem:function_calls><atem:invoke name=\"";
const CLOSE: &str = "</atem:invoke></atem:function_calls>";

/// The channel framing as the peers' tests capture it: `to=self` reasoning, a tool
/// recipient's ATEM block, `to=user` the answer; every header and end token dropped.
#[test]
fn muse_fixtures() {
    let tool = " to=self<|message|>I should look it up.<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>";
    let two = "to=self<|message|>Let me check the weather.<|eom|><|start|>assistant to=weather.get<|message|><atem:function_calls>\n<atem:invoke name=\"weather.get\">\n<atem:parameter name=\"city\">Paris</atem:parameter>\n<atem:parameter name=\"days\">3</atem:parameter>\n<atem:parameter name=\"tags\">[\"a\", \"b\"]</atem:parameter>\n</atem:invoke>\n<atem:invoke name=\"time.now\">\n</atem:invoke>\n</atem:function_calls><|eom|><|start|>assistant to=user<|message|>Done.<|eot|>";
    let fixtures = [
        fx(
            "reasoning, then a call on its tool channel",
            tool,
            vec![
                one(r("I should look it up.")),
                call(0, "get_weather", r#"{"city":"Paris"}"#),
            ],
        ),
        fx(
            "reasoning, then the answer",
            " to=self<|message|>17*23 = 391. Provide answer.<|eom|><|start|>assistant to=user<|message|>17 × 23 = **391**.<|eot|><|end_of_text|>",
            vec![
                one(r("17*23 = 391. Provide answer.")),
                one(t("17 × 23 = **391**.")),
            ],
        ),
        fx(
            "the answer alone",
            " to=user<|message|>Hello there.",
            vec![one(t("Hello there."))],
        ),
        fx(
            "two invokes, scalars and a list, then the answer",
            two,
            vec![
                one(r("Let me check the weather.")),
                call(
                    0,
                    "weather.get",
                    r#"{"city":"Paris","days":3,"tags":["a", "b"]}"#,
                ),
                call(1, "time.now", "{}"),
                one(t("Done.")),
            ],
        ),
        fx(
            "a value's spaces are its own; a name's entities decoded",
            format!(
                "{OPEN}a&amp;b\"><atem:parameter name=\"s\"> two  spaces </atem:parameter>{CLOSE}"
            ),
            vec![call(0, "a&b", r#"{"s":" two  spaces "}"#)],
        ),
        fx(
            "a bare <|message|> header is the answer",
            "<|start|>assistant<|message|>Hi.<|eot|>",
            vec![one(t("Hi."))],
        ),
        fx(
            "a call inside reasoning is reasoning",
            format!("to=self<|message|>Maybe {OPEN}f\">{CLOSE}?<|eom|> to=user<|message|>No."),
            vec![one(r(&format!("Maybe {OPEN}f\">{CLOSE}?"))), one(t("No."))],
        ),
        fx(
            "to= that is no header is text",
            "Set x to=10<|eot|> and y to=a b, auto=true",
            vec![one(t("Set x to=10 and y to=a b, auto=true"))],
        ),
        fx(
            "a header broken by another marker: text, the marker read",
            "Set to=x<|start|>assistant to=user<|message|>ok",
            vec![one(t("Set to=xok"))],
        ),
    ];
    check_fixtures(Format::Muse, &fixtures);
    check_fixtures(
        Format::Auto,
        &[fx(
            "detected",
            "Sure.\n<atem:function_calls>\n<atem:invoke name=\"f\">\n<atem:parameter name=\"a\">1</atem:parameter>\n</atem:invoke>\n</atem:function_calls>",
            vec![one(t("Sure.\n")), call(0, "f", r#"{"a":1}"#)],
        )],
    );
}

/// Issue 33: a `to=self` reasoning message the model leaves without its `<|eom|>`. The next
/// message's `<|start|>assistant` (or the turn's end token) ends it, so the tool channel
/// after it is read (its call a call, never reasoning); the end of the output ends it
/// too, with what it held as reasoning, an ATEM block in it included (closed or not).
#[test]
fn reasoning_left_open() {
    let call_block = "<atem:function_calls><atem:invoke name=\"get_weather\"><atem:parameter name=\"city\">Paris</atem:parameter></atem:invoke></atem:function_calls>";
    check_fixtures(
        Format::Muse,
        &[
            fx(
                "the next message's header ends it: its call is a call",
                format!(
                    "to=self<|message|>I should look it up. <|start|>assistant to=get_weather<|message|>{call_block}<|eom|>"
                ),
                vec![
                    one(r("I should look it up. ")),
                    call(0, "get_weather", r#"{"city":"Paris"}"#),
                ],
            ),
            fx(
                "the turn's end ends it: what follows is text",
                "to=self<|message|>Done thinking.<|eot|>Hi.",
                vec![one(r("Done thinking.")), one(t("Hi."))],
            ),
            fx(
                "cut off inside it: reasoning to the end",
                "to=self<|message|>Still thinking about",
                vec![one(r("Still thinking about"))],
            ),
            fx(
                "cut off inside it with an ATEM block open: reasoning, no call",
                format!("to=self<|message|>Maybe {OPEN}f\"><atem:parameter name=\"a\">1"),
                vec![one(r(&format!(
                    "Maybe {OPEN}f\"><atem:parameter name=\"a\">1"
                )))],
            ),
        ],
    );
}

/// With `calls_in_reasoning`, a call in `to=self` is extracted and the reasoning goes on.
#[test]
fn muse_calls_in_reasoning() {
    let input = format!("to=self<|message|>Maybe {OPEN}f\">{CLOSE} then.<|eom|>");
    let got = split_with(
        Format::Muse,
        ParserConfig::new().calls_in_reasoning(true),
        &input,
    );
    let want: Vec<Ev> = [one(r("Maybe ")), call(0, "f", "{}"), one(r(" then."))]
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(evs(&got), want);
}

/// `auto` tells a Muse tool header (`to=NAME<|message|>`) from gpt-oss's (`to=` before
/// `<|channel|>`), each read as its own format reads it.
#[test]
fn auto_tells_muse_from_harmony() {
    let harmony = "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": \"Paris\"}<|call|>";
    let muse = "<|start|>assistant to=get_weather<|message|><atem:function_calls>\n<atem:invoke name=\"get_weather\">\n<atem:parameter name=\"city\">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>";
    for (input, format) in [(harmony, Format::Harmony), (muse, Format::Muse)] {
        let own = crate::common::run_whole(&|| Parser::new(format), input.as_bytes());
        let auto = crate::common::run_whole(&|| Parser::new(Format::Auto), input.as_bytes());
        assert_eq!(crate::common::calls(&own).len(), 1, "{format}: {own:?}");
        assert_eq!(
            crate::common::calls(&auto),
            crate::common::calls(&own),
            "{format}"
        );
    }
}

/// `muse`'s answers to the universal cases.
pub(crate) fn universal() -> Universal {
    Universal {
        format: Format::Muse,
        reasoning: Some(("to=self<|message|>", "<|eom|>")),
        reasoning_close_dropped: true,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    format!(
                        "Hi {OPEN}f\"><atem:parameter name=\"a\">1</atem:parameter>{CLOSE} bye"
                    ),
                    vec![one(t("Hi ")), call(0, "f", r#"{"a":1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    format!("{OPEN}f\"><atem:parameter name=\"a\">x"),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"x"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<atem:invoke name=\"f\"><atem:parameter name=\"a\">x",
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    format!("{OPEN}f\"><atem:parameter name=\"a>1</atem:parameter>{CLOSE} ok"),
                    vec![
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "<atem:invoke name=\"f\"><atem:parameter name=\"a>1</atem:parameter></atem:invoke>",
                        )),
                        one(t(" ok")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <atem:function_calls> tag.",
                    vec![one(t("Use a literal <atem:function_calls> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done</atem:function_calls> ok",
                    vec![one(t("done</atem:function_calls> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    format!(
                        "{OPEN}f\"><atem:parameter name=\"a\">1</atem:parameter><atem:invoke name=\"g\">{CLOSE}"
                    ),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<atem:invoke name=\"f\"><atem:parameter name=\"a\">1</atem:parameter>",
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    format!(
                        "{OPEN}f\"><atem:parameter name=\"a\">1</atem:parameter><atem:parameter name=\"a\">2</atem:parameter>{CLOSE}"
                    ),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            "<atem:invoke name=\"f\"><atem:parameter name=\"a\">1</atem:parameter><atem:parameter name=\"a\">2</atem:parameter></atem:invoke>",
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    format!("{OPEN}get weather index={CLOSE}"),
                    vec![one(err(
                        Bad,
                        None,
                        "<atem:invoke name=\"get weather index=</atem:invoke>",
                    ))],
                ),
            ),
        ],
    }
}
