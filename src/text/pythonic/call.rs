//! One pythonic call's arguments, streamed as JSON ([`PyCall`]), and a broken call
//! skipped to its end with its bytes kept for the error ([`Broken`]). The pythonic
//! engine ([`Pythonic`](super::Pythonic)) runs every call on them, and so do
//! `llama-json`'s `<|python_tag|>` built-in calls ([`llama_json`](super::llama_json)).

use crate::calls::{Calls, Slot};
use crate::event::EventSink;
use crate::event::{ErrorKind, Event};
use crate::limits::Limits;
use crate::scan::pythonic::Span;
use crate::scan::pythonic::{PyArgs, PyStatus};
use crate::scan::utf8::Utf8Holder;
use crate::text::kit::call::{Raw, report};
use crate::text::kit::skip::{Skip, SkipEnd};
use crate::text::kit::util::{close_with_raw_bytes, converted_args, push_bounded};

/// Longest tool name accepted in a marker-less call header (bytes).
pub(crate) const MAX_NAME: usize = 256;

/// The tool name a pythonic callee designates: `x.call` → `x` (a Llama built-in tool),
/// anything else as written.
pub(crate) fn callee_name(callee: &str) -> &str {
    match callee.strip_suffix(".call") {
        Some(base) if !base.is_empty() => base,
        _ => callee,
    }
}

/// Where the bytes of a skipped call go.
#[derive(Debug, Default)]
enum Target {
    /// Nowhere (the call was never opened: call limit).
    #[default]
    Drop,
    /// The failed call's error: its raw text, reported when the call is over.
    Call {
        slot: Slot,
        kind: ErrorKind,
        message: String,
        raw: Raw,
    },
    /// An error of its own: text after a call had already ended (its first
    /// `max_argument_bytes` bytes, the rest counted).
    Orphan(Raw),
    /// An error of its own: a call whose name is no name, never opened (no index).
    Nameless(Raw),
}

/// A broken call being skipped to its end; its bytes become the error's `raw`.
#[derive(Debug, Default)]
pub(crate) struct Broken {
    skip: Skip,
    target: Target,
    utf8: Utf8Holder,
    scratch: String,
    /// The call ended at its `)` inside a list: its error waits for what follows, so a
    /// `]` closing the list (and the whitespace before it) ends its raw text.
    pending: bool,
}

/// How a broken call's error reads: its kind and message.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
}

impl Broken {
    /// Starts skipping a broken call. `replay` is the call's text so far that the
    /// skipper scans to learn where it is (skipped when `raw_lost`: it was cut at the
    /// limit, and `skip` starts as given). `slot`: the call to fail, or `None`.
    /// `ended`: the call already ended (what follows is an error of its own). `send`:
    /// the call's raw text so far (from its first marker byte), which opens the error's
    /// `raw`.
    ///
    /// Returns `true` when the call already ended within `replay` (end it now).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn begin(
        &mut self,
        skip: Skip,
        replay: &[u8],
        raw_lost: bool,
        slot: Option<Slot>,
        ended: bool,
        send: &[u8],
        failure: Failure,
        max: usize,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> bool {
        self.skip = skip;
        self.utf8 = Utf8Holder::new();
        let done = !raw_lost && self.skip.scan(replay).is_some();
        self.target = match slot {
            Some(s) if ended => {
                calls.close(s, out);
                Target::Orphan(Raw::new(max))
            }
            Some(slot) => Target::Call {
                slot,
                kind: failure.kind,
                message: failure.message,
                raw: Raw::new(max),
            },
            None => Target::Drop,
        };
        self.send(send);
        done
    }

    /// Starts skipping a call whose header broke in its name (`[get weather(..)]` after
    /// an opening token): no call was opened; `head` (its bytes from its first marker
    /// byte) opens the index-less error's `raw`, and the skip goes on from the byte that
    /// broke it, as in a call's arguments.
    pub(crate) fn begin_nameless(&mut self, head: &[u8], max: usize) {
        self.skip = Skip::new(true, 0);
        self.utf8 = Utf8Holder::new();
        self.pending = false;
        self.target = Target::Nameless(Raw::new(max));
        self.send(head);
    }

    /// Skips bytes of the broken call; returns where it ends, if it does in `input`.
    /// `in_list`: a `]` that ends the call ([`SkipEnd::Before`]) closes the call's list,
    /// and is in the error's raw text too (the list's closing byte is nowhere else).
    pub(crate) fn feed(&mut self, input: &[u8], in_list: bool) -> Option<SkipEnd> {
        let end = self.skip.scan(input);
        let used = match end {
            None => input.len(),
            Some(SkipEnd::After(n)) => n,
            Some(SkipEnd::Before(n)) => n + usize::from(in_list),
        };
        self.send(input.get(..used).unwrap_or_default());
        end
    }

