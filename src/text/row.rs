//! The registry row a syntax's own file exports: everything the rest of the crate needs to
//! know about one text syntax, in one place. `toolstream formats` (its name, aliases and
//! line), [`Format`]'s names, `auto`'s detection (its markers), scanner construction and
//! `toolstream spec` (its engine and table) all read the rows listed in
//! [`SYNTAXES`](super::SYNTAXES); no other code maps a format to anything.
//!
//! A table-driven syntax's row names its engine with its table, a `const` of the
//! engine's one table type in the syntax's file (`Builtin::Json(&HERMES)`); a syntax spec
//! builds the same type at run time ([`Table`] holds either, as [`Shared`]).
//!
//! `build.rs` finds the rows (every file under `src/text` with a `pub(crate) const ROW`) and
//! writes the lists that name them; a row's doc comment is its public [`Format`] variant's
//! doc, and its `format: Format::<Variant>,` line names the variant `build.rs` adds.
//!
//! This module only defines the row's types: a syntax file imports it and its engine,
//! never the list (so imports run one way: the list names the syntax files, a syntax file
//! names its engine and this module).

use crate::format::Format;
use crate::text::kit::table::Shared;
use crate::text::{gemma, json, pythonic, sections, xml};

/// One text syntax: its names, its line in `toolstream formats`, the engine it runs on with
/// its table, and the markers `auto` detects it by.
#[derive(Debug)]
pub(crate) struct Row {
    /// The public format value.
    pub(crate) format: Format,
    /// The CLI name (lower-case, hyphenated).
    pub(crate) name: &'static str,
    /// Other names it is found by: the tool-call parser names of vLLM
    /// (`--tool-call-parser`) and SGLang whose syntax this one reads as it is (besides
    /// names that differ only by `_`). Matched like names: ASCII case, `_` and `-` alike.
    pub(crate) aliases: &'static [&'static str],
    /// One line saying what the syntax is (`toolstream formats`).
    pub(crate) about: &'static str,
    /// The engine and its table.
    pub(crate) engine: Builtin,
    /// The patterns `auto` picks this syntax by, each with its rank.
    pub(crate) detect: &'static [Detect],
    /// The syntax's example call, as a template: a model's turn that calls `write_file`
    /// with the arguments `{"path": "notes.txt", "content": CONTENT}`, written the way
    /// this syntax's models write it, with the text around it (a reasoning block, the
    /// turn's prose, end-of-turn tokens). The benchmark and test workloads are made from
    /// it (`benches/support/workloads.rs`, through
    /// [`testing::call_template`](crate::testing::call_template)), and a test parses every
    /// row's template, rendered, to exactly that one call.
    ///
    /// Literal text but for these placeholders, each exactly once, in this order:
    ///
    /// - `{prose}`: the turn's visible text (the workload's prose). The text before it, the
    ///   prose and the text after it up to `{call}` are each fed in 5-byte tokens.
    /// - `{call}`: where the call begins (it renders as nothing). Everything after it is the
    ///   call, fed in the workload's argument-sized tokens.
    /// - CONTENT, in the encoding the model writes it in, which is also how the scanner
    ///   keeps the call (`tests/alloc.rs`' retained bytes):
    ///   - `{args}`: the whole arguments object as JSON text (the JSON families, `mistral`,
    ///     `harmony`, `llama-json`, the sections): the call table reads the arguments
    ///     from the model's raw text;
    ///   - `{content}`: CONTENT as it is (XML parameter values, Gemma's token-quoted
    ///     strings);
    ///   - `{py}`: CONTENT inside a Python single-quoted string (`\`, `'` and line breaks
    ///     escaped: `\\`, `\'`, `\n`).
    ///
    ///   With `{content}` or `{py}` the scanner converts the model's text to JSON as it
    ///   streams, and keeps both until the call ends.
    ///
    /// Any other `{` is literal (`{"name": "write_file", "arguments": {args}}`).
    pub(crate) example: &'static str,
}

