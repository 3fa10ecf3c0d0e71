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

/// The `sh` code blocks of the README, line by line.
fn readme_shell_lines() -> Vec<String> {
    let readme = include_str!("../README.md");
    let mut lines = Vec::new();
    let mut in_sh = false;
    for line in readme.lines() {
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
    std::fs::create_dir_all(dir.join("samples")).unwrap();
    for entry in std::fs::read_dir(root.join("samples")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join("samples").join(path.file_name().unwrap())).unwrap();
    }
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

/// The README's worked spec example ("Writing a spec"): its spec, read by `parse
/// --syntax`, turns its model output into exactly the events it shows, and so does the
/// library at every chunking.
#[cfg(feature = "cli")]
#[test]
fn readme_spec_example_gives_the_events_it_shows() {
    let readme = include_str!("../README.md");
    let section = readme
        .split("## Writing a spec")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a Writing a spec section");
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
