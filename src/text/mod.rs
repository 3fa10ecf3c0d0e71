//! Text scanners: one per model-output syntax. They find tool calls written as text
//! inside a token stream (raw model output, or the `content` of an envelope format
//! whose server did not parse them) and share the response's call table with the
//! envelope decoder, so call indices stay dense across both.
//!
//! A scanner gets bytes (`feed`) and must be split-invariant: any chunking of the same
//! text gives the same merged events. Text is held back only while it could still be
//! the start of a call, bounded by [`Limits::max_held_bytes`](crate::Limits).
//!
//! # Layout: a folder per engine family, a small table per syntax
//!
//! | family (engine) | its syntaxes: a file each in the family's folder, e.g. |
//! | --- | --- |
//! | [`json`]: JSON call objects after a marker ([`JsonCalls`](json::JsonCalls)) | [`hermes`](json::hermes), [`command_r`](json::command_r), [`granite`](json::granite), [`inkling`](json::inkling), ... |
//! | [`json::mistral`]: its own scanner on the family's list reader | `mistral` (`[TOOL_CALLS]`, v11 `name[ARGS]`) |
//! | [`xml`]: XML parameters ([`XmlCalls`](xml::XmlCalls)) | [`qwen_xml`](xml::qwen_xml), [`glm`](xml::glm), [`minimax`](xml::minimax), [`deepseek_dsml`](xml::deepseek_dsml), ... |
//! | [`sections`]: special-token sections with a head per call ([`Sections`](sections::Sections)) | [`deepseek`](sections::deepseek), [`kimi_k2`](sections::kimi_k2), ... |
//! | [`pythonic`]: pythonic call lists, bare or in sentinels ([`Pythonic`](pythonic::Pythonic)) | [`llama`](pythonic::llama) (`llama-pythonic`), [`lfm2`](pythonic::lfm2), [`olmo3`](pythonic::olmo3) |
//! | [`pythonic::llama_json`]: Llama 3's bare JSON calls and `<\|python_tag\|>` (its built-in calls run on the pythonic family's [`PyCall`](pythonic::call::PyCall)) | `llama-json` |
//! | [`gemma`]: Gemma-style bare-key objects ([`Gemma`](gemma::Gemma)) | [`gemma4`](gemma::gemma4), [`functiongemma`](gemma::functiongemma) |
//! | [`harmony`]: gpt-oss channels, its own engine | `harmony` |
//! | [`auto`]: detects the syntax from the first markers, then hands over | `auto` |
//!
//! `toolstream formats` lists them all (its lines are the rows' `about`).
//!
//! Each table-driven engine has one table type, named in the table below; a built-in's
//! table is a `const` of its syntax's file, a spec's the same type built at run time.
//! An engine holds its table as a [`Shared`](kit::table::Shared) handle: a built-in's
//! borrowed (`&'static`), a spec's behind an `Arc` that every parser built from the spec
//! shares; no scanner copies its table.
//!
//! | engine | table type |
//! | --- | --- |
//! | [`JsonCalls`](json::JsonCalls) | [`json::Table`] |
//! | [`XmlCalls`](xml::XmlCalls) | [`xml::Table`] |
//! | [`Sections`](sections::Sections) | [`sections::Tokens`] |
//! | [`Pythonic`](pythonic::Pythonic) | [`pythonic::Frame`] |
//! | [`Gemma`](gemma::Gemma) | [`gemma::Dialect`] |
//!
//! Every format of the table-driven families is also a spec file (`toolstream spec
//! NAME`, the `spec` module): the spec compiles to the same table. Four have their own
//! code, each for a reason its module doc gives: `mistral` (v11's `name[ARGS]{..}` is a
//! name and a bare arguments value per `[TOOL_CALLS]`, no call object a JSON table
//! reads), `llama-json` (marker-less: a call may begin at any `{`, recognised by its
//! members, plus the `<|python_tag|>` code interpreter), `harmony` (a sequence of
//! messages whose headers route each to text, reasoning or a call) and `auto` (no
//! syntax of its own: it picks one).
//!
//! # The registry: one row per syntax
//!
//! Each syntax's file exports its [`Row`](row::Row) (`pub(crate) const ROW`): its
//! [`Format`], name, the vLLM / SGLang parser names it answers to, its line in `toolstream
//! formats`, its engine with its table (the table holds its reasoning pair and dropped
//! tokens), and the patterns `auto` detects it by, each with a rank. Nothing lists the
//! syntaxes by hand: `build.rs` finds every file under `src/text` that exports a `ROW`
//! and writes the family's `mod` declarations, [`SYNTAXES`] (sorted by name, `auto`
//! last), the syntaxes' [`Format`] variants (each documented by its row's doc comment) and
//! the crate docs' table rows, and the `text` test binary's declarations of the syntaxes'
//! test files with their fixture lists. Everything else reads [`SYNTAXES`]: [`Format`]'s
//! names, aliases and descriptions (`toolstream formats`), `auto`'s detection,
//! [`TextScanner::with_options`] (a row's engine → its scanner, written once in
//! [`TextScanner::of_table`] for the table-driven engines) and `toolstream spec`
//! ([`Syntax::builtin`](crate::Syntax::builtin) takes the row's table). Nothing in `text`
//! names the `spec` module: a spec's regions engine plugs in as a [`Scan`].
//!
//! ## Adding a syntax
//!
//! For a syntax one of the table-driven engines reads, four files, no list:
//!
//! 1. **Its table file**, `src/text/<family>/<syntax>.rs`: a module doc (the syntax as the
//!    model writes it, its quirks, where it was checked: the model's chat template or
//!    card, the peers' parsers), its table, a `const` of the engine's table type (strings
//!    `Borrowed("..")`, lists [`list!`](kit::table::list)`[..]` with
//!    [`tok`](kit::table::tok) / [`pair`](kit::table::pair) inside, the family's helpers
//!    such as [`json::opener`]; an XML table takes the fields it leaves plain from
//!    [`xml::PLAIN`], or another syntax's, with `..`), and its `ROW`: its doc comment is
//!    the public [`Format`] variant's doc, `format: Format::<Variant>,` on one line names
//!    that variant (which `build.rs` adds), then its name, aliases, the one-line
//!    description, `Builtin::<Engine>(&TABLE)`, its detection patterns with ranks that put
//!    a longer pattern before one it begins with, and its `example`: its call of
//!    `write_file` as a template (`{prose}`, `{call}`, then `{args}`, `{content}` or `{py}`;
//!    see [`Row::example`](row::Row::example)), from which the benchmark and allocation
//!    workloads are rendered and which `tests/alloc.rs` parses, so nothing in `benches/`
//!    or `tests/` changes for a new syntax. Everything a syntax needs beyond markers
//!    (`command-r`'s citations, `inkling`'s message header, DSML's other spellings) is a
//!    field of its table: no code of its own.
//! 2. **Its test file**, `tests/text/<family>/<syntax>.rs` (the same path under `tests/text`;
//!    without it the `text` test binary does not compile, naming the file): a
//!    `pub(crate) fn universal()` answering every universal case
//!    (`tests/text/rules/universal.rs` lists them: a sample with its events, known-broken
//!    with a reason, or not applicable), run whole, byte by byte, at every split and at
//!    random splits against the one-shot oracle by the shared harness; its spec equal to
//!    its built-in.
//! 3. **A sample stream**, `samples/<name>.txt` (`tests/samples.rs` fails without it).
//! 4. **A row** in docs/formats.md's formats table (`tests/docs.rs` fails without it).
//!
//! No match arm, no list in `auto`, `spec`, `format.rs`, the family's `mod.rs` or the
//! tests changes besides these.
//!
//! Code two engines share lives in [`kit`] (its module doc maps which engine uses
//! what); a family's own shared code lives in its `mod.rs`. Imports never run in a
//! circle: a syntax table imports its engine and [`row`], an engine imports [`kit`] (and
//! `llama-json` the pythonic family's call walker, `mistral` the JSON family's list
//! reader); only this module lists the rows, and only [`auto`] builds scanners
//! through it.
//!
//! All but harmony and the byte-level marker-less engines (`pythonic`, `llama-json`)
//! run their text through the [`reasoning`] stage (`pythonic` and `auto` run a reasoning
//! block through it) (`<think>` tags, whitespace
//! before markers, end-of-turn tokens), and find markers with
//! [`scan::marker`](crate::scan::marker): invalid UTF-8 in text becomes U+FFFD, a
//! marker (or a character) split across chunks is held, and released verbatim the
//! moment it cannot be one.
//!
//! Rules every scanner keeps (tests in `tests/text/rules/edges.rs` run them over every text
//! format):
//!
//! - **A call error carries the model's bytes.** When a call cannot be completed
//!   (malformed, cut off by the end of input), its `Error` (with its `index` once the
//!   Start was emitted) carries in `raw` the model's own bytes of that call, unchanged:
//!   from its first marker byte — its own opening marker (`<tool_call>`,
//!   `<｜tool▁call▁begin｜>`, `<|channel|>`, `[TOOL_CALLS]` of a v11 call), or, where one
//!   marker opens a list of calls, that marker for the list's first call (`[TOOL_CALLS][`,
//!   `<|python_tag|>`, a pythonic or JSON list's `[`, a bare JSON call's `{`) and a later
//!   call's own first byte (its `{`, its name) — through the call's end (its closing
//!   marker or bracket) or the end of the input, up to `max_argument_bytes` (cut on a
//!   character boundary, the rest counted in the message). Never converted JSON.
//! - **Call-introducing tokens are markers.** A special token that introduces a call
//!   (`<|python_tag|>` or `<|python_start|>` before a pythonic list, `<|tool_call_start|>`,
//!   `<function_calls>`) is consumed with the call, never emitted as text; one that no
//!   call follows is text, byte for byte.
//! - **A stray closing reasoning tag is text** unless `reasoning_open` declared the block
//!   open (then everything before it is reasoning); see [`reasoning`].