    fn send(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let s = self.utf8.push(bytes, &mut self.scratch);
        match &mut self.target {
            Target::Drop => {}
            Target::Call { raw, .. } | Target::Orphan(raw) | Target::Nameless(raw) => raw.push(&s),
        }
    }

    /// Whether the call's error waits for the byte after its `)` ([`Broken::pending`]).
    pub(crate) fn pending(&self) -> bool {
        self.pending
    }

    /// The list's closing `]` (after `ws`) follows the call that ended at its `)`: both
    /// end its raw text, and its error goes out.
    pub(crate) fn close_list(&mut self, ws: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        self.send(ws);
        self.send(b"]");
        self.end(calls, out);
    }

    /// The broken call is over (or the input ended): emits its error.
    pub(crate) fn end(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.pending = false;
        if let Some(tail) = self.utf8.finish() {
            match &mut self.target {
                Target::Drop => {}
                Target::Call { raw, .. } | Target::Orphan(raw) | Target::Nameless(raw) => {
                    raw.push(tail)
                }
            }
        }
        match std::mem::take(&mut self.target) {
            Target::Drop => {}
            Target::Call {
                slot,
                kind,
                message,
                mut raw,
            } => report(calls, Some(slot), kind, &message, &mut raw, out),
            Target::Nameless(mut raw) => {
                let (raw, note) = raw.take();
                out.push(Event::Error {
                    path: None,
                    kind: ErrorKind::InvalidArguments,
                    message: format!("a pythonic tool call whose name is no name{note}"),
                    index: None,
                    raw,
                });
            }
            Target::Orphan(mut raw) => {
                let (raw, note) = raw.take();
                if !raw.is_empty() || !note.is_empty() {
                    out.push(Event::Error {
                        path: None,
                        kind: ErrorKind::TrailingArguments,
                        message: format!(
                            "text after a tool call's arguments had closed, inside the call{note}"
                        ),
                        index: None,
                        raw,
                    });
                }
            }
        }
    }
}

