//! The pythonic family (`src/text/pythonic/`).

/// `xlam`, an alias of `llama-json`.
mod xlam;

// Every syntax's test file (`build.rs`: the path of the syntax's source file under
// `tests/text`) and the family's `UNIVERSAL` list of their fixtures.
include!(concat!(env!("OUT_DIR"), "/tests_text_pythonic.rs"));

/// The rows of the recovery rule (`rules/recovery.rs`) this family's syntax files hold.
pub(crate) const RECOVERY: &[fn() -> Vec<crate::rules::recovery::Fx>] = &[
    llama_json::recovery,
    llama::recovery,
    lfm2::recovery,
    olmo3::recovery,
];

/// The rows of the edge rules (`rules/edges.rs`) this family's syntax files hold.
pub(crate) const EDGES: &[fn() -> crate::rules::edges::Edges] =
    &[llama::edges, llama_json::edges, lfm2::edges];
