//! The special-token section engine: a section token around the calls, and per call a
//! begin token, a head (the name, or the model's own call id), a separator, the JSON
//! arguments and an end token. One scanner, [`Sections`], driven by a [`Tokens`] table
//! per syntax: [`deepseek`] (DeepSeek's tokens; note the full-width `｜` and the `▁`
//! characters: multi-byte markers that may be split at any byte) and [`kimi_k2`], or a
//! spec's (`toolstream.engine` `"sections"`, its tokens in `toolstream.sections`: see
//! [`spec`](crate::spec); `toolstream spec deepseek` prints this engine's table for
//! `deepseek`). The rules below are the engine's, whichever table drives it.
//!
//! - V3 / R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>name\n`
//!   `` ```json\n{..}\n``` ``<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`
//! - V3.1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>name<｜tool▁sep｜>{..}<｜tool▁call▁end｜>…`
//! - `kimi-k2`, the same shape with Kimi K2's tokens ([`KIMI_K2`](kimi_k2::KIMI_K2)):
//!   `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{..}<|tool_call_end|>…<|tool_calls_section_end|>`.
//!   The head is the model's own call id, kept verbatim as the call's id (Kimi stops
//!   calling tools when the ids it wrote are rewritten); the name is NAME (a head
//!   without the `functions.` prefix or the `:IDX` suffix is read the same way).
//!   Start at `<|tool_call_argument_begin|>`; the end-of-turn `<|im_end|>` is dropped.
//!
//! ```text
//!   Text ──<｜tool▁call▁begin｜>──> Head ──<｜tool▁sep｜>──┬─ head "function", then not '{' ──> Name ──'\n'──> Fence ──> Json
//!                                                       └─ otherwise (name = head) ─────────────────────────────> Json
//!   Json ──value closed──> After ──<｜tool▁call▁end｜>──> Text
//! ```
//!
//! Rules:
//!
//! - Start: V3.1 at `<｜tool▁sep｜>` (the name is what came before it); V3 at the newline
//!   after the name. A V3 name holding whitespace, a quote, `=` or a brace (an attribute
//!   or a JSON object lost into the name line) is no name: the call is malformed, an
//!   error with its bytes. A V3 name that runs into a `<` is malformed there: the `<` is read
//!   with the skipped text, so a begin token right after the name starts the next call. A V3.1 head of `function` is only settled by the next character
//!   (`{` → a tool named `function`).
//! - The arguments are the model's own JSON bytes; the optional `` ```json `` fence
//!   around them is skipped (the JSON may start on the fence's own line:
//!   `` ```json {"a": 1}``` ``; a `<` on that line is where the JSON starts, so a begin
//!   token there is the next call, and anything else a malformed call); End when the
//!   value closes.
//! - The kit's [recovery rule](crate::text::kit::recovery): a call's begin token where
//!   its JSON broke, in its head (before the separator), or in the text of a broken call,
//!   ends that call as an error carrying its bytes and starts the new call; so does a
//!   begin token inside an argument string (a special token is never content: the string
//!   scan stops at its `<`).
//! - `<｜tool▁calls▁begin｜>`, `<｜tool▁calls▁end｜>` and `<｜end▁of▁sentence｜>` are
//!   dropped from the text (the whitespace before them is text). A table whose section
//!   tokens are several ordinary tokens ([`Tokens::literal_sections`], PLaMo 3's) drops
//!   them only where they frame calls: `calls_begin` when `call_begin` follows it (past
//!   whitespace, dropped with it; held until then, up to the held-bytes limit),
//!   `calls_end` after a call began; anywhere else they are text, byte for byte; `<think>` reasoning (R1)
//!   and whitespace: see [`reasoning`](crate::text::kit::reasoning).
//! - Malformed (no `<｜tool▁sep｜>`, a name running past a line, broken JSON) → `Error`
//!   carrying the raw call text through `<｜tool▁call▁end｜>`; other text between the
//!   arguments and `<｜tool▁call▁end｜>` (besides the fence) → an `Error` without index
//!   carrying it. Cut off → `Error` (`Truncated`) unless the arguments had closed.