/// The engine a built-in syntax runs on, with its table: a `const` of the syntax's file,
/// of the engine's one table type, borrowed (`&'static`; [`Builtin::table`] hands it to
/// the engine as [`Shared::Static`], never a copy).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Builtin {
    /// JSON call objects after a marker ([`json::JsonCalls`]).
    Json(&'static json::Table),
    /// XML parameters ([`xml::XmlCalls`]).
    Xml(&'static xml::Table),
    /// Bare-key objects with token-quoted strings ([`gemma::Gemma`]).
    Gemma(&'static gemma::Dialect),
    /// Pythonic call lists ([`pythonic::Pythonic`]).
    Pythonic(&'static pythonic::Frame),
    /// Special-token sections with a head per call ([`sections::Sections`]).
    Sections(&'static sections::Tokens),
    /// `mistral`'s own scanner ([`json::mistral::Mistral`]): not table-driven.
    Mistral,
    /// `harmony`'s own scanner ([`crate::text::harmony::Harmony`]): not table-driven.
    Harmony,
    /// `llama-json`'s own scanner ([`pythonic::llama_json::LlamaJson`]): not
    /// table-driven.
    LlamaJson,
    /// `auto`: detects one of the others ([`crate::text::auto::Auto`]).
    Auto,
}

/// A table-driven engine with its table, as the scanner holds it ([`Shared`]: a
/// built-in's `const` borrowed, a spec's behind an `Arc`; never copied). What
/// [`TextScanner::of_table`](super::TextScanner::of_table) builds a scanner from, and
/// what a [`Syntax`](crate::Syntax) of a built-in holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Table {
    /// [`Builtin::Json`].
    Json(Shared<json::Table>),
    /// [`Builtin::Xml`].
    Xml(Shared<xml::Table>),
    /// [`Builtin::Gemma`].
    Gemma(Shared<gemma::Dialect>),
    /// [`Builtin::Pythonic`].
    Pythonic(Shared<pythonic::Frame>),
    /// [`Builtin::Sections`].
    Sections(Shared<sections::Tokens>),
}

impl Builtin {
    /// The table a table-driven engine runs; `None` for the engines with their own code.
    pub(crate) fn table(self) -> Option<Table> {
        Some(match self {
            Builtin::Json(t) => Table::Json(Shared::Static(t)),
            Builtin::Xml(t) => Table::Xml(Shared::Static(t)),
            Builtin::Gemma(d) => Table::Gemma(Shared::Static(d)),
            Builtin::Pythonic(f) => Table::Pythonic(Shared::Static(f)),
            Builtin::Sections(t) => Table::Sections(Shared::Static(t)),
            Builtin::Mistral | Builtin::Harmony | Builtin::LlamaJson | Builtin::Auto => {
                return None;
            }
        })
    }
}

/// One detection pattern of a syntax: `auto` tries the patterns of every syntax by rank,
/// lowest first; a pattern that matches waits while one of lower rank may still match.
/// So a pattern that begins with another's bytes ranks before it
/// (`<tool_call>` ws* `<function=` of `qwen-xml` before `<tool_call>` of `hermes`).
/// Ranks are unique (a test checks); the built-ins are spaced by 10.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Detect {
    /// Lower first.
    pub(crate) rank: u16,
    /// The pattern; it begins with a literal whose first byte is one of `<`, `[`, `{`,
    /// `f`, `]` (the bytes `auto` looks for; a test checks).
    pub(crate) pattern: &'static [Tok<'static>],
}

/// One step of a detection pattern.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Tok<'a> {
    /// These bytes exactly.
    Lit(&'a [u8]),
    /// Zero or more JSON whitespace bytes.
    Ws,
    /// One or more name bytes (`[A-Za-z0-9_.-]`), at most `auto`'s `MAX_IDENT`.
    Ident,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::SYNTAXES;

    #[test]
    fn ranks_are_unique_and_patterns_begin_with_a_byte_auto_looks_for() {
        let mut ranks: Vec<u16> = SYNTAXES
            .iter()
            .flat_map(|r| r.detect.iter().map(|d| d.rank))
            .collect();
        let n = ranks.len();
        ranks.sort_unstable();
        ranks.dedup();
        assert_eq!(ranks.len(), n, "two patterns share a rank");
        for r in SYNTAXES {
            for d in r.detect {
                let first = match d.pattern.first() {
                    Some(Tok::Lit(l)) => l.first().copied(),
                    _ => None,
                };
                assert!(
                    matches!(first, Some(b'<' | b'[' | b'{' | b'f' | b']')),
                    "{}: pattern of rank {} begins with {first:?}",
                    r.name,
                    d.rank
                );
            }
        }
    }

    #[test]
    fn every_row_is_one_format_and_its_engine_is_what_its_name_says() {
        for (i, r) in SYNTAXES.iter().enumerate() {
            assert!(
                SYNTAXES
                    .iter()
                    .skip(i + 1)
                    .all(|o| o.format != r.format && o.name != r.name),
                "{} listed twice",
                r.name
            );
            let own = matches!(
                r.engine,
                Builtin::Mistral | Builtin::Harmony | Builtin::LlamaJson | Builtin::Auto
            );
            assert_eq!(r.engine.table().is_none(), own, "{}", r.name);
            assert!(!r.about.is_empty(), "{}", r.name);
        }
        let mut own: Vec<&str> = SYNTAXES
            .iter()
            .filter(|r| r.engine.table().is_none())
            .map(|r| r.name)
            .collect();
        own.sort_unstable();
        assert_eq!(own, ["auto", "harmony", "llama-json", "mistral"]);
        // `build.rs` lists them by name, `auto` (which picks among the others) last.
        let names: Vec<&str> = SYNTAXES.iter().map(|r| r.name).collect();
        let mut sorted = names[..names.len() - 1].to_vec();
        sorted.sort_unstable();
        assert_eq!(names[..names.len() - 1], sorted[..]);
        assert_eq!(names.last(), Some(&"auto"));
    }

    /// Each row's example has `{prose}`, `{call}` and one content placeholder, once each
    /// and in that order (`tests/alloc.rs` parses them rendered).
    #[test]
    fn every_example_has_its_placeholders_in_order() {
        for r in SYNTAXES {
            let at = |p: &str| {
                assert_eq!(r.example.matches(p).count(), 1, "{}: {p}", r.name);
                r.example.find(p)
            };
            let contents: Vec<&str> = ["{args}", "{content}", "{py}"]
                .into_iter()
                .filter(|p| r.example.contains(p))
                .collect();
            assert_eq!(contents.len(), 1, "{}: {contents:?}", r.name);
            let (prose, call, content) = (at("{prose}"), at("{call}"), at(contents[0]));
            assert!(prose < call && call < content, "{}: order", r.name);
        }
    }

    /// SGLang's `--tool-call-parser` names (its `ToolCallParserEnum`) for syntaxes read here,
    /// each checked against its detector: `apertus2509` (Apertus' name-keyed list),
    /// `deepseekv3` / `deepseekv31` (the special-token sections), `deepseekv32` / `deepseekv4`
    /// (DSML), `gpt-oss` (harmony), `llama3` (Llama 3.2's `<|python_tag|>` JSON), `qwen`,
    /// `qwen25` and `trinity` (Qwen 2.5's `<tool_call>` JSON; Trinity's inside `<think>` too),
    /// `spark25` (GLM's `<arg_key>` body), `interns1` (InternLM's `<|action_start|>`).
    #[test]
    fn sglang_parser_names_are_aliases() {
        for (name, format) in [
            ("apertus2509", Format::Apertus),
            ("deepseekv3", Format::DeepSeek),
            ("deepseekv31", Format::DeepSeek),
            ("deepseekv32", Format::DeepSeekDsml),
            ("deepseekv4", Format::DeepSeekDsml),
            ("gpt-oss", Format::Harmony),
            ("llama3", Format::LlamaJson),
            ("qwen", Format::Hermes),
            ("qwen25", Format::Hermes),
            ("trinity", Format::Hermes),
            ("spark25", Format::Glm),
            ("interns1", Format::InternLm),
            // The names SGLang shares with a format's own name or a vLLM alias.
            ("kimi_k2", Format::KimiK2),
            ("minimax-m2", Format::MiniMax),
            ("qwen3_coder", Format::QwenXml),
            ("muse", Format::Muse),
        ] {
            assert_eq!(name.parse::<Format>().ok(), Some(format), "{name}");
        }
    }

    /// vLLM's parser names for syntaxes read here (issue 33), `_` and `-` alike:
    /// `deepseek_v4` / `deepseek_v41` (DSML), `llama4_json`, `mimo` and `step3p5`
    /// (vLLM runs both on its Qwen3 XML parser) (not `openai`, vLLM's harmony: see its row),
    /// `qwen3_json` (Qwen3's `<tool_call>` JSON), `granite_toolcall_parser`, `ling3` and
    /// `poolside_v1` (GLM's calls), `zaya_xml`, `muse_glimmer` (vLLM's and MAX's; SGLang
    /// says `muse`, the name), `ripple` (Ricursive Ripple: Hermes' `<tool_call>` JSON).
    #[test]
    fn vllm_parser_names_are_aliases() {
        for (name, format) in [
            ("deepseek_v4", Format::DeepSeekDsml),
            ("deepseek_v41", Format::DeepSeekDsml),
            ("llama4_json", Format::LlamaJson),
            ("mimo", Format::QwenXml),
            ("step3p5", Format::QwenXml),
            ("qwen3_json", Format::Hermes),
            ("granite_toolcall_parser", Format::Granite),
            ("ling3", Format::Glm),
            ("poolside_v1", Format::Glm),
            ("zaya_xml", Format::Zaya1),
            ("muse_glimmer", Format::Muse),
            ("ripple", Format::Hermes),
        ] {
            assert_eq!(name.parse::<Format>(), Ok(format), "{name}");
            assert_eq!(
                name.replace('_', "-").parse::<Format>(),
                Ok(format),
                "{name}"
            );
        }
    }
}
