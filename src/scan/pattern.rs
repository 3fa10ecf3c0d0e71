//! Streaming regex delimiters: leftmost-first matches over a stream, split-invariant.
//!
//! A syntax spec (transformers' `response_template`) gives its delimiters as regexes
//! (`open_pattern`, `close_pattern`, `start_anchor_pattern`, `xml-inline`'s
//! `tag_pattern`) or as literals (`open`: a string or a list, longest first, `"eos"` for
//! the end of the stream). transformers runs them with Python's `re` (`re.DOTALL`) on the
//! whole buffer after every chunk — quadratic, and an optional tail (`\s*`,
//! `(?P<x>...)?`) matches differently depending on where the chunk ended. This module is
//! the streaming version: a [`PatternSet`] compiled once from [`Delimiter`]s, and a
//! [`PatternMatcher`] fed the stream's chunks.
//!
//! ```
//! use toolstream::scan::pattern::{Delimiter, PatternMatcher, PatternSet, Step};
//! let set = PatternSet::new([
//!     Delimiter::regex(r"<tool_call>\s*<function=(?P<name>\w+)>"),
//!     Delimiter::literals(["</tool_call>"]),
//! ])?;
//! let mut m = PatternMatcher::new(&set);
//! let mut got = Vec::new();
//! for piece in [&b"Hi <tool_call>\n<func"[..], b"tion=get_weather>{}</tool_", b"call>!"] {
//!     let mut rest = piece;
//!     while let Some(step) = m.next(&mut rest) {
//!         got.push(match step {
//!             Step::Text(t) => String::from_utf8_lossy(t).into_owned(),
//!             Step::Match(found) => format!(
//!                 "#{} {:?}",
//!                 found.pattern(),
//!                 found.capture("name").map(String::from_utf8_lossy)
//!             ),
//!         });
//!     }
//! }
//! while let Some(step) = m.finish() {
//!     if let Step::Text(t) = step {
//!         got.push(String::from_utf8_lossy(t).into_owned());
//!     }
//! }
//! assert_eq!(got, ["Hi ", "#0 Some(\"get_weather\")", "{}", "#1 None", "!"]);
//! # Ok::<(), toolstream::scan::pattern::PatternError>(())
//! ```
//!
//! # What a match is
//!
//! Exactly what a leftmost-first search over the **whole** input gives (the regex
//! crate's semantics, which are Python's for the constructs accepted here), however the
//! input was cut:
//!
//! - the match that starts first wins; at one start, the pattern's own leftmost-first
//!   choice (`a|ab` matches `a`, Python's and Perl's rule); between the patterns of a
//!   set matching at the same start, the longest, then the one given first (the order
//!   transformers' parser uses, `opens` before `closes` being the caller's order);
//! - an optional tail waits until the automaton can no longer extend the match: `\s*`
//!   or `(?P<x>\w+)` at the end of a chunk holds until a byte arrives that ends it (or
//!   [`finish`](PatternMatcher::finish)); a delimiter that nothing can extend (a literal,
//!   `<\|call\|>`) is reported by the call that delivers its last byte;
//! - after a match ending at `e`, the search resumes at `e`; an empty match is never
//!   reported where the previous match ended, nor at a byte inside a UTF-8 character
//!   (the regex crate's iterator rule: `^` in ernie's `(?:^|<think>\s*)` matches once,
//!   at the start of the stream);
//! - `^` and `\A` are the start of the stream, `$` and `\z` its end (known only at
//!   `finish`); look-behind (`^`, `\b`) sees the byte before, whatever chunk it was in.
//!
//! The caller may change which patterns are watched between steps
//! ([`PatternMatcher::watch`]): held bytes are searched again with the new set. A
//! consumer in a region watches that region's close; outside, every open.
//!
//! # What is released, what is held
//!
//! [`Step::Text`] gives bytes that certainly are not part of a match, as soon as that is
//! known: everything before the earliest position where a match may still start. The
//! bytes from that position on are held ([`PatternMatcher::held`]). On input that is
//! UTF-8, every text piece and every match is whole characters (a match never starts
//! inside a character), so `std::str::from_utf8` on them succeeds.
//!
//! **The hold-back limit** ([`PatternMatcher::with_max_held`], default 64 KiB like
//! [`Limits::max_held_bytes`](crate::Limits)): a pattern such as Inkling's
//! `(?:<\|message_model\|>)?[^<]*<\|content_text\|>` can start a match at any byte and
//! keep it open for as long as no `<` comes. When the bytes held from the earliest
//! candidate start reach the limit, that candidate is given up: if it already has a
//! match (a `\s*` tail still growing), that match is reported as it is; if not, its
//! bytes are released as text. Starts merged into it (below) go with it; the search
//! continues with the next byte. The rule is applied per byte, so it is split-invariant
//! too; a match is then what the whole-input search gives on inputs whose candidates
//! never reach the limit.
//!
//! # Cost
//!
//! The patterns are compiled to one dense DFA (regex-automata, leftmost-first, a start
//! state per pattern and per look-behind byte kind) and one Thompson NFA for the
//! captures (a PikeVM run on the matched span only, and only for patterns with groups).
//! Bytes that no watched pattern can start with are skipped with `memchr` (up to three
//! distinct first bytes) or a byte table, and given out as text without a copy. From a
//! byte that can start a match, each live candidate start advances the DFA by one
//! transition per byte. Two candidates in the same DFA state are the same future, so the
//! later one (with no match yet) is dropped: the number of live candidates is at most
//! the number of DFA states the patterns can be in at once — one or two for the
//! delimiters templates use. Worst case: `O(bytes × k²)` with `k` that number (the
//! same-state check is a scan of the live candidates), and bytes seen after a match's
//! end (to learn it had ended) are looked at again with the next watch set. No
//! allocation per byte: held bytes go in a buffer that keeps its capacity.
//!
//! # The pattern language
//!
//! Python `re` syntax as templates use it, translated to the regex crate's: `(?P<name>)`
//! groups, `(?:)`, classes, `\d \w \s` (Unicode, as Python's `str` patterns), lazy and
//! counted repetition (`{,n}` too), inline flags `(?imsx)`, `\A`, `\Z`, `^`, `$`, escaped
//! punctuation (`\<` is a literal `<` as in Python, not a word boundary), `(?#...)`
//! comments. `re.DOTALL` is on, as transformers compiles them. Refused with an error
//! that names the construct — a DFA cannot run them: backreferences (`\1`,
//! `(?P=name)`), look-around (`(?=`, `(?!`, `(?<=`, `(?<!`) but the one below, atomic groups and
//! possessive repetition, conditionals, `\N{...}`, the `(?a)`/`(?L)` flags, and Unicode
//! word boundaries (`\b`, `\B`; `(?-u:\b)` is the ASCII one and is accepted). Known
//! differences: Python's `$` also matches before a final newline, here only at the end;
//! `\s` follows Unicode's White_Space rather than Python's `str.isspace`.
//!
//! **A lookahead that ends the pattern**, `X(?=Y)` at its top level (no `|` there), is
//! read: the DFA runs `X(Y)` and the match reported is X's part (the same X Python's
//! backtracking picks: the first, in the pattern's priority order, that Y can follow);
//! Y's bytes are searched again after it. Y's bytes are held like any candidate's, up to
//! the hold-back limit (TRL's Nemotron 3 `(?=[\s\S]*?</think>)` holds the text until a
//! `</think>` or the end). An empty match is reported at most once at one offset: were a
//! lookahead's to repeat there (after another empty match), the byte at that offset is
//! text instead, so a zero-width delimiter cannot match for ever.

