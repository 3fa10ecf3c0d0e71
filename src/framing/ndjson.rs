//! Newline-delimited JSON (NDJSON / JSON Lines) framing, sans-IO, pull style.
//!
//! [`NdjsonFramer`] splits a byte stream into lines:
//!
//! * lines end with LF; one CR before the LF is trimmed (CRLF files);
//! * lines that are empty or only ASCII whitespace (space, `\t`, `\n`,
//!   `\x0C`, `\r`) are skipped;
//! * one UTF-8 BOM at the very start of the stream is stripped, also when it
//!   arrives split over several calls; a BOM anywhere later is line content;
//! * the last line, when it has no LF, is returned by
//!   [`NdjsonFramer::finish`];
//! * lines longer than the limit are reported as
//!   [`NdjsonItem::LineTooLong`] (see there) and memory stays bounded.
//!
//! The lines are not parsed or validated: that is the caller's job. A line
//! that lies whole in the chunk being fed is returned borrowed from the chunk
//! (no copy); a line split over chunks is assembled in a reused buffer.
//!
//! ```
//! use toolstream::framing::ndjson::{NdjsonFramer, NdjsonItem};
//!
//! let mut framer = NdjsonFramer::new();
//! let mut lines = Vec::new();
//! for chunk in [&b"{\"a\":1}\r\n\n  \n{\"b\""[..], b":2}\n{\"c\":3}"] {
//!     let mut rest = chunk;
//!     while let Some(NdjsonItem::Line(line)) = framer.feed(&mut rest) {
//!         lines.push(line.to_vec());
//!     }
//! }
//! while let Some(NdjsonItem::Line(line)) = framer.finish() {
//!     lines.push(line.to_vec());
//! }
//! assert_eq!(lines, [&b"{\"a\":1}"[..], b"{\"b\":2}", b"{\"c\":3}"]);
//! ```

use memchr::memchr;

use crate::framing::sse::DEFAULT_MAX_LINE;

/// The UTF-8 byte order mark.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// One item produced by [`NdjsonFramer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NdjsonItem<'a> {
    /// One non-blank line, without its LF and without one trailing CR.
    Line(&'a [u8]),
    /// A line exceeded the maximum length.
    ///
    /// Reported once, when the line *ends* (at its LF, or at
    /// [`NdjsonFramer::finish`]), so the item is the same however the input
    /// was split into chunks. Only the first bytes of the line are retained
    /// while the rest is skipped, so memory stays bounded by the limit. The
    /// framer then continues with the next line. The length check comes
    /// before the blank-line check: an overlong whitespace-only line is
    /// reported too.
    LineTooLong {
        /// The first bytes of the line: exactly `max` bytes.
        prefix: &'a [u8],
        /// The full length of the line in bytes (without its LF and trimmed
        /// CR); always greater than the limit.
        len: usize,
    },
}

/// Where the framer stands between two calls.
///
/// ```text
///            BOM byte matched (fewer than 3 so far)
///             +-----+
///             v     |
///        +-------------+  3rd BOM byte: dropped     +-----------+
/// start->|   Bom(n)    |--------------------------->| LineStart |<--+
///        +-------------+  other byte: held BOM      +-----------+   |
///                         bytes start the line            | chunk   | LF
///                              |                          | ends    |
///                              v                          v in line |
///                        +-----------------------------------+      |
///                        |     Partial (line buffer)         |------+
///                        +-----------------------------------+
/// ```
///
/// `finish` resets the state to `Bom(0)` once everything has been drained,
/// so a framer can be reused for the next stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// At the stream start; `n` bytes of a BOM matched so far (held back).
    Bom(u8),
    /// At the start of a line, nothing buffered.
    LineStart,
    /// Inside a line whose first bytes are in `line` (`line_len` counted).
    Partial,
}

