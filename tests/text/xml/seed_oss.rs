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

/// `seed-oss`'s rows of the recovery rule (`rules/recovery.rs`, which runs them with
/// every family's): each slip with its exact events.
pub(crate) fn recovery() -> Vec<crate::rules::recovery::Fx> {
    use crate::rules::recovery::prelude::*;
    vec![fx!(
        "seed-oss",
        "a missing </function>",
        "<seed:tool_call><function=f><parameter=a>1</parameter><function=g><parameter=a>2</parameter></function></seed:tool_call>",
        [
            start(0, "f"),
            args(0, r#"{"a":1"#),
            err(
                Cut,
                Some(0),
                "<seed:tool_call><function=f><parameter=a>1</parameter>"
            ),
            call(1, "g", r#"{"a":2}"#),
        ],
    )]
}

/// `seed-oss`'s rows of the edge rules (`rules/edges.rs`, which runs them with every
/// family's): calls cut off or corrupted (the error's raw is the call's bytes), calls
/// with the tokens that introduce them.
pub(crate) fn edges() -> crate::rules::edges::Edges {
    use crate::rules::edges::{Edges, b};
    use toolstream::ErrorKind::{InvalidArguments as Bad, Truncated as Cut};
    use toolstream::Format::SeedOss;
    Edges {
        broken: vec![
            b(
                SeedOss,
                "cut",
                (
                    "Hi ",
                    "",
                    "<seed:tool_call>\n<function=f>\n<parameter=a>\n1",
                    "",
                ),
                Cut,
                0,
                "Hi ",
            ),
            b(
                SeedOss,
                "corrupt",
                (
                    "Hi ",
                    "",
                    "<seed:tool_call>\n<function=f>\n<parameter=a\nb>1</parameter>\n</function>\n</seed:tool_call>",
                    " after",
                ),
                Bad,
                0,
                "Hi  after",
            ),
        ],
        markers: vec![(
            SeedOss,
            "<seed:tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</seed:tool_call>",
            "A",
            " B",
            "A B",
        )],
    }
}

/// `seed-oss`'s rows of the XML fixture table (`xml/tables.rs`, which runs them with the
/// family's, typed with and without the schema where a row says so).
pub(crate) fn table() -> Vec<crate::xml::tables::Fx> {
    use crate::xml::tables::fx;
    use serde_json::json;
    use toolstream::ErrorKind;
    use toolstream::Format;
    vec![
        fx(
            "seed-oss reasoning, call, text after",
            Format::SeedOss,
            "<seed:think>The user wants weather.</seed:think>\nSure.\n<seed:tool_call>\n<function=get_weather>\n<parameter=location>\nBogotá, Colombia\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</seed:tool_call> ok<seed:eos>",
        )
        .reasoning("The user wants weather.")
        .text("Sure.\n ok")
        .call(
            "get_weather",
            json!({"location": "Bogotá, Colombia", "unit": "celsius"}),
        ),
        fx(
            "seed-oss two sections, empty arguments",
            Format::SeedOss,
            "<seed:tool_call><function=a></function></seed:tool_call><seed:tool_call><function=b><parameter=x>-0.5</parameter></function></seed:tool_call>",
        )
        .call("a", json!({}))
        .call("b", json!({"x": -0.5})),
        fx(
            "seed-oss truncated",
            Format::SeedOss,
            "<seed:tool_call>\n<function=get_w",
        )
        .error(
            ErrorKind::Truncated,
            None,
            "<seed:tool_call>\n<function=get_w",
        ),
    ]
}
