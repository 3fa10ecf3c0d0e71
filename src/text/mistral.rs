//! `mistral`: Mistral's `[TOOL_CALLS]` syntaxes.
//!
//! - v3 (Mistral 7B v0.3, Mixtral, Small 3.1): `[TOOL_CALLS][{"name": .., "arguments": ..}, ..]`
//!   — a JSON array of call objects, streamed with the [`JsonCall`] walker of `hermes`
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
//! is dropped; whitespace before `[TOOL_CALLS]` is dropped (see
//! [`reasoning`](super::reasoning)). `[TOOL_CALLS]` with nothing after it is dropped.
//! Malformed input → `Error` carrying the call's raw text from its first marker byte
//! (`[TOOL_CALLS]`; a later call of a v3 list from its own `{`); the call's own error
//! when its Start was emitted. JSON that breaks is skipped to the bracket that balances
//! the call's `{` (tracking strings), and the raw text runs through it; what follows is
//! text again (or the next element of a v3 list). A v11 name that is not a name, or a
//! list that breaks between its elements, is reported up to and including the offending
//! character, and what follows is text. Cut off by the end of input → `Error`
//! (`Truncated`), unless the call's arguments had closed.

use crate::calls::{Calls, Slot};
use crate::event::{ErrorKind, Event};
use crate::limits::Limits;
use crate::scan::json::{JsonError, JsonScanner, JsonStatus};
use crate::scan::marker::{Found, MarkerMatcher, MarkerSet};
use crate::scan::utf8::Utf8Holder;
use crate::text::hermes::{JsonCall, Raw, Walk, report};
use crate::text::llama_pythonic::{Skip, SkipEnd};
use crate::text::reasoning::{ReasoningOptions, TextStage};
use crate::text::util::is_ws_char as is_ws;

const TOOL_CALLS: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";
const MAX_NAME: usize = 256;
/// The error of a v11 call whose name is missing, too long or not a name.
const NAMELESS: &str = "[TOOL_CALLS] without a valid tool name before [ARGS]";
/// The error of a call whose text broke.
const MALFORMED: &str = "a malformed [TOOL_CALLS] call";

#[inline]
fn name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Text,
    /// After `[TOOL_CALLS]`: what follows decides the syntax.
    Open,
    /// v3: inside the array, before an element or `]`.
    Elem {
        first: bool,
    },
    /// v3: inside an element object (or the lone object).
    Object {
        in_array: bool,
    },
    /// v3: after an element: `,` or `]`.
    AfterElem,
    /// v11: the name (before `[ARGS]` / `[CALL_ID]`).
    Name,
    /// v11: the id (before `[ARGS]`).
    Id,
    /// v11: the arguments value.
    Args,
    /// A call whose JSON broke: skipping to the bracket that balances its `{`.
    Skip {
        in_array: bool,
    },
}

/// Scanner for `mistral`. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct Mistral {
    utf8: Utf8Holder,
    scratch: String,
    text: TextStage,
    st: St,
    walker: JsonCall,
    name_set: MarkerSet,
    id_set: MarkerSet,
    matcher: MarkerMatcher,
    raw: Raw,
    name: String,
    id: String,
    slot: Option<Slot>,
    /// The name or id went over [`MAX_NAME`] bytes (v11).
    overflow: bool,
    args: JsonScanner,
    max_depth: usize,
    /// Where the call's JSON begins in `raw`.
    json_from: usize,
    /// The broken call being skipped: its end, its slot, its error kind.
    skip: Skip,
    skip_slot: Option<Slot>,
    skip_kind: ErrorKind,
}

