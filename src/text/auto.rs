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
//! The patterns are each syntax's own, in its registry row (its `detect` list, in the
//! syntax's file), tried by rank, lowest first: a pattern that matches waits while one of
//! lower rank may still match. Some of them, by rank:
//!
//! | pattern | format |
//! | --- | --- |
//! | `<tool_call>` ws* `<function=` | `qwen-xml` |
//! | `<tool_call>` name ws* `<arg_key>`, `<tool_call>` name ws* `</tool_call>` | `glm` |
//! | `<tool_call>` ws* `[` | `granite` (3.1+) |
//! | `<tool_call>` | `hermes` |
//! | `<\|python_tag\|>` ws* `[` ws* name | `llama-pythonic` |
//! | `<\|python_tag\|>` | `llama-json` |
//! | `[` ws* `{` ws* `"name"` ws* `:` ws* `"` (an array of calls) | `llama-json` |
//! | `[` ws* name `(` | `llama-pythonic` |
//! | `<\|tool_call\|>` | `granite` (Granite 4's `<tool_call>` reads as `hermes`: the same syntax) |
//! | `<tool_calls>` ws* `<tool_call>` name `<tool_sep>` | `hy-v3` |
//! | `<tool_calls>` ws* `<tool_call>` | `hy-v4` |
//! | `<tool_calls>` | `jamba` (`hunyuan` writes the same and has no pattern; its `<answer>` tags stay text) |
//!
//! Each pattern starts with `<`, `[`, `{`, `f` or `]` (a test checks). Detection uses the syntax only:
//! [`ParserConfig::tool_names`](crate::ParserConfig::tool_names) applies inside the detected
//! format. With nothing detected the output is text.
//!
//! Adding a syntax adds its patterns to its registry row; nothing here changes.
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
use crate::scan::find::{find_pattern_start, is_pattern_start};
use crate::text::kit::options::TextOptions;
use crate::text::kit::reasoning::{Block, THINK};
use crate::text::kit::util::{TextOut, is_name_byte, is_ws};
use crate::text::row;
use crate::text::row::Tok;
use crate::text::{SYNTAXES, TextScanner};

/// Longest name a pattern's [`Tok::Ident`] accepts.
const MAX_IDENT: usize = 128;

/// Detection patterns and the format each picks, by priority: every registry row's
/// [`Detect`](crate::text::row::Detect) patterns, by rank.
pub(crate) fn patterns() -> &'static [(&'static [Tok<'static>], Format)] {
    static PATTERNS: std::sync::OnceLock<Vec<(&'static [Tok<'static>], Format)>> =
        std::sync::OnceLock::new();
    PATTERNS.get_or_init(|| {
        let mut all: Vec<(u16, &'static [Tok<'static>], Format)> = SYNTAXES
            .iter()
            .flat_map(|r| r.detect.iter().map(move |d| (d.rank, d.pattern, r.format)))
            .collect();
        all.sort_by_key(|(rank, _, _)| *rank);
        all.into_iter().map(|(_, p, f)| (p, f)).collect()
    })
}

/// Where the first byte that may start a pattern (`<`, `[`, `{`, `f`, `]`) is in `h`. One
/// pass, eight bytes at a time (two searches bounded by each other could look at a byte
/// many times).
#[inline(always)]
fn pattern_start(h: &[u8]) -> Option<usize> {
    find_pattern_start(h)
}