use std::sync::Arc;

use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::nfa::thompson::{self, NFA, WhichCaptures, pikevm};
use regex_automata::util::captures::Captures;
use regex_automata::util::primitives::{PatternID, StateID};
use regex_automata::util::start;
use regex_automata::{Anchored, Input, MatchKind};
use regex_syntax::hir::Hir;
use regex_syntax::hir::{Look, LookSet};

/// Most patterns one [`PatternSet`] holds (the watch set is a 64-bit mask).
pub const MAX_PATTERNS: usize = 64;

/// Default of [`PatternMatcher::with_max_held`] (as [`Limits::max_held_bytes`](crate::Limits)).
pub const DEFAULT_MAX_HELD: usize = 64 << 10;

/// Size limit of the compiled DFA of one set.
const DFA_SIZE_LIMIT: usize = 16 << 20;

/// One delimiter of a [`PatternSet`]: a regex, a list of literals or the end of the
/// stream. Checked when the set is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delimiter {
    kind: DelimiterKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum DelimiterKind {
    Regex(String),
    Literals(Vec<String>),
}

impl Delimiter {
    /// A regex in Python `re` syntax, compiled with `re.DOTALL` (see the
    /// [module docs](self) for what is accepted).
    pub fn regex(pattern: impl Into<String>) -> Self {
        Delimiter {
            kind: DelimiterKind::Regex(pattern.into()),
        }
    }

    /// Literals, as a template's `open`/`close`/`start_anchor` string or list: any of them
    /// matches; at one position the longest wins (transformers sorts them longest first);
    /// duplicates are ignored. `"eos"` alone is the end of the stream (transformers' magic
    /// literal); with other literals, or an empty list or an empty literal, building the
    /// set fails.
    pub fn literals<I, S>(literals: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Delimiter {
            kind: DelimiterKind::Literals(literals.into_iter().map(Into::into).collect()),
        }
    }

    /// The end of the stream: an empty match at the end, reported by
    /// [`finish`](PatternMatcher::finish) (transformers' `"eos"`).
    pub fn end_of_stream() -> Self {
        Delimiter::regex(r"\Z")
    }

    /// The regex (in the regex crate's syntax) this delimiter compiles to.
    fn to_rust(&self) -> Result<String, (ErrorKind, String, Option<usize>)> {
        match &self.kind {
            DelimiterKind::Regex(p) => match trailing_lookahead(p) {
                Some((body, ahead)) => {
                    let body = translate(body)?;
                    let ahead = translate(ahead)
                        .map_err(|(k, m, at)| (k, m, at.map(|o| o + p.len() - ahead.len() - 1)))?;
                    let ahead = ahead.strip_prefix("(?s)").unwrap_or(&ahead);
                    Ok(format!("{body}(?P<{AHEAD}>{ahead})"))
                }
                None => translate(p),
            },
            DelimiterKind::Literals(list) => {
                if list.is_empty() {
                    return Err((
                        ErrorKind::Literals,
                        "the list must hold at least one literal".into(),
                        None,
                    ));
                }
                if list.iter().any(String::is_empty) {
                    return Err((
                        ErrorKind::Literals,
                        "a literal cannot be empty".into(),
                        None,
                    ));
                }
                if list.iter().any(|s| s == "eos") {
                    if list.iter().any(|s| s != "eos") {
                        return Err((
                            ErrorKind::Literals,
                            "the 'eos' literal (end of stream) cannot be combined with other literals"
                                .into(),
                            None,
                        ));
                    }
                    return Ok(r"(?s)\z".into());
                }
                let mut ordered: Vec<&str> = Vec::with_capacity(list.len());
                for s in list {
                    if !ordered.contains(&s.as_str()) {
                        ordered.push(s);
                    }
                }
                // Stable: equal lengths keep the given order.
                ordered.sort_by_key(|s| std::cmp::Reverse(s.len()));
                let alternation: Vec<String> =
                    ordered.iter().map(|s| regex_syntax::escape(s)).collect();
                Ok(format!("(?s){}", alternation.join("|")))
            }
        }
    }
}

/// What was wrong with a delimiter. See [`PatternError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A construct a DFA cannot run (backreference, look-around, ...): the message names it.
    Unsupported,
    /// The regex does not parse.
    Syntax,
    /// A literal list is empty, holds an empty literal, or mixes `"eos"` with others.
    Literals,
    /// The compiled automaton would be too large.
    TooLarge,
    /// More than [`MAX_PATTERNS`] delimiters.
    TooMany,
}

/// A delimiter that cannot be compiled: which one, what, and where in its pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    kind: ErrorKind,
    pattern: usize,
    offset: Option<usize>,
    message: String,
}

impl PatternError {
    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Index of the delimiter in the list given to [`PatternSet::new`].
    pub fn pattern(&self) -> usize {
        self.pattern
    }

    /// Byte offset in the pattern text where the problem is, when known.
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// What is wrong, without the delimiter's index and offset.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "delimiter {}: {}", self.pattern, self.message)?;
        if let Some(at) = self.offset {
            write!(f, " (at byte {at})")?;
        }
        Ok(())
    }
}

impl std::error::Error for PatternError {}

/// Per-state flag: the state has a pending match that no next byte can change.
const SETTLED: u8 = 1;
/// Per-state flag: a match state from which nothing longer can match (the match it
/// reports is final).
const ENDS: u8 = 2;

/// The compiled delimiters. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct PatternSet {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    dfa: dense::DFA<Vec<u32>>,
    /// For the captures; `None` when no pattern has a group.
    pikevm: Option<pikevm::PikeVM>,
    /// Per pattern: whether it has explicit groups.
    has_groups: Vec<bool>,
    /// Per pattern: it ends in a lookahead (compiled as the group [`AHEAD`]).
    ahead: Vec<bool>,
    /// Per pattern: a match may be reported before the next byte is seen (no
    /// look-ahead assertion).
    settle_early: Vec<bool>,
    /// Per pattern: the bytes that can start a match at a position after the first.
    can_start: Vec<[bool; 256]>,
    /// Per DFA state index (`id >> stride2`): [`SETTLED`].
    flags: Vec<u8>,
    stride2: usize,
}

