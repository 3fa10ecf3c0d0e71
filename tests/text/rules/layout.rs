//! The layout of `src/text/` and `src/spec/`: no two modules import each other in a
//! circle, and `text` never names `spec` (a spec compiles onto the text engines; the
//! engines know nothing of specs).
//!
//! Reads the sources and collects, per module, the `crate::text::..` and `crate::spec::..`
//! (and `super::..`) paths its code names (comments, doc comments and `#[cfg(test)]` modules left out), resolved to the
//! module that defines the item. `text/mod.rs` (the format → scanner map, which names
//! every family) and `auto.rs` (which builds the detected syntax's scanner through that
//! map) are the one allowed pair: `TextScanner` holds an `Auto`, which holds a
//! `TextScanner`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/text and src/spec are readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file under `src/text` or `src/spec` (`text::json::hermes`,
/// `text::xml`, `spec::read`).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).expect("under src/");
    let mut parts = Vec::new();
    for c in rel.components() {
        let s = c.as_os_str().to_string_lossy();
        let s = s.strip_suffix(".rs").unwrap_or(&s);
        if s != "mod" {
            parts.push(s.to_string());
        }
    }
    parts.join("::")
}

/// The code of a source file: line comments and `#[cfg(test)]` modules removed.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `crate::text::a::b::..` (or `crate::spec::..`: `top`) paths named in `code`,
/// grouped `use` lists expanded one level (`crate::text::kit::{call, util::X}` names
/// `kit::call` and `kit::util::X`).
fn paths(code: &str, top: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    let prefix = format!("crate::{top}::");
    while let Some(i) = rest.find(&prefix) {
        rest = &rest[i + prefix.len()..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let head = rest[..end].trim_end_matches(':').to_string();
        if rest[end..].starts_with('{') {
            let close = rest[end..].find('}').map_or(rest.len(), |j| end + j);
            for item in rest[end + 1..close].split(',') {
                let item = item.trim();
                if !item.is_empty() {
                    out.push(format!("{top}::{head}::{item}"));
                }
            }
        } else {
            out.push(format!("{top}::{head}"));
        }
    }
    out
}

#[test]
fn text_modules_import_in_no_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root.join("text"), &mut files);
    sources(&root.join("spec"), &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&root, f)).collect();
    assert!(
        modules.contains("text::kit"),
        "src/text/kit/mod.rs is where the kit is"
    );
    // Module → the modules whose items its code names.
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let from = module_of(&root, f);
        let text = std::fs::read_to_string(f).expect("a readable source");
        // `super::x` in a module's code names its parent's `x`.
        let parent = from.rsplit_once("::").map_or("", |(p, _)| p);
        let code = code(&text).replace("super::", &format!("crate::{parent}::"));
        let named = paths(&code, "text").into_iter().chain(paths(&code, "spec"));
        for p in named {
            // The longest module prefix of the path is the module that defines the item.
            let mut to = p.clone();
            while !modules.contains(&to) {
                match to.rfind("::") {
                    Some(i) => to.truncate(i),
                    None => break,
                }
            }
            let allowed = from == "text::auto" && to == "text";
            if to != from && modules.contains(&to) && !allowed {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    // `text` never names `spec`: the spec's regions engine plugs in as a `text::Scan`.
    for (from, to) in &edges {
        assert!(
            !from.starts_with("text") || to.iter().all(|t| !t.starts_with("spec")),
            "{from} names {to:?}: src/text must not use crate::spec"
        );
    }
    // Depth-first search for a cycle.
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        stack: &mut Vec<String>,
    ) {
        if let Some(i) = stack.iter().position(|s| s == m) {
            panic!(
                "import cycle in src/text: {} -> {m}",
                stack[i..].join(" -> ")
            );
        }
        if done.contains(m) {
            return;
        }
        stack.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            visit(next, edges, done, stack);
        }
        stack.pop();
        done.insert(m.to_string());
    }
    let mut done = BTreeSet::new();
    for m in &modules {
        visit(m, &edges, &mut done, &mut Vec::new());
    }
    // The check sees the imports it is meant to see.
    let kit_users = edges
        .values()
        .filter(|to| to.iter().any(|t| t.starts_with("text::kit")))
        .count();
    assert!(kit_users >= 10, "{edges:#?}");
    assert!(
        edges["text::pythonic::llama_json"].contains("text::pythonic::call"),
        "{edges:#?}"
    );
    // And it reads `spec/`: the spec module builds on the text engines.
    assert!(edges["spec"].contains("text"), "{edges:#?}");
}