use std::borrow::Cow;

use crate::calls::{Calls, Slot};
use crate::event::EventSink;
use crate::event::{ErrorKind, Event};
use crate::limits::Limits;
use crate::scan::marker::{Found, MarkerMatcher, MarkerSet};
use crate::text::kit::call::{ArgStep, ArgValue, Forming, Raw};
use crate::text::kit::reasoning::{ReasoningOptions, TextStage};
use crate::text::kit::recovery::{InString, Look, interrupted_own};
use crate::text::kit::table::Shared;
use crate::text::kit::util::args_string_run;
use crate::text::kit::util::is_ws_char as is_ws;
use crate::text::kit::util::{CharInput, ReadsChars, reads_chars};

// Every syntax file of this family (`build.rs`: a file that exports a `ROW`).
include!(concat!(env!("OUT_DIR"), "/text_sections.rs"));

const MAX_NAME: usize = 256;

/// A token of a [`Tokens`] table: borrowed in a built-in's, owned in a spec's.
pub(crate) type Token = Cow<'static, str>;

/// The special tokens of a syntax of this shape, and how its call head reads: a
/// built-in's `const` (borrowed) or a spec's (owned, [`spec`](crate::spec)). The
/// scanner's marker sets are built from it once, at construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tokens {
    /// The syntax's name, for messages.
    pub(crate) label: Token,
    /// Opens the section of calls (dropped from the text).
    pub(crate) calls_begin: Token,
    /// Closes the section of calls (dropped from the text).
    pub(crate) calls_end: Token,
    /// Opens one call.
    pub(crate) call_begin: Token,
    /// Closes one call.
    pub(crate) call_end: Token,
    /// Between the head and the arguments.
    pub(crate) sep: Token,
    /// End-of-turn tokens dropped from the text.
    pub(crate) eos: Cow<'static, [Token]>,
    /// How the head reads.
    pub(crate) head: Head,
    /// The reasoning tag pairs ([`THINK_TAGS`] for the built-ins; replaced by
    /// [`ReasoningOptions::tags`] when set).
    pub(crate) reasoning: Cow<'static, [(Token, Token)]>,
    /// `calls_begin` and `call_begin` end an open reasoning block (Kimi K2 may start its
    /// calls without closing `<think>`: [`TextStage::calls_end_reasoning`]).
    pub(crate) calls_end_reasoning: bool,
    /// The section tokens are dropped only where they frame calls (`calls_begin` followed,
    /// past whitespace, by `call_begin`; `calls_end` after a call began), and are text,
    /// byte for byte, anywhere else: for tags the model writes as several ordinary tokens
    /// (PLaMo 3's), which prose can hold. `false`: dropped wherever they stand (single
    /// special tokens, DeepSeek's and Kimi K2's).
    pub(crate) literal_sections: bool,
}

/// The pair of [`THINK`](crate::text::kit::reasoning::THINK) (`<think>` / `</think>`)
/// as a [`Tokens::reasoning`] list.
pub(crate) const THINK_TAGS: &[(Token, Token)] =
    &[(Cow::Borrowed("<think>"), Cow::Borrowed("</think>"))];

/// What the text between the call's begin token and the separator is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Head {
    /// DeepSeek: V3's `function` type (the name follows on its line) or V3.1's name.
    DeepSeek,
    /// Kimi K2: the model's call id `functions.NAME:IDX`, kept as the call id; the
    /// name is NAME.
    KimiId,
}

