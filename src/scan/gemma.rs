//! Streaming transducer from Gemma 4 tool-call arguments to JSON object text.
//!
//! Gemma 4 writes a call as `<|tool_call>call:NAME{ARGS}<tool_call|>`; the chat
//! template's `format_argument` renders `{ARGS}` as:
//!
//! | Gemma 4 | JSON |
//! | --- | --- |
//! | `{k:v,k2:v2}` (bare keys, at every level) | `{"k":v,"k2":v2}` |
//! | `<\|"\|>text<\|"\|>` (a string between two `<\|"\|>` tokens, written as is) | `"text"` (escaped) |
//! | `[v,v]` | `[v,v]` |
//! | `true` `false` `null` (also `True` `False` `None`) | `true` `false` `null` |
//! | `3`, `-1.5`, `1e-05` | the same number |
//!
//! A higher layer finds `call:NAME` and hands the bytes from the `{` on to
//! [`GemmaArgs::feed`], in as many pieces as they arrive (as `&str`: the text scanner
//! has already turned the bytes into text). [`GemmaArgs`] appends JSON text to a
//! `String` as it goes and reports [`GemmaStatus::Done`] with the number of bytes it used
//! once the `}` that closes the arguments is consumed.
//!
//! # Guarantees
//!
//! - Split invariant: any split of the input gives the same output text, the same `Done`
//!   position and the same `Invalid` position and reason.
//! - Append-only: what is appended is never retracted; it is always a prefix of valid
//!   JSON, and exactly one JSON object once `Done` is reported.
//! - String contents are escaped (`"`, `\`, control characters) and emitted as they
//!   arrive; a `<` that may begin the closing `<|"|>` is held (at most 4 bytes) until it
//!   is known. Numbers are emitted character by character (their grammar is JSON's);
//!   words once complete. A `,` is emitted when the next member starts, so a trailing
//!   comma (`{a:1,}`) is accepted.
//! - Linear, no panics, no allocation per byte (only `out` and the nesting stack grow,
//!   the stack up to the depth limit).
//!
//! # Choices
//!
//! - Keys are bare words: any characters but whitespace, control characters and
//!   `: , { } [ ] < > " ' \`; a key may also be a `<|"|>` string (any text). An empty
//!   key is invalid.
//! - String contents cannot hold `<|"|>` (the template has no escape for it).
//! - Rejected with [`GemmaStatus::Invalid`]: JSON-quoted (`"x"`) and other unquoted
//!   strings, words other than the literals above, numbers JSON does not allow (`01`,
//!   `.5`, `1.`, `inf`), nesting deeper than the limit.

use std::fmt::Write as _;

/// Gemma 4's string delimiter token (FunctionGemma's is `<escape>`: [`GemmaArgs::quote`]).
const QUOTE: &[u8] = b"<|\"|>";

const R_OPEN: &str = "arguments must start with '{'";
const R_KEY: &str = "expected a key or '}'";
const R_COLON: &str = "expected ':' after a key";
const R_VALUE: &str = "expected a value";
const R_QUOTE: &str = "a '<' that does not begin the string token";
const R_WORD: &str =
    "a bare word that is not true, false or null (strings are written between string tokens)";
const R_NUMBER: &str = "malformed number";
const R_AFTER: &str = "expected ',' or a closing bracket after a value";
const R_DEPTH: &str = "nesting too deep";
const R_INTERNAL: &str = "internal state error";
const R_REPEATED: &str = "a repeated key";

/// Result of one [`GemmaArgs::feed`] call: the pythonic transducer's status (the same
/// three outcomes: need more, the closing `}` consumed, an offending byte).
pub(crate) type GemmaStatus = crate::scan::pythonic::PyStatus;

/// Where a number is, in JSON's grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    /// After `-`.
    Sign,
    /// A leading `0`.
    Zero,
    Int,
    /// After `.`.
    Dot,
    Frac,
    /// After `e` / `E`.
    Exp,
    /// After the exponent's sign.
    ExpSign,
    ExpInt,
}

