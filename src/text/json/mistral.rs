//! `mistral`: Mistral's `[TOOL_CALLS]` syntaxes.
//!
//! In the JSON family but its own scanner, not a table of the [JSON-call engine](super):
//! v11's calls are `name[ARGS]{..}` (a name and an optional `[CALL_ID]` before a bare
//! arguments value, no call object), one `[TOOL_CALLS]` per call, which no table of that
//! engine can express. Its v3 lists run on the engine's own list reader.
//!
//! - v3 (Mistral 7B v0.3, Mixtral, Small 3.1): `[TOOL_CALLS][{"name": .., "arguments": ..}, ..]`
//!   — a JSON array of call objects, streamed with the [`CallList`] of the
//!   [JSON-call engine](super) and its [`JsonCall`](crate::text::kit::json_call::JsonCall) walker
//!   (Start when a name string closes, arguments as the model's own bytes, `"id"` before
//!   the name used as the call id). A single object without the array is accepted.
//! - v11+ (Small 3.2, Devstral, Magistral): `[TOOL_CALLS]name[ARGS]{..}`, each call with
//!   its own `[TOOL_CALLS]`, optionally `[TOOL_CALLS]name[CALL_ID]id[ARGS]{..}`. Start at
//!   `[ARGS]` (after the id, so the Start carries it); the arguments are the JSON value
//!   after `[ARGS]`, streamed as written; the call ends when that value closes.
//!
//! ```text
//!   Text ──[TOOL_CALLS]──> Open ──'['──> Array ──']'──> Text
//!                           │  ──'{'──> Object ──'}'──> Text
//!                           └─ other ──> Name ──[CALL_ID]──> Id ──[ARGS]──> Args ──value closed──> Text
//!                                         └──────────────[ARGS]───────────────┘
//! ```
//!
//! Rules: reasoning in `[THINK]`..`[/THINK]` (Magistral) or `<think>`..`</think>`; `</s>`
//! is dropped; `[TOOL_CALLS]` written again right after `[TOOL_CALLS]` (whitespace
//! between) is part of the same opening; whitespace before `[TOOL_CALLS]` is text (see
//! [`reasoning`](crate::text::kit::reasoning)). `[TOOL_CALLS]` with nothing after it is a call
//! cut off (`truncated`, its bytes in `raw`).
//! Malformed input (a v11 name that is not a name, JSON that breaks) → `Error` carrying
//! the raw text from `[TOOL_CALLS]` up to and including the offending character; the
//! call's own error when its Start was emitted; what follows is text again. The kit's
//! [recovery rule](crate::text::kit::recovery): `[TOOL_CALLS]` ends the open call where
//! its JSON broke (cut short; a v3 call object whose arguments closed is complete) or in
//! a broken call's text, and inside a v11 argument string (never content: the string scan
//! stops at `[`); the new call starts. Cut off by
//! the end of input → `Error` (`Truncated`), unless the call's arguments had closed.

use crate::calls::{Calls, Slot};
use crate::event::ErrorKind;
use crate::event::EventSink;
use crate::format::Format;
use crate::limits::Limits;
use crate::scan::marker::{Found, MarkerMatcher, MarkerSet};
use crate::text::json::{CallList, List, skip_object, skip_to_end};
use crate::text::kit::call::{ArgStep, ArgValue, Forming};
use crate::text::kit::json_call::NAME_ARGUMENTS;
use crate::text::kit::reasoning::{ReasoningOptions, TextStage};
use crate::text::kit::recovery::{InString, Look, interrupted_own};
use crate::text::kit::skip::Skip;
use crate::text::kit::util::args_string_run;
use crate::text::kit::util::is_ws_char as is_ws;
use crate::text::kit::util::{CharInput, ReadsChars, reads_chars};
use crate::text::row::{Builtin, Detect, Row, Tok};

const TOOL_CALLS: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";
const MAX_NAME: usize = 256;
/// The error of a v11 call whose name is missing, too long or not a name.
const NAMELESS: &str = "[TOOL_CALLS] without a valid tool name before [ARGS]";

#[inline]
fn name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/')
}

