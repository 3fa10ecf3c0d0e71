//! Incremental JSON structure scanner.
//!
//! Follows one JSON value across any number of [`JsonScanner::feed`] calls, looking at
//! each byte once, and says the exact byte where the top-level value closes. It checks
//! the grammar between tokens (so "complete" means structurally closed), and skips over
//! string contents eight bytes at a time; it does not build values. A string JSON forbids
//! fails at the byte that shows it, as the grammar does: a raw control character (at that
//! character) and a lone surrogate escape (a low half at its last hex digit, a high half
//! at the first byte after it that does not begin `\u` + a low half). Every dialect uses it to
//! know when a call's arguments are complete, and the JSON-array framer uses it to cut
//! elements out of a streamed array.
//!
//! ```
//! use toolstream::scan::json::{JsonScanner, JsonStatus};
//! let mut s = JsonScanner::new();
//! assert_eq!(s.feed(br#"{"a": [1, "x}"#), JsonStatus::NeedMore);
//! assert_eq!(s.feed(br#""]} tail"#), JsonStatus::Complete { consumed: 3 });
//! ```

use std::fmt::Write as _;

/// Default maximum nesting depth (the same as `serde_json`'s recursion limit).
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// What [`JsonScanner::feed`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonStatus {
    /// All input consumed; the value is still open (or not started).
    NeedMore,
    /// The top-level value closed. `consumed` bytes of this input belong to it; the rest
    /// of the input was not looked at.
    Complete {
        /// Bytes of this feed's input that belong to the value.
        consumed: usize,
    },
    /// The input is not JSON. `at` is the offset of the offending byte in this input.
    Invalid {
        /// Offset of the offending byte in this feed's input.
        at: usize,
        /// Why.
        error: JsonError,
    },
}

/// Why a value was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonError {
    /// A byte that the JSON grammar does not allow here.
    Syntax,
    /// Nesting deeper than the configured maximum.
    TooDeep,
}

// State machine, one state per position in the grammar:
//
//   Value ──'{'──> KeyOrEnd ──'"'──> String(key) ──'"'──> Colon ──':'──> Value
//     │  ──'['──> ValueOrEnd ──(value)──────────────────────────────────> After
//     │  ──'"'──> String ──'\\'──> Escape ──'u'──> Unicode(n) ──> String
//     │                      (a high surrogate: ──> Pair ──'\\' 'u'──> Unicode(low) ──> String)
//     │  ──'-'/digit──> Number(..) ──(delimiter)──> After
//     │  ──'t'/'f'/'n'──> Literal(..) ──> After
//   After ──','──> Key (in object) | Value (in array);  ──'}'/']'──> After | Done
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Expecting a value (leading whitespace allowed).
    Value,
    /// Just after `[`: a value or `]`.
    ValueOrEnd,
    /// Just after `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// Inside a string.
    Str { key: bool },
    /// After a backslash in a string.
    Escape { key: bool },
    /// Inside `\uXXXX`, with `n` hex digits seen (their value in
    /// [`JsonScanner::escape`]).
    Unicode { key: bool, n: u8 },
    /// After a high surrogate escape: its low half's `\` (`u`: its `u`) must follow.
    Pair { key: bool, u: bool },
    /// Inside a number.
    Num(Num),
    /// Inside `true` / `false` / `null`: the literal and how many bytes matched.
    Lit { word: &'static [u8], pos: u8 },
    /// After a value inside a container: `,` or the closer.
    After,
    /// The top-level value closed.
    Done,
    /// Rejected.
    Failed,
}

/// Where a number is in its grammar (`-`? `0` | `1-9` digits*, then `.` digits, then
/// `e`/`E` sign? digits); shared with the field scanner (`scan::fields`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Num {
    /// After the leading `-`.
    Minus,
    /// After a leading `0`.
    Zero,
    /// In the integer digits.
    Int,
    /// After the `.`.
    Dot,
    /// In the fraction digits.
    Frac,
    /// After the `e` / `E`.
    E,
    /// After the exponent's sign.
    ESign,
    /// In the exponent digits.
    Exp,
}

/// [`Num::next`] written out: the state after byte `$b` in state `$n`. `JsonScanner::feed`
/// uses the macro, not the method: with the method call in its loop, LLVM allocates the
/// loop's registers worse (callgrind, hermes 64 KB argument in 4-byte feeds: +0.24% Ir).
macro_rules! num_next {
    ($n:expr, $b:expr) => {
        match ($n, $b) {
            (Num::Minus, b'0') => Some(Num::Zero),
            (Num::Minus, b'1'..=b'9') => Some(Num::Int),
            (Num::Int, b'0'..=b'9') => Some(Num::Int),
            (Num::Zero | Num::Int, b'.') => Some(Num::Dot),
            (Num::Dot | Num::Frac, b'0'..=b'9') => Some(Num::Frac),
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Some(Num::E),
            (Num::E, b'+' | b'-') => Some(Num::ESign),
            (Num::E | Num::ESign | Num::Exp, b'0'..=b'9') => Some(Num::Exp),
            _ => None,
        }
    };
}

