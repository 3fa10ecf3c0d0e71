//! The special-token section family (`src/text/sections/`).

// Every syntax's test file (`build.rs`: the path of the syntax's source file under
// `tests/text`) and the family's `UNIVERSAL` list of their fixtures.
include!(concat!(env!("OUT_DIR"), "/tests_text_sections.rs"));

/// The rows of the recovery rule (`rules/recovery.rs`) this family's syntax files hold.
pub(crate) const RECOVERY: &[fn() -> Vec<crate::rules::recovery::Fx>] =
    &[deepseek::recovery, kimi_k2::recovery];

/// The rows of the edge rules (`rules/edges.rs`) this family's syntax files hold.
pub(crate) const EDGES: &[fn() -> crate::rules::edges::Edges] = &[];

/// The descriptors of the JSON-call table (`json/tables.rs`) this family's syntax files
/// hold.
pub(crate) const JSON_TABLE: &[&[crate::json::tables::Syn]] = &[kimi_k2::SYN];
