//! Pythonic tool calls, `[get_weather(city='Paris', days=3), get_time()]`: the
//! `llama-pythonic` scanner (Llama 3.2 / Llama 4, anywhere in the text) and the same
//! scanner framed by markers, [`Frame`]: `lfm2` (`<|tool_call_start|>[..]<|tool_call_end|>`,
//! Liquid LFM2) and `olmo3` (`<function_calls>` one call per line `</function_calls>`,
//! OLMo 3).
//!
//! Byte-level and incremental. `ToolCallStart` is emitted by the feed that delivers the
//! `(` after the name; the keyword arguments are converted to JSON object text by the
//! [`PyArgs`](crate::scan::pythonic::PyArgs) transducer *while they arrive* (strings grow as they stream); the call
//! ends (`ToolCallEnd`) at its `)`. A list holds any number of calls separated by `,`
//! and closes with `]`; text before and after is text.
//!
//! # Markers
//!
//! A [`Frame`] names the special tokens that introduce a call list (`<|python_tag|>` and
//! Llama 4's `<|python_start|>` for `llama-pythonic`, `<|tool_call_start|>` for `lfm2`,
//! `<function_calls>` for `olmo3`) and those that close it (`<|python_end|>`,
//! `<|tool_call_end|>`, `</function_calls>`). An opening token followed by a call list is
//! consumed as the list's marker (never text); a closing token right after the list
//! (whitespace between) is consumed too. A token that no call list follows is text, byte
//! for byte, like any other text. `olmo3` calls may come without brackets, one per line
//! (`,` between them is accepted too). `lfm2` and `olmo3` only read calls after their
//! opening token; `llama-pythonic` also reads a bare `[`.
//!
//! # Marker-less rules (`llama-pythonic`)
//!
//! There is no marker, so a call may start at any `[`. Text is held back only while the
//! bytes since that `[` still match the call header `[` ws* name `(` — at most
//! [`MAX_NAME`] name bytes (and [`Limits::max_held_bytes`]) — and released verbatim the
//! moment they cannot: `[1, 2]`, `[link](url)`, `[ x ]`, `[see below]` are text, byte for
//! byte. Once the `(` arrives the header is decided: it is a call.
//!
//! - Names: `[A-Za-z_][A-Za-z0-9_.-]*`, no trailing `.`/`-`, no `..`. A dotted name
//!   ending in `.call` is a Llama built-in tool (`brave_search.call(query='x')`, as
//!   Llama 3.1 writes them): the call is named by what precedes `.call` (`brave_search`,
//!   the name Llama Stack gives it). Other dotted names are kept whole (`math.sqrt`).
//! - [`ParserConfig::tool_names`](crate::ParserConfig::tool_names): a header whose name is not
//!   declared is text. So is one whose name is not among [`ParserConfig::tools`](crate::ParserConfig::tools)
//!   (unless `reject_undeclared(false)`), except a later call of a list that is already
//!   calls (`, name(`): that one is a call, which the call table rejects (an
//!   `undeclared_tool` error carrying `name(..)`), and the calls after it still count.
//!   [`ParserConfig::calls_at_start_only`](crate::ParserConfig::calls_at_start_only): a bare `[` after
//!   non-whitespace text is text (further calls of the same list still count; an opening
//!   token is a marker and always counts).
//! - After a call's `)`: `,` and another call, or `]`. Anything else ends the list and
//!   is text (the calls before it stand).
//!
//! # Errors and recovery
//!
//! An opening token that is a special token (`<|python_tag|>`, `<|python_start|>`,
//! `<|tool_call_start|>`; not OLMo's plain `<function_calls>`) inside a string of a
//! call's arguments ends the call there (cut short: `truncated`, its bytes up to the
//! token) and opens the next list: string content stops at `<` and only there are the
//! tokens matched ([`PyArgs`](crate::scan::pythonic::PyArgs) stops, this scanner holds
//! the bytes).
//!
//! Arguments that are not keyword arguments with literal values (`f(1)`, `f(x=y)`,
//! `f(a={b=1})`, …; see [`PyArgs`](crate::scan::pythonic::PyArgs) for what is accepted) make the call fail: it gets
//! its `Error` event instead of `ToolCallEnd`. The scanner then skips to the end of
//! the broken call — the `)` that balances its `(`, tracking brackets and quoted
//! strings, or a `]` at its top level — and carries on after it (`,` another call, `]`,
//! then text). A call cut off by the end of input gets an `Error` of kind `truncated`.
//! Either error's `raw` is the model's own bytes of the call (the crate's rule for every
//! text format): from its first marker byte — the opening token or `[` of its list for
//! the list's first call, its name for a later one — through its end and, when the list
//! closes right after it, the list's `]` (and the whitespace before it: the list's last
//! byte is nowhere else), or through the end of the input, up to
//! [`Limits::max_argument_bytes`].
//!
//! Invalid UTF-8 in text becomes U+FFFD; a UTF-8 character split across feeds is held
//! until complete.
//!
//! # Reasoning
//!
//! A frame's reasoning pairs (`<think>` / `</think>` for `lfm2` and `olmo3`; none for
//! `llama-pythonic`; replaced by [`ParserConfig::reasoning_tags`](crate::ParserConfig::reasoning_tags))
//! are found where the text's `<` is (only tags that begin with `<`): a block is read by
//! the kit's text stage ([`Block`]) with the rules of every marker syntax (line breaks
//! next to the tags dropped, a call inside reasoning is reasoning,
//! [`ParserConfig::reasoning_open`](crate::ParserConfig::reasoning_open) starts inside
//! one). A frame's end-of-turn tokens (`lfm2`'s `<|im_end|>`) are dropped from the text.
//! [`ParserConfig::calls_in_reasoning`](crate::ParserConfig::calls_in_reasoning) is not
//! read here: no call is extracted from inside reasoning.
//!
//! A [`Frame`]'s tokens are borrowed constants for the built-ins and owned for a spec's
//! `python-call-list` field ([`Syntax`](crate::Syntax); `src/spec/pylist.rs`): they are
//! compared only while a tag is held, never in the argument loop.

