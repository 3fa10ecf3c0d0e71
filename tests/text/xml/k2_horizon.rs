//! `k2-horizon`: K2 Horizon's IFM tags (vLLM's `k2_horizon` parser, its `xml` format). Its
//! answers to the universal cases, and the shape of vLLM's tests, at every chunking and
//! every prefix.

use crate::exact::*;
use crate::universal::Universal;
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

/// `k2-horizon`'s answers to the universal cases: GLM's, with IFM tags.
pub(crate) fn universal() -> Universal {
    use crate::xml::glm::{GlmTags, universal_in};
    const IFM: GlmTags = GlmTags {
        call: ("<ifm|tool_call>", "</ifm|tool_call>"),
        key: ("<ifm|arg_key>", "</ifm|arg_key>"),
        value: ("<ifm|arg_value>", "</ifm|arg_value>"),
    };
    universal_in(
        Format::K2Horizon,
        &IFM,
        Some(("<ifm|tool_calls>", "</ifm|tool_calls>")),
    )
}