/// The tool name in a Kimi K2 call id `functions.NAME:IDX` (either part may be missing).
fn kimi_name(id: &str) -> &str {
    let name = id.strip_prefix("functions.").unwrap_or(id);
    match name.rsplit_once(':') {
        Some((n, idx)) if !idx.is_empty() && idx.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => name,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Text,
    /// After a `calls_begin` that is dropped only if a call follows it
    /// ([`Tokens::literal_sections`]): whitespace, then `call_begin` (held in
    /// [`DeepSeek::section`]).
    Section,
    /// After `<｜tool▁call▁begin｜>`: the type (V3) or the name (V3.1).
    Head,
    /// After `function<｜tool▁sep｜>`: V3's name, or V3.1's arguments of a tool named `function`.
    Decide,
    /// V3: the name, up to the newline.
    Name,
    /// Before the arguments: whitespace and an optional `` ```json `` line.
    Fence {
        in_line: bool,
    },
    Json,
    /// An argument string reached `<`: the call's begin token there ends the call
    /// ([`Sections::in_string`]).
    Special,
    /// The arguments closed: up to `<｜tool▁call▁end｜>`.
    After,
    /// Malformed: raw text up to `<｜tool▁call▁end｜>`.
    Skip(ErrorKind),
}

/// Scanner for `deepseek`. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct Sections {
    tokens: Shared<Tokens>,
    /// The bytes of a character cut by the last feed.
    input: CharInput,
    text: TextStage,
    st: St,
    head_set: MarkerSet,
    after_set: MarkerSet,
    /// The call's end token, then the next call's begin token: what ends a broken call.
    end_set: MarkerSet,
    /// The call broke at the current position and nothing of its rest was read yet.
    fresh: bool,
    matcher: MarkerMatcher,
    raw: Forming,
    name: String,
    slot: Option<Slot>,
    started: bool,
    args: ArgValue,
    /// The begin token, never string content: looked for where an argument string
    /// stops at its `<`.
    in_string: InString,
    /// The next byte read in [`St::Json`] is a `<` that began no token: content.
    past: bool,
    stray: Raw,
    /// [`St::Section`]: the section token, the whitespace after it, then the bytes of
    /// `call_begin` matched so far (the last `matched`); released as text when no call
    /// follows.
    section: String,
    /// How many bytes of `call_begin` end [`section`](Self::section).
    matched: usize,
    /// A call began and no `calls_end` has closed its section yet
    /// ([`Tokens::literal_sections`]: a `calls_end` outside one is text).
    in_section: bool,
    /// The most whitespace held after a section token.
    max_held: usize,
}

reads_chars!(Sections, args: St::Json, special: St::Special, text: St::Text => opened);

impl Sections {
    /// The scanner for the syntax of `tokens` (`deepseek`, `kimi-k2`, a spec's).
    pub(crate) fn with_tokens(
        tokens: Shared<Tokens>,
        limits: &Limits,
        opts: &ReasoningOptions,
    ) -> Self {
        let t = &tokens;
        // The text stage's call markers: `call_begin`, then (`literal_sections`) the
        // section tokens, which [`Self::opened`] decides on; else those are dropped.
        let literal;
        let mut drops: Vec<Token> = Vec::with_capacity(2 + t.eos.len());
        let starts: &[Token] = if t.literal_sections {
            literal = [
                t.call_begin.clone(),
                t.calls_begin.clone(),
                t.calls_end.clone(),
            ];
            &literal
        } else {
            drops.extend([t.calls_begin.clone(), t.calls_end.clone()]);
            std::slice::from_ref(&t.call_begin)
        };
        drops.extend(t.eos.iter().cloned());
        let tags: Vec<(&str, &str)> = t.reasoning.iter().map(|(o, c)| (&**o, &**c)).collect();
        let text = TextStage::new(starts, &drops, &tags, opts, limits);
        // Kimi K2 may start its calls without closing `<think>`.
        let text = if t.calls_end_reasoning {
            text.calls_end_reasoning(&[&t.calls_begin, &t.call_begin])
        } else {
            text
        };
        Sections {
            input: CharInput::default(),
            text,
            st: St::Text,
            head_set: MarkerSet::new([t.sep.clone(), t.call_end.clone(), t.call_begin.clone()]),
            after_set: MarkerSet::new([
                t.call_end.clone(),
                t.calls_end.clone(),
                t.call_begin.clone(),
            ]),
            end_set: MarkerSet::new([t.call_end.clone(), t.call_begin.clone()]),
            fresh: false,
            matcher: MarkerMatcher::new(),
            raw: Forming::new(limits.max_argument_bytes),
            name: String::new(),
            slot: None,
            started: false,
            args: {
                let mut args = ArgValue::new(limits.max_depth);
                args.set_stop(crate::scan::find::StopByte::of([t.call_begin.as_bytes()]));
                args
            },
            in_string: InString::new([t.call_begin.clone()]),
            past: false,
            stray: Raw::new(MAX_NAME * 16),
            section: String::new(),
            matched: 0,
            in_section: false,
            max_held: limits.max_held_bytes,
            tokens,
        }
    }