impl Num {
    /// Whether a number may end here.
    pub(crate) fn terminal(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::Exp)
    }

    /// The state after byte `b`; `None` when `b` does not continue the number.
    #[inline]
    pub(crate) fn next(self, b: u8) -> Option<Num> {
        num_next!(self, b)
    }
}

/// Follows one JSON value incrementally. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct JsonScanner {
    state: State,
    /// The value of the `\uXXXX` escape being read (out of [`State`], which stays two
    /// bytes: the hot loops compare and copy it).
    escape: u16,
    /// That escape must be a low surrogate (it follows a high one).
    low: bool,
    /// Open containers: `true` for an object, `false` for an array.
    stack: Vec<bool>,
    max_depth: usize,
}

impl Default for JsonScanner {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl JsonScanner {
    /// A scanner expecting one value, with the default depth limit.
    pub fn new() -> Self {
        Self::with_max_depth(DEFAULT_MAX_DEPTH)
    }

    /// A scanner with a nesting limit.
    pub fn with_max_depth(max_depth: usize) -> Self {
        JsonScanner {
            state: State::Value,
            escape: 0,
            low: false,
            stack: Vec::new(),
            max_depth,
        }
    }

    /// Starts over for a new value, keeping the allocation.
    pub fn reset(&mut self) {
        self.state = State::Value;
        self.stack.clear();
    }

    /// Whether no value byte has been seen yet (only whitespace, or nothing).
    pub fn is_empty(&self) -> bool {
        self.state == State::Value && self.stack.is_empty()
    }

    /// Whether the top-level value has closed.
    pub fn is_complete(&self) -> bool {
        self.state == State::Done
    }

    /// Whether the scanner is inside a string (a key or a value, an escape included).
    pub(crate) fn in_string(&self) -> bool {
        matches!(
            self.state,
            State::Str { .. } | State::Escape { .. } | State::Unicode { .. } | State::Pair { .. }
        )
    }

    /// Whether the scanner is in a string's plain content (not after a backslash).
    #[inline]
    pub(crate) fn in_plain_string(&self) -> bool {
        matches!(self.state, State::Str { .. })
    }

    /// Whether the input was rejected.
    pub fn is_failed(&self) -> bool {
        self.state == State::Failed
    }

    /// If all of `input` is more of the string the scanner is in (no `"` in it, its
    /// escapes valid or cut at the end), consumes it and returns `true`: exactly what
    /// [`feed`](Self::feed) would do, answering `NeedMore`. Otherwise returns `false` and
    /// changes nothing. The text scanners' hot loops use it to hand a run of argument
    /// bytes on without a call into the state machine.
    #[inline]
    pub fn string_run(&mut self, input: &[u8]) -> bool {
        use crate::scan::find::{SHORT, StopByte};
        match self.state {
            State::Str { .. } => {
                let plain = if input.len() < SHORT {
                    StopByte::NONE.all_content(input)
                } else {
                    !crate::scan::find::has_json_special(input)
                };
                if plain {
                    return true;
                }
            }
            State::Escape { .. } => {}
            _ => return false,
        }
        self.escaped_run(input, StopByte::NONE)
    }

    /// [`string_run`](Self::string_run) for a scanner fed with
    /// [`feed_stop`](Self::feed_stop): `false` too when `input` holds a stop byte where a
    /// token may begin (one whose next byte is in `input` and continues no token, `<b`,
    /// is string content and stays on this path).
    #[inline(always)]
    pub(crate) fn string_run_stop(
        &mut self,
        input: &[u8],
        stop: crate::scan::find::StopByte,
    ) -> bool {
        match self.state {
            State::Str { .. } => {
                let plain = if input.len() < crate::scan::find::SHORT {
                    stop.all_content(input)
                } else {
                    crate::scan::find::find_string_end_stop(stop, input).is_none()
                };
                if plain {
                    return true;
                }
            }
            State::Escape { .. } => {}
            _ => return false,
        }
        self.escaped_run(input, stop)
    }

