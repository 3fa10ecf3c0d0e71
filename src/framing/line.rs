//! The line reader that the SSE and NDJSON framers share: what a line is, a BOM at the
//! start of the stream, a line split over chunks assembled in a bounded buffer, a line
//! that lies whole in the chunk handed out borrowed (no copy), too-long lines reported
//! once at their end.
//!
//! ```text
//!            BOM byte matched (fewer than 3 so far)
//!             +-----+
//!             v     |
//!        +-------------+  3rd BOM byte: dropped     +-----------+
//! start->|   Bom(n)    |--------------------------->| LineStart |<--+
//!        +-------------+  other byte: held BOM      +-----------+   |
//!                         bytes start the line        |       ^     | line end
//!                              |          chunk ends  |       |     |
//!                              v          in a line   v       |     |
//!                        +-------------------------------+    |     |
//!                        |    Partial (line buffer)      |----+-----+
//!                        +-------------------------------+    |
//!                          CR as the last byte of a chunk     | next byte: an LF
//!                          (`Ends::Any`) ----> AfterCr -------+ is skipped (CRLF split)
//! ```
//!
//! `finish` hands out the unterminated last line and then re-arms BOM stripping, so a
//! reader can be reused for the next stream.

use memchr::{memchr, memchr2};

/// The UTF-8 byte order mark.
pub(crate) const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// What ends a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ends {
    /// LF; one CR right before it is trimmed (NDJSON, CRLF files).
    Lf,
    /// LF, CR or CRLF, also with the CR and the LF in different chunks (SSE).
    Any,
}