impl Mistral {
    pub(crate) fn new(limits: &Limits, opts: &ReasoningOptions) -> Self {
        Mistral {
            utf8: Utf8Holder::new(),
            scratch: String::new(),
            text: TextStage::new(
                &[TOOL_CALLS],
                &["</s>"],
                &[("[THINK]", "[/THINK]"), ("<think>", "</think>")],
                opts,
                limits,
            ),
            st: St::Text,
            walker: JsonCall::new(limits),
            name_set: MarkerSet::new([ARGS, CALL_ID]),
            id_set: MarkerSet::new([ARGS]),
            matcher: MarkerMatcher::new(),
            raw: Raw::new(limits.max_argument_bytes),
            name: String::new(),
            id: String::new(),
            slot: None,
            overflow: false,
            args: JsonScanner::with_max_depth(limits.max_depth),
            max_depth: limits.max_depth,
            json_from: 0,
            skip: Skip::default(),
            skip_slot: None,
            skip_kind: ErrorKind::InvalidJson,
        }
    }

    pub(crate) fn retained(&self) -> usize {
        self.utf8.held()
            + self.text.retained()
            + self.walker.retained()
            + self.matcher.held()
            + self.raw.len()
            + self.name.len()
            + self.id.len()
    }

    pub(crate) fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut Vec<Event>) {
        let mut scratch = std::mem::take(&mut self.scratch);
        let s = self.utf8.push(bytes, &mut scratch);
        self.run(&s, calls, out);
        drop(s);
        self.scratch = scratch;
    }

    fn run(&mut self, mut s: &str, calls: &mut Calls, out: &mut Vec<Event>) {
        while !s.is_empty() {
            match self.st {
                St::Text => {
                    if self.text.run(&mut s, out).is_some() {
                        self.raw.start(TOOL_CALLS);
                        self.name.clear();
                        self.id.clear();
                        self.slot = None;
                        self.overflow = false;
                        self.matcher.clear();
                        self.st = St::Open;
                    }
                }
                St::Open => {
                    let n = s.len() - s.trim_start_matches(is_ws).len();
                    self.raw.push(s.get(..n).unwrap_or_default());
                    s = s.get(n..).unwrap_or_default();
                    match s.as_bytes().first() {
                        None => {}
                        Some(b'[') => {
                            self.raw.push("[");
                            s = s.get(1..).unwrap_or_default();
                            self.st = St::Elem { first: true };
                        }
                        Some(b'{') => {
                            self.walker.reset();
                            self.json_from = self.raw.len();
                            self.st = St::Object { in_array: false };
                        }
                        Some(_) => self.st = St::Name,
                    }
                }
                St::Elem { first } => {
                    let n = s.len() - s.trim_start_matches(is_ws).len();
                    self.raw.push(s.get(..n).unwrap_or_default());
                    s = s.get(n..).unwrap_or_default();
                    match s.as_bytes().first() {
                        None => {}
                        Some(b'{') => {
                            if !first {
                                // A later call's raw text starts at its own `{`.
                                self.raw.start("");
                            }
                            self.walker.reset();
                            self.json_from = self.raw.len();
                            self.st = St::Object { in_array: true };
                        }
                        Some(b']') if first => {
                            self.raw.push("]");
                            s = s.get(1..).unwrap_or_default();
                            self.end();
                        }
                        Some(_) => s = self.malformed(s, None, ErrorKind::InvalidJson, calls, out),
                    }
                }
                St::Object { in_array } => {
                    let (n, walk) = self.walker.feed(s, calls, out);
                    self.raw.push(s.get(..n).unwrap_or_default());
                    s = s.get(n..).unwrap_or_default();
                    match walk {
                        Walk::NeedMore => {}
                        Walk::Done if self.walker.named() => {
                            if let Some(slot) = self.walker.slot() {
                                calls.close_with_raw(slot, self.raw.as_str(), out);
                            }
                            if in_array {
                                // What follows belongs to no call of the list so far.
                                self.raw.start("");
                                self.st = St::AfterElem;
                            } else {
                                self.end();
                            }
                        }
                        Walk::Done => {
                            let (raw, _) = self.raw.take();
                            out.push(Event::Error {
                                kind: ErrorKind::MissingName,
                                message: "a [TOOL_CALLS] call object without a name".into(),
                                index: None,
                                raw,
                            });
                            self.raw.start("");
                            self.st = if in_array { St::AfterElem } else { St::Text };
                        }
                        Walk::Invalid(kind) => {
                            let slot = self.walker.slot();
                            self.broke(slot, kind, in_array);
                        }
                    }
                }
                St::AfterElem => {
                    let n = s.len() - s.trim_start_matches(is_ws).len();
                    self.raw.push(s.get(..n).unwrap_or_default());
                    s = s.get(n..).unwrap_or_default();
                    match s.as_bytes().first() {
                        None => {}
                        Some(b',') => {
                            self.raw.push(",");
                            s = s.get(1..).unwrap_or_default();
                            self.st = St::Elem { first: false };
                        }
                        Some(b']') => {
                            s = s.get(1..).unwrap_or_default();
                            self.end();
                        }
                        Some(_) => s = self.malformed(s, None, ErrorKind::InvalidJson, calls, out),
                    }
                }
                St::Name | St::Id => {
                    // Name (or id) characters and the brackets of `[ARGS]` / `[CALL_ID]`;
                    // anything else breaks the call.
                    let bad = s
                        .find(|c: char| !(name_char(c) || c == '[' || c == ']'))
                        .unwrap_or(s.len());
                    let mut part = s.get(..bad).unwrap_or_default();
                    let mut matcher = std::mem::take(&mut self.matcher);
                    while let Some(f) = matcher.next(
                        if self.st == St::Name {
                            &self.name_set
                        } else {
                            &self.id_set
                        },
                        &mut part,
                    ) {
                        match f {
                            Found::Text(t) => {
                                self.raw.push(t);
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
                                if self.st == St::Name && m == 1 {
                                    self.raw.push(CALL_ID);
                                    self.st = St::Id;
                                } else {
                                    self.raw.push(ARGS);
                                    self.start(calls, out);
                                }
                                break;
                            }
                        }
                    }
                    let consumed = bad - part.len();
                    s = s.get(consumed..).unwrap_or_default();
                    if matches!(self.st, St::Name | St::Id) && consumed == bad && !s.is_empty() {
                        let held = matcher.finish().to_owned();
                        self.raw.push(&held);
                        self.matcher = matcher;
                        s = self.malformed(s, None, ErrorKind::MissingName, calls, out);
                        continue;
                    }
                    self.matcher = matcher;
                }
                St::Args => match self.args.feed(s.as_bytes()) {
                    JsonStatus::NeedMore => {
                        self.raw.push(s);
                        if let Some(slot) = self.slot {
                            calls.args_checked(slot, s, false, out);
                        }
                        s = "";
                    }
                    JsonStatus::Complete { consumed } => {
                        let v = s.get(..consumed).unwrap_or_default();
                        self.raw.push(v);
                        if let Some(slot) = self.slot {
                            calls.args_checked(slot, v, true, out);
                        }
                        self.args_closed(calls, out);
                        s = s.get(consumed..).unwrap_or_default();
                        self.end();
                    }
                    JsonStatus::Invalid { at, error } => {
                        let v = s.get(..at).unwrap_or_default();
                        if let Some(slot) = self.slot {
                            calls.args_checked(slot, v, false, out);
                        }
                        self.raw.push(v);
                        s = s.get(at..).unwrap_or_default();
                        let kind = match error {
                            JsonError::TooDeep => ErrorKind::LimitExceeded,
                            _ => ErrorKind::InvalidArguments,
                        };
                        let slot = self.slot;
                        self.broke(slot, kind, false);
                    }
                },
                St::Skip { in_array } => match self.skip.scan(s.as_bytes()) {
                    None => {
                        self.raw.push(s);
                        s = "";
                    }
                    Some(SkipEnd::After(n) | SkipEnd::Before(n)) => {
                        self.raw.push(s.get(..n).unwrap_or_default());
                        s = s.get(n..).unwrap_or_default();
                        let (slot, kind) = (self.skip_slot, self.skip_kind);
                        report(calls, slot, kind, MALFORMED, &mut self.raw, out);
                        if in_array {
                            self.raw.start("");
                            self.st = St::AfterElem;
                        } else {
                            self.end();
                        }
                    }
                },
            }
        }
    }

    /// v11: `[ARGS]` arrived; the name (and id) are complete. Without a valid name the
    /// value is still read (so the call ends where its text does) and the whole call
    /// text is reported when it ends.
    fn start(&mut self, calls: &mut Calls, out: &mut Vec<Event>) {
        let name = self.name.as_str();
        if self.overflow || name.is_empty() || !name.chars().all(name_char) {
            self.slot = None;
        } else {
            self.slot = calls.open(out);
            if let Some(slot) = self.slot {
                calls.set_id(slot, &self.id);
                calls.set_name(slot, name, out);
            }
        }
        self.args = JsonScanner::with_max_depth(self.max_depth);
        self.json_from = self.raw.len();
        self.st = St::Args;
    }

    /// v11: the `[ARGS]` value closed: the call ends, or, without a valid name, is
    /// reported with its whole text.
    fn args_closed(&mut self, calls: &mut Calls, out: &mut Vec<Event>) {
        match self.slot {
            Some(slot) => calls.close_with_raw(slot, self.raw.as_str(), out),
            None => report(
                calls,
                None,
                ErrorKind::MissingName,
                NAMELESS,
                &mut self.raw,
                out,
            ),
        }
    }

    /// A call's JSON broke at the start of the rest: skip to the bracket that balances its
    /// `{` (the call's end), then report it with all its bytes.
    fn broke(&mut self, slot: Option<Slot>, kind: ErrorKind, in_array: bool) {
        let lost = self.raw.dropped() > 0;
        let json = self.raw.as_str().get(self.json_from..).unwrap_or_default();
        self.skip = Skip::new(false, u32::from(lost));
        if !lost {
            let _ = self.skip.scan(json.as_bytes());
        }
        self.skip_slot = slot;
        self.skip_kind = kind;
        self.st = St::Skip { in_array };
    }

    /// The call text broke at the start of `s`: report it with the offending character,
    /// and go back to text after it. Returns the rest of `s`.
    fn malformed<'a>(
        &mut self,
        s: &'a str,
        slot: Option<Slot>,
        kind: ErrorKind,
        calls: &mut Calls,
        out: &mut Vec<Event>,
    ) -> &'a str {
        let n = s.chars().next().map_or(0, char::len_utf8);
        self.raw.push(s.get(..n).unwrap_or_default());
        report(calls, slot, kind, MALFORMED, &mut self.raw, out);
        self.end();
        s.get(n..).unwrap_or_default()
    }

    fn end(&mut self) {
        self.st = St::Text;
        self.slot = None;
        self.raw.start("");
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut Vec<Event>) {
        if let Some(r) = self.utf8.finish() {
            self.run(r, calls, out);
        }
        let tail = self.matcher.finish().to_owned();
        self.raw.push(&tail);
        match self.st {
            St::Text | St::AfterElem => {}
            St::Open => {} // `[TOOL_CALLS]` and nothing else: no call.
            St::Elem { .. } | St::Name | St::Id => {
                report(
                    calls,
                    None,
                    ErrorKind::Truncated,
                    "the text ended inside [TOOL_CALLS]",
                    &mut self.raw,
                    out,
                );
            }
            St::Object { .. } => {
                let slot = self.walker.slot();
                if self.walker.named() && self.walker.args_done() {
                    if let Some(slot) = slot {
                        calls.close_with_raw(slot, self.raw.as_str(), out);
                    }
                } else {
                    report(
                        calls,
                        slot,
                        ErrorKind::Truncated,
                        "the text ended inside a [TOOL_CALLS] call",
                        &mut self.raw,
                        out,
                    );
                }
            }
            St::Skip { .. } => {
                let (slot, kind) = (self.skip_slot, self.skip_kind);
                report(calls, slot, kind, MALFORMED, &mut self.raw, out);
            }
            St::Args => {
                let slot = self.slot;
                if self.args.finish() {
                    self.args_closed(calls, out);
                } else {
                    report(
                        calls,
                        slot,
                        ErrorKind::Truncated,
                        "the text ended inside a [TOOL_CALLS] call",
                        &mut self.raw,
                        out,
                    );
                }
            }
        }
        self.end();
        self.text.finish(out);
    }
}