    /// [`string_run_stop`](Self::string_run_stop) over input with escapes or stop bytes,
    /// in one pass: one-byte escapes (`\u` goes the long way) and stop bytes that begin
    /// no token are taken, the state set as [`feed`](Self::feed) would leave it.
    #[inline(never)]
    fn escaped_run(&mut self, input: &[u8], stop: crate::scan::find::StopByte) -> bool {
        use crate::scan::find::{CONTENT, END};
        let (key, mut esc) = match self.state {
            State::Str { key } => (key, false),
            State::Escape { key } => (key, true),
            _ => return false,
        };
        for (i, &b) in input.iter().enumerate() {
            if esc {
                if !matches!(b, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') {
                    return false;
                }
                esc = false;
                continue;
            }
            match stop.class_of(b) {
                CONTENT => {}
                END if b == b'\\' => esc = true,
                END => return false,
                _ => {
                    if stop.may_begin(input.get(i + 1)) {
                        return false;
                    }
                }
            }
        }
        self.state = if esc {
            State::Escape { key }
        } else {
            State::Str { key }
        };
        true
    }

    /// Current nesting depth.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// End of input: a top-level number closes here (`12` is only known to be complete
    /// when something follows it or the input ends). Returns whether the value is complete.
    pub fn finish(&mut self) -> bool {
        if let State::Num(n) = self.state
            && self.stack.is_empty()
            && n.terminal()
        {
            self.state = State::Done;
        }
        self.state == State::Done
    }

    /// One byte of a `\uXXXX` escape (`Unicode`) or of the `\u` that must follow a high
    /// surrogate (`Pair`); `false` when it is not valid there. Out of line: escapes are
    /// rare, and `feed`'s loop stays as small as it was without them.
    #[inline(never)]
    fn escape_step(&mut self, b: u8) -> bool {
        match self.state {
            State::Unicode { key, n } => {
                let Some(d) = (b as char).to_digit(16) else {
                    return false;
                };
                // invariant: `d` < 16 and `escape` holds at most 3 hex digits here.
                let v = (self.escape << 4) | d as u16;
                self.escape = v;
                self.state = if n < 3 {
                    State::Unicode { key, n: n + 1 }
                } else {
                    // A surrogate must be a high one followed by a low one: a lone half
                    // has no text (serde_json rejects it too), so the value breaks at
                    // the byte that shows it.
                    match (self.low, v) {
                        (false, 0xD800..=0xDBFF) => State::Pair { key, u: false },
                        (true, 0xDC00..=0xDFFF) | (false, 0..=0xDBFF | 0xE000..) => {
                            State::Str { key }
                        }
                        _ => return false,
                    }
                };
                true
            }
            State::Pair { key, u } => {
                self.state = match (u, b) {
                    (false, b'\\') => State::Pair { key, u: true },
                    (true, b'u') => {
                        self.escape = 0;
                        self.low = true;
                        State::Unicode { key, n: 0 }
                    }
                    _ => return false,
                };
                true
            }
            _ => false,
        }
    }

    fn close_value(&mut self) {
        self.state = if self.stack.is_empty() {
            State::Done
        } else {
            State::After
        };
    }

    /// [`feed`](Self::feed) that also stops inside a string at the byte `stop` (the first
    /// byte of a syntax's special tokens, which are never string content): `Err(at)`,
    /// the bytes before `at` consumed, the scanner still in the string. The caller looks
    /// at the bytes from there; when they are content after all, it hands the stop byte
    /// on with [`feed`](Self::feed) and goes on. `stop` is not `"`, `\\` or a control
    /// character.
    #[inline(never)]
    pub(crate) fn feed_stop(
        &mut self,
        input: &[u8],
        stop: crate::scan::find::StopByte,
    ) -> Result<JsonStatus, usize> {
        // The plain scan up to each stop byte where a token may begin (found with
        // `memchr` in long input: content stops such as `<b` cost no return from the
        // scan's eight-byte search): inside a string's plain content the feed stops
        // there, anywhere else the plain scan reads the byte and goes on.
        let shifted = |status: JsonStatus, by: usize| match status {
            JsonStatus::Complete { consumed } => JsonStatus::Complete {
                consumed: consumed + by,
            },
            JsonStatus::Invalid { at, error } => JsonStatus::Invalid { at: at + by, error },
            JsonStatus::NeedMore => JsonStatus::NeedMore,
        };
        let mut from = 0;
        loop {
            let rest = input.get(from..).unwrap_or_default();
            let at = crate::scan::find::find_stop(stop, rest);
            let head = rest.get(..at.unwrap_or(rest.len())).unwrap_or_default();
            match self.feed(head) {
                JsonStatus::NeedMore => {}
                status => return Ok(shifted(status, from)),
            }
            let Some(at) = at else {
                return Ok(JsonStatus::NeedMore);
            };
            if matches!(self.state, State::Str { .. }) {
                return Err(from + at);
            }
            match self.feed(rest.get(at..at + 1).unwrap_or_default()) {
                JsonStatus::NeedMore => {}
                status => return Ok(shifted(status, from + at)),
            }
            from += at + 1;
        }
    }

