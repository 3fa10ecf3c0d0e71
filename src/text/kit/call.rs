//! What the text scanners share at a call's boundary: reporting a call that broke at a
//! character ([`report_at`]), and the arguments value a scanner reads as the model wrote
//! it ([`ArgValue`]).
//!
//! A call's argument bytes are the model's own bytes, inside its raw text ([`Raw`]),
//! which the call table owns from the call's open ([`Calls::open_raw`]): they are kept
//! once, there ([`Calls::push_args`]). A scanner's [`Forming`] holds the raw text of a
//! call the table does not hold ([`Calls::raw_or`]).

use crate::calls::{Calls, Slot};
pub(crate) use crate::calls::{Forming, Raw};
use crate::event::{ErrorKind, EventSink};
use crate::scan::json::{JsonError, JsonScanner, JsonStatus};

/// Reports a malformed or cut-off call with `what` and its raw text `raw`, kept by the
/// scanner (a call whose arguments the table keeps: [`Calls::open`],
/// [`Calls::open_scanned`]): the call's own error when it was started, otherwise an error
/// without an index (see [`Calls::error`]). A call that owns its raw text:
/// [`Calls::report`].
pub(crate) fn report(
    calls: &mut Calls,
    slot: Option<Slot>,
    kind: ErrorKind,
    what: &str,
    raw: &mut Raw,
    out: &mut dyn EventSink,
) {
    let (text, note) = raw.take();
    calls.error(slot, kind, format!("{what}{note}"), text, out);
}

/// Reports a call that broke at the start of `s` (see [`Calls::report`]), its raw text taken
/// through the offending character; returns the rest of `s` after it.
pub(crate) fn report_at<'a>(
    s: &'a str,
    calls: &mut Calls,
    slot: Option<Slot>,
    kind: ErrorKind,
    what: &str,
    raw: &mut Forming,
    out: &mut dyn EventSink,
) -> &'a str {
    let n = s.chars().next().map_or(0, char::len_utf8);
    // invariant: `n` is the length of the first character of `s` (0 when it is empty).
    let (bad, rest) = s.split_at(n);
    calls.raw_or(slot, raw).push(bad);
    calls.report(slot, kind, what, raw, out);
    rest
}

/// What [`ArgValue::feed`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgStep {
    /// All input taken; the value goes on.
    NeedMore,
    /// The value closed (the call has its arguments).
    Closed,
    /// Not valid JSON (or nested too deep) at the start of the rest (not taken).
    Broken(ErrorKind),
    /// Inside a string, the stop byte ([`ArgValue::set_stop`]) at the start of the rest
    /// (not taken): it may begin a special token. The caller looks; if it is content
    /// after all, [`ArgValue::past_stop`] takes it.
    Special,
}

/// A call's JSON arguments value, read as the model wrote it: scanned once here, its
/// bytes go to the call's raw text, which the call (opened with [`Calls::open_raw`])
/// reads them from ([`Calls::push_args`]), and the call learns from here where the value ends.
#[derive(Debug)]
pub(crate) struct ArgValue {
    scanner: JsonScanner,
    max_depth: usize,
    /// The first byte of the syntax's special tokens, where a string stops.
    stop: Option<crate::scan::find::StopByte>,
}

impl ArgValue {
    pub(crate) fn new(max_depth: usize) -> Self {
        ArgValue {
            scanner: JsonScanner::with_max_depth(max_depth),
            max_depth,
            stop: None,
        }
    }

    /// Strings stop at `stop` ([`ArgStep::Special`]): the first byte of the syntax's
    /// special tokens, not `"`, `\\` or a control character.
    pub(crate) fn set_stop(&mut self, stop: Option<crate::scan::find::StopByte>) {
        self.stop = stop;
    }

    /// After [`ArgStep::Special`]: the stop byte at the start of `s` (ASCII) is string
    /// content; taken (`s` advanced past it) as [`feed`](Self::feed) would.
    pub(crate) fn past_stop(
        &mut self,
        s: &mut &str,
        slot: Option<Slot>,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) {
        let (piece, rest) = s.split_at_checked(1).unwrap_or(("", ""));
        // A string byte: the scanner stays in the string.
        let _ = self.scanner.feed(piece.as_bytes());
        match slot {
            Some(slot) => drop(calls.push_args(slot, raw, piece, false, out)),
            None => calls.raw_or(None, raw).push(piece),
        }
        *s = rest;
    }

    /// The stop byte of [`set_stop`](Self::set_stop).
    #[inline]
    pub(crate) fn stop(&self) -> Option<crate::scan::find::StopByte> {
        self.stop
    }

    /// Whether the value is in a string's plain content (where a stop byte stops).
    #[inline]
    pub(crate) fn in_plain_string(&self) -> bool {
        self.scanner.in_plain_string()
    }

    /// Whether all of `bytes` is more of a string inside the value, with nothing that
    /// ends it or needs the full scanner (then consumed); otherwise nothing done.
    #[inline]
    pub(crate) fn string_run(&mut self, bytes: &[u8]) -> bool {
        match self.stop {
            None => self.scanner.string_run(bytes),
            Some(stop) => self.scanner.string_run_stop(bytes, stop),
        }
    }

    /// A new value starts.
    pub(crate) fn reset(&mut self) {
        self.scanner = JsonScanner::with_max_depth(self.max_depth);
    }

    /// Reads the value from the start of `s` (advanced past what belongs to it).
    #[inline]
    pub(crate) fn feed(
        &mut self,
        s: &mut &str,
        slot: Option<Slot>,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> ArgStep {
        let status = match self.stop {
            None => Ok(self.scanner.feed(s.as_bytes())),
            Some(stop) => self.scanner.feed_stop(s.as_bytes(), stop),
        };
        let (taken, step) = match status {
            Err(at) => (at, ArgStep::Special),
            Ok(JsonStatus::NeedMore) => (s.len(), ArgStep::NeedMore),
            Ok(JsonStatus::Complete { consumed }) => (consumed, ArgStep::Closed),
            Ok(JsonStatus::Invalid { at, error }) => (
                at,
                ArgStep::Broken(match error {
                    JsonError::TooDeep => ErrorKind::LimitExceeded,
                    _ => ErrorKind::InvalidArguments,
                }),
            ),
        };
        let (value, rest) = s.split_at_checked(taken).unwrap_or(("", ""));
        match slot {
            // A named call never refuses argument bytes (these scanners open the call
            // at its name).
            Some(slot) => drop(calls.push_args(slot, raw, value, step == ArgStep::Closed, out)),
            None => calls.raw_or(None, raw).push(value),
        }
        *s = rest;
        step
    }

    /// The text ended inside the value: whether it is complete there (a top-level
    /// number), and if so the call learns it.
    pub(crate) fn finish(
        &mut self,
        slot: Option<Slot>,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> bool {
        let complete = self.scanner.finish();
        if complete && let Some(slot) = slot {
            let _ = calls.push_args(slot, raw, "", true, out);
        }
        complete
    }
}
