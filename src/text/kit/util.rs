//! Small helpers the text scanners share: byte classes, bounded buffers, and
//! [`TextOut`], the visible-text buffer of the byte-level scanners. (Short-input byte
//! searches are [`scan::find`](crate::scan::find).)

use crate::calls::{Calls, Slot};
use crate::event::{EventRef, EventSink};
use crate::scan::marker::{Expect, Expected, MarkerSet};
use crate::scan::utf8::Utf8Holder;
use crate::text::kit::call::{ArgValue, Forming};

/// Whether `c` is JSON / Python insignificant whitespace ([`is_ws`] for `char`s).
#[inline]
pub(crate) fn is_ws_char(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Whether `b` is JSON / Python insignificant whitespace.
#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `b` may start a name.
#[inline]
pub(crate) fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

/// Whether `b` may continue a name (`.` and `-` are checked for position separately).
#[inline]
pub(crate) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// Appends `bytes` to a bounded raw buffer; returns `false` once something was cut.
pub(crate) fn push_bounded(buf: &mut Vec<u8>, bytes: &[u8], max: usize) -> bool {
    let room = max.saturating_sub(buf.len());
    if bytes.len() <= room {
        crate::calls::extend_grown(buf, bytes);
        true
    } else {
        crate::calls::extend_grown(buf, bytes.get(..room).unwrap_or_default());
        false
    }
}

/// Converts bytes to text for a call's arguments: borrowed when complete and valid,
/// else through `utf8` (holding an incomplete character, replacing invalid bytes).
pub(crate) fn args_text<'a>(
    utf8: &mut Utf8Holder,
    bytes: &'a [u8],
    scratch: &'a mut String,
) -> std::borrow::Cow<'a, str> {
    if utf8.held() == 0
        && let Ok(s) = std::str::from_utf8(bytes)
    {
        return std::borrow::Cow::Borrowed(s);
    }
    utf8.push(bytes, scratch)
}

/// `bytes` as text, invalid bytes as U+FFFD: borrowed when valid (`str::from_utf8` checks
/// ASCII a word at a time; `String::from_utf8_lossy` looks at each byte).
#[inline]
pub(crate) fn lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The hot path of a scanner's "inside the JSON arguments" state: when nothing is held
/// and all of `bytes` is complete UTF-8 and more of an argument string
/// ([`JsonScanner::string_run`](crate::scan::json::JsonScanner::string_run)), hands it
/// to the call's raw text and to the call (as the state's `NeedMore` arm does) and
/// returns `true`; otherwise `false`, nothing done.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn args_string_run(
    input: &CharInput,
    args: &mut ArgValue,
    bytes: &[u8],
    raw: &mut Forming,
    slot: Option<Slot>,
    calls: &mut Calls,
    out: &mut dyn EventSink,
) -> bool {
    if input.utf8.held() != 0 {
        return false;
    }
    let Some(s) = crate::scan::utf8::whole_str(bytes) else {
        return false;
    };
    if !args.string_run(bytes) {
        return false;
    }
    match slot {
        // A named call never refuses argument bytes (these scanners open the call at its
        // name).
        Some(slot) => drop(calls.push_args(slot, raw, s, false, out)),
        None => calls.raw_or(None, raw).push(s),
    }
    true
}

/// Hands JSON that a transducer wrote from a call's arguments (pythonic, Gemma 4) to the
/// call, opened with [`Calls::open_scanned`]: the text is valid by construction (a prefix
/// of one JSON value, all of it once `closed`), so the call table does not scan it again.
/// `depth` is the deepest nesting the JSON has reached (the arguments object counts 1):
/// past `max_depth` the call table scans the text itself from here on (`*own` is set), as
/// for a call opened with [`Calls::open`], so the call fails where and as it would there.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn converted_args(
    calls: &mut Calls,
    slot: Slot,
    json: &str,
    closed: bool,
    depth: usize,
    max_depth: usize,
    own: &mut bool,
    out: &mut dyn EventSink,
) {
    if !*own && depth > max_depth {
        calls.scan_own(slot);
        *own = true;
    }
    if *own {
        calls.args(slot, json, out);
    } else {
        // A named call never refuses argument bytes.
        let _ = calls.scanned_args(slot, json, closed, out);
    }
}

/// [`Calls::close_with_raw`] for a scanner that keeps the call's raw text as bytes: the
/// text is made (invalid UTF-8 replaced) only for a rejected call, the one whose error
/// carries it; any other call closes as with [`Calls::close`] (which is what
/// `close_with_raw` does for it), without converting the call's bytes.
pub(crate) fn close_with_raw_bytes(
    calls: &mut Calls,
    slot: Slot,
    raw: &[u8],
    out: &mut dyn EventSink,
) {
    if calls.is_rejected(slot) {
        calls.close_with_raw(slot, &String::from_utf8_lossy(raw), out);
    } else {
        calls.close(slot, out);
    }
}

