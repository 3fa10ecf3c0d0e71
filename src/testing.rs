//! Hooks for the crate's own benchmarks and tests (`benches/support/workloads.rs`,
//! `tests/alloc.rs`), which live outside the crate: not an API, hidden from the docs, and
//! free to change in any release.

use crate::format::Format;

/// The example call template of a text format's syntax, `None` for a provider format:
/// a model's turn calling `write_file` with `{"path": "notes.txt", "content": CONTENT}`,
/// as that syntax writes it, with three kinds of placeholders, each once and in this
/// order:
///
/// - `{prose}`: the turn's visible text;
/// - `{call}`: where the call's bytes begin (renders as nothing);
/// - CONTENT as one of `{args}` (the arguments object as JSON text), `{content}` (the
///   content as it is: XML parameters, Gemma's quoted strings) or `{py}` (the inside of
///   a Python single-quoted string literal).
///
/// Every other byte is literal. The benchmark workloads of every text format are
/// rendered from it; `auto`'s is `hermes`'s.
pub fn call_template(format: Format) -> Option<&'static str> {
    crate::text::syntax(format).map(|row| row.example)
}
