//! `granite-20b-fc`: IBM granite-20b-functioncalling (vLLM's `granite-20b-fc` parser). Its
//! answers to the universal cases, and the shape of vLLM's tests, at every chunking and
//! every prefix.

use crate::exact::*;
use crate::universal::{Case, Universal, not_applicable, sample};
use toolstream::ErrorKind::{
    InvalidArguments as Bad, TrailingArguments as Trailing, Truncated as Cut,
};
use toolstream::Format;

/// Two calls, each after its own `<function_call>` (the template's shape); detected by
/// `auto`.
#[test]
fn granite_20b_fc_fixtures() {
    let input = r#"<function_call> {"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}} <function_call> {"name": "now", "arguments": {}}"#;
    let want = vec![
        call(0, "get_weather", r#"{"city": "Paris", "unit": "c"}"#),
        one(t(" ")),
        call(1, "now", "{}"),
    ];
    check_fixtures(
        Format::Granite20bFc,
        &[fx("two calls", input, want.clone())],
    );
    check_fixtures(Format::Auto, &[fx("detected", input, want)]);
}

/// `granite-20b-fc`'s answers to the universal cases.
pub(crate) fn universal() -> Universal {
    const OPEN: &str = "<function_call> ";
    Universal {
        format: Format::Granite20bFc,
        reasoning: None,
        reasoning_close_dropped: false,
        outside_text_may_be_reasoning: false,
        answers: vec![
            (
                Case::Call,
                sample(
                    format!(r#"Hi {OPEN}{{"name": "f", "arguments": {{"a": 1}}}} bye"#),
                    vec![one(t("Hi ")), call(0, "f", r#"{"a": 1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    format!(r#"{OPEN}{{"name": "f", "arguments": {{"a": 1"#),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            &format!(r#"{OPEN}{{"name": "f", "arguments": {{"a": 1"#),
                        )),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    format!(r#"{OPEN}{{"name": "f", "arguments": {{"a": x}}}} ok"#),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": "#)),
                        one(err(
                            Bad,
                            Some(0),
                            &format!(r#"{OPEN}{{"name": "f", "arguments": {{"a": x}}}}"#),
                        )),
                        one(t(" ok")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <function_call> tag.",
                    vec![one(t("Use a literal <function_call> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                not_applicable(
                    "the syntax has no closing marker: a call ends where its object does",
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    format!(
                        r#"{OPEN}{{"name": "f", "arguments": {{"a": 1{OPEN}{{"name": "g", "arguments": {{}}}}"#
                    ),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a": 1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            &format!(r#"{OPEN}{{"name": "f", "arguments": {{"a": 1"#),
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    format!(r#"{OPEN}{{"name": "f", "arguments": {{}}, "arguments": {{}}}}"#),
                    vec![
                        call(0, "f", "{}"),
                        one(err(
                            Trailing,
                            None,
                            // Only the bytes after the ended call: not the call again.
                            r#", "arguments": {}}"#,
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                not_applicable(crate::universal::JSON_STRING_NAME),
            ),
        ],
    }
}
