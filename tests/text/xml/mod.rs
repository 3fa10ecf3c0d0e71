//! The XML-parameter family (`src/text/xml/`).

/// The XML fixture table and its rules, run over the rows the syntax files hold (their
/// `table()`, listed in `TABLE`).
pub(crate) mod tables;

// Every syntax's test file (`build.rs`: the path of the syntax's source file under
// `tests/text`) and the family's `UNIVERSAL` list of their fixtures.
include!(concat!(env!("OUT_DIR"), "/tests_text_xml.rs"));

/// The rows of the recovery rule (`rules/recovery.rs`) this family's syntax files hold.
pub(crate) const RECOVERY: &[fn() -> Vec<crate::rules::recovery::Fx>] = &[
    minimax::recovery,
    deepseek_dsml::recovery,
    kimi_k3::recovery,
    minimax_m3::recovery,
    qwen_xml::recovery,
    glm::recovery,
    seed_oss::recovery,
    hy_v4::recovery,
];

/// The rows of the edge rules (`rules/edges.rs`) this family's syntax files hold.
pub(crate) const EDGES: &[fn() -> crate::rules::edges::Edges] =
    &[qwen_xml::edges, glm::edges, seed_oss::edges, hy_v4::edges];

/// The rows of the XML fixture table (`tables.rs`) this family's syntax files hold.
pub(crate) const TABLE: &[fn() -> Vec<tables::Fx>] = &[
    glm::table,
    minimax::table,
    seed_oss::table,
    deepseek_dsml::table,
    qwen_xml::table,
];
