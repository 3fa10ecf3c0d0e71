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

use crate::framing::line::{Line, LineReader};
use crate::framing::sse::DEFAULT_MAX_LINE;

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

/// A sans-IO NDJSON line framer: the shared line reader (LF-terminated lines, one CR
/// trimmed, BOM, bounded buffer) with blank lines skipped.
///
/// Feed it byte chunks as they arrive with [`feed`](Self::feed), pull the
/// lines it produces, and call [`finish`](Self::finish) at the end of the
/// stream. See the [module docs](self) for the rules it follows.
#[derive(Debug, Clone)]
pub struct NdjsonFramer {
    lines: LineReader<false>,
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
            lines: LineReader::new(max),
        }
    }

    /// Consume bytes from the front of `*input` until one item is ready,
    /// advance `*input` past what was consumed, and return the item.
    ///
    /// Returns `None` when `*input` is exhausted with no item ready (the
    /// partial line is kept inside). Call in a loop:
    /// `while let Some(item) = framer.feed(&mut rest) { .. }`.
    pub fn feed<'s, 'i: 's>(&'s mut self, input: &mut &'i [u8]) -> Option<NdjsonItem<'s>> {
        loop {
            let line = self.lines.next(input)?;
            if !self.is_blank(line) {
                return Some(self.item(line));
            }
        }
    }

    /// End of input: return the last line if it had no LF (unless it is
    /// blank). Call in a loop until `None`.
    ///
    /// Once it has returned `None` the framer is back in its initial state
    /// (BOM stripping re-armed) and can be reused for a new stream.
    pub fn finish(&mut self) -> Option<NdjsonItem<'_>> {
        loop {
            let line = self.lines.finish()?;
            if !self.is_blank(line) {
                return Some(self.item(line));
            }
        }
    }

    /// Bytes currently retained (partial line, held-back BOM bytes), for
    /// memory-bound checks.
    #[must_use]
    pub fn buffered(&self) -> usize {
        self.lines.buffered()
    }

    /// A blank line (empty or only ASCII whitespace) is skipped; a too-long one is not.
    fn is_blank(&self, line: Line<'_>) -> bool {
        match line {
            Line::Input(l) => is_blank(l),
            Line::Buffered => is_blank(self.lines.line()),
            Line::TooLong(..) => false,
        }
    }

    /// Turn a line into the item handed out, borrowing the buffer.
    fn item<'a>(&'a self, line: Line<'a>) -> NdjsonItem<'a> {
        match line {
            Line::Input(l) => NdjsonItem::Line(l),
            Line::Buffered => NdjsonItem::Line(self.lines.line()),
            Line::TooLong(prefix, len) => NdjsonItem::LineTooLong {
                prefix: prefix.unwrap_or(self.lines.line()),
                len,
            },
        }
    }
}

/// Whether a line is empty or only ASCII whitespace.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::line::BOM;
    use crate::framing::testing::{self, Pull, bytewise, run_with, split_at_points};
    use proptest::prelude::*;

    /// An owned copy of an [`NdjsonItem`].
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub(crate) enum Item {
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

    impl Pull for NdjsonFramer {
        type Owned = Item;
        fn feed_owned(&mut self, input: &mut &[u8]) -> Option<Item> {
            self.feed(input).map(own)
        }
        fn finish_owned(&mut self) -> Option<Item> {
            self.finish().map(own)
        }
    }

    fn run_max(max: usize, chunks: &[&[u8]]) -> Vec<Item> {
        run_with(&mut NdjsonFramer::with_max_line(max), chunks)
    }

    fn run_bytes(max: usize, input: &[u8]) -> Vec<Item> {
        run_max(max, &bytewise(input))
    }

    /// The items are the same for the input whole, byte by byte, and split
    /// in two at every point; returns them.
    fn check_splits(max: usize, input: &[u8]) -> Vec<Item> {
        testing::check_splits(input, |chunks| run_max(max, chunks))
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