use std::borrow::Cow;

use crate::calls::{Calls, Slot};
use crate::event::EventSink;
use crate::limits::Limits;
use crate::scan::find::{find1, find2};
use crate::scan::pythonic::Span;
use crate::text::kit::options::TextOptions;
use crate::text::kit::reasoning::Block;
use crate::text::kit::special::{Match, special};
use crate::text::kit::table::Shared;
use crate::text::kit::util::{TextOut, is_name_byte, is_name_start, is_ws};
use crate::text::pythonic::call::{Broken, MAX_NAME, PyCall, callee_name};

pub(crate) mod call;
// Every syntax file of this family (`build.rs`: a file that exports a `ROW`).
include!(concat!(env!("OUT_DIR"), "/text_pythonic.rs"));

/// The special tokens of a [`Frame`]: borrowed constants for the built-ins, owned for a
/// spec's.
pub(crate) type Tokens = Cow<'static, [Cow<'static, [u8]>]>;

/// A [`Frame`]'s reasoning tag pairs.
pub(crate) type Pairs = Cow<'static, [(Cow<'static, str>, Cow<'static, str>)]>;

/// `<think>` / `</think>`, the reasoning pair of `lfm2` and `olmo3`.
pub(crate) const THINK_PAIR: Pairs =
    Cow::Borrowed(&[(Cow::Borrowed("<think>"), Cow::Borrowed("</think>"))]);

/// How a pythonic call list is framed: the special tokens around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    /// Tokens that introduce a call list (consumed as its marker when one follows).
    pub(crate) open: Tokens,
    /// Tokens that close a call list (consumed right after one).
    pub(crate) close: Tokens,
    /// A bare `[` starts a list too (no opening token needed).
    pub(crate) bare_list: bool,
    /// After an opening token, calls may come without brackets, one per line.
    pub(crate) bracketless: bool,
    /// Reasoning tag pairs (replaced by the options' `reasoning_tags`); only tags that
    /// begin with `<` are found in the text.
    pub(crate) reasoning: Pairs,
    /// End-of-turn tokens dropped from the text (`<|im_end|>`; only tokens that begin
    /// with `<`).
    pub(crate) drops: Cow<'static, [Cow<'static, str>]>,
}