/// What became ready inside `advance`; turned into an [`NdjsonItem`] by
/// `item` once the mutable borrow of the framer has ended.
#[derive(Debug, Clone, Copy)]
enum Ready<'i> {
    /// A line: borrowed from the input, or `None` when it is in `line`.
    Line(Option<&'i [u8]>),
    /// A too-long line: its prefix borrowed from the input, or `None` when
    /// it is in `line`; and its length.
    TooLong(Option<&'i [u8]>, usize),
}

/// A sans-IO NDJSON line framer.
///
/// Feed it byte chunks as they arrive with [`feed`](Self::feed), pull the
/// lines it produces, and call [`finish`](Self::finish) at the end of the
/// stream. See the [module docs](self) for the rules it follows.
#[derive(Debug, Clone)]
pub struct NdjsonFramer {
    /// Maximum line length in bytes.
    max: usize,
    /// Line-level state.
    phase: Phase,
    /// Bytes of the current partial line seen so far (may exceed `max`).
    line_len: usize,
    /// Whether the last byte seen of the partial line is a CR.
    last_cr: bool,
    /// The first `min(line_len, max + 1)` bytes of the current partial line
    /// (one more than `max` so that a CR right after `max` bytes can still
    /// be trimmed).
    line: Vec<u8>,
    /// The last item borrowed `line`: clear it on the next call.
    clear_line: bool,
}

impl Default for NdjsonFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl NdjsonFramer {
    /// A framer with the [`DEFAULT_MAX_LINE`] limit.
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_line(DEFAULT_MAX_LINE)
    }

    /// A framer that reports lines longer than `max` bytes (LF and trimmed
    /// CR not counted) as [`NdjsonItem::LineTooLong`]. With `max == 0` every
    /// non-empty line is too long.
    #[must_use]
    pub fn with_max_line(max: usize) -> Self {
        Self {
            max,
            phase: Phase::Bom(0),
            line_len: 0,
            last_cr: false,
            line: Vec::new(),
            clear_line: false,
        }
    }

    /// Consume bytes from the front of `*input` until one item is ready,
    /// advance `*input` past what was consumed, and return the item.
    ///
    /// Returns `None` when `*input` is exhausted with no item ready (the
    /// partial line is kept inside). Call in a loop:
    /// `while let Some(item) = framer.feed(&mut rest) { .. }`.
    pub fn feed<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Option<NdjsonItem<'s>> {
        let ready = self.advance(input)?;
        Some(self.item(ready))
    }

    /// End of input: return the last line if it had no LF (unless it is
    /// blank). Call in a loop until `None`.
    ///
    /// Once it has returned `None` the framer is back in its initial state
    /// (BOM stripping re-armed) and can be reused for a new stream.
    pub fn finish(&mut self) -> Option<NdjsonItem<'_>> {
        let ready = self.finish_ready()?;
        Some(self.item(ready))
    }

    /// Bytes currently retained (partial line, held-back BOM bytes), for
    /// memory-bound checks.
    #[must_use]
    pub fn buffered(&self) -> usize {
        let held = match self.phase {
            Phase::Bom(n) => usize::from(n),
            _ => 0,
        };
        self.line.len().saturating_add(held)
    }

    /// Turn a [`Ready`] into the item handed out, borrowing the buffer.
    fn item<'a>(&'a self, ready: Ready<'a>) -> NdjsonItem<'a> {
        match ready {
            Ready::Line(line) => NdjsonItem::Line(line.unwrap_or(&self.line)),
            Ready::TooLong(prefix, len) => NdjsonItem::LineTooLong {
                prefix: prefix.unwrap_or(&self.line),
                len,
            },
        }
    }

    /// Clear the buffer that the previously returned item borrowed.
    fn cleanup(&mut self) {
        if self.clear_line {
            self.clear_line = false;
            self.line.clear();
        }
    }

    /// The body of `feed`, without borrowing the framer in the result.
    fn advance<'i>(&mut self, input: &mut &'i [u8]) -> Option<Ready<'i>> {
        self.cleanup();
        if !self.enter(input) {
            return None;
        }
        loop {
            let buf = *input;
            let Some((line, after)) = memchr(b'\n', buf)
                .and_then(|pos| buf.split_at_checked(pos))
                .and_then(|(line, rest)| Some((line, rest.get(1..)?)))
            else {
                if !buf.is_empty() {
                    self.append_partial(buf);
                    self.phase = Phase::Partial;
                }
                *input = &[];
                return None;
            };
            *input = after;
            let ready = if self.phase == Phase::Partial {
                self.phase = Phase::LineStart;
                self.append_partial(line);
                self.end_buffered_line()
            } else {
                self.end_input_line(line)
            };
            if ready.is_some() {
                return ready;
            }
        }
    }

    /// Resolve the `Bom` state against the front of `input`. Returns `false`
    /// when `input` ran out before it was resolved.
    fn enter(&mut self, input: &mut &[u8]) -> bool {
        while let Phase::Bom(n) = self.phase {
            let Some((&byte, rest)) = input.split_first() else {
                return false;
            };
            let held = usize::from(n);
            if BOM.get(held) == Some(&byte) {
                *input = rest;
                self.phase = if held + 1 >= BOM.len() {
                    Phase::LineStart
                } else {
                    Phase::Bom(n.saturating_add(1))
                };
            } else if held == 0 {
                self.phase = Phase::LineStart;
            } else {
                // Not a BOM after all: the held bytes start a line.
                self.append_partial(BOM.get(..held).unwrap_or(&[]));
                self.phase = Phase::Partial;
            }
        }
        true
    }

    /// Add bytes to the partial line, keeping at most `max + 1` of them.
    fn append_partial(&mut self, bytes: &[u8]) {
        let Some(&last) = bytes.last() else {
            return;
        };
        let room = self.max.saturating_add(1).saturating_sub(self.line.len());
        self.line
            .extend_from_slice(bytes.get(..room).unwrap_or(bytes));
        self.line_len = self.line_len.saturating_add(bytes.len());
        self.last_cr = last == b'\r';
    }

    /// A line that lies whole in the input (no partial line before it).
    fn end_input_line<'i>(&mut self, line: &'i [u8]) -> Option<Ready<'i>> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() > self.max {
            let prefix = line.get(..self.max).unwrap_or(line);
            return Some(Ready::TooLong(Some(prefix), line.len()));
        }
        if is_blank(line) {
            return None;
        }
        Some(Ready::Line(Some(line)))
    }

    /// The partial line in `line` has ended.
    fn end_buffered_line<'i>(&mut self) -> Option<Ready<'i>> {
        let len =
            std::mem::replace(&mut self.line_len, 0).saturating_sub(usize::from(self.last_cr));
        self.last_cr = false;
        // Drop the trimmed CR, or the extra byte kept beyond `max`.
        self.line.truncate(len.min(self.max));
        if len > self.max {
            self.clear_line = true;
            return Some(Ready::TooLong(None, len));
        }
        if is_blank(&self.line) {
            self.line.clear();
            return None;
        }
        self.clear_line = true;
        Some(Ready::Line(None))
    }

    /// The body of `finish`.
    fn finish_ready(&mut self) -> Option<Ready<'static>> {
        self.cleanup();
        if let Phase::Bom(n @ 1..) = self.phase {
            self.append_partial(BOM.get(..usize::from(n)).unwrap_or(&[]));
            self.phase = Phase::Partial;
        }
        if self.phase == Phase::Partial {
            self.phase = Phase::LineStart;
            if let Some(ready) = self.end_buffered_line() {
                return Some(ready);
            }
        }
        // Everything drained: ready for a new stream.
        self.phase = Phase::Bom(0);
        None
    }
}

