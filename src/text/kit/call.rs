//! What the text scanners share at a call's boundary: the call's raw text ([`Raw`]),
//! reporting a broken call with it ([`report`]), and the arguments value a scanner reads
//! as the model wrote it ([`ArgValue`]).
//!
//! A call's argument bytes are the model's own bytes, inside its raw text: they are kept
//! once, there ([`Raw::push_args`]), and the call table reads them from there
//! ([`to_call`], [`close`]; [`Calls::open_raw`]) instead of keeping a copy.

use crate::calls::{Calls, Slot, push_grown, split_at_room};
use crate::event::{ErrorKind, EventSink};
use crate::scan::json::{JsonError, JsonScanner, JsonStatus};

/// Accumulates a call's raw text, bounded: what an error about the call carries is the
/// longest prefix of everything pushed that fits in `max` bytes (cut at a character
/// boundary; the rest counted), so it does not depend on how the text was cut into
/// pieces. The call's argument bytes ([`push_args`](Raw::push_args)) are kept besides,
/// in full up to `max` bytes of arguments, even where they run past that prefix: the
/// call table reads them from here ([`args`](Raw::args)) and keeps no copy.
///
/// ```text
///   text: [ prefix of the call text ............ ][ arguments past a cut prefix ]
///          └ as_str(): the first ≤ max bytes ┘      (only when the text before the
///            of the prefix                           arguments did not fit in `max`)
/// ```
/// Capacity a [`Raw`] keeps from one call to the next (a longer call's buffer is
/// released when the next starts, [`Raw::start`]).
const KEEP: usize = 1024;

#[derive(Debug, Default)]
pub(crate) struct Raw {
    text: String,
    /// Bytes pushed since `start`.
    total: usize,
    /// Where the prefix of the call text in `text` was cut (something pushed was not
    /// kept); `None`: all of `text` is the call text so far.
    cut: Option<usize>,
    /// The current arguments value: where its bytes start in `text`, and how many are
    /// kept (at most `max`).
    args_from: usize,
    args_len: usize,
    /// Argument bytes of the current value were not kept (past `max`): none are from then.
    args_cut: bool,
    /// The last push was argument bytes (the next ones continue the same value).
    in_args: bool,
    max: usize,
}

impl Raw {
    pub(crate) fn new(max: usize) -> Self {
        Raw {
            max,
            ..Raw::default()
        }
    }
    /// A new call's text starts with `marker`; the last call's text is released (its
    /// buffer too, when it grew past [`KEEP`]: a long call's bytes are not held after it).
    pub(crate) fn start(&mut self, marker: &str) {
        if self.text.capacity() > KEEP {
            self.text = String::new();
        } else {
            self.text.clear();
        }
        self.clear();
        self.push(marker);
    }

    /// Forgets all but the bytes of `text`.
    fn clear(&mut self) {
        self.total = 0;
        self.cut = None;
        self.args_from = 0;
        self.args_len = 0;
        self.args_cut = false;
        self.in_args = false;
    }
    /// Keeps the longest prefix of everything pushed that fits in `max` bytes (cut at a
    /// character boundary) and counts the rest, so what is kept does not depend on how
    /// the text was cut into pieces.
    pub(crate) fn push(&mut self, s: &str) {
        if self.cut.is_none() && self.text.len() + s.len() <= self.max {
            self.total += s.len();
            self.in_args &= s.is_empty();
            push_grown(&mut self.text, s);
        } else {
            self.push_cut(s);
        }
    }

    /// [`push`](Self::push) where the bound cuts.
    #[inline(never)]
    fn push_cut(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        self.total += s.len();
        self.in_args = false;
        if self.cut.is_some() {
            return;
        }
        let (kept, rest) = split_at_room(s, self.max.saturating_sub(self.text.len()));
        push_grown(&mut self.text, kept);
        if !rest.is_empty() {
            self.cut = Some(self.text.len());
        }
    }
    /// [`push`](Self::push) for bytes of the call's arguments value (a new value after
    /// other bytes): besides counting as call text, its first `max` bytes are kept
    /// whatever was cut before, for [`args`](Self::args).
    pub(crate) fn push_args(&mut self, s: &str) {
        if self.in_args && !self.args_cut && self.args_len + s.len() <= self.max {
            // More of the value, within the bound.
            self.total += s.len();
            self.args_len += s.len();
            push_grown(&mut self.text, s);
        } else {
            self.push_args_cold(s);
        }
    }

