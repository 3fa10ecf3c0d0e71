//! `zaya1`: Zyphra ZAYA1 (`<zyphra_tool_call>` around Qwen3-Coder XML; `zaya_xml`, the
//! peers' parser name, parses as this format). Its answers to the universal cases, and
//! the peers' test shape, at every chunking and every prefix.

use crate::exact::*;
use crate::universal::Universal;
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

/// `zaya1`'s answers to the universal cases: `qwen-xml`'s in Zyphra's section.
pub(crate) fn universal() -> Universal {
    crate::xml::qwen_xml::universal_in(
        Format::Zaya1,
        "<zyphra_tool_call>",
        "</zyphra_tool_call>",
        ("<think>", "</think>"),
    )
}