/// Per byte that may start a pattern, the patterns of [`patterns`] that start with it (a
/// pattern opening with something other than a literal with every byte), in order.
fn starting() -> &'static [(u8, Vec<usize>)] {
    static STARTING: std::sync::OnceLock<Vec<(u8, Vec<usize>)>> = std::sync::OnceLock::new();
    STARTING.get_or_init(|| {
        [b'<', b'[', b'{', b'f', b']']
            .into_iter()
            .map(|first| {
                let ks =
                    patterns()
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

/// The patterns that may begin with a pair of bytes, so that a start byte followed by
/// one no pattern continues (the `<` of `< b` or `</b>` in prose, the `f` of a word) is
/// text at once, without following every pattern that begins with it.
struct Pairs {
    /// Per first byte (`<`, `[`, `{`, `f`, `]` in [`starting`]'s order), whether some
    /// pattern matches that byte alone (then the pairs are not used for it).
    alone: [bool; 5],
    /// Per first byte and second byte (entry `slot * 256 + second`), the patterns of
    /// [`starting`] not dead after both, in order: entry `e`'s are
    /// `flat[offsets[e]..offsets[e + 1]]` (two allocations for the table, not one per
    /// entry: the table is built once per process, inside whatever first uses `auto`).
    flat: Vec<usize>,
    offsets: Vec<usize>,
}

/// [`Pairs`], built once.
fn pairs() -> &'static Pairs {
    static PAIRS: std::sync::OnceLock<Pairs> = std::sync::OnceLock::new();
    PAIRS.get_or_init(|| {
        let patterns = patterns();
        let start = Row::At { tok: 0, n: 0 };
        let mut alone = [false; 5];
        // (entry, pattern), pushed slot by slot and pattern by pattern: a stable sort by
        // entry keeps each entry's patterns in order.
        let mut entries: Vec<(usize, usize)> = Vec::with_capacity(1024);
        for (slot, (first, ks)) in starting().iter().enumerate() {
            for &k in ks {
                let toks = patterns.get(k).map_or(&[][..], |(t, _)| *t);
                let after = start.step(toks, *first);
                if after == Row::Matched
                    && let Some(a) = alone.get_mut(slot)
                {
                    *a = true;
                }
                // A literal of two bytes or more is followed by its second byte only;
                // anything else (a `[` then spaces or a name) is stepped on every byte.
                let entry = |b: u8| (slot * 256 + usize::from(b), k);
                match toks.first() {
                    Some(Tok::Lit(l)) if l.len() >= 2 => {
                        entries.extend(l.get(1).map(|&b| entry(b)));
                    }
                    _ => entries.extend(
                        (0..=255u8)
                            .filter(|&b| after.step(toks, b) != Row::Dead)
                            .map(entry),
                    ),
                }
            }
        }
        entries.sort_by_key(|(e, _)| *e);
        let mut flat = Vec::with_capacity(entries.len());
        let mut offsets = Vec::with_capacity(5 * 256 + 1);
        let mut next = entries.iter().peekable();
        for e in 0..5 * 256 {
            offsets.push(flat.len());
            while let Some(&&(_, k)) = next.peek().filter(|(x, _)| *x == e) {
                flat.push(k);
                next.next();
            }
        }
        offsets.push(flat.len());
        Pairs {
            alone,
            flat,
            offsets,
        }
    })
}

impl Pairs {
    /// The slot of a first byte in [`starting`].
    #[inline]
    fn slot(first: u8) -> Option<usize> {
        match first {
            b'<' => Some(0),
            b'[' => Some(1),
            b'{' => Some(2),
            b'f' => Some(3),
            b']' => Some(4),
            _ => None,
        }
    }

    /// The patterns alive after `first` and `second` (none for a byte no pattern
    /// begins with).
    #[inline]
    fn alive(&self, first: u8, second: u8) -> &[usize] {
        let Some(e) = Self::slot(first).map(|s| s * 256 + usize::from(second)) else {
            return &[];
        };
        match (self.offsets.get(e), self.offsets.get(e + 1)) {
            (Some(&a), Some(&b)) => self.flat.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Whether some pattern matches `first` alone.
    #[inline]
    fn alone(&self, first: u8) -> bool {
        Self::slot(first).is_some_and(|s| self.alone.get(s).copied().unwrap_or(false))
    }
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
    /// The patterns still followed from the held start (their index in [`patterns`], in
    /// its order), each with its progress: a dead one is dropped at once, so each byte
    /// costs only the patterns it can still continue.
    /// Past [`patterns`]'s rows: the opening reasoning tags, `patterns().len() + k` for
    /// `tags[k]`.
    rows: Vec<(usize, Row)>,
    /// The opening reasoning tags (the options' or `<think>`).
    tags: Vec<String>,
    /// Their first bytes that start no pattern of [`patterns`] (none for `<think>`).
    odd_starts: Vec<u8>,
    /// The one held byte is a possible start whose rows are not made yet: they are
    /// chosen by the next byte ([`Pairs`]).
    deferred: bool,
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
            .filter(|b| !is_pattern_start(*b))
            .collect();
        odd_starts.sort_unstable();
        odd_starts.dedup();
        let mut inner = options.clone();
        inner.reasoning.open = false;
        let mut auto = Auto {
            inner: None,
            text: TextOut::holding_line_breaks(),
            held: Vec::new(),
            rows: Vec::with_capacity(patterns().len() + 1),
            tags,
            odd_starts,
            deferred: false,
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
    #[inline(always)]
    fn pattern_start(&self, h: &[u8]) -> Option<usize> {
        if self.odd_starts.is_empty() {
            pattern_start(h)
        } else {
            h.iter()
                .position(|b| is_pattern_start(*b) || self.odd_starts.contains(b))
        }
    }

    /// Whether some pattern or opening reasoning tag matches `first` alone.
    #[inline]
    fn alone(&self, first: u8) -> bool {
        pairs().alone(first) || self.tags.iter().any(|t| t.as_bytes() == [first])
    }

    /// Whether a pattern or an opening reasoning tag may begin with `first` then
    /// `second`.
    #[inline]
    fn may_begin(&self, first: u8, second: u8) -> bool {
        self.alone(first)
            || !pairs().alive(first, second).is_empty()
            || self.tags.iter().any(|t| match t.as_bytes() {
                [a, b, ..] => *a == first && *b == second,
                _ => false,
            })
    }

    /// The rows followed from a possible start `first`, given the byte after it when
    /// known: only the patterns (and tags) not ruled out by both bytes, or, when
    /// `second` is unknown or some pattern matches `first` alone, every one that begins
    /// with `first` (a pattern dropped here would have died on `second` without
    /// deciding anything: none matched on `first`).
    fn start_rows(&mut self, first: u8, second: Option<u8>) {
        self.rows.clear();
        let start = Row::At { tok: 0, n: 0 };
        let second = second.filter(|_| !self.alone(first));
        match second {
            Some(second) => {
                let ks = pairs().alive(first, second);
                self.rows.extend(ks.iter().map(|&k| (k, start)));
            }
            None => {
                if let Some((_, ks)) = starting().iter().find(|(b, _)| *b == first) {
                    self.rows.extend(ks.iter().map(|&k| (k, start)));
                }
            }
        }
        let tags = self.tags.iter().enumerate();
        self.rows.extend(tags.filter_map(|(k, t)| {
            let t = t.as_bytes();
            (t.first() == Some(&first) && second.is_none_or(|s| t.get(1).is_none_or(|&b| b == s)))
                .then_some((patterns().len() + k, start))
        }));
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
                // The next possible start that the byte after it does not rule out.
                let mut from = 0;
                let (p, first, second) = loop {
                    let Some(p) = rest.get(from..).and_then(|r| self.pattern_start(r)) else {
                        self.text.emit_last(rest, out);
                        return None;
                    };
                    let p = from + p;
                    let Some(&first) = rest.get(p) else {
                        self.text.emit_last(rest, out);
                        return None;
                    };
                    let second = rest.get(p + 1).copied();
                    match second {
                        Some(second) if !self.may_begin(first, second) => from = p + 1,
                        _ => break (p, first, second),
                    }
                };
                self.text.emit(rest.get(..p).unwrap_or_default());
                i += p;
                if second.is_none() && !self.alone(first) {
                    // The piece ends here: the next byte chooses the rows.
                    self.held.push(first);
                    self.rows.clear();
                    self.deferred = true;
                    i += 1;
                    continue;
                }
                self.start_rows(first, second);
            }
            let Some(&b) = bytes.get(i) else { break };
            if self.deferred {
                self.deferred = false;
                let first = self.held.first().copied().unwrap_or_default();
                self.start_rows(first, Some(b));
                if self.rows.is_empty() {
                    // No pattern begins with both: the held byte is text, and `b` may
                    // start one itself.
                    self.text.emit(&self.held);
                    self.held.clear();
                    continue;
                }
                // (Every row follows `first`, none matched by it alone.)
                self.held.clear();
                let _ = self.step(first);
            }
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
        let patterns = patterns();
        for (k, row) in self.rows.iter_mut() {
            // (One call of `Row::step`, so it stays inlined.)
            let tag;
            let (toks, pick): (&[Tok<'_>], Pick) = match patterns.get(*k) {
                Some((toks, format)) => (toks, Pick::Format(*format)),
                None => match self.tags.get(*k - patterns.len()) {
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
        self.deferred = false;
        if self.inner.is_none() && !self.held.is_empty() {
            let won = self.rows.iter().find(|(_, r)| *r == Row::Matched);
            // Unless an earlier pattern still following the held bytes took a byte past
            // the winner's match that is not whitespace (`<|python_tag|>[`: the
            // pythonic call list's, cut off, not `<|python_tag|>` code): that one's
            // format reads them.
            let won = match won.map(|&(k, _)| (k, matched_len(k, &self.held))) {
                Some((k, Some(m)))
                    if self
                        .held
                        .get(m..)
                        .is_some_and(|after| after.iter().any(|&b| !is_ws(b))) =>
                {
                    self.rows
                        .iter()
                        .find(|&&(e, r)| e < k && matches!(r, Row::At { .. }))
                        .or(won)
                }
                _ => won,
            };
            match won.map(|(k, _)| patterns().get(*k)) {
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

/// Where pattern `k` of [`patterns`] matched in `held` (`None`: a reasoning tag's row,
/// or no match).
fn matched_len(k: usize, held: &[u8]) -> Option<usize> {
    let (toks, _) = patterns().get(k)?;
    let mut row = Row::At { tok: 0, n: 0 };
    for (i, &b) in held.iter().enumerate() {
        row = row.step(toks, b);
        match row {
            Row::Matched => return Some(i + 1),
            Row::Dead => return None,
            Row::At { .. } => {}
        }
    }
    None
}

/// The call markers that end reasoning in the syntax they pick (Kimi K2 may omit
/// `</think>` before its calls: [`TextStage::calls_end_reasoning`]): the same inside a
/// block `auto` reads before it knows the syntax.
fn reasoning_enders() -> &'static [&'static str] {
    static ENDERS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    ENDERS.get_or_init(|| {
        patterns()
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

/// Raw model output whose tool-call syntax is detected from its first markers.
pub(crate) const ROW: row::Row = row::Row {
    format: Format::Auto,
    name: "auto",
    aliases: &[],
    about: "raw model text; the tool-call syntax is detected from the first markers",
    engine: row::Builtin::Auto,
    detect: &[],
    example: super::json::hermes::ROW.example,
};