impl PatternSet {
    /// Compiles `delimiters` (at most [`MAX_PATTERNS`]); pattern `i` of the set is the
    /// `i`-th delimiter.
    pub fn new<I>(delimiters: I) -> Result<Self, PatternError>
    where
        I: IntoIterator<Item = Delimiter>,
    {
        let delimiters: Vec<Delimiter> = delimiters.into_iter().collect();
        let err = |pattern, (kind, message, offset)| PatternError {
            kind,
            pattern,
            offset,
            message,
        };
        if delimiters.len() > MAX_PATTERNS {
            return Err(err(
                MAX_PATTERNS,
                (
                    ErrorKind::TooMany,
                    format!(
                        "{} delimiters in one set, at most {MAX_PATTERNS}",
                        delimiters.len()
                    ),
                    None,
                ),
            ));
        }
        let mut hirs: Vec<Hir> = Vec::with_capacity(delimiters.len());
        let mut settle_early = Vec::with_capacity(delimiters.len());
        let mut has_groups = Vec::with_capacity(delimiters.len());
        let ahead: Vec<bool> = delimiters
            .iter()
            .map(|d| matches!(&d.kind, DelimiterKind::Regex(p) if trailing_lookahead(p).is_some()))
            .collect();
        for (i, d) in delimiters.iter().enumerate() {
            let rust = d.to_rust().map_err(|e| err(i, e))?;
            let hir = regex_syntax::ParserBuilder::new()
                .build()
                .parse(&rust)
                .map_err(|e| err(i, (ErrorKind::Syntax, syntax_message(&e), None)))?;
            let looks = hir.properties().look_set();
            for (look, name) in [
                (Look::WordUnicode, r"\b"),
                (Look::WordUnicodeNegate, r"\B"),
                (Look::WordStartUnicode, r"\<"),
                (Look::WordEndUnicode, r"\>"),
                (Look::WordStartHalfUnicode, r"\b{start-half}"),
                (Look::WordEndHalfUnicode, r"\b{end-half}"),
            ] {
                if looks.contains(look) {
                    return Err(err(
                        i,
                        (
                            ErrorKind::Unsupported,
                            format!(
                                "the Unicode word boundary {name} cannot run in a DFA; \
                                 (?-u:{name}) is the ASCII one"
                            ),
                            None,
                        ),
                    ));
                }
            }
            let behind = LookSet::empty()
                .insert(Look::Start)
                .insert(Look::StartLF)
                .insert(Look::StartCRLF);
            settle_early.push(looks.subtract(behind).is_empty());
            has_groups.push(hir.properties().explicit_captures_len() > 0);
            hirs.push(hir);
        }
        let too_large = |what: String| PatternError {
            kind: ErrorKind::TooLarge,
            pattern: 0,
            offset: None,
            message: what,
        };
        let nfa = NFA::compiler()
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::All)
                    .nfa_size_limit(Some(DFA_SIZE_LIMIT)),
            )
            .build_many_from_hir(&hirs)
            .map_err(|e| too_large(format!("the patterns do not compile: {e}")))?;
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .start_kind(StartKind::Anchored)
                    .starts_for_each_pattern(true)
                    .dfa_size_limit(Some(DFA_SIZE_LIMIT))
                    .determinize_size_limit(Some(DFA_SIZE_LIMIT)),
            )
            .build_from_nfa(&nfa)
            .map_err(|e| too_large(format!("the patterns' automaton is too large: {e}")))?;
        let pikevm = if has_groups.iter().any(|&g| g) {
            Some(
                pikevm::PikeVM::builder()
                    .configure(pikevm::Config::new().match_kind(MatchKind::LeftmostFirst))
                    .build_from_nfa(nfa)
                    .map_err(|e| too_large(format!("the patterns do not compile: {e}")))?,
            )
        } else {
            None
        };
        let (flags, can_start) = analyse(&dfa, hirs.len());
        let stride2 = dfa.stride2();
        Ok(PatternSet {
            inner: Arc::new(Inner {
                dfa,
                pikevm,
                has_groups,
                ahead,
                settle_early,
                can_start,
                flags,
                stride2,
            }),
        })
    }

    /// Number of delimiters.
    pub fn len(&self) -> usize {
        self.inner.can_start.len()
    }

    /// Whether the set has no delimiters.
    pub fn is_empty(&self) -> bool {
        self.inner.can_start.is_empty()
    }

    /// The names of pattern `pattern`'s named groups, in order.
    pub fn group_names(&self, pattern: usize) -> impl Iterator<Item = &str> + '_ {
        let pid = PatternID::new(pattern).ok();
        self.inner
            .pikevm
            .as_ref()
            .filter(|_| self.inner.has_groups.get(pattern).copied().unwrap_or(false))
            .zip(pid)
            .into_iter()
            .flat_map(|(vm, pid)| vm.get_nfa().group_info().pattern_names(pid).flatten())
            .filter(|n| *n != AHEAD)
    }

    /// Heap bytes of the compiled automata.
    pub fn memory_usage(&self) -> usize {
        self.inner.dfa.memory_usage()
            + self
                .inner
                .pikevm
                .as_ref()
                .map_or(0, |vm| vm.get_nfa().memory_usage())
            + self.inner.flags.len()
            + self.inner.can_start.len() * 256
    }
}

/// regex-syntax's error, on one line.
fn syntax_message(e: &regex_syntax::Error) -> String {
    let full = e.to_string();
    full.lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .map_or(full.clone(), |l| {
            l.trim_start_matches("error:").trim().to_owned()
        })
}

/// Walks the DFA from every start state: which states are settled (a pending match that
/// no next byte or the end can change or extend), and which bytes can start each pattern.
fn analyse(dfa: &dense::DFA<Vec<u32>>, patterns: usize) -> (Vec<u8>, Vec<[bool; 256]>) {
    let stride2 = dfa.stride2();
    let reps: Vec<u8> = dfa
        .byte_classes()
        .representatives(..)
        .filter_map(|u| u.as_u8())
        .collect();
    let mut can_start = vec![[false; 256]; patterns];
    let mut seen: Vec<bool> = Vec::new();
    let mut stack: Vec<StateID> = Vec::new();
    let mark = |id: StateID, seen: &mut Vec<bool>, stack: &mut Vec<StateID>| {
        let i = id.as_usize() >> stride2;
        if seen.len() <= i {
            seen.resize(i + 1, false);
        }
        if let Some(s) = seen.get_mut(i)
            && !*s
        {
            *s = true;
            stack.push(id);
        }
    };
    for (p, table) in can_start.iter_mut().enumerate() {
        let Ok(pid) = PatternID::new(p) else { continue };
        let mut behinds: Vec<Option<u8>> = vec![None];
        behinds.extend((0..=255u8).map(Some));
        let mut starts: Vec<StateID> = Vec::new();
        for behind in behinds {
            let cfg = start::Config::new()
                .anchored(Anchored::Pattern(pid))
                .look_behind(behind);
            if let Ok(s) = dfa.start_state(&cfg) {
                if behind.is_some() && !starts.contains(&s) {
                    starts.push(s);
                }
                mark(s, &mut seen, &mut stack);
            }
        }
        for s in starts {
            for b in 0..=255u8 {
                if !dfa.is_dead_state(dfa.next_state(s, b))
                    && let Some(slot) = table.get_mut(usize::from(b))
                {
                    *slot = true;
                }
            }
        }
    }
    let mut states = Vec::new();
    while let Some(s) = stack.pop() {
        states.push(s);
        for &b in &reps {
            let n = dfa.next_state(s, b);
            if !dfa.is_dead_state(n) && !dfa.is_quit_state(n) {
                mark(n, &mut seen, &mut stack);
            }
        }
        let n = dfa.next_eoi_state(s);
        if !dfa.is_dead_state(n) && !dfa.is_quit_state(n) {
            mark(n, &mut seen, &mut stack);
        }
    }
    let mut flags = vec![0u8; seen.len()];
    for &s in &states {
        if dfa.is_match_state(s)
            && !dfa.is_match_state(dfa.next_eoi_state(s))
            && reps
                .iter()
                .all(|&c| dfa.is_dead_state(dfa.next_state(s, c)))
            && let Some(f) = flags.get_mut(s.as_usize() >> stride2)
        {
            *f |= ENDS;
        }
    }
    for s in states {
        if !dfa.is_match_state(dfa.next_eoi_state(s)) {
            continue;
        }
        let settled = reps.iter().all(|&b| {
            let m = dfa.next_state(s, b);
            dfa.is_match_state(m)
                && !dfa.is_match_state(dfa.next_eoi_state(m))
                && reps
                    .iter()
                    .all(|&c| dfa.is_dead_state(dfa.next_state(m, c)))
        });
        if settled && let Some(f) = flags.get_mut(s.as_usize() >> stride2) {
            *f |= SETTLED;
        }
    }
    (flags, can_start)
}

