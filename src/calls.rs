//! Per-call bookkeeping shared by every dialect.
//!
//! A dialect says what the provider sent (a call appeared, its id, its name, an
//! argument fragment, the call is over); [`Calls`] turns that into events that keep the
//! contract: dense indices assigned at `ToolCallStart`, argument text streamed as
//! received, `ToolCallEnd` the moment the arguments' top-level value closes, exactly one
//! `ToolCallEnd` or `Error` per started call, limits enforced.
//!
//! A call is owned here from its first argument byte: arguments that come before the
//! name are held here (not by the dialect) and flushed after the Start. Who finds where
//! the arguments value ends is fixed when the call opens: [`Calls`] itself for provider
//! fragments and text a dialect converted to JSON ([`Calls::open`]), or the dialect, which
//! has scanned the argument bytes once and hands them over with where the value closed
//! ([`Calls::open_scanned`], [`Calls::scanned_args`]). A text scanner's arguments are the
//! model's own bytes, inside the call's raw text (markers included, bounded: [`Raw`]):
//! for those calls ([`Calls::open_raw`], [`Calls::open_unnamed`]) the call owns its raw
//! text from its first byte, the dialect's bytes of it so far ([`Forming`]) handed over
//! as it opens; the dialect pushes the rest there ([`Calls::raw_or`],
//! [`Calls::push_args`]), the argument bytes are kept once, in it, and read from it
//! whenever their text is needed (the `ToolCallEnd`'s value, arguments held before the
//! name, an error's raw arguments). The dialect closes or reports such a call
//! ([`Calls::close_own`], [`Calls::report`]), which gives the buffer back to it for the
//! next call ([`Calls::give_back`]). A dialect that finds a call broken reports it with
//! its own message and the call's raw text ([`Calls::error`]).
//!
//! ```text
//!            name known                 value closed
//!   Pending ───────────> Streaming ───────────────────> Ended
//!      │ (args held)         │ invalid JSON / limit
//!      │                     └──────────────────────> Failed (Error emitted at close)
//!      ├── closed without name: dropped if only an end-of-turn token, else Error
//!      └── opened before its name by a dialect: given up without a trace, or named
//!          past max_calls ──> Dropped (ignored)
//! ```
//!
//! With declared tools ([`Calls::with_declared`]) a name the request did not declare makes
//! the call *rejected*: it runs through the same states (so the dialect sees the same
//! answers from [`Calls::args_in_progress`] and the calls beside it decode exactly as
//! they would have), but its events go nowhere, it takes no index, and its close emits
//! one `Error` of kind [`ErrorKind::UndeclaredTool`] (no index) carrying the call's raw
//! text: what the dialect hands to [`Calls::close_with_raw`] / [`Calls::error`]
//! (text scanners: the model's own bytes of the call), else the argument text received.
//!
//! A call past `max_calls` is handled the same way (its error of kind
//! [`ErrorKind::LimitExceeded`], carrying its raw text, bounded by `max_argument_bytes`), for
//! as many calls again as `max_calls` allows; calls past that are dropped, reported once
//! with an empty `raw`: the table never holds more than twice `max_calls` calls.

use crate::check::Check;
use crate::event::{ErrorKind, Event};
use crate::event::{EventRef, EventSink};
use crate::limits::Limits;
use crate::scan::fields::{FieldDecoder, FieldEvents};
use crate::scan::json::{JsonError, JsonScanner, JsonStatus};
use crate::tools::Tools;
use serde_json::Value;
use std::sync::Arc;

mod raw;
pub(crate) use raw::{Forming, Raw};

/// The prefix of generated call ids unless one is set: `call_0`, `call_1`, ...
pub(crate) const DEFAULT_ID_PREFIX: &str = "call_";

/// Tokens some servers leak into argument text after (or instead of) the arguments.
const END_TOKENS: &[&str] = &[
    "</s>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<eos>",
    "<end_of_turn>",
];

/// Splits `s` after at most `room` bytes, on a character boundary.
pub(crate) fn split_at_room(s: &str, room: usize) -> (&str, &str) {
    if s.len() <= room {
        return (s, "");
    }
    let mut cut = room;
    while cut > 0 && !s.is_char_boundary(cut) {
        cut -= 1;
    }
    // invariant: `cut` < `s.len()` and on a character boundary (the loop stops at one; 0 is).
    s.split_at(cut)
}

/// Up to this capacity a growing buffer doubles (std's amortised growth); past it, it
/// grows by an eighth, so a long argument leaves at most an eighth of it unused
/// ([`push_grown`]).
const DOUBLING_UP_TO: usize = 256 * 1024;

/// Appends `s` to `buf`, a buffer that grows with a call's arguments: like
/// `String::push_str`, but past [`DOUBLING_UP_TO`] bytes of capacity it grows by an
/// eighth instead of doubling, so the heap it holds stays within 9/8 of its length (plus
/// that constant): a 1 MB argument does not leave 1 MB of growth room behind. Still
/// amortised constant time per byte, and the same allocations as `push_str` below the
/// threshold.
#[inline]
pub(crate) fn push_grown(buf: &mut String, s: &str) {
    if buf.capacity() - buf.len() < s.len() {
        grow(buf, s.len());
    }
    buf.push_str(s);
}

/// [`push_grown`] for bytes.
#[inline]
pub(crate) fn extend_grown(buf: &mut Vec<u8>, s: &[u8]) {
    if buf.capacity() - buf.len() < s.len() {
        buf.reserve_exact(room_to_add(buf.len(), buf.capacity(), s.len()));
    }
    buf.extend_from_slice(s);
}

/// [`push_grown`] when `buf` has no room for `extra` more bytes.
#[cold]
#[inline(never)]
fn grow(buf: &mut String, extra: usize) {
    buf.reserve_exact(room_to_add(buf.len(), buf.capacity(), extra));
}

/// What to reserve beyond `len` in a buffer of capacity `cap` that needs `extra` more
/// bytes: double below [`DOUBLING_UP_TO`], an eighth more past it, at least `extra`
/// (and at least 8 bytes in all, as std's growth starts).
#[cold]
fn room_to_add(len: usize, cap: usize, extra: usize) -> usize {
    let step = if cap < DOUBLING_UP_TO { cap } else { cap / 8 };
    // At least 8 bytes, as std's growth starts.
    let target = cap.saturating_add(step).max(8);
    extra.max(target.saturating_sub(len))
}