use std::borrow::Cow;

use crate::calls::Calls;
use crate::event::{EventRef, EventSink};
use crate::format::Format;
use crate::limits::Limits;
use crate::text::kit::util::{CharInput, ReadsChars};

pub(crate) mod auto;
pub(crate) mod gemma;
pub(crate) mod harmony;
pub(crate) mod json;
pub(crate) mod kit;
pub(crate) mod pythonic;
pub(crate) mod row;
pub(crate) mod sections;
pub(crate) mod xml;

// The paths the rest of the crate uses (`parser.rs`, `provider/`).
pub(crate) use kit::options::TextOptions;
pub(crate) use kit::reasoning;

/// A text scanner whose engine is defined outside this module (so `text` never names
/// the modules that build on it): the regions engine of syntax specs.
pub(crate) trait Scan: std::fmt::Debug + Send + Sync {
    /// Scans the next bytes of model output.
    fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink);
    /// End of the text: release what is held, report an unfinished call.
    fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink);
    /// Bytes held back.
    fn retained(&self) -> usize;
}

/// A scanner for one text syntax.
#[derive(Debug)]
pub(crate) enum TextScanner {
    /// No call syntax: text passes through (UTF-8 boundaries held).
    Plain(Plain),
    /// The XML-parameter syntaxes (`qwen-xml`, `seed-oss`, `glm`, `minimax`,
    /// `deepseek-dsml`): one scanner, an [`xml::Table`] each.
    Xml(Box<xml::XmlCalls>),
    /// `[TOOL_CALLS][{..}]` and `[TOOL_CALLS]name[ARGS]{..}`.
    Mistral(Box<json::mistral::Mistral>),
    /// `<｜tool▁call▁begin｜>..<｜tool▁sep｜>..<｜tool▁call▁end｜>` (V3, V3.1).
    Sections(Box<sections::Sections>),
    /// gpt-oss harmony: `<|channel|>commentary to=functions.name<|message|>{..}<|call|>`.
    Harmony(Box<harmony::Harmony>),
    /// Pythonic calls `[f(a=1), g()]`: Llama 3.2 / 4, and framed by markers (`lfm2`,
    /// `olmo3`).
    Pythonic(Box<pythonic::Pythonic>),
    /// Llama bare JSON calls and `<|python_tag|>`.
    LlamaJson(Box<pythonic::llama_json::LlamaJson>),
    /// Syntax detected from the first markers.
    Auto(Box<auto::Auto>),
    /// Gemma 4: `<|tool_call>call:name{k:<|"|>v<|"|>}<tool_call|>`.
    Gemma(Box<gemma::Gemma>),
    /// JSON call objects after a marker (`hermes`, `command-r`, `granite`, ...): one
    /// scanner driven by a [`json::Table`] (a built-in's `const` or a syntax spec's).
    JsonCalls(Box<json::JsonCalls>),
    /// A syntax spec's scanner behind its start anchor.
    Anchored(Box<Anchored>),
    /// A scanner whose engine lives outside this module: a syntax spec's with
    /// regular-expression delimiters (`spec/regions.rs`).
    Other(Box<dyn Scan>),
}