    /// Consumes bytes of the value. After `Complete` or `Invalid`, further feeds return
    /// the same kind of answer without looking at the input (`Complete { consumed: 0 }`).
    pub fn feed(&mut self, input: &[u8]) -> JsonStatus {
        let mut i = 0usize;
        let len = input.len();
        while i < len {
            let Some(&b) = input.get(i) else { break };
            match self.state {
                State::Str { key } => {
                    // Fast path: skip ordinary string bytes.
                    let rest = input.get(i..).unwrap_or_default();
                    match crate::scan::find::find_string_end(rest) {
                        None => return JsonStatus::NeedMore,
                        Some(off) => {
                            i += off;
                            let c = rest.get(off).copied().unwrap_or_default();
                            if c < 0x20 {
                                // A control character JSON forbids in a string: the
                                // value breaks at this byte, not when it is parsed.
                                return self.fail(i, JsonError::Syntax);
                            }
                            if c == b'"' {
                                if key {
                                    self.state = State::Colon;
                                } else {
                                    self.close_value();
                                    if self.state == State::Done {
                                        return JsonStatus::Complete { consumed: i + 1 };
                                    }
                                }
                            } else {
                                self.state = State::Escape { key };
                            }
                        }
                    }
                }
                State::Escape { key } => {
                    self.state = match b {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                            State::Str { key }
                        }
                        b'u' => {
                            self.escape = 0;
                            self.low = false;
                            State::Unicode { key, n: 0 }
                        }
                        _ => return self.fail(i, JsonError::Syntax),
                    };
                }
                State::Unicode { .. } | State::Pair { .. } => {
                    if !self.escape_step(b) {
                        return self.fail(i, JsonError::Syntax);
                    }
                }
                State::Value | State::ValueOrEnd => {
                    if is_ws(b) {
                        i += 1;
                        continue;
                    }
                    if b == b']' && self.state == State::ValueOrEnd {
                        self.stack.pop();
                        self.close_value();
                        if self.state == State::Done {
                            return JsonStatus::Complete { consumed: i + 1 };
                        }
                        i += 1;
                        continue;
                    }
                    match b {
                        b'{' | b'[' => {
                            if self.stack.len() >= self.max_depth {
                                return self.fail(i, JsonError::TooDeep);
                            }
                            let obj = b == b'{';
                            self.stack.push(obj);
                            self.state = if obj {
                                State::KeyOrEnd
                            } else {
                                State::ValueOrEnd
                            };
                        }
                        b'"' => self.state = State::Str { key: false },
                        b'-' => self.state = State::Num(Num::Minus),
                        b'0' => self.state = State::Num(Num::Zero),
                        b'1'..=b'9' => self.state = State::Num(Num::Int),
                        b't' => {
                            self.state = State::Lit {
                                word: b"true",
                                pos: 1,
                            }
                        }
                        b'f' => {
                            self.state = State::Lit {
                                word: b"false",
                                pos: 1,
                            }
                        }
                        b'n' => {
                            self.state = State::Lit {
                                word: b"null",
                                pos: 1,
                            }
                        }
                        _ => return self.fail(i, JsonError::Syntax),
                    }
                }
                State::KeyOrEnd | State::Key => {
                    if is_ws(b) {
                    } else if b == b'"' {
                        self.state = State::Str { key: true };
                    } else if b == b'}' && self.state == State::KeyOrEnd {
                        self.stack.pop();
                        self.close_value();
                        if self.state == State::Done {
                            return JsonStatus::Complete { consumed: i + 1 };
                        }
                    } else {
                        return self.fail(i, JsonError::Syntax);
                    }
                }
                State::Colon => {
                    if is_ws(b) {
                    } else if b == b':' {
                        self.state = State::Value;
                    } else {
                        return self.fail(i, JsonError::Syntax);
                    }
                }
                State::After => {
                    if is_ws(b) {
                        i += 1;
                        continue;
                    }
                    let in_obj = self.stack.last().copied().unwrap_or(false);
                    match (b, in_obj) {
                        (b',', true) => self.state = State::Key,
                        (b',', false) => self.state = State::Value,
                        (b'}', true) | (b']', false) => {
                            self.stack.pop();
                            self.close_value();
                            if self.state == State::Done {
                                return JsonStatus::Complete { consumed: i + 1 };
                            }
                        }
                        _ => return self.fail(i, JsonError::Syntax),
                    }
                }
                State::Num(n) => {
                    let next = num_next!(n, b);
                    match next {
                        Some(n) => self.state = State::Num(n),
                        None if n.terminal() => {
                            // The number ended just before this byte; re-examine it.
                            self.close_value();
                            if self.state == State::Done {
                                return JsonStatus::Complete { consumed: i };
                            }
                            continue;
                        }
                        None => return self.fail(i, JsonError::Syntax),
                    }
                }
                State::Lit { word, pos } => {
                    if word.get(pos as usize) != Some(&b) {
                        return self.fail(i, JsonError::Syntax);
                    }
                    if pos as usize + 1 == word.len() {
                        self.close_value();
                        if self.state == State::Done {
                            return JsonStatus::Complete { consumed: i + 1 };
                        }
                    } else {
                        self.state = State::Lit { word, pos: pos + 1 };
                    }
                }
                State::Done => return JsonStatus::Complete { consumed: 0 },
                State::Failed => {
                    return JsonStatus::Invalid {
                        at: 0,
                        error: JsonError::Syntax,
                    };
                }
            }
            i += 1;
        }
        match self.state {
            State::Done => JsonStatus::Complete { consumed: 0 },
            State::Failed => JsonStatus::Invalid {
                at: 0,
                error: JsonError::Syntax,
            },
            _ => JsonStatus::NeedMore,
        }
    }