/// The error of a call whose text broke.
const MALFORMED: &str = "a malformed [TOOL_CALLS] call";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Text,
    /// After `[TOOL_CALLS]`: what follows decides the syntax.
    Open,
    /// After `[TOOL_CALLS]`, the first `n` bytes of `[TOOL_CALLS]` again (a `[` that
    /// may be the marker written twice, or the v3 array's).
    Again(usize),
    /// v3: the array of call objects, or the lone object ([`CallList`]).
    List,
    /// v11: the name (before `[ARGS]` / `[CALL_ID]`).
    Name,
    /// v11: the id (before `[ARGS]`).
    Id,
    /// v11: the arguments value.
    Args,
    /// v11: an argument string reached `[`: `[TOOL_CALLS]` there ends the call
    /// ([`Mistral::in_string`]).
    Special,
    /// A call's JSON broke (v3 object, v11 arguments): skipping to the bracket that balances their `{` (the
    /// call's end), so the error carries the whole call and nothing of it leaks into text;
    /// a `[TOOL_CALLS]` before it ends the call there and starts the next.
    Skip,
}

/// Scanner for `mistral`. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct Mistral {
    /// The bytes of a character cut by the last feed.
    input: CharInput,
    text: TextStage,
    st: St,
    list: CallList,
    name_set: MarkerSet,
    id_set: MarkerSet,
    matcher: MarkerMatcher,
    raw: Forming,
    name: String,
    id: String,
    slot: Option<Slot>,
    /// Where the current call's JSON (v3 object, v11 `[ARGS]` value) begins in `raw`.
    json_from: usize,
    /// The broken call being skipped: its end, its slot, its error kind.
    skip: Skip,
    skip_slot: Option<Slot>,
    skip_kind: ErrorKind,
    /// The broken call was in a v3 list (whose later calls go on after it).
    skip_list: bool,
    /// The name or id went over [`MAX_NAME`] bytes (v11).
    overflow: bool,
    /// The name (or id) holds a character no name has (v11): the rest of the line is
    /// held ([`junk_tail`](Self::junk_tail), at most [`MAX_NAME`] bytes) in case
    /// `[ARGS]` follows, which makes the call's error carry all of its bytes; else the
    /// error ends at that character and the held bytes are text.
    junk: bool,
    /// The bytes held after a broken name ([`junk`](Self::junk)).
    junk_tail: String,
    args: ArgValue,
    /// `[TOOL_CALLS]`, what ends a broken call's skip.
    open_set: MarkerSet,
    /// The call broke at the current position and nothing of its rest was read yet: a
    /// `[TOOL_CALLS]` right here cut it short rather than found it broken.
    fresh: bool,
    /// `[TOOL_CALLS]`, never string content: looked for where a v11 argument string
    /// stops at its `[`.
    in_string: InString,
    /// The next byte read in [`St::Args`] is a `[` that began no token: content.
    past: bool,
}

reads_chars!(Mistral, args: St::Args, special: St::Special, text: St::Text => opened_at);

impl Mistral {
    pub(crate) fn new(limits: &Limits, opts: &ReasoningOptions) -> Self {
        Mistral {
            input: CharInput::default(),
            text: TextStage::new(
                &[TOOL_CALLS],
                &["</s>"],
                &[("[THINK]", "[/THINK]"), ("<think>", "</think>")],
                opts,
                limits,
            ),
            st: St::Text,
            list: CallList::new(NAME_ARGUMENTS, limits),
            name_set: MarkerSet::new([ARGS, CALL_ID]),
            id_set: MarkerSet::new([ARGS]),
            matcher: MarkerMatcher::new(),
            raw: Forming::new(limits.max_argument_bytes),
            name: String::new(),
            id: String::new(),
            slot: None,
            json_from: 0,
            skip: Skip::default(),
            skip_slot: None,
            skip_kind: ErrorKind::InvalidJson,
            skip_list: false,
            overflow: false,
            junk: false,
            junk_tail: String::new(),
            args: {
                let mut args = ArgValue::new(limits.max_depth);
                args.set_stop(crate::scan::find::StopByte::of([TOOL_CALLS.as_bytes()]));
                args
            },
            open_set: MarkerSet::new([TOOL_CALLS]),
            fresh: false,
            in_string: InString::new([TOOL_CALLS]),
            past: false,
        }
    }