/// Visible text out of a scanner. Text bytes of one feed are collected and become one
/// `Text` event when the feed ends ([`commit`](TextOut::commit)) or a call starts
/// ([`flush`](TextOut::flush)); an incomplete UTF-8 character at the end is held until
/// the next feed, and invalid bytes become U+FFFD.
#[derive(Debug, Default)]
pub(crate) struct TextOut {
    /// Text bytes not yet emitted.
    pending: Vec<u8>,
    /// Non-whitespace text has been emitted.
    seen: bool,
    /// Line breaks at the end of a feed are held too, until what follows them is known
    /// ([`drop_line_breaks`](Self::drop_line_breaks): `auto` drops those right before a
    /// reasoning tag, as the text stage does).
    hold_nl: bool,
}

impl TextOut {
    /// A `TextOut` that holds the line breaks at the end of a feed.
    pub(crate) fn holding_line_breaks() -> Self {
        TextOut {
            hold_nl: true,
            ..TextOut::default()
        }
    }

    /// Drops the line breaks at the end of the pending text.
    pub(crate) fn drop_line_breaks(&mut self) {
        while matches!(self.pending.last(), Some(b'\n' | b'\r')) {
            self.pending.pop();
        }
    }

    /// Whether non-whitespace text has been emitted.
    pub(crate) fn seen(&self) -> bool {
        self.seen
    }

    /// Records that non-whitespace text was emitted before this scanner's first byte.
    pub(crate) fn set_seen(&mut self, seen: bool) {
        self.seen |= seen;
    }

    /// Bytes held (text of this feed, an incomplete UTF-8 character).
    pub(crate) fn held(&self) -> usize {
        self.pending.len()
    }

    /// Text bytes.
    pub(crate) fn emit(&mut self, bytes: &[u8]) {
        if !self.seen && bytes.iter().any(|b| !b.is_ascii_whitespace()) {
            self.seen = true;
        }
        self.pending.extend_from_slice(bytes);
    }

    /// The rest of the feed is text: with nothing pending and complete UTF-8 it becomes
    /// an event at once (the common case of a token of prose).
    pub(crate) fn emit_last(&mut self, bytes: &[u8], out: &mut dyn EventSink) {
        if self.pending.is_empty()
            && let Some(&last) = bytes.last()
            && !(self.hold_nl && matches!(last, b'\n' | b'\r'))
            && let Ok(s) = std::str::from_utf8(bytes)
        {
            if !self.seen && bytes.iter().any(|b| !b.is_ascii_whitespace()) {
                self.seen = true;
            }
            out.event(EventRef::Text { delta: s });
            return;
        }
        self.emit(bytes);
    }

    /// The feed ends: the text so far becomes one event, except an incomplete UTF-8
    /// character at its end. (Nothing pending, the common case after a feed of prose
    /// that went out at once, is one test in the scanner's `feed`.)
    #[inline(always)]
    pub(crate) fn commit(&mut self, out: &mut dyn EventSink) {
        if !self.pending.is_empty() {
            self.commit_pending(out);
        }
    }

    /// [`commit`](Self::commit) with text pending.
    #[inline(never)]
    fn commit_pending(&mut self, out: &mut dyn EventSink) {
        match self.pending.last() {
            None => return,
            Some(&b) if b < 0x80 => {
                return if self.hold_nl && matches!(b, b'\n' | b'\r') {
                    self.commit_before_line_breaks(out)
                } else {
                    self.flush(out)
                };
            }
            Some(_) => {}
        }
        let cut = incomplete_tail(&self.pending);
        if cut == 0 {
            return;
        }
        let mut tail = [0u8; 4];
        let tail_len = self.pending.len() - cut;
        if let (Some(dst), Some(src)) = (tail.get_mut(..tail_len), self.pending.get(cut..)) {
            dst.copy_from_slice(src);
        }
        self.pending.truncate(cut);
        self.flush(out);
        self.pending
            .extend_from_slice(tail.get(..tail_len).unwrap_or_default());
    }

    /// [`commit`](Self::commit) holding the line breaks at the end (`hold_nl`). The text
    /// before them ends on a complete character or on bytes that are not UTF-8 (a line
    /// break never continues a character).
    #[inline(never)]
    fn commit_before_line_breaks(&mut self, out: &mut dyn EventSink) {
        let cut = self
            .pending
            .iter()
            .rposition(|b| !matches!(b, b'\n' | b'\r'))
            .map_or(0, |i| i + 1);
        if let Some(head) = self.pending.get(..cut).filter(|h| !h.is_empty()) {
            out.event(EventRef::Text {
                delta: &lossy(head),
            });
            self.pending.drain(..cut);
        }
    }