    pub(crate) fn retained(&self) -> usize {
        self.input.held()
            + self.text.retained()
            + self.matcher.held()
            + self.raw.retained()
            + self.name.capacity()
            + self.stray.retained()
            + self.in_string.held()
            + self.section.capacity()
    }

    /// The text stage found its call marker `marker`: `call_begin`, or
    /// ([`Tokens::literal_sections`]) `calls_begin` (a call must follow it) or `calls_end`
    /// (dropped when it closes a section, text otherwise).
    fn opened(&mut self, marker: usize, out: &mut dyn EventSink) {
        match marker {
            0 => self.begin(),
            1 => {
                self.section.clear();
                self.section.push_str(&self.tokens.calls_begin);
                self.matched = 0;
                self.st = St::Section;
            }
            _ if self.in_section => self.in_section = false,
            // A stray close: the model's text, byte for byte.
            _ => self.text.emit(&self.tokens.calls_end, out),
        }
    }

    /// [`St::Section`] with no call after its token: the token and the whitespace after
    /// it are text; the bytes of `call_begin` matched after them are read again as text.
    fn release_section(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        let held = std::mem::take(&mut self.section);
        let at = held.len().saturating_sub(self.matched);
        self.matched = 0;
        self.st = St::Text;
        self.text.emit(held.get(..at).unwrap_or_default(), out);
        self.run(held.get(at..).unwrap_or_default(), calls, out);
        self.section = held;
        self.section.clear();
    }

    fn begin(&mut self) {
        self.in_section = true;
        self.raw.start(&self.tokens.call_begin);
        self.name.clear();
        self.slot = None;
        self.started = false;
        self.stray.start("");
        self.matcher.clear();
        self.st = St::Head;
    }

    fn start(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.started = true;
        self.slot = calls.open_raw(&mut self.raw, out);
        if let Some(slot) = self.slot {
            let head = self.name.trim_matches(is_ws);
            if self.tokens.head == Head::KimiId {
                // The model's own id, verbatim: Kimi stops calling tools when its ids
                // are rewritten.
                calls.set_id(slot, head);
                calls.set_name(slot, kimi_name(head), out);
            } else {
                calls.set_name(slot, head, out);
            }
        }
        self.args.reset();
    }

