//! Checks on a call's argument text as it streams: the runaway guard
//! ([`repeat`], `ParserConfig::max_repeats`) and JSON-Schema validation
//! ([`schema`], `ParserConfig::validate_arguments`). The call table feeds each call's
//! argument text through its [`Check`] before emitting it; the first byte a check
//! refuses ends the call with an error.

pub(crate) mod repeat;
pub(crate) mod schema;

use crate::event::ErrorKind;
use std::sync::Arc;

/// Why a call's argument text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// Bytes of argument text before the offending character.
    pub(crate) offset: usize,
    /// Byte length of the offending character.
    pub(crate) len: usize,
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
    /// JSON Pointer of the offending value (schema violations).
    pub(crate) path: Option<String>,
}

/// The checks of one call.
#[derive(Debug)]
pub(crate) struct Check {
    repeats: Option<repeat::Repeats>,
    schema: Option<schema::Validator>,
    /// Argument bytes fed.
    fed: usize,
    /// What was refused, until the call table takes it.
    violation: Option<Violation>,
}

impl Check {
    /// The checks configured (`None`: nothing to check): the runaway guard (`max_repeats`
    /// 0: off) and the tool's compiled schema.
    pub(crate) fn new(
        max_repeats: usize,
        schema: Option<Arc<schema::Compiled>>,
    ) -> Option<Box<Check>> {
        if max_repeats == 0 && schema.is_none() {
            return None;
        }
        Some(Box::new(Check {
            repeats: (max_repeats > 0).then(|| repeat::Repeats::new(max_repeats)),
            schema: schema.map(schema::Validator::new),
            fed: 0,
            violation: None,
        }))
    }

    /// Feeds more argument text; the length of the prefix of `delta` that passes (all of
    /// it: `delta.len()`); when shorter, the violation is kept ([`take`](Self::take)).
    pub(crate) fn feed(&mut self, delta: &str) -> usize {
        if self.violation.is_some() {
            return 0;
        }
        let mut first: Option<(usize, Violation)> = None;
        if let Some(r) = &mut self.repeats
            && let Some((at, p)) = r.feed(delta.as_bytes())
        {
            let start = char_start(delta, at);
            let unit = String::from_utf8_lossy(&r.last(p)).into_owned();
            first = Some((
                start,
                Violation {
                    offset: self.fed + start,
                    len: char_len(delta, start),
                    kind: ErrorKind::Repetition,
                    message: format!(
                        "argument text repeats a {p}-byte period ({unit:?}) more than max_repeats times in a row"
                    ),
                    path: None,
                },
            ));
        }
        if let Some(s) = &mut self.schema {
            let upto = first.as_ref().map_or(delta.len(), |(start, _)| *start + 1);
            if let Some((at, message, path)) =
                s.feed(delta.as_bytes().get(..upto).unwrap_or_default())
            {
                let start = char_start(delta, at);
                if first.as_ref().is_none_or(|(f, _)| start <= *f) {
                    first = Some((
                        start,
                        Violation {
                            offset: self.fed + start,
                            len: char_len(delta, start),
                            kind: ErrorKind::SchemaViolation,
                            message,
                            path: Some(path),
                        },
                    ));
                }
            }
        }
        match first {
            Some((start, v)) => {
                self.fed += start;
                self.violation = Some(v);
                start
            }
            None => {
                self.fed += delta.len();
                delta.len()
            }
        }
    }

    /// The value closed: the checks that need its end (a top-level number's). `true`
    /// when they refuse it (the violation is kept, [`take`](Self::take)).
    pub(crate) fn finish(&mut self) -> bool {
        if self.violation.is_some() {
            return true;
        }
        if let Some((message, path)) = self.schema.as_mut().and_then(schema::Validator::finish) {
            self.violation = Some(Violation {
                offset: self.fed,
                len: 0,
                kind: ErrorKind::SchemaViolation,
                message,
                path: Some(path),
            });
            return true;
        }
        false
    }

    /// The violation found, once.
    pub(crate) fn take(&mut self) -> Option<Violation> {
        self.violation.take()
    }
}

/// The start of the character holding byte `at` of `s`.
fn char_start(s: &str, mut at: usize) -> usize {
    while at > 0 && !s.is_char_boundary(at) {
        at -= 1;
    }
    at.min(s.len())
}

/// The byte length of the character starting at `at` (1 past the end).
fn char_len(s: &str, at: usize) -> usize {
    s.get(at..)
        .and_then(|r| r.chars().next())
        .map_or(1, char::len_utf8)
}
