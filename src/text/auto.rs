//! `auto`: raw model output whose tool-call syntax is detected from its first markers.
//! Not a syntax of its own (so not a spec): it picks one of the others and hands over.
//!
//! Until a syntax is recognised, text passes through; only bytes that may still be the
//! start of a detection pattern are held (bounded), exactly like the marker-less rules
//! of the scanners themselves. The first pattern that matches picks the format: a
//! scanner for it is built with [`TextScanner::with_options`] and the held bytes (from
//! the pattern's first byte) and everything after are fed to it. The choice is never
//! revisited.
//!
//! Patterns, by priority (a pattern that matches waits while an earlier one may still
//! match):
//!
//! | pattern | format |
//! | --- | --- |
//! | `<tool_call>` ws* `<function=` | `qwen-xml` |
//! | `<tool_call>` name ws* `<arg_key>`, `<tool_call>` name ws* `</tool_call>` | `glm` |
//! | `<tool_call>` ws* `[` | `granite` (3.1+) |
//! | `<tool_call>` | `hermes` |
//! | `<minimax:tool_call>` | `minimax` |
//! | `<seed:tool_call>` | `seed-oss` |
//! | `<｜DSML｜function_calls>`, `<｜DSML｜tool_calls>`, `<｜DSML｜ calls>`, `<｜DSML｜ invoke name="`, `<｜DSML｜ tool_calls>`, `<｜DSML｜ call>`, `<｜DSML｜calls>`, `<｜DSML｜toolcalls>`, `<｜DSML｜tool>`, `<｜｜DSML｜｜` | `deepseek-dsml` |
//! | `<\|open\|>tools<\|sep\|>` | `kimi-k3` |
//! | `]<]minimax[>[<tool_call>` | `minimax-m3` |
//! | `[TOOL_CALLS]` | `mistral` |
//! | `<｜tool▁calls▁begin｜>`, `<｜tool▁call▁begin｜>` | `deepseek` |
//! | `<\|start\|>`, `<\|channel\|>` | `harmony` |
//! | `<\|python_tag\|>` ws* `[` ws* name `(` | `llama-pythonic` |
//! | `<\|python_start\|>` | `llama-pythonic` |
//! | `<\|python_tag\|>` | `llama-json` |
//! | `<\|tool_call_start\|>` | `lfm2` |
//! | `<function_calls>` | `olmo3` |
//! | `<\|tool_call>` | `gemma4` |
//! | `<start_function_call>` | `functiongemma` |
//! | `[` ws* `{` ws* `"name"` ws* `:` ws* `"` (an array of calls) | `llama-json` |
//! | `{` ws* `"name"` ws* `:` ws* `"` | `llama-json` |
//! | `{` ws* `"type"` ws* `:` ws* `"function"` | `llama-json` |
//! | `[` ws* name `(` | `llama-pythonic` |
//! | `<\|START_ACTION\|>` | `command-r` |
//! | `<\|tool_call\|>` | `granite` (Granite 4's `<tool_call>` reads as `hermes`: the same syntax) |
//! | `<tool_calls>` ws* `<tool_call>` name `<tool_sep>` | `hy-v3` |
//! | `<tool_calls:6124c78e>` ws* `<tool_call:6124c78e>` name `<tool_sep:6124c78e>` | `hy-v3` |
//! | `<tool_calls:6124c78e>` | `hy-v4` |
//! | `<tool_calls>` ws* `<tool_call>` | `hy-v4` |
//! | `<tool_calls>` | `jamba` (`hunyuan` writes the same; its `<answer>` tags stay text) |
//! | `<TOOLCALL>` | `nemotron` |
//! | `functools[` | `phi4-mini` |
//! | `<longcat_tool_call>` | `longcat` |
//! | `<\|action_start\|><\|plugin\|>` | `internlm` |
//! | `<\|tools_prefix\|>` | `apertus` |
//! | `function call<\|role_sep\|>`, `<\|function_call\|>` | `gigachat3` |
//! | `<\|tool_calls_section_begin\|>`, `<\|tool_call_begin\|>` | `kimi-k2` |
//! | `<｜GCML｜tool_calls>` | `gigachat35` |
//! | `<function name="` | `minicpm5` |
//! | `<｜tool_calls_begin｜>` | `step3` |
//! | `<\|content_invoke_tool_json\|>` | `inkling` |
//!
//! Each pattern starts with `<`, `[`, `{` or `f`. Detection uses the syntax only:
//! [`ParserConfig::tool_names`](crate::ParserConfig::tool_names) applies inside the detected
//! format. With nothing detected the output is text.
//!
//! Adding a syntax is one row of [`DETECT`] plus its arm in [`TextScanner::with_options`].
//!
//! # Reasoning before the syntax is known
//!
//! An opening reasoning tag (`<think>`, or the first tag of each pair of
//! [`ParserConfig::reasoning_tags`](crate::ParserConfig::reasoning_tags)) found by
//! detection, like a pattern, opens a block read by the kit's
//! [text stage](crate::text::kit::reasoning) until its closing tag: reasoning, with the
//! stage's rules (line breaks next to the tags dropped; a call marker inside is
//! reasoning, except Kimi K2's section markers, which end it as in `kimi-k2`). Then
//! detection goes on; the detected scanner starts outside reasoning. With
//! [`ParserConfig::reasoning_open`](crate::ParserConfig::reasoning_open) the output
//! starts inside such a block. So `auto` gives what the detected format gives for the
//! same bytes (`tests/text/rules/auto_reasoning.rs`). Detection does not look inside
//! reasoning: [`ParserConfig::calls_in_reasoning`](crate::ParserConfig::calls_in_reasoning)
//! applies once a syntax is detected. Reasoning tags of one syntax only (Magistral's
//! `[THINK]`, MiniMax M3's `<mm:think>`, harmony's channels) are that syntax's: before
//! it is detected they are text unless set in the options.

