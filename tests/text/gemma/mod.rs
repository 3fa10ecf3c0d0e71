//! The Gemma family (`src/text/gemma/`): the new syntaxes' own fixtures (`gemma4`'s
//! table-wide fixtures are in `gemma_pythonic.rs`).

// Every syntax's test file (`build.rs`: the path of the syntax's source file under
// `tests/text`) and the family's `UNIVERSAL` list of their fixtures.
include!(concat!(env!("OUT_DIR"), "/tests_text_gemma.rs"));

/// The rows of the recovery rule (`rules/recovery.rs`) this family's syntax files hold.
pub(crate) const RECOVERY: &[fn() -> Vec<crate::rules::recovery::Fx>] = &[gemma4::recovery];

/// The rows of the edge rules (`rules/edges.rs`) this family's syntax files hold.
pub(crate) const EDGES: &[fn() -> crate::rules::edges::Edges] = &[];
