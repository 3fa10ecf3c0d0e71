//! The text syntaxes' tests, in one binary laid out like `src/text/`: a folder per
//! engine family ([`json`], [`xml`], [`sections`], [`pythonic`]) with a file per syntax
//! or per table-driven fixture set, [`harmony`], files that cover syntaxes of several
//! families at once ([`markers`]: the marker syntaxes' leaked-content captures and
//! generated streams; [`gemma_pythonic`]:
//! `gemma4`, `lfm2`, `olmo3`), and the rules every text format keeps in [`rules`]. All are driven by the shared harness in
//! `tests/common/`, through [`exact`]'s runners (`split`, `split_with`, `check_fixtures`) and
//! its event helpers.
//!
//! `cargo test --test text json::` runs one family.
//!
//! proptest finds this binary's `main.rs` and keeps a module's regression seeds in
//! `tests/proptest-regressions/<path of the module under tests/text>.txt`.

// Tests may unwrap and index: for every module of this binary, once.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "../common/mod.rs"]
mod common;

/// `auto`'s own fixtures (the syntax detected from the text).
mod auto;
mod exact;
mod gemma;
mod gemma_pythonic;
mod harmony;
mod json;
mod markers;
mod pythonic;
mod rules;
mod sections;
mod universal;
mod xml;