use crate::calls::Calls;
use crate::event::EventSink;
use crate::format::Format;
use crate::limits::Limits;
use crate::text::TextScanner;
use crate::text::kit::options::TextOptions;
use crate::text::kit::reasoning::{Block, THINK};
use crate::text::kit::util::{TextOut, is_name_byte, is_ws};

/// One step of a detection pattern.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Tok<'a> {
    /// These bytes exactly.
    Lit(&'a [u8]),
    /// Zero or more JSON whitespace bytes.
    Ws,
    /// One or more name bytes (`[A-Za-z0-9_.-]`), at most [`MAX_IDENT`].
    Ident,
}

/// Longest name a pattern's [`Tok::Ident`] accepts.
const MAX_IDENT: usize = 128;

/// Detection patterns and the format each picks, by priority.
pub(crate) const DETECT: &[(&[Tok<'static>], Format)] = &[
    (
        &[Tok::Lit(b"<tool_call>"), Tok::Ws, Tok::Lit(b"<function=")],
        Format::QwenXml,
    ),
    (
        &[
            Tok::Lit(b"<tool_call>"),
            Tok::Ident,
            Tok::Ws,
            Tok::Lit(b"<arg_key>"),
        ],
        Format::Glm,
    ),
    (
        &[
            Tok::Lit(b"<tool_call>"),
            Tok::Ident,
            Tok::Ws,
            Tok::Lit(b"</tool_call>"),
        ],
        Format::Glm,
    ),
    (
        &[Tok::Lit(b"<tool_call>"), Tok::Ws, Tok::Lit(b"[")],
        Format::Granite,
    ),
    (&[Tok::Lit(b"<tool_call>")], Format::Hermes),
    (&[Tok::Lit(b"<minimax:tool_call>")], Format::MiniMax),
    (&[Tok::Lit(b"<seed:tool_call>")], Format::SeedOss),
    (
        &[Tok::Lit("<｜DSML｜function_calls>".as_bytes())],
        Format::DeepSeekDsml,
    ),
    (
        &[Tok::Lit("<｜DSML｜tool_calls>".as_bytes())],
        Format::DeepSeekDsml,
    ),
    (
        &[Tok::Lit("<｜DSML｜ calls>".as_bytes())],
        Format::DeepSeekDsml,
    ),
    (
        &[Tok::Lit("<｜DSML｜ invoke name=\"".as_bytes())],
        Format::DeepSeekDsml,
    ),
    // The other wrapper spellings `deepseek-dsml` reads.
    (
        &[Tok::Lit("<｜DSML｜ tool_calls>".as_bytes())],
        Format::DeepSeekDsml,
    ),
    (
        &[Tok::Lit("<｜DSML｜ call>".as_bytes())],
        Format::DeepSeekDsml,
    ),
    (
        &[Tok::Lit("<｜DSML｜calls>".as_bytes())],
        Format::DeepSeekDsml,
    ),
    (
        &[Tok::Lit("<｜DSML｜toolcalls>".as_bytes())],
        Format::DeepSeekDsml,
    ),
    (
        &[Tok::Lit("<｜DSML｜tool>".as_bytes())],
        Format::DeepSeekDsml,
    ),
    (
        &[Tok::Lit("<｜｜DSML｜｜".as_bytes())],
        Format::DeepSeekDsml,
    ),
    (&[Tok::Lit(b"<|open|>tools<|sep|>")], Format::KimiK3),
    (&[Tok::Lit(b"]<]minimax[>[<tool_call>")], Format::MiniMaxM3),
    (&[Tok::Lit(b"[TOOL_CALLS]")], Format::Mistral),
    (
        &[Tok::Lit("<｜tool▁calls▁begin｜>".as_bytes())],
        Format::DeepSeek,
    ),
    (
        &[Tok::Lit("<｜tool▁call▁begin｜>".as_bytes())],
        Format::DeepSeek,
    ),
    (&[Tok::Lit(b"<|start|>")], Format::Harmony),
    (&[Tok::Lit(b"<|channel|>")], Format::Harmony),
    (
        &[
            Tok::Lit(b"<|python_tag|>"),
            Tok::Ws,
            Tok::Lit(b"["),
            Tok::Ws,
            Tok::Ident,
            Tok::Lit(b"("),
        ],
        Format::LlamaPythonic,
    ),
    (&[Tok::Lit(b"<|python_start|>")], Format::LlamaPythonic),
    (&[Tok::Lit(b"<|python_tag|>")], Format::LlamaJson),
    (&[Tok::Lit(b"<|tool_call_start|>")], Format::Lfm2),
    (&[Tok::Lit(b"<function_calls>")], Format::Olmo3),
    (&[Tok::Lit(b"<|tool_call>")], Format::Gemma4),
    (&[Tok::Lit(b"<start_function_call>")], Format::FunctionGemma),
    (
        // A JSON array of calls: its `[` is the call's first marker byte (`llama-json`
        // reads the array), not text.
        &[
            Tok::Lit(b"["),
            Tok::Ws,
            Tok::Lit(b"{"),
            Tok::Ws,
            Tok::Lit(b"\"name\""),
            Tok::Ws,
            Tok::Lit(b":"),
            Tok::Ws,
            Tok::Lit(b"\""),
        ],
        Format::LlamaJson,
    ),
    (
        &[
            Tok::Lit(b"{"),
            Tok::Ws,
            Tok::Lit(b"\"name\""),
            Tok::Ws,
            Tok::Lit(b":"),
            Tok::Ws,
            Tok::Lit(b"\""),
        ],
        Format::LlamaJson,
    ),
    (
        &[
            Tok::Lit(b"{"),
            Tok::Ws,
            Tok::Lit(b"\"type\""),
            Tok::Ws,
            Tok::Lit(b":"),
            Tok::Ws,
            Tok::Lit(b"\"function\""),
        ],
        Format::LlamaJson,
    ),
    (
        &[Tok::Lit(b"["), Tok::Ws, Tok::Ident, Tok::Lit(b"(")],
        Format::LlamaPythonic,
    ),
    (&[Tok::Lit(b"<|START_ACTION|>")], Format::CommandR),
    (&[Tok::Lit(b"<|tool_call|>")], Format::Granite),
    (
        &[
            Tok::Lit(b"<tool_calls>"),
            Tok::Ws,
            Tok::Lit(b"<tool_call>"),
            Tok::Ident,
            Tok::Lit(b"<tool_sep>"),
        ],
        Format::HyV3,
    ),
    (
        &[
            Tok::Lit(b"<tool_calls:6124c78e>"),
            Tok::Ws,
            Tok::Lit(b"<tool_call:6124c78e>"),
            Tok::Ident,
            Tok::Lit(b"<tool_sep:6124c78e>"),
        ],
        Format::HyV3,
    ),
    (&[Tok::Lit(b"<tool_calls:6124c78e>")], Format::HyV4),
    (
        &[Tok::Lit(b"<tool_calls>"), Tok::Ws, Tok::Lit(b"<tool_call>")],
        Format::HyV4,
    ),
    (&[Tok::Lit(b"<tool_calls>")], Format::Jamba),
    (&[Tok::Lit(b"<TOOLCALL>")], Format::Nemotron),
    (&[Tok::Lit(b"functools[")], Format::Phi4Mini),
    (&[Tok::Lit(b"<longcat_tool_call>")], Format::Longcat),
    (&[Tok::Lit(b"<|action_start|><|plugin|>")], Format::InternLm),
    (&[Tok::Lit(b"<|tools_prefix|>")], Format::Apertus),
    (&[Tok::Lit(b"function call<|role_sep|>")], Format::GigaChat3),
    (&[Tok::Lit(b"<|function_call|>")], Format::GigaChat3),
    (&[Tok::Lit(b"<|tool_calls_section_begin|>")], Format::KimiK2),
    (&[Tok::Lit(b"<|tool_call_begin|>")], Format::KimiK2),
    (
        &[Tok::Lit("<｜GCML｜tool_calls>".as_bytes())],
        Format::GigaChat35,
    ),
    (&[Tok::Lit(b"<function name=\"")], Format::MiniCpm5),
    (
        &[Tok::Lit(b"<|content_invoke_tool_json|>")],
        Format::Inkling,
    ),
    (
        &[Tok::Lit("<｜tool_calls_begin｜>".as_bytes())],
        Format::Step3,
    ),
];

/// Where the first byte that may start a pattern (`<`, `[`, `{`, `f`, `]`) is in `h`. One
/// pass (two searches bounded by each other could look at a byte many times).
fn pattern_start(h: &[u8]) -> Option<usize> {
    h.iter()
        .position(|b| matches!(b, b'<' | b'[' | b'{' | b'f' | b']'))
}

/// Per byte that may start a pattern, the patterns of [`DETECT`] that start with it (a
/// pattern opening with something other than a literal with every byte), in order.
fn starting() -> &'static [(u8, Vec<usize>)] {
    static STARTING: std::sync::OnceLock<Vec<(u8, Vec<usize>)>> = std::sync::OnceLock::new();
    STARTING.get_or_init(|| {
        [b'<', b'[', b'{', b'f', b']']
            .into_iter()
            .map(|first| {
                let ks =
                    DETECT
                        .iter()
                        .enumerate()
                        .filter_map(|(k, (toks, _))| match toks.first() {
                            Some(Tok::Lit(l)) if l.first() != Some(&first) => None,
                            _ => Some(k),
                        });
                (first, ks.collect())
            })
            .collect()
    })
}

/// Progress of one pattern over the held bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    /// At token `tok`, `n` bytes into it.
    At {
        tok: usize,
        n: usize,
    },
    Matched,
    Dead,
}

