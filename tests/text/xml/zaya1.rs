//! `zaya1`: Zyphra ZAYA1 (`<zyphra_tool_call>` around Qwen3-Coder XML; `zaya_xml`, the
//! peers' parser name, parses as this format). Its answers to the universal cases, and
//! the peers' test shape, at every chunking and every prefix.

use crate::exact::*;
use crate::universal::{Case, Universal, broken, sample};
use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
use toolstream::Format;

/// The peers' test shape: text, then a call over lines, values trimmed of the template's
/// newlines; detected by `auto`.
#[test]
fn zaya1_fixtures() {
    assert_eq!("zaya_xml".parse::<Format>(), Ok(Format::Zaya1));
    let input = "Plan first.\n<zyphra_tool_call>\n<function=search_docs>\n<parameter=query>\nzaya cache\n</parameter>\n<parameter=limit>\n3\n</parameter>\n</function>\n</zyphra_tool_call>";
    let want = vec![
        one(t("Plan first.\n")),
        call(0, "search_docs", r#"{"query":"zaya cache","limit":3}"#),
    ];
    check_fixtures(
        Format::Zaya1,
        &[fx("the peers' test shape", input, want.clone())],
    );
    check_fixtures(Format::Auto, &[fx("detected", input, want)]);
}

/// `zaya1`'s answers to the universal cases.
pub(crate) fn universal() -> Universal {
    const OPEN: &str = "<zyphra_tool_call>\n<function=";
    const CLOSE: &str = "</function>\n</zyphra_tool_call>";
    Universal {
        format: Format::Zaya1,
        reasoning: Some(("<think>", "</think>")),
        answers: vec![
            (
                Case::Call,
                sample(
                    format!("Hi {OPEN}f>\n<parameter=a>\n1\n</parameter>\n{CLOSE} bye"),
                    vec![one(t("Hi ")), call(0, "f", r#"{"a":1}"#), one(t(" bye"))],
                ),
            ),
            (
                Case::CutCall,
                sample(
                    format!("{OPEN}f>\n<parameter=a>\nx"),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":"x"#)),
                        one(err(Cut, Some(0), &format!("{OPEN}f>\n<parameter=a>\nx"))),
                    ],
                ),
            ),
            (
                Case::CorruptCall,
                sample(
                    format!("{OPEN}f>\n<parameter=a\n1\n</parameter>\n{CLOSE} ok"),
                    vec![
                        one(start(0, "f")),
                        one(err(
                            Bad,
                            Some(0),
                            &format!("{OPEN}f>\n<parameter=a\n1\n</parameter>\n{CLOSE}"),
                        )),
                        one(t(" ok")),
                    ],
                ),
            ),
            (
                Case::MarkerAlone,
                sample(
                    "Use a literal <zyphra_tool_call> tag.",
                    vec![one(t("Use a literal <zyphra_tool_call> tag."))],
                ),
            ),
            (
                Case::StrayClose,
                sample(
                    "done</zyphra_tool_call> ok",
                    vec![one(t("done</zyphra_tool_call> ok"))],
                ),
            ),
            (
                Case::OpenerInsideCall,
                sample(
                    format!("{OPEN}f>\n<parameter=a>\n1\n</parameter>\n{OPEN}g>\n{CLOSE}"),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Cut,
                            Some(0),
                            &format!("{OPEN}f>\n<parameter=a>\n1\n</parameter>\n"),
                        )),
                        call(1, "g", "{}"),
                    ],
                ),
            ),
            (
                Case::RepeatedMember,
                sample(
                    format!(
                        "{OPEN}f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n{CLOSE}"
                    ),
                    vec![
                        one(start(0, "f")),
                        one(args(0, r#"{"a":1"#)),
                        one(err(
                            Bad,
                            Some(0),
                            &format!(
                                "{OPEN}f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n{CLOSE}"
                            ),
                        )),
                    ],
                ),
            ),
            (
                Case::JunkName,
                broken(
                    "the XML engine reads a name holding a space and a quote as the name (issue 33: junk names are errors; the engine's name rule is being fixed on the syntaxfix branch)",
                    format!("{OPEN}get weather\" x>\n{CLOSE}"),
                    vec![one(err(
                        Bad,
                        None,
                        &format!("{OPEN}get weather\" x>\n{CLOSE}"),
                    ))],
                ),
            ),
        ],
    }
}
