//! `ernie45`: Baidu ERNIE 4.5 (vLLM's `ernie45` parser): `hermes`' calls with ERNIE's
//! `<think>` and `<response>` tags. Its answers to the universal cases, and the shape of
//! vLLM's parser doc, at every chunking and every prefix.

use crate::exact::*;
use crate::universal::Universal;
use toolstream::Format;

/// The thinking model's shape (`abc\n</think>\n\n\n<tool_call>\n..\n</tool_call>\n`), and
/// an answer in `<response>` tags.
#[test]
fn ernie45_fixtures() {
    check_fixtures(
        Format::Ernie45,
        &[
            fx(
                "reasoning then a call over lines",
                "<think>\nabc\n</think>\n\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Beijing\"}}\n</tool_call>\n",
                vec![
                    one(r("abc")),
                    call(0, "get_weather", r#"{"city": "Beijing"}"#),
                ],
            ),
            fx(
                "an answer in response tags",
                "<think>\nhm\n</think>\n<response>Sunny.</response>",
                vec![one(r("hm")), one(t("Sunny."))],
            ),
        ],
    );
}

/// `ernie45`'s answers to the universal cases: `hermes`' (the same calls).
pub(crate) fn universal() -> Universal {
    crate::json::hermes::universal_for(Format::Ernie45)
}
