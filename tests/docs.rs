//! The crate docs' format table and docs/formats.md list every format this build knows.

#![allow(clippy::unwrap_used, clippy::panic)]

/// The crate docs' format table: the provider formats' rows written in `src/lib.rs`, the
/// text syntaxes' written by `build.rs` from their rows (the table `src/lib.rs` includes).
#[test]
fn crate_docs_list_every_format() {
    let lib = include_str!("../src/lib.rs");
    let table = lib
        .split("//! ## Formats")
        .nth(1)
        .and_then(|t| t.split("//! ## ").next())
        .expect("a Formats section in src/lib.rs");
    assert!(
        table.contains(r#"#![doc = include_str!(concat!(env!("OUT_DIR"), "/syntax_table.md"))]"#),
        "src/lib.rs's format table includes the syntaxes' rows"
    );
    let syntaxes = include_str!(concat!(env!("OUT_DIR"), "/syntax_table.md"));
    for f in toolstream::Format::all() {
        let row = if f.default_framing() == toolstream::Framing::Text {
            syntaxes.contains(&format!(" | `{}` | text | ", f.name()))
        } else {
            table.contains(&format!("//! | `{}` |", f.name()))
        };
        assert!(
            row,
            "the crate docs' format table has no row for `{}`",
            f.name()
        );
    }
}

/// docs/formats.md, the formats reference the README links to, has a row for every format.
#[test]
fn formats_page_lists_every_format() {
    let page = include_str!("../docs/formats.md");
    for f in toolstream::Format::all() {
        assert!(
            page.contains(&format!("| `{}` |", f.name())),
            "docs/formats.md has no row for `{}`: add one to its table",
            f.name()
        );
    }
}

/// The README and the pages under `docs/` it links to, by path.
const PAGES: [(&str, &str); 7] = [
    ("README.md", include_str!("../README.md")),
    ("docs/events.md", include_str!("../docs/events.md")),
    ("docs/formats.md", include_str!("../docs/formats.md")),
    ("docs/specs.md", include_str!("../docs/specs.md")),
    ("docs/proxy.md", include_str!("../docs/proxy.md")),
    ("docs/servers.md", include_str!("../docs/servers.md")),
    ("docs/models.md", include_str!("../docs/models.md")),
];

/// The `sh` code blocks of the README and its docs pages, line by line.
fn readme_shell_lines() -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_sh = false;
    for line in PAGES.iter().flat_map(|(_, text)| text.lines()) {
        if line.starts_with("```") {
            in_sh = !in_sh && line == "```sh";
            continue;
        }
        if in_sh {
            lines.push(line.to_owned());
        }
    }
    lines
}

/// The README stays a ten-minute read: at most 3,000 words, the three uses and the proxy
/// linked from its first screen, every page under `docs/` linked from it, and every relative
/// link of the README and its pages names a file that exists.
#[test]
fn readme_is_short_and_its_links_resolve() {
    let readme = include_str!("../README.md");
    let words = readme.split_whitespace().count();
    assert!(words <= 3000, "README.md has {words} words (at most 3,000)");
    let first_screen: String = readme.lines().take(40).collect::<Vec<_>>().join("\n");
    for anchor in [
        "(#wrap-a-streaming-response)",
        "(#show-tool-calls-live)",
        "(#cancel-early)",
        "(#put-it-in-front-of-a-server)",
    ] {
        assert!(
            first_screen.contains(anchor),
            "the first screen lacks {anchor}"
        );
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            readme.contains(&format!("(docs/{name})")),
            "README.md does not link docs/{name}"
        );
    }
    for (page, text) in PAGES {
        let base = root.join(page).parent().unwrap().to_path_buf();
        for link in text.split("](").skip(1) {
            let target = link.split(')').next().unwrap_or_default();
            let file = target.split('#').next().unwrap_or_default();
            // Not a link: a target with no file name in it (`[link](url)` quoted in prose).
            if !file.contains('.') || file.contains("://") || file.contains(' ') {
                continue;
            }
            assert!(
                base.join(file).exists(),
                "{page} links {target}, which does not exist"
            );
        }
    }
}