/// Whether `s` is only whitespace and end-of-turn tokens.
fn only_end_tokens(mut s: &str) -> bool {
    loop {
        s = s.trim_start();
        if s.is_empty() {
            return true;
        }
        match END_TOKENS.iter().find(|t| s.starts_with(**t)) {
            // invariant: `s` starts with `t`, so `t.len()` is a character boundary in it.
            #[allow(clippy::indexing_slicing)]
            Some(t) => s = &s[t.len()..],
            None => return false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No name yet: nothing emitted; arguments buffered.
    Pending,
    /// Start emitted; arguments streaming.
    Streaming,
    /// End emitted.
    Ended,
    /// The arguments went wrong; an Error will be emitted when the call closes.
    Failed(ErrorKind),
    /// Error emitted (or the call was dropped as an end-of-turn token, or a call opened
    /// before its name was given up by its dialect).
    Closed,
    /// A check refused its argument text ([`Check`]): its error was emitted at that byte;
    /// the rest of the call is ignored (no further event, no error at its close).
    Aborted,
    /// Named past `max_calls`: everything about it is ignored (its dialect opened it
    /// before its name).
    Dropped,
}

/// Who scans a call's argument text for the end of its value.
#[derive(Debug)]
enum Scan {
    /// [`Calls`] does, as the text arrives (provider fragments, text a dialect converted
    /// to JSON).
    Own(JsonScanner),
    /// The dialect does, once, and says when the value closed
    /// ([`Calls::scanned_args`]): text a dialect converted to JSON as it scanned it.
    Dialect {
        /// The value closed.
        closed: bool,
    },
    /// The dialect does, once; the argument bytes are the model's own, in the call's raw
    /// text ([`Calls::push_args`]): the call's `args` stays empty (unless they were
    /// decoded, [`Calls::decoded_args`]) and `raw_len` counts them.
    Raw {
        /// The value closed.
        closed: bool,
    },
}

impl Scan {
    /// Whether the value closed.
    fn closed(&self) -> bool {
        match self {
            Scan::Own(scanner) => scanner.is_complete(),
            Scan::Dialect { closed } | Scan::Raw { closed } => *closed,
        }
    }

    /// Whether the argument bytes are in the call's raw text.
    fn is_raw(&self) -> bool {
        matches!(self, Scan::Raw { .. })
    }

    /// A dialect's scan of a value that closed (`raw`: its bytes are in the call's raw text).
    fn dialect_closed(raw: bool) -> Scan {
        if raw {
            Scan::Raw { closed: true }
        } else {
            Scan::Dialect { closed: true }
        }
    }
}

#[derive(Debug)]
struct Call {
    index: usize,
    id: String,
    name: String,
    phase: Phase,
    /// The argument text received (bounded by the limit); empty for a call whose dialect
    /// keeps its argument bytes ([`Scan::Raw`]).
    args: String,
    /// For [`Scan::Raw`]: bytes of argument text received and kept (by the dialect).
    raw_len: usize,
    /// Bytes of `args` already emitted as ToolCallArgs.
    emitted: usize,
    /// Bytes dropped after a limit was hit.
    dropped: usize,
    /// Who finds where the arguments value ends.
    scan: Scan,
    /// Byte length of the JSON value in `args` once complete.
    value_end: usize,
    /// Trailing text after the value closed that was not an end-of-turn token (the first
    /// `MAX_TRAILING` bytes).
    trailing: String,
    /// Field-event decoder, when field events are on (dropped at the end).
    fields: Option<FieldDecoder>,
    /// The checks on the argument text (repeats, schema), when configured, from the
    /// call's start.
    check: Option<Box<Check>>,
    /// Bytes of trailing text beyond `MAX_TRAILING`, counted in the error.
    trailing_dropped: usize,
    /// The call counts against `max_calls`: from its open, or for a call whose dialect
    /// opened it before its name ([`Calls::open_unnamed`]), from its name.
    counted: bool,
    /// Set when the name is not a declared tool: the call's events are discarded and its
    /// close reports it.
    rejected: Option<Box<Rejected>>,
    /// The call's raw text, the model's own bytes, for a call opened with
    /// [`Calls::open_raw`] / [`Calls::open_unnamed`] (`owns_raw`) until its dialect takes
    /// the buffer back ([`Calls::give_back`]): its argument bytes are read from here.
    raw: Raw,
    owns_raw: bool,
    /// The arguments of a [`Scan::Raw`] call are text its dialect decoded from the
    /// model's bytes (string-encoded arguments, [`Calls::decoded_args`]), kept in `args`
    /// (the raw text holds the model's bytes).
    decoded: bool,
}

impl Call {
    /// Bytes of argument text received and kept.
    fn kept(&self) -> usize {
        self.kept_as(self.scan.is_raw())
    }

    /// [`kept`](Self::kept) for a call whose argument bytes are in its raw text (`raw`) or
    /// not.
    fn kept_as(&self, raw: bool) -> usize {
        if raw { self.raw_len } else { self.args.len() }
    }

    /// Keeps argument text `s`: in `args`, or, for a call whose argument bytes are in its
    /// raw text (`raw`), only counted.
    fn keep_as(&mut self, raw: bool, s: &str) {
        if raw {
            self.raw_len += s.len();
        } else {
            push_grown(&mut self.args, s);
        }
    }

    /// The argument text received, for an error (`own`: a [`Scan::Raw`] call's text is
    /// read from its raw text; otherwise its dialect took the raw text back and reports
    /// the call itself, see `Calls::close_inner`).
    fn take_args(&mut self, own: bool) -> String {
        if self.scan.is_raw() {
            if own {
                self.raw_args().to_owned()
            } else {
                String::new()
            }
        } else {
            std::mem::take(&mut self.args)
        }
    }

    /// The argument text of a [`Scan::Raw`] call: in its raw text, or the text its dialect
    /// decoded.
    fn raw_args(&self) -> &str {
        raw_args_of(&self.raw, &self.args, self.decoded)
    }

    /// Emits the field events the end of the value completes (a top-level number closes
    /// only there).
    fn finish_fields(&mut self, out: &mut dyn EventSink) {
        if let Some(f) = &mut self.fields {
            let index = self.index;
            f.finish(&mut FieldEvents { index, out });
        }
    }
}

/// `Call::raw_args` from the call's fields.
fn raw_args_of<'a>(raw: &'a Raw, args: &'a str, decoded: bool) -> &'a str {
    if decoded { args } else { raw.args() }
}

/// What a rejected call keeps until it is reported.
#[derive(Debug, Default)]
struct Rejected {
    /// The argument text received, bounded by `max_argument_bytes` (not kept for a call
    /// whose argument bytes are in its raw text: the error carries that).
    raw: String,
    /// Bytes not kept.
    dropped: usize,
    /// The error was emitted.
    reported: bool,
    /// Rejected for being past `max_calls` (else: undeclared).
    over_limit: bool,
}

/// Emits an argument delta, then the field events it completes; with checks, only the
/// part of it they pass, and `true` when they refused the rest (the caller then ends the
/// call: [`Calls::stop`]).
///
/// Without checks (the default) this is what it was before checks existed: one test of
/// `check` and the event, inlined into each dialect's hot loop; the checking side is out
/// of line ([`emit_checked_args`]), so none of its code is inlined here (a build where
/// it was had this function out of line: +8 % Ir on Hermes' 4-byte argument feeds).
#[inline(always)]
fn emit_args(
    index: usize,
    fields: &mut Option<FieldDecoder>,
    check: &mut Option<Box<Check>>,
    delta: &str,
    out: &mut dyn EventSink,
) -> bool {
    if let Some(check) = check {
        return emit_checked_args(index, fields, check, delta, out);
    }
    emit_unchecked_args(index, fields, delta, out);
    false
}

/// [`emit_args`] without checks: the event, then the field events.
#[inline(always)]
fn emit_unchecked_args(
    index: usize,
    fields: &mut Option<FieldDecoder>,
    delta: &str,
    out: &mut dyn EventSink,
) {
    out.event(EventRef::ToolCallArgs { index, delta });
    if let Some(f) = fields {
        f.feed(delta, &mut FieldEvents { index, out });
    }
}

/// [`emit_args`] for a call with checks: the part of `delta` they pass, `true` when they
/// refused the rest.
#[inline(never)]
fn emit_checked_args(
    index: usize,
    fields: &mut Option<FieldDecoder>,
    check: &mut Check,
    delta: &str,
    out: &mut dyn EventSink,
) -> bool {
    let ok = check.feed(delta);
    let refused = ok < delta.len();
    let delta = delta.get(..ok).unwrap_or_default();
    if !delta.is_empty() || !refused {
        out.event(EventRef::ToolCallArgs { index, delta });
        if let Some(f) = fields {
            f.feed(delta, &mut FieldEvents { index, out });
        }
    }
    refused
}

/// Bytes of text after a call's arguments kept for the `trailing_arguments` error.
const MAX_TRAILING: usize = 4096;

/// A handle to a call within one response (not its dense index).
pub(crate) type Slot = usize;

/// All calls of one response.
#[derive(Debug)]
pub(crate) struct Calls {
    calls: Vec<Call>,
    /// Calls counted against `max_calls`.
    counted: usize,
    /// Calls past `max_calls` kept as rejected calls, to report their raw text.
    over_limit: usize,
    next_index: usize,
    limits: Limits,
    limit_reported: bool,
    /// Emit `ToolCallField` events (`ParserConfig::field_events`).
    field_events: bool,
    /// Declared tools: a call to any other name is rejected. `None`: every name is a call.
    declared: Option<Arc<Tools>>,
    /// Where a rejected call's own events go (cleared after each use).
    discard: Vec<Event>,
    /// Generated ids are `{id_prefix}{index}` (the default borrowed: no allocation).
    id_prefix: std::borrow::Cow<'static, str>,
    /// A text scanner is running (the content scanner, see [`Sink::text`]): the calls it
    /// starts are found in text.
    ///
    /// [`Sink::text`]: crate::provider::Sink::text
    pub(crate) in_text: bool,
    /// Which call indices were started while `in_text` (a bit per index; at most
    /// `max_calls` bits).
    from_text: Vec<u64>,
    /// `ParserConfig::max_repeats` (0: off).
    max_repeats: usize,
    /// The tools whose schemas the calls' arguments are validated against
    /// (`ParserConfig::validate_arguments`).
    validate: Option<Arc<Tools>>,
}

impl Calls {
    pub(crate) fn new(limits: Limits) -> Self {
        Calls {
            calls: Vec::new(),
            counted: 0,
            over_limit: 0,
            next_index: 0,
            limits,
            limit_reported: false,
            field_events: false,
            declared: None,
            discard: Vec::new(),
            id_prefix: std::borrow::Cow::Borrowed(DEFAULT_ID_PREFIX),
            in_text: false,
            from_text: Vec::new(),
            max_repeats: 0,
            validate: None,
        }
    }

    /// Validates each call's arguments against its tool's schema in `tools` (`None`: no
    /// validation), see [`crate::check::schema`].
    pub(crate) fn with_validation(mut self, tools: Option<Arc<Tools>>) -> Self {
        self.validate = tools;
        self
    }

    /// Ends a call whose argument text repeats one period more than `n` times in a row
    /// (0: off), see [`crate::check::repeat`].
    pub(crate) fn with_max_repeats(mut self, n: usize) -> Self {
        self.max_repeats = n;
        self
    }

    /// Rejects calls to names not in `tools` (`None`: accept every name).
    pub(crate) fn with_declared(mut self, tools: Option<Arc<Tools>>) -> Self {
        self.declared = tools;
        self
    }

    /// Generated call ids are `{prefix}{index}` (default `call_`).
    pub(crate) fn with_id_prefix(mut self, prefix: &str) -> Self {
        if prefix != self.id_prefix {
            self.id_prefix = std::borrow::Cow::Owned(prefix.to_owned());
        }
        self
    }

    /// Whether the call in `slot` was rejected (its events must be discarded).
    pub(crate) fn is_rejected(&self, slot: Slot) -> bool {
        self.calls
            .get(slot)
            .and_then(|c| c.rejected.as_ref())
            .is_some_and(|r| !r.reported)
    }

    /// Runs `f` for a rejected call with its events sent to `discard`.
    fn discarding<R>(&mut self, f: impl FnOnce(&mut Self, &mut Vec<Event>) -> R) -> R {
        let mut sink = std::mem::take(&mut self.discard);
        let result = f(self, &mut sink);
        sink.clear();
        self.discard = sink;
        result
    }

    /// Runs `f` on the call in `slot` with its events sent to `out`, or, when the call was
    /// rejected, discarded, after keeping the argument text `delta` for its error.
    fn route<R>(
        &mut self,
        slot: Slot,
        delta: &str,
        out: &mut dyn EventSink,
        f: impl FnOnce(&mut Self, &mut dyn EventSink) -> R,
    ) -> R {
        if !self.is_rejected(slot) {
            return f(self, out);
        }
        self.keep_rejected(slot, delta);
        self.discarding(|calls, sink| f(calls, sink))
    }

    /// Keeps argument text of a rejected call for its error.
    fn keep_rejected(&mut self, slot: Slot, delta: &str) {
        let max = self.limits.max_argument_bytes;
        if let Some(c) = self.calls.get_mut(slot)
            && !c.scan.is_raw()
            && let Some(r) = c.rejected.as_deref_mut()
        {
            if r.dropped > 0 {
                r.dropped += delta.len();
                return;
            }
            let (keep, over) = split_at_room(delta, max.saturating_sub(r.raw.len()));
            push_grown(&mut r.raw, keep);
            r.dropped += over.len();
        }
    }

    /// Emits the error of a rejected call (once), carrying `raw` when given, else the
    /// argument text received. `problem` adds what else was wrong with the call.
    fn report_rejected(
        &mut self,
        slot: Slot,
        raw: Option<String>,
        problem: Option<&str>,
        out: &mut dyn EventSink,
    ) {
        let Some(c) = self.calls.get_mut(slot) else {
            return;
        };
        let Some(r) = c.rejected.as_deref_mut() else {
            return;
        };
        if r.reported {
            return;
        }
        r.reported = true;
        let kept = std::mem::take(&mut r.raw);
        let note = if raw.is_none() && r.dropped > 0 {
            format!(
                "; the first {} bytes of its arguments are kept, {} dropped",
                kept.len(),
                r.dropped
            )
        } else {
            String::new()
        };
        let id = if c.id.is_empty() {
            String::new()
        } else {
            format!(" (id {})", c.id)
        };
        let problem = problem.map(|p| format!("; also: {p}")).unwrap_or_default();
        c.args = String::new();
        c.trailing = String::new();
        let (kind, message) = if r.over_limit {
            (
                ErrorKind::LimitExceeded,
                format!(
                    "a call to \"{}\"{id} past max_calls ({}) tool calls in one response: not emitted as a tool call{note}{problem}",
                    c.name, self.limits.max_calls
                ),
            )
        } else {
            (
                ErrorKind::UndeclaredTool,
                format!(
                    "a call to \"{}\"{id}, which the request did not declare: not emitted as a tool call{note}{problem}",
                    c.name
                ),
            )
        };
        out.push(Event::Error {
            path: None,
            kind,
            message,
            index: None,
            raw: raw.unwrap_or(kept),
        });
    }

    /// Turns field events on or off for the calls opened from now on.
    pub(crate) fn with_field_events(mut self, on: bool) -> Self {
        self.field_events = on;
        self
    }

    /// Heap bytes held for the calls' text (the capacity of their argument, trailing and
    /// rejected-call buffers).
    pub(crate) fn retained(&self) -> usize {
        self.calls
            .iter()
            .map(|c| {
                c.args.capacity()
                    + c.raw.retained()
                    + c.trailing.capacity()
                    + c.rejected.as_ref().map_or(0, |r| r.raw.capacity())
            })
            .sum()
    }

    /// Heap bytes held besides the calls' raw text (argument copies, trailing text,
    /// rejected calls' text).
    #[cfg(test)]
    pub(crate) fn retained_besides_raw(&self) -> usize {
        self.retained() - self.calls.iter().map(|c| c.raw.retained()).sum::<usize>()
    }

    /// A new call appeared. Returns its slot, or `None` (after an error event) when the
    /// call limit is reached.
    pub(crate) fn open(&mut self, out: &mut dyn EventSink) -> Option<Slot> {
        self.open_with(
            Scan::Own(JsonScanner::with_max_depth(self.limits.max_depth)),
            out,
        )
    }

    /// [`open`](Self::open) for a call whose dialect scans its arguments itself and hands
    /// them over with [`scanned_args`](Self::scanned_args), the call keeping them (JSON
    /// the dialect converted from the model's text; for the model's own bytes, kept in the
    /// call's raw text, [`open_raw`](Self::open_raw)).
    pub(crate) fn open_scanned(&mut self, out: &mut dyn EventSink) -> Option<Slot> {
        self.open_with(Scan::Dialect { closed: false }, out)
    }

    /// [`open`](Self::open) for a call whose dialect scans its arguments itself, the
    /// model's own bytes, kept once in the call's raw text ([`push_args`](Self::push_args)).
    /// Its dialect closes or reports it itself ([`close_own`](Self::close_own),
    /// [`report`](Self::report)), before [`close_all`](Self::close_all), which closes it
    /// without its argument text.
    ///
    /// The call owns its raw text from here: `forming` (what its dialect read of it so
    /// far) becomes the call's, reached through [`raw_or`](Self::raw_or), until
    /// [`give_back`](Self::give_back).
    pub(crate) fn open_raw(
        &mut self,
        forming: &mut Forming,
        out: &mut dyn EventSink,
    ) -> Option<Slot> {
        let slot = self.open_with(Scan::Raw { closed: false }, out)?;
        self.own_raw(slot, forming);
        Some(slot)
    }

    /// The call in `slot` takes `forming`'s text as its own.
    fn own_raw(&mut self, slot: Slot, forming: &mut Forming) {
        if let Some(c) = self.calls.get_mut(slot) {
            let fresh = forming.0.fresh();
            c.raw = std::mem::replace(&mut forming.0, fresh);
            c.owns_raw = true;
        }
    }

    /// The raw text of the call in `slot` when the call owns it, else `forming` (no
    /// call, or one that gave it back).
    #[inline]
    pub(crate) fn raw_or<'a>(
        &'a mut self,
        slot: Option<Slot>,
        forming: &'a mut Forming,
    ) -> &'a mut Raw {
        match slot.and_then(|s| self.calls.get_mut(s)) {
            Some(c) if c.owns_raw => &mut c.raw,
            _ => &mut forming.0,
        }
    }

    /// The call in `slot` is over for its dialect: its raw text (the buffer) goes back to
    /// `forming`, which keeps it until the next call starts ([`Raw::start`]).
    pub(crate) fn give_back(&mut self, slot: Option<Slot>, forming: &mut Forming) {
        if let Some(c) = slot.and_then(|s| self.calls.get_mut(s))
            && c.owns_raw
        {
            forming.0 = std::mem::take(&mut c.raw);
            c.owns_raw = false;
        }
    }

    /// A call opened with [`open_scanned`](Self::open_scanned) whose dialect stops
    /// vouching for the rest of its argument text (a transducer's JSON nesting deeper than
    /// `max_depth`): from here on the call table scans the text itself, as for a call
    /// opened with [`open`](Self::open), its scanner first given the text so far (so the
    /// call fails at the same byte, with the same error, as such a call would).
    pub(crate) fn scan_own(&mut self, slot: Slot) {
        let max_depth = self.limits.max_depth;
        if let Some(c) = self.calls.get_mut(slot)
            && matches!(c.scan, Scan::Dialect { closed: false })
        {
            let mut scanner = JsonScanner::with_max_depth(max_depth);
            let _ = scanner.feed(c.args.as_bytes());
            c.scan = Scan::Own(scanner);
        }
    }

    /// A call whose arguments come before its name (the dialect scans them, kept in the
    /// call's raw text as for [`open_raw`](Self::open_raw), which takes `forming`): they are
    /// held until [`set_name`](Self::set_name), and it counts against
    /// `max_calls` only from then (named past the limit, it is dropped with the limit's
    /// error). Given up without a name ([`error`](Self::error), or left open at
    /// [`close_all`](Self::close_all)), it leaves no trace.
    pub(crate) fn open_unnamed(&mut self, forming: &mut Forming) -> Slot {
        self.forget_given_up();
        self.calls
            .push(self.new_call(Scan::Raw { closed: false }, false));
        let slot = self.calls.len() - 1;
        self.own_raw(slot, forming);
        slot
    }

    /// Removes the calls at the end of the table that were opened before their name and
    /// given up: their dialect no longer refers to them, and they never counted.
    fn forget_given_up(&mut self) {
        while self
            .calls
            .last()
            .is_some_and(|c| !c.counted && matches!(c.phase, Phase::Closed | Phase::Dropped))
        {
            self.calls.pop();
        }
    }

    fn new_call(&self, scan: Scan, counted: bool) -> Call {
        Call {
            index: usize::MAX,
            id: String::new(),
            name: String::new(),
            phase: Phase::Pending,
            args: String::new(),
            raw_len: 0,
            emitted: 0,
            dropped: 0,
            scan,
            value_end: 0,
            trailing: String::new(),
            fields: self
                .field_events
                .then(|| FieldDecoder::with_max_depth(self.limits.max_depth)),
            check: None,
            trailing_dropped: 0,
            counted,
            rejected: None,
            raw: Raw::default(),
            owns_raw: false,
            decoded: false,
        }
    }

    /// Counts a call against `max_calls`: `true` within the limit; past it, `false`, and
    /// the limit is reported (once) when even the calls kept past it
    /// ([`over_limit`](Self::over_limit)) are as many as `max_calls`.
    fn count_call(&mut self, out: &mut dyn EventSink) -> bool {
        if self.counted >= self.limits.max_calls {
            if self.over_limit >= self.limits.max_calls && !self.limit_reported {
                self.limit_reported = true;
                out.push(Event::Error { path: None,
                    kind: ErrorKind::LimitExceeded,
                    message: format!(
                        "more than max_calls ({}) tool calls in one response; further calls are ignored",
                        self.limits.max_calls
                    ),
                    index: None,
                    raw: String::new(),
                });
            }
            return false;
        }
        self.counted += 1;
        true
    }

    fn open_with(&mut self, scan: Scan, out: &mut dyn EventSink) -> Option<Slot> {
        self.forget_given_up();
        if !self.count_call(out) {
            let mut call = self.new_call(scan, true);
            call.rejected = Some(self.over_limit()?);
            self.calls.push(call);
            return Some(self.calls.len() - 1);
        }
        self.calls.push(self.new_call(scan, true));
        Some(self.calls.len() - 1)
    }

    /// A call past `max_calls` kept as a rejected call (its events discarded, its raw text
    /// kept for its `limit_exceeded` error), while fewer than `max_calls` are; `None` past
    /// that (the call is dropped: see [`count_call`](Self::count_call)).
    fn over_limit(&mut self) -> Option<Box<Rejected>> {
        if self.over_limit >= self.limits.max_calls {
            return None;
        }
        self.over_limit += 1;
        Some(Box::new(Rejected {
            over_limit: true,
            ..Rejected::default()
        }))
    }

    /// Whether the call has no name yet.
    pub(crate) fn is_pending(&self, slot: Slot) -> bool {
        self.calls
            .get(slot)
            .is_some_and(|c| c.phase == Phase::Pending)
    }

    /// Whether the call's arguments are still open: it has received argument bytes and
    /// its value has not closed yet.
    pub(crate) fn args_in_progress(&self, slot: Slot) -> bool {
        self.calls.get(slot).is_some_and(|c| {
            matches!(c.phase, Phase::Pending | Phase::Streaming)
                && match &c.scan {
                    Scan::Own(scanner) => !scanner.is_empty() && !scanner.is_complete(),
                    Scan::Dialect { closed } | Scan::Raw { closed } => c.kept() > 0 && !closed,
                }
        })
    }

    /// The provider's id for this call, if any was recorded.
    pub(crate) fn id(&self, slot: Slot) -> Option<&str> {
        self.calls
            .get(slot)
            .map(|c| c.id.as_str())
            .filter(|s| !s.is_empty())
    }

    /// Records the provider's call id (the first non-empty one wins).
    pub(crate) fn set_id(&mut self, slot: Slot, id: &str) {
        if let Some(c) = self.calls.get_mut(slot)
            && c.id.is_empty()
            && !id.is_empty()
        {
            c.id.push_str(id);
        }
    }

    /// Records the tool name; emits `ToolCallStart` (and any buffered arguments) the
    /// first time. Later names are ignored.
    /// The arguments a call holds from before its name ([`open_unnamed`](Self::open_unnamed):
    /// in its raw text) are flushed after the Start.
    pub(crate) fn set_name(&mut self, slot: Slot, name: &str, out: &mut dyn EventSink) {
        let Some(c) = self.calls.get_mut(slot) else {
            return;
        };
        if c.phase != Phase::Pending || name.is_empty() {
            return;
        }
        if !c.counted {
            if !self.count_call(out) {
                let rejected = self.over_limit();
                if let Some(c) = self.calls.get_mut(slot) {
                    match rejected {
                        // Past the limit, kept: a rejected call, with what it holds.
                        Some(mut r) => {
                            c.counted = true;
                            r.raw = c.args.clone();
                            r.raw.push_str(&c.trailing);
                            r.dropped = c.dropped;
                            c.rejected = Some(r);
                        }
                        None => {
                            c.phase = Phase::Dropped;
                            c.args = String::new();
                            return;
                        }
                    }
                }
            }
            let Some(c) = self.calls.get_mut(slot) else {
                return;
            };
            c.counted = true;
        }
        let Some(c) = self.calls.get_mut(slot) else {
            return;
        };
        c.name.push_str(name);
        if c.rejected.is_some() {
            // Past `max_calls`: rejected already, whatever its name.
            self.discarding(|calls, sink| calls.start(slot, sink));
            return;
        }
        if self.declared.as_ref().is_some_and(|t| !t.is_declared(name)) {
            // The arguments buffered so far are part of what the error carries.
            let mut raw = c.args.clone();
            raw.push_str(&c.trailing);
            c.rejected = Some(Box::new(Rejected {
                raw,
                dropped: c.dropped,
                reported: false,
                over_limit: false,
            }));
            self.discarding(|calls, sink| calls.start(slot, sink));
            return;
        }
        self.start(slot, out);
    }

    /// Emits the Start, then the arguments held.
    fn start(&mut self, slot: Slot, out: &mut dyn EventSink) {
        let Some(c) = self.calls.get_mut(slot) else {
            return;
        };
        // A rejected call takes no index: the emitted calls stay densely numbered.
        let index = if c.rejected.is_some() {
            usize::MAX
        } else {
            let index = self.next_index;
            self.next_index += 1;
            if self.in_text {
                let word = index / 64;
                if self.from_text.len() <= word {
                    self.from_text.resize(word + 1, 0);
                }
                if let Some(w) = self.from_text.get_mut(word) {
                    *w |= 1 << (index % 64);
                }
            }
            index
        };
        c.index = index;
        if c.id.is_empty() && c.rejected.is_none() {
            c.id = format!("{}{index}", self.id_prefix);
        }
        if c.rejected.is_none() {
            let schema = self.validate.as_ref().and_then(|t| t.schema(&c.name));
            c.check = Check::new(self.max_repeats, schema);
        }
        c.phase = Phase::Streaming;
        out.push(Event::ToolCallStart {
            index,
            id: c.id.clone(),
            name: c.name.clone(),
        });
        // Flush arguments that arrived before the name.
        if c.dropped > 0 {
            c.phase = Phase::Failed(ErrorKind::LimitExceeded);
        } else if matches!(&c.scan, Scan::Own(scanner) if scanner.is_failed()) {
            c.phase = Phase::Failed(ErrorKind::InvalidArguments);
        }
        let closed = c.scan.closed();
        let upto = if closed { c.value_end } else { c.kept() };
        if c.phase == Phase::Streaming && upto > c.emitted {
            let held = if c.scan.is_raw() {
                raw_args_of(&c.raw, &c.args, c.decoded)
            } else {
                &c.args
            };
            if let Some(d) = held.get(c.emitted..upto)
                && emit_args(index, &mut c.fields, &mut c.check, d, out)
            {
                Self::stop(c, out);
                return;
            }
            c.emitted = upto;
        }
        if closed && c.phase == Phase::Streaming {
            Self::end(c, out);
        }
    }

    /// Appends argument text.
    pub(crate) fn args(&mut self, slot: Slot, delta: &str, out: &mut dyn EventSink) {
        if delta.is_empty() {
            return;
        }
        self.route(slot, delta, out, |calls, out| {
            calls.args_inner(slot, delta, out)
        });
    }

    fn args_inner(&mut self, slot: Slot, delta: &str, out: &mut dyn EventSink) {
        let max_args = self.limits.max_argument_bytes;
        let Some(c) = self.calls.get_mut(slot) else {
            return;
        };
        match c.phase {
            Phase::Closed => {
                out.push(Event::Error {
                    path: None,
                    kind: ErrorKind::TrailingArguments,
                    message: format!(
                        "argument text for tool call {} after it was closed",
                        c.index
                    ),
                    index: None,
                    raw: delta.to_owned(),
                });
                return;
            }
            Phase::Ended => {
                Self::trailing(c, delta);
                return;
            }
            Phase::Failed(_) => {
                // Keep exactly the first `max_args` bytes, however the text was cut.
                let (keep, over) = split_at_room(delta, max_args.saturating_sub(c.kept()));
                if c.dropped == 0 {
                    c.keep_as(c.scan.is_raw(), keep);
                    c.dropped += over.len();
                } else {
                    c.dropped += delta.len();
                }
                return;
            }
            Phase::Dropped | Phase::Aborted => return,
            Phase::Pending | Phase::Streaming => {}
        }
        if c.scan.closed() {
            // Pending call whose value already closed.
            Self::trailing(c, delta);
            return;
        }
        if c.dropped > 0 {
            c.dropped += delta.len();
            return;
        }
        // Past the limit: process exactly the bytes up to it (the same cut however the
        // text was chunked), then fail the call with the rest counted as dropped.
        let (delta, over) = split_at_room(delta, max_args.saturating_sub(c.args.len()));
        if !over.is_empty() {
            if !delta.is_empty() {
                self.args_inner(slot, delta, out);
            }
            let Some(c) = self.calls.get_mut(slot) else {
                return;
            };
            match c.phase {
                Phase::Ended | Phase::Closed => Self::trailing(c, over),
                Phase::Streaming => {
                    c.phase = Phase::Failed(ErrorKind::LimitExceeded);
                    c.dropped += over.len();
                }
                Phase::Failed(_) | Phase::Pending => c.dropped += over.len(),
                Phase::Dropped | Phase::Aborted => {}
            }
            return;
        }
        let scanner = match &mut c.scan {
            Scan::Own(scanner) => scanner,
            Scan::Dialect { .. } => {
                // A call whose dialect scans its arguments: text handed here continues them.
                let _ = self.dialect_inner::<false>(slot, delta, false, out);
                return;
            }
            // Not reached: such a call's argument bytes come only through `push_args`,
            // which passes here only once the call is no longer open.
            Scan::Raw { .. } => return,
        };
        let status = scanner.feed(delta.as_bytes());
        let before = c.args.len();
        push_grown(&mut c.args, delta);
        let (value_len, tail) = match status {
            JsonStatus::NeedMore => (delta.len(), None),
            JsonStatus::Complete { consumed } => {
                c.value_end = before + consumed;
                (consumed, delta.get(consumed..))
            }
            JsonStatus::Invalid { error, at } => {
                if c.phase == Phase::Streaming {
                    // The bytes before the offending one are a valid prefix: stream them,
                    // as a finer chunking would have.
                    if at > 0
                        && let Some(d) = c.args.get(c.emitted..before + at)
                        && !d.is_empty()
                    {
                        if emit_args(c.index, &mut c.fields, &mut c.check, d, out) {
                            Self::stop(c, out);
                            return;
                        }
                        c.emitted = before + at;
                    }
                    c.phase = Phase::Failed(match error {
                        JsonError::TooDeep => ErrorKind::LimitExceeded,
                        _ => ErrorKind::InvalidArguments,
                    });
                }
                return;
            }
        };
        if c.phase == Phase::Streaming {
            if value_len > 0 {
                if let Some(d) = c.args.get(c.emitted..before + value_len)
                    && emit_args(c.index, &mut c.fields, &mut c.check, d, out)
                {
                    Self::stop(c, out);
                    return;
                }
                c.emitted = before + value_len;
            }
            if c.scan.closed() {
                c.args.truncate(c.value_end);
                Self::end(c, out);
                if let Some(t) = tail {
                    Self::trailing(c, t);
                }
            }
        } else if let Some(t) = tail {
            c.args.truncate(c.value_end);
            Self::trailing(c, t);
        }
    }

    /// Appends argument text that the dialect scanned (the call was opened with
    /// [`open_scanned`](Self::open_scanned)):
    /// `delta` continues a valid JSON value and ends at or before the value's end;
    /// `closed` says the value closed with the last byte of `delta` (`""` with `closed`
    /// closes it after the fact, e.g. a top-level number at the end of the text). Each
    /// argument byte is scanned once, by the dialect.
    ///
    /// A call without a name yet holds its arguments (bounded by `max_argument_bytes`):
    /// `Err` with the bytes of `delta` that would fit when they would not (the call
    /// breaks right there, however its text was cut; the dialect reports it with
    /// [`error`](Self::error)). A named call never refuses bytes.
    pub(crate) fn scanned_args(
        &mut self,
        slot: Slot,
        delta: &str,
        closed: bool,
        out: &mut dyn EventSink,
    ) -> Result<(), usize> {
        self.route(slot, delta, out, |calls, out| {
            calls.dialect_inner::<false>(slot, delta, closed, out)
        })
    }

    /// Argument bytes `delta` of a call opened with [`open_raw`](Self::open_raw) or
    /// [`open_unnamed`](Self::open_unnamed), the model's own (scanned by the dialect as
    /// for [`scanned_args`](Self::scanned_args); `closed`: the value closed with them):
    /// kept once, in the call's raw text ([`Raw::push_args`]), which the call reads them
    /// from (in `forming` when the call does not own its raw text any more).
    ///
    /// A call without a name yet that holds no more refuses them: `Err` with the bytes of
    /// `delta` that would fit, none of them taken (the dialect reports the call with its
    /// raw text). A named call never refuses bytes.
    // (Always inlined: the common case is a few checks in each dialect's hot loop.)
    #[inline(always)]
    pub(crate) fn push_args(
        &mut self,
        slot: Slot,
        forming: &mut Forming,
        delta: &str,
        closed: bool,
        out: &mut dyn EventSink,
    ) -> Result<(), usize> {
        let max_args = self.limits.max_argument_bytes;
        // The common case: more of the open value of a started call that takes it whole
        // (not rejected, within the limit); the call does not read the text until the
        // value closes.
        if let Some(c) = self.calls.get_mut(slot)
            && !closed
            && c.phase == Phase::Streaming
            && c.dropped == 0
            // A call with checks is taken out of line (`push_args_slow`): this path stays
            // as lean as before checks existed.
            && (c.rejected.is_none() & c.check.is_none())
            && c.owns_raw
            && !c.decoded
            && c.scan.is_raw()
            && !delta.is_empty()
            && delta.len() <= max_args.saturating_sub(c.raw_len)
        {
            c.raw_len += delta.len();
            emit_unchecked_args(c.index, &mut c.fields, delta, out);
            c.emitted = c.raw_len;
            c.raw.push_args(delta);
            return Ok(());
        }
        self.push_args_slow(slot, forming, delta, closed, out)
    }

    /// [`push_args`](Self::push_args) off its common case.
    #[inline(never)]
    fn push_args_slow(
        &mut self,
        slot: Slot,
        forming: &mut Forming,
        delta: &str,
        closed: bool,
        out: &mut dyn EventSink,
    ) -> Result<(), usize> {
        // `push_args`' common case for a call with checks (kept off that inlined path):
        // the raw text takes `delta` first, as a refused call's error cuts it there.
        let max_args = self.limits.max_argument_bytes;
        if let Some(c) = self.calls.get_mut(slot)
            && c.check.is_some()
            && !closed
            && c.phase == Phase::Streaming
            && c.dropped == 0
            && c.rejected.is_none()
            && c.owns_raw
            && !c.decoded
            && c.scan.is_raw()
            && !delta.is_empty()
            && delta.len() <= max_args.saturating_sub(c.raw_len)
        {
            c.raw_len += delta.len();
            c.raw.push_args(delta);
            if emit_args(c.index, &mut c.fields, &mut c.check, delta, out) {
                Self::stop(c, out);
                return Ok(());
            }
            c.emitted = c.raw_len;
            return Ok(());
        }
        if let Some(room) = self.held_room(slot)
            && delta.len() > room
        {
            return Err(split_at_room(delta, room).0.len());
        }
        self.raw_or(Some(slot), forming).push_args(delta);
        // (A rejected call keeps none besides its raw text.)
        self.route(slot, delta, out, |calls, out| {
            calls.dialect_inner::<true>(slot, delta, closed, out)
        })
    }

    /// Arguments of a call opened with [`open_raw`](Self::open_raw) that its dialect
    /// decoded from the model's bytes (string-encoded arguments: the model's bytes are
    /// the call's raw text, pushed as such): `delta` continues the decoded JSON value as
    /// for [`scanned_args`](Self::scanned_args), its first `max_argument_bytes` bytes kept
    /// here; `whole`: kept whatever the bound (the value's last, empty or `{}`, piece).
    pub(crate) fn decoded_args(
        &mut self,
        slot: Slot,
        delta: &str,
        closed: bool,
        whole: bool,
        out: &mut dyn EventSink,
    ) {
        let max_args = self.limits.max_argument_bytes;
        let Some(c) = self.calls.get_mut(slot) else {
            return;
        };
        c.decoded = true;
        if whole {
            c.args.push_str(delta);
        } else {
            let room = max_args.saturating_sub(c.args.len());
            c.args.push_str(split_at_room(delta, room).0);
        }
        if !closed
            && c.phase == Phase::Streaming
            && c.dropped == 0
            && c.rejected.is_none()
            && c.scan.is_raw()
            && !delta.is_empty()
            && delta.len() <= max_args.saturating_sub(c.raw_len)
        {
            c.raw_len += delta.len();
            if emit_args(c.index, &mut c.fields, &mut c.check, delta, out) {
                Self::stop(c, out);
                return;
            }
            c.emitted = c.raw_len;
            return;
        }
        // (A named call never refuses argument bytes.)
        let _ = self.route(slot, delta, out, |calls, out| {
            calls.dialect_inner::<true>(slot, delta, closed, out)
        });
    }

    /// For a call of [`open_unnamed`](Self::open_unnamed) without a name yet: how many
    /// more argument bytes it holds (`None`: any number, the call takes what it gets).
    fn held_room(&self, slot: Slot) -> Option<usize> {
        let c = self.calls.get(slot)?;
        (c.phase == Phase::Pending && c.dropped == 0 && c.scan.is_raw())
            .then(|| self.limits.max_argument_bytes.saturating_sub(c.raw_len))
    }

    /// [`scanned_args`](Self::scanned_args) (`RAW` false) and [`push_args`](Self::push_args)
    /// (`RAW`: the argument bytes are in the call's raw text, only counted here). One body,
    /// made twice: each as lean as the hot loops of its dialects need.
    fn dialect_inner<const RAW: bool>(
        &mut self,
        slot: Slot,
        delta: &str,
        closed: bool,
        out: &mut dyn EventSink,
    ) -> Result<(), usize> {
        let max_args = self.limits.max_argument_bytes;
        let Some(c) = self.calls.get_mut(slot) else {
            return Ok(());
        };
        // The same cut as `args`: exactly the first `max_argument_bytes` bytes.
        let (keep, over) = split_at_room(delta, max_args.saturating_sub(c.kept_as(RAW)));
        match c.phase {
            Phase::Pending if c.dropped == 0 => {
                if !over.is_empty() {
                    return Err(keep.len());
                }
                c.keep_as(RAW, keep);
                if closed {
                    c.value_end = c.kept_as(RAW);
                    c.scan = Scan::dialect_closed(RAW);
                }
                return Ok(());
            }
            Phase::Streaming if c.dropped == 0 => {}
            // Failed, ended or closed: no scanning is involved on these paths.
            _ => {
                if !delta.is_empty() {
                    self.args_inner(slot, delta, out);
                }
                return Ok(());
            }
        }
        if !keep.is_empty() {
            c.keep_as(RAW, keep);
            if c.check.is_none() {
                emit_unchecked_args(c.index, &mut c.fields, keep, out);
            } else if Self::emit_checked(c, keep, out) {
                return Ok(());
            }
            c.emitted = c.kept_as(RAW);
        }
        if !over.is_empty() {
            c.phase = Phase::Failed(ErrorKind::LimitExceeded);
            c.dropped += over.len();
            return Ok(());
        }
        if closed {
            // A top-level number closes here.
            c.finish_fields(out);
            c.value_end = c.kept_as(RAW);
            c.scan = Scan::dialect_closed(RAW);
            Self::end(c, out);
        }
        Ok(())
    }

    fn trailing(c: &mut Call, t: &str) {
        if t.trim().is_empty() {
            return;
        }
        let (keep, over) = split_at_room(t, MAX_TRAILING.saturating_sub(c.trailing.len()));
        c.trailing.push_str(keep);
        c.trailing_dropped += over.len();
    }

    /// [`emit_args`] for a call with checks, out of line (the dialects' inlined paths test
    /// `check` and emit without them); `true` when they refused part of `delta`: the call
    /// was then ended ([`stop`](Self::stop)).
    #[inline(never)]
    fn emit_checked(c: &mut Call, delta: &str, out: &mut dyn EventSink) -> bool {
        let refused = emit_args(c.index, &mut c.fields, &mut c.check, delta, out);
        if refused {
            Self::stop(c, out);
        }
        refused
    }

    /// The checks that need the value's end (a top-level number's), out of line (without
    /// checks [`end`](Self::end) only tests `check`); `true` when they refused it: the
    /// call was then ended ([`stop`](Self::stop)).
    #[inline(never)]
    fn refused_at_end(c: &mut Call, out: &mut dyn EventSink) -> bool {
        let refused = c.check.as_mut().is_some_and(|k| k.finish());
        if refused {
            Self::stop(c, out);
        }
        refused
    }

    /// Ends a call whose check refused its argument text: its error, now, carrying the
    /// argument text up to and including the offending character (for a call whose bytes
    /// are its raw text: the model's bytes of the call up to there).
    #[cold]
    fn stop(c: &mut Call, out: &mut dyn EventSink) {
        let Some(v) = c.check.as_mut().and_then(|k| k.take()) else {
            return;
        };
        c.check = None;
        c.fields = None;
        let upto = v.offset + v.len;
        let raw = if c.scan.is_raw() && !c.decoded {
            // The raw text holds the call's bytes through the offending one and perhaps
            // more of the same delta: cut after the offending character.
            let text = c.raw.as_str();
            let args = c.raw.args();
            let cut = (text.len() - args.len().min(text.len())) + upto;
            text.get(..cut).unwrap_or(text).to_owned()
        } else {
            c.args.get(..upto).unwrap_or(&c.args).to_owned()
        };
        c.args = String::new();
        c.phase = Phase::Aborted;
        out.push(Event::Error {
            kind: v.kind,
            message: format!("tool call {}: {}", c.index, v.message),
            index: Some(c.index),
            raw,
            path: v.path,
        });
    }

    /// Emits ToolCallEnd for a complete call (phase Streaming, value complete).
    fn end(c: &mut Call, out: &mut dyn EventSink) {
        if c.check.is_some() && Self::refused_at_end(c, out) {
            return;
        }
        c.fields = None;
        let own = std::mem::take(&mut c.args);
        let all = if c.scan.is_raw() {
            raw_args_of(&c.raw, &own, c.decoded)
        } else {
            own.as_str()
        };
        // `value_end` ≤ the text's length on a character boundary: it is set where the
        // value closed (after an ASCII byte of JSON syntax) or at the end of the text.
        let text = all.get(..c.value_end).unwrap_or(all);
        match crate::scan::value::parse(text) {
            Ok(arguments) => {
                c.phase = Phase::Ended;
                if c.rejected.is_none() {
                    c.raw.delivered();
                }
                out.push(Event::ToolCallEnd {
                    index: c.index,
                    id: c.id.clone(),
                    name: c.name.clone(),
                    arguments,
                });
            }
            Err(e) => {
                c.phase = Phase::Closed;
                let raw = if c.scan.is_raw() { all.to_owned() } else { own };
                out.push(Event::Error {
                    path: None,
                    kind: ErrorKind::InvalidArguments,
                    message: format!("arguments of tool call {} are not valid JSON: {e}", c.index),
                    index: Some(c.index),
                    raw,
                });
            }
        }
    }

    /// The provider says this call is over (or the response ended).
    pub(crate) fn close(&mut self, slot: Slot, out: &mut dyn EventSink) {
        self.close_as(slot, None, out);
    }

    /// [`close`](Self::close) for a text scanner that kept the call's raw text (the
    /// model's own bytes, markers included): a rejected call's error carries `raw`
    /// instead of the argument text.
    pub(crate) fn close_with_raw(&mut self, slot: Slot, raw: &str, out: &mut dyn EventSink) {
        self.close_as(slot, Some(raw), out);
    }

    /// Closes the call in `slot` (opened with [`open_raw`](Self::open_raw)), if any, with
    /// its raw text (a rejected call's error carries it), which then goes back to
    /// `forming` ([`give_back`](Self::give_back)).
    pub(crate) fn close_own(
        &mut self,
        slot: Option<Slot>,
        forming: &mut Forming,
        out: &mut dyn EventSink,
    ) {
        if let Some(slot) = slot {
            self.close_owned(slot, forming, false, out);
        }
    }

    /// [`close_own`](Self::close_own) for a call whose rejected error carries its
    /// argument text (no markers around it).
    pub(crate) fn close_own_args(
        &mut self,
        slot: Slot,
        forming: &mut Forming,
        out: &mut dyn EventSink,
    ) {
        self.close_owned(slot, forming, true, out);
    }

    /// [`close_own`](Self::close_own) and [`close_own_args`](Self::close_own_args): a
    /// rejected call's error carries its raw text, or (`args_only`) its argument text.
    fn close_owned(
        &mut self,
        slot: Slot,
        forming: &mut Forming,
        args_only: bool,
        out: &mut dyn EventSink,
    ) {
        if self.is_rejected(slot) {
            let raw = self.raw_or(Some(slot), forming);
            let raw = if args_only { raw.args() } else { raw.as_str() }.to_owned();
            self.discarding(|calls, sink| calls.close_inner(slot, true, sink));
            self.report_rejected(slot, Some(raw), None, out);
        } else {
            self.close_inner(slot, true, out);
        }
        self.give_back(Some(slot), forming);
    }

    /// Reports a malformed or cut-off call with `what` and its raw text (taken): the
    /// call's own error when it was started, otherwise an error without an index (see
    /// [`error`](Self::error)). The raw text's buffer goes back to `forming`.
    pub(crate) fn report(
        &mut self,
        slot: Option<Slot>,
        kind: ErrorKind,
        what: &str,
        forming: &mut Forming,
        out: &mut dyn EventSink,
    ) {
        let (text, note) = self.raw_or(slot, forming).take();
        self.give_back(slot, forming);
        self.error(slot, kind, format!("{what}{note}"), text, out);
    }

    /// [`close`](Self::close), [`close_with_raw`](Self::close_with_raw): a rejected
    /// call's error carries `raw` when given.
    fn close_as(&mut self, slot: Slot, raw: Option<&str>, out: &mut dyn EventSink) {
        if self.is_rejected(slot) {
            self.discarding(|calls, sink| calls.close_inner(slot, false, sink));
            self.report_rejected(slot, raw.map(str::to_owned), None, out);
            return;
        }
        self.close_inner(slot, false, out);
    }

    /// `own`: a call opened with [`open_raw`](Self::open_raw) is closed by its dialect
    /// ([`close_own`](Self::close_own)), its argument text read from its raw text. A call
    /// that still holds its raw text (`owns_raw`) reads it from there whoever closes it
    /// ([`close`](Self::close), [`close_all`](Self::close_all) at the end of a response):
    /// an error about it carries its bytes. Only a call whose dialect took its raw text
    /// back ([`give_back`](Self::give_back)) has none here; its dialect reports it.
    fn close_inner(&mut self, slot: Slot, own: bool, out: &mut dyn EventSink) {
        let Some(c) = self.calls.get(slot) else {
            return;
        };
        let own = own || c.owns_raw;
        if c.phase == Phase::Pending {
            self.close_pending(slot, own, out);
            return;
        }
        let Some(c) = self.calls.get_mut(slot) else {
            return;
        };
        match c.phase {
            Phase::Pending | Phase::Closed | Phase::Dropped | Phase::Aborted => {}
            Phase::Ended => {
                if !c.trailing.is_empty() {
                    let t = std::mem::take(&mut c.trailing);
                    let dropped = std::mem::take(&mut c.trailing_dropped);
                    if !only_end_tokens(&t) || dropped > 0 {
                        out.push(Event::Error { path: None,
                            kind: ErrorKind::TrailingArguments,
                            message: if dropped > 0 {
                                format!(
                                    "text after the arguments of tool call {} had closed; the first {} bytes are kept, {dropped} dropped",
                                    c.index,
                                    t.len()
                                )
                            } else {
                                format!(
                                    "text after the arguments of tool call {} had closed",
                                    c.index
                                )
                            },
                            index: None,
                            raw: t,
                        });
                    }
                }
                c.phase = Phase::Closed;
            }
            Phase::Streaming => {
                // A dialect that scans the arguments says when they closed (at the end
                // of the text too); here they have not.
                let (no_value, closed_at_end) = match &mut c.scan {
                    Scan::Own(scanner) => (scanner.is_empty(), scanner.finish()),
                    Scan::Dialect { .. } | Scan::Raw { .. } => (true, false),
                };
                // (A call whose raw text lost its argument bytes, `raw_len` more than
                // it holds, had some: not a call without arguments.)
                let blank = if c.scan.is_raw() {
                    let held = if own { c.raw_args() } else { "" };
                    held.len() == c.raw_len && held.trim().is_empty()
                } else {
                    c.args.trim().is_empty()
                };
                if no_value && blank {
                    // A call with no arguments at all: `{}`.
                    c.args.clear();
                    c.args.push_str("{}");
                    c.value_end = 2;
                    // (For a raw call too, the text read is `args`.)
                    c.decoded = true;
                    if emit_args(c.index, &mut c.fields, &mut c.check, "{}", out) {
                        Self::stop(c, out);
                        return;
                    }
                    Self::end(c, out);
                    if c.phase != Phase::Aborted {
                        c.phase = Phase::Closed;
                    }
                } else if closed_at_end {
                    c.value_end = c.args.len();
                    if c.emitted < c.args.len()
                        && let Some(d) = c.args.get(c.emitted..)
                        && emit_args(c.index, &mut c.fields, &mut c.check, d, out)
                    {
                        Self::stop(c, out);
                        return;
                    }
                    // A top-level number closes at the end.
                    c.finish_fields(out);
                    Self::end(c, out);
                    if c.phase != Phase::Aborted {
                        c.phase = Phase::Closed;
                    }
                } else {
                    let raw = c.take_args(own);
                    out.push(Event::Error {
                        path: None,
                        kind: ErrorKind::Truncated,
                        message: format!(
                            "tool call {} ended before its arguments were complete",
                            c.index
                        ),
                        index: Some(c.index),
                        raw,
                    });
                    c.phase = Phase::Closed;
                }
            }
            Phase::Failed(kind) => {
                let message = match kind {
                    ErrorKind::LimitExceeded if c.dropped > 0 => format!(
                        "arguments of tool call {} exceed max_argument_bytes ({}); the first {} bytes are kept, {} dropped",
                        c.index,
                        self.limits.max_argument_bytes,
                        c.kept(),
                        c.dropped
                    ),
                    ErrorKind::LimitExceeded => format!(
                        "arguments of tool call {} nest deeper than max_depth ({})",
                        c.index, self.limits.max_depth
                    ),
                    _ => format!("arguments of tool call {} are not valid JSON", c.index),
                };
                let raw = c.take_args(own);
                out.push(Event::Error {
                    path: None,
                    kind,
                    message,
                    index: Some(c.index),
                    raw,
                });
                c.phase = Phase::Closed;
            }
        }
    }

    /// The dialect found a call malformed or cut off: its error, with the dialect's own
    /// `message` and the call's `raw` text (for text scanners: the model's own bytes of
    /// the call, markers included). A started call gets it instead of its `ToolCallEnd`
    /// (with its index); a rejected call gets its undeclared-tool error, noting `message`;
    /// otherwise (no call, no name yet, past `max_calls`, already ended or closed) it has
    /// no index, and a call opened before its name is given up.
    pub(crate) fn error(
        &mut self,
        slot: Option<Slot>,
        kind: ErrorKind,
        message: String,
        raw: String,
        out: &mut dyn EventSink,
    ) {
        let mut index = None;
        if let Some(slot) = slot {
            if self.is_rejected(slot) {
                if let Some(c) = self.calls.get_mut(slot) {
                    c.phase = Phase::Closed;
                }
                self.report_rejected(slot, Some(raw), Some(&message), out);
                return;
            }
            if let Some(c) = self.calls.get_mut(slot) {
                match c.phase {
                    // The call's one error was emitted when its check refused it.
                    Phase::Aborted => return,
                    Phase::Streaming | Phase::Failed(_) => {
                        index = Some(c.index);
                        c.args = String::new();
                        c.phase = Phase::Closed;
                    }
                    Phase::Pending if !c.counted => {
                        c.args = String::new();
                        c.phase = Phase::Closed;
                    }
                    _ => {}
                }
            }
        }
        out.push(Event::Error {
            path: None,
            kind,
            message,
            index,
            raw,
        });
    }

    /// A call closed before its name arrived.
    fn close_pending(&mut self, slot: Slot, own: bool, out: &mut dyn EventSink) {
        let max_depth = self.limits.max_depth;
        let Some(c) = self.calls.get_mut(slot) else {
            return;
        };
        c.phase = Phase::Closed;
        if !c.counted {
            // Opened by its dialect before a name that never came: its dialect reports
            // the call text, if anything.
            c.args = String::new();
            return;
        }
        let args = c.take_args(own);
        if only_end_tokens(&args) && c.trailing.is_empty() {
            // `<|eot_id|>` sent as a call (TGI): not a call at all.
            return;
        }
        // Old TGI: `{"function": {"_name": "tool", ..arguments}}` with no name field.
        if let Some((name, arguments)) = unwrap_tgi_name(&args, c.value_end) {
            let t = std::mem::take(&mut c.trailing);
            c.phase = Phase::Pending;
            c.args = arguments;
            c.value_end = c.args.len();
            let mut scanner = JsonScanner::with_max_depth(max_depth);
            let _ = scanner.feed(c.args.as_bytes());
            c.scan = Scan::Own(scanner);
            c.emitted = 0;
            c.name.clear();
            self.set_name(slot, &name, out);
            if let Some(c) = self.calls.get_mut(slot) {
                c.trailing = t;
            }
            self.close(slot, out);
            return;
        }
        out.push(Event::Error {
            path: None,
            kind: ErrorKind::MissingName,
            message: "a tool call arrived without a name".to_owned(),
            index: None,
            raw: args,
        });
    }

    /// The dialect found the call broken (e.g. an argument fragment it cannot place).
    /// A started call gets its `Error` (with the raw arguments so far and `extra`) when it
    /// closes; further arguments are only collected. A call not started yet is reported at
    /// once (no index).
    #[allow(dead_code)]
    pub(crate) fn fail(
        &mut self,
        slot: Slot,
        kind: ErrorKind,
        extra: &str,
        out: &mut dyn EventSink,
    ) {
        self.route(slot, extra, out, |calls, out| {
            calls.fail_inner(slot, kind, extra, out);
        });
    }

    fn fail_inner(&mut self, slot: Slot, kind: ErrorKind, extra: &str, out: &mut dyn EventSink) {
        let max_args = self.limits.max_argument_bytes;
        let Some(c) = self.calls.get_mut(slot) else {
            return;
        };
        match c.phase {
            Phase::Streaming => {
                c.phase = Phase::Failed(kind);
                if c.args.len() + extra.len() <= max_args {
                    push_grown(&mut c.args, extra);
                }
            }
            Phase::Pending => {
                c.phase = Phase::Closed;
                let mut raw = std::mem::take(&mut c.args);
                raw.push_str(extra);
                out.push(Event::Error {
                    path: None,
                    kind,
                    message: "a tool call failed before its name arrived".to_owned(),
                    index: None,
                    raw,
                });
            }
            Phase::Failed(_) | Phase::Ended | Phase::Closed | Phase::Dropped | Phase::Aborted => {}
        }
    }

    /// Closes every call still open (end of response).
    pub(crate) fn close_all(&mut self, out: &mut dyn EventSink) {
        for slot in 0..self.calls.len() {
            if self.calls.get(slot).is_some_and(|c| {
                !matches!(c.phase, Phase::Closed | Phase::Dropped | Phase::Aborted)
            }) || self.is_rejected(slot)
            {
                self.close(slot, out);
            }
        }
    }

    /// Whether the call with this index was started by a text scanner (while `in_text`).
    pub(crate) fn found_in_text(&self, index: usize) -> bool {
        self.from_text
            .get(index / 64)
            .is_some_and(|w| w & (1 << (index % 64)) != 0)
    }

    /// How many calls were started (the next call's index).
    pub(crate) fn started(&self) -> usize {
        self.next_index
    }

    /// Whether any call was started.
    pub(crate) fn any_started(&self) -> bool {
        self.next_index > 0
    }

    /// Whether tools were declared and no call survived: every call was rejected as
    /// undeclared (or none was made), so the response holds no call for the caller.
    pub(crate) fn none_survived_declared(&self) -> bool {
        self.declared.is_some() && self.next_index == 0
    }
}

