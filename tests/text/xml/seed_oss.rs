//! `seed-oss`: ByteDance Seed-OSS (`<seed:tool_call>` around Qwen3-Coder XML,
//! `<seed:think>` reasoning). Its answers to the universal cases, and its reasoning and
//! end-of-turn tokens, at every chunking and every prefix.

use crate::exact::*;
use crate::universal::Universal;
use toolstream::Format;

/// Reasoning in `<seed:think>`, a call, the end-of-turn `<seed:eos>` dropped.
#[test]
fn seed_oss_fixtures() {
    check_fixtures(
        Format::SeedOss,
        &[fx(
            "reasoning, a call, end of turn",
            "<seed:think>need weather</seed:think>Checking.<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</seed:tool_call><seed:eos>",
            vec![
                one(r("need weather")),
                one(t("Checking.")),
                call(0, "get_weather", r#"{"city":"Paris"}"#),
            ],
        )],
    );
}

/// `seed-oss`' answers to the universal cases: `qwen-xml`'s in its own section.
pub(crate) fn universal() -> Universal {
    crate::xml::qwen_xml::universal_in(
        Format::SeedOss,
        "<seed:tool_call>",
        "</seed:tool_call>",
        ("<seed:think>", "</seed:think>"),
    )
}
