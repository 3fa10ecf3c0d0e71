//! The text-syntax registry, written from the syntax files themselves.
//!
//! Each raw-text syntax lives in one file under `src/text/` that exports its registry row
//! (`pub(crate) const ROW: Row = Row { format: Format::<Variant>, name: "<name>", .. }`),
//! whose doc comment is the public [`Format`] variant's doc. This script finds those files
//! and writes, into `OUT_DIR`:
//!
//! - `text_<family>.rs`: the `mod` declaration of every syntax file in
//!   `src/text/<family>/` (included by that family's `mod.rs`);
//! - `syntaxes.rs`: `SYNTAXES`, every row, sorted by name (`auto`, which picks among the
//!   others, last): the order `toolstream formats` lists them in;
//! - `format_variants.rs`: the syntaxes' `Format` variants with their docs (through
//!   `src/format.rs`'s `format_enum!`);
//! - `syntax_table.md`: the crate docs' rows of the text syntaxes in their format table
//!   (`src/lib.rs`), each the row's doc comment on one line;
//! - `tests_text_<family>.rs`: for the `text` test binary, the `mod` declaration of each
//!   syntax's test file (`tests/text/<family>/<syntax>.rs`, the path of its source file)
//!   and the family's `UNIVERSAL` list of their fixtures. A syntax without its test file
//!   is a compile error of that binary naming the file.
//!
//! So adding a syntax adds its file; no list in the crate names it. Syntaxes with their
//! own top-level file (`harmony`, `auto`) are declared by hand in `src/text/mod.rs`.

// A build script reports a malformed row, or a file it cannot read or write, by failing the
// build with a message naming the file: that is what `expect` and `panic!` do here.
#![allow(clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

/// One syntax file's row, as far as the generated code needs it.
struct Syntax {
    /// The folder under `src/text` (`None`: a top-level file of `src/text`).
    family: Option<String>,
    /// The file's stem: its module name.
    module: String,
    /// The CLI name (`name: ".."`).
    name: String,
    /// The `Format` variant (`format: Format::..`).
    variant: String,
    /// The row's doc comment, a line each, without the `///`.
    docs: Vec<String>,
    /// Whether the row is `auto`'s (`engine: .. Builtin::Auto`), listed last.
    picks: bool,
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/text");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let text = manifest.join("src/text");

    let mut syntaxes = Vec::new();
    let mut families = Vec::new();
    for entry in sorted_dir(&text) {
        if entry.is_dir() {
            let family = file_name(&entry);
            for file in sorted_dir(&entry) {
                if let Some(s) = read_row(&file, Some(&family)) {
                    syntaxes.push(s);
                }
            }
            families.push(family);
        } else if let Some(s) = read_row(&entry, None) {
            syntaxes.push(s);
        }
    }
    syntaxes.sort_by(|a, b| (a.picks, &a.name).cmp(&(b.picks, &b.name)));
    for pair in syntaxes.windows(2) {
        if let [a, b] = pair {
            assert!(a.name != b.name, "two syntax rows are named {:?}", a.name);
        }
    }

    for family in &families {
        let members: Vec<&Syntax> = syntaxes
            .iter()
            .filter(|s| s.family.as_deref() == Some(family.as_str()))
            .collect();
        if members.is_empty() {
            continue;
        }
        let mut mods = String::from(GENERATED);
        let mut tests = String::from(GENERATED);
        for s in &members {
            let src = text.join(family).join(format!("{}.rs", s.module));
            let test = manifest
                .join("tests/text")
                .join(family)
                .join(format!("{}.rs", s.module));
            writeln!(
                mods,
                "#[path = {:?}]\npub(crate) mod {};",
                path_str(&src),
                s.module
            )
            .expect("a String takes writes");
            writeln!(tests, "#[path = {:?}]\nmod {};", path_str(&test), s.module)
                .expect("a String takes writes");
        }
        tests.push_str(
            "/// The universal fixtures of this family's syntaxes (`tests/text/universal.rs`), one\n\
             /// per syntax file, by name.\n\
             pub(crate) const UNIVERSAL: &[fn() -> crate::universal::Universal] = &[\n",
        );
        for s in &members {
            writeln!(tests, "    {}::universal,", s.module).expect("a String takes writes");
        }
        tests.push_str("];\n");
        write(&out.join(format!("text_{family}.rs")), &mods);
        write(&out.join(format!("tests_text_{family}.rs")), &tests);
    }