/// `{"function": {"_name": "x", ...}}` → ("x", `{...}` without `_name`).
fn unwrap_tgi_name(args: &str, value_end: usize) -> Option<(String, String)> {
    let text = args.get(..value_end).filter(|t| !t.is_empty())?;
    let v: Value = serde_json::from_str(text).ok()?;
    let Value::Object(outer) = v else { return None };
    if outer.len() != 1 {
        return None;
    }
    let Some(Value::Object(mut inner)) = outer.into_iter().next().map(|(_, v)| v) else {
        return None;
    };
    let Some(Value::String(name)) = inner.shift_remove("_name") else {
        return None;
    };
    let arguments = serde_json::to_string(&Value::Object(inner)).ok()?;
    Some((name, arguments))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The default limits but `max_argument_bytes`.
    fn max_args(n: usize) -> Limits {
        Limits {
            max_argument_bytes: n,
            ..Limits::default()
        }
    }

    /// The default limits but `max_calls`.
    fn max_calls(n: usize) -> Limits {
        Limits {
            max_calls: n,
            ..Limits::default()
        }
    }

    #[test]
    fn end_tokens() {
        assert!(only_end_tokens(" </s>"));
        assert!(only_end_tokens("<|eot_id|>\n"));
        assert!(!only_end_tokens("</s>x"));
    }

    /// The events of call 0 to `f` with arguments `{"a":1}` in one delta.
    fn call_f_a1() -> Vec<Event> {
        vec![
            Event::ToolCallStart {
                index: 0,
                id: "call_0".into(),
                name: "f".into(),
            },
            Event::ToolCallArgs {
                index: 0,
                delta: "{\"a\":1}".into(),
            },
            Event::ToolCallEnd {
                index: 0,
                id: "call_0".into(),
                name: "f".into(),
                arguments: json!({"a":1}),
            },
        ]
    }

    #[test]
    fn args_before_name_flush_at_start() {
        let mut calls = Calls::new(Limits::default());
        let mut out = Vec::new();
        let s = calls.open(&mut out).unwrap_or_default();
        calls.args(s, "{\"a\":", &mut out);
        assert!(out.is_empty());
        calls.args(s, "1}", &mut out);
        assert!(out.is_empty());
        calls.set_name(s, "f", &mut out);
        assert_eq!(out, call_f_a1());
    }

    #[test]
    fn raw_args_before_name_are_held_then_flushed_once() {
        let mut calls = Calls::new(Limits::default());
        let mut out = Vec::new();
        let mut f = Forming::new(Limits::default().max_argument_bytes);
        let s = calls.open_unnamed(&mut f);
        assert_eq!(
            calls.held_room(s),
            Some(Limits::default().max_argument_bytes)
        );
        assert_eq!(
            calls.push_args(s, &mut f, "{\"a\":", false, &mut out),
            Ok(())
        );
        assert_eq!(calls.push_args(s, &mut f, "1}", true, &mut out), Ok(()));
        assert!(out.is_empty());
        // Kept once, in the call's raw text (not in `args`, not by the dialect).
        assert_eq!(calls.raw_or(Some(s), &mut f).args(), "{\"a\":1}");
        assert_eq!(f.retained(), 0);
        assert!(calls.calls.iter().all(|c| c.args.is_empty()));
        assert!(!calls.args_in_progress(s));
        calls.set_name(s, "f", &mut out);
        assert_eq!(out, call_f_a1());
        assert_eq!(calls.held_room(s), None);
    }

    #[test]
    fn raw_args_streamed_and_parsed_from_the_calls_raw_text() {
        let mut calls = Calls::new(Limits::default());
        let mut out = Vec::new();
        let mut f = Forming::new(Limits::default().max_argument_bytes);
        f.start("<call>");
        let s = calls.open_raw(&mut f, &mut out).unwrap_or_default();
        calls.set_name(s, "f", &mut out);
        assert_eq!(
            calls.push_args(s, &mut f, "{\"a\":", false, &mut out),
            Ok(())
        );
        assert!(calls.args_in_progress(s));
        // The call holds its raw text, the arguments in it (no copy in `args`).
        assert_eq!(f.retained(), 0);
        assert_eq!(calls.retained(), calls.raw_or(Some(s), &mut f).retained());
        assert_eq!(calls.push_args(s, &mut f, "1}", true, &mut out), Ok(()));
        calls.raw_or(Some(s), &mut f).push("</call>");
        assert_eq!(
            calls.raw_or(Some(s), &mut f).as_str(),
            "<call>{\"a\":1}</call>"
        );
        calls.close_own(Some(s), &mut f, &mut out);
        // The buffer went back to the dialect, for the next call.
        assert_eq!(calls.retained(), 0);
        assert_eq!(f.text(), "<call>{\"a\":1}</call>");
        let mut want = call_f_a1();
        want.insert(
            2,
            Event::ToolCallArgs {
                index: 0,
                delta: "1}".into(),
            },
        );
        if let Some(Event::ToolCallArgs { delta, .. }) = want.get_mut(1) {
            *delta = "{\"a\":".into();
        }
        assert_eq!(out, want);
    }

    /// A raw call still holding its text when the response ends (`close_all`, not its
    /// dialect's `close_own`): its error carries the argument bytes it received, and a
    /// raw call without argument bytes is `{}`.
    #[test]
    fn close_all_reports_a_raw_calls_argument_text() {
        let mut calls = Calls::new(Limits::default());
        let mut out = Vec::new();
        let mut f = Forming::new(Limits::default().max_argument_bytes);
        f.start("<call>");
        let s = calls.open_raw(&mut f, &mut out).unwrap_or_default();
        calls.set_name(s, "f", &mut out);
        assert_eq!(
            calls.push_args(s, &mut f, "{\"a\": [1,", false, &mut out),
            Ok(())
        );
        let mut g = Forming::new(Limits::default().max_argument_bytes);
        g.start("<call>");
        let t = calls.open_raw(&mut g, &mut out).unwrap_or_default();
        calls.set_name(t, "g", &mut out);
        out.clear();
        calls.close_all(&mut out);
        assert!(
            matches!(
                out.first(),
                Some(Event::Error { kind: ErrorKind::Truncated, index: Some(0), raw, .. })
                    if raw == "{\"a\": [1,"
            ),
            "{out:?}"
        );
        assert!(
            matches!(
                out.get(1..),
                Some([Event::ToolCallArgs { index: 1, delta }, Event::ToolCallEnd { index: 1, .. }])
                    if delta == "{}"
            ),
            "{out:?}"
        );
    }

    #[test]
    fn raw_args_past_the_limit_report_the_kept_text() {
        let limits = max_args(8);
        let mut calls = Calls::new(limits);
        let mut out = Vec::new();
        let mut f = Forming::new(8);
        let s = calls.open_raw(&mut f, &mut out).unwrap_or_default();
        calls.set_name(s, "f", &mut out);
        // A named call takes what it gets; its raw text keeps the first 8 bytes.
        assert_eq!(calls.held_room(s), None);
        let _ = calls.push_args(s, &mut f, "{\"a\":\"0123", false, &mut out);
        let _ = calls.push_args(s, &mut f, "\"}", true, &mut out);
        calls.close_own(Some(s), &mut f, &mut out);
        assert!(matches!(
            out.last(),
            Some(Event::Error { path: _, kind: ErrorKind::LimitExceeded, index: Some(0), raw, message })
                if raw == "{\"a\":\"01" && message.ends_with("the first 8 bytes are kept, 4 dropped")
        ));
    }

    #[test]
    fn unnamed_call_held_arguments_are_bounded() {
        let limits = max_args(8);
        let mut calls = Calls::new(limits);
        let mut out = Vec::new();
        let mut f = Forming::new(8);
        let s = calls.open_unnamed(&mut f);
        assert_eq!(
            calls.push_args(s, &mut f, "{\"a\":", false, &mut out),
            Ok(())
        );
        // 5 bytes held, 3 more fit.
        assert_eq!(calls.held_room(s), Some(3));
        assert_eq!(
            calls.push_args(s, &mut f, "\"0123\"}", false, &mut out),
            Err(3)
        );
        // Refused: none of it taken.
        assert_eq!(calls.raw_or(Some(s), &mut f).args(), "{\"a\":");
        calls.error(
            Some(s),
            ErrorKind::LimitExceeded,
            "too long".into(),
            "<raw>".into(),
            &mut out,
        );
        assert!(matches!(
            &out[..],
            [Event::Error { path: _, kind: ErrorKind::LimitExceeded, index: None, raw, message }]
                if raw == "<raw>" && message == "too long"
        ));
        calls.give_back(Some(s), &mut f);
        assert_eq!(calls.retained(), 0);
    }

    #[test]
    fn unnamed_call_given_up_leaves_no_trace() {
        let limits = max_calls(1);
        let mut calls = Calls::new(limits);
        let mut out = Vec::new();
        let mut f = Forming::new(Limits::default().max_argument_bytes);
        let u = calls.open_unnamed(&mut f);
        let _ = calls.push_args(u, &mut f, "{}", true, &mut out);
        calls.error(
            Some(u),
            ErrorKind::MissingName,
            "no name".into(),
            "{}".into(),
            &mut out,
        );
        // Another left open at the end is dropped silently.
        calls.give_back(Some(u), &mut f);
        let v = calls.open_unnamed(&mut f);
        let _ = calls.push_args(v, &mut f, "{", false, &mut out);
        calls.close_all(&mut out);
        assert_eq!(out.len(), 1);
        // Neither counted against max_calls, nor is kept.
        let f = calls.open_scanned(&mut out);
        assert!(f.is_some());
        assert_eq!(calls.calls.len(), 1);
        // Past the limit: kept once (as many as max_calls), to report its raw text...
        let over = calls.open_scanned(&mut out).unwrap_or_default();
        assert_eq!(out.len(), 1);
        calls.set_name(over, "g", &mut out);
        calls.args(over, "{\"a\": 1}", &mut out);
        calls.close(over, &mut out);
        assert!(matches!(
            out.last(),
            Some(Event::Error { kind: ErrorKind::LimitExceeded, index: None, raw, .. })
                if raw == "{\"a\": 1}"
        ));
        // ...then dropped, reported once.
        assert!(calls.open_scanned(&mut out).is_none());
        assert!(matches!(
            out.last(),
            Some(Event::Error {
                kind: ErrorKind::LimitExceeded,
                raw,
                ..
            }) if raw.is_empty()
        ));
    }

    #[test]
    fn unnamed_call_named_past_max_calls_is_dropped() {
        let limits = max_calls(1);
        let mut calls = Calls::new(limits);
        let mut out = Vec::new();
        let f = calls.open_scanned(&mut out).unwrap_or_default();
        calls.set_name(f, "f", &mut out);
        let _ = calls.scanned_args(f, "{}", true, &mut out);
        let mut fg = Forming::new(Limits::default().max_argument_bytes);
        let g = calls.open_unnamed(&mut fg);
        let _ = calls.push_args(g, &mut fg, "{\"a\":", false, &mut out);
        calls.set_name(g, "g", &mut out);
        assert_eq!(calls.push_args(g, &mut fg, "1}", true, &mut out), Ok(()));
        calls.close_own(Some(g), &mut fg, &mut out);
        calls.close_all(&mut out);
        let kinds: Vec<_> = out
            .iter()
            .map(|e| match e {
                Event::ToolCallStart { .. } => "start",
                Event::ToolCallArgs { .. } => "args",
                Event::ToolCallEnd { .. } => "end",
                Event::Error {
                    kind: ErrorKind::LimitExceeded,
                    ..
                } => "limit",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["start", "args", "end", "limit"]);
        assert_eq!(calls.retained(), 0);
    }

    fn declared(names: &str) -> Option<Arc<Tools>> {
        Some(Arc::new(Tools::from_json(names).unwrap_or_default()))
    }

    #[test]
    fn rejected_call_keeps_args_from_before_its_name_and_takes_no_index() {
        let mut calls = Calls::new(Limits::default()).with_declared(declared(r#"[{"name":"f"}]"#));
        let mut out = Vec::new();
        let r = calls.open(&mut out).unwrap_or_default();
        calls.args(r, "{\"a\":", &mut out);
        calls.set_name(r, "g", &mut out);
        calls.set_id(r, "x1");
        let f = calls.open(&mut out).unwrap_or_default();
        calls.set_name(f, "f", &mut out);
        calls.args(r, "1}", &mut out);
        calls.args(f, "{}", &mut out);
        calls.close_all(&mut out);
        assert!(
            matches!(&out[0], Event::ToolCallStart { index: 0, id, name } if id == "call_0" && name == "f")
        );
        assert!(matches!(&out[2], Event::ToolCallEnd { index: 0, .. }));
        assert!(matches!(
            &out[3],
            Event::Error { path: _, kind: ErrorKind::UndeclaredTool, index: None, raw, message }
                if raw == "{\"a\":1}" && message.contains("\"g\" (id x1)")
        ));
        assert_eq!(out.len(), 4);
        // Closed once: nothing more.
        calls.close(r, &mut out);
        assert_eq!(out.len(), 4);
        assert_eq!(calls.next_index, 1);
    }

    #[test]
    fn rejected_call_is_bounded_like_any_call() {
        let limits = max_args(8);
        let mut calls = Calls::new(limits).with_declared(declared("[]"));
        let mut out = Vec::new();
        let s = calls.open(&mut out).unwrap_or_default();
        calls.set_name(s, "g", &mut out);
        calls.args(s, "{\"a\":\"0123456789\"}", &mut out);
        assert!(calls.retained() <= 16);
        calls.close(s, &mut out);
        assert!(matches!(
            &out[..],
            [Event::Error { kind: ErrorKind::UndeclaredTool, raw, message, .. }]
                if raw == "{\"a\":\"01" && message.contains("dropped")
        ));
    }

    #[test]
    fn id_prefix_names_generated_ids() {
        let mut calls = Calls::new(Limits::default()).with_id_prefix("turn2_");
        let mut out = Vec::new();
        let s = calls.open(&mut out).unwrap_or_default();
        calls.set_name(s, "f", &mut out);
        assert!(matches!(&out[0], Event::ToolCallStart { id, .. } if id == "turn2_0"));
    }

    #[test]
    fn limit_on_argument_bytes() {
        let limits = max_args(8);
        let mut calls = Calls::new(limits);
        let mut out = Vec::new();
        let s = calls.open(&mut out).unwrap_or_default();
        calls.set_name(s, "f", &mut out);
        calls.args(s, "{\"a\":\"", &mut out);
        calls.args(s, "0123456789\"}", &mut out);
        calls.close(s, &mut out);
        assert!(matches!(
            out.last(),
            Some(Event::Error {
                kind: ErrorKind::LimitExceeded,
                index: Some(0),
                ..
            })
        ));
        assert!(calls.retained() <= 8);
    }
}
