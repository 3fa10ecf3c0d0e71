//! The pythonic family (`src/text/pythonic/`).

/// `llama-pythonic`, `llama-json` and `auto`.
mod llama;

/// `lfm2`.
mod lfm2;

/// `xlam`, an alias of `llama-json`.
mod xlam;

/// `llama-json`'s own fixtures.
mod llama_json;

/// `olmo3`'s own fixtures.
mod olmo3;

/// The universal fixtures of this family's syntaxes (`tests/text/universal.rs`), one per
/// syntax file.
pub(crate) const UNIVERSAL: &[fn() -> crate::universal::Universal] = &[
    llama_json::universal,
    llama::universal,
    lfm2::universal,
    olmo3::universal,
];

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