impl TextScanner {
    /// The scanner for a text format; `None` for envelope formats.
    #[allow(dead_code)]
    pub(crate) fn new(format: Format, limits: &Limits) -> Option<Self> {
        Self::with_options(format, limits, &TextOptions::default())
    }

    /// The scanner for a text format with options; `None` for envelope formats. Built
    /// from the format's registry [`Row`](row::Row).
    pub(crate) fn with_options(
        format: Format,
        limits: &Limits,
        options: &TextOptions,
    ) -> Option<Self> {
        let builtin = syntax(format)?.engine;
        Some(match builtin {
            row::Builtin::Mistral => TextScanner::Mistral(Box::new(json::mistral::Mistral::new(
                limits,
                &options.reasoning,
            ))),
            row::Builtin::Harmony => {
                TextScanner::Harmony(Box::new(harmony::Harmony::new(limits, &options.reasoning)))
            }
            row::Builtin::LlamaJson => TextScanner::LlamaJson(Box::new(
                pythonic::llama_json::LlamaJson::new(limits, options),
            )),
            row::Builtin::Auto => TextScanner::Auto(Box::new(auto::Auto::new(limits, options))),
            _ => Self::of_table(builtin.table()?, limits, options),
        })
    }

    /// The scanner of a table-driven engine with its table (a built-in's or a syntax
    /// spec's).
    pub(crate) fn of_table(table: row::Table, limits: &Limits, options: &TextOptions) -> Self {
        match table {
            row::Table::Json(t) => TextScanner::JsonCalls(Box::new(json::JsonCalls::with_table(
                t,
                limits,
                &options.reasoning,
            ))),
            row::Table::Xml(t) => {
                TextScanner::Xml(Box::new(xml::XmlCalls::with_table(t, limits, options)))
            }
            row::Table::Gemma(d) => {
                TextScanner::Gemma(Box::new(gemma::Gemma::new(d, limits, &options.reasoning)))
            }
            row::Table::Pythonic(f) => {
                TextScanner::Pythonic(Box::new(pythonic::Pythonic::framed(f, limits, options)))
            }
            row::Table::Sections(t) => TextScanner::Sections(Box::new(
                sections::Sections::with_tokens(t, limits, &options.reasoning),
            )),
        }
    }