/// The group a trailing lookahead `X(?=Y)` is compiled to: the pattern runs as `X(Y)`
/// and the match reported ends where this group starts.
const AHEAD: &str = "__toolstream_ahead";

/// `X(?=Y)` with the lookahead ending the pattern, at its top level (no `|` there):
/// `(X, Y)`.
fn trailing_lookahead(p: &str) -> Option<(&str, &str)> {
    let bytes = p.as_bytes();
    let mut depth = 0usize;
    let mut class = false;
    let mut i = 0;
    let mut open_at = None;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 1,
            b'[' if !class => {
                class = true;
                // `[]...]` and `[^]...]`: the first `]` is a literal.
                if bytes.get(i + 1) == Some(&b'^') {
                    i += 1;
                }
                if bytes.get(i + 1) == Some(&b']') {
                    i += 1;
                }
            }
            b']' if class => class = false,
            _ if class => {}
            b'(' => {
                if depth == 0 {
                    open_at = (bytes.get(i + 1..i + 3) == Some(b"?=")).then_some(i);
                }
                depth += 1;
            }
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0
                    && let Some(o) = open_at
                {
                    return (i + 1 == p.len())
                        .then(|| (p.get(..o), p.get(o + 3..i)))
                        .and_then(|(x, y)| Some((x?, y?)));
                }
            }
            b'|' if depth == 0 => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Translates a Python `re` pattern to the regex crate's syntax, `(?s)` in front.
