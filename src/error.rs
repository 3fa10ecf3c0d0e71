//! Errors returned by [`Parser`](crate::Parser) methods.
//!
//! Bad *input* never produces an `Err`: it becomes an [`Event::Error`](crate::Event::Error)
//! in the event stream, and parsing goes on. An `Err` means the parser was misused.

use std::fmt;

/// A misuse of the parser, with the byte offset (input bytes fed so far) where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ParseErrorKind,
    offset: u64,
}

/// What kind of misuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// `feed` or `finish` was called after `finish`.
    Finished,
}

impl Error {
    pub(crate) fn new(kind: ParseErrorKind, offset: u64) -> Self {
        Error { kind, offset }
    }

    /// What went wrong.
    pub fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// Input bytes fed before the error.
    pub fn offset(&self) -> u64 {
        self.offset
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ParseErrorKind::Finished => write!(
                f,
                "the parser was already finished (at byte {}); create a new one per response",
                self.offset
            ),
        }
    }
}

impl std::error::Error for Error {}