/// Whether a line is empty or only ASCII whitespace.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An owned copy of an [`NdjsonItem`].
    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Item {
        Line(Vec<u8>),
        TooLong(Vec<u8>, usize),
    }

    fn own(item: NdjsonItem<'_>) -> Item {
        match item {
            NdjsonItem::Line(line) => Item::Line(line.to_vec()),
            NdjsonItem::LineTooLong { prefix, len } => Item::TooLong(prefix.to_vec(), len),
        }
    }

    fn line(bytes: &[u8]) -> Item {
        Item::Line(bytes.to_vec())
    }

    fn run_with(framer: &mut NdjsonFramer, chunks: &[&[u8]]) -> Vec<Item> {
        let mut out = Vec::new();
        for chunk in chunks {
            let mut rest = *chunk;
            while let Some(item) = framer.feed(&mut rest) {
                out.push(own(item));
            }
            assert!(
                rest.is_empty(),
                "feed returned None before the input ran out"
            );
        }
        while let Some(item) = framer.finish() {
            out.push(own(item));
        }
        out
    }

    fn run_max(max: usize, chunks: &[&[u8]]) -> Vec<Item> {
        run_with(&mut NdjsonFramer::with_max_line(max), chunks)
    }

    fn run_bytes(max: usize, input: &[u8]) -> Vec<Item> {
        let chunks: Vec<&[u8]> = input.chunks(1).collect();
        run_max(max, &chunks)
    }

    /// The items are the same for the input whole, byte by byte, and split
    /// in two at every point; returns them.
    fn check_splits(max: usize, input: &[u8]) -> Vec<Item> {
        let whole = run_max(max, &[input]);
        assert_eq!(run_bytes(max, input), whole, "byte by byte");
        for i in 0..=input.len() {
            let (a, b) = input.split_at(i);
            assert_eq!(run_max(max, &[a, b]), whole, "split at {i}");
        }
        whole
    }

    #[test]
    fn lines_split_on_lf() {
        assert_eq!(
            check_splits(64, b"{\"a\":1}\n{\"b\":2}\n"),
            vec![line(b"{\"a\":1}"), line(b"{\"b\":2}")]
        );
    }

    #[test]
    fn crlf_trimmed_cr_alone_is_content() {
        assert_eq!(
            check_splits(64, b"a\r\nb\r\n"),
            vec![line(b"a"), line(b"b")]
        );
        // Only LF splits; a lone CR stays inside the line, one trailing CR
        // before LF is trimmed.
        assert_eq!(
            check_splits(64, b"a\rb\nc\r\r\n"),
            vec![line(b"a\rb"), line(b"c\r")]
        );
    }

    #[test]
    fn crlf_split_across_feeds() {
        assert_eq!(
            run_max(64, &[b"a\r", b"\nb\r", b"\n"]),
            vec![line(b"a"), line(b"b")]
        );
    }

    #[test]
    fn blank_lines_skipped() {
        assert_eq!(
            check_splits(64, b"\n\r\n  \t\n\x0C\na\n \r\n\n b \n"),
            vec![line(b"a"), line(b" b ")]
        );
    }

    #[test]
    fn bom_stripped_whole_and_split() {
        assert_eq!(check_splits(64, b"\xEF\xBB\xBF{}\n"), vec![line(b"{}")]);
        assert_eq!(check_splits(64, b"\xEF\xBB\xBF"), vec![]);
    }

    #[test]
    fn bom_mid_stream_kept() {
        assert_eq!(
            check_splits(64, b"{}\n\xEF\xBB\xBF{}\n"),
            vec![line(b"{}"), line(b"\xEF\xBB\xBF{}")]
        );
        assert_eq!(
            check_splits(64, b"\xEF\xBB\xBF\xEF\xBB\xBF1\n"),
            vec![line(b"\xEF\xBB\xBF1")]
        );
    }

    #[test]
    fn partial_bom_is_content() {
        assert_eq!(check_splits(64, b"\xEF\xBBx\n"), vec![line(b"\xEF\xBBx")]);
        assert_eq!(check_splits(64, b"\xEF"), vec![line(b"\xEF")]);
        assert_eq!(check_splits(64, b"\xEF\xBB"), vec![line(b"\xEF\xBB")]);
    }

    #[test]
    fn finish_returns_unterminated_line() {
        assert_eq!(check_splits(64, b"1\n2"), vec![line(b"1"), line(b"2")]);
        assert_eq!(check_splits(64, b"1\n2\r"), vec![line(b"1"), line(b"2")]);
        assert_eq!(check_splits(64, b"1\n   "), vec![line(b"1")]);
    }

    #[test]
    fn invalid_utf8_passes_through() {
        assert_eq!(check_splits(64, b"\xFF\xC3\n"), vec![line(b"\xFF\xC3")]);
    }

    #[test]
    fn max_line_one_item_then_recovery() {
        assert_eq!(
            check_splits(4, b"abcd\nabcdefgh\nxy\n"),
            vec![
                line(b"abcd"),
                Item::TooLong(b"abcd".to_vec(), 8),
                line(b"xy")
            ]
        );
        // A trimmed CR does not count toward the limit.
        assert_eq!(check_splits(4, b"abcd\r\n"), vec![line(b"abcd")]);
        assert_eq!(
            check_splits(4, b"abcde\r\n"),
            vec![Item::TooLong(b"abcd".to_vec(), 5)]
        );
        assert_eq!(check_splits(4, b"abc\r\r\n"), vec![line(b"abc\r")]);
        assert_eq!(
            check_splits(4, b"abcdefgh"),
            vec![Item::TooLong(b"abcd".to_vec(), 8)]
        );
        assert_eq!(
            check_splits(0, b"a\n\n"),
            vec![Item::TooLong(Vec::new(), 1)]
        );
    }

    #[test]
    fn max_line_memory_bounded() {
        let mut framer = NdjsonFramer::with_max_line(100);
        let chunk = [b'x'; 1000];
        for _ in 0..1000 {
            let mut rest = &chunk[..];
            assert!(framer.feed(&mut rest).is_none());
            assert!(framer.buffered() <= 101);
        }
        let mut rest: &[u8] = b"\n{}\n";
        assert_eq!(
            framer.feed(&mut rest).map(own),
            Some(Item::TooLong(vec![b'x'; 100], 1_000_000))
        );
        assert_eq!(framer.feed(&mut rest).map(own), Some(line(b"{}")));
        assert_eq!(framer.feed(&mut rest), None);
        assert_eq!(framer.finish(), None);
        assert_eq!(framer.buffered(), 0);
    }

    #[test]
    fn zero_copy_and_feed_stops_per_line() {
        let input: &[u8] = b"{}\n[]\n1";
        let mut framer = NdjsonFramer::new();
        let mut rest = input;
        match framer.feed(&mut rest) {
            Some(NdjsonItem::Line(l)) => assert!(std::ptr::eq(l.as_ptr(), input.as_ptr())),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(rest, b"[]\n1");
        assert_eq!(framer.feed(&mut rest).map(own), Some(line(b"[]")));
        assert_eq!(framer.feed(&mut rest), None);
        assert_eq!(framer.buffered(), 1);
        assert_eq!(framer.finish().map(own), Some(line(b"1")));
        assert_eq!(framer.finish(), None);
    }

    #[test]
    fn finish_resets_for_reuse() {
        let mut framer = NdjsonFramer::new();
        assert_eq!(
            run_with(&mut framer, &[b"1\n2"]),
            vec![line(b"1"), line(b"2")]
        );
        assert_eq!(
            run_with(&mut framer, &[b"\xEF", b"\xBB\xBF3\n"]),
            vec![line(b"3")]
        );
    }

    fn split_at_points<'a>(input: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for c in cuts {
            chunks.push(&input[start..c]);
            start = c;
        }
        chunks.push(&input[start..]);
        chunks
    }

    proptest! {
        #[test]
        fn prop_lines_roundtrip_any_split(
            lines in prop::collection::vec(prop::collection::vec(any::<u8>().prop_filter("no LF", |b| *b != b'\n'), 0..20), 0..10),
            crlf in prop::collection::vec(any::<bool>(), 10),
            bom in any::<bool>(),
            trailing_lf in any::<bool>(),
            cuts in prop::collection::vec(any::<usize>(), 0..10),
        ) {
            let mut bytes = Vec::new();
            if bom {
                bytes.extend_from_slice(&BOM);
            }
            let mut expected = Vec::new();
            for (i, l) in lines.iter().enumerate() {
                bytes.extend_from_slice(l);
                let last = i + 1 == lines.len();
                if !last || trailing_lf {
                    if crlf.get(i).copied().unwrap_or(false) {
                        bytes.push(b'\r');
                    }
                    bytes.push(b'\n');
                }
                // What the framer must make of it: one trailing CR trimmed
                // (a CR at the very end of the stream counts too), blank
                // lines skipped.
                let content = l.strip_suffix(b"\r").filter(|_| {
                    !(crlf.get(i).copied().unwrap_or(false) && (!last || trailing_lf))
                }).unwrap_or(l);
                if !content.iter().all(u8::is_ascii_whitespace) {
                    expected.push(Item::Line(content.to_vec()));
                }
            }
            let whole = run_max(DEFAULT_MAX_LINE, &[&bytes]);
            prop_assert_eq!(&whole, &expected);
            prop_assert_eq!(run_max(DEFAULT_MAX_LINE, &split_at_points(&bytes, &cuts)), expected);
        }

        #[test]
        fn prop_arbitrary_bytes_split_invariant(
            bytes in prop::collection::vec(
                prop::sample::select(vec![b'\n', b'\r', b' ', b'x', 0xEF, 0xBB, 0xBF]),
                0..64,
            ),
            max in 0usize..10,
            cuts in prop::collection::vec(any::<usize>(), 0..10),
        ) {
            let whole = run_max(max, &[&bytes]);
            prop_assert_eq!(run_max(max, &split_at_points(&bytes, &cuts)), whole.clone());
            prop_assert_eq!(run_bytes(max, &bytes), whole);
        }
    }
}