fn translate(p: &str) -> Result<String, (ErrorKind, String, Option<usize>)> {
    let unsupported = |what: &str, at: usize| {
        Err((
            ErrorKind::Unsupported,
            format!("{what} is not supported (a DFA cannot run it)"),
            Some(at),
        ))
    };
    let mut out = String::with_capacity(p.len() + 8);
    out.push_str("(?s)");
    let chars: Vec<(usize, char)> = p.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|&(o, _)| o).unwrap_or(p.len());
    let ch = |i: usize| chars.get(i).map(|&(_, c)| c);
    let mut i = 0;
    // Inside a class: the index of its first item (`]` there is a literal).
    let mut class: Option<usize> = None;
    // The previous token was a quantifier (for possessive `*+`).
    let mut after_quantifier = false;
    while let Some(c) = ch(i) {
        let quantifier_before = std::mem::take(&mut after_quantifier);
        if let Some(first) = class {
            match c {
                '\\' => {
                    let Some(e) = ch(i + 1) else {
                        return Err((
                            ErrorKind::Syntax,
                            "a trailing backslash".into(),
                            Some(at(i)),
                        ));
                    };
                    i += 2;
                    match e {
                        'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'n' | 't' | 'r' | 'f' | 'v' | 'a' => {
                            out.push('\\');
                            out.push(e);
                        }
                        'b' => out.push_str(r"\x08"),
                        'x' | 'u' | 'U' => {
                            out.push('\\');
                            out.push(e);
                        }
                        '0' => i = octal(&chars, i, &mut out),
                        'N' => return unsupported(r"a named character \N{...}", at(i - 2)),
                        e if e.is_ascii_alphanumeric() => {
                            return Err((
                                ErrorKind::Syntax,
                                format!(r"bad escape \{e} in a class"),
                                Some(at(i - 2)),
                            ));
                        }
                        e => push_literal(&mut out, e),
                    }
                    continue;
                }
                ']' if i != first => {
                    out.push(']');
                    class = None;
                    after_quantifier = false;
                }
                '[' | '&' | '~' => push_literal(&mut out, c),
                '-' if ch(i + 1) == Some('-') => {
                    out.push('-');
                    push_literal(&mut out, '-');
                    i += 1;
                }
                c => out.push(c),
            }
            i += 1;
            continue;
        }
        match c {
            '\\' => {
                let Some(e) = ch(i + 1) else {
                    return Err((
                        ErrorKind::Syntax,
                        "a trailing backslash".into(),
                        Some(at(i)),
                    ));
                };
                let start = i;
                i += 2;
                match e {
                    '1'..='9' => {
                        return unsupported(&format!(r"the backreference \{e}"), at(start));
                    }
                    '0' => i = octal(&chars, i, &mut out),
                    'Z' => out.push_str(r"\z"),
                    'N' => return unsupported(r"a named character \N{...}", at(start)),
                    'A' | 'z' | 'b' | 'B' | 'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'n' | 't' | 'r'
                    | 'f' | 'v' | 'a' | 'x' | 'u' | 'U' => {
                        out.push('\\');
                        out.push(e);
                    }
                    e if e.is_ascii_alphanumeric() => {
                        return Err((
                            ErrorKind::Syntax,
                            format!(r"bad escape \{e}"),
                            Some(at(start)),
                        ));
                    }
                    e => push_literal(&mut out, e),
                }
            }
            '[' => {
                out.push('[');
                i += 1;
                if ch(i) == Some('^') {
                    out.push('^');
                    i += 1;
                }
                class = Some(i);
            }
            '(' => {
                let start = i;
                if ch(i + 1) != Some('?') {
                    out.push('(');
                    i += 1;
                    continue;
                }
                match (ch(i + 2), ch(i + 3)) {
                    (Some('P'), Some('<')) | (Some(':'), _) => {
                        out.push_str("(?");
                        i += 2;
                    }
                    (Some('<'), Some(n)) if n != '=' && n != '!' => {
                        out.push_str("(?P<");
                        i += 3;
                    }
                    (Some('P'), Some('=')) => {
                        return unsupported("the backreference (?P=name)", at(start));
                    }
                    (Some('P'), Some('>')) => {
                        return unsupported("the recursion (?P>name)", at(start));
                    }
                    (Some('='), _) => return unsupported("the lookahead (?=...)", at(start)),
                    (Some('!'), _) => {
                        return unsupported("the negative lookahead (?!...)", at(start));
                    }
                    (Some('<'), Some('=')) => {
                        return unsupported("the lookbehind (?<=...)", at(start));
                    }
                    (Some('<'), Some('!')) => {
                        return unsupported("the negative lookbehind (?<!...)", at(start));
                    }
                    (Some('>'), _) => return unsupported("the atomic group (?>...)", at(start)),
                    (Some('('), _) => return unsupported("the conditional (?(...)...)", at(start)),
                    (Some('#'), _) => {
                        // A comment: dropped up to its `)`.
                        i += 3;
                        while let Some(c) = ch(i) {
                            i += 1;
                            if c == ')' {
                                break;
                            }
                        }
                        continue;
                    }
                    _ => {
                        // Inline flags: `(?imsx-imsx)` or `(?imsx-imsx:...)`.
                        out.push_str("(?");
                        i += 2;
                        let mut negated = false;
                        while let Some(f) = ch(i) {
                            match f {
                                'i' | 'm' | 's' | 'x' => out.push(f),
                                '-' => {
                                    negated = true;
                                    out.push(f);
                                }
                                // Python's default; `(?-u:...)` is the regex crate's ASCII mode.
                                'u' if negated => out.push(f),
                                'u' => {}
                                'a' => {
                                    return unsupported("the ASCII-only flag (?a)", at(start));
                                }
                                'L' => return unsupported("the locale flag (?L)", at(start)),
                                ':' | ')' => break,
                                f => {
                                    return Err((
                                        ErrorKind::Syntax,
                                        format!("unknown flag {f}"),
                                        Some(at(i)),
                                    ));
                                }
                            }
                            i += 1;
                        }
                        if out.ends_with("(?") && ch(i) == Some(')') {
                            // `(?u)` alone: nothing left.
                            out.truncate(out.len() - 2);
                            i += 1;
                        }
                    }
                }
            }
            '*' | '+' | '?' => {
                if quantifier_before && c == '+' {
                    return unsupported("possessive repetition (*+, ++, ?+, {m,n}+)", at(i));
                }
                out.push(c);
                i += 1;
                after_quantifier = true;
                if ch(i) == Some('?') {
                    out.push('?');
                    i += 1;
                }
            }
            '{' => {
                // A counted repetition `{m}`, `{m,}`, `{,n}`, `{m,n}`; anything else is a
                // literal `{` in Python.
                let mut j = i + 1;
                let mut body = String::new();
                while let Some(d) = ch(j) {
                    if d.is_ascii_digit() || d == ',' {
                        body.push(d);
                        j += 1;
                    } else {
                        break;
                    }
                }
                let (low, high) = body.split_once(',').unwrap_or((body.as_str(), ""));
                let valid = ch(j) == Some('}')
                    && !high.contains(',')
                    && (body.contains(',') || !low.is_empty());
                if valid {
                    out.push('{');
                    out.push_str(if low.is_empty() { "0" } else { low });
                    if body.contains(',') {
                        out.push(',');
                        out.push_str(high);
                    }
                    out.push('}');
                    i = j + 1;
                    after_quantifier = true;
                    if ch(i) == Some('?') {
                        out.push('?');
                        i += 1;
                    }
                    if ch(i) == Some('+') {
                        return unsupported("possessive repetition (*+, ++, ?+, {m,n}+)", at(i));
                    }
                } else {
                    out.push_str(r"\{");
                    i += 1;
                }
            }
            '}' => {
                out.push_str(r"\}");
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    if class.is_some() {
        return Err((
            ErrorKind::Syntax,
            "an unterminated character class".into(),
            Some(p.len()),
        ));
    }
    Ok(out)
}

/// A literal character in a pattern or a class.
fn push_literal(out: &mut String, c: char) {
    if regex_syntax::is_meta_character(c) {
        out.push('\\');
        out.push(c);
    } else {
        out.push_str(&format!(r"\x{{{:x}}}", u32::from(c)));
    }
}

/// Python's octal escape after `\0`: up to two more octal digits. Returns the next index.
fn octal(chars: &[(usize, char)], mut i: usize, out: &mut String) -> usize {
    let mut v = 0u32;
    for _ in 0..2 {
        match chars.get(i).map(|&(_, c)| c) {
            Some(d @ '0'..='7') => {
                v = v * 8 + (u32::from(d) - u32::from('0'));
                i += 1;
            }
            _ => break,
        }
    }
    out.push_str(&format!(r"\x{{{v:x}}}"));
    i
}

/// Which patterns of a set a [`PatternMatcher`] looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Watch(u64);

impl Watch {
    /// Every pattern.
    pub const ALL: Watch = Watch(u64::MAX);
    /// No pattern: everything is text.
    pub const NONE: Watch = Watch(0);

    /// Only pattern `i`.
    pub fn only(i: usize) -> Watch {
        Watch::NONE.with(i)
    }

    /// These and pattern `i` (ignored past [`MAX_PATTERNS`]).
    pub fn with(self, i: usize) -> Watch {
        Watch(
            self.0
                | 1u64
                    .checked_shl(u32::try_from(i).unwrap_or(u32::MAX))
                    .unwrap_or(0),
        )
    }

    /// Whether pattern `i` is watched.
    pub fn contains(self, i: usize) -> bool {
        u32::try_from(i)
            .ok()
            .and_then(|i| self.0.checked_shr(i))
            .is_some_and(|b| b & 1 == 1)
    }
}

/// One step of [`PatternMatcher::next`] / [`finish`](PatternMatcher::finish).
#[derive(Debug)]
pub enum Step<'a> {
    /// Bytes that are certainly not part of a match. Never empty.
    Text(&'a [u8]),
    /// A match; its bytes were consumed.
    Match(Match<'a>),
}

/// A match found by a [`PatternMatcher`].
#[derive(Debug)]
pub struct Match<'a> {
    pattern: usize,
    start: usize,
    bytes: &'a [u8],
    caps: Option<(&'a Captures, usize)>,
}

impl<'a> Match<'a> {
    /// Which delimiter of the set matched.
    pub fn pattern(&self) -> usize {
        self.pattern
    }

    /// Offset of the match's first byte in the stream.
    pub fn start(&self) -> usize {
        self.start
    }

    /// Offset just past the match's last byte in the stream.
    pub fn end(&self) -> usize {
        self.start + self.bytes.len()
    }

    /// The matched bytes (empty for an empty match such as the end of the stream).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The bytes of the named group `name`, when it took part in the match.
    pub fn capture(&self, name: &str) -> Option<&'a [u8]> {
        let (caps, shift) = self.caps?;
        let span = caps.get_group_by_name(name)?;
        self.bytes
            .get(span.start.checked_sub(shift)?..span.end.checked_sub(shift)?)
    }

    /// Every named group of the pattern with its bytes (`None` when it did not take
    /// part), in the pattern's order.
    pub fn captures(&self) -> impl Iterator<Item = (&'a str, Option<&'a [u8]>)> + '_ {
        self.caps.into_iter().flat_map(move |(caps, _)| {
            caps.group_info()
                .pattern_names(PatternID::new(self.pattern).unwrap_or(PatternID::ZERO))
                .flatten()
                .filter(|name| *name != AHEAD)
                .map(move |name| (name, self.capture(name)))
        })
    }
}