    /// Tells the scanner whether non-whitespace text was already emitted before its
    /// first byte (for `calls_at_start_only` when `auto` hands over).
    pub(crate) fn set_text_seen(&mut self, seen: bool) {
        match self {
            TextScanner::Plain(_)
            | TextScanner::Xml(_)
            | TextScanner::Mistral(_)
            | TextScanner::Sections(_)
            | TextScanner::Harmony(_)
            | TextScanner::Gemma(_)
            | TextScanner::JsonCalls(_)
            | TextScanner::Other(_) => {}
            TextScanner::Pythonic(s) => s.set_text_seen(seen),
            TextScanner::LlamaJson(s) => s.set_text_seen(seen),
            TextScanner::Auto(s) => s.set_text_seen(seen),
            TextScanner::Anchored(s) => s.inner.set_text_seen(seen),
        }
    }

    /// A pass-through scanner (text only).
    #[allow(dead_code)]
    pub(crate) fn plain() -> Self {
        TextScanner::Plain(Plain::default())
    }

    /// Scans the next bytes of model output.
    ///
    /// Always inlined: the match is the per-feed dispatch, and a call to it costs
    /// ~15 instructions per feed (+5 % on prose in 4-byte feeds when the compiler
    /// stopped inlining it).
    #[inline(always)]
    pub(crate) fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        match self {
            TextScanner::Plain(p) => p.feed(bytes, calls, out),
            TextScanner::Xml(s) => s.feed(bytes, calls, out),
            TextScanner::Mistral(s) => s.feed(bytes, calls, out),
            TextScanner::Sections(s) => s.feed(bytes, calls, out),
            TextScanner::Harmony(s) => s.feed(bytes, calls, out),
            TextScanner::Pythonic(s) => s.feed(bytes, calls, out),
            TextScanner::LlamaJson(s) => s.feed(bytes, calls, out),
            TextScanner::Auto(s) => s.feed(bytes, calls, out),
            TextScanner::Gemma(s) => s.feed(bytes, calls, out),
            TextScanner::JsonCalls(s) => s.feed(bytes, calls, out),
            TextScanner::Anchored(s) => s.feed(bytes, calls, out),
            TextScanner::Other(s) => s.feed(bytes, calls, out),
        }
    }

    /// End of the text: release what is held, report an unfinished call.
    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        match self {
            TextScanner::Plain(p) => p.finish(calls, out),
            TextScanner::Xml(s) => s.finish(calls, out),
            TextScanner::Mistral(s) => s.finish(calls, out),
            TextScanner::Sections(s) => s.finish(calls, out),
            TextScanner::Harmony(s) => s.finish(calls, out),
            TextScanner::Pythonic(s) => s.finish(calls, out),
            TextScanner::LlamaJson(s) => s.finish(calls, out),
            TextScanner::Auto(s) => s.finish(calls, out),
            TextScanner::Gemma(s) => s.finish(calls, out),
            TextScanner::JsonCalls(s) => s.finish(calls, out),
            TextScanner::Anchored(s) => s.finish(calls, out),
            TextScanner::Other(s) => s.finish(calls, out),
        }
    }

    /// Bytes held back.
    pub(crate) fn retained(&self) -> usize {
        match self {
            TextScanner::Plain(p) => p.input.held(),
            TextScanner::Xml(s) => s.retained(),
            TextScanner::Mistral(s) => s.retained(),
            TextScanner::Sections(s) => s.retained(),
            TextScanner::Harmony(s) => s.retained(),
            TextScanner::Pythonic(s) => s.retained(),
            TextScanner::LlamaJson(s) => s.retained(),
            TextScanner::Auto(s) => s.retained(),
            TextScanner::Gemma(s) => s.retained(),
            TextScanner::JsonCalls(s) => s.retained(),
            TextScanner::Anchored(s) => s.retained(),
            TextScanner::Other(s) => s.retained(),
        }
    }
}

