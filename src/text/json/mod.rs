//! The syntaxes whose calls are JSON call objects (or arrays of them) after a marker,
//! with or without a closing marker: one scanner, [`JsonCalls`], driven by a small
//! per-syntax table ([`Table`]), one module each ([`hermes`], [`command_r`],
//! [`granite`], ...). Each call object is streamed by the kit's [`JsonCall`] walker
//! (Start when the name string closes, the arguments as the model's own bytes).
//! [`mistral`] is its own scanner (see its module doc) on this engine's [`CallList`].
//!
//! | format | marker | payload | close | keys |
//! | --- | --- | --- | --- | --- |
//! | `hermes` | `<tool_call>` | object | `</tool_call>` | `name`, `arguments` / `parameters`, `id` |
//! | `command-r` | `<\|START_ACTION\|>` | array or object | `<\|END_ACTION\|>` | `tool_name`, `parameters`, `tool_call_id` (citation markup dropped from text) |
//! | `granite` | `<\|tool_call\|>` (3.x) | array or object | — | `name`, `arguments` |
//! | | `<tool_call>` (3.1+, 4) | array (3.1+) or object (4) | `</tool_call>` (optional after an array) | |
//! | `jamba`, `hunyuan` | `<tool_calls>` | array or object | `</tool_calls>` | `name`, `arguments` |
//! | `nemotron` | `<TOOLCALL>` | array or object | `</TOOLCALL>` | `name`, `arguments` |
//! | `phi4-mini` | `functools[` | the array's elements | — | `name`, `arguments` |
//! | `longcat` | `<longcat_tool_call>` | object | `</longcat_tool_call>` | `name`, `arguments` |
//! | `internlm` | `<\|action_start\|><\|plugin\|>` | object | `<\|action_end\|>` | `name`, `parameters` |
//! | `apertus` | `<\|tools_prefix\|>` | array or object | `<\|tools_suffix\|>` | `{"tool": {args}}` |
//! | `gigachat3` | `function call<\|role_sep\|>` (3), `<\|function_call\|>` (3.1) | object | — | `name`, `arguments` |
//! | `inkling` | `<\|content_invoke_tool_json\|>` | object | `<\|end_message\|>` | `name`, `args` |
//!
//! ```text
//!   Text ──marker──> Open ──'{'──> Object ──'}'──┬─ in an array ──> AfterElem ──','──> Elem ──'{'──> Object
//!                     │  ──'['──> Elem ──'{'──┘  │                    └──']'──┐
//!                     │                         └─ lone object ──────────────┴──> (close marker?) After ──close──> Text
//!                     │                                                                 no close marker ──> Text
//!                     ├─ close marker, or the end: an empty call, dropped
//!                     └─ anything else: malformed ──> Skip ──close──> Error ──> Text   (no close marker: Error at once)
//! ```
//!
//! Rules (as for `hermes`):
//!
//! - Outside calls the [`reasoning`](crate::text::kit::reasoning) stage finds the markers, the
//!   syntax's reasoning tags and its end-of-turn tokens; whitespace before a marker is text.
//! - The kit's [recovery rule](crate::text::kit::recovery): a marker followed by bytes that
//!   cannot begin its payload (`Use a literal <tool_call> tag`) is text, released at that
//!   byte; an opener where a call's JSON broke, or in the text of a broken call up to its
//!   close marker, ends that call (cut short, or complete when its arguments had closed)
//!   and starts the new one (for a syntax without a close marker, an opener in the text
//!   of a broken call before its balancing bracket); an opener that is a special token
//!   (`<|function_call|>`, `<|action_start|><|plugin|>`: [`is_special`]) ends the call
//!   inside an argument string too (the string scan stops at its `<`); a member the call
//!   object may not have is an error with the raw call.
//! - Start by the feed that completes the name; the arguments value is streamed as the
//!   model wrote it; End when it (or its object) closes. String-encoded arguments
//!   (`"arguments": "{\"a\": 1}"`) after the name are decoded to the object they hold:
//!   the deltas are then the decoded text, the string's content unescaped as it arrives
//!   (split-invariant), every byte still the call's own; an empty string is `{}`, a
//!   string holding anything but one object an `invalid_arguments` error with the raw
//!   call ([`json_call`](crate::text::kit::json_call) says the rule).
//! - With a close marker, text after the payload up to it is allowed to be whitespace
//!   only: anything else makes the rest text again (the call stays complete).
//! - Malformed call text → an `Error` carrying the model's own bytes of the call from
//!   its marker (for a later element of an array, from the end of the element before)
//!   through the close marker, or, for a syntax without one, through the bracket that
//!   balances the broken call object's `{` (an array's later calls still count; JSON
//!   that is not a call object at all: through the offending character); the call's
//!   own error when its Start was emitted. A call object without
//!   a name inside an array is reported at its `}` and the next elements still count.
//!   Cut off by the end of input → `Error` (`Truncated`), unless the arguments had closed.

use std::borrow::Cow;

use crate::calls::{Calls, Slot};
use crate::event::ErrorKind;
use crate::event::EventSink;
use crate::limits::Limits;
use crate::scan::marker::{Expect, Expected, Found, MarkerMatcher, MarkerSet};
use crate::text::kit::call::{Forming, Raw, report_at};
use crate::text::kit::json_call::{JsonCall, Shape, Walk};
use crate::text::kit::reasoning::{ReasoningOptions, TextStage};
use crate::text::kit::recovery::{InString, Look, interrupted_own, released_own};
use crate::text::kit::skip::{Skip, SkipEnd};
use crate::text::kit::table::{Pair, Shared, Token, tok};
use crate::text::kit::util::closing;
use crate::text::kit::util::is_ws_char as is_ws;
use crate::text::kit::util::{CharInput, ReadsChars, reads_chars};