    pub(crate) fn retained(&self) -> usize {
        self.input.held()
            + self.text.retained()
            + self.list.retained()
            + self.matcher.held()
            + self.raw.retained()
            + self.name.capacity()
            + self.id.capacity()
            + self.in_string.held()
    }

    /// The call whose raw text is being read: the v11 call, or the v3 list's.
    fn owner(&self) -> Option<Slot> {
        self.slot.or(self.list.slot())
    }

    /// The text stage found its call marker (`[TOOL_CALLS]`, its only one).
    fn opened_at(&mut self, _marker: usize, _out: &mut dyn EventSink) {
        self.opened();
    }

    /// The text stage found `[TOOL_CALLS]`.
    fn opened(&mut self) {
        self.raw.start(TOOL_CALLS);
        self.name.clear();
        self.id.clear();
        self.slot = None;
        self.overflow = false;
        self.junk = false;
        self.junk_tail.clear();
        self.matcher.clear();
        self.st = St::Open;
    }

    fn run(&mut self, mut s: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        while !s.is_empty() {
            match self.st {
                St::Text => {
                    if self.text.run(&mut s, out).is_some() {
                        self.opened();
                    }
                }
                St::Open => {
                    let n = s.len() - s.trim_start_matches(is_ws).len();
                    calls
                        .raw_or(self.owner(), &mut self.raw)
                        .push(s.get(..n).unwrap_or_default());
                    s = s.get(n..).unwrap_or_default();
                    match s.as_bytes().first() {
                        None => {}
                        Some(b'[') => {
                            s = s.get(1..).unwrap_or_default();
                            self.st = St::Again(1);
                        }
                        Some(b'{') => {
                            self.json_from = calls.raw_or(self.owner(), &mut self.raw).len();
                            self.list.object();
                            self.st = St::List;
                        }
                        Some(_) => self.st = St::Name,
                    }
                }
                St::Again(n) => {
                    // `[TOOL_CALLS]` written twice is one opening (its bytes the call's);
                    // anything else after the `[` is the v3 array's, read as before.
                    let want = TOOL_CALLS.get(n..).unwrap_or_default();
                    let common = s
                        .bytes()
                        .zip(want.bytes())
                        .take_while(|(a, b)| a == b)
                        .count();
                    if common == want.len() {
                        calls.raw_or(self.owner(), &mut self.raw).push(TOOL_CALLS);
                        s = s.get(common..).unwrap_or_default();
                        self.st = St::Open;
                    } else if common == s.len() {
                        self.st = St::Again(n + common);
                        s = "";
                    } else {
                        calls.raw_or(self.owner(), &mut self.raw).push("[");
                        self.list.array();
                        self.st = St::List;
                        let mut replay =
                            TOOL_CALLS.get(1..n + common).unwrap_or_default().to_owned();
                        replay.push_str(s.get(common..).unwrap_or_default());
                        self.run(&replay, calls, out);
                        return;
                    }
                }
                St::List => match self.list.feed(&mut s, &mut self.raw, calls, out) {
                    List::NeedMore => {}
                    List::Done => self.end(),
                    // (Not asked for: no stop byte set on this list.)
                    List::Special => {
                        self.broke(self.list.slot(), ErrorKind::InvalidArguments, calls)
                    }
                    List::Nameless { in_array } => {
                        // The call it opened, if its arguments came first, is given up.
                        calls.report(
                            self.list.slot(),
                            ErrorKind::MissingName,
                            "a [TOOL_CALLS] call object without a name",
                            &mut self.raw,
                            out,
                        );
                        self.raw.start("");
                        if !in_array {
                            self.end();
                        }
                    }
                    List::Broken(kind, slot) => {
                        if let Some(from) = self.list.broken_from() {
                            self.json_from = from;
                        }
                        self.broke(slot, kind, calls);
                    }
                },
                St::Name | St::Id => {
                    // Name (or id) characters and the brackets of `[ARGS]` / `[CALL_ID]`;
                    // anything else breaks the name. Past a broken name the line is held
                    // ([`Mistral::junk`]) up to `[ARGS]`, which makes it all the error's.
                    let bad = if self.junk {
                        s.find('\n')
                    } else {
                        s.find(|c: char| !(name_char(c) || c == '[' || c == ']'))
                    }
                    .unwrap_or(s.len());
                    let mut part = s.get(..bad).unwrap_or_default();
                    let mut matcher = std::mem::take(&mut self.matcher);
                    let mut over = false;
                    while let Some(f) = matcher.next(
                        if self.st == St::Name {
                            &self.name_set
                        } else {
                            &self.id_set
                        },
                        &mut part,
                    ) {
                        match f {
                            Found::Text(t) if self.junk => {
                                self.junk_tail.push_str(t);
                                if self.junk_tail.len() > MAX_NAME {
                                    over = true;
                                    break;
                                }
                            }
                            Found::Text(t) => {
                                calls.raw_or(self.owner(), &mut self.raw).push(t);
                                let buf = if self.st == St::Name {
                                    &mut self.name
                                } else {
                                    &mut self.id
                                };
                                // A name (or id) over the bound is not kept: the call
                                // still ends where its text does (a character that is
                                // not a name character, or `[ARGS]` and its value),
                                // whatever the chunking, and is reported then.
                                if buf.len() + t.len() > MAX_NAME {
                                    self.overflow = true;
                                } else {
                                    buf.push_str(t);
                                }
                            }
                            Found::Marker(m) => {
                                let tail = std::mem::take(&mut self.junk_tail);
                                calls.raw_or(self.owner(), &mut self.raw).push(&tail);
                                self.junk_tail = tail;
                                self.junk_tail.clear();
                                if self.st == St::Name && m == 1 {
                                    calls.raw_or(self.owner(), &mut self.raw).push(CALL_ID);
                                    self.st = St::Id;
                                } else {
                                    calls.raw_or(self.owner(), &mut self.raw).push(ARGS);
                                    self.start(calls, out);
                                }
                                break;
                            }
                        }
                    }
                    let consumed = bad - part.len();
                    s = s.get(consumed..).unwrap_or_default();
                    let on_name = matches!(self.st, St::Name | St::Id);
                    if over || (self.junk && on_name && consumed == bad && !s.is_empty()) {
                        // No `[ARGS]` on the line within the bound (after it, the
                        // arguments are read: the state left the name): the name broke at
                        // its first bad character, and what was held after it is text
                        // (read again, the rest of the piece after it).
                        // (At most `MAX_NAME` bytes and a partial marker: a call broken
                        // in them recurses on fewer.)
                        self.matcher = matcher;
                        let again = self.give_up(calls, out);
                        self.run(&again, calls, out);
                        continue;
                    }
                    if matches!(self.st, St::Name | St::Id) && consumed == bad && !s.is_empty() {
                        // Not a name (`get weather"`): the call's error runs to its
                        // first bad character, or, if `[ARGS]` follows on the line,
                        // through the arguments (what a matcher holds is the name's).
                        self.junk = true;
                        self.overflow = true;
                        let held = matcher.finish().to_owned();
                        calls.raw_or(self.owner(), &mut self.raw).push(&held);
                        self.matcher = matcher;
                        let n = s.chars().next().map_or(1, char::len_utf8);
                        let (c, rest) = s.split_at(n);
                        calls.raw_or(self.owner(), &mut self.raw).push(c);
                        s = rest;
                        continue;
                    }
                    self.matcher = matcher;
                }
                St::Args if std::mem::take(&mut self.past) => {
                    self.args
                        .past_stop(&mut s, self.slot, &mut self.raw, calls, out);
                }
                St::Special => match self.in_string.look(s) {
                    Look::NeedMore => s = "",
                    Look::Token { consumed, .. } => {
                        // The next call began inside this one's argument string.
                        s = s.get(consumed..).unwrap_or_default();
                        interrupted_own(calls, self.slot, TOOL_CALLS, &mut self.raw, out);
                        self.end();
                        self.opened();
                    }
                    Look::Content { consumed } => {
                        // String content after all: read again, its `[` as content.
                        s = s.get(consumed..).unwrap_or_default();
                        let given = self.in_string.take_given();
                        self.st = St::Args;
                        self.past = !given.is_empty();
                        self.run(&given, calls, out);
                        self.in_string.put_back(given);
                    }
                },
                St::Args => match self.args.feed(&mut s, self.slot, &mut self.raw, calls, out) {
                    ArgStep::NeedMore => {}
                    // A `[` that begins no token, seen at once: content.
                    ArgStep::Special if self.in_string.content_at(s) => self.past = true,
                    ArgStep::Special => {
                        self.in_string.reset();
                        self.st = St::Special;
                    }
                    ArgStep::Closed => {
                        self.args_closed(calls, out);
                        self.end();
                    }
                    ArgStep::Broken(kind) => self.broke(self.slot, kind, calls),
                },
                St::Skip => {
                    let mut matcher = std::mem::take(&mut self.matcher);
                    let found = matcher.next(&self.open_set, &mut s).map(|f| match f {
                        Found::Text(t) => Some(t.to_owned()),
                        Found::Marker(_) => None,
                    });
                    self.matcher = matcher;
                    match found {
                        None => {}
                        Some(Some(t)) => {
                            self.fresh = false;
                            let mut t: &str = &t;
                            let owner = self.owner();
                            if skip_to_end(
                                &mut self.skip,
                                &mut t,
                                calls.raw_or(owner, &mut self.raw),
                            ) {
                                // The bytes after the bracket (and any the matcher held
                                // behind them) are read again in the next state.
                                let mut again = t.to_owned();
                                again.push_str(self.matcher.finish());
                                self.skipped(calls, out);
                                self.run(&again, calls, out);
                            }
                        }
                        Some(None) => {
                            // `[TOOL_CALLS]` inside the broken call: it ends the call
                            // and starts the next. Right where the call broke, the call
                            // was only cut short (complete, when its arguments had
                            // closed).
                            let slot = self.skip_slot;
                            if !self.fresh {
                                let kind = self.skip_kind;
                                calls.report(slot, kind, MALFORMED, &mut self.raw, out);
                            } else if self.skip_list && self.list.complete() {
                                calls.close_own(slot, &mut self.raw, out);
                            } else {
                                interrupted_own(calls, slot, TOOL_CALLS, &mut self.raw, out);
                            }
                            self.end();
                            self.opened();
                        }
                    }
                }
            }
        }
    }