    fn fail(&mut self, at: usize, error: JsonError) -> JsonStatus {
        self.state = State::Failed;
        JsonStatus::Invalid { at, error }
    }
}

/// The character a one-letter JSON escape (`\n`, `\"`, ...) stands for; `None` for `u`
/// (four hex digits follow) and for anything that is not an escape.
#[inline]
pub(crate) fn short_escape(b: u8) -> Option<char> {
    Some(match b {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

/// Appends `s` to `out` as JSON string content (no quotes); control characters other
/// than `\n`, `\r` and `\t` as `\u00XX`.
pub(crate) fn escape_json(s: &str, out: &mut String) {
    escape::<false>(s, out);
}

/// Appends `s` to `out` as JSON string content (no quotes), as serde_json writes it:
/// backspace and form feed as `\b` and `\f`, other control characters as `\u00XX`.
pub(crate) fn escape_json_as_serde(s: &str, out: &mut String) {
    escape::<true>(s, out);
}

/// [`escape_json`], or with `SHORT_BF` [`escape_json_as_serde`].
fn escape<const SHORT_BF: bool>(s: &str, out: &mut String) {
    let mut from = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 if SHORT_BF => "\\b",
            0x0c if SHORT_BF => "\\f",
            0..=0x1F => "",
            _ => continue,
        };
        out.push_str(s.get(from..i).unwrap_or_default());
        if esc.is_empty() {
            // Writing to a `String` cannot fail.
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(esc);
        }
        from = i + 1;
    }
    out.push_str(s.get(from..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes() {
        let mut s = String::new();
        escape_json("a\"b\\c\nd\u{1}é", &mut s);
        assert_eq!(s, "a\\\"b\\\\c\\nd\\u0001é");
    }
    use super::*;

    /// Every input of up to `max_len` bytes from `alphabet`.
    fn every_input(alphabet: &[u8], max_len: u32) -> impl Iterator<Item = Vec<u8>> + '_ {
        (0..=max_len).flat_map(move |len| {
            (0..alphabet.len().pow(len)).map(move |n| {
                let mut k = n;
                (0..len)
                    .map(|_| {
                        let b = alphabet[k % alphabet.len()];
                        k /= alphabet.len();
                        b
                    })
                    .collect()
            })
        })
    }

    /// `string_run` against `feed` (the oracle) from inside a string, after a backslash,
    /// and outside strings, over every input of up to 4 bytes from an alphabet of the
    /// bytes that matter: `true` exactly when `feed` would answer `NeedMore` from a string
    /// state, with the same state after; `false` leaves the scanner untouched.
    #[test]
    fn string_run_is_feed_staying_in_the_string() {
        let alphabet = [b'a', b'"', b'\\', b'n', b'u', b'0', b'}', 0xC3, b'\t'];
        for prefix in [
            &b"{\"k\": \"x"[..],
            b"{\"k\": \"x\\",
            b"[\"",
            b"{\"k",
            b"[1",
            b"\"\\u0",
        ] {
            let mut start = JsonScanner::new();
            assert_eq!(start.feed(prefix), JsonStatus::NeedMore);
            for input in every_input(&alphabet, 4) {
                let mut fast = start.clone();
                let mut slow = start.clone();
                if fast.string_run(&input) {
                    assert!(matches!(
                        start.state,
                        State::Str { .. } | State::Escape { .. }
                    ));
                    assert_eq!(slow.feed(&input), JsonStatus::NeedMore, "{input:?}");
                    assert_eq!(fast.state, slow.state, "{input:?}");
                    assert_eq!(fast.stack, slow.stack);
                } else {
                    assert_eq!(fast.state, start.state);
                    let in_string = matches!(slow.state, State::Str { .. });
                    // A plain run inside a string is never refused.
                    assert!(!in_string || input.iter().any(|b| matches!(b, b'"' | b'\\' | b'\t')));
                }
            }
        }
    }

    /// Runs `input` through `feed_stop`, handing every stop byte on with `feed` (what a
    /// caller does when no special token begins there): the absolute outcome, and every
    /// place it stopped.
    fn feed_stopping(
        s: &mut JsonScanner,
        input: &[u8],
        stop: crate::scan::find::StopByte,
    ) -> (JsonStatus, Vec<usize>) {
        let mut from = 0;
        let mut stops = Vec::new();
        loop {
            let rest = &input[from..];
            match s.feed_stop(rest, stop) {
                Ok(JsonStatus::Complete { consumed }) => {
                    return (
                        JsonStatus::Complete {
                            consumed: from + consumed,
                        },
                        stops,
                    );
                }
                Ok(JsonStatus::Invalid { at, error }) => {
                    return (
                        JsonStatus::Invalid {
                            at: from + at,
                            error,
                        },
                        stops,
                    );
                }
                Ok(JsonStatus::NeedMore) => return (JsonStatus::NeedMore, stops),
                Err(at) => {
                    assert_eq!(rest[at], stop.first);
                    assert!(stop.may_begin(rest.get(at + 1)));
                    assert!(matches!(s.state, State::Str { .. }));
                    stops.push(from + at);
                    assert_eq!(s.feed(&[stop.first]), JsonStatus::NeedMore);
                    from += at + 1;
                }
            }
        }
    }

    /// `feed_stop` (the stop byte handed on) against `feed`, and `string_run_stop`
    /// against `feed`, over every input of up to 5 bytes from an alphabet of the bytes
    /// that matter, after prefixes inside and outside strings: the same outcome and
    /// state; a stop exactly at each stop byte inside a string; `string_run_stop` is
    /// `true` exactly when `feed` stays in the string and no stop byte where a token may
    /// begin came.
    #[test]
    fn feed_stop_is_feed_with_a_look_at_each_stop_byte() {
        let alphabet = [b'a', b'"', b'\\', b'<', b'|', b'n', b'}', b'\t'];
        let stop = crate::scan::find::StopByte::of([b"<|x".as_slice()]).unwrap();
        for prefix in [
            &b"{\"k\": \"x"[..],
            b"{\"k\": \"x\\",
            b"[\"",
            b"{\"k",
            b"[1",
            b"\"\\u0",
            b"",
        ] {
            let mut start = JsonScanner::new();
            assert_eq!(start.feed(prefix), JsonStatus::NeedMore);
            for input in every_input(&alphabet, 5) {
                let mut slow = start.clone();
                let want = slow.feed(&input);
                let mut stopping = start.clone();
                let (got, stops) = feed_stopping(&mut stopping, &input, stop);
                assert_eq!(got, want, "{prefix:?} {input:?}");
                assert_eq!(stopping.state, slow.state, "{prefix:?} {input:?}");
                assert_eq!(stopping.stack, slow.stack);
                // Each stop is a `<` the plain scan read as string content, and
                // every such `<` that may begin a token stops.
                for &at in &stops {
                    let mut upto = start.clone();
                    assert_eq!(upto.feed(&input[..at]), JsonStatus::NeedMore);
                    assert!(matches!(upto.state, State::Str { .. }));
                }
                let n_lt = input.iter().filter(|&&b| b == b'<').count();
                assert!(stops.len() <= n_lt);
                for (at, _) in input.iter().enumerate().filter(|(_, b)| **b == b'<') {
                    let mut upto = start.clone();
                    let in_str = upto.feed(&input[..at]) == JsonStatus::NeedMore
                        && matches!(upto.state, State::Str { .. });
                    if in_str && stop.may_begin(input.get(at + 1)) {
                        assert!(stops.contains(&at), "{prefix:?} {input:?} {at}");
                    }
                }

                let mut fast = start.clone();
                if fast.string_run_stop(&input, stop) {
                    assert!(!crate::scan::find::has_stop(stop, &input));
                    assert_eq!(want, JsonStatus::NeedMore, "{input:?}");
                    assert_eq!(fast.state, slow.state, "{input:?}");
                } else {
                    assert_eq!(fast.state, start.state);
                    let mut plain = start.clone();
                    // Refused only for a stop byte or what `string_run` refuses.
                    assert!(crate::scan::find::has_stop(stop, &input) || !plain.string_run(&input));
                }
            }
        }
    }

    /// A string JSON forbids breaks at the byte that shows it, at every split: a raw
    /// control character at itself, a lone low surrogate at its last hex digit, a lone
    /// high one at the first byte that is not `\u` + a low half; a pair is fine.
    #[test]
    fn forbidden_strings_fail_at_their_byte() {
        for (text, at) in [
            ("{\"a\": \"x\ty\"}", Some(8)),
            ("[\"x\ny\"]", Some(3)),
            ("{\"k\u{1}\": 1}", Some(3)),
            ("\"\u{1f}\"", Some(1)),
            (r#"{"a": "\ud800"}"#, Some(13)),
            (r#"{"a": "\udc00"}"#, Some(12)),
            (r#"{"a": "\ud800\u0041"}"#, Some(18)),
            (r#"{"a": "\ud800\n"}"#, Some(14)),
            (r#"{"a": "\uDBFFx"}"#, Some(13)),
            (r#"{"\udfff": 1}"#, Some(7)),
            (r#"{"a": "\ud83d\ude00\u00e9\u0000"}"#, None),
            ("\"\u{7f}\"", None),
        ] {
            let b = text.as_bytes();
            for cut in 0..=b.len() {
                let mut sc = JsonScanner::new();
                let (x, y) = b.split_at(cut);
                let got = match sc.feed(x) {
                    JsonStatus::Invalid { at, .. } => Some(at),
                    JsonStatus::Complete { .. } => None,
                    JsonStatus::NeedMore => match sc.feed(y) {
                        JsonStatus::Invalid { at, .. } => Some(cut + at),
                        _ => None,
                    },
                };
                assert_eq!(got, at, "{text:?} cut at {cut}");
            }
            // The hot path never takes a run the full scanner would refuse.
            let mut sc = JsonScanner::new();
            if let Some(at) = at {
                let _ = sc.feed(b.get(..at).unwrap_or_default());
                assert!(
                    !sc.string_run(b.get(at..at + 1).unwrap_or_default()),
                    "{text:?}"
                );
            }
        }
    }

    fn whole(s: &str) -> (JsonStatus, bool) {
        let mut sc = JsonScanner::new();
        let st = sc.feed(s.as_bytes());
        let fin = sc.finish();
        (st, fin)
    }

    /// Feeds at every split point and returns the absolute end offset (or None).
    fn end_at_every_split(s: &[u8]) -> Vec<Option<usize>> {
        (0..=s.len())
            .map(|cut| {
                let mut sc = JsonScanner::new();
                let (a, b) = s.split_at(cut);
                match sc.feed(a) {
                    JsonStatus::Complete { consumed } => return Some(consumed),
                    JsonStatus::Invalid { .. } => return None,
                    JsonStatus::NeedMore => {}
                }
                match sc.feed(b) {
                    JsonStatus::Complete { consumed } => Some(cut + consumed),
                    JsonStatus::Invalid { .. } => None,
                    JsonStatus::NeedMore => sc.finish().then_some(s.len()),
                }
            })
            .collect()
    }

    #[test]
    fn values_complete_where_serde_says() {
        let cases = [
            r#"{}"#,
            r#"[]"#,
            r#"{"a":1}"#,
            r#" { "a" : [ 1 , 2.5e-3 , -0 , true , false , null , "x\"y\\" ] } "#,
            r#"{"u":"\u00e9\uD83D\uDE00","n":{"m":{"k":[[]]}}}"#,
            r#""str""#,
            "12",
            "-1.5E+10",
            "true",
            "null",
            r#"{"s":"}]{["}"#,
            "[\"é😀\"]",
        ];
        for c in cases {
            let (st, fin) = whole(c);
            assert!(fin, "{c}: {st:?}");
            let trimmed = c.trim_end();
            if let JsonStatus::Complete { consumed } = st {
                assert_eq!(consumed, trimmed.len(), "{c}");
            }
            assert!(serde_json::from_str::<serde_json::Value>(c).is_ok());
            let ends = end_at_every_split(c.as_bytes());
            assert!(
                ends.iter().all(|e| *e == Some(trimmed.len())),
                "{c}: {ends:?}"
            );
        }
    }

    #[test]
    fn rejects_what_serde_rejects() {
        let bad = [
            "{a:1}",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "-",
            "1.",
            "1e",
            "tru e",
            "[1 2]",
            "{,}",
            "]",
            "\"\\x\"",
            "\"\\u12g4\"",
            "{\"a\":1,}",
            "nul1",
            ".5",
            "+1",
        ];
        for c in bad {
            let mut sc = JsonScanner::new();
            let st = sc.feed(c.as_bytes());
            let ok = matches!(st, JsonStatus::Complete { consumed } if consumed == c.len())
                || (st == JsonStatus::NeedMore && sc.finish());
            assert!(!ok, "{c} accepted: {st:?}");
            assert!(serde_json::from_str::<serde_json::Value>(c).is_err(), "{c}");
        }
    }

    #[test]
    fn invalid_offset_is_the_offending_byte() {
        let mut sc = JsonScanner::new();
        assert_eq!(sc.feed(b"{\"a\":"), JsonStatus::NeedMore);
        assert_eq!(
            sc.feed(b" 1 x"),
            JsonStatus::Invalid {
                at: 3,
                error: JsonError::Syntax
            }
        );
        assert!(sc.is_failed());
    }

    #[test]
    fn top_level_number_ends_before_delimiter() {
        let mut sc = JsonScanner::new();
        assert_eq!(sc.feed(b"12"), JsonStatus::NeedMore);
        assert_eq!(sc.feed(b"3,"), JsonStatus::Complete { consumed: 1 });
    }

    #[test]
    fn depth_limit() {
        let mut sc = JsonScanner::with_max_depth(3);
        assert_eq!(sc.feed(b"[[["), JsonStatus::NeedMore);
        assert_eq!(
            sc.feed(b"["),
            JsonStatus::Invalid {
                at: 0,
                error: JsonError::TooDeep
            }
        );
    }

    #[test]
    fn byte_by_byte_matches_whole() {
        let s = br#"{"content":"line1\nline2 \"q\" \\ \u00e9","list":[1,{"x":null}]}"#;
        let mut sc = JsonScanner::new();
        for (i, b) in s.iter().enumerate() {
            let st = sc.feed(std::slice::from_ref(b));
            if i + 1 == s.len() {
                assert_eq!(st, JsonStatus::Complete { consumed: 1 });
            } else {
                assert_eq!(st, JsonStatus::NeedMore, "at {i}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_serde_on_arbitrary_json(v in arb_json(), cut in 0usize..400) {
            let text = serde_json::to_string_pretty(&v).unwrap_or_default();
            let b = text.as_bytes();
            let cut = cut.min(b.len());
            let ends = {
                let mut sc = JsonScanner::new();
                let (x, y) = b.split_at(cut);
                match sc.feed(x) {
                    JsonStatus::Complete { consumed } => Some(consumed),
                    JsonStatus::Invalid { .. } => None,
                    JsonStatus::NeedMore => match sc.feed(y) {
                        JsonStatus::Complete { consumed } => Some(cut + consumed),
                        JsonStatus::Invalid { .. } => None,
                        JsonStatus::NeedMore => sc.finish().then_some(b.len()),
                    },
                }
            };
            proptest::prop_assert_eq!(ends, Some(b.len()));
        }

        #[test]
        fn never_panics_and_accepts_only_json(data in proptest::collection::vec(proptest::sample::select(b"{}[]\",:\\ 0123456789.eE+-truefalsnl".to_vec()), 0..40)) {
            let mut sc = JsonScanner::new();
            let st = sc.feed(&data);
            let end = match st {
                JsonStatus::Complete { consumed } => Some(consumed),
                JsonStatus::NeedMore if sc.finish() => Some(data.len()),
                _ => None,
            };
            if let Some(end) = end {
                let slice = data.get(..end).unwrap_or_default();
                // The kernel checks structure, not number ranges: serde_json rejects
                // `1e310` as out of range (found by this property, a flaky failure).
                let ok = match serde_json::from_slice::<serde_json::Value>(slice) {
                    Ok(_) => true,
                    Err(e) => e.to_string().contains("number out of range"),
                };
                proptest::prop_assert!(ok, "{:?}", String::from_utf8_lossy(slice));
            }
        }
    }

    fn arb_json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            (-1e6f64..1e6).prop_map(serde_json::Value::from),
            "\\PC*".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
                proptest::collection::btree_map("\\PC{0,8}", inner, 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