// Every syntax file of this family (`build.rs`: a file that exports a `ROW`).
include!(concat!(env!("OUT_DIR"), "/text_json.rs"));

/// What follows a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Payload {
    /// One call object.
    Object,
    /// An array of call objects, or one call object.
    Either,
    /// One call object, or an array of call objects whose close marker is optional:
    /// a broken call in the array is skipped to its balancing bracket (as in a syntax
    /// without a close marker) and the array's later calls count (Granite's
    /// `<tool_call>`: 4 writes `<tool_call>{..}</tool_call>`, 3.1 `<tool_call>[..]`).
    EitherOpenArray,
    /// The elements of an array whose `[` ends the marker (`functools[`).
    ArrayBody,
}

/// One call-start marker of a syntax: `marker`, then `payload`, then `close` if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Opener {
    pub(crate) marker: Token,
    pub(crate) close: Option<Token>,
    pub(crate) payload: Payload,
}

/// An [`Opener`] of `&'static str`s (for `const` tables).
pub(crate) const fn opener(
    marker: &'static str,
    close: Option<&'static str>,
    payload: Payload,
) -> Opener {
    Opener {
        marker: tok(marker),
        close: match close {
            Some(c) => Some(tok(c)),
            None => None,
        },
        payload,
    }
}

/// A syntax's table, as [`JsonCalls`] runs it: its markers, call object shape,
/// reasoning tags and end-of-turn tokens. A built-in's is a `const` of its file (every
/// list and string borrowed); a
/// [`Syntax`](crate::Syntax)'s is built at run time (owned).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    pub(crate) openers: Cow<'static, [Opener]>,
    pub(crate) shape: Shape,
    pub(crate) reasoning: Cow<'static, [Pair]>,
    pub(crate) drops: Cow<'static, [Token]>,
    /// Citation markup dropped from text and reasoning, the cited text kept: the
    /// opening token and the closing token's head, whose anchors and `>` follow
    /// ([`TextStage::citations`]: Cohere's `<co>`, `</co: 0:[1]>`). Set on `command-r`'s
    /// table ([`command_r::CITATIONS`]), or by a spec's `toolstream.citations`.
    pub(crate) citations: Option<Pair>,
    /// A token that begins a message whose header may name the call before its opener
    /// (Inkling's `<|message_model|>NAME<|content_invoke_tool_json|>`): the text after
    /// it up to the next `<` is held; an opener there begins the call, whose raw text
    /// then starts at this token when a name was written (the name is the header's, the
    /// call object's `name` says it too); anything else makes the held text text again
    /// (the token itself is dropped, as a message marker). Set on `inkling`'s table
    /// ([`inkling::HEADER`]), or by a spec's `toolstream.header`.
    pub(crate) header: Option<Token>,
}

/// A table's plain fields: no opener, `name` / `arguments` keys, no reasoning pair, no
/// dropped token, no citations, no message header. A syntax's table names what it sets
/// and takes the rest with `..PLAIN`.
pub(crate) const PLAIN: Table = Table {
    openers: Cow::Borrowed(&[]),
    shape: crate::text::kit::json_call::NAME_ARGUMENTS,
    reasoning: Cow::Borrowed(&[]),
    drops: Cow::Borrowed(&[]),
    citations: None,
    header: None,
};

/// Longest call name read from a [message header](Table::header).
const MAX_HEAD: usize = 256;

/// Where a [`CallList`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Inside an array, before an element (or `]` when `first`).
    Elem { first: bool },
    /// Inside a call object.
    Object { in_array: bool },
    /// After an array element: `,` or `]`.
    AfterElem,
}

/// What [`CallList::feed`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum List {
    /// All input consumed; the payload goes on.
    NeedMore,
    /// The payload ended: the array's `]`, or the lone object's `}`, consumed.
    Done,
    /// A call object without a name closed (its text is in the raw text). In an array
    /// the list goes on after it.
    Nameless { in_array: bool },
    /// Malformed at the start of the rest (not consumed); the broken call's slot if its
    /// Start was emitted.
    Broken(ErrorKind, Option<Slot>),
    /// An argument string reached the stop byte ([`Walk::Special`]), at the start of
    /// the rest (not consumed).
    Special,
}

/// Streams a call object or an array of call objects (`{..}` / `[{..}, ..]`, the `[`
/// read by the caller) into [`Calls`] with the [`JsonCall`] walker, the bytes it reads
/// into the call's raw text. Shared by [`JsonCalls`] and `mistral`'s v3 syntax.
#[derive(Debug)]
pub(crate) struct CallList {
    at: At,
    walker: JsonCall,
    /// Where the current array element's `{` is in the caller's raw text.
    elem_from: usize,
}

impl CallList {
    pub(crate) fn new(shape: Shape, limits: &Limits) -> Self {
        CallList {
            at: At::AfterElem,
            walker: JsonCall::with_shape(shape, limits),
            elem_from: 0,
        }
    }

    /// Nothing open (between calls).
    pub(crate) fn reset(&mut self) {
        self.walker.reset();
        self.at = At::AfterElem;
    }

    /// The message header named the call before its object, whose `{` is next
    /// ([`JsonCall::header_name`]).
    pub(crate) fn header_name(
        &mut self,
        name: &str,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) {
        self.walker.header_name(name, raw, calls, out);
    }

    /// A lone call object starts (at its `{`).
    pub(crate) fn object(&mut self) {
        self.walker.reset();
        self.at = At::Object { in_array: false };
    }