#[test]
fn readme_starts_with_the_two_setup_commands_and_says_how_to_install() {
    let readme = include_str!("../README.md");
    let top = concat!(
        "# toolstream\n\n```sh\n",
        "cargo run --release            # the demo: a tool call rendered live as its bytes arrive\n",
        "cargo test --all-features      # the tests (recorded captures are read from ../shared/captures)\n",
        "```\n",
    );
    assert!(readme.starts_with(top), "the README's first lines changed");
    let install = readme
        .split("## Install")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("an Install section");
    for needed in [
        "cargo install --locked --path .",
        "[dependencies]",
        "pip install ./python",
    ] {
        assert!(install.contains(needed), "Install lacks `{needed}`");
    }
    assert!(readme.contains("TOOLSTREAM_CAPTURES"));
    // Every sample the README names exists.
    for word in readme.split(|c: char| c.is_whitespace() || c == '`' || c == '(' || c == ')') {
        if let Some(path) = word.strip_prefix("samples/").filter(|p| !p.is_empty()) {
            let path = path.trim_end_matches(['.', ',', ':']);
            assert!(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("samples")
                    .join(path)
                    .exists(),
                "README names samples/{path}, which does not exist"
            );
        }
    }
}

/// Copies the directory `from` (files and folders) to `to`.
#[cfg(feature = "cli")]
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, target).unwrap();
        }
    }
}

/// Every `toolstream ...` command in the README's shell blocks that runs offline (all but
/// `serve` and `proxy`, which serve until stopped) runs as printed from a directory holding the
/// repository's `samples/`, with the built binary first on `PATH` and no captures: exit
/// status 0 and no error event.
#[cfg(feature = "cli")]
#[test]
fn readme_commands_run_as_printed() {
    let exe = std::path::PathBuf::from(env!("CARGO_BIN_EXE_toolstream"));
    let bin_dir = exe.parent().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("readme-{}", std::process::id()));
    copy_dir(&root.join("samples"), &dir.join("samples"));
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let commands: Vec<String> = readme_shell_lines()
        .into_iter()
        .filter(|l| {
            l.starts_with("toolstream ")
                && !l.starts_with("toolstream serve")
                && !l.starts_with("toolstream proxy")
        })
        .collect();
    assert!(commands.len() >= 6, "{commands:?}");
    for command in &commands {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(&dir)
            .env("PATH", &path)
            .env_remove("TOOLSTREAM_CAPTURES")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "`{command}` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!stdout.trim().is_empty(), "`{command}` printed nothing");
        assert!(
            !stdout.contains("\"type\":\"error\"") && !stdout.contains("error ("),
            "`{command}` gave an error event: {stdout}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// docs/specs.md's worked example: its spec, read by `parse --syntax`, turns its model
/// output into exactly the events it shows, and so does the library at every chunking.
#[cfg(feature = "cli")]
#[test]
fn readme_spec_example_gives_the_events_it_shows() {
    let section = include_str!("../docs/specs.md");
    let block = |lang: &str, nth: usize| -> String {
        section
            .split(&format!("```{lang}\n"))
            .nth(nth)
            .and_then(|b| b.split("```").next())
            .unwrap_or_else(|| panic!("```{lang} block {nth} in Writing a spec"))
            .to_owned()
    };
    let spec = block("json", 1);
    let output = block("text", 1);
    let output = output.trim_end_matches('\n');
    let shown = block("json", 2);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("readme-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("my-model.json"), &spec).unwrap();
    std::fs::write(dir.join("output.txt"), output).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolstream"))
        .args(["parse", "--syntax", "my-model.json", "output.txt"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), shown);
    // The library, at every split, gives the same events.
    let syntax = toolstream::Syntax::from_json(&spec).unwrap();
    assert_eq!(syntax.name(), "my-model");
    let run = |cut: usize| {
        let mut p = toolstream::Parser::with_syntax(
            syntax.clone(),
            toolstream::ParserConfig::new().id_prefix("call_"),
        );
        let mut ev = Vec::new();
        let (a, b) = output.as_bytes().split_at(cut);
        p.feed(a, &mut ev).unwrap();
        p.feed(b, &mut ev).unwrap();
        p.finish(&mut ev).unwrap();
        toolstream::merge_deltas(&mut ev);
        ev
    };
    let whole = run(output.len());
    let lines: Vec<String> = whole
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    assert_eq!(lines.join("\n") + "\n", shown);
    for cut in 0..output.len() {
        assert_eq!(run(cut), whole, "split at {cut}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every table row in the crate's doc comments belongs to a table: a row that starts a
/// table is followed by its `| --- |` line (a stray row after a blank line renders with
/// literal pipes). Checks the source of `src/`, and the crate docs' feature list names
/// every cargo feature.
#[test]
fn doc_tables_have_no_stray_rows_and_the_feature_list_is_whole() {
    fn rs_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rs_files(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    rs_files(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut stray = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let docs: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                let t = l.trim_start();
                let doc = t
                    .strip_prefix("//!")
                    .or_else(|| t.strip_prefix("///"))
                    .map(str::trim);
                (i, doc.unwrap_or("\u{0}"))
            })
            .collect();
        // Inside a ``` block: diagrams, not tables.
        let mut code = false;
        for (k, (line, doc)) in docs.iter().enumerate() {
            if doc.starts_with("```") {
                code = !code;
            }
            if code {
                continue;
            }
            let row = |d: &str| d.starts_with('|');
            let previous = k.checked_sub(1).map(|p| docs[p].1).unwrap_or("");
            if row(doc) && !row(previous) {
                let next = docs.get(k + 1).map(|n| n.1).unwrap_or("");
                let separator = next.starts_with('|')
                    && next.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
                if !separator {
                    stray.push(format!("{}:{}", file.display(), line + 1));
                }
            }
        }
    }
    assert!(stray.is_empty(), "table rows outside a table: {stray:?}");

    let lib = include_str!("../src/lib.rs");
    let manifest = include_str!("../Cargo.toml");
    let features = manifest
        .split("[features]")
        .nth(1)
        .and_then(|f| f.split("\n[").next())
        .unwrap();
    for line in features.lines() {
        let Some((name, _)) = line.split_once(" = ") else {
            continue;
        };
        if name == "default" || name.starts_with('#') {
            continue;
        }
        assert!(
            lib.contains(&format!("//! - `{name}`")),
            "src/lib.rs's feature list has no `{name}`"
        );
    }
}

/// Every SKIPPED line a test prints says how to make the test run (in parentheses: a
/// command, a variable, a path), and goes to the real stderr in its own line (`visible`,
/// or a write to stderr, never `eprintln!`, which libtest captures and hides).
#[test]
fn every_skip_says_how_to_make_it_run() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests", "tests/common", "python/tests"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "rs" || x == "py") {
                files.push(path);
            }
        }
    }
    let mut bad = Vec::new();
    let mut seen = 0;
    for file in &files {
        if file.ends_with("tests/docs.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(at) = line.find("\"SKIPPED") else {
                continue;
            };
            seen += 1;
            // The message: from the opening quote to the statement's end (a few lines).
            let message: String = std::iter::once(&line[at..])
                .chain(lines.iter().skip(i + 1).take(3).copied())
                .collect::<Vec<_>>()
                .join(" ");
            let message = message.split(");").next().unwrap_or(&message);
            if !message.contains('(') {
                bad.push(format!("{}:{}: says no how", file.display(), i + 1));
            }
            let before = lines[i.saturating_sub(2)..=i].join(" ");
            if before.contains("eprintln!") {
                bad.push(format!(
                    "{}:{}: eprintln! is captured by libtest (use common::visible)",
                    file.display(),
                    i + 1
                ));
            }
        }
    }
    assert!(seen >= 20, "{seen} SKIPPED messages found");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The JSON Schema keywords a paragraph lists in backticks (`` `minItems` / `maxItems` ``,
/// `` `additionalProperties: false` ``), without the words around them that are not keywords.
fn keywords(text: &str) -> std::collections::BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|t| t.split([':', ' ']).next())
        .filter(|k| {
            !k.is_empty()
                && k.trim_start_matches('$')
                    .chars()
                    .all(|c| c.is_ascii_alphabetic())
                && !["integer", "false", "Tools"].contains(k)
        })
        .map(str::to_owned)
        .collect()
}