    /// Emits all text now (before a call starts, and at the end): an incomplete UTF-8
    /// character becomes U+FFFD.
    pub(crate) fn flush(&mut self, out: &mut dyn EventSink) {
        if self.pending.is_empty() {
            return;
        }
        out.event(EventRef::Text {
            delta: &lossy(&self.pending),
        });
        self.pending.clear();
    }
}

/// Where an incomplete UTF-8 sequence at the end of `bytes` begins (`bytes.len()` when
/// there is none).
fn incomplete_tail(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for k in 1..=len.min(3) {
        let start = len - k;
        match bytes.get(start) {
            Some(&b) if b < 0x80 => return len,
            Some(&b) if b >= 0xC0 => {
                return match std::str::from_utf8(bytes.get(start..).unwrap_or_default()) {
                    Err(e) if e.error_len().is_none() && e.valid_up_to() == 0 => start,
                    _ => len,
                };
            }
            _ => {}
        }
    }
    len
}

/// A scanner's input bytes not yet read: the start of a character cut by the last feed
/// (held until its next bytes arrive), and the text a feed that completes one is built in.
#[derive(Debug, Default)]
pub(crate) struct CharInput {
    pub(crate) utf8: Utf8Holder,
    pub(crate) scratch: String,
}

impl CharInput {
    /// Bytes held back (0..=3).
    pub(crate) fn held(&self) -> usize {
        self.utf8.held()
    }
}

/// A text scanner that reads whole characters: [`feed`](Self::feed) holds back a
/// character cut at the end of the bytes (and replaces bytes that are not UTF-8) and runs
/// the scanner on the rest; the same text however the bytes were split.
pub(crate) trait ReadsChars {
    /// Where the held bytes are kept.
    fn input(&mut self) -> &mut CharInput;

    /// Scans complete text.
    fn run_chars(&mut self, s: &str, calls: &mut Calls, out: &mut dyn EventSink);

    /// The scanner's hot path: takes all of `bytes` and returns `true` (e.g. more of an
    /// argument string), or returns `false` having done nothing. Default: none.
    #[inline]
    fn fast_path(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) -> bool {
        let _ = (bytes, calls, out);
        false
    }

    /// Complete text before [`run_chars`](Self::run_chars): a scanner in its text state
    /// hands it to its text stage, advancing `s` past what the stage took (and opening a
    /// call at the marker it stopped at). Default: nothing taken.
    #[inline]
    fn text_first(&mut self, s: &mut &str, out: &mut dyn EventSink) {
        let _ = (s, out);
    }

    /// Scans the next bytes of model output. Always inlined into
    /// [`TextScanner::feed`](crate::text::TextScanner::feed)'s dispatch (see there).
    #[inline(always)]
    fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        if !self.fast_path(bytes, calls, out) {
            self.feed_chars(bytes, calls, out);
        }
    }

    /// [`feed`](Self::feed) off its hot path: complete characters to
    /// [`text_first`](Self::text_first), the rest to [`run_chars`](Self::run_chars).
    #[inline(never)]
    fn feed_chars(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        let mut scratch = std::mem::take(&mut self.input().scratch);
        let text = self.input().utf8.push(bytes, &mut scratch);
        self.feed_text(&text, calls, out);
        drop(text);
        self.input().scratch = scratch;
    }

    /// [`feed_chars`](Self::feed_chars) once the held bytes are dealt with: `text` (the
    /// feed's complete characters) to [`text_first`](Self::text_first), the rest to
    /// [`run_chars`](Self::run_chars).
    #[inline]
    fn feed_text(&mut self, text: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        let mut s = text;
        let whole = s.len();
        self.text_first(&mut s, out);
        if !s.is_empty() || s.len() == whole {
            self.run_chars(s, calls, out);
        }
    }

    /// At the end of the text: a cut character still held is scanned as U+FFFD.
    fn run_held(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        if let Some(r) = self.input().utf8.finish() {
            self.run_chars(r, calls, out);
        }
    }
}