impl Row {
    fn step(self, toks: &[Tok<'_>], b: u8) -> Row {
        let Row::At { mut tok, mut n } = self else {
            return self;
        };
        loop {
            let Some(t) = toks.get(tok) else {
                return Row::Matched;
            };
            match *t {
                Tok::Lit(s) => {
                    if s.get(n) != Some(&b) {
                        return Row::Dead;
                    }
                    n += 1;
                    if n == s.len() {
                        tok += 1;
                        n = 0;
                        if tok == toks.len() {
                            return Row::Matched;
                        }
                    }
                    return Row::At { tok, n };
                }
                Tok::Ws => {
                    if is_ws(b) {
                        return Row::At { tok, n };
                    }
                    tok += 1;
                    n = 0;
                }
                Tok::Ident => {
                    if is_name_byte(b) && n < MAX_IDENT {
                        return Row::At { tok, n: n + 1 };
                    }
                    if n == 0 {
                        return Row::Dead;
                    }
                    tok += 1;
                    n = 0;
                }
            }
        }
    }
}

/// The `auto` scanner. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct Auto {
    inner: Option<TextScanner>,
    text: TextOut,
    /// Bytes since a possible pattern start.
    held: Vec<u8>,
    /// The patterns still followed from the held start (their index in [`DETECT`], in
    /// its order), each with its progress: a dead one is dropped at once, so each byte
    /// costs only the patterns it can still continue.
    /// Past [`DETECT`]'s rows: the opening reasoning tags, `DETECT.len() + k` for
    /// `tags[k]`.
    rows: Vec<(usize, Row)>,
    /// The opening reasoning tags (the options' or `<think>`).
    tags: Vec<String>,
    /// Their first bytes that start no pattern of [`DETECT`] (none for `<think>`).
    odd_starts: Vec<u8>,
    /// Inside a reasoning block before the syntax is known.
    think: Option<Box<Block>>,
    /// A reasoning block just closed: line breaks are dropped until other text.
    skip_nl: bool,
    limits: Limits,
    /// The detected scanner's options (`reasoning_open` is this scanner's: the
    /// detected one starts outside reasoning).
    options: TextOptions,
}