/// One complete line (without its terminator).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line<'i> {
    /// The line lay whole in the input.
    Input(&'i [u8]),
    /// The line was assembled from several chunks: [`LineReader::take_buffered`] has it
    /// (and [`LineReader::line`] until the next call).
    Buffered,
    /// The line is longer than the limit: its first `max` bytes (borrowed from the input,
    /// or in [`LineReader::line`] when `None`) and its full length.
    TooLong(Option<&'i [u8]>, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// At the stream start; `n` bytes of a BOM matched so far (held back).
    Bom(u8),
    /// At the start of a line, nothing buffered.
    LineStart,
    /// The previous line ended with a CR that was the last byte of its chunk: an LF at
    /// the start of the next chunk belongs to it (`Ends::Any` only).
    AfterCr,
    /// Inside a line whose first bytes are in `line` (`line_len` counted).
    Partial,
}

/// Splits a byte stream into lines (`ANY`: [`Ends::Any`], else [`Ends::Lf`]; a const
/// parameter so each framer gets its own branch-free copy). Memory: at most `max + 1` bytes of a partial line
/// and 2 bytes of a BOM.
#[derive(Debug, Clone)]
pub(crate) struct LineReader<const ANY: bool> {
    /// Maximum line length in bytes (terminator and trimmed CR not counted).
    max: usize,
    phase: Phase,
    /// Bytes of the current partial line seen so far (may exceed `max`).
    line_len: usize,
    /// Whether the last byte of the partial line so far is a CR (`Ends::Lf`: it is
    /// trimmed if an LF follows).
    last_cr: bool,
    /// The first bytes of the partial line: `max`, plus one with `Ends::Lf` so that a CR
    /// right after `max` bytes can still be trimmed.
    line: Vec<u8>,
    /// The last line handed out is in `line`: clear it on the next call.
    clear: bool,
}

impl<const ANY: bool> LineReader<ANY> {
    /// The line ends this reader splits at.
    const ENDS: Ends = if ANY { Ends::Any } else { Ends::Lf };

    pub(crate) fn new(max: usize) -> Self {
        LineReader {
            max,
            phase: Phase::Bom(0),
            line_len: 0,
            last_cr: false,
            line: Vec::new(),
            clear: false,
        }
    }

    /// Bytes retained: the partial line and held-back BOM bytes.
    pub(crate) fn buffered(&self) -> usize {
        let held = match self.phase {
            Phase::Bom(n) => usize::from(n),
            _ => 0,
        };
        self.line.len().saturating_add(held)
    }

    /// The buffered line last handed out ([`Line::Buffered`], `Line::TooLong(None, _)`).
    #[inline]
    pub(crate) fn line(&self) -> &[u8] {
        &self.line
    }

    /// Moves the buffered line out (to read it while mutating the caller); hand the
    /// buffer back with [`give_back`](Self::give_back) to keep its capacity.
    pub(crate) fn take_buffered(&mut self) -> Vec<u8> {
        self.clear = false;
        std::mem::take(&mut self.line)
    }

    /// Returns the buffer taken by [`take_buffered`](Self::take_buffered), emptied.
    pub(crate) fn give_back(&mut self, mut line: Vec<u8>) {
        line.clear();
        self.line = line;
    }

    /// The next complete line from the front of `*input` (advanced past it), or `None`
    /// when the input ran out inside a line (kept).
    #[inline(always)]
    pub(crate) fn next<'i>(&mut self, input: &mut &'i [u8]) -> Option<Line<'i>> {
        if self.clear {
            self.clear = false;
            self.line.clear();
        }
        if !self.enter(input) {
            return None;
        }
        let buf = *input;
        let Some((line, after, dangling_cr)) = self.split(buf) else {
            if !buf.is_empty() {
                self.append_partial(buf);
                self.phase = Phase::Partial;
            }
            *input = &[];
            return None;
        };
        *input = after;
        let was_partial = self.phase == Phase::Partial;
        self.phase = if dangling_cr {
            Phase::AfterCr
        } else {
            Phase::LineStart
        };
        if was_partial {
            self.append_partial(line);
            return Some(self.end_buffered());
        }
        let line = match Self::ENDS {
            Ends::Lf => line.strip_suffix(b"\r").unwrap_or(line),
            Ends::Any => line,
        };
        if line.len() > self.max {
            // invariant: `line` is longer than `max`.
            #[allow(clippy::indexing_slicing)]
            return Some(Line::TooLong(Some(&line[..self.max]), line.len()));
        }
        Some(Line::Input(line))
    }

    /// End of input: the unterminated last line, once; then `None`, with the reader back
    /// in its initial state.
    pub(crate) fn finish(&mut self) -> Option<Line<'static>> {
        if self.clear {
            self.clear = false;
            self.line.clear();
        }
        if let Phase::Bom(n @ 1..) = self.phase {
            self.append_partial(BOM.get(..usize::from(n)).unwrap_or(&[]));
            self.phase = Phase::Partial;
        }
        if self.phase == Phase::Partial {
            self.phase = Phase::LineStart;
            return Some(self.end_buffered());
        }
        self.phase = Phase::Bom(0);
        None
    }

    /// Splits `buf` at its first line end: the line, the bytes after its terminator, and
    /// whether the terminator is a CR that is the last byte of `buf`.
    #[inline(always)]
    fn split<'b>(&self, buf: &'b [u8]) -> Option<(&'b [u8], &'b [u8], bool)> {
        let pos = match Self::ENDS {
            Ends::Lf => memchr(b'\n', buf)?,
            Ends::Any => memchr2(b'\n', b'\r', buf)?,
        };
        let (line, rest) = buf.split_at_checked(pos)?;
        let (&terminator, mut after) = rest.split_first()?;
        let mut dangling_cr = false;
        if terminator == b'\r' {
            match after.split_first() {
                Some((&b'\n', tail)) => after = tail,
                Some(_) => {}
                None => dangling_cr = true,
            }
        }
        Some((line, after, dangling_cr))
    }

    /// Resolves the `Bom` and `AfterCr` states against the front of `input`; `false`
    /// when the input ran out first.
    #[inline]
    fn enter(&mut self, input: &mut &[u8]) -> bool {
        loop {
            match self.phase {
                Phase::Bom(n) => {
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
                Phase::AfterCr => {
                    let Some((&byte, rest)) = input.split_first() else {
                        return false;
                    };
                    if byte == b'\n' {
                        *input = rest;
                    }
                    self.phase = Phase::LineStart;
                }
                Phase::LineStart | Phase::Partial => return true,
            }
        }
    }

    /// Adds bytes to the partial line, keeping its first `max` (+1 with `Ends::Lf`).
    fn append_partial(&mut self, bytes: &[u8]) {
        let Some(&last) = bytes.last() else {
            return;
        };
        let keep = self.max.saturating_add(usize::from(Self::ENDS == Ends::Lf));
        let room = keep.saturating_sub(self.line.len());
        self.line
            .extend_from_slice(bytes.get(..room).unwrap_or(bytes));
        self.line_len = self.line_len.saturating_add(bytes.len());
        self.last_cr = Self::ENDS == Ends::Lf && last == b'\r';
    }

    /// The partial line in `line` has ended.
    fn end_buffered(&mut self) -> Line<'static> {
        let len =
            std::mem::replace(&mut self.line_len, 0).saturating_sub(usize::from(self.last_cr));
        self.last_cr = false;
        // Drop the trimmed CR, or the extra byte kept beyond `max`.
        self.line.truncate(len.min(self.max));
        self.clear = true;
        if len > self.max {
            Line::TooLong(None, len)
        } else {
            Line::Buffered
        }
    }
}