/// Implements [`ReadsChars`] for a scanner whose held bytes are its `input` field and
/// whose `run(&mut self, &str, &mut Calls, &mut dyn EventSink)` scans complete text.
///
/// - `reads_chars!(T)`: no hot path.
/// - `reads_chars!(T, args: St::A, text: St::T => opened)`: the hot path is more of an
///   argument string in state `St::A` ([`args_string_run`] over the scanner's `input`,
///   `args`, `raw` and `slot`); in state `St::T` text goes to the `text` stage first, and
///   `self.opened(marker, out)` runs when it stops at a call marker (its index among the stage's
///   call markers; the `text:` part is optional).
/// - `reads_chars!(T; items)`: the trait's items written out (`fast_path`, `text_first`
///   or `feed`).
macro_rules! reads_chars {
    ($scanner:ty) => {
        reads_chars!($scanner;);
    };
    ($scanner:ty, args: $args:path $(, text: $text:path => $opened:ident)?) => {
        reads_chars!($scanner;
            #[inline(always)]
            fn fast_path(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) -> bool {
                self.st == $args
                    && args_string_run(&self.input, &mut self.args, bytes, &mut self.raw, self.slot, calls, out)
            }
            $(
                #[inline]
                fn text_first(&mut self, s: &mut &str, out: &mut dyn EventSink) {
                    if self.st == $text {
                        if let Some(marker) = self.text.run(s, out) {
                            self.$opened(marker, out);
                        }
                    }
                }
            )?
        );
    };
    ($scanner:ty, args: $args:path, special: $special:path $(, text: $text:path => $opened:ident)?) => {
        reads_chars!($scanner;
            #[inline(always)]
            fn fast_path(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) -> bool {
                if self.st == $special {
                    // The stop byte held at the end of the last piece, and this piece's
                    // first byte continues no token: it was string content (what
                    // `$special` finds, without the token match); the piece goes on below.
                    let Some(stop) = self.args.stop() else {
                        return false;
                    };
                    if self.input.utf8.held() != 0 {
                        return false;
                    }
                    let Some(s) = crate::scan::utf8::whole_str(bytes) else {
                        return false;
                    };
                    if !self.in_string.release_content(stop, bytes.first()) {
                        return false;
                    }
                    self.st = $args;
                    self.past = true;
                    self.run(stop.as_str(), calls, out);
                    if self.st != $args {
                        self.run(s, calls, out);
                        return true;
                    }
                } else if self.st != $args {
                    return false;
                }
                if args_string_run(&self.input, &mut self.args, bytes, &mut self.raw, self.slot, calls, out) {
                    return true;
                }
                // More of an argument string but for a stop byte at the end (the byte
                // after it not seen yet): the bytes before it go to the call, the stop
                // byte is held as `$special` holds it.
                let Some(stop) = self.args.stop() else {
                    return false;
                };
                let Some(head) = bytes.strip_suffix(stop.as_str().as_bytes()) else {
                    return false;
                };
                if !args_string_run(&self.input, &mut self.args, head, &mut self.raw, self.slot, calls, out) {
                    return false;
                }
                if self.args.in_plain_string() {
                    self.in_string.hold(stop);
                    self.st = $special;
                } else {
                    // After a backslash: the stop byte is the escape's, for the full scan.
                    self.run(stop.as_str(), calls, out);
                }
                true
            }
            $(
                #[inline]
                fn text_first(&mut self, s: &mut &str, out: &mut dyn EventSink) {
                    if self.st == $text {
                        if let Some(marker) = self.text.run(s, out) {
                            self.$opened(marker, out);
                        }
                    }
                }
            )?
        );
    };
    ($scanner:ty; $($items:tt)*) => {
        impl ReadsChars for $scanner {
            fn input(&mut self) -> &mut CharInput {
                &mut self.input
            }

            fn run_chars(&mut self, s: &str, calls: &mut Calls, out: &mut dyn EventSink) {
                self.run(s, calls, out);
            }

            $($items)*
        }
    };
}
pub(crate) use reads_chars;

/// After a call's value closed: whitespace, then the call's closing marker (the only
/// marker of `close`). Consumes from `s`. `None`: more input is needed; `Some(0)`: the
/// marker came; `Some(n)`: other text came, and the marker's first `n` bytes, held so
/// far, are text again (the rest of `s` too).
pub(crate) fn closing(expect: &mut Expect, close: &MarkerSet, s: &mut &str) -> Option<usize> {
    if expect.matched() == 0 {
        let n = s.bytes().take_while(|b| is_ws(*b)).count();
        *s = s.get(n..).unwrap_or_default();
        if s.is_empty() {
            return None;
        }
    }
    match expect.feed(close, s) {
        Expected::NeedMore => {
            *s = "";
            None
        }
        Expected::Matched { consumed, .. } => {
            *s = s.get(consumed..).unwrap_or_default();
            Some(0)
        }
        Expected::Mismatch { len, consumed, .. } => {
            *s = s.get(consumed..).unwrap_or_default();
            Some(len)
        }
    }
}