    fn run(&mut self, mut s: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        while !s.is_empty() {
            match self.st {
                St::Text => {
                    if let Some(marker) = self.text.run(&mut s, out) {
                        self.opened(marker, out);
                    }
                }
                St::Section => {
                    if self.matched == 0 {
                        let n = s.len() - s.trim_start_matches(is_ws).len();
                        if self.section.len() + n > self.max_held {
                            // More whitespace than is held: no section.
                            self.release_section(calls, out);
                            continue;
                        }
                        self.section.push_str(s.get(..n).unwrap_or_default());
                        s = s.get(n..).unwrap_or_default();
                        if s.is_empty() {
                            continue;
                        }
                    }
                    let want = self
                        .tokens
                        .call_begin
                        .as_bytes()
                        .get(self.matched..)
                        .unwrap_or_default();
                    let common = s
                        .bytes()
                        .zip(want.iter())
                        .take_while(|(a, b)| a == *b)
                        .count();
                    if common == want.len() {
                        // A call follows: the section opens (its token and the
                        // whitespace after it dropped).
                        s = s.get(common..).unwrap_or_default();
                        self.section.clear();
                        self.matched = 0;
                        self.begin();
                    } else if common == s.len() {
                        self.section.push_str(s);
                        self.matched += common;
                        s = "";
                    } else {
                        self.release_section(calls, out);
                    }
                }
                St::Head => {
                    let mut matcher = std::mem::take(&mut self.matcher);
                    match matcher.next(&self.head_set, &mut s) {
                        None => {}
                        Some(Found::Text(t)) => {
                            calls.raw_or(self.slot, &mut self.raw).push(t);
                            // A name over the bound is not kept (the raw text has it).
                            if self.name.len() + t.len() > MAX_NAME {
                                self.st = St::Skip(ErrorKind::MissingName);
                            } else {
                                self.name.push_str(t);
                            }
                        }
                        Some(Found::Marker(0)) => {
                            calls
                                .raw_or(self.slot, &mut self.raw)
                                .push(&self.tokens.sep);
                            let head = self.name.trim_matches(is_ws);
                            let kimi = self.tokens.head == Head::KimiId;
                            if head.is_empty()
                                || head.contains(is_ws)
                                || (kimi && kimi_name(head).is_empty())
                            {
                                self.st = St::Skip(ErrorKind::MissingName);
                            } else if head == "function" && !kimi {
                                self.st = St::Decide;
                            } else {
                                self.start(calls, out);
                                self.st = St::Fence { in_line: false };
                            }
                        }
                        Some(Found::Marker(2)) => {
                            // The next call began inside this one's head: this one ends
                            // here, with its own bytes (never the next call's).
                            let begin = &self.tokens.call_begin;
                            interrupted_own(calls, None, begin, &mut self.raw, out);
                            self.end();
                            self.begin();
                        }
                        Some(Found::Marker(_)) => {
                            calls
                                .raw_or(self.slot, &mut self.raw)
                                .push(&self.tokens.call_end);
                            calls.report(
                                None,
                                ErrorKind::MissingName,
                                &format!(
                                    "a {} tool call without {}",
                                    self.tokens.label, self.tokens.sep
                                ),
                                &mut self.raw,
                                out,
                            );
                            self.end();
                        }
                    }
                    self.matcher = matcher;
                }
                St::Decide => {
                    let t = s.trim_start_matches(is_ws);
                    match t.as_bytes().first() {
                        None => {
                            calls.raw_or(self.slot, &mut self.raw).push(s);
                            s = "";
                        }
                        Some(b'{') | Some(b'[') => {
                            // V3.1, a tool named `function`.
                            self.start(calls, out);
                            self.st = St::Fence { in_line: false };
                        }
                        Some(_) => {
                            // V3: the type was `function`; the name follows, after the
                            // whitespace (line breaks too) skipped here as it is when it
                            // comes in a piece of its own.
                            let ws = s.len() - t.len();
                            calls
                                .raw_or(self.slot, &mut self.raw)
                                .push(s.get(..ws).unwrap_or_default());
                            s = t;
                            self.name.clear();
                            self.st = St::Name;
                        }
                    }
                }
                St::Name => {
                    // A name ends at its newline; `<` (or the first byte of the begin
                    // token) makes it malformed, and is left to the skipped text, where
                    // the next call's begin token is looked for (whatever the chunking).
                    // So does a backtick: a name glued to its fence (`f```json`, the line
                    // break lost) is no name.
                    let first = self.tokens.call_begin.chars().next().unwrap_or('<');
                    let (part, rest, nl) = match s.find(['\n', '<', '`', first]) {
                        Some(i) if s.as_bytes().get(i) == Some(&b'\n') => (
                            s.get(..i).unwrap_or_default(),
                            s.get(i + 1..).unwrap_or_default(),
                            true,
                        ),
                        Some(i) => {
                            let part = s.get(..i).unwrap_or_default();
                            calls.raw_or(self.slot, &mut self.raw).push(part);
                            s = s.get(i..).unwrap_or_default();
                            self.st = St::Skip(ErrorKind::MissingName);
                            continue;
                        }
                        None => (s, "", false),
                    };
                    calls.raw_or(self.slot, &mut self.raw).push(part);
                    s = rest;
                    let over = self.name.len() + part.len() > MAX_NAME;
                    if !over {
                        self.name.push_str(part);
                    }
                    if nl {
                        calls.raw_or(self.slot, &mut self.raw).push("\n");
                    }
                    if over {
                        // The newline (if this piece had one) is in the raw text, as it
                        // is when it arrives later, in the skipped text.
                        self.st = St::Skip(ErrorKind::MissingName);
                        continue;
                    }
                    if nl {
                        let name = self.name.trim_matches(is_ws);
                        if name.is_empty()
                            || name.contains(|c: char| is_ws(c) || "\"'={}".contains(c))
                        {
                            // No name, or junk for one (`get_weather index=`, a quote
                            // or an attribute lost into the name line): an error with
                            // the call's bytes, never a call.
                            self.st = St::Skip(ErrorKind::MissingName);
                            continue;
                        }
                        self.start(calls, out);
                        self.st = St::Fence { in_line: false };
                    }
                }
                St::Fence { in_line } => {
                    if in_line {
                        // A `<` (or the begin token's first byte) on the fence line is
                        // read as the JSON's first byte: a begin token there ends the
                        // call and starts the next one, never taken into this call.
                        let first = self.tokens.call_begin.chars().next().unwrap_or('<');
                        match s.find(['\n', '{', '[', '<', first]) {
                            Some(i) if s.as_bytes().get(i) != Some(&b'\n') => {
                                // The JSON starts on the fence's own line.
                                calls
                                    .raw_or(self.slot, &mut self.raw)
                                    .push(s.get(..i).unwrap_or_default());
                                s = s.get(i..).unwrap_or_default();
                                self.st = St::Json;
                            }
                            Some(i) => {
                                calls
                                    .raw_or(self.slot, &mut self.raw)
                                    .push(s.get(..=i).unwrap_or_default());
                                s = s.get(i + 1..).unwrap_or_default();
                                self.st = St::Fence { in_line: false };
                            }
                            None => {
                                calls.raw_or(self.slot, &mut self.raw).push(s);
                                s = "";
                            }
                        }
                        continue;
                    }
                    let n = s.len() - s.trim_start_matches(is_ws).len();
                    calls
                        .raw_or(self.slot, &mut self.raw)
                        .push(s.get(..n).unwrap_or_default());
                    s = s.get(n..).unwrap_or_default();
                    match s.as_bytes().first() {
                        None => {}
                        Some(b'`') => self.st = St::Fence { in_line: true },
                        Some(_) => self.st = St::Json,
                    }
                }
                St::Json if std::mem::take(&mut self.past) => {
                    self.args
                        .past_stop(&mut s, self.slot, &mut self.raw, calls, out);
                }
                St::Special => match self.in_string.look(s) {
                    Look::NeedMore => s = "",
                    Look::Token { consumed, .. } => {
                        // The next call began inside this one's argument string.
                        s = s.get(consumed..).unwrap_or_default();
                        let begin = &self.tokens.call_begin;
                        interrupted_own(calls, self.slot, begin, &mut self.raw, out);
                        self.end();
                        self.begin();
                    }
                    Look::Content { consumed } => {
                        // String content after all: read again, its `<` as content.
                        s = s.get(consumed..).unwrap_or_default();
                        let given = self.in_string.take_given();
                        self.st = St::Json;
                        self.past = !given.is_empty();
                        self.run(&given, calls, out);
                        self.in_string.put_back(given);
                    }
                },
                St::Json => match self.args.feed(&mut s, self.slot, &mut self.raw, calls, out) {
                    ArgStep::NeedMore => {}
                    // A `<` that begins no token, seen at once: content.
                    ArgStep::Special if self.in_string.content_at(s) => self.past = true,
                    ArgStep::Special => {
                        self.in_string.reset();
                        self.st = St::Special;
                    }
                    ArgStep::Closed => {
                        calls.close_own(self.slot, &mut self.raw, out);
                        self.st = St::After;
                    }
                    ArgStep::Broken(kind) => {
                        self.fresh = true;
                        self.st = St::Skip(kind);
                    }
                },
                St::After => {
                    let mut matcher = std::mem::take(&mut self.matcher);
                    match matcher.next(&self.after_set, &mut s) {
                        None => {}
                        Some(Found::Text(t)) => self.stray.push(t),
                        Some(Found::Marker(m)) => {
                            self.end_stray(out);
                            self.end();
                            if m == 1 {
                                self.in_section = false;
                            }
                            if m == 2 {
                                // The next call began without this one's end marker.
                                self.begin();
                            }
                        }
                    }
                    self.matcher = matcher;
                }
                St::Skip(kind) => {
                    let mut matcher = std::mem::take(&mut self.matcher);
                    match matcher.next(&self.end_set, &mut s) {
                        None => {}
                        Some(Found::Text(t)) => {
                            self.fresh &= t.is_empty();
                            calls.raw_or(self.slot, &mut self.raw).push(t);
                        }
                        Some(Found::Marker(1)) => {
                            // The next call began inside this one: it ends here (cut
                            // short, when its JSON broke right at the token).
                            if self.fresh {
                                let begin = &self.tokens.call_begin;
                                interrupted_own(calls, self.slot, begin, &mut self.raw, out);
                            } else {
                                calls.report(
                                    self.slot,
                                    kind,
                                    &format!("a malformed {} tool call", self.tokens.label),
                                    &mut self.raw,
                                    out,
                                );
                            }
                            self.end();
                            self.begin();
                        }
                        Some(Found::Marker(_)) => {
                            calls
                                .raw_or(self.slot, &mut self.raw)
                                .push(&self.tokens.call_end);
                            calls.report(
                                self.slot,
                                kind,
                                &format!("a malformed {} tool call", self.tokens.label),
                                &mut self.raw,
                                out,
                            );
                            self.end();
                        }
                    }
                    self.matcher = matcher;
                }
            }
        }
    }