/// README's "Cancel early" lists the keywords checked while the arguments stream and those
/// not checked: the same two lists as the crate docs ("Catch a bad call while it streams").
#[test]
fn readme_lists_the_checked_keywords_of_the_crate_docs() {
    let lists = |text: &str, from: &str, to: &str| {
        let part = text
            .split(from)
            .nth(1)
            .and_then(|t| t.split(to).next())
            .unwrap_or_else(|| panic!("no `{from}` ... `{to}`"));
        let (checked, unchecked) = part.split_once("Not checked").expect("a Not checked list");
        (keywords(checked), keywords(unchecked))
    };
    let lib = include_str!("../src/lib.rs")
        .replace("\n//! ", "\n")
        .replace("\n//!", "\n");
    let readme = include_str!("../README.md");
    let (lib_checked, lib_unchecked) = lists(
        &lib,
        "Keywords checked as the bytes arrive",
        "Schemas are compiled",
    );
    let (readme_checked, readme_unchecked) = lists(
        readme,
        "Keywords checked as the bytes arrive",
        "The same list",
    );
    assert!(
        lib_checked.contains("enum") && lib_checked.contains("$ref"),
        "{lib_checked:?}"
    );
    assert!(lib_unchecked.contains("format"), "{lib_unchecked:?}");
    assert_eq!(
        readme_checked, lib_checked,
        "checked keywords: README vs src/lib.rs"
    );
    assert_eq!(
        readme_unchecked, lib_unchecked,
        "unchecked keywords: README vs src/lib.rs"
    );
}