// States (bytes in `held` are not yet released as text):
//
//   Text ──'['──> Open ──name byte──> Name ──'('──> Args ──')'──> After ──','──> Open
//    │ ──'<'──> Tag ──open token──> Lead ──'['──^   │ invalid       │ ']' ──> End ──close token──> Text
//    │                               └─ name (bracketless) ──> Name │ name (bracketless) ──> Name
//    │                                             Broken ──end────┘ '<' ──> CloseTag ──> Text
//    └── any state: a byte that cannot continue releases the held bytes as text, re-read in Text
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Text,
    /// `<` and what follows held: a proper prefix of an opening token.
    Tag,
    /// An opening token and whitespace held: `[` (or a name, bracketless) may follow.
    Lead,
    /// `[` (or `,` inside a list) and whitespace held: a name may follow.
    Open,
    /// Reading a name.
    Name,
    /// Streaming a call's arguments.
    Args,
    /// Skipping a broken call.
    Broken,
    /// After a call's `)`: whitespace held, then `,` or `]` (or, bracketless, the next
    /// call or the closing token).
    After,
    /// After a marked list: whitespace held, then the closing token.
    End,
    /// A proper prefix of a closing token held (from `tag_from`).
    CloseTag,
    /// Inside a reasoning block ([`Block`]).
    Think,
    /// After a reasoning block: its line breaks are dropped, then `Text`.
    Skip,
    /// A string of the arguments reached `<` (frames whose opening tokens are special
    /// tokens): held, a proper prefix of an opening token, which would end the call.
    InStr,
    /// The arguments reached `<` where the grammar expects structure: held, a proper
    /// prefix of an opening token, which ends the call; anything else breaks it.
    ArgTag,
}

/// A pythonic call scanner (`llama-pythonic`, `lfm2`, `olmo3`). See the
/// [module docs](self).
#[derive(Debug)]
pub(crate) struct Pythonic {
    frame: Shared<Frame>,
    /// The frame's [`bare_list`](Frame::bare_list), kept here: it is read at every
    /// piece of text (through the handle it cost ~1.3 Ir/B of prose).
    bare_list: bool,
    st: St,
    text: TextOut,
    held: Vec<u8>,
    /// Where the name begins in `held`.
    name_from: usize,
    /// Where a closing token begins in `held`.
    tag_from: usize,
    /// The next call is its list's first (its raw text starts at `held[0]`).
    first: bool,
    /// The list was opened with `[`.
    in_list: bool,
    /// The list was opened with a token (a closing token may follow it).
    marked: bool,
    /// The frame's opening tokens are special tokens (`<|..|>`), never text.
    special_open: bool,
    call: PyCall,
    slot: Option<Slot>,
    broken: Broken,
    options: TextOptions,
    max_held: usize,
    /// The opening reasoning tags found in the text (those that begin with `<`).
    think_tags: Vec<Vec<u8>>,
    /// The frame's end-of-turn tokens that begin with `<`.
    drops: Vec<Vec<u8>>,
    /// The reasoning block being read ([`St::Think`]).
    think: Option<Box<Block>>,
    limits: Limits,
}

impl Pythonic {
    /// A scanner for calls framed by `frame`'s markers.
    pub(crate) fn framed(frame: Shared<Frame>, limits: &Limits, options: &TextOptions) -> Self {
        // Opening tokens that are special tokens (`<|python_tag|>`, not OLMo's
        // `<function_calls>`) are never string content: strings stop at `<`.
        let mut call = PyCall::new(limits);
        call.set_openers(!frame.open.is_empty() && frame.open.iter().all(|t| t.starts_with(b"<")));
        let special_open =
            !frame.open.is_empty() && frame.open.iter().all(|t| t.starts_with(b"<|"));
        if frame.open.iter().all(|t| t.starts_with(b"<|")) {
            call.set_stop(crate::scan::find::StopByte::of(
                frame.open.iter().map(|t| t.as_ref()),
            ));
        }
        let defaults = pairs_of(&frame.reasoning);
        let think_tags: Vec<Vec<u8>> = Block::opening_tags(&options.reasoning, &defaults)
            .into_iter()
            .filter(|t| t.starts_with('<'))
            .map(String::into_bytes)
            .collect();
        let (st, think) = if options.reasoning.open && !think_tags.is_empty() {
            let block = Block::new(&options.reasoning, &defaults, &[], true, limits);
            (St::Think, Some(Box::new(block)))
        } else {
            (St::Text, None)
        };
        Pythonic {
            bare_list: frame.bare_list,
            text: if think_tags.is_empty() {
                TextOut::default()
            } else {
                TextOut::holding_line_breaks()
            },
            drops: frame
                .drops
                .iter()
                .filter(|d| d.starts_with('<'))
                .map(|d| d.as_bytes().to_vec())
                .collect(),
            think_tags,
            think,
            frame,
            st,
            held: Vec::new(),
            name_from: 0,
            tag_from: 0,
            first: true,
            in_list: false,
            marked: false,
            special_open,
            call,
            slot: None,
            broken: Broken::default(),
            options: options.clone(),
            max_held: limits.max_held_bytes.clamp(2, MAX_NAME + 64),
            limits: *limits,
        }
    }