    let mut list = String::from(GENERATED);
    list.push_str(
        "/// Every text syntax's registry row, in the order `toolstream formats` lists them (after\n\
         /// the provider formats): by name, `auto` last. Written by `build.rs` from the syntax\n\
         /// files; see \"Adding a syntax\" in the [module docs](self).\n\
         pub(crate) const SYNTAXES: &[&row::Row] = &[\n",
    );
    for s in &syntaxes {
        match &s.family {
            Some(f) => writeln!(list, "    &{f}::{}::ROW,", s.module),
            None => writeln!(list, "    &{}::ROW,", s.module),
        }
        .expect("a String takes writes");
    }
    list.push_str("];\n");
    write(&out.join("syntaxes.rs"), &list);

    let mut variants = String::from(GENERATED);
    variants.push_str("format_enum! {\n");
    for s in &syntaxes {
        for d in &s.docs {
            writeln!(variants, "    #[doc = {d:?}]").expect("a String takes writes");
        }
        writeln!(variants, "    {},", s.variant).expect("a String takes writes");
    }
    variants.push_str("}\n");
    write(&out.join("format_variants.rs"), &variants);

    let mut table = String::new();
    for s in &syntaxes {
        let what = s
            .docs
            .iter()
            .map(|d| d.trim())
            .collect::<Vec<_>>()
            .join(" ")
            .replace('|', "\\|");
        writeln!(table, " | `{}` | text | {what} |", s.name).expect("a String takes writes");
    }
    write(&out.join("syntax_table.md"), &table);
}

const GENERATED: &str =
    "// @generated by build.rs from the syntax files under src/text: do not edit.\n";

/// The row of `file` if it exports one.
fn read_row(file: &Path, family: Option<&str>) -> Option<Syntax> {
    if file.extension().is_none_or(|e| e != "rs") {
        return None;
    }
    let module = file.file_stem()?.to_str()?.to_owned();
    let source = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let lines: Vec<&str> = source.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("pub(crate) const ROW: ") && l.ends_with("Row {"))?;
    let here = || format!("{}:{}", file.display(), at + 1);
    let mut docs: Vec<String> = lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.starts_with("///"))
        .map(|l| l.strip_prefix("///").unwrap_or_default().to_owned())
        .collect();
    docs.reverse();
    assert!(
        !docs.is_empty(),
        "{}: a syntax's ROW has a doc comment (it is its Format variant's doc)",
        here()
    );
    let body: Vec<&str> = lines[at + 1..]
        .iter()
        .copied()
        .take_while(|l| *l != "};")
        .collect();
    let field = |key: &str| {
        body.iter()
            .find_map(|l| l.trim().strip_prefix(key))
            .map(|v| v.trim_end_matches(',').trim().to_owned())
            .unwrap_or_else(|| panic!("{}: the row has no `{key}` line", here()))
    };
    let variant = field("format: Format::");
    let name = field("name: ");
    let name = name
        .strip_prefix('"')
        .and_then(|n| n.strip_suffix('"'))
        .unwrap_or_else(|| panic!("{}: the row's name is a string literal", here()))
        .to_owned();
    assert!(
        variant.chars().all(|c| c.is_ascii_alphanumeric()) && !variant.is_empty(),
        "{}: `format: Format::Variant,` on one line",
        here()
    );
    let picks = field("engine: ").ends_with("Builtin::Auto");
    Some(Syntax {
        family: family.map(str::to_owned),
        module,
        name,
        variant,
        docs,
        picks,
    })
}

/// The entries of `dir`, sorted by name (the output does not depend on the file system's
/// order).
fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    out.sort();
    out
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .and_then(|n| n.to_str())
        .expect("a UTF-8 file name")
        .to_owned()
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("the crate's path is UTF-8")
}

/// Writes `text` to `path` unless it already holds it (so nothing rebuilds for nothing).
fn write(path: &Path, text: &str) {
    if fs::read_to_string(path).is_ok_and(|t| t == text) {
        return;
    }
    fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