    /// The broken call was skipped to its balancing bracket: reported; a v3 list's
    /// later calls go on.
    fn skipped(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        let (slot, kind) = (self.skip_slot, self.skip_kind);
        calls.report(slot, kind, MALFORMED, &mut self.raw, out);
        if self.skip_list && self.list.skipped() {
            // The array's later calls stand on their own.
            self.raw.start("");
            self.st = St::List;
        } else {
            self.end();
        }
    }

    /// v11: `[ARGS]` arrived; the name (and id) are complete. Without a valid name the
    /// value is still read (so the call ends where its text does) and the whole call
    /// text is reported when it ends.
    fn start(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        let name = self.name.as_str();
        if self.overflow || name.is_empty() || !name.chars().all(name_char) {
            self.slot = None;
        } else {
            self.slot = calls.open_raw(&mut self.raw, out);
            if let Some(slot) = self.slot {
                calls.set_id(slot, &self.id);
                calls.set_name(slot, name, out);
            }
        }
        self.args.reset();
        self.json_from = calls.raw_or(self.owner(), &mut self.raw).len();
        self.st = St::Args;
    }

    /// The call's JSON broke at the start of the rest: skip to the bracket that
    /// balances their `{` (the call's end), then report the call with all its bytes.
    fn broke(&mut self, slot: Option<Slot>, kind: ErrorKind, calls: &mut Calls) {
        self.skip = skip_object(calls.raw_or(self.owner(), &mut self.raw), self.json_from);
        self.skip_slot = slot;
        self.skip_kind = kind;
        self.skip_list = self.st == St::List;
        self.fresh = true;
        self.st = St::Skip;
    }