    pub(crate) fn set_text_seen(&mut self, seen: bool) {
        self.text.set_seen(seen);
    }

    pub(crate) fn retained(&self) -> usize {
        self.held.capacity()
            + self.text.held()
            + self.call.retained()
            + self.think.as_ref().map_or(0, |t| t.retained())
    }

    /// Whether a bare `[` may start a call list here.
    fn may_start(&self) -> bool {
        self.bare_list && !(self.options.calls_at_start_only && self.text.seen())
    }

    /// The header failed: its held bytes are text.
    fn release(&mut self) {
        self.text.emit(&self.held);
        self.held.clear();
        self.st = St::Text;
    }

    /// The name being read is no name (the byte that breaks it not taken). After a
    /// special opening token and `[` (`<|tool_call_start|>[get weather(a=1)]`) the list
    /// is a call whose name is no name: an index-less error carrying its bytes, skipped
    /// to its end as a broken call's (a special token is never text); otherwise the
    /// header is text.
    fn bad_name(&mut self, out: &mut dyn EventSink) {
        if !(self.special_open && self.marked && self.in_list && self.first) {
            self.release();
            return;
        }
        self.text.flush(out);
        self.broken
            .begin_nameless(&self.held, self.limits.max_argument_bytes);
        self.held.clear();
        self.first = false;
        self.st = St::Broken;
    }

    /// A name starts with `b`.
    fn begin_name(&mut self, b: u8) {
        self.name_from = self.held.len();
        self.held.push(b);
        self.st = St::Name;
    }

    /// A `<` that may begin a closing token.
    fn begin_close_tag(&mut self) {
        self.tag_from = self.held.len();
        self.held.push(b'<');
        self.st = St::CloseTag;
    }

    /// Holds a whitespace byte; `false` when the bound is reached.
    fn hold_ws(&mut self, b: u8) -> bool {
        if is_ws(b) && self.held.len() < self.max_held {
            self.held.push(b);
            true
        } else {
            false
        }
    }