include!(concat!(env!("OUT_DIR"), "/syntaxes.rs"));

/// The registry row of a text format (`None` for provider formats).
pub(crate) fn syntax(format: Format) -> Option<&'static row::Row> {
    SYNTAXES.iter().copied().find(|r| r.format == format)
}

/// A syntax spec's start anchor in front of its scanner: when the input begins with
/// an anchor (the longest that matches), those bytes are skipped (a server that echoes
/// the end of the prompt); otherwise every byte goes to the scanner. Bytes are held only
/// while they could still be an anchor.
#[derive(Debug)]
pub(crate) struct Anchored {
    anchors: Vec<Cow<'static, str>>,
    /// The input's first bytes while they could still be an anchor; `None`: decided.
    held: Option<Vec<u8>>,
    inner: TextScanner,
}

impl Anchored {
    pub(crate) fn new(anchors: Vec<Cow<'static, str>>, inner: TextScanner) -> Self {
        Anchored {
            anchors,
            held: Some(Vec::new()),
            inner,
        }
    }

    /// The length of the longest anchor `held` begins with (0: none).
    fn skipped(&self, held: &[u8]) -> usize {
        self.anchors
            .iter()
            .filter(|a| held.starts_with(a.as_bytes()))
            .map(|a| a.len())
            .max()
            .unwrap_or(0)
    }

    fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        let Some(mut held) = self.held.take() else {
            self.inner.feed(bytes, calls, out);
            return;
        };
        for (i, &b) in bytes.iter().enumerate() {
            held.push(b);
            let longer = self
                .anchors
                .iter()
                .any(|a| a.len() > held.len() && a.as_bytes().starts_with(&held));
            if !longer {
                // Decided: skip the longest anchor the bytes begin with, if any.
                let from = self.skipped(&held);
                self.inner
                    .feed(held.get(from..).unwrap_or_default(), calls, out);
                self.inner
                    .feed(bytes.get(i + 1..).unwrap_or_default(), calls, out);
                return;
            }
        }
        self.held = Some(held);
    }

    fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        if let Some(held) = self.held.take() {
            let from = self.skipped(&held);
            self.inner
                .feed(held.get(from..).unwrap_or_default(), calls, out);
        }
        self.inner.finish(calls, out);
    }

    fn retained(&self) -> usize {
        self.held.as_ref().map_or(0, Vec::capacity) + self.inner.retained()
    }
}

/// Pass-through: text only.
#[derive(Debug, Default)]
pub(crate) struct Plain {
    input: CharInput,
}

impl ReadsChars for Plain {
    fn input(&mut self) -> &mut CharInput {
        &mut self.input
    }

    fn run_chars(&mut self, text: &str, _calls: &mut Calls, out: &mut dyn EventSink) {
        if !text.is_empty() {
            out.event(EventRef::Text { delta: text });
        }
    }
}

impl Plain {
    fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.run_held(calls, out);
    }
}
