//! The special-token section family (`src/text/sections/`).

/// `deepseek`'s own fixtures, and the engine's recovery rules for both of its syntaxes
/// (`kimi-k2`'s table tests are in the JSON family's `tables.rs`).
mod deepseek;
