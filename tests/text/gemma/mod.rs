//! The Gemma family (`src/text/gemma/`): the new syntaxes' own fixtures (`gemma4`'s
//! table-wide fixtures are in `gemma_pythonic.rs`).

/// `gemma4`'s bare `<|tool_call>:NAME{..}` opener.
mod gemma4;

/// `functiongemma`'s own fixtures.
mod functiongemma;

/// The universal fixtures of this family's syntaxes (`tests/text/universal.rs`), one per
/// syntax file.
pub(crate) const UNIVERSAL: &[fn() -> crate::universal::Universal] =
    &[gemma4::universal, functiongemma::universal];

/// The rows of the recovery rule (`rules/recovery.rs`) this family's syntax files hold.
pub(crate) const RECOVERY: &[fn() -> Vec<crate::rules::recovery::Fx>] = &[gemma4::recovery];

/// The rows of the edge rules (`rules/edges.rs`) this family's syntax files hold.
pub(crate) const EDGES: &[fn() -> crate::rules::edges::Edges] = &[];