impl Num {
    /// Whether a number may end here.
    fn complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::ExpInt)
    }

    /// The state after `b`, `None` when `b` cannot continue the number.
    fn step(self, b: u8) -> Option<Num> {
        Some(match (self, b) {
            (Num::Sign, b'0') => Num::Zero,
            (Num::Sign, b'1'..=b'9') => Num::Int,
            (Num::Int, b'0'..=b'9') => Num::Int,
            (Num::Zero | Num::Int, b'.') => Num::Dot,
            (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::Exp,
            (Num::Exp, b'+' | b'-') => Num::ExpSign,
            (Num::Exp | Num::ExpSign | Num::ExpInt, b'0'..=b'9') => Num::ExpInt,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the `{`.
    Start,
    /// In an object, after `{` or `,`: a key or `}`.
    Key,
    /// Inside a bare key.
    BareKey,
    /// After a key: `:`.
    Colon,
    /// After `:`: a value.
    Value,
    /// In an array, after `[` or `,`: a value or `]`.
    Elem,
    /// `n` bytes of an opening `<|"|>` matched; `key`: it opens a key.
    Open {
        n: u8,
        key: bool,
    },
    /// Inside a string; `m` bytes of the closing `<|"|>` held.
    Str {
        m: u8,
        key: bool,
    },
    /// Inside a number.
    Number(Num),
    /// Inside a bare word (`len` bytes in `word`).
    Word,
    /// After a value: `,` or the closing bracket.
    After,
    Done,
    Error(&'static str),
}

/// One open container: `true` for an object. `any`: it has a member already.
#[derive(Debug, Clone, Copy)]
struct Frame {
    object: bool,
    any: bool,
}

/// The Gemma 4 arguments transducer. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct GemmaArgs {
    state: State,
    stack: Vec<Frame>,
    max_depth: usize,
    /// The string delimiter token (owned: a spec's may be any token that fits).
    quote: Box<[u8]>,
    /// Bytes of a string token read where the input failed (see [`Self::failed_in_token`]).
    failed_in_token: u8,
    word: [u8; 5],
    word_len: usize,
    /// The deepest nesting reached since the last reset (the arguments object counts 1).
    deepest: usize,
    /// A `<` at the start of string content stops the feed ([`take_stop`]
    /// (Self::take_stop)): the caller looks for its special tokens there.
    stop: Option<crate::scan::find::StopByte>,
    /// The next such `<` is content (the caller looked: no token).
    skip_stop: bool,
    /// The open and close tokens (with [`stop`](Self::stop)): a `<` where neither may
    /// begin is read as without stops.
    others: [Box<[u8]>; 2],
    /// Where the last feed stopped.
    stopped: Option<usize>,
    /// Inside a key of the arguments object: its JSON (`,"k":`) is written to `key`,
    /// handed on once the key is whole and not repeated.
    in_key: bool,
    key: String,
    /// The arguments object's keys so far.
    keys: crate::scan::members::Members,
}

/// What one step did with its byte.
enum Step {
    /// Used.
    Next,
    /// Not used: look at it again in the new state.
    Again,
    /// The arguments closed with this byte.
    Done,
    Fail(&'static str),
}

impl GemmaArgs {
    /// A transducer allowing `max_depth` nested objects and arrays (the arguments
    /// object itself included).
    pub(crate) fn with_max_depth(max_depth: usize) -> Self {
        GemmaArgs {
            state: State::Start,
            stack: Vec::with_capacity(max_depth.clamp(1, 16)),
            max_depth: max_depth.max(1),
            quote: QUOTE.into(),
            failed_in_token: 0,
            word: [0; 5],
            word_len: 0,
            deepest: 0,
            stop: None,
            skip_stop: false,
            others: [Box::default(), Box::default()],
            stopped: None,
            in_key: false,
            key: String::new(),
            keys: crate::scan::members::Members::default(),
        }
    }

    /// String content stops at each `<` ([`take_stop`](Self::take_stop)), where the
    /// caller looks for the syntax's tokens (the open and close tokens are never content).
    pub(crate) fn stop_at_tokens(mut self, tokens: [&str; 3]) -> Self {
        self.stop = crate::scan::find::StopByte::of(tokens.map(str::as_bytes));
        let [_, open, close] = tokens;
        self.others = [open.as_bytes().into(), close.as_bytes().into()];
        self
    }

    /// Whether a token other than the string token may begin at the start of `rest` (a
    /// `<`), given the bytes of it there are: the string token itself (`<|"|>`) is read
    /// by the transducer, as without stops.
    #[inline]
    fn other_token_may_begin(&self, rest: &[u8]) -> bool {
        // `<b` (the common content `<`) is told by its second byte alone; the rest byte
        // by byte (no call to `memcmp`).
        self.stop.is_some_and(|stop| stop.may_begin(rest.get(1)))
            && self
                .others
                .iter()
                .any(|t| rest.iter().zip(t.iter()).all(|(a, b)| a == b))
    }

    /// After a feed answered `NeedMore`: where it stopped at a `<` in string content
    /// (nothing from there consumed), if it did.
    pub(crate) fn take_stop(&mut self) -> Option<usize> {
        self.stopped.take()
    }

    /// After a stop: the `<` there begins no token the caller knows; the next feed reads
    /// it as it would without stops (the string token, or content).
    pub(crate) fn past_stop(&mut self) {
        self.skip_stop = true;
    }

    /// Bytes held: a key not yet handed on, the keys seen.
    pub(crate) fn retained(&self) -> usize {
        self.key.len() + self.keys.retained()
    }

    /// The same transducer with `quote` as the string delimiter token (FunctionGemma's
    /// `<escape>`). Like `<|"|>` it must begin with `<` and hold no other `<` (a string's
    /// content is plain up to a `<`; a `<` that breaks a partial token begins it again).
    pub(crate) fn quote(mut self, quote: &str) -> Self {
        debug_assert!(quote.starts_with('<') && !quote.get(1..).unwrap_or_default().contains('<'));
        self.quote = quote.as_bytes().into();
        self
    }

    /// The deepest nesting of the JSON written since the last [`reset`](Self::reset)
    /// (the arguments object counts 1).
    pub(crate) fn deepest(&self) -> usize {
        self.deepest
    }

    /// When all of `input` is more of the string being read, with nothing of a closing
    /// `<|"|>` held and no `<` that could begin one, appends to `out` what
    /// [`feed`](Self::feed) would (plain content as it is, the rest escaped), leaving the
    /// state as it is, and returns `true`; otherwise returns `false`, nothing appended.
    /// The text scanner's hot path hands such input on without the state machine.
    #[inline]
    pub(crate) fn string_piece(&self, input: &str, out: &mut String) -> bool {
        let bytes = input.as_bytes();
        if !matches!(self.state, State::Str { m: 0, .. }) || self.in_key {
            return false;
        }
        // A `<` is content here only when the byte after it is in `input` and continues
        // no token (`<b`): then `feed` writes it as it is, as this does.
        if bytes.contains(&b'<')
            && (self.skip_stop
                || self
                    .stop
                    .is_none_or(|stop| crate::scan::find::has_stop(stop, bytes)))
        {
            return false;
        }
        let mut i = 0;
        while i < bytes.len() {
            let n = plain_run(bytes.get(i..).unwrap_or_default());
            // `plain_run` stops at an ASCII byte or the end: a character boundary.
            out.push_str(input.get(i..i + n).unwrap_or_default());
            i += n;
            if let Some(&b) = bytes.get(i) {
                push_escaped(out, b);
                i += 1;
            }
        }
        true
    }

    /// [`string_piece`](Self::string_piece) for input appended unchanged (all of it
    /// plain content): whether `input` is such a piece.
    #[inline]
    pub(crate) fn string_run(&self, input: &str) -> bool {
        matches!(self.state, State::Str { m: 0, .. })
            && !self.in_key
            && plain_run(input.as_bytes()) == input.len()
    }

    /// After [`GemmaStatus::Invalid`]: how many bytes before the failing one were a
    /// partial string token where a value began (`<|` of `<|tool_call>` read as the
    /// start of `<|"|>`), consumed but not written; 0 otherwise.
    pub(crate) fn failed_in_token(&self) -> usize {
        usize::from(self.failed_in_token)
    }

    /// Ready for the next call's arguments (buffers kept).
    pub(crate) fn reset(&mut self) {
        self.failed_in_token = 0;
        self.state = State::Start;
        self.stack.clear();
        self.word_len = 0;
        self.deepest = 0;
        self.skip_stop = false;
        self.stopped = None;
        self.in_key = false;
        self.key.clear();
        self.keys.clear();
    }

    /// Consumes text from the `{` on, appending JSON text to `out`.
    pub(crate) fn feed(&mut self, input: &str, out: &mut String) -> GemmaStatus {
        let mut key = std::mem::take(&mut self.key);
        let status = self.feed_to(input, out, &mut key);
        self.key = key;
        status
    }

    /// [`feed`](Self::feed), a key of the arguments object written to `key` until it is
    /// whole.
    #[inline(always)]
    fn feed_to(&mut self, input: &str, out: &mut String, key: &mut String) -> GemmaStatus {
        match self.state {
            State::Done => return GemmaStatus::Done { consumed: 0 },
            State::Error(reason) => return GemmaStatus::Invalid { at: 0, reason },
            _ => {}
        }
        let mut i = 0;
        // The common loop writes to `out`; a key of the arguments object (written to
        // `key` until it is whole) has its own copy of the loop, so the common one does
        // not pick a sink per byte.
        loop {
            let done = if self.in_key {
                self.feed_run::<true>(input, &mut i, key, out)
            } else {
                self.feed_run::<false>(input, &mut i, out, key)
            };
            if let Some(status) = done {
                return status;
            }
        }
    }

    /// The loop of [`feed_to`](Self::feed_to) while `in_key` is `KEY`: bytes from `*i`
    /// written to `sink` (`key` when `KEY`, else `out`; `other` is the other one). `None`
    /// when `in_key` changed, the status to return otherwise.
    #[inline(always)]
    fn feed_run<const KEY: bool>(
        &mut self,
        input: &str,
        at: &mut usize,
        sink: &mut String,
        other: &mut String,
    ) -> Option<GemmaStatus> {
        let bytes = input.as_bytes();
        let mut i = *at;
        while let Some(&b) = bytes.get(i) {
            // A run of ordinary string content or of key bytes, copied in one piece: it
            // ends at an ASCII byte or at the end of `input`, so on a character boundary.
            // (A `match`, not a function pointer: the byte tests are inlined.)
            let run = match self.state {
                State::Str { m: 0, .. } => {
                    let rest = bytes.get(i..).unwrap_or_default();
                    Some(if rest.len() >= 16 {
                        // Eight bytes at a time: the set `is_plain_content` excludes (a
                        // `<` too: the string token, another token with stops, or
                        // content, decided below).
                        crate::scan::find::find_json_special_or(b'<', rest).unwrap_or(rest.len())
                    } else {
                        plain_run(rest)
                    })
                }
                State::BareKey => {
                    let rest = bytes.get(i..).unwrap_or_default();
                    Some(
                        rest.iter()
                            .position(|&c| !is_key_byte(c))
                            .unwrap_or(rest.len()),
                    )
                }
                _ => None,
            };
            if let Some(n) = run
                && n > 0
            {
                sink.push_str(input.get(i..i + n).unwrap_or_default());
                i += n;
                continue;
            }
            if b == b'<'
                && self.stop.is_some()
                && matches!(self.state, State::Str { m: 0, .. })
                && !std::mem::take(&mut self.skip_stop)
                && self.other_token_may_begin(bytes.get(i..).unwrap_or_default())
            {
                // The open or close token may begin here: the feed stops (nothing from
                // here consumed). `<b`, or the string token: read as without stops.
                self.stopped = Some(i);
                *at = i;
                return Some(GemmaStatus::NeedMore);
            }
            let step = self.step(b, sink);
            let mut left = false;
            if KEY && self.state == State::Colon {
                // The key is whole: a repeated one breaks the call before it is written.
                self.in_key = false;
                let name = sink.trim_start_matches(',').trim_end_matches(':');
                if !self.keys.insert(name) {
                    sink.clear();
                    self.state = State::Error(R_REPEATED);
                    return Some(GemmaStatus::Invalid {
                        at: i,
                        reason: R_REPEATED,
                    });
                }
                other.push_str(sink);
                sink.clear();
                left = true;
            }
            match step {
                Step::Next => i += 1,
                // A step enters a key only with `Again` (the byte is the key's).
                Step::Again if !KEY && self.in_key => {
                    *at = i;
                    return None;
                }
                Step::Again => {}
                Step::Done => {
                    self.state = State::Done;
                    return Some(GemmaStatus::Done { consumed: i + 1 });
                }
                Step::Fail(reason) => {
                    if let State::Open { n, .. } = self.state {
                        self.failed_in_token = n;
                    }
                    self.state = State::Error(reason);
                    return Some(GemmaStatus::Invalid { at: i, reason });
                }
            }
            if left {
                *at = i;
                return None;
            }
        }
        *at = i;
        Some(GemmaStatus::NeedMore)
    }

    /// Opens a container, or fails past the depth limit.
    fn open(&mut self, object: bool, out: &mut String) -> Step {
        if self.stack.len() >= self.max_depth {
            return Step::Fail(R_DEPTH);
        }
        self.stack.push(Frame { object, any: false });
        self.deepest = self.deepest.max(self.stack.len());
        out.push(if object { '{' } else { '[' });
        self.state = if object { State::Key } else { State::Elem };
        Step::Next
    }

    /// Closes the innermost container with `b`, if it is its closer.
    fn close(&mut self, b: u8, out: &mut String) -> Step {
        let Some(f) = self.stack.last() else {
            return Step::Fail(R_INTERNAL);
        };
        if b != if f.object { b'}' } else { b']' } {
            return Step::Fail(R_AFTER);
        }
        self.stack.pop();
        out.push(char::from(b));
        if self.stack.is_empty() {
            return Step::Done;
        }
        self.state = State::After;
        Step::Next
    }

    /// A member or element starts: the `,` before it, if it is not the first.
    fn member(&mut self, out: &mut String) {
        if let Some(f) = self.stack.last_mut() {
            if f.any {
                out.push(',');
            }
            f.any = true;
        }
    }

    #[inline(always)]
    fn step(&mut self, b: u8, out: &mut String) -> Step {
        let ws = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        match self.state {
            State::Start => match b {
                b'{' => self.open(true, out),
                _ => Step::Fail(R_OPEN),
            },
            State::Key => match b {
                _ if ws => Step::Next,
                b'}' => self.close(b, out),
                _ if self.stack.len() == 1 && !self.in_key && (b == b'<' || is_key_byte(b)) => {
                    // A key of the arguments object: written aside until it is whole.
                    self.in_key = true;
                    Step::Again
                }
                b'<' => {
                    // The member and its `"` are written once the token is whole.
                    self.state = State::Open { n: 1, key: true };
                    Step::Next
                }
                _ if is_key_byte(b) => {
                    self.member(out);
                    out.push('"');
                    self.state = State::BareKey;
                    // `feed` copies the key's bytes.
                    Step::Again
                }
                _ => Step::Fail(R_KEY),
            },
            State::BareKey => {
                // Key bytes (copied as runs by `feed`, unescaped: quotes, backslashes and
                // control characters are not key bytes) end here.
                out.push_str("\":");
                self.state = State::Colon;
                Step::Again
            }
            State::Colon => match b {
                _ if ws => Step::Next,
                b':' => {
                    self.state = State::Value;
                    Step::Next
                }
                _ => Step::Fail(R_COLON),
            },
            State::Value => self.value(b, ws, out),
            State::Elem => match b {
                _ if ws => Step::Next,
                b']' => self.close(b, out),
                _ => {
                    self.member(out);
                    self.state = State::Value;
                    Step::Again
                }
            },
            State::Open { n, key } => {
                if self.quote.get(usize::from(n)) != Some(&b) {
                    return Step::Fail(R_QUOTE);
                }
                self.state = if usize::from(n) + 1 == self.quote.len() {
                    if key {
                        self.member(out);
                    }
                    out.push('"');
                    State::Str { m: 0, key }
                } else {
                    State::Open { n: n + 1, key }
                };
                Step::Next
            }
            State::Str { m, key } => {
                if self.quote.get(usize::from(m)) == Some(&b) {
                    if usize::from(m) + 1 == self.quote.len() {
                        out.push('"');
                        if key {
                            out.push(':');
                            self.state = State::Colon;
                        } else {
                            self.state = State::After;
                        }
                    } else {
                        self.state = State::Str { m: m + 1, key };
                    }
                    return Step::Next;
                }
                // The held bytes were content after all; this byte is read again.
                for &h in self.quote.get(..usize::from(m)).unwrap_or_default() {
                    push_escaped(out, h);
                }
                self.state = State::Str { m: 0, key };
                if m > 0 {
                    return Step::Again;
                }
                push_escaped(out, b);
                Step::Next
            }
            State::Number(n) => match n.step(b) {
                Some(next) => {
                    out.push(char::from(b));
                    self.state = State::Number(next);
                    Step::Next
                }
                None if n.complete() && !b.is_ascii_alphanumeric() && b != b'.' => {
                    self.state = State::After;
                    Step::Again
                }
                None => Step::Fail(R_NUMBER),
            },
            State::Word => {
                if b.is_ascii_alphabetic() {
                    let Some(slot) = self.word.get_mut(self.word_len) else {
                        return Step::Fail(R_WORD);
                    };
                    *slot = b;
                    self.word_len += 1;
                    return Step::Next;
                }
                let lit = match self.word.get(..self.word_len).unwrap_or_default() {
                    b"true" | b"True" => "true",
                    b"false" | b"False" => "false",
                    b"null" | b"None" => "null",
                    _ => return Step::Fail(R_WORD),
                };
                out.push_str(lit);
                self.state = State::After;
                Step::Again
            }
            State::After => match b {
                _ if ws => Step::Next,
                b',' => {
                    let object = self.stack.last().is_some_and(|f| f.object);
                    self.state = if object { State::Key } else { State::Elem };
                    Step::Next
                }
                b'}' | b']' => self.close(b, out),
                _ => Step::Fail(R_AFTER),
            },
            State::Done | State::Error(_) => Step::Fail(R_INTERNAL),
        }
    }

    /// The first byte of a value.
    fn value(&mut self, b: u8, ws: bool, out: &mut String) -> Step {
        match b {
            _ if ws => Step::Next,
            b'{' => self.open(true, out),
            b'[' => self.open(false, out),
            b'<' => {
                // The `"` is written once the token is whole.
                self.state = State::Open { n: 1, key: false };
                Step::Next
            }
            b'-' => {
                out.push('-');
                self.state = State::Number(Num::Sign);
                Step::Next
            }
            b'0'..=b'9' => {
                out.push(char::from(b));
                self.state = State::Number(if b == b'0' { Num::Zero } else { Num::Int });
                Step::Next
            }
            _ if b.is_ascii_alphabetic() => {
                self.word_len = 0;
                self.state = State::Word;
                Step::Again
            }
            _ => Step::Fail(R_VALUE),
        }
    }
}

/// How many bytes at the start of `hay` are string content copied as is.
#[inline(always)]
fn plain_run(hay: &[u8]) -> usize {
    let mut n = 0;
    while let Some(&b) = hay.get(n) {
        if !is_plain_content(b) {
            break;
        }
        n += 1;
    }
    n
}

/// Whether `b` is string content copied as is.
#[inline(always)]
fn is_plain_content(b: u8) -> bool {
    !(b == b'<' || b == b'"' || b == b'\\' || b < 0x20)
}

/// Whether `b` may be part of a bare key.
fn is_key_byte(b: u8) -> bool {
    b >= 0x80
        || (b.is_ascii_graphic()
            && !matches!(
                b,
                b':' | b',' | b'{' | b'}' | b'[' | b']' | b'<' | b'>' | b'"' | b'\'' | b'\\'
            ))
}

/// Appends one ASCII special byte of string content, escaped for JSON.
fn push_escaped(out: &mut String, b: u8) {
    match b {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0..=0x1F => {
            let _ = write!(out, "\\u{b:04x}");
        }
        _ => out.push(char::from(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `string_piece` (and `string_run`, the case of unchanged input) says yes only where
    /// `feed` appends the same and stays where it was: every sequence of up to three pieces from the characters that matter
    /// (the `<|"|>` token's bytes, quotes, backslash, controls, non-ASCII), from the
    /// states a string can be in and some it cannot.
    #[test]
    fn string_run_is_feed_copying_its_input() {
        let prefixes = [
            "{a:<|\"|>",
            "{a:<|\"|>x<",
            "{a:<|\"|>x<|",
            "{a:<|\"|>x<|\"",
            "{a:<|\"|>x<|\"|",
            "{<|\"|>",
            "{a:[<|\"|>",
            "{a:<|",
            "{a:1",
            "{ab",
            "",
        ];
        let pieces = [
            "a", " ", "<", "|", "\"", ">", "\\", "\n", "\u{1}", "\u{7f}", "}", "é", "😀",
        ];
        let mut accepted = 0;
        for p in prefixes {
            let fresh = || {
                let mut g = GemmaArgs::with_max_depth(8);
                let _ = g.feed(p, &mut String::new());
                g
            };
            let base = fresh();
            let n = pieces.len();
            for code in 0..(1 + n + n * n + n * n * n) {
                let (len, mut c) = match code {
                    0 => (0, 0),
                    c if c <= n => (1, c - 1),
                    c if c <= n + n * n => (2, c - 1 - n),
                    c => (3, c - 1 - n - n * n),
                };
                let mut input = String::new();
                for _ in 0..len {
                    input.push_str(pieces[c % n]);
                    c /= n;
                }
                let mut piece = String::new();
                if !base.string_piece(&input, &mut piece) {
                    assert!(piece.is_empty() && !base.string_run(&input));
                    continue;
                }
                assert_eq!(base.string_run(&input), piece == input, "{p:?} {input:?}");
                accepted += 1;
                let mut slow = fresh();
                let mut out = String::new();
                assert_eq!(
                    slow.feed(&input, &mut out),
                    GemmaStatus::NeedMore,
                    "{p:?} {input:?}"
                );
                assert_eq!(out, piece, "{p:?} {input:?}");
                assert_eq!(format!("{slow:?}"), format!("{base:?}"), "{p:?} {input:?}");
            }
        }
        assert!(accepted > 500, "{accepted}");
    }
}