impl Auto {
    pub(crate) fn new(limits: &Limits, options: &TextOptions) -> Self {
        let tags = Block::opening_tags(&options.reasoning, THINK);
        let mut odd_starts: Vec<u8> = tags
            .iter()
            .filter_map(|t| t.bytes().next())
            .filter(|b| !matches!(b, b'<' | b'[' | b'{' | b'f' | b']'))
            .collect();
        odd_starts.sort_unstable();
        odd_starts.dedup();
        let mut inner = options.clone();
        inner.reasoning.open = false;
        let mut auto = Auto {
            inner: None,
            text: TextOut::holding_line_breaks(),
            held: Vec::new(),
            rows: Vec::with_capacity(DETECT.len() + 1),
            tags,
            odd_starts,
            think: None,
            skip_nl: false,
            limits: *limits,
            options: inner,
        };
        if options.reasoning.open {
            auto.think = Some(Box::new(auto.block(true)));
        }
        auto
    }

    /// Where the first byte that may start a pattern or an opening reasoning tag is.
    #[inline]
    fn pattern_start(&self, h: &[u8]) -> Option<usize> {
        if self.odd_starts.is_empty() {
            pattern_start(h)
        } else {
            h.iter().position(|b| {
                matches!(b, b'<' | b'[' | b'{' | b'f' | b']') || self.odd_starts.contains(b)
            })
        }
    }