    /// [`push_args`](Self::push_args) off its common case.
    #[inline(never)]
    fn push_args_cold(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if !self.in_args {
            // A new value: the bytes of an earlier one past the error's text are not
            // needed any more (and what the bound cut stays cut).
            let keep = self.len();
            if keep < self.text.len() {
                self.text.truncate(keep);
                self.cut = Some(keep);
            }
            self.in_args = true;
            self.args_from = self.text.len();
            self.args_len = 0;
            self.args_cut = false;
        }
        self.total += s.len();
        if self.args_cut {
            return;
        }
        let (kept, rest) = split_at_room(s, self.max.saturating_sub(self.args_len));
        push_grown(&mut self.text, kept);
        self.args_len += kept.len();
        if !rest.is_empty() {
            self.args_cut = true;
            if self.cut.is_none() {
                self.cut = Some(self.text.len());
            }
        }
    }

    /// The argument bytes of the last value pushed with [`push_args`](Self::push_args)
    /// (its first `max` bytes), until the next [`start`](Self::start).
    pub(crate) fn args(&self) -> &str {
        self.text
            .get(self.args_from..self.args_from + self.args_len)
            .unwrap_or_default()
    }
    /// Takes back the last `n` bytes given to [`push`](Self::push) (never to
    /// [`push_args`](Self::push_args)), ASCII: they turned out to begin the next call.
    pub(crate) fn unpush(&mut self, n: usize) {
        let n = n.min(self.total);
        self.total -= n;
        if self.total <= self.text.len() {
            // Nothing past the bound any more.
            let mut keep = self.total;
            while !self.text.is_char_boundary(keep) {
                keep -= 1;
            }
            self.text.truncate(keep);
            self.cut = None;
        }
    }

    /// Length of [`as_str`](Self::as_str).
    pub(crate) fn len(&self) -> usize {
        self.as_str().len()
    }
    /// Heap bytes held (the buffer's capacity: the call text, the arguments past the
    /// prefix, room to grow).
    pub(crate) fn retained(&self) -> usize {
        self.text.capacity()
    }
    /// The call text kept for an error: its first `max` bytes (at most).
    pub(crate) fn as_str(&self) -> &str {
        let prefix = match self.cut {
            Some(at) => self.text.get(..at).unwrap_or_default(),
            None => &self.text,
        };
        split_at_room(prefix, self.max).0
    }
    /// Bytes pushed beyond the bound (not in [`as_str`](Self::as_str)).
    pub(crate) fn dropped(&self) -> usize {
        self.total - self.len()
    }
    /// The text, and a note about dropped bytes for an error message.
    pub(crate) fn take(&mut self) -> (String, String) {
        let kept = self.len();
        let dropped = self.total - kept;
        let note = if dropped > 0 {
            format!(" (the first {kept} bytes are kept, {dropped} more not kept)")
        } else {
            String::new()
        };
        // `kept` is the length of a prefix of `text` ending on a character boundary.
        self.text.truncate(kept);
        self.clear();
        (std::mem::take(&mut self.text), note)
    }
}

/// Hands argument bytes `delta` (the model's own, scanned by the dialect; `closed`: the
/// value closed with them) to the call in `slot`, opened with [`Calls::open_raw`] or
/// [`Calls::open_unnamed`], keeping them once: in `raw`, from which the call reads them.
/// A call without a name that holds no more refuses them: `Err` with the bytes of `delta`
/// that would fit, none of them taken (the dialect reports the call with its raw text).
#[inline]
pub(crate) fn to_call(
    calls: &mut Calls,
    slot: Slot,
    raw: &mut Raw,
    delta: &str,
    closed: bool,
    out: &mut dyn EventSink,
) -> Result<(), usize> {
    // The call does not read the text until the value closes.
    if !closed && calls.raw_args_streaming(slot, delta, out) {
        raw.push_args(delta);
        return Ok(());
    }
    to_call_slow(calls, slot, raw, delta, closed, out)
}

/// [`to_call`] off its common case.
fn to_call_slow(
    calls: &mut Calls,
    slot: Slot,
    raw: &mut Raw,
    delta: &str,
    closed: bool,
    out: &mut dyn EventSink,
) -> Result<(), usize> {
    if let Some(room) = calls.held_room(slot)
        && delta.len() > room
    {
        return Err(split_at_room(delta, room).0.len());
    }
    raw.push_args(delta);
    calls.raw_args(slot, delta, closed, raw.args(), out)
}