/// A candidate match start: the DFA state reached from it, and the end of the best
/// match found from it so far.
#[derive(Debug, Clone, Copy)]
struct Cand {
    start: usize,
    pattern: usize,
    state: StateID,
    end: Option<usize>,
    /// Still running (false: dead or settled, `end` is final).
    live: bool,
}

/// What the next call must drop from the buffer before anything else (lent out by the
/// previous step).
#[derive(Debug, Clone, Copy, Default)]
struct Lent {
    /// Bytes at the front of `buf` given out.
    bytes: usize,
    /// They were a match (the next search must not report an empty match at its end).
    matched: bool,
    /// Search again from after them (the candidates were dropped).
    restart: bool,
}

/// Finds the delimiters of a [`PatternSet`] in a stream. See the [module docs](self).
#[derive(Debug)]
pub struct PatternMatcher {
    set: PatternSet,
    watch: Watch,
    /// The watched patterns' start bytes.
    pre: Prefilter,
    /// Those of the watch sets seen so far.
    prefilters: Vec<Prefilter>,
    max_held: usize,
    /// Held bytes; `buf[0]` is at stream offset `base`.
    buf: Vec<u8>,
    base: usize,
    /// Stream offset up to which bytes went through the candidates.
    scanned: usize,
    /// The byte before `base` (`None` at the stream start).
    prev: Option<u8>,
    cands: Vec<Cand>,
    /// A match decided but not given out yet: (start, end, pattern).
    decided: Option<(usize, usize, usize)>,
    /// No empty match here (where the last match ended).
    no_empty_at: Option<usize>,
    /// Where the last empty match was reported.
    last_empty: Option<usize>,
    /// The end of the stream was applied to the candidates at `scanned`.
    eoi_done: bool,
    lent: Lent,
    /// Captures scratch: the match with a byte of context each side.
    scratch: Vec<u8>,
    caps: Option<(pikevm::Cache, Captures)>,
    /// Candidates given up at the hold-back limit.
    limit_hits: usize,
}

impl PatternMatcher {
    /// A matcher over `set`, watching every pattern, holding at most
    /// [`DEFAULT_MAX_HELD`] bytes.
    pub fn new(set: &PatternSet) -> Self {
        let caps = set
            .inner
            .pikevm
            .as_ref()
            .map(|vm| (vm.create_cache(), vm.create_captures()));
        let mut m = PatternMatcher {
            set: set.clone(),
            watch: Watch::ALL,
            pre: Prefilter {
                watch: Watch::NONE,
                table: [false; 256],
                firsts: [0; 3],
                nfirsts: 0,
                nothing: true,
            },
            prefilters: Vec::new(),
            max_held: DEFAULT_MAX_HELD,
            buf: Vec::new(),
            base: 0,
            scanned: 0,
            prev: None,
            cands: Vec::new(),
            decided: None,
            no_empty_at: None,
            last_empty: None,
            eoi_done: false,
            lent: Lent::default(),
            scratch: Vec::new(),
            caps,
            limit_hits: 0,
        };
        m.prepare_table();
        m
    }

    /// The hold-back limit (at least 1): see the [module docs](self).
    pub fn with_max_held(mut self, bytes: usize) -> Self {
        self.max_held = bytes.max(1);
        self
    }

    /// Bytes held back (a match may still start at the first of them).
    pub fn held(&self) -> usize {
        self.buf.len() - self.lent.bytes
    }

    /// How many times the hold-back limit gave up a candidate.
    pub fn limit_hits(&self) -> usize {
        self.limit_hits
    }

    /// Offset in the stream of the next byte to be given out.
    pub fn offset(&self) -> usize {
        self.base + self.lent.bytes
    }

    /// The patterns looked for.
    pub fn watching(&self) -> Watch {
        self.watch
    }

    /// Looks for `watch`'s patterns from now on. Held bytes are searched again.
    pub fn watch(&mut self, watch: Watch) {
        if watch == self.watch {
            return;
        }
        self.watch = watch;
        self.prepare_table();
        self.drop_lent();
        self.restart_at(self.base);
    }

    /// Forgets the stream: ready for a new one (keeps the watch and the buffers'
    /// capacity).
    pub fn reset(&mut self) {
        self.buf.clear();
        self.base = 0;
        self.scanned = 0;
        self.prev = None;
        self.cands.clear();
        self.decided = None;
        self.no_empty_at = None;
        self.last_empty = None;
        self.eoi_done = false;
        self.lent = Lent::default();
        self.limit_hits = 0;
    }

    /// The watched patterns' start bytes: from the cache of the watch sets seen (a
    /// consumer switches between a few, once per match), else computed.
    fn prepare_table(&mut self) {
        if let Some(p) = self.prefilters.iter().find(|p| p.watch == self.watch) {
            self.pre = *p;
            return;
        }
        let mut table = [false; 256];
        for (p, t) in self.set.inner.can_start.iter().enumerate() {
            if self.watch.contains(p) {
                for (slot, &b) in table.iter_mut().zip(t.iter()) {
                    *slot |= b;
                }
            }
        }
        let mut pre = Prefilter {
            watch: self.watch,
            table,
            firsts: [0; 3],
            nfirsts: 0,
            nothing: false,
        };
        let count = table.iter().filter(|&&b| b).count();
        pre.nothing = count == 0;
        if (1..=3).contains(&count) {
            for b in (0..=255u8).filter(|&b| table.get(usize::from(b)).copied().unwrap_or(false)) {
                if let Some(slot) = pre.firsts.get_mut(pre.nfirsts) {
                    *slot = b;
                    pre.nfirsts += 1;
                }
            }
        }
        if self.prefilters.len() >= PREFILTER_CACHE {
            self.prefilters.pop();
        }
        self.prefilters.push(pre);
        self.pre = pre;
    }

    /// Drops what the previous step lent out.
    fn drop_lent(&mut self) {
        let Lent {
            bytes,
            matched,
            restart,
        } = std::mem::take(&mut self.lent);
        if bytes == 0 && !matched {
            return;
        }
        if bytes > 0 {
            self.prev = self.buf.get(bytes - 1).copied();
            self.buf.drain(..bytes);
            self.base += bytes;
        }
        if matched {
            self.no_empty_at = Some(self.base);
        }
        if matched || restart {
            self.restart_at(self.base);
        }
    }

    /// Search again from `at` (the buffer's start): candidates dropped.
    fn restart_at(&mut self, at: usize) {
        self.cands.clear();
        self.decided = None;
        self.scanned = at;
        self.eoi_done = false;
    }