    /// v11: the `[ARGS]` value closed: the call ends, or, without a valid name, is
    /// reported with its whole text.
    fn args_closed(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        match self.slot {
            Some(_) => calls.close_own(self.slot, &mut self.raw, out),
            None => calls.report(None, ErrorKind::MissingName, NAMELESS, &mut self.raw, out),
        }
    }

    /// A broken v11 name ([`junk`](Self::junk)) with no `[ARGS]` after it on its line:
    /// the error ends at its first bad character; returns the bytes held after it (and
    /// a partial marker the matcher held), text to read again.
    fn give_up(&mut self, calls: &mut Calls, out: &mut dyn EventSink) -> String {
        let mut again = std::mem::take(&mut self.junk_tail);
        again.push_str(self.matcher.finish());
        calls.report(None, ErrorKind::MissingName, MALFORMED, &mut self.raw, out);
        self.end();
        again
    }

    fn end(&mut self) {
        self.fresh = false;
        self.past = false;
        self.junk = false;
        self.junk_tail.clear();
        self.st = St::Text;
        self.slot = None;
        self.raw.start("");
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.run_held(calls, out);
        while self.st == St::Special {
            // The text ended inside what could have been `[TOOL_CALLS]`: string content
            // (each round reads at least its `[`).
            let given = self.in_string.finish();
            self.st = St::Args;
            self.past = !given.is_empty();
            self.run(&given, calls, out);
        }
        while self.junk && matches!(self.st, St::Name | St::Id) {
            // (Each round reads at least the broken name's first bad character.)
            let again = self.give_up(calls, out);
            self.run(&again, calls, out);
        }
        let tail = self.matcher.finish().to_owned();
        calls.raw_or(self.owner(), &mut self.raw).push(&tail);
        // A call cut off inside its JSON (its slot if started).
        let cut_off = match self.st {
            St::Text | St::Special => None,
            St::List => self.list.finish(&mut self.raw, calls, out).err(),
            // `[TOOL_CALLS]` and nothing else (but whitespace, or the start of the marker
            // again) is cut off like a call.
            St::Again(n) => {
                let part = TOOL_CALLS.get(..n).unwrap_or_default();
                calls.raw_or(self.owner(), &mut self.raw).push(part);
                calls.report(
                    None,
                    ErrorKind::Truncated,
                    "the text ended inside [TOOL_CALLS]",
                    &mut self.raw,
                    out,
                );
                None
            }
            St::Open | St::Name | St::Id => {
                calls.report(
                    None,
                    ErrorKind::Truncated,
                    "the text ended inside [TOOL_CALLS]",
                    &mut self.raw,
                    out,
                );
                None
            }
            St::Skip => {
                let (slot, kind) = (self.skip_slot, self.skip_kind);
                calls.report(slot, kind, MALFORMED, &mut self.raw, out);
                None
            }
            St::Args => {
                let slot = self.slot;
                if self.args.finish(slot, &mut self.raw, calls, out) {
                    self.args_closed(calls, out);
                    None
                } else {
                    Some(slot)
                }
            }
        };
        if let Some(slot) = cut_off {
            calls.report(
                slot,
                ErrorKind::Truncated,
                "the text ended inside a [TOOL_CALLS] call",
                &mut self.raw,
                out,
            );
        }
        self.end();
        self.text.finish(out);
    }
}

/// Raw model text with Mistral calls: `[TOOL_CALLS][{"name": .., "arguments": ..}]`
/// (v3) or `[TOOL_CALLS]name[ARGS]{..}` (v11+).
pub(crate) const ROW: Row = Row {
    format: Format::Mistral,
    name: "mistral",
    aliases: &[],
    about: "raw model text: [TOOL_CALLS][{\"name\": .., \"arguments\": ..}] (v3) or [TOOL_CALLS]name[ARGS]{..} (v11+; Devstral, Magistral)",
    engine: Builtin::Mistral,
    detect: &[Detect {
        rank: 150,
        pattern: &[Tok::Lit(b"[TOOL_CALLS]")],
    }],
    example: "{prose}{call}[TOOL_CALLS]write_file[ARGS]{args}",
};
