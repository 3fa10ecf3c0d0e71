//! What the text scanners share at a call's boundary: the call's raw text ([`Raw`]),
//! reporting a broken call with it ([`report`]), and the arguments value a scanner reads
//! as the model wrote it ([`ArgValue`]).

use crate::calls::{Calls, Slot, split_at_room};
use crate::event::{ErrorKind, EventSink};
use crate::scan::json::{JsonError, JsonScanner, JsonStatus};

/// Accumulates a call's raw text, bounded.
#[derive(Debug, Default)]
pub(crate) struct Raw {
    text: String,
    dropped: usize,
    max: usize,
}

impl Raw {
    pub(crate) fn new(max: usize) -> Self {
        Raw {
            text: String::new(),
            dropped: 0,
            max,
        }
    }
    pub(crate) fn start(&mut self, marker: &str) {
        self.text.clear();
        self.dropped = 0;
        self.text.push_str(marker);
    }
    /// Keeps the longest prefix of everything pushed that fits in `max` bytes (cut at a
    /// character boundary) and counts the rest, so what is kept does not depend on how
    /// the text was cut into pieces.
    pub(crate) fn push(&mut self, s: &str) {
        if self.dropped > 0 {
            self.dropped += s.len();
            return;
        }
        let (kept, rest) = split_at_room(s, self.max.saturating_sub(self.text.len()));
        self.text.push_str(kept);
        self.dropped += rest.len();
    }
    pub(crate) fn len(&self) -> usize {
        self.text.len()
    }
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }
    /// Bytes pushed beyond the bound (not kept).
    pub(crate) fn dropped(&self) -> usize {
        self.dropped
    }
    /// The text, and a note about dropped bytes for an error message.
    pub(crate) fn take(&mut self) -> (String, String) {
        let note = if self.dropped > 0 {
            format!(
                " (the first {} bytes are kept, {} more not kept)",
                self.text.len(),
                self.dropped
            )
        } else {
            String::new()
        };
        self.dropped = 0;
        (std::mem::take(&mut self.text), note)
    }
}

/// Reports a malformed or cut-off call with `what` and its raw text: the call's own
/// error when it was started, otherwise an error without an index (see [`Calls::error`]).
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

/// Reports a call that broke at the start of `s` (see [`report`]), its raw text taken
/// through the offending character; returns the rest of `s` after it.
pub(crate) fn report_at<'a>(
    s: &'a str,
    calls: &mut Calls,
    slot: Option<Slot>,
    kind: ErrorKind,
    what: &str,
    raw: &mut Raw,
    out: &mut dyn EventSink,
) -> &'a str {
    let n = s.chars().next().map_or(0, char::len_utf8);
    // invariant: `n` is the length of the first character of `s` (0 when it is empty).
    let (bad, rest) = s.split_at(n);
    raw.push(bad);
    report(calls, slot, kind, what, raw, out);
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
}

/// A call's JSON arguments value, read as the model wrote it: scanned once here, its
/// bytes go to the call (opened with [`Calls::open_scanned`]) and to the call's raw
/// text, and the call learns from here where the value ends.
#[derive(Debug)]
pub(crate) struct ArgValue {
    scanner: JsonScanner,
    max_depth: usize,
}

impl ArgValue {
    pub(crate) fn new(max_depth: usize) -> Self {
        ArgValue {
            scanner: JsonScanner::with_max_depth(max_depth),
            max_depth,
        }
    }

    /// Whether all of `bytes` is more of a string inside the value, with nothing that
    /// ends it or needs the full scanner (then consumed); otherwise nothing done.
    #[inline]
    pub(crate) fn string_run(&mut self, bytes: &[u8]) -> bool {
        self.scanner.string_run(bytes)
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
        raw: &mut Raw,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> ArgStep {
        let (taken, step) = match self.scanner.feed(s.as_bytes()) {
            JsonStatus::NeedMore => (s.len(), ArgStep::NeedMore),
            JsonStatus::Complete { consumed } => (consumed, ArgStep::Closed),
            JsonStatus::Invalid { at, error } => (
                at,
                ArgStep::Broken(match error {
                    JsonError::TooDeep => ErrorKind::LimitExceeded,
                    _ => ErrorKind::InvalidArguments,
                }),
            ),
        };
        let (value, rest) = s.split_at_checked(taken).unwrap_or(("", ""));
        raw.push(value);
        if let Some(slot) = slot {
            // A named call never refuses argument bytes (these scanners open the call
            // at its name).
            let _ = calls.scanned_args(slot, value, step == ArgStep::Closed, out);
        }
        *s = rest;
        step
    }

    /// The text ended inside the value: whether it is complete there (a top-level
    /// number), and if so the call learns it.
    pub(crate) fn finish(
        &mut self,
        slot: Option<Slot>,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> bool {
        let complete = self.scanner.finish();
        if complete && let Some(slot) = slot {
            let _ = calls.scanned_args(slot, "", true, out);
        }
        complete
    }
}