    /// The next piece of `input` (which is advanced past what was taken): text, a match,
    /// or `None` when `input` is used up (its tail may be held).
    pub fn next<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Option<Step<'s>> {
        self.drop_lent();
        loop {
            if let Some(step) = self.scan_held() {
                return Some(self.lend(step));
            }
            if input.is_empty() {
                return None;
            }
            if self.buf.is_empty() && self.cands.is_empty() && self.decided.is_none() {
                // Nothing held: skip to the next byte that can start a match.
                let k = self.skip(input);
                if k > 0 {
                    let (text, rest) = input.split_at(k);
                    *input = rest;
                    self.base += k;
                    self.scanned += k;
                    self.prev = text.last().copied();
                    return Some(Step::Text(text));
                }
            }
            if let Some((&b, rest)) = input.split_first() {
                *input = rest;
                self.buf.push(b);
            }
        }
    }

    /// End of input: the held bytes are decided with what arrived (a pattern ending in
    /// `\s*` matches what it has; `\Z` / `eos` matches). Call until it returns `None`.
    pub fn finish(&mut self) -> Option<Step<'_>> {
        self.drop_lent();
        loop {
            if let Some(step) = self.scan_held() {
                return Some(self.lend(step));
            }
            if self.eoi_done {
                return None;
            }
            self.eoi_done = true;
            self.step_eoi();
        }
    }

    /// Scans the held bytes not scanned yet, one at a time, until a piece can be given
    /// out (returned) or every held byte is scanned (`None`: more input, or the end, is
    /// needed).
    #[inline]
    fn scan_held(&mut self) -> Option<Ready> {
        loop {
            if let Some(step) = self.ready() {
                return Some(step);
            }
            if self.scanned >= self.base + self.buf.len() {
                return None;
            }
            let b = self
                .buf
                .get(self.scanned - self.base)
                .copied()
                .unwrap_or_default();
            self.step(self.scanned, b);
            self.scanned += 1;
        }
    }

    /// What can be given out now: the text before the earliest candidate, or a decided
    /// match. Returns (is_match, bytes) as a plan; `lend` turns it into a step.
    fn ready(&mut self) -> Option<Ready> {
        if let Some((start, end, pattern)) = self.decided {
            if start > self.base {
                return Some(Ready::Text(start - self.base));
            }
            return Some(Ready::Match { end, pattern });
        }
        let release = self
            .cands
            .first()
            .map_or(self.scanned, |c| c.start)
            .min(self.scanned);
        if release > self.base {
            return Some(Ready::Text(release - self.base));
        }
        None
    }

    fn lend(&mut self, ready: Ready) -> Step<'_> {
        match ready {
            Ready::Text(n) => {
                self.lent = Lent {
                    bytes: n,
                    matched: false,
                    restart: false,
                };
                Step::Text(self.buf.get(..n).unwrap_or_default())
            }
            Ready::Match { end, pattern } => {
                let mut len = end - self.base;
                self.decided = None;
                self.cands.clear();
                let shift = self.captures(pattern, len);
                if self.set.inner.ahead.get(pattern).copied().unwrap_or(false)
                    && let (Some(shift), Some((_, caps))) = (shift, &self.caps)
                    && let Some(span) = caps.get_group_by_name(AHEAD)
                {
                    // `X(?=Y)`: the match is X's; Y's bytes are searched again.
                    len = span.start.saturating_sub(shift).min(len);
                }
                if len == 0 {
                    if self.last_empty == Some(self.base) {
                        // A second empty match here (a lookahead's, after another empty
                        // one) would repeat for ever: the byte is text instead.
                        self.lent = Lent {
                            bytes: 1,
                            matched: false,
                            restart: true,
                        };
                        return Step::Text(self.buf.get(..1).unwrap_or_default());
                    }
                    self.last_empty = Some(self.base);
                }
                self.lent = Lent {
                    bytes: len,
                    matched: true,
                    restart: false,
                };
                let start = self.base;
                let bytes = self.buf.get(..len).unwrap_or_default();
                let caps = match (shift, &self.caps) {
                    (Some(shift), Some((_, caps))) => Some((caps, shift)),
                    _ => None,
                };
                Step::Match(Match {
                    pattern,
                    start,
                    bytes,
                    caps,
                })
            }
        }
    }

    /// Runs the PikeVM on the match `buf[..len]` with a byte of context each side.
    /// Returns the offset of the match in the scratch haystack.
    fn captures(&mut self, pattern: usize, len: usize) -> Option<usize> {
        if !self
            .set
            .inner
            .has_groups
            .get(pattern)
            .copied()
            .unwrap_or(false)
        {
            return None;
        }
        let vm = self.set.inner.pikevm.as_ref()?;
        let (cache, caps) = self.caps.as_mut()?;
        self.scratch.clear();
        let shift = match self.prev {
            Some(b) => {
                self.scratch.push(b);
                1
            }
            None => 0,
        };
        let upto = (len + 1).min(self.buf.len());
        self.scratch
            .extend_from_slice(self.buf.get(..upto).unwrap_or_default());
        let input = Input::new(&self.scratch)
            .span(shift..shift + len)
            .anchored(Anchored::Pattern(PatternID::new(pattern).ok()?));
        vm.search(cache, &input, caps);
        caps.is_match().then_some(shift)
    }

    /// The byte before stream offset `at` (`at` within or just past the buffer).
    fn byte_before(&self, at: usize) -> Option<u8> {
        if at == self.base {
            self.prev
        } else {
            self.buf.get(at - self.base - 1).copied()
        }
    }

    /// Where the fast path may stop: the first byte of `input` that can start a watched
    /// pattern (with its real start state), or `input.len()`.
    fn skip(&self, input: &[u8]) -> usize {
        let mut from = 0;
        if self.scanned == 0 {
            // The stream's first byte: `^` and friends, whatever the prefilter says.
            match input.first() {
                Some(&b) if self.can_start_here(0, None, b) => return 0,
                Some(_) => from = 1,
                None => return 0,
            }
        }
        loop {
            let Some(rest) = input.get(from..) else {
                return input.len();
            };
            let found = if self.pre.nothing {
                None
            } else {
                match self.pre.firsts.get(..self.pre.nfirsts).unwrap_or_default() {
                    [a] => crate::scan::find::find1(*a, rest),
                    [a, b] => crate::scan::find::find2(*a, *b, rest),
                    [a, b, c] => crate::scan::find::find3(*a, *b, *c, rest),
                    _ => rest.iter().position(|b| {
                        self.pre
                            .table
                            .get(usize::from(*b))
                            .copied()
                            .unwrap_or(false)
                    }),
                }
            };
            let Some(k) = found.map(|k| from + k) else {
                return input.len();
            };
            let prev = if k == 0 {
                self.prev
            } else {
                input.get(k - 1).copied()
            };
            let b = input.get(k).copied().unwrap_or_default();
            if self.can_start_here(k + self.base, prev, b) {
                return k;
            }
            from = k + 1;
        }
    }

    /// Whether some watched pattern survives the byte `b` at `at` after `prev`.
    fn can_start_here(&self, at: usize, prev: Option<u8>, b: u8) -> bool {
        if is_continuation(b) {
            return false;
        }
        let dfa = &self.set.inner.dfa;
        (0..self.set.len()).any(|p| {
            self.watch.contains(p)
                && (at == 0
                    || self
                        .set
                        .inner
                        .can_start
                        .get(p)
                        .is_some_and(|t| t.get(usize::from(b)).copied().unwrap_or(false)))
                && start_state(dfa, p, prev)
                    .is_some_and(|s| !dfa.is_dead_state(dfa.next_state(s, b)))
        })
    }

    /// The byte `b` at stream offset `at` goes through every live candidate, then may
    /// start new ones; then the decision and the limit.
    fn step(&mut self, at: usize, b: u8) {
        let inner = &*self.set.inner;
        let dfa = &inner.dfa;
        for c in self.cands.iter_mut().filter(|c| c.live) {
            let s = dfa.next_state(c.state, b);
            advance(inner, c, s, at, None);
        }
        self.cands.retain(|c| c.live || c.end.is_some());
        dedup(&mut self.cands);
        let matched = self.cands.iter().any(|c| c.end.is_some());
        if !matched
            && !is_continuation(b)
            && (at == 0 || self.pre.table.get(usize::from(b)).copied().unwrap_or(false))
        {
            let prev = self.byte_before(at);
            for p in 0..self.set.len() {
                if !self.watch.contains(p)
                    || (at != 0
                        && !inner
                            .can_start
                            .get(p)
                            .is_some_and(|t| t.get(usize::from(b)).copied().unwrap_or(false)))
                {
                    continue;
                }
                let Some(s0) = start_state(dfa, p, prev) else {
                    continue;
                };
                let s = dfa.next_state(s0, b);
                if dfa.is_dead_state(s) {
                    continue;
                }
                let mut c = Cand {
                    start: at,
                    pattern: p,
                    state: s0,
                    end: None,
                    live: true,
                };
                advance(inner, &mut c, s, at, self.no_empty_at);
                if !c.live && c.end.is_none() {
                    continue;
                }
                if c.live
                    && c.end.is_none()
                    && self.cands.iter().any(|o| o.live && o.state == c.state)
                {
                    continue;
                }
                self.cands.push(c);
            }
        }
        self.settle(at + 1);
    }

    /// The end of the stream at `scanned`.
    fn step_eoi(&mut self) {
        let at = self.scanned;
        let inner = &*self.set.inner;
        let dfa = &inner.dfa;
        for c in self.cands.iter_mut().filter(|c| c.live) {
            let s = dfa.next_eoi_state(c.state);
            if dfa.is_match_state(s) && !(c.start == at && self.no_empty_at == Some(at)) {
                c.end = Some(at);
            }
            c.live = false;
        }
        self.cands.retain(|c| c.end.is_some());
        if self.cands.is_empty() && self.no_empty_at != Some(at) {
            let prev = self.byte_before(at);
            for p in 0..self.set.len() {
                if !self.watch.contains(p) {
                    continue;
                }
                if let Some(s0) = start_state(dfa, p, prev)
                    && dfa.is_match_state(dfa.next_eoi_state(s0))
                {
                    self.cands.push(Cand {
                        start: at,
                        pattern: p,
                        state: s0,
                        end: Some(at),
                        live: false,
                    });
                }
            }
        }
        self.settle(at);
    }

    /// After the byte before `now`: drop what cannot win, apply the hold-back limit,
    /// decide a match when nothing earlier or equal can change it.
    fn settle(&mut self, now: usize) {
        loop {
            if let Some(first_match) = self.cands.iter().position(|c| c.end.is_some()) {
                let start = self.cands.get(first_match).map_or(0, |c| c.start);
                self.cands.retain(|c| c.start <= start);
            }
            let Some(first) = self.cands.first().copied() else {
                return;
            };
            if now - first.start >= self.max_held && self.cands.iter().any(|c| c.live) {
                // Give up the earliest start: its match if it has one, else its bytes.
                self.limit_hits += 1;
                let mut any_match = false;
                for c in self.cands.iter_mut().filter(|c| c.start == first.start) {
                    c.live = false;
                    any_match |= c.end.is_some();
                }
                if any_match {
                    self.cands
                        .retain(|c| c.start == first.start && c.end.is_some());
                } else {
                    self.cands.retain(|c| c.start != first.start);
                    continue;
                }
            }
            // Decide: the earliest start with a match, once every candidate at or before it
            // is done.
            let Some(best_start) = self.cands.iter().find(|c| c.end.is_some()).map(|c| c.start)
            else {
                return;
            };
            if self.cands.iter().any(|c| c.start <= best_start && c.live) {
                return;
            }
            let mut best: Option<(usize, usize)> = None;
            for c in self.cands.iter().filter(|c| c.start == best_start) {
                if let Some(end) = c.end
                    && best.is_none_or(|(e, _)| end > e)
                {
                    best = Some((end, c.pattern));
                }
            }
            if let Some((end, pattern)) = best {
                self.decided = Some((best_start, end, pattern));
                self.cands.clear();
            }
            return;
        }
    }
}

