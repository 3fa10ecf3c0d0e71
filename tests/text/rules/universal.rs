//! Every syntax's answers to the universal cases (`tests/text/universal.rs`), run; and every
//! raw-text format has its own test file at the path of its source file (the file that
//! exports its registry row: `src/text/json/hermes.rs` → `tests/text/json/hermes.rs`)
//! holding its universal fixture.
//!
//! Nothing here names a syntax but [`NOT_YET`], the formats whose tests are still spread
//! over the older fixture tables (`rules/recovery.rs`, `rules/edges.rs`, `json/tables.rs`,
//! `xml/tables.rs`): it only shrinks (a test fails when a listed format has its file and
//! fixture).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::universal::all;
use toolstream::{Format, Framing};

/// Formats whose own file and universal fixture are still to be written (their cases are
/// answered in the older tables named in the module doc).
const NOT_YET: &[&str] = &[];

#[test]
fn every_fixture_answers_every_case() {
    let fixtures = all();
    assert!(!fixtures.is_empty());
    for f in &fixtures {
        f.check();
    }
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("a readable directory") {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Each syntax's name → the file (under `src/text`) that exports its registry row.
fn row_files() -> BTreeMap<String, PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/text");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut out = BTreeMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("a readable source");
        let Some(at) = text.find("const ROW: ") else {
            continue;
        };
        let rest = &text[at..];
        let name = rest
            .split("name: \"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .expect("a row names its syntax");
        let rel = f.strip_prefix(&root).expect("under src/text").to_path_buf();
        assert!(
            out.insert(name.to_owned(), rel).is_none(),
            "{name}: two row files"
        );
    }
    out
}

#[test]
fn every_raw_text_format_has_its_file_and_fixture() {
    let rows = row_files();
    let fixtures: Vec<Format> = all().iter().map(|u| u.format).collect();
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/text");
    let mut missing = Vec::new();
    for f in Format::all().filter(|f| f.default_framing() == Framing::Text) {
        let name = f.name();
        let src = rows
            .get(name)
            .unwrap_or_else(|| panic!("{name}: no source file exports its row"));
        let has_file = tests.join(src).is_file();
        let has_fixture = fixtures.iter().filter(|g| **g == f).count() == 1;
        let done = has_file && has_fixture;
        if NOT_YET.contains(&name) {
            assert!(
                !done,
                "{name} has tests/text/{} and its fixture: remove it from NOT_YET",
                src.display()
            );
        } else if !done {
            missing.push(format!(
                "{name}: tests/text/{} (file {has_file}, fixture {has_fixture})",
                src.display()
            ));
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
    for name in NOT_YET {
        let f: Format = name.parse().unwrap();
        assert_eq!(f.default_framing(), Framing::Text, "{name}");
    }
}