    /// A reasoning block (`open`: the output starts inside it).
    fn block(&self, open: bool) -> Block {
        Block::new(
            &self.options.reasoning,
            THINK,
            reasoning_enders(),
            open,
            &self.limits,
        )
    }

    pub(crate) fn set_text_seen(&mut self, seen: bool) {
        match &mut self.inner {
            Some(s) => s.set_text_seen(seen),
            None => self.text.set_seen(seen),
        }
    }

    pub(crate) fn retained(&self) -> usize {
        match &self.inner {
            Some(s) => s.retained(),
            None => {
                self.held.len() + self.text.held() + self.think.as_ref().map_or(0, |t| t.retained())
            }
        }
    }

    /// The format detected so far, if any.
    #[allow(dead_code)]
    pub(crate) fn detected(&self) -> bool {
        self.inner.is_some()
    }

    pub(crate) fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        if let Some(s) = &mut self.inner {
            s.feed(bytes, calls, out);
            return;
        }
        self.scan(bytes, calls, out);
        if self.inner.is_none() {
            self.text.commit(out);
        }
    }

    /// Scans bytes while no format is detected; once one is, feeds it the rest.
    fn scan(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        // A reasoning block that closes hands back where the bytes after it begin (a
        // loop, not recursion: a feed may hold any number of blocks).
        let mut at = 0;
        while let Some(rest) = bytes.get(at..).filter(|r| !r.is_empty()) {
            match self.scan_part(rest, calls, out) {
                Some(n) => at += n,
                None => return,
            }
        }
    }

    /// [`scan`](Self::scan) up to the end of `bytes` (`None`), or up to the end of a
    /// reasoning block: then where the bytes after it begin.
    fn scan_part(
        &mut self,
        bytes: &[u8],
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Option<usize> {
        let mut i = 0;
        while let Some(mut rest) = bytes.get(i..).filter(|r| !r.is_empty()) {
            if let Some(s) = &mut self.inner {
                s.feed(rest, calls, out);
                return None;
            }
            if self.think.is_some() {
                return self.reason(rest, calls, out).map(|n| i + n);
            }
            if self.skip_nl && self.held.is_empty() {
                let n = rest
                    .iter()
                    .position(|b| !matches!(b, b'\n' | b'\r'))
                    .unwrap_or(rest.len());
                i += n;
                rest = rest.get(n..).unwrap_or_default();
                if rest.is_empty() {
                    return None;
                }
                self.skip_nl = false;
            }
            if self.held.is_empty() {
                let Some(p) = self.pattern_start(rest) else {
                    self.text.emit_last(rest, out);
                    return None;
                };
                self.text.emit(rest.get(..p).unwrap_or_default());
                i += p;
                // Only the patterns that start with this byte are followed.
                let first = rest.get(p).copied();
                self.rows.clear();
                let start = Row::At { tok: 0, n: 0 };
                if let Some((_, ks)) = starting().iter().find(|(b, _)| Some(*b) == first) {
                    self.rows.extend(ks.iter().map(|&k| (k, start)));
                }
                let tags = self.tags.iter().enumerate();
                self.rows.extend(tags.filter_map(|(k, t)| {
                    (t.as_bytes().first().copied() == first).then_some((DETECT.len() + k, start))
                }));
            }
            let Some(&b) = bytes.get(i) else { break };
            i += 1;
            match self.step(b) {
                Step::More => {}
                Step::Detected(Pick::Format(format)) => self.detect(format, calls, out),
                Step::Detected(Pick::Reasoning) => self.open_reasoning(out),
                Step::None => {
                    // No pattern from the held start: its first byte is text; another
                    // pattern may start later in the held bytes (`[[f(`).
                    let again = self.held.get(1..).and_then(|h| self.pattern_start(h));
                    let again = again.map(|p| p + 1);
                    match again {
                        None => {
                            self.text.emit(&self.held);
                            self.held.clear();
                        }
                        Some(p) => {
                            let held = std::mem::take(&mut self.held);
                            let (text, again) = held.split_at(p.min(held.len()));
                            self.text.emit(text);
                            // `again` is shorter than what was held: this ends.
                            self.scan(again, calls, out);
                        }
                    }
                }
            }
        }
        None
    }

    /// An opening reasoning tag (held) before the syntax is known: the block is
    /// reasoning up to its closing tag, as in the text stage of every marker syntax
    /// (the line breaks right before the tag are dropped).
    fn open_reasoning(&mut self, out: &mut dyn EventSink) {
        self.text.drop_line_breaks();
        self.text.flush(out);
        let mut block = self.block(false);
        block.start(&self.held, out);
        self.held.clear();
        self.think = Some(Box::new(block));
    }

    /// Bytes inside a reasoning block: `None` when the block takes them all, else where
    /// the bytes after it begin in `bytes`.
    fn reason(
        &mut self,
        bytes: &[u8],
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Option<usize> {
        let ended = self.think.as_mut()?.read(bytes, out)?;
        self.think = None;
        self.skip_nl = ended.closed;
        if !ended.again.is_empty() {
            // (No reasoning tag can start in them: this does not come back here.)
            self.scan(&ended.again, calls, out);
        }
        Some(ended.at)
    }

    /// Advances every pattern by one held byte. A matched pattern wins unless an
    /// earlier one may still match.
    fn step(&mut self, b: u8) -> Step {
        self.held.push(b);
        let mut alive = false;
        for (k, row) in self.rows.iter_mut() {
            // (One call of `Row::step`, so it stays inlined.)
            let tag;
            let (toks, pick): (&[Tok<'_>], Pick) = match DETECT.get(*k) {
                Some((toks, format)) => (toks, Pick::Format(*format)),
                None => match self.tags.get(*k - DETECT.len()) {
                    Some(t) => {
                        tag = [Tok::Lit(t.as_bytes())];
                        (&tag, Pick::Reasoning)
                    }
                    None => {
                        *row = Row::Dead;
                        continue;
                    }
                },
            };
            *row = row.step(toks, b);
            match *row {
                // (A match waits for the patterns before it that may still match.)
                Row::Matched if !alive => return Step::Detected(pick),
                Row::At { .. } => alive = true,
                _ => {}
            }
        }
        self.rows.retain(|(_, row)| *row != Row::Dead);
        if alive { Step::More } else { Step::None }
    }

    /// A format was detected: the held bytes go to its scanner.
    fn detect(&mut self, format: Format, calls: &mut Calls, out: &mut dyn EventSink) {
        self.text.flush(out);
        let mut scanner = TextScanner::with_options(format, &self.limits, &self.options)
            .unwrap_or_else(TextScanner::plain);
        scanner.set_text_seen(self.text.seen());
        let held = std::mem::take(&mut self.held);
        scanner.feed(&held, calls, out);
        self.inner = Some(scanner);
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        // A pattern that matched while an earlier one could still match: with the input
        // at its end, it wins (a bare `<tool_call>` at the end is `hermes`'s).
        if self.inner.is_none() && !self.held.is_empty() {
            let won = self.rows.iter().find(|(_, r)| *r == Row::Matched);
            match won.map(|(k, _)| DETECT.get(*k)) {
                Some(Some((_, format))) => self.detect(*format, calls, out),
                Some(None) => self.open_reasoning(out),
                None => {}
            }
        }
        if let Some(s) = &mut self.inner {
            s.finish(calls, out);
            return;
        }
        if let Some(think) = self.think.take() {
            think.finish(out);
        }
        let held = std::mem::take(&mut self.held);
        self.text.emit(&held);
        self.text.flush(out);
    }
}

/// The call markers that end reasoning in the syntax they pick (Kimi K2 may omit
/// `</think>` before its calls: [`TextStage::calls_end_reasoning`]): the same inside a
/// block `auto` reads before it knows the syntax.
fn reasoning_enders() -> &'static [&'static str] {
    static ENDERS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    ENDERS.get_or_init(|| {
        DETECT
            .iter()
            .filter(|(_, f)| *f == Format::KimiK2)
            .filter_map(|(toks, _)| match toks {
                [Tok::Lit(l)] => std::str::from_utf8(l).ok(),
                _ => None,
            })
            .collect()
    })
}

/// What a matched pattern picks.
#[derive(Debug, Clone, Copy)]
enum Pick {
    Format(Format),
    /// An opening reasoning tag.
    Reasoning,
}

enum Step {
    /// A pattern may still match.
    More,
    /// This pattern matched.
    Detected(Pick),
    /// No pattern can match from the held start.
    None,
}