/// The start bytes of a watch set (positions after the stream's first byte).
#[derive(Debug, Clone, Copy)]
struct Prefilter {
    watch: Watch,
    table: [bool; 256],
    /// Distinct start bytes when there are at most three (for `memchr`).
    firsts: [u8; 3],
    nfirsts: usize,
    /// No byte can start a watched pattern.
    nothing: bool,
}

/// Watch sets whose start bytes a matcher keeps.
const PREFILTER_CACHE: usize = 16;

/// What [`PatternMatcher::ready`] found.
#[derive(Debug, Clone, Copy)]
enum Ready {
    Text(usize),
    Match { end: usize, pattern: usize },
}

/// The candidate `c` moved to state `s` on the byte at `at`.
#[inline]
fn advance(inner: &Inner, c: &mut Cand, s: StateID, at: usize, no_empty_at: Option<usize>) {
    let dfa = &inner.dfa;
    if dfa.is_match_state(s) && !(c.start == at && no_empty_at == Some(at)) {
        c.end = Some(at);
    }
    if dfa.is_dead_state(s) || dfa.is_quit_state(s) {
        c.live = false;
        return;
    }
    c.state = s;
    let flags = inner
        .flags
        .get(s.as_usize() >> inner.stride2)
        .copied()
        .unwrap_or(0);
    if flags & SETTLED != 0 && inner.settle_early.get(c.pattern).copied().unwrap_or(false) {
        c.end = Some(at + 1);
        c.live = false;
    } else if flags & ENDS != 0 && c.end.is_some() {
        c.live = false;
    }
}

/// Drops a later candidate in the same state as an earlier live one, when it has no match
/// yet: it can only match where the earlier one does, and the earlier one wins.
fn dedup(cands: &mut Vec<Cand>) {
    if cands.len() < 2 {
        return;
    }
    let mut i = 1;
    while i < cands.len() {
        let Some(&c) = cands.get(i) else { break };
        let dup = c.live
            && c.end.is_none()
            && cands
                .get(..i)
                .is_some_and(|before| before.iter().any(|o| o.live && o.state == c.state));
        if dup {
            cands.remove(i);
        } else {
            i += 1;
        }
    }
}

/// Pattern `p`'s anchored start state after the byte `prev`.
#[inline]
fn start_state(dfa: &dense::DFA<Vec<u32>>, p: usize, prev: Option<u8>) -> Option<StateID> {
    let pid = PatternID::new(p).ok()?;
    dfa.start_state(
        &start::Config::new()
            .anchored(Anchored::Pattern(pid))
            .look_behind(prev),
    )
    .ok()
}

/// A UTF-8 continuation byte: no match starts there.
#[inline]
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}
