//! The crate docs' format table lists every format this build knows.

#![allow(clippy::unwrap_used, clippy::panic)]

#[test]
fn crate_docs_list_every_format() {
    let lib = include_str!("../src/lib.rs");
    let table = lib
        .split("//! ## Formats")
        .nth(1)
        .and_then(|t| t.split("//! ## ").next())
        .expect("a Formats section in src/lib.rs");
    for f in toolstream::Format::all() {
        assert!(
            table.contains(&format!("//! | `{}` |", f.name())),
            "src/lib.rs's format table has no row for `{}`",
            f.name()
        );
    }
}
