//! The special-token section family (`src/text/sections/`).

/// `deepseek`'s own fixtures, and the engine's recovery rules for both of its syntaxes.
mod deepseek;

/// `plamo3`: PLaMo 3's tool requests.
mod plamo3;

/// `kimi-k2`'s own fixtures, its descriptor of the JSON-call table and its rows.
mod kimi_k2;

/// The universal fixtures of this family's syntaxes (`tests/text/universal.rs`), one per
/// syntax file.
pub(crate) const UNIVERSAL: &[fn() -> crate::universal::Universal] =
    &[plamo3::universal, deepseek::universal, kimi_k2::universal];

/// The rows of the recovery rule (`rules/recovery.rs`) this family's syntax files hold.
pub(crate) const RECOVERY: &[fn() -> Vec<crate::rules::recovery::Fx>] =
    &[deepseek::recovery, kimi_k2::recovery];

/// The rows of the edge rules (`rules/edges.rs`) this family's syntax files hold.
pub(crate) const EDGES: &[fn() -> crate::rules::edges::Edges] = &[];

/// The descriptors of the JSON-call table (`json/tables.rs`) this family's syntax files
/// hold.
pub(crate) const JSON_TABLE: &[&[crate::json::tables::Syn]] = &[kimi_k2::SYN];