    pub(crate) fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        // Inside a call's arguments most pieces are only more of a string: what `scan`'s
        // `Args` state does with them, without its loop and the transducer's.
        if self.args_run(bytes, calls, out) {
            return;
        }
        self.scan(bytes, calls, out);
        self.text.commit(out);
    }

    /// The hot path of [`feed`](Self::feed): `bytes` is more of an argument string
    /// ([`PyCall::string_run`]), also when a stop byte held at the end of the last piece
    /// turns out content (this piece's first byte continues no token: what `St::InStr`
    /// finds, without the token match), or when this piece ends on a stop byte (held as
    /// `St::InStr` holds it). `false`, nothing done, otherwise.
    #[inline]
    fn args_run(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) -> bool {
        match self.st {
            St::Args => {}
            St::InStr
                if self.held.len() == 1
                    && self
                        .call
                        .stop()
                        .is_some_and(|stop| !stop.may_begin(bytes.first())) =>
            {
                self.held.clear();
                self.call.past_stop();
                self.st = St::Args;
                self.rescan(b"<", calls, out);
                if self.st != St::Args {
                    return false;
                }
            }
            _ => return false,
        }
        match self.call.string_span_run(self.slot, bytes, calls, out) {
            Span::All => true,
            Span::Head => {
                // In a string's body: the `<` at the end stops there.
                self.held.clear();
                self.held.push(b'<');
                self.st = St::InStr;
                true
            }
            Span::No => false,
        }
    }

    /// [`scan`](Self::scan) out of line: the bytes read again from inside it (rare), so
    /// that `scan` has one caller besides this and is inlined into `feed`.
    #[inline(never)]
    fn rescan(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        self.scan(bytes, calls, out);
    }

    #[inline(always)]
    fn scan(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        let mut i = 0;
        while let Some(rest) = bytes.get(i..).filter(|r| !r.is_empty()) {
            let Some(&b) = rest.first() else { break };
            match self.st {
                St::Skip => {
                    // After a reasoning block: its line breaks are dropped.
                    let n = rest
                        .iter()
                        .take_while(|b| matches!(b, b'\n' | b'\r'))
                        .count();
                    if n == rest.len() {
                        return;
                    }
                    i += n;
                    self.st = St::Text;
                }
                St::Text => {
                    let found = if self.may_start() {
                        find2(b'[', b'<', rest)
                    } else {
                        find1(b'<', rest)
                    };
                    let Some(p) = found else {
                        self.text.emit_last(rest, out);
                        return;
                    };
                    self.text.emit(rest.get(..p).unwrap_or_default());
                    i += p + 1;
                    let c = rest.get(p).copied().unwrap_or(b'<');
                    self.held.clear();
                    self.held.push(c);
                    self.first = true;
                    if c == b'[' && !self.may_start() {
                        // Text just emitted before it rules a bare list out.
                        self.release();
                    } else if c == b'[' {
                        self.in_list = true;
                        self.marked = false;
                        self.st = St::Open;
                    } else if self.frame.open.is_empty()
                        && self.think_tags.is_empty()
                        && self.drops.is_empty()
                    {
                        self.release();
                    } else {
                        self.st = St::Tag;
                    }
                }
                St::Tag => {
                    self.held.push(b);
                    match special(&self.held, &self.frame.open) {
                        Match::Full(_) => {
                            self.marked = true;
                            self.st = St::Lead;
                            i += 1;
                        }
                        m => match (
                            m,
                            special(&self.held, &self.think_tags),
                            special(&self.held, &self.drops),
                        ) {
                            (_, Match::Full(_), _) => {
                                self.open_reasoning(out);
                                i += 1;
                            }
                            (_, _, Match::Full(_)) => {
                                // An end-of-turn token: dropped.
                                self.held.clear();
                                self.st = St::Text;
                                i += 1;
                            }
                            (Match::Prefix, _, _)
                            | (_, Match::Prefix, _)
                            | (_, _, Match::Prefix) => i += 1,
                            _ => {
                                self.held.pop();
                                self.release();
                            }
                        },
                    }
                }
                St::Think => {
                    let Some(ended) = self.think.as_mut().and_then(|t| t.read(rest, out)) else {
                        return;
                    };
                    self.think = None;
                    self.st = if ended.closed { St::Skip } else { St::Text };
                    if !ended.again.is_empty() {
                        // (No reasoning tag can start in them: this does not come back.)
                        self.rescan(&ended.again, calls, out);
                    }
                    i += ended.at;
                }
                St::Lead => {
                    if self.hold_ws(b) {
                        i += 1;
                    } else if b == b'[' {
                        self.held.push(b);
                        self.in_list = true;
                        self.st = St::Open;
                        i += 1;
                    } else if self.frame.bracketless && is_name_start(b) {
                        self.in_list = false;
                        self.begin_name(b);
                        i += 1;
                    } else {
                        self.release();
                    }
                }
                St::Open => {
                    if self.hold_ws(b) {
                        i += 1;
                    } else if is_name_start(b) {
                        self.begin_name(b);
                        i += 1;
                    } else {
                        self.release();
                    }
                }
                St::Name => {
                    let prev = self.held.last().copied().unwrap_or(b'.');
                    let len = self.held.len() - self.name_from;
                    if is_name_byte(b) {
                        // After `.` a name starts again; no `-.`.
                        let ok = (prev != b'.' || is_name_start(b))
                            && !(b == b'.' && prev == b'-')
                            && len < MAX_NAME
                            && self.held.len() < self.max_held;
                        if ok {
                            self.held.push(b);
                            i += 1;
                        } else {
                            self.bad_name(out);
                        }
                    } else if b == b'(' && prev != b'.' && prev != b'-' {
                        if self.start(calls, out) {
                            i += 1;
                        } else {
                            self.release();
                        }
                    } else {
                        self.bad_name(out);
                    }
                }
                St::Args | St::Broken => {
                    let skipping = self.st == St::Broken;
                    let Some((n, still_skipping)) = self.call.step(
                        skipping,
                        self.in_list,
                        self.slot,
                        rest,
                        &mut self.broken,
                        calls,
                        out,
                    ) else {
                        return;
                    };
                    i += n;
                    self.st = if still_skipping {
                        St::Broken
                    } else if self.call.take_stopped() {
                        self.held.clear();
                        St::InStr
                    } else if self.call.at_opener() {
                        self.held.clear();
                        St::ArgTag
                    } else {
                        St::After
                    };
                }
                St::InStr => {
                    self.held.push(b);
                    match special(&self.held, &self.frame.open) {
                        Match::Full(_) => {
                            // An opening token inside a string: the call ends there
                            // (cut short, its bytes up to the token) and the token is
                            // the next list's marker (the recovery rule).
                            self.call.truncated(self.slot, calls, out);
                            self.slot = None;
                            self.first = true;
                            self.marked = true;
                            self.st = St::Lead;
                            i += 1;
                        }
                        Match::Prefix => i += 1,
                        Match::No => {
                            // String content after all (this byte read again after it).
                            self.held.pop();
                            let given = std::mem::take(&mut self.held);
                            self.call.past_stop();
                            self.st = St::Args;
                            self.rescan(&given, calls, out);
                            if self.held.is_empty() {
                                // The buffer kept (a `<` in content is common).
                                self.held = given;
                                self.held.clear();
                            }
                        }
                    }
                }
                St::ArgTag => {
                    self.held.push(b);
                    match special(&self.held, &self.frame.open) {
                        Match::Full(_) => {
                            // An opening token between the arguments: the call ends
                            // there (the recovery rule), as inside a string.
                            self.call.truncated(self.slot, calls, out);
                            self.slot = None;
                            self.first = true;
                            self.marked = true;
                            self.st = St::Lead;
                            i += 1;
                        }
                        Match::Prefix => i += 1,
                        Match::No => {
                            // The call breaks at its `<` (this byte read again after it).
                            self.held.pop();
                            self.arg_tag_mismatch(calls, out);
                        }
                    }
                }
                St::After => {
                    if self.broken.pending() && !(is_ws(b) && self.held.len() < self.max_held) {
                        if b == b']' && self.in_list {
                            // The list closes after a broken call: its `]` (and the
                            // whitespace before) ends that call's raw text.
                            let ws = std::mem::take(&mut self.held);
                            self.broken.close_list(&ws, calls, out);
                            self.held = ws;
                            self.held.clear();
                            self.st = if self.marked && !self.frame.close.is_empty() {
                                St::End
                            } else {
                                St::Text
                            };
                            i += 1;
                            continue;
                        }
                        self.broken.end(calls, out);
                    }
                    if self.hold_ws(b) {
                        i += 1;
                    } else if b == b',' {
                        self.held.push(b);
                        self.st = St::Open;
                        i += 1;
                    } else if b == b']' && self.in_list {
                        self.held.clear();
                        self.st = if self.marked && !self.frame.close.is_empty() {
                            St::End
                        } else {
                            St::Text
                        };
                        i += 1;
                    } else if !self.in_list && is_name_start(b) {
                        // Bracketless: the next call, one per line.
                        self.begin_name(b);
                        i += 1;
                    } else if !self.in_list && b == b'<' {
                        self.begin_close_tag();
                        i += 1;
                    } else {
                        self.release();
                    }
                }
                St::End => {
                    if self.hold_ws(b) {
                        i += 1;
                    } else if b == b'<' {
                        self.begin_close_tag();
                        i += 1;
                    } else {
                        self.release();
                    }
                }
                St::CloseTag => {
                    self.held.push(b);
                    let tag = self.held.get(self.tag_from..).unwrap_or_default();
                    match special(tag, &self.frame.close) {
                        Match::Full(_) => {
                            // The list's closing token (and the whitespace before it).
                            self.held.clear();
                            self.st = St::Text;
                            i += 1;
                        }
                        Match::Prefix => i += 1,
                        Match::No => match special(tag, &self.frame.open) {
                            // An opening token after a list (the kit's recovery rule:
                            // a special token is never text): the next list's marker.
                            // What was held before it is text.
                            found @ (Match::Full(_) | Match::Prefix) => {
                                let tag = self.held.split_off(self.tag_from);
                                self.text.emit(&self.held);
                                self.held = tag;
                                self.first = true;
                                self.st = if matches!(found, Match::Full(_)) {
                                    self.marked = true;
                                    St::Lead
                                } else {
                                    St::Tag
                                };
                                i += 1;
                            }
                            Match::No => {
                                self.held.pop();
                                self.release();
                            }
                        },
                    }
                }
            }
        }
    }

    /// The `<` of [`St::ArgTag`] (and the bytes held after it) begins no opening token:
    /// the call breaks at it, and they are skipped as the broken call's.
    fn arg_tag_mismatch(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        let given = std::mem::take(&mut self.held);
        let ended = self.call.fail_held(&mut self.broken, self.slot, calls, out);
        self.st = if ended { St::After } else { St::Broken };
        self.rescan(&given, calls, out);
    }

    /// An opening reasoning tag (held): the block is reasoning up to its closing tag,
    /// read by the kit's text stage (the line breaks right before the tag dropped).
    fn open_reasoning(&mut self, out: &mut dyn EventSink) {
        self.text.drop_line_breaks();
        self.text.flush(out);
        let defaults = pairs_of(&self.frame.reasoning);
        let mut block = Block::new(&self.options.reasoning, &defaults, &[], false, &self.limits);
        block.start(&self.held, out);
        self.held.clear();
        self.think = Some(Box::new(block));
        self.st = St::Think;
    }

    /// The `(` after a name arrived: starts the call. `false` when the name is not
    /// allowed (the header is text).
    fn start(&mut self, calls: &mut Calls, out: &mut dyn EventSink) -> bool {
        let callee = self.held.get(self.name_from..).unwrap_or_default();
        let Ok(callee_str) = std::str::from_utf8(callee) else {
            return false;
        };
        let name = callee_name(callee_str);
        let continues = self.held.first() == Some(&b',');
        if !self.options.allows_header(name, continues) {
            return false;
        }
        self.text.flush(out);
        self.slot = calls.open_scanned(out);
        if let Some(s) = self.slot {
            calls.set_name(s, name, out);
        }
        // The call's raw text: from its list's first marker byte for the first call,
        // from its name for a later one.
        let from = if self.first { 0 } else { self.name_from };
        self.call.begin(self.held.get(from..).unwrap_or_default());
        self.first = false;
        self.held.clear();
        self.st = St::Args;
        true
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        if self.st == St::InStr {
            // The text ended on a prefix of an opening token: string content.
            let given = std::mem::take(&mut self.held);
            self.call.past_stop();
            self.st = St::Args;
            self.rescan(&given, calls, out);
        }
        if self.st == St::ArgTag {
            self.arg_tag_mismatch(calls, out);
        }
        match self.st {
            St::Text | St::Skip => {}
            St::Think => {
                if let Some(t) = self.think.take() {
                    t.finish(out);
                }
            }
            St::Open | St::Name
                if self.special_open && self.marked && self.in_list && self.first =>
            {
                // A special opening token and `[`, cut off before a call: the list's
                // error (a special token is never text).
                self.text.flush(out);
                let mut raw = crate::text::kit::call::Raw::new(self.limits.max_argument_bytes);
                raw.push(&String::from_utf8_lossy(&self.held));
                self.held.clear();
                crate::text::kit::call::report(
                    calls,
                    None,
                    crate::event::ErrorKind::Truncated,
                    "the text ended inside a pythonic tool call list",
                    &mut raw,
                    out,
                );
            }
            St::Tag | St::Lead | St::Open | St::Name | St::After | St::End | St::CloseTag => {
                if self.broken.pending() {
                    self.broken.end(calls, out);
                }
                self.release()
            }
            St::Args | St::InStr | St::ArgTag => self.call.truncated(self.slot, calls, out),
            St::Broken => self.broken.end(calls, out),
        }
        self.st = St::Text;
        self.text.flush(out);
    }
}

/// A frame's reasoning pairs as the kit's [`Block`] takes them.
fn pairs_of(p: &Pairs) -> Vec<(&str, &str)> {
    p.iter().map(|(o, c)| (&**o, &**c)).collect()
}
