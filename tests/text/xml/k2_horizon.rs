//! `k2-horizon`: K2 Horizon's IFM tags (vLLM's `k2_horizon` parser, its `xml` format). Its
//! answers to the universal cases, and the shape of vLLM's tests, at every chunking and
//! every prefix.

use crate::exact::*;
use crate::universal::{Case, Universal, sample};
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::Format;

const OPEN: &str = "<ifm|tool_calls><ifm|tool_call>";
const CLOSE: &str = "</ifm|tool_call></ifm|tool_calls>";

/// Text, reasoning, two calls in one group (one without arguments), typed values;
/// detected by `auto`.
#[test]
fn k2_horizon_fixtures() {
    let input = format!(
        "<think>plan</think>Sure.{OPEN}get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value><ifm|arg_key>days</ifm|arg_key><ifm|arg_value>3</ifm|arg_value></ifm|tool_call><ifm|tool_call>now</ifm|tool_call></ifm|tool_calls> ok"
    );
    let want = vec![
        one(r("plan")),
        one(t("Sure.")),
        call(0, "get_weather", r#"{"city":"Paris","days":3}"#),
        call(1, "now", "{}"),
        one(t(" ok")),
    ];
    check_fixtures(
        Format::K2Horizon,
        &[fx("two calls in a group", input.clone(), want)],
    );
    let detected = split(Format::Auto, &format!("Sure.{OPEN}now{CLOSE}"));
    assert_eq!(
        evs(&detected),
        [vec![t("Sure.")], call(0, "now", "{}")].concat()
    );
}

/// `k2-horizon`'s answers to the universal cases.
pub(crate) fn universal() -> Universal {
    let arg = |k: &str, v: &str| {
        format!("<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{v}</ifm|arg_value>")
    };
    Universal {
        format: Format::K2Horizon,
        reasoning: Some(("<think>", "</think>")),
        answers: vec![
            (
                Case::Call,
                sample(
                    format!("Hi {OPEN}f{}{CLOSE} bye", arg("a", "1")),
                    vec![one(t("Hi ")), call(0, "f", r#"{"a":1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    format!("{OPEN}f<ifm|arg_key>a</ifm|arg_key><ifm|arg_value>x"),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"x"#)),
                        one(err(
                            Cut,
                            Some(0),
                            "<ifm|tool_call>f<ifm|arg_key>a</ifm|arg_key><ifm|arg_value>x",
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    format!("{OPEN}f<ifm|arg_key>a<ifm|arg_value>1</ifm|arg_value>{CLOSE} ok"),
                    vec![
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            "<ifm|tool_call>f<ifm|arg_key>a<ifm|arg_value>1</ifm|arg_value></ifm|tool_call>",
                        )),
                        one(t(" ok")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <ifm|tool_calls> tag.",
                    vec![one(t("Use a literal <ifm|tool_calls> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done</ifm|tool_calls> ok",
                    vec![one(t("done</ifm|tool_calls> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    format!("{OPEN}f{}<ifm|tool_call>g{CLOSE}", arg("a", "1")),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            &format!("<ifm|tool_call>f{}", arg("a", "1")),
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    format!("{OPEN}f{}{}{CLOSE}", arg("a", "1"), arg("a", "2")),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            &format!(
                                "<ifm|tool_call>f{}{}</ifm|tool_call>",
                                arg("a", "1"),
                                arg("a", "2")
                            ),
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                sample(
                    format!("{OPEN}get weather\" x{CLOSE}"),
                    vec![one(err(
                        Bad,
                        None,
                        "<ifm|tool_call>get weather\" x</ifm|tool_call>",
                    ))],
                ),
            ),
        ],
    }
}