/// Closes the call in `slot` (opened with [`Calls::open_raw`]), if any, with its raw
/// text.
pub(crate) fn close(calls: &mut Calls, slot: Option<Slot>, raw: &Raw, out: &mut dyn EventSink) {
    if let Some(slot) = slot {
        calls.close_raw(slot, raw.as_str(), raw.args(), out);
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
    /// Inside a string, the stop byte ([`ArgValue::set_stop`]) at the start of the rest
    /// (not taken): it may begin a special token. The caller looks; if it is content
    /// after all, [`ArgValue::past_stop`] takes it.
    Special,
}

/// A call's JSON arguments value, read as the model wrote it: scanned once here, its
/// bytes go to the call's raw text, which the call (opened with [`Calls::open_raw`])
/// reads them from ([`to_call`]), and the call learns from here where the value ends.
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
        raw: &mut Raw,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) {
        let (piece, rest) = s.split_at_checked(1).unwrap_or(("", ""));
        // A string byte: the scanner stays in the string.
        let _ = self.scanner.feed(piece.as_bytes());
        match slot {
            Some(slot) => drop(to_call(calls, slot, raw, piece, false, out)),
            None => raw.push(piece),
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
        raw: &mut Raw,
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
            Some(slot) => drop(to_call(
                calls,
                slot,
                raw,
                value,
                step == ArgStep::Closed,
                out,
            )),
            None => raw.push(value),
        }
        *s = rest;
        step
    }

    /// The text ended inside the value: whether it is complete there (a top-level
    /// number), and if so the call learns it.
    pub(crate) fn finish(
        &mut self,
        slot: Option<Slot>,
        raw: &mut Raw,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> bool {
        let complete = self.scanner.finish();
        if complete && let Some(slot) = slot {
            let _ = to_call(calls, slot, raw, "", true, out);
        }
        complete
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `unpush` takes back the last bytes pushed, within the bound and past it: what is
    /// kept then equals pushing only the rest.
    #[test]
    fn unpush_equals_not_pushing() {
        let text = "<|tool_call>call:f{a:<|";
        for max in [0, 5, 20, 21, 22, 23, 40] {
            for n in 0..=3 {
                let mut a = Raw::new(max);
                a.start("");
                a.push(text);
                a.unpush(n);
                let mut b = Raw::new(max);
                b.start("");
                b.push(&text[..text.len() - n]);
                assert_eq!(a.as_str(), b.as_str(), "max {max}, n {n}");
                assert_eq!(a.dropped(), b.dropped(), "max {max}, n {n}");
                assert_eq!(a.take(), b.take(), "max {max}, n {n}");
            }
        }
    }

    /// Pushes `head`, `args` (as argument bytes) and `tail`, each cut at `cuts` (byte
    /// offsets into the whole text, on character boundaries).
    fn pushed(max: usize, head: &str, args: &str, tail: &str, cuts: &[usize]) -> Raw {
        let mut raw = Raw::new(max);
        raw.start("");
        let mut from = 0;
        for (part, is_args) in [(head, false), (args, true), (tail, false)] {
            let to = from + part.len();
            let mut at = from;
            for &c in cuts.iter().filter(|&&c| c > from && c < to).chain([&to]) {
                let piece = part.get(at - from..c - from).unwrap_or_default();
                if is_args {
                    raw.push_args(piece);
                } else {
                    raw.push(piece);
                }
                at = c;
            }
            from = to;
        }
        raw
    }

    /// What an error carries and what the call reads do not depend on the bound's
    /// position or on how the text was cut: the error's text is the longest prefix of the
    /// call text within `max` bytes (the rest counted), the arguments' first `max` bytes
    /// are all kept, and nothing past those is held.
    #[test]
    fn error_prefix_and_arguments_whatever_the_cuts() {
        let head = "<tool_call>{\"name\":\"é\",\"arguments\":";
        let args = "{\"a\":\"xé€y\"}";
        let tail = "}</tool_call>";
        let whole = format!("{head}{args}{tail}");
        let boundaries: Vec<usize> = (1..whole.len())
            .filter(|&i| whole.is_char_boundary(i))
            .collect();
        for max in 0..whole.len() + 2 {
            let want = split_at_room(&whole, max).0;
            let want_args = split_at_room(args, max).0;
            let mut cuts_list: Vec<Vec<usize>> = vec![vec![], boundaries.clone()];
            cuts_list.extend(boundaries.iter().map(|&b| vec![b]));
            for cuts in &cuts_list {
                let mut raw = pushed(max, head, args, tail, cuts);
                assert_eq!(raw.as_str(), want, "max {max} cuts {cuts:?}");
                assert_eq!(raw.dropped(), whole.len() - want.len());
                assert_eq!(raw.args(), want_args, "max {max} cuts {cuts:?}");
                assert!(raw.text.len() <= max + want_args.len());
                let (text, note) = raw.take();
                assert_eq!(text, want);
                assert_eq!(note.is_empty(), want.len() == whole.len());
                assert_eq!((raw.retained(), raw.args()), (0, ""));
            }
            // A second value in the same text: the error's text is the same prefix, the
            // arguments are the second value's, and no more than the bound is held.
            let mut raw = pushed(max, head, args, tail, &[]);
            raw.push_args(args);
            let whole2 = format!("{whole}{args}");
            assert_eq!(raw.as_str(), split_at_room(&whole2, max).0);
            assert_eq!(raw.dropped(), whole2.len() - raw.len());
            assert_eq!(raw.args(), want_args);
            assert!(raw.text.len() <= max + want_args.len());
        }
    }
}