    /// An array's elements start (after its `[`).
    pub(crate) fn array(&mut self) {
        self.walker.reset();
        self.at = At::Elem { first: true };
    }

    pub(crate) fn retained(&self) -> usize {
        self.walker.retained()
    }

    /// Argument strings stop at `stop` ([`List::Special`]).
    pub(crate) fn set_stop(&mut self, stop: Option<crate::scan::find::StopByte>) {
        self.walker.set_stop(stop);
    }

    /// The stop byte of [`set_stop`](Self::set_stop).
    #[inline]
    pub(crate) fn stop(&self) -> Option<crate::scan::find::StopByte> {
        self.walker.stop()
    }

    /// Whether the open call's arguments are in a string's plain content.
    #[inline]
    pub(crate) fn in_plain_string(&self) -> bool {
        self.walker.in_plain_string()
    }

    /// After [`List::Special`]: the stop byte at the start of `s` is string content;
    /// handed on (`s` advanced past it), or the call breaks there.
    pub(crate) fn past_stop(
        &mut self,
        s: &mut &str,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> List {
        if self.walker.past_stop(s, raw, calls, out) {
            *s = s.get(1..).unwrap_or_default();
            List::NeedMore
        } else {
            List::Broken(ErrorKind::LimitExceeded, self.walker.slot())
        }
    }

    /// After [`List::Broken`]: where the broken call's `{` is in the raw text when it is
    /// an array element (`None`: the lone object, whose start the caller knows).
    pub(crate) fn broken_from(&self) -> Option<usize> {
        (self.at == (At::Object { in_array: true })).then_some(self.elem_from)
    }

    /// Inside a call object whose name and arguments are complete (its End was
    /// emitted): only its closing `}` is missing.
    pub(crate) fn complete(&self) -> bool {
        self.in_object() && self.walker.named() && self.walker.args_done()
    }

    /// Inside a string of the open call object (a delimiter there is string content).
    pub(crate) fn in_string(&self) -> bool {
        self.in_object() && self.walker.in_string()
    }

    /// At an array's first element: nothing but whitespace read since its `[`.
    pub(crate) fn before_first(&self) -> bool {
        self.at == (At::Elem { first: true })
    }

    /// Inside a call object (a [`List::Broken`] there broke that object).
    pub(crate) fn in_object(&self) -> bool {
        matches!(self.at, At::Object { .. })
    }

    /// The caller skipped a broken call to its end: an array's elements go on after it
    /// (`true`), a lone object is over (`false`).
    pub(crate) fn skipped(&mut self) -> bool {
        let in_array = self.at == (At::Object { in_array: true });
        self.walker.reset();
        self.at = At::AfterElem;
        in_array
    }

    /// The current call's slot once its Start was emitted.
    pub(crate) fn slot(&self) -> Option<Slot> {
        self.walker.slot()
    }

    /// The hot path of [`feed`](Self::feed): all of `s` is more of an argument string of
    /// the open call ([`JsonCall::args_run`]); `false` (nothing done) otherwise.
    #[inline]
    pub(crate) fn args_run(
        &mut self,
        s: &str,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> bool {
        matches!(self.at, At::Object { .. }) && self.walker.args_run(s, raw, calls, out)
    }

    /// Reads from `s` (advanced past what was read, pushed to `raw`).
    pub(crate) fn feed(
        &mut self,
        s: &mut &str,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> List {
        loop {
            if self.at != (At::Object { in_array: true })
                && self.at != (At::Object { in_array: false })
            {
                let rest = s.trim_start_matches(is_ws);
                calls
                    .raw_or(self.walker.slot(), raw)
                    .push(s.get(..s.len() - rest.len()).unwrap_or_default());
                *s = rest;
            }
            let first = s.as_bytes().first().copied();
            match (self.at, first) {
                (At::Elem { .. } | At::AfterElem, None) => return List::NeedMore,
                (At::Elem { first }, Some(b'{')) => {
                    self.walker.reset();
                    if !first {
                        // A later call's raw text starts at its own `{`.
                        raw.start("");
                    }
                    self.elem_from = calls.raw_or(None, raw).len();
                    self.at = At::Object { in_array: true };
                }
                (At::Elem { first: true }, Some(b']')) | (At::AfterElem, Some(b']')) => {
                    calls.raw_or(self.walker.slot(), raw).push("]");
                    *s = s.get(1..).unwrap_or_default();
                    return List::Done;
                }
                (At::AfterElem, Some(b',')) => {
                    calls.raw_or(self.walker.slot(), raw).push(",");
                    *s = s.get(1..).unwrap_or_default();
                    self.at = At::Elem { first: false };
                }
                (At::Elem { .. } | At::AfterElem, Some(_)) => {
                    return List::Broken(ErrorKind::InvalidJson, None);
                }
                (At::Object { in_array }, _) => {
                    let (n, walk) = self.walker.feed(s, raw, calls, out);
                    *s = s.get(n..).unwrap_or_default();
                    match walk {
                        Walk::NeedMore => return List::NeedMore,
                        Walk::Special => return List::Special,
                        Walk::Invalid(kind) => return List::Broken(kind, self.walker.slot()),
                        Walk::Done => {
                            let named = self.walker.named();
                            if named {
                                calls.close_own(self.walker.slot(), raw, out);
                            }
                            if !in_array {
                                return if named {
                                    List::Done
                                } else {
                                    List::Nameless { in_array }
                                };
                            }
                            self.at = At::AfterElem;
                            if !named {
                                return List::Nameless { in_array };
                            }
                            // The next element's error carries its own bytes.
                            calls.raw_or(self.walker.slot(), raw).start("");
                        }
                    }
                }
            }
        }
    }

    /// End of input: `Ok` when nothing is left open (a call whose arguments closed is
    /// complete without its `}`, an array whose calls closed without its `]`), else
    /// `Err` with the cut-off call's slot.
    pub(crate) fn finish(
        &mut self,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Result<(), Option<Slot>> {
        match self.at {
            At::AfterElem => Ok(()),
            At::Object { .. } if self.walker.named() && self.walker.args_done() => {
                calls.close_own(self.walker.slot(), raw, out);
                Ok(())
            }
            At::Elem { .. } | At::Object { .. } => Err(self.walker.slot()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Text,
    /// After the marker: whitespace, then the payload (or the close marker: empty).
    Open,
    /// After a [message header](Table::header) token: the header's text, then an
    /// opener (or not).
    Head,
    /// Inside the payload.
    List,
    /// The payload ended: the close marker expected.
    After,
    /// Malformed: collecting raw text until the close marker.
    Skip(ErrorKind),
    /// A call object of a syntax without a close marker broke: collecting its raw text
    /// up to the bracket that balances its `{`.
    Balance(ErrorKind),
    /// An argument string reached `<`, the first byte of the syntax's special-token
    /// openers: matching them there ([`JsonCalls::specials`]).
    Special,
}

/// A skipper to the bracket that balances a broken call object whose text starts at
/// `from` in `raw` (its `{`), primed with the object's bytes read so far.
pub(crate) fn skip_object(raw: &Raw, from: usize) -> Skip {
    let lost = raw.dropped() > 0;
    let mut skip = Skip::new(false, u32::from(lost));
    if !lost {
        let json = raw.as_str().get(from..).unwrap_or_default();
        let _ = skip.scan(json.as_bytes());
    }
    skip
}

/// Collects `s` into `raw` up to the end of the call `skip` balances: `true` when it
/// ended (`s` advanced past it), `false` when all of `s` was taken.
pub(crate) fn skip_to_end(skip: &mut Skip, s: &mut &str, raw: &mut Raw) -> bool {
    match skip.scan(s.as_bytes()) {
        None => {
            raw.push(s);
            *s = "";
            false
        }
        Some(SkipEnd::After(n) | SkipEnd::Before(n)) => {
            raw.push(s.get(..n).unwrap_or_default());
            *s = s.get(n..).unwrap_or_default();
            true
        }
    }
}

/// Scanner for the JSON-call syntaxes. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct JsonCalls {
    table: Shared<Table>,
    /// The bytes of a character cut by the last feed.
    input: CharInput,
    text: TextStage,
    st: St,
    /// The opener of the current call.
    cur: usize,
    /// Per opener, its close marker.
    closes: Vec<Option<MarkerSet>>,
    /// Per opener with a close marker: the close, then every opener's marker (what
    /// ends the text of a broken call).
    skips: Vec<Option<MarkerSet>>,
    /// Every opener's marker: what ends a broken call skipped to its balancing bracket
    /// ([`St::Balance`]).
    open_set: MarkerSet,
    /// The openers that are special tokens (`<|function_call|>`, not `<tool_call>`):
    /// never string content, so an argument string stops at their first byte, `<`
    /// ([`St::Special`]), and one there ends the call.
    specials: InString,
    /// Per special, its opener.
    special_of: Vec<usize>,
    /// The byte at the start of the next piece read in [`St::List`] is a `<` that
    /// began no special token: string content.
    past: bool,
    /// The call broke at the current position and nothing of its rest was read yet: an
    /// opener right here interrupted it rather than found it broken.
    fresh: bool,
    /// The payload is an array of a [`Payload::EitherOpenArray`] opener: its close
    /// marker is optional, a broken call is skipped to its balancing bracket.
    open_array: bool,
    list: CallList,
    raw: Forming,
    /// Where a lone call object's `{` is in `raw`.
    object_from: usize,
    /// For [`St::Balance`]: the skipper and the broken call's slot.
    skip: Skip,
    skip_slot: Option<Slot>,
    expect: Expect,
    matcher: MarkerMatcher,
    /// The text stage's marker index of the [message header](Table::header) token (past
    /// the openers'), if the table has one.
    head_k: Option<usize>,
    /// The header's text so far ([`St::Head`]); once an opener followed it, the name it
    /// wrote, for the call object ([`CallList::header_name`]).
    head: String,
}

reads_chars!(JsonCalls;
    #[inline(always)]
    fn fast_path(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) -> bool {
        // Inside a call's arguments most pieces are only more of a string: straight to
        // the call, without the state machine.
        if self.input.utf8.held() != 0 {
            return false;
        }
        match self.st {
            St::List => {}
            // The stop byte held at the end of the last piece, and this one's first byte
            // continues no token: it was string content (what `St::Special` finds,
            // without the token match), then this piece goes on as below.
            St::Special => {
                let Some(stop) = self.list.stop() else {
                    return false;
                };
                let Some(s) = crate::scan::utf8::whole_str(bytes) else {
                    return false;
                };
                if !self.specials.release_content(stop, bytes.first()) {
                    return false;
                }
                self.st = St::List;
                self.past = true;
                self.run(stop.as_str(), calls, out);
                if self.st != St::List {
                    self.run(s, calls, out);
                    return true;
                }
            }
            _ => return false,
        }
        let Some(s) = crate::scan::utf8::whole_str(bytes) else {
            return false;
        };
        if !self.list.args_run(s, &mut self.raw, calls, out) && !self.stop_at_end(s, calls, out)
        {
            self.run(s, calls, out);
        }
        true
    }

    #[inline]
    fn text_first(&mut self, s: &mut &str, out: &mut dyn EventSink) {
        if self.st == St::Text
            && let Some(k) = self.text.run(s, out)
        {
            self.opened(k);
        }
    }
);

impl JsonCalls {
    #[cfg_attr(not(test), allow(dead_code))] // (the unit tests build built-ins with it)
    pub(crate) fn new(table: &'static Table, limits: &Limits, opts: &ReasoningOptions) -> Self {
        Self::with_table(Shared::Static(table), limits, opts)
    }

    /// The scanner for a table (a built-in's or a syntax spec's).
    pub(crate) fn with_table(
        table: Shared<Table>,
        limits: &Limits,
        opts: &ReasoningOptions,
    ) -> Self {
        let markers: Vec<Cow<'static, str>> =
            table.openers.iter().map(|o| o.marker.clone()).collect();
        // The text stage's start markers: the openers, then the header token.
        let starts: Vec<Cow<'static, str>> = markers
            .iter()
            .cloned()
            .chain(table.header.clone())
            .collect();
        let drops: Vec<Cow<'static, str>> = table
            .drops
            .iter()
            .filter(|d| table.header.as_ref() != Some(*d))
            .cloned()
            .collect();
        let reasoning: Vec<(&str, &str)> =
            table.reasoning.iter().map(|(o, c)| (&**o, &**c)).collect();
        let closes = table
            .openers
            .iter()
            .map(|o| o.close.clone().map(|c| MarkerSet::new([c])))
            .collect();
        let skips = table
            .openers
            .iter()
            .map(|o| {
                o.close.clone().map(|c| {
                    MarkerSet::new(
                        std::iter::once(c).chain(table.openers.iter().map(|o| o.marker.clone())),
                    )
                })
            })
            .collect();
        let open_set = MarkerSet::new(markers.iter().cloned());
        let special_of: Vec<usize> = (0..markers.len())
            .filter(|&k| markers.get(k).is_some_and(|m| is_special(m)))
            .collect();
        let specials = InString::new(special_of.iter().filter_map(|&k| markers.get(k).cloned()));
        let mut text = TextStage::new(&starts, &drops, &reasoning, opts, limits);
        if let Some((open, close_head)) = &table.citations {
            text = text.citations(open, close_head);
        }
        JsonCalls {
            input: CharInput::default(),
            text,
            st: St::Text,
            cur: 0,
            closes,
            skips,
            open_set,
            list: {
                let mut list = CallList::new(table.shape.clone(), limits);
                list.set_stop(crate::scan::find::StopByte::of(
                    special_of
                        .iter()
                        .filter_map(|&k| markers.get(k).map(|m| m.as_bytes())),
                ));
                list
            },
            specials,
            special_of,
            past: false,
            fresh: false,
            open_array: false,
            raw: Forming::new(limits.max_argument_bytes),
            object_from: 0,
            skip: Skip::default(),
            skip_slot: None,
            expect: Expect::default(),
            matcher: MarkerMatcher::new(),
            head_k: table.header.as_ref().map(|_| markers.len()),
            head: String::new(),
            table,
        }
    }

    pub(crate) fn retained(&self) -> usize {
        self.input.held()
            + self.text.retained()
            + self.list.retained()
            + self.raw.retained()
            + self.matcher.held()
            + self.expect.matched()
            + self.specials.held()
            + self.head.capacity()
    }

    /// The current call's opener.
    fn opener(&self) -> Option<&Opener> {
        self.table.openers.get(self.cur)
    }

    fn payload(&self) -> Payload {
        self.opener().map_or(Payload::Object, |o| o.payload)
    }

    /// The current call's close marker (empty: none).
    fn close(&self) -> &str {
        self.opener()
            .and_then(|o| o.close.as_deref())
            .unwrap_or_default()
    }

    fn close_set(&self) -> Option<&MarkerSet> {
        self.closes.get(self.cur).and_then(Option::as_ref)
    }

    /// Whether a broken call's text runs to the close marker (else to the bracket that
    /// balances it, or the offending character).
    fn skips_to_close(&self) -> bool {
        !self.open_array && self.close_set().is_some()
    }

    /// The marker of the current call, for messages.
    fn label(&self) -> &str {
        self.opener().map_or("", |o| &o.marker)
    }

    /// The text stage found opener `k`'s marker (or the message header token).
    fn opened(&mut self, k: usize) {
        if Some(k) == self.head_k {
            self.head.clear();
            self.expect.reset();
            self.st = St::Head;
            return;
        }
        self.head.clear();
        self.cur = k;
        let (marker, payload) = match self.table.openers.get(k) {
            Some(o) => (&*o.marker, o.payload),
            None => ("", Payload::Object),
        };
        self.raw.start(marker);
        self.expect.reset();
        self.matcher.clear();
        self.st = match payload {
            Payload::ArrayBody => {
                self.list.array();
                St::List
            }
            _ => St::Open,
        };
    }

    fn run(&mut self, mut s: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        while !s.is_empty() {
            match self.st {
                St::Text => {
                    if let Some(k) = self.text.run(&mut s, out) {
                        self.opened(k);
                    }
                }
                St::Head => self.head_step(&mut s, out),
                St::Open => {
                    if self.expect.matched() == 0 {
                        let rest = s.trim_start_matches(is_ws);
                        calls
                            .raw_or(self.list.slot(), &mut self.raw)
                            .push(s.get(..s.len() - rest.len()).unwrap_or_default());
                        s = rest;
                        let payload = self.payload();
                        match s.as_bytes().first() {
                            None => continue,
                            Some(b'{') => {
                                self.object_from =
                                    calls.raw_or(self.list.slot(), &mut self.raw).len();
                                self.list.object();
                                if !self.head.is_empty() {
                                    let head = std::mem::take(&mut self.head);
                                    let name = head.trim_matches(is_ws);
                                    self.list.header_name(name, &mut self.raw, calls, out);
                                    self.head = head;
                                    self.head.clear();
                                }
                                self.st = St::List;
                                continue;
                            }
                            Some(b'[')
                                if matches!(
                                    payload,
                                    Payload::Either | Payload::EitherOpenArray
                                ) =>
                            {
                                self.open_array = payload == Payload::EitherOpenArray;
                                calls.raw_or(self.list.slot(), &mut self.raw).push("[");
                                s = s.get(1..).unwrap_or_default();
                                self.list.array();
                                self.st = St::List;
                                continue;
                            }
                            Some(_) => {}
                        }
                    }
                    let Some(close) = self.closes.get(self.cur).and_then(Option::as_ref) else {
                        // Nothing after the marker can begin a call: it was text.
                        self.release(calls, out);
                        continue;
                    };
                    match self.expect.feed(close, s) {
                        Expected::NeedMore => s = "",
                        Expected::Matched { consumed, .. } => {
                            // The marker and its close with nothing between: no call.
                            s = s.get(consumed..).unwrap_or_default();
                            self.end_call();
                        }
                        Expected::Mismatch { len, consumed, .. } => {
                            let held = self.close().get(..len - consumed).unwrap_or_default();
                            let held = held.to_owned();
                            // Nothing after the marker can begin a call: the marker and
                            // the whitespace after it are text; the close marker's bytes
                            // held from earlier pieces (and the input's own, not consumed)
                            // are scanned again, as text.
                            self.release(calls, out);
                            self.text.give_back(&held, out);
                        }
                    }
                }
                St::Special => match self.specials.look(s) {
                    Look::NeedMore => s = "",
                    Look::Token { index, consumed } => {
                        // A special-token opener inside an argument string: it ends the
                        // call (its bytes up to the token) and starts the new one.
                        s = s.get(consumed..).unwrap_or_default();
                        let marker = self.specials.token(index).to_owned();
                        interrupted_own(calls, self.list.slot(), &marker, &mut self.raw, out);
                        self.end_call();
                        self.opened(self.special_of.get(index).copied().unwrap_or(0));
                    }
                    Look::Content { consumed } => {
                        // String content after all: the `<` goes on as such, the bytes
                        // matched after it are read again (another `<` may be among them).
                        s = s.get(consumed..).unwrap_or_default();
                        let given = self.specials.take_given();
                        self.st = St::List;
                        self.past = !given.is_empty();
                        self.run(&given, calls, out);
                        self.specials.put_back(given);
                    }
                },
                St::List => match self.list_step(&mut s, calls, out) {
                    List::NeedMore => {}
                    // A `<` that begins no token, seen at once: content.
                    List::Special if self.specials.content_at(s) => self.past = true,
                    List::Special => {
                        self.specials.reset();
                        self.st = St::Special;
                    }
                    List::Done => {
                        if self.close_set().is_some() {
                            self.expect.reset();
                            self.st = St::After;
                        } else {
                            self.end_call();
                        }
                    }
                    List::Nameless { in_array } if in_array || !self.skips_to_close() => {
                        // Reported at its `}`: the calls beside it still count.
                        let what = format!("a {} call object without a name", self.label());
                        // The call it opened, if its arguments came first, is given up.
                        calls.report(
                            self.list.slot(),
                            ErrorKind::MissingName,
                            &what,
                            &mut self.raw,
                            out,
                        );
                        self.raw.start("");
                        if !in_array {
                            self.end_call();
                        }
                    }
                    List::Nameless { .. } => self.st = St::Skip(ErrorKind::MissingName),
                    List::Broken(_, None)
                        if self.list.before_first() && self.payload() == Payload::ArrayBody =>
                    {
                        // A marker that opens the array itself (`functools[`) and no
                        // call object after it: a literal marker in prose, text.
                        self.release(calls, out);
                    }
                    List::Broken(kind, slot) if self.list.in_object() && !self.skips_to_close() => {
                        // No close marker to skip to: skip the object to its balancing
                        // bracket (nothing of it is text; an array's later calls count).
                        let from = self.list.broken_from().unwrap_or(self.object_from);
                        self.skip =
                            skip_object(calls.raw_or(self.list.slot(), &mut self.raw), from);
                        self.skip_slot = slot;
                        self.fresh = true;
                        self.st = St::Balance(kind);
                    }
                    List::Broken(kind, slot) => {
                        if self.skips_to_close() {
                            // The rest of the call up to its close marker is collected.
                            self.fresh = true;
                            self.st = St::Skip(kind);
                        } else {
                            s = self.malformed(s, slot, kind, calls, out);
                        }
                    }
                },
                St::After => {
                    let Some(close) = self.closes.get(self.cur).and_then(Option::as_ref) else {
                        self.end_call();
                        continue;
                    };
                    if self.open_array && self.expect.matched() == 0 {
                        // The close marker is optional here: the whitespace before it
                        // is text either way (the model's bytes, nothing held).
                        let rest = s.trim_start_matches(is_ws);
                        let ws = s.get(..s.len() - rest.len()).unwrap_or_default();
                        if !ws.is_empty() {
                            self.text.give_back(ws, out);
                        }
                        s = rest;
                        if s.is_empty() {
                            continue;
                        }
                    }
                    if let Some(given) = closing(&mut self.expect, close, &mut s) {
                        let given = self.close().get(..given).unwrap_or_default().to_owned();
                        self.end_call();
                        // No close marker: what follows the call is text again.
                        self.text.give_back(&given, out);
                    }
                }
                St::Balance(kind) => {
                    // The broken call's text runs to its balancing bracket, or to an
                    // opener: that ends it and starts the new call.
                    let Some(found) = self.matcher.next(&self.open_set, &mut s) else {
                        continue;
                    };
                    let found = match found {
                        Found::Text(t) => Ok(t.to_owned()),
                        Found::Marker(m) => Err(m),
                    };
                    match found {
                        Ok(t) => {
                            self.fresh = false;
                            let mut t: &str = &t;
                            if skip_to_end(
                                &mut self.skip,
                                &mut t,
                                calls.raw_or(self.list.slot(), &mut self.raw),
                            ) {
                                // The bytes after the bracket (and any the matcher held
                                // behind them) are read again in the next state.
                                let mut again = t.to_owned();
                                again.push_str(self.matcher.finish());
                                self.balanced(kind, calls, out);
                                self.run(&again, calls, out);
                            }
                        }
                        Err(m) => {
                            let marker = self.open_set.get(m).to_owned();
                            let slot = self.skip_slot;
                            if !self.fresh {
                                let what = skip_message(kind, self.label());
                                calls.report(slot, kind, &what, &mut self.raw, out);
                            } else {
                                interrupted_own(calls, slot, &marker, &mut self.raw, out);
                            }
                            self.end_call();
                            self.opened(m);
                        }
                    }
                }
                St::Skip(kind) => {
                    let Some(set) = self.skips.get(self.cur).and_then(Option::as_ref) else {
                        self.end_call();
                        continue;
                    };
                    let Some(found) = self.matcher.next(set, &mut s) else {
                        continue;
                    };
                    match found {
                        Found::Text(t) => {
                            self.fresh &= t.is_empty();
                            calls.raw_or(self.list.slot(), &mut self.raw).push(t);
                        }
                        Found::Marker(m) if m > 0 => {
                            // An opener inside the call: it ends the call and starts the
                            // new one. Right where the call broke, the call was only cut
                            // short (complete, when its arguments had closed).
                            let marker = set.get(m);
                            let slot = self.list.slot();
                            if !self.fresh {
                                let what = skip_message(kind, self.label());
                                calls.report(slot, kind, &what, &mut self.raw, out);
                            } else if self.list.complete() {
                                calls.close_own(slot, &mut self.raw, out);
                            } else {
                                interrupted_own(calls, slot, marker, &mut self.raw, out);
                            }
                            self.end_call();
                            self.opened(m - 1);
                        }
                        Found::Marker(_) => {
                            calls
                                .raw_or(self.list.slot(), &mut self.raw)
                                .push(set.get(0));
                            let what = skip_message(kind, self.label());
                            calls.report(self.list.slot(), kind, &what, &mut self.raw, out);
                            self.end_call();
                        }
                    }
                }
            }
        }
    }

    /// [`St::Head`]: the header's text up to a `<`, then an opener's marker begins the
    /// call; a line break, a header past [`MAX_HEAD`] or another token after it makes
    /// the header text again (its token dropped).
    fn head_step(&mut self, s: &mut &str, out: &mut dyn EventSink) {
        if self.expect.matched() == 0 {
            let end = s.find(['<', '\n']).unwrap_or(s.len());
            let (part, rest) = s.split_at_checked(end).unwrap_or((s, ""));
            if self.head.len() + part.len() > MAX_HEAD || rest.starts_with('\n') {
                // Not a call's header: text (what follows is read as text).
                let head = std::mem::take(&mut self.head);
                self.st = St::Text;
                self.text.give_back(&head, out);
                self.text.give_back(part, out);
                *s = rest;
                return;
            }
            self.head.push_str(part);
            *s = rest;
            if s.is_empty() {
                return;
            }
        }
        match self.expect.feed(&self.open_set, s) {
            Expected::NeedMore => *s = "",
            Expected::Matched { index, consumed } => {
                *s = s.get(consumed..).unwrap_or_default();
                let head = std::mem::take(&mut self.head);
                self.opened(index);
                if !head.is_empty() {
                    // The call's bytes start at its message's header.
                    let token = self.table.header.as_deref().unwrap_or_default();
                    let marker = self.open_set.get(index);
                    self.raw.start(&format!("{token}{head}{marker}"));
                }
                // Kept for the call object: the call's name ([`CallList::header_name`]).
                self.head = head;
            }
            Expected::Mismatch {
                which,
                len,
                consumed,
            } => {
                *s = s.get(consumed..).unwrap_or_default();
                let mut given = std::mem::take(&mut self.head);
                given.push_str(self.open_set.get(which).get(..len).unwrap_or_default());
                self.expect.reset();
                self.st = St::Text;
                self.text.give_back(&given, out);
                self.head = given;
                self.head.clear();
            }
        }
    }

    /// One step of the call list in [`St::List`] (the `<` of a [`past`](Self::past)
    /// mismatch first, as string content).
    fn list_step(&mut self, s: &mut &str, calls: &mut Calls, out: &mut dyn EventSink) -> List {
        if std::mem::take(&mut self.past) {
            self.list.past_stop(s, &mut self.raw, calls, out)
        } else {
            self.list.feed(s, &mut self.raw, calls, out)
        }
    }

    /// A broken call skipped to its balancing bracket ([`St::Balance`]): reported; an
    /// array's later calls go on.
    fn balanced(&mut self, kind: ErrorKind, calls: &mut Calls, out: &mut dyn EventSink) {
        let what = skip_message(kind, self.label());
        calls.report(self.skip_slot, kind, &what, &mut self.raw, out);
        if self.list.skipped() {
            // The array's later calls stand on their own.
            self.raw.start("");
            self.matcher.clear();
            self.st = St::List;
        } else {
            self.end_call();
        }
    }

    /// Reports the call with the offending character and goes back to text after it.
    /// Returns the rest of `s`.
    fn malformed<'a>(
        &mut self,
        s: &'a str,
        slot: Option<Slot>,
        kind: ErrorKind,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> &'a str {
        let what = skip_message(kind, self.label());
        let rest = report_at(s, calls, slot, kind, &what, &mut self.raw, out);
        self.end_call();
        rest
    }

    /// The marker (and the whitespace after it) cannot begin a call: text, now.
    fn release(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        released_own(calls, &mut self.raw, &mut self.text, out);
        self.end_call();
    }

    /// The hot path's piece that is more of an argument string but for a stop byte at
    /// its end (the byte after it not seen yet): the bytes before it go to the call, the
    /// stop byte is held as `St::Special` holds it (what the full scan does, without
    /// it). `false`, nothing done, for any other piece.
    #[inline]
    fn stop_at_end(&mut self, s: &str, calls: &mut Calls, out: &mut dyn EventSink) -> bool {
        let Some(stop) = self.list.stop() else {
            return false;
        };
        let Some(head) = s.strip_suffix(stop.as_str()) else {
            return false;
        };
        if !self.list.args_run(head, &mut self.raw, calls, out) {
            return false;
        }
        if !self.list.in_plain_string() {
            // After a backslash: the stop byte is the escape's, the full scan's to judge.
            self.run(stop.as_str(), calls, out);
            return true;
        }
        self.specials.hold(stop);
        self.st = St::Special;
        true
    }

    fn end_call(&mut self) {
        self.fresh = false;
        self.past = false;
        self.open_array = false;
        self.st = St::Text;
        self.expect.reset();
        self.matcher.clear();
        self.raw.start("");
        self.list.reset();
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.run_held(calls, out);
        while self.st == St::Special {
            // The text ended inside what could have been a special token: string
            // content (each round reads at least its `<`).
            let given = self.specials.finish();
            self.st = St::List;
            self.past = !given.is_empty();
            self.run(&given, calls, out);
        }
        let label = self.label().to_owned();
        match self.st {
            St::Text | St::Special => {}
            St::Head => {
                let mut given = std::mem::take(&mut self.head);
                given.push_str(self.expect.text(&self.open_set));
                self.st = St::Text;
                self.text.give_back(&given, out);
            }
            // The marker and nothing after it but whitespace (or part of its close): a
            // call cut off before its payload, `truncated` with those bytes, as one cut
            // inside its payload is (watsonx granite leaks a bare `<tool_call>`).
            St::Open => {
                if let Some(close) = self.close_set() {
                    let given = self.expect.text(close).to_owned();
                    calls.raw_or(self.list.slot(), &mut self.raw).push(&given);
                }
                let what = format!("the text ended after {label}, before its call");
                calls.report(None, ErrorKind::Truncated, &what, &mut self.raw, out);
            }
            St::After => {
                let given = match self.close_set() {
                    Some(close) => self.expect.text(close).to_owned(),
                    None => String::new(),
                };
                self.end_call();
                self.text.give_back(&given, out);
            }
            St::List => {
                if let Err(slot) = self.list.finish(&mut self.raw, calls, out) {
                    let what = format!("the text ended inside a {label}");
                    calls.report(slot, ErrorKind::Truncated, &what, &mut self.raw, out);
                }
            }
            St::Balance(kind) => {
                let tail = self.matcher.finish().to_owned();
                calls.raw_or(self.list.slot(), &mut self.raw).push(&tail);
                let what = format!("the text ended inside a malformed {label}");
                calls.report(self.skip_slot, kind, &what, &mut self.raw, out);
            }
            St::Skip(kind) => {
                let tail = self.matcher.finish().to_owned();
                calls.raw_or(self.list.slot(), &mut self.raw).push(&tail);
                let what = match kind {
                    ErrorKind::MissingName => format!(
                        "a {label} without a name (the text ended before {})",
                        self.close()
                    ),
                    _ => format!("the text ended inside a malformed {label}"),
                };
                calls.report(self.list.slot(), kind, &what, &mut self.raw, out);
            }
        }
        self.end_call();
        self.text.finish(out);
    }
}

/// Whether an opener's marker is a special token (`<|function_call|>`,
/// `<｜tool▁call▁begin｜>`), never content, rather than plain text (`<tool_call>`).
pub(crate) fn is_special(marker: &str) -> bool {
    marker.starts_with("<|") || marker.starts_with("<｜")
}

fn skip_message(kind: ErrorKind, label: &str) -> String {
    match kind {
        ErrorKind::MissingName => format!("a {label} without a name"),
        ErrorKind::InvalidArguments => format!("the arguments of a {label} are not valid JSON"),
        ErrorKind::LimitExceeded => format!("a {label} exceeds a limit"),
        ErrorKind::UnexpectedPayload => {
            format!("a {label} with a member its syntax does not define, or one repeated")
        }
        ErrorKind::TrailingArguments => format!(
            "a {label} with a member its syntax does not define, or one repeated, after its arguments"
        ),
        _ => format!("a {label} that is not a JSON call object"),
    }
}