    /// Text between the arguments and the end marker, besides whitespace and the fence.
    fn end_stray(&mut self, out: &mut dyn EventSink) {
        let (stray, note) = self.stray.take();
        let kept = stray.trim_matches(|c: char| is_ws(c) || c == '`');
        if !kept.is_empty() || !note.is_empty() {
            out.push(Event::Error {
                path: None,
                kind: ErrorKind::TrailingArguments,
                message: format!(
                    "text after the arguments of a {} tool call{note}",
                    self.tokens.label
                ),
                index: None,
                raw: kept.to_owned(),
            });
        }
    }

    fn end(&mut self) {
        self.fresh = false;
        self.past = false;
        self.st = St::Text;
        self.slot = None;
        self.started = false;
        self.raw.start("");
        self.matcher.clear();
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.run_held(calls, out);
        while self.st == St::Special {
            // The text ended inside what could have been the begin token: string
            // content (each round reads at least its `<`).
            let given = self.in_string.finish();
            self.st = St::Json;
            self.past = !given.is_empty();
            self.run(&given, calls, out);
        }
        while self.st == St::Section {
            // The text ended before a call followed the section token: text (each round
            // holds fewer bytes).
            self.release_section(calls, out);
        }
        let tail = self.matcher.finish().to_owned();
        match self.st {
            St::Text => {}
            St::After => {
                self.stray.push(&tail);
                self.end_stray(out);
            }
            St::Json if self.args.finish(self.slot, &mut self.raw, calls, out) => {
                calls.close_own(self.slot, &mut self.raw, out);
            }
            St::Section
            | St::Head
            | St::Decide
            | St::Name
            | St::Fence { .. }
            | St::Json
            | St::Special
            | St::Skip(_) => {
                calls.raw_or(self.slot, &mut self.raw).push(&tail);
                let kind = match self.st {
                    St::Skip(k) => k,
                    _ => ErrorKind::Truncated,
                };
                calls.report(
                    self.slot,
                    kind,
                    &format!("the text ended inside a {} tool call", self.tokens.label),
                    &mut self.raw,
                    out,
                );
            }
        }
        self.end();
        self.text.finish(out);
    }
}