/// What [`PyCall::feed`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PyFeed {
    /// All bytes used; the call is open.
    NeedMore,
    /// The call's `)` was consumed: this many bytes were used.
    Done(usize),
    /// The byte at this offset cannot be part of the call, for this reason.
    Invalid(usize, &'static str),
    /// A `<` in string content at this offset (the bytes before it used): the caller
    /// looks for its special tokens there.
    Stop(usize),
    /// A `<` where the grammar expects structure, at this offset (the bytes before it
    /// used; [`PyCall::set_openers`]): the caller looks for its opening tokens there,
    /// and fails the call for this reason ([`PyCall::fail_held`]) when none begins.
    Opener(usize, &'static str),
}

/// The arguments of one pythonic call, streamed to the call table as JSON.
#[derive(Debug)]
pub(crate) struct PyCall {
    args: PyArgs,
    json: String,
    /// The call's raw text (from its first marker byte: `[name(` and the arguments so
    /// far), bounded.
    raw: Vec<u8>,
    raw_lost: bool,
    /// Where the arguments begin in `raw`.
    args_from: usize,
    max_raw: usize,
    max_depth: usize,
    /// The call table scans the JSON itself (it nests deeper than `max_depth`; see
    /// [`converted_args`]).
    own: bool,
    /// The last [`step`](Self::step) stopped at a `<` in string content
    /// ([`PyArgs::take_stop`]).
    stopped: bool,
    /// A `<` where the grammar expects structure may begin an opening token
    /// ([`set_openers`](Self::set_openers)).
    openers: bool,
    /// The last [`step`](Self::step) stopped at such a `<`: why the arguments broke there
    /// if it begins no token.
    opener: Option<&'static str>,
}

impl PyCall {
    pub(crate) fn new(limits: &Limits) -> Self {
        PyCall {
            args: PyArgs::with_max_depth(limits.max_depth),
            json: String::new(),
            raw: Vec::new(),
            raw_lost: false,
            args_from: 0,
            max_raw: limits.max_argument_bytes,
            max_depth: limits.max_depth,
            own: false,
            stopped: false,
            openers: false,
            opener: None,
        }
    }

    /// A `<` where the grammar expects structure (never valid pythonic there) stops the
    /// arguments ([`at_opener`](Self::at_opener)): the syntax's opening tokens end
    /// the call there (the recovery rule), plain-text ones too.
    pub(crate) fn set_openers(&mut self, on: bool) {
        self.openers = on;
    }

    /// Whether the last [`step`](Self::step) (its bytes used, the call going on) stopped
    /// at a `<` where the grammar expects structure: the caller looks for its opening
    /// tokens there, then ends the call ([`truncated`](Self::truncated)) or fails it
    /// ([`fail_held`](Self::fail_held)).
    pub(crate) fn at_opener(&mut self) -> bool {
        self.opener.is_some()
    }

    /// String content stops at each `<` ([`take_stopped`](Self::take_stopped)): the
    /// syntax's special tokens are never content.
    pub(crate) fn set_stop(&mut self, stop: Option<crate::scan::find::StopByte>) {
        self.args.set_stop(stop);
    }

    /// The stop byte of [`set_stop`](Self::set_stop).
    #[inline]
    pub(crate) fn stop(&self) -> Option<crate::scan::find::StopByte> {
        self.args.stop()
    }

    /// Whether the last [`step`](Self::step) (its bytes used, the call going on) stopped
    /// at a `<` in string content: the caller looks for its tokens there.
    pub(crate) fn take_stopped(&mut self) -> bool {
        std::mem::take(&mut self.stopped)
    }

    /// After a stop: the `<` begins no token; it is content.
    pub(crate) fn past_stop(&mut self) {
        self.args.past_stop();
    }

    /// A new call: `head` is the call's raw text before its `(` (from its first marker
    /// byte through the name as written).
    /// The call was opened with [`Calls::open_scanned`].
    pub(crate) fn begin(&mut self, head: &[u8]) {
        self.args.reset();
        self.opener = None;
        self.own = false;
        self.raw.clear();
        self.raw_lost = !push_bounded(&mut self.raw, head, self.max_raw);
        if !push_bounded(&mut self.raw, b"(", self.max_raw) {
            self.raw_lost = true;
        }
        self.args_from = self.raw.len();
    }

    /// Heap bytes held (the raw text's buffer).
    pub(crate) fn retained(&self) -> usize {
        self.raw.capacity()
    }

    /// Converts argument bytes, streaming the JSON to `slot`.
    pub(crate) fn feed(
        &mut self,
        slot: Option<Slot>,
        input: &[u8],
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> PyFeed {
        self.json.clear();
        let status = self.args.feed(input, &mut self.json);
        let stop = self.args.take_stop();
        let (used, result) = match status {
            PyStatus::NeedMore => match stop {
                Some(at) => (at, PyFeed::Stop(at)),
                None => (input.len(), PyFeed::NeedMore),
            },
            PyStatus::Done { consumed } => (consumed, PyFeed::Done(consumed)),
            PyStatus::Invalid { at, reason } if self.openers && input.get(at) == Some(&b'<') => {
                (at, PyFeed::Opener(at, reason))
            }
            PyStatus::Invalid { at, reason } => (at, PyFeed::Invalid(at, reason)),
        };
        if !push_bounded(
            &mut self.raw,
            input.get(..used).unwrap_or_default(),
            self.max_raw,
        ) {
            self.raw_lost = true;
        }
        if let Some(s) = slot {
            converted_args(
                calls,
                s,
                &self.json,
                matches!(result, PyFeed::Done(_)),
                self.args.deepest() + 1,
                self.max_depth,
                &mut self.own,
                out,
            );
        }
        if matches!(result, PyFeed::Done(_)) {
            // The call is complete: it closes here, with its own text (`name(..)`) for
            // the error of a call to an undeclared tool.
            if let Some(s) = slot {
                close_with_raw_bytes(calls, s, &self.raw, out);
            }
            // Its raw text is no longer needed for an error.
            if self.raw.capacity() > 4096 {
                self.raw = Vec::new();
            } else {
                self.raw.clear();
            }
        }
        result
    }

    /// The hot path of [`feed`](Self::feed): when all of `input` is more of a string
    /// that the transducer copies unchanged ([`PyArgs::string_span`]) and complete UTF-8,
    /// takes it as `feed` would (the raw text, the call): [`Span::All`]; all of it but a
    /// stop byte at its end, taken the same way: [`Span::Head`] (the caller holds that
    /// byte); otherwise [`Span::No`], nothing done.
    #[inline]
    pub(crate) fn string_span_run(
        &mut self,
        slot: Option<Slot>,
        input: &[u8],
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Span {
        let span = self.args.string_span(input);
        let input = match span {
            Span::All => input,
            Span::Head => input
                .get(..input.len().saturating_sub(1))
                .unwrap_or_default(),
            Span::No => return Span::No,
        };
        let Some(s) = crate::scan::utf8::whole_str(input) else {
            return Span::No;
        };
        if !push_bounded(&mut self.raw, input, self.max_raw) {
            self.raw_lost = true;
        }
        if let Some(slot) = slot {
            converted_args(
                calls,
                slot,
                s,
                false,
                self.args.deepest() + 1,
                self.max_depth,
                &mut self.own,
                out,
            );
        }
        span
    }

    /// The arguments broke (`reason`): fails the call and starts skipping it.
    /// Returns `true` when the call ends at once (before the offending byte).
    pub(crate) fn fail(
        &self,
        reason: &str,
        broken: &mut Broken,
        slot: Option<Slot>,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> bool {
        // Where it broke, in the error's raw text (which holds the call's bytes up to the
        // offending one), and the argument whose value broke.
        let at = if self.raw_lost {
            String::new()
        } else {
            format!(" at byte {} of the call", self.raw.len())
        };
        let message = match self.args.argument() {
            Some(arg) => format!("a malformed pythonic tool call: argument {arg:?}{at}: {reason}"),
            None => format!("a malformed pythonic tool call{at}: {reason}"),
        };
        broken.begin(
            Skip::new(true, 0),
            self.raw.get(self.args_from..).unwrap_or_default(),
            self.raw_lost,
            slot,
            false,
            &self.raw,
            Failure {
                kind: ErrorKind::InvalidArguments,
                message,
            },
            self.max_raw,
            calls,
            out,
        )
    }

    /// One step of a call after its `(`: its arguments read (`skipping` false) or, once
    /// they broke, the broken call's text skipped to its end (`skipping` true; `in_list`
    /// as for [`Broken::feed`]). `None`:
    /// all of `rest` was used and the call goes on; else the bytes used and whether the
    /// broken text is still being skipped (when not, the call is over).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn step(
        &mut self,
        skipping: bool,
        in_list: bool,
        slot: Option<Slot>,
        rest: &[u8],
        broken: &mut Broken,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Option<(usize, bool)> {
        if skipping {
            let end = broken.feed(rest, in_list)?;
            if in_list && matches!(end, SkipEnd::After(_)) {
                // Its error waits for what follows the `)` (a `]` is its raw text's).
                broken.pending = true;
            } else {
                broken.end(calls, out);
            }
            return Some((
                match end {
                    SkipEnd::After(n) | SkipEnd::Before(n) => n,
                },
                false,
            ));
        }
        match self.feed(slot, rest, calls, out) {
            PyFeed::NeedMore => None,
            PyFeed::Stop(at) => {
                self.stopped = true;
                Some((at, false))
            }
            PyFeed::Done(n) => {
                if let Some(s) = slot {
                    calls.close(s, out);
                }
                Some((n, false))
            }
            PyFeed::Opener(at, reason) => {
                self.opener = Some(reason);
                Some((at, false))
            }
            PyFeed::Invalid(at, reason) => {
                let ended = self.fail(reason, broken, slot, calls, out);
                if ended {
                    broken.end(calls, out);
                }
                Some((at, !ended))
            }
        }
    }

    /// The `<` of [`at_opener`](Self::at_opener) begins no opening token: the call
    /// fails there as it would have without the stop (the caller skips the held bytes
    /// as the broken call's). Returns `true` when the call ends at once.
    pub(crate) fn fail_held(
        &mut self,
        broken: &mut Broken,
        slot: Option<Slot>,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> bool {
        let reason = self.opener.take().unwrap_or("an unexpected '<'");
        let ended = self.fail(reason, broken, slot, calls, out);
        if ended {
            broken.end(calls, out);
        }
        ended
    }

    /// The input ended inside the arguments: the call's `truncated` error with its raw
    /// text.
    pub(crate) fn truncated(
        &mut self,
        slot: Option<Slot>,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) {
        self.opener = None;
        let Some(slot) = slot else { return };
        let mut raw = Raw::new(self.max_raw);
        raw.push(&String::from_utf8_lossy(&self.raw));
        self.raw.clear();
        report(
            calls,
            Some(slot),
            ErrorKind::Truncated,
            "the text ended inside a pythonic tool call",
            &mut raw,
            out,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callee_names() {
        assert_eq!(callee_name("brave_search.call"), "brave_search");
        assert_eq!(callee_name("math.sqrt"), "math.sqrt");
        assert_eq!(callee_name("f"), "f");
        assert_eq!(callee_name(".call"), ".call");
    }
}
