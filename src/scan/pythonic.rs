//! Streaming transducer from Python keyword arguments to JSON object text.
//!
//! Llama 3.x models write tool calls in Python call syntax:
//! `[get_weather(city='Paris', days=3), other(x=[1, 2.5], flag=True)]`.
//! A higher layer finds `[` ident `(` and hands the bytes *after* the `(` to
//! [`PyArgs::feed`], in as many pieces as they arrive. [`PyArgs`] appends JSON
//! object text (`{"city":"Paris","days":3}`) to a `String` as it goes, and
//! reports [`PyStatus::Done`] together with the number of bytes it used once it
//! has consumed the closing `)`.
//!
//! # Guarantees
//!
//! - Sans-IO and incremental: any split of the input into `feed` calls gives
//!   the same output text, the same `Done` position and the same `Invalid`
//!   position and reason (all as absolute offsets).
//! - Append-only: text appended to `out` is never retracted. Everything that
//!   has been appended is a prefix of valid JSON, and once `Done` is reported
//!   the appended text is exactly one valid JSON object.
//! - Linear: every input byte is looked at a bounded number of times. Inside
//!   strings, `memchr` finds the next quote/backslash, a vectorisable scan the
//!   next control byte, and `str::from_utf8` validates the text in bulk; the
//!   results are cached for the rest of the feed, so each string byte is
//!   passed over at most a few times however many strings a feed holds.
//!   Common escapes (`\n \t \r \\ \' \"`) and `"` are handled inline; small
//!   feeds (<= 16 bytes) take a single scalar pass.
//! - No `unsafe`, no panics on any input, no allocation per byte: only `out`
//!   grows, plus the nesting stack up to the depth limit.
//! - String contents are emitted as they arrive (a long string grows in the
//!   output while it streams); a multi-byte UTF-8 character split across feeds
//!   is held back until complete. Numbers are emitted digit by digit except
//!   hex/octal/binary literals, which are emitted once complete. `True` and
//!   friends are emitted once the word has ended. The closing `"` of a string
//!   is emitted when the next token shows that no adjacent string literal
//!   follows.
//!
//! # Conversions
//!
//! | Python | JSON |
//! | --- | --- |
//! | `a=1, b='x')` (trailing comma, whitespace, newlines, `#` comments and `\` line continuations allowed) | `{"a":1,"b":"x"}` |
//! | `)` (no arguments) | `{}` |
//! | `'..'`, `".."`, `'''..'''`, `"""..."""`, prefixes `r R u U` | JSON string |
//! | `'a' "b"` (adjacent literals) | `"ab"` |
//! | `1_000`, `+5`, `-3`, `0x1F`, `0o17`, `0b101` | `1000`, `5`, `-3`, `31`, `15`, `5` |
//! | `1.5`, `1.`, `.5`, `-.5`, `1.e3`, `1E+10`, `007.5` | `1.5`, `1.0`, `0.5`, `-0.5`, `1.0e3`, `1e+10`, `7.5` |
//! | `True` `False` `None` (also `true` `false` `null`) | `true` `false` `null` |
//! | `[..]`, `(a,)`, `(a, b)`, `()` | JSON arrays |
//! | `{k: v}` | JSON object |
//!
//! String escapes: `\n \t \r \\ \' \" \a \b \f \v`, octal `\o` `\oo` `\ooo`,
//! `\xHH` (a Latin-1 code point), `\uXXXX`, `\UXXXXXXXX`, and
//! backslash-newline (line continuation, produces nothing). Unknown escapes
//! such as `\d` keep the backslash, as Python does (`"\\d"`). In raw strings
//! every backslash is kept. Control characters, `"` and `\` are escaped in the
//! output; other characters, including non-ASCII ones, are copied as UTF-8.
//!
//! # Choices: rejected with [`PyStatus::Invalid`]
//!
//! - Positional arguments (`f(1)`, `f(x)`, `f(True)`): reason
//!   `"positional argument"`. `*a` and `**kw` are rejected too.
//! - Argument names are ASCII identifiers (`[A-Za-z_][A-Za-z0-9_]*`);
//!   non-ASCII identifiers are rejected.
//! - Values must be literals: names (`x=foo`), `inf`/`nan`, calls (`f(1)`),
//!   operators (`1+2`), attribute access and subscripts are rejected.
//! - Bytes literals (`b'..'`), f-strings (`f'..'`) and `\N{..}` escapes.
//! - Surrogate escapes, except that a `\uXXXX` high surrogate immediately
//!   followed by a `\uXXXX` low surrogate is combined into one character
//!   (what a model imitating JSON means; CPython would keep two lone
//!   surrogates, which JSON/UTF-8 cannot carry).
//! - Invalid UTF-8 in strings. (A literal newline or carriage return in a string,
//!   single-quoted too, is content: `\n` / `\r`, CRLF not normalised. Python
//!   rejects it in a single-quoted string, but models write multi-line values so and
//!   SGLang's LFM2 parser reads them.)
//! - A parenthesised single value `(1)`, since its `[` has already been
//!   streamed: write a 1-tuple as `(1,)`. Parenthesised tuples such as
//!   `((1, 2))` are rejected for the same reason.
//! - Lists, tuples or dicts as dict keys; sets (`{1, 2}`).
//! - Hex, octal and binary literals that do not fit in a `u64`.
//! - Nesting of lists, tuples and dicts deeper than the limit given to
//!   [`PyArgs::with_max_depth`] (64 for [`PyArgs::new`]).
//!
//! # Choices: accepted
//!
//! - Lowercase `true` / `false` / `null`, which models sometimes emit.
//! - Dict keys that are numbers, booleans or `None` are stringified as
//!   Python's `json.dumps` does (`{1: 2, True: 3, None: 4}` becomes
//!   `{"1":2,"true":3,"null":4}`), after the number conversion above, so
//!   `0x10` becomes `"16"` and `1.` becomes `"1.0"`.
//! - Decimal integers and floats of any length are passed through; magnitudes
//!   are not checked. A float literal beyond the `f64` range (which Python
//!   would turn into `inf`) or a huge integer is emitted as syntactically
//!   valid JSON number text, which some JSON parsers (e.g. `serde_json`
//!   without `arbitrary_precision`) reject as out of range.
//! - Leniencies where CPython reports a syntax error: Python keywords as
//!   argument names (`if=1`), repeated argument names (a repeated JSON member
//!   is emitted), NUL bytes in strings and comments, and invalid UTF-8 inside
//!   `#` comments (comment bytes are skipped unchecked).

use std::fmt::Write as _;

use memchr::{memchr, memchr2, memchr3};

/// Nesting limit used by [`PyArgs::new`].
const DEFAULT_MAX_DEPTH: usize = 64;

const R_POSITIONAL: &str = "positional argument";
const R_UNPACK: &str = "argument unpacking (*args, **kwargs) is not supported";
const R_EXPECTED_ARG: &str = "expected a keyword argument or ')'";
const R_NON_ASCII_IDENT: &str = "non-ASCII identifiers are not supported";
const R_EXPECTED_VALUE: &str = "expected a value";
const R_NOT_LITERAL: &str = "the value is not a literal (a bare name: only True, False, None, true, false, null and quoted strings are)";
const R_CALL: &str = "function calls are not supported as values";
const R_EXPR: &str = "expression is not a literal value (operators, calls, attributes and subscripts are not supported)";
const R_BYTES: &str = "bytes literals are not supported";
const R_FSTRING: &str = "f-strings are not supported";
const R_PREFIX: &str = "unsupported string prefix";
const R_CONCAT: &str = "only string literals can follow a string literal";
const R_EXPECTED_ARG_SEP: &str = "expected ',' or ')' after keyword argument value";
const R_EXPECTED_LIST_SEP: &str = "expected ',' or ']' in list";
const R_EXPECTED_TUPLE_SEP: &str = "expected ',' or ')' in tuple";
const R_EXPECTED_DICT_SEP: &str = "expected ',' or '}' in dict";
const R_EXPECTED_COLON: &str = "expected ':' after dict key";
const R_SET: &str = "set literals are not supported";
const R_PAREN: &str = "parenthesized expression is not a tuple (write a 1-tuple as (x,))";
const R_KEY: &str = "dict keys must be strings, numbers, booleans or None";
const R_DEPTH: &str = "nesting too deep";
const R_DIGIT: &str = "expected a digit";
const R_EXP_DIGIT: &str = "expected exponent digits";
const R_RADIX_DIGIT: &str = "expected digits after base prefix";
const R_UNDERSCORE: &str = "'_' in a number must be followed by a digit";
const R_MALFORMED: &str = "malformed number";
const R_LEADING_ZERO: &str = "leading zeros in decimal integer literals are not permitted";
const R_COMPLEX: &str = "complex numbers are not supported";
const R_TOO_LARGE: &str = "integer literal too large (hex/octal/binary must fit in 64 bits)";
const R_REPEATED: &str = "keyword argument repeated";
const R_UTF8: &str = "invalid UTF-8 in string";
const R_SURROGATE: &str = "unpaired surrogate escape";
const R_RANGE: &str = "escape out of range";
const R_TRUNC_X: &str = "truncated \\xXX escape";
const R_TRUNC_U4: &str = "truncated \\uXXXX escape";
const R_TRUNC_U8: &str = "truncated \\UXXXXXXXX escape";
const R_NAMED: &str = "\\N{...} escapes are not supported";
const R_BACKSLASH: &str = "'\\' outside a string must end the line (line continuation)";
const R_INTERNAL: &str = "internal state error";

/// Bare words that may still become a literal or a string prefix. Bytes and
/// f-string prefixes are listed so that the error is reported at the quote
/// with a precise reason.
const WORDS: &[&[u8]] = &[
    b"True", b"False", b"None", b"true", b"false", b"null", b"r", b"R", b"u", b"U", b"b", b"B",
    b"br", b"bR", b"Br", b"BR", b"rb", b"rB", b"Rb", b"RB", b"f", b"F", b"fr", b"fR", b"Fr", b"FR",
    b"rf", b"rF", b"Rf", b"RF",
];

/// Result of one [`PyArgs::feed`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyStatus {
    /// All of the input was consumed; the call is still open.
    NeedMore,
    /// The closing `)` was consumed; `consumed` is the number of bytes of THIS
    /// feed's input used (including the `)`), so the caller can continue
    /// scanning the rest. Feeding again after `Done` (before
    /// [`PyArgs::reset`]) returns `Done { consumed: 0 }` and appends nothing.
    Done {
        /// Bytes of this feed's input used, including the closing `)`.
        consumed: usize,
    },
    /// The input is not a Python literal argument list. `at` = offset in this
    /// feed's input of the offending byte (the byte whose arrival made the
    /// error certain). After an error the transducer stays in error state:
    /// later feeds return `Invalid { at: 0, .. }` with the same reason and
    /// append nothing.
    Invalid {
        /// Offset in this feed's input of the offending byte.
        at: usize,
        /// Human-readable, static description of the problem.
        reason: &'static str,
    },
}

/// Kind of an open container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    List,
    Tuple,
    Dict,
}

/// One open container on the nesting stack.
#[derive(Debug, Clone, Copy)]
struct Frame {
    kind: Kind,
    /// Elements (dict: keys) started so far, saturating at 2.
    count: u8,
    /// Dict only: the next value is a key.
    key: bool,
}

/// A bare word being read: a literal keyword or a string prefix.
#[derive(Debug, Clone, Copy)]
struct Word {
    buf: [u8; 5],
    len: u8,
    /// Read right after a string literal: only a string prefix may follow.
    concat: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumPhase {
    /// After an optional sign, before any digit.
    Begin,
    /// Integer part made of zeros only (none emitted yet).
    Zero,
    /// Integer part with a non-zero digit (emitted).
    Int,
    /// After `.` that follows integer digits (`.` emitted).
    Dot,
    /// After a leading `.` (`0.` emitted); a digit must follow.
    DotNoInt,
    /// Fraction digits.
    Frac,
    /// After `e`/`E` (`e` emitted).
    ExpStart,
    /// After the exponent sign.
    ExpSign,
    /// Exponent digits.
    Exp,
    /// After `0x`/`0o`/`0b`.
    RadixStart,
    /// Hex/octal/binary digits (accumulated in `val`).
    Radix,
}

/// A number being read.
#[derive(Debug, Clone, Copy)]
struct Num {
    phase: NumPhase,
    /// The previous byte was `_`: a digit must follow.
    us: bool,
    /// The number is a dict key: it is wrapped in quotes.
    key: bool,
    /// The integer part is exactly one `0` (a base prefix may follow).
    single_zero: bool,
    /// The integer part had leading zeros: only valid if a float follows.
    lead_zero: bool,
    /// A `-` was read but not yet emitted: it is dropped for an integer zero
    /// (`-0` and `-0x0` are the integer 0, as in Python).
    neg: bool,
    radix: u8,
    val: u64,
}

impl Num {
    /// Emits a pending `-`.
    fn sign(&mut self, out: &mut String) {
        if self.neg {
            out.push('-');
            self.neg = false;
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HexKind {
    X,
    U4,
    U8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StrPhase {
    /// Ordinary content.
    Body,
    /// Triple-quoted string: this many closing-quote candidates seen (1 or 2).
    Quotes(u8),
    /// After `\` in a non-raw string.
    Esc,
    /// After `\` in a raw string.
    RawEsc,
    /// Inside `\x`, `\u` or `\U`: `left` hex digits still expected.
    Hex { kind: HexKind, left: u8, val: u32 },
    /// Inside an octal escape with `n` digits so far.
    Oct { n: u8, val: u32 },
}

/// Inside a string literal (its opening `"` is already emitted).
#[derive(Debug, Clone, Copy)]
struct Str {
    quote: u8,
    triple: bool,
    raw: bool,
    phase: StrPhase,
    /// Pending high surrogate from a `\uD8xx` escape (0 = none).
    high: u16,
    /// Incomplete UTF-8 sequence held back (only in `Body`).
    utf8: [u8; 4],
    utf8_len: u8,
}

impl Str {
    fn new(quote: u8, triple: bool, raw: bool) -> Self {
        Str {
            quote,
            triple,
            raw,
            phase: StrPhase::Body,
            high: 0,
            utf8: [0; 4],
            utf8_len: 0,
        }
    }
}

// State machine. Containers live on `PyArgs::stack`; the top frame (none:
// the argument list itself) decides what `,` `:` `)` `]` `}` mean in
// AfterValue and ElemStart. `#` comments and `\` line continuations between
// tokens are flags checked before the state.
//
//            +---------------------------- ',' ---------------------------+
//            v                                                            |
//  Start -> ArgStart --name--> ArgName --> ArgEq --'='--> Value           |
//  emit '{'  |                                              |             |
//            | ')'                                     value start        |
//            v                                              v             |
//           Done <------------ ')' (no open frame) ---- AfterValue -------+
//                                                       |  ^  |
//                       ',' in list/tuple/dict ---------+  |  +-- ':' after
//                       v                                  |      dict key
//                   ElemStart --']' ')' '}' (pop frame)----+      --> Value
//                       |
//                  value start
//
//  value start:
//    '[' '(' '{'  --push frame-----------------------------> ElemStart
//    digit . - +  --> Num  ---------- end of number -------> AfterValue
//    letter       --> Word ---------- True/None/... -------> AfterValue
//                       |
//                       +-- r/u + quote --+
//                                         v
//    quote  --------------------------> StrOpen --> Str --quote--> AfterStr
//                                         ^                          |
//                                         +---- quote or r/u prefix -+
//                                               (concatenation)      |
//                                                    other byte --> AfterValue
//
//  Str phases: Body <-> Quotes(1|2) (triple-quote close), Body -> Esc ->
//  Hex | Oct -> Body, Body -> RawEsc -> Body.
//  Any state --bad byte--> Error (sticky).
#[derive(Debug, Clone, Copy)]
enum State {
    /// Nothing fed yet; `{` not yet emitted.
    Start,
    /// Expecting an argument name or `)`.
    ArgStart,
    /// Inside an argument name.
    ArgName,
    /// After an argument name, expecting `=`.
    ArgEq,
    /// Expecting a value after `=` or `:`.
    Value,
    /// After an opening bracket or a `,` inside a container.
    ElemStart,
    /// Reading a bare word.
    Word(Word),
    /// Reading a number.
    Num(Num),
    /// After `n` opening quotes (1 or 2): single, empty or triple string?
    StrOpen { quote: u8, raw: bool, n: u8 },
    /// Inside a string.
    Str(Str),
    /// After a string literal's closing quote; its JSON `"` is not emitted yet.
    AfterStr,
    /// After a complete value.
    AfterValue,
    /// The closing `)` was consumed.
    Done,
    /// Invalid input was seen.
    Error(&'static str),
}

/// Streaming transducer: Python keyword arguments `a=1, b='x')` -> JSON object text `{"a":1,"b":"x"}`.
///
/// Feed it the bytes that follow the call's `(` in any number of pieces; see
/// the [module documentation](self) for the accepted syntax and conversions.
///
/// ```
/// use toolstream::scan::pythonic::{PyArgs, PyStatus};
///
/// let mut args = PyArgs::new();
/// let mut out = String::new();
/// assert_eq!(args.feed(b"city='Par", &mut out), PyStatus::NeedMore);
/// assert_eq!(out, r#"{"city":"Par"#);
/// assert_eq!(args.feed(b"is', days=3)]", &mut out), PyStatus::Done { consumed: 12 });
/// assert_eq!(out, r#"{"city":"Paris","days":3}"#);
/// ```
#[derive(Debug, Clone)]
pub struct PyArgs {
    state: State,
    stack: Vec<Frame>,
    max_depth: usize,
    /// At least one argument has been started (a `,` precedes the next one).
    any_arg: bool,
    /// Inside a `#` comment (skipping to the end of the line).
    comment: bool,
    /// After a `\\` outside a string: a newline must follow.
    cont: bool,
    /// The deepest nesting of lists, tuples and dicts reached since the last reset.
    deepest: usize,
    /// The keyword being read (held until complete: a repeated one is refused before
    /// any of it is written), then the last one read.
    name: String,
    /// The keywords read so far.
    names: crate::scan::members::Members,
    /// Past the `=` of the keyword in `name`: reading (or just after) its value.
    in_value: bool,
    /// A `<` in string content stops the feed ([`take_stop`](Self::take_stop)): the
    /// caller looks for the syntax's special tokens there.
    stop: Option<crate::scan::find::StopByte>,
    /// The next such `<` is content (the caller looked: no token).
    skip_stop: bool,
    /// Where the last feed stopped.
    stopped: Option<usize>,
}

impl Default for PyArgs {
    fn default() -> Self {
        Self::new()
    }
}

/// Outcome of processing one byte on the slow path.
enum Step {
    /// The byte was consumed.
    Next,
    /// The state changed; process the same byte again.
    Again,
    /// The closing `)` was consumed.
    Done,
    /// The byte is invalid.
    Fail(&'static str),
}

/// Outcome of processing one byte inside a string.
enum SStep {
    Next,
    Again,
    Close,
    Fail(&'static str),
}

/// Per-feed caches of facts about the input, so that the string fast path
/// never scans a byte twice however often strings start and stop:
/// no string-special byte for `quote` in `special_from..special_to`, no
/// control byte in `ctrl_from..ctrl_to`, and `window` is the valid UTF-8 text
/// `input[window_from..window_from + window.len()]`.
struct Scan<'a> {
    special_from: usize,
    special_to: usize,
    quote: u8,
    ctrl_from: usize,
    ctrl_to: usize,
    window_from: usize,
    window: &'a str,
}

impl Scan<'_> {
    fn new() -> Self {
        Scan {
            special_from: usize::MAX,
            special_to: 0,
            quote: 0,
            ctrl_from: usize::MAX,
            ctrl_to: 0,
            window_from: usize::MAX,
            window: "",
        }
    }
}

impl PyArgs {
    /// Creates a transducer with the default nesting limit (64).
    pub fn new() -> Self {
        Self::with_max_depth(DEFAULT_MAX_DEPTH)
    }

    /// Creates a transducer that allows at most `depth` nested lists, tuples
    /// and dicts inside an argument value (`x=[[1]]` has depth 2; with
    /// `depth == 0` only scalars are accepted). Deeper nesting is
    /// [`PyStatus::Invalid`].
    pub fn with_max_depth(depth: usize) -> Self {
        PyArgs {
            state: State::Start,
            stack: Vec::with_capacity(depth.min(16)),
            max_depth: depth,
            any_arg: false,
            comment: false,
            cont: false,
            deepest: 0,
            name: String::new(),
            names: crate::scan::members::Members::default(),
            in_value: false,
            stop: None,
            skip_stop: false,
            stopped: None,
        }
    }

    /// The deepest nesting of lists, tuples and dicts reached since the last
    /// [`reset`](Self::reset) (`x=[[1]]`: 2); the JSON text is one deeper (its object).
    pub(crate) fn deepest(&self) -> usize {
        self.deepest
    }

    /// Whether all of `input` is more of the string being read that
    /// [`feed`](Self::feed) would append to the output unchanged, leaving the state as it
    /// is: ordinary content (no quote, backslash, control or DEL byte) of a string with
    /// nothing pending, given that `input` is complete UTF-8 (the caller checks). The
    /// text scanners' hot path hands such input on without the state machine.
    #[cfg(test)]
    pub(crate) fn string_run(&self, input: &[u8]) -> bool {
        self.string_span(input) == Span::All
    }

    /// [`string_run`](Self::string_run), and whether all of `input` but a stop byte at
    /// its end (where a token may begin, the byte after it not seen yet) is such a run
    /// ([`Span::Head`]: the feed would stop there). One table load per byte.
    #[inline]
    pub(crate) fn string_span(&self, input: &[u8]) -> Span {
        let State::Str(s) = &self.state else {
            return Span::No;
        };
        if s.phase != StrPhase::Body || s.utf8_len != 0 || s.high != 0 || self.comment || self.cont
        {
            return Span::No;
        }
        let table = if s.quote == b'\'' {
            &PY_CLASSES[1]
        } else {
            &PY_CLASSES[0]
        };
        let acc = input.iter().fold(0u8, |acc, &b| acc | py_class(table, b));
        if acc == 0 {
            return Span::All;
        }
        if acc & PY_END != 0 {
            return Span::No;
        }
        // Only `<`: content without stops; with them, the first one where a token may
        // begin stops the feed (at the end of `input`: the head is a run).
        let Some(stop) = self.stop else {
            return Span::All;
        };
        if self.skip_stop {
            return Span::No;
        }
        let last = input.len().saturating_sub(1);
        match (0..input.len())
            .find(|&i| input.get(i) == Some(&b'<') && stop.may_begin(input.get(i + 1)))
        {
            None => Span::All,
            Some(i) if i == last => Span::Head,
            Some(_) => Span::No,
        }
    }

    /// Consume bytes; append the JSON text produced so far to `out` (append-only: never retract what was appended).
    ///
    /// The first call appends `{` even if `input` is empty. Returns
    /// [`PyStatus::Done`] as soon as the closing `)` is consumed (later bytes
    /// of `input` are left alone), [`PyStatus::Invalid`] at the first byte
    /// that cannot be part of a literal keyword-argument list, and
    /// [`PyStatus::NeedMore`] otherwise.
    pub fn feed(&mut self, input: &[u8], out: &mut String) -> PyStatus {
        // With stops: the input up to each `<` where a token may begin, which stops the
        // feed when it is string content (the caller looks there), or is read as the
        // plain feed reads it (the next segment starts with it). One call of the plain
        // feed in the loop, so it is inlined here.
        let mut from = 0;
        let mut past = 0;
        loop {
            let rest = input.get(from..).unwrap_or_default();
            let mut lt = None;
            if let Some(stop) = self.stop {
                // A `<` followed by a byte that continues no token (`<b`) is read as the
                // plain feed reads it wherever it is: the segment goes on over it.
                let mut k = past;
                while let Some(p) =
                    crate::scan::find::find1(b'<', rest.get(k..).unwrap_or_default())
                {
                    let at = k + p;
                    if std::mem::take(&mut self.skip_stop) || !stop.may_begin(rest.get(at + 1)) {
                        k = at + 1;
                        continue;
                    }
                    lt = Some(at);
                    break;
                }
            }
            let status = self.feed_plain(
                rest.get(..lt.unwrap_or(rest.len())).unwrap_or_default(),
                out,
            );
            if let Some(st) = shifted(status, from) {
                return st;
            }
            let Some(p) = lt else {
                return PyStatus::NeedMore;
            };
            from += p;
            if self.in_string_body() {
                self.stopped = Some(from);
                return PyStatus::NeedMore;
            }
            // Not string content: the next segment starts with it.
            past = 1;
        }
    }

    /// String content stops at each `<` ([`take_stop`](Self::take_stop)), where the
    /// caller looks for the syntax's special tokens (never content).
    pub(crate) fn set_stop(&mut self, stop: Option<crate::scan::find::StopByte>) {
        self.stop = stop;
    }

    /// The stop byte of [`set_stop`](Self::set_stop), unless the next stop byte is to
    /// be read as content ([`past_stop`](Self::past_stop) pending).
    #[inline]
    pub(crate) fn stop(&self) -> Option<crate::scan::find::StopByte> {
        self.stop.filter(|_| !self.skip_stop)
    }

    /// After a feed answered `NeedMore`: where it stopped at a `<` in string content
    /// (nothing from there consumed), if it did.
    pub(crate) fn take_stop(&mut self) -> Option<usize> {
        self.stopped.take()
    }

    /// After a stop: the `<` there begins no token; the next feed reads it as content.
    pub(crate) fn past_stop(&mut self) {
        self.skip_stop = true;
    }

    /// In a string's content, nothing pending.
    fn in_string_body(&self) -> bool {
        matches!(&self.state, State::Str(s)
            if s.phase == StrPhase::Body && s.utf8_len == 0 && s.high == 0)
            && !self.comment
            && !self.cont
    }

    /// [`feed`](Self::feed) without stops.
    #[inline(always)]
    fn feed_plain(&mut self, input: &[u8], out: &mut String) -> PyStatus {
        match self.state {
            State::Done => return PyStatus::Done { consumed: 0 },
            State::Error(reason) => return PyStatus::Invalid { at: 0, reason },
            State::Start => {
                out.push('{');
                self.state = State::ArgStart;
            }
            _ => {}
        }
        let mut scan = Scan::new();
        let mut i = 0;
        while i < input.len() {
            if self.comment {
                let rest = input.get(i..).unwrap_or_default();
                match memchr(b'\n', rest) {
                    Some(p) => {
                        self.comment = false;
                        i += p + 1;
                    }
                    None => i = input.len(),
                }
                continue;
            }
            if self.cont {
                // Explicit line joining: `\\` must end the line.
                if input.get(i).is_some_and(|&b| b == b'\n' || b == b'\r') {
                    self.cont = false;
                    i += 1;
                    continue;
                }
                self.state = State::Error(R_BACKSLASH);
                return PyStatus::Invalid {
                    at: i,
                    reason: R_BACKSLASH,
                };
            }
            if let State::Str(s) = &mut self.state
                && s.phase == StrPhase::Body
                && s.utf8_len == 0
                && s.high == 0
            {
                let n = fast_body(s, input, i, &mut scan, out);
                if n > 0 {
                    i += n;
                    continue;
                }
            }
            let Some(&b) = input.get(i) else { break };
            match self.step(b, out) {
                Step::Next => i += 1,
                Step::Again => {}
                Step::Done => {
                    self.state = State::Done;
                    return PyStatus::Done { consumed: i + 1 };
                }
                Step::Fail(reason) => {
                    self.state = State::Error(reason);
                    return PyStatus::Invalid { at: i, reason };
                }
            }
        }
        PyStatus::NeedMore
    }

    /// Reset for reuse without freeing buffers.
    pub fn reset(&mut self) {
        self.state = State::Start;
        self.stack.clear();
        self.any_arg = false;
        self.comment = false;
        self.cont = false;
        self.deepest = 0;
        self.name.clear();
        self.names.clear();
        self.in_value = false;
        self.skip_stop = false;
        self.stopped = None;
    }

    /// The keyword argument whose value is being read (or was, when the input broke
    /// there): for messages that name the argument at fault.
    pub(crate) fn argument(&self) -> Option<&str> {
        self.in_value.then_some(self.name.as_str())
    }

    /// Whitespace between tokens: blanks, newlines, a `#` comment or a
    /// backslash line continuation. Returns whether `b` was consumed as such.
    fn gap(&mut self, b: u8) -> bool {
        match b {
            b'#' => self.comment = true,
            b'\\' => self.cont = true,
            _ => return is_ws(b),
        }
        true
    }

    /// The next value is a dict key.
    fn in_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                kind: Kind::Dict,
                key: true,
                ..
            })
        )
    }

    /// Processes one byte on the slow path.
    fn step(&mut self, b: u8, out: &mut String) -> Step {
        match self.state {
            State::Start | State::ArgStart => self.arg_start(b, out),
            State::ArgName => {
                if is_ident(b) {
                    self.name.push(char::from(b));
                    Step::Next
                } else if !self.names.insert(&self.name) {
                    // Python's "keyword argument repeated": refused before any of it is
                    // written (the recovery rule: a repeated argument is an error).
                    Step::Fail(R_REPEATED)
                } else {
                    if self.any_arg {
                        out.push(',');
                    }
                    self.any_arg = true;
                    out.push('"');
                    out.push_str(&self.name);
                    out.push('"');
                    self.state = State::ArgEq;
                    Step::Again
                }
            }
            State::ArgEq => match b {
                b'=' => {
                    out.push(':');
                    self.in_value = true;
                    self.state = State::Value;
                    Step::Next
                }
                _ if self.gap(b) => Step::Next,
                0x80.. => Step::Fail(R_NON_ASCII_IDENT),
                _ => Step::Fail(R_POSITIONAL),
            },
            State::Value => self.value_pos(b, out, false),
            State::ElemStart => self.elem_start(b, out),
            State::Word(w) => self.word_step(w, b, out),
            State::Num(n) => self.num_step(n, b, out),
            State::StrOpen { quote, raw, n } => {
                if b == quote {
                    self.state = if n == 1 {
                        State::StrOpen { quote, raw, n: 2 }
                    } else {
                        State::Str(Str::new(quote, true, raw))
                    };
                    Step::Next
                } else if n == 1 {
                    self.state = State::Str(Str::new(quote, false, raw));
                    Step::Again
                } else {
                    // `''`: an empty string.
                    self.state = State::AfterStr;
                    Step::Again
                }
            }
            State::Str(mut s) => match str_byte(&mut s, b, out) {
                SStep::Next => {
                    self.state = State::Str(s);
                    Step::Next
                }
                SStep::Again => {
                    self.state = State::Str(s);
                    Step::Again
                }
                SStep::Close => {
                    self.state = State::AfterStr;
                    Step::Next
                }
                SStep::Fail(r) => Step::Fail(r),
            },
            State::AfterStr => self.after_str(b, out),
            State::AfterValue => self.after_value(b, out),
            State::Done | State::Error(_) => Step::Fail(R_INTERNAL),
        }
    }

    fn arg_start(&mut self, b: u8, out: &mut String) -> Step {
        self.in_value = false;
        match b {
            b')' => {
                out.push('}');
                Step::Done
            }
            _ if self.gap(b) => Step::Next,
            _ if is_ident_start(b) => {
                self.name.clear();
                self.name.push(char::from(b));
                self.state = State::ArgName;
                Step::Next
            }
            b'*' => Step::Fail(R_UNPACK),
            b'\'' | b'"' | b'0'..=b'9' | b'.' | b'-' | b'+' | b'[' | b'(' | b'{' => {
                Step::Fail(R_POSITIONAL)
            }
            0x80.. => Step::Fail(R_NON_ASCII_IDENT),
            _ => Step::Fail(R_EXPECTED_ARG),
        }
    }

    /// A value may start here (after `=`, `:`, an opening bracket or `,`).
    /// `comma`: this starts a new container element.
    fn value_pos(&mut self, b: u8, out: &mut String, comma: bool) -> Step {
        if self.gap(b) {
            return Step::Next;
        }
        let starts_value = matches!(
            b,
            b'\'' | b'"' | b'0'..=b'9' | b'.' | b'-' | b'+' | b'[' | b'(' | b'{'
        ) || is_ident_start(b);
        if !starts_value {
            return Step::Fail(R_EXPECTED_VALUE);
        }
        let key = self.in_key();
        if key && matches!(b, b'[' | b'(' | b'{') {
            return Step::Fail(R_KEY);
        }
        if comma && let Some(f) = self.stack.last_mut() {
            if f.count > 0 {
                out.push(',');
            }
            f.count = f.count.saturating_add(1).min(2);
        }
        match b {
            b'\'' | b'"' => {
                out.push('"');
                self.state = State::StrOpen {
                    quote: b,
                    raw: false,
                    n: 1,
                };
                Step::Next
            }
            b'[' | b'(' | b'{' => self.open(b, out),
            b'0'..=b'9' | b'.' | b'-' | b'+' => self.start_num(b, key, out),
            _ => self.word_step(
                Word {
                    buf: [0; 5],
                    len: 0,
                    concat: false,
                },
                b,
                out,
            ),
        }
    }

    fn elem_start(&mut self, b: u8, out: &mut String) -> Step {
        let close = match self.stack.last() {
            Some(f) => match f.kind {
                Kind::List => b']',
                Kind::Tuple => b')',
                Kind::Dict => b'}',
            },
            None => return Step::Fail(R_INTERNAL),
        };
        if b == close {
            self.close(out)
        } else {
            self.value_pos(b, out, true)
        }
    }

    fn open(&mut self, b: u8, out: &mut String) -> Step {
        if self.stack.len() >= self.max_depth {
            return Step::Fail(R_DEPTH);
        }
        let kind = match b {
            b'[' => Kind::List,
            b'(' => Kind::Tuple,
            _ => Kind::Dict,
        };
        out.push(if kind == Kind::Dict { '{' } else { '[' });
        self.stack.push(Frame {
            kind,
            count: 0,
            key: kind == Kind::Dict,
        });
        self.deepest = self.deepest.max(self.stack.len());
        self.state = State::ElemStart;
        Step::Next
    }

    fn close(&mut self, out: &mut String) -> Step {
        match self.stack.pop() {
            Some(f) => {
                out.push(if f.kind == Kind::Dict { '}' } else { ']' });
                self.state = State::AfterValue;
                Step::Next
            }
            None => Step::Fail(R_INTERNAL),
        }
    }

    fn after_value(&mut self, b: u8, out: &mut String) -> Step {
        if self.gap(b) {
            return Step::Next;
        }
        let Some(&f) = self.stack.last() else {
            return match b {
                b',' => {
                    self.state = State::ArgStart;
                    Step::Next
                }
                b')' => {
                    out.push('}');
                    Step::Done
                }
                _ => Step::Fail(expr_or(b, R_EXPECTED_ARG_SEP)),
            };
        };
        match (f.kind, b) {
            (Kind::List | Kind::Tuple, b',') => {
                self.state = State::ElemStart;
                Step::Next
            }
            (Kind::List, b']') => self.close(out),
            (Kind::List, _) => Step::Fail(expr_or(b, R_EXPECTED_LIST_SEP)),
            (Kind::Tuple, b')') if f.count == 1 => Step::Fail(R_PAREN),
            (Kind::Tuple, b')') => self.close(out),
            (Kind::Tuple, _) => Step::Fail(expr_or(b, R_EXPECTED_TUPLE_SEP)),
            (Kind::Dict, b':') if f.key => {
                self.set_dict_key(false);
                out.push(':');
                self.state = State::Value;
                Step::Next
            }
            (Kind::Dict, b',' | b'}') if f.key => Step::Fail(R_SET),
            (Kind::Dict, _) if f.key => Step::Fail(expr_or(b, R_EXPECTED_COLON)),
            (Kind::Dict, b',') => {
                self.set_dict_key(true);
                self.state = State::ElemStart;
                Step::Next
            }
            (Kind::Dict, b'}') => self.close(out),
            (Kind::Dict, _) => Step::Fail(expr_or(b, R_EXPECTED_DICT_SEP)),
        }
    }

    fn set_dict_key(&mut self, key: bool) {
        if let Some(f) = self.stack.last_mut() {
            f.key = key;
        }
    }

    fn after_str(&mut self, b: u8, out: &mut String) -> Step {
        if self.gap(b) {
            Step::Next
        } else if b == b'\'' || b == b'"' {
            // Adjacent literal: continue the same JSON string.
            self.state = State::StrOpen {
                quote: b,
                raw: false,
                n: 1,
            };
            Step::Next
        } else if is_ident_start(b) {
            self.word_step(
                Word {
                    buf: [0; 5],
                    len: 0,
                    concat: true,
                },
                b,
                out,
            )
        } else {
            out.push('"');
            self.state = State::AfterValue;
            Step::Again
        }
    }

    fn word_step(&mut self, mut w: Word, b: u8, out: &mut String) -> Step {
        if !is_ident(b) {
            return self.word_end(w, b, out);
        }
        let len = usize::from(w.len);
        let Some(slot) = w.buf.get_mut(len) else {
            return Step::Fail(R_NOT_LITERAL);
        };
        *slot = b;
        w.len += 1;
        let cur = w.buf.get(..=len).unwrap_or_default();
        if !WORDS.iter().any(|x| x.starts_with(cur)) {
            return Step::Fail(if w.concat { R_CONCAT } else { R_NOT_LITERAL });
        }
        self.state = State::Word(w);
        Step::Next
    }

    fn word_end(&mut self, w: Word, b: u8, out: &mut String) -> Step {
        let word = w.buf.get(..usize::from(w.len)).unwrap_or_default();
        if b == b'\'' || b == b'"' {
            let raw = match word {
                b"r" | b"R" => true,
                b"u" | b"U" => false,
                _ if word.iter().any(|&c| c == b'b' || c == b'B') => {
                    return Step::Fail(R_BYTES);
                }
                _ if word.iter().any(|&c| c == b'f' || c == b'F') => {
                    return Step::Fail(R_FSTRING);
                }
                _ => return Step::Fail(R_PREFIX),
            };
            if !w.concat {
                out.push('"');
            }
            self.state = State::StrOpen {
                quote: b,
                raw,
                n: 1,
            };
            return Step::Next;
        }
        if w.concat {
            return Step::Fail(R_CONCAT);
        }
        let lit = match word {
            b"True" | b"true" => "true",
            b"False" | b"false" => "false",
            b"None" | b"null" => "null",
            _ if b == b'(' => return Step::Fail(R_CALL),
            _ => return Step::Fail(R_NOT_LITERAL),
        };
        if self.in_key() {
            out.push('"');
            out.push_str(lit);
            out.push('"');
        } else {
            out.push_str(lit);
        }
        self.state = State::AfterValue;
        Step::Again
    }

    fn start_num(&mut self, b: u8, key: bool, out: &mut String) -> Step {
        if key {
            out.push('"');
        }
        self.state = State::Num(Num {
            phase: NumPhase::Begin,
            us: false,
            key,
            single_zero: false,
            lead_zero: false,
            neg: b == b'-',
            radix: 10,
            val: 0,
        });
        match b {
            b'-' | b'+' => Step::Next,
            _ => Step::Again,
        }
    }

    fn num_step(&mut self, mut n: Num, b: u8, out: &mut String) -> Step {
        if n.us {
            let ok = match n.phase {
                NumPhase::Radix | NumPhase::RadixStart => digit_val(b) < u32::from(n.radix),
                _ => b.is_ascii_digit(),
            };
            if !ok {
                return Step::Fail(R_UNDERSCORE);
            }
            n.us = false;
        }
        let d = char::from(b);
        match n.phase {
            NumPhase::Begin => match b {
                b'0' => {
                    n.phase = NumPhase::Zero;
                    n.single_zero = true;
                }
                b'1'..=b'9' => {
                    n.sign(out);
                    out.push(d);
                    n.phase = NumPhase::Int;
                }
                b'.' => {
                    n.sign(out);
                    out.push_str("0.");
                    n.phase = NumPhase::DotNoInt;
                }
                // Only reachable after a sign: `- 1` is valid Python.
                _ if self.gap(b) => {}
                _ => return Step::Fail(R_DIGIT),
            },
            NumPhase::Zero => match b {
                b'0' => n.single_zero = false,
                b'_' => {
                    n.us = true;
                    n.single_zero = false;
                }
                b'1'..=b'9' => {
                    n.sign(out);
                    out.push(d);
                    n.phase = NumPhase::Int;
                    n.lead_zero = true;
                }
                b'.' => {
                    n.sign(out);
                    out.push_str("0.");
                    n.phase = NumPhase::Dot;
                }
                b'e' | b'E' => {
                    n.sign(out);
                    out.push_str("0e");
                    n.phase = NumPhase::ExpStart;
                }
                b'x' | b'X' | b'o' | b'O' | b'b' | b'B' if n.single_zero => {
                    n.radix = match b {
                        b'x' | b'X' => 16,
                        b'o' | b'O' => 8,
                        _ => 2,
                    };
                    n.phase = NumPhase::RadixStart;
                }
                _ => return self.num_other(n, b, out),
            },
            NumPhase::Int | NumPhase::Frac | NumPhase::Exp => match b {
                b'0'..=b'9' => out.push(d),
                b'_' => n.us = true,
                b'.' if n.phase == NumPhase::Int => {
                    out.push('.');
                    n.phase = NumPhase::Dot;
                }
                b'e' | b'E' if n.phase != NumPhase::Exp => {
                    out.push('e');
                    n.phase = NumPhase::ExpStart;
                }
                _ => return self.num_other(n, b, out),
            },
            NumPhase::Dot => match b {
                b'0'..=b'9' => {
                    out.push(d);
                    n.phase = NumPhase::Frac;
                }
                b'e' | b'E' => {
                    out.push_str("0e");
                    n.phase = NumPhase::ExpStart;
                }
                _ => return self.num_other(n, b, out),
            },
            NumPhase::DotNoInt => match b {
                b'0'..=b'9' => {
                    out.push(d);
                    n.phase = NumPhase::Frac;
                }
                _ => return Step::Fail(R_DIGIT),
            },
            NumPhase::ExpStart => match b {
                b'+' | b'-' => {
                    out.push(d);
                    n.phase = NumPhase::ExpSign;
                }
                b'0'..=b'9' => {
                    out.push(d);
                    n.phase = NumPhase::Exp;
                }
                _ => return Step::Fail(R_EXP_DIGIT),
            },
            NumPhase::ExpSign => match b {
                b'0'..=b'9' => {
                    out.push(d);
                    n.phase = NumPhase::Exp;
                }
                _ => return Step::Fail(R_EXP_DIGIT),
            },
            NumPhase::RadixStart | NumPhase::Radix => {
                let v = digit_val(b);
                if v < u32::from(n.radix) {
                    match n
                        .val
                        .checked_mul(u64::from(n.radix))
                        .and_then(|x| x.checked_add(u64::from(v)))
                    {
                        Some(x) => n.val = x,
                        None => return Step::Fail(R_TOO_LARGE),
                    }
                    n.phase = NumPhase::Radix;
                } else if b == b'_' {
                    n.us = true;
                } else if n.phase == NumPhase::RadixStart {
                    return Step::Fail(R_RADIX_DIGIT);
                } else {
                    return self.num_other(n, b, out);
                }
            }
        }
        self.state = State::Num(n);
        Step::Next
    }

    /// A byte that is not a valid continuation of the number: either it
    /// terminates the number or the number is malformed.
    fn num_other(&mut self, n: Num, b: u8, out: &mut String) -> Step {
        if b == b'j' || b == b'J' {
            return Step::Fail(R_COMPLEX);
        }
        if is_ident(b) || b == b'.' {
            return Step::Fail(R_MALFORMED);
        }
        match n.phase {
            NumPhase::Zero | NumPhase::Dot => out.push('0'),
            NumPhase::Int if n.lead_zero => return Step::Fail(R_LEADING_ZERO),
            NumPhase::Radix => {
                if n.val != 0 && n.neg {
                    out.push('-');
                }
                let _ = write!(out, "{}", n.val);
            }
            NumPhase::Int | NumPhase::Frac | NumPhase::Exp => {}
            NumPhase::Begin | NumPhase::DotNoInt => return Step::Fail(R_DIGIT),
            NumPhase::ExpStart | NumPhase::ExpSign => return Step::Fail(R_EXP_DIGIT),
            NumPhase::RadixStart => return Step::Fail(R_RADIX_DIGIT),
        }
        if n.key {
            out.push('"');
        }
        self.state = State::AfterValue;
        Step::Again
    }
}

/// Bulk copy of ordinary string content starting at `input[i]`, including
/// the common escapes and `"` in single-quoted strings. Returns the number of
/// bytes consumed; 0 means the byte at `i` needs the slow path.
fn fast_body<'a>(
    s: &mut Str,
    input: &'a [u8],
    start: usize,
    scan: &mut Scan<'a>,
    out: &mut String,
) -> usize {
    let q = s.quote;
    let mut i = start;
    while i < input.len() {
        let rest = input.get(i..).unwrap_or_default();
        if rest.len() <= SHORT {
            // Few bytes left (typical of token-sized feeds): one scalar pass
            // beats setting up memchr, the control scan and UTF-8 validation.
            let n = rest
                .iter()
                .position(|&b| b == q || b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b))
                .unwrap_or(rest.len());
            for &b in rest.get(..n).unwrap_or_default() {
                out.push(char::from(b));
            }
            i += n;
            match rest.get(n) {
                None => break,
                // Non-ASCII text: validated by the general path below.
                Some(&b) if b >= 0x80 => {}
                Some(_) => match inline_special(s, input, i, out) {
                    0 => break,
                    k => {
                        i += k;
                        continue;
                    }
                },
            }
        }
        // Next byte that needs attention: quote, `"` or `\` ...
        if !(scan.quote == q && scan.special_from <= i && i <= scan.special_to) {
            let rest = input.get(i..).unwrap_or_default();
            let hit = if q == b'\'' {
                memchr3(b'\'', b'"', b'\\', rest)
            } else {
                memchr2(b'"', b'\\', rest)
            };
            scan.special_from = i;
            scan.special_to = i + hit.unwrap_or(rest.len());
            scan.quote = q;
        }
        // ... a control byte ...
        if !(scan.ctrl_from <= i && i <= scan.ctrl_to) {
            let rest = input.get(i..).unwrap_or_default();
            scan.ctrl_from = i;
            scan.ctrl_to = i + find_ctrl(rest).unwrap_or(rest.len());
        }
        // ... or the end of the valid UTF-8 text.
        let window_end = scan.window_from.saturating_add(scan.window.len());
        if !(scan.window_from <= i && i < window_end) {
            let rest = input.get(i..).unwrap_or_default();
            scan.window_from = i;
            scan.window = match std::str::from_utf8(rest) {
                Ok(t) => t,
                Err(e) => std::str::from_utf8(rest.get(..e.valid_up_to()).unwrap_or_default())
                    .unwrap_or_default(),
            };
        }
        let window_end = scan.window_from + scan.window.len();
        let stop = scan.special_to.min(scan.ctrl_to).min(window_end);
        if stop > i {
            match scan
                .window
                .get(i - scan.window_from..stop - scan.window_from)
            {
                Some(t) => out.push_str(t),
                None => return i - start,
            }
            i = stop;
        }
        if stop != scan.special_to {
            break;
        }
        match inline_special(s, input, i, out) {
            0 => break,
            k => i += k,
        }
    }
    i - start
}

/// A status of a feed over input that starts `from` bytes into the caller's: `None`
/// for `NeedMore`, else with its offsets shifted.
fn shifted(status: PyStatus, from: usize) -> Option<PyStatus> {
    match status {
        PyStatus::NeedMore => None,
        PyStatus::Done { consumed } => Some(PyStatus::Done {
            consumed: from + consumed,
        }),
        PyStatus::Invalid { at, reason } => Some(PyStatus::Invalid {
            at: from + at,
            reason,
        }),
    }
}

/// Inputs up to this many bytes take the scalar path in [`fast_body`].
const SHORT: usize = 16;

/// Handles the special byte at `input[i]` inline when it is `"` inside a
/// single-quoted string or a common escape. Returns the bytes consumed (0:
/// leave it to the slow path).
fn inline_special(s: &Str, input: &[u8], i: usize, out: &mut String) -> usize {
    match input.get(i) {
        Some(b'"') if s.quote == b'\'' => {
            out.push_str("\\\"");
            1
        }
        Some(b'\\') if !s.raw => {
            let text = match input.get(i + 1) {
                Some(b'n') => "\\n",
                Some(b't') => "\\t",
                Some(b'r') => "\\r",
                Some(b'\\') => "\\\\",
                Some(b'"') => "\\\"",
                Some(b'\'') => "'",
                _ => return 0,
            };
            out.push_str(text);
            2
        }
        _ => 0,
    }
}

/// Position of the first control byte (< 0x20).
fn find_ctrl(s: &[u8]) -> Option<usize> {
    let mut chunks = s.chunks_exact(32);
    let mut off = 0;
    for c in &mut chunks {
        if c.iter().fold(0u8, |a, &b| a | u8::from(b < 0x20)) != 0 {
            return c.iter().position(|&b| b < 0x20).map(|p| off + p);
        }
        off += 32;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b < 0x20)
        .map(|p| off + p)
}

/// One byte of string content on the slow path.
fn str_byte(s: &mut Str, b: u8, out: &mut String) -> SStep {
    match s.phase {
        StrPhase::Body => body_byte(s, b, out),
        StrPhase::Quotes(k) => {
            if b == s.quote {
                if k >= 2 {
                    SStep::Close
                } else {
                    s.phase = StrPhase::Quotes(k + 1);
                    SStep::Next
                }
            } else {
                for _ in 0..k {
                    push_ascii(out, s.quote);
                }
                s.phase = StrPhase::Body;
                SStep::Again
            }
        }
        StrPhase::Esc => esc_byte(s, b, out),
        StrPhase::RawEsc => {
            // Raw strings keep the backslash and the character after it; the
            // escaped character never ends the string.
            out.push_str("\\\\");
            s.phase = StrPhase::Body;
            if b == s.quote || b == b'\\' {
                push_ascii(out, b);
                SStep::Next
            } else if b == b'\n' {
                out.push_str("\\n");
                SStep::Next
            } else {
                SStep::Again
            }
        }
        StrPhase::Oct { n, val } => {
            if (b'0'..=b'7').contains(&b) {
                let val = val * 8 + u32::from(b - b'0');
                if n >= 2 {
                    s.phase = StrPhase::Body;
                    push_code(out, val)
                } else {
                    s.phase = StrPhase::Oct { n: n + 1, val };
                    SStep::Next
                }
            } else {
                s.phase = StrPhase::Body;
                match push_code(out, val) {
                    SStep::Next => SStep::Again,
                    other => other,
                }
            }
        }
        StrPhase::Hex { kind, left, val } => {
            let v = digit_val(b);
            if v >= 16 {
                return SStep::Fail(match kind {
                    HexKind::X => R_TRUNC_X,
                    HexKind::U4 => R_TRUNC_U4,
                    HexKind::U8 => R_TRUNC_U8,
                });
            }
            let val = (val << 4) | v;
            if left > 1 {
                s.phase = StrPhase::Hex {
                    kind,
                    left: left - 1,
                    val,
                };
                return SStep::Next;
            }
            s.phase = StrPhase::Body;
            match (kind, val) {
                (HexKind::X, _) => push_code(out, val),
                (HexKind::U4, 0xD800..=0xDBFF) if s.high == 0 => {
                    s.high = val as u16;
                    SStep::Next
                }
                (HexKind::U4, 0xDC00..=0xDFFF) if s.high != 0 => {
                    let c = 0x10000 + ((u32::from(s.high) - 0xD800) << 10) + (val - 0xDC00);
                    s.high = 0;
                    push_code(out, c)
                }
                (_, 0xD800..=0xDFFF) => SStep::Fail(R_SURROGATE),
                _ if s.high != 0 => SStep::Fail(R_SURROGATE),
                _ if val > 0x10FFFF => SStep::Fail(R_RANGE),
                _ => push_code(out, val),
            }
        }
    }
}

/// One byte of ordinary content (slow path).
fn body_byte(s: &mut Str, b: u8, out: &mut String) -> SStep {
    if s.utf8_len > 0 {
        let len = usize::from(s.utf8_len);
        let Some(slot) = s.utf8.get_mut(len) else {
            return SStep::Fail(R_UTF8);
        };
        *slot = b;
        let len = len + 1;
        return match std::str::from_utf8(s.utf8.get(..len).unwrap_or_default()) {
            Ok(t) => {
                out.push_str(t);
                s.utf8_len = 0;
                SStep::Next
            }
            Err(e) if e.error_len().is_none() && len < 4 => {
                s.utf8_len = len as u8;
                SStep::Next
            }
            Err(_) => SStep::Fail(R_UTF8),
        };
    }
    if s.high != 0 && b != b'\\' {
        return SStep::Fail(R_SURROGATE);
    }
    match b {
        _ if b == s.quote => {
            if s.triple {
                s.phase = StrPhase::Quotes(1);
                SStep::Next
            } else {
                SStep::Close
            }
        }
        b'\\' => {
            s.phase = if s.raw {
                StrPhase::RawEsc
            } else {
                StrPhase::Esc
            };
            SStep::Next
        }
        0x80.. => {
            if std::str::from_utf8(&[b]).is_err_and(|e| e.error_len().is_some()) {
                return SStep::Fail(R_UTF8);
            }
            s.utf8[0] = b;
            s.utf8_len = 1;
            SStep::Next
        }
        _ => {
            push_ascii(out, b);
            SStep::Next
        }
    }
}

/// The byte after a backslash in a non-raw string.
fn esc_byte(s: &mut Str, b: u8, out: &mut String) -> SStep {
    if s.high != 0 && b != b'u' {
        return SStep::Fail(R_SURROGATE);
    }
    s.phase = StrPhase::Body;
    let text = match b {
        b'\n' => "",
        b'\\' => "\\\\",
        b'\'' => "'",
        b'"' => "\\\"",
        b'a' => "\\u0007",
        b'b' => "\\b",
        b'f' => "\\f",
        b'n' => "\\n",
        b'r' => "\\r",
        b't' => "\\t",
        b'v' => "\\u000b",
        b'0'..=b'7' => {
            s.phase = StrPhase::Oct {
                n: 1,
                val: u32::from(b - b'0'),
            };
            ""
        }
        b'x' | b'u' | b'U' => {
            let (kind, left) = match b {
                b'x' => (HexKind::X, 2),
                b'u' => (HexKind::U4, 4),
                _ => (HexKind::U8, 8),
            };
            s.phase = StrPhase::Hex { kind, left, val: 0 };
            ""
        }
        b'N' => return SStep::Fail(R_NAMED),
        _ => {
            // Unknown escape: Python keeps the backslash; the byte itself is
            // ordinary content.
            out.push_str("\\\\");
            return SStep::Again;
        }
    };
    out.push_str(text);
    SStep::Next
}

/// Appends code point `c` JSON-escaped.
fn push_code(out: &mut String, c: u32) -> SStep {
    match char::from_u32(c) {
        Some(ch) if c < 0x80 => {
            push_ascii(out, ch as u8);
            SStep::Next
        }
        Some(ch) => {
            out.push(ch);
            SStep::Next
        }
        None => SStep::Fail(R_RANGE),
    }
}

/// Appends ASCII byte `b` JSON-escaped.
fn push_ascii(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        0..=0x1f => {
            out.push_str("\\u00");
            for nibble in [b >> 4, b & 15] {
                out.push(char::from(
                    HEX.get(usize::from(nibble)).copied().unwrap_or(b'0'),
                ));
            }
        }
        _ => out.push(char::from(b)),
    }
}

/// Reason for an unexpected byte after a value.
fn expr_or(b: u8, default: &'static str) -> &'static str {
    if matches!(
        b,
        b'+' | b'-'
            | b'*'
            | b'/'
            | b'%'
            | b'@'
            | b'&'
            | b'|'
            | b'^'
            | b'~'
            | b'<'
            | b'>'
            | b'='
            | b'!'
            | b'.'
            | b'('
            | b'['
    ) {
        R_EXPR
    } else {
        default
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Value of a hex digit, or 99.
fn digit_val(b: u8) -> u32 {
    match b {
        b'0'..=b'9' => u32::from(b - b'0'),
        b'a'..=b'f' => u32::from(b - b'a') + 10,
        b'A'..=b'F' => u32::from(b - b'A') + 10,
        _ => 99,
    }
}

/// What [`PyArgs::string_span`] found in a piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Span {
    /// All of it is more of the string, copied unchanged.
    All,
    /// All but its last byte, a stop byte where a token may begin.
    Head,
    /// Neither: the full feed reads it.
    No,
}

/// Class of a byte the transducer does not copy unchanged in a string (a control or DEL
/// byte, `"`, `\\`, the string's quote).
const PY_END: u8 = 1;
/// Class of `<` (content unless a token may begin there, with stops).
const PY_LT: u8 = 2;

/// The class of byte `b` in `table`.
#[inline(always)]
#[allow(clippy::indexing_slicing)] // a `u8` indexes a 256-entry table: always in bounds
fn py_class(table: &[u8; 256], b: u8) -> u8 {
    table[usize::from(b)]
}

#[allow(clippy::indexing_slicing)] // `b` < 256 in a 256-entry table
/// The class table of a string quoted with `'` (`single`) or `"`.
const fn py_classes(single: bool) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let quote = b == b'"' as usize || (single && b == b'\'' as usize);
        t[b] = if b < 0x20 || b == 0x7f || b == b'\\' as usize || quote {
            PY_END
        } else if b == b'<' as usize {
            PY_LT
        } else {
            0
        };
        b += 1;
    }
    t
}

/// [`py_classes`] of `"` strings, then of `'` strings.
static PY_CLASSES: [[u8; 256]; 2] = [py_classes(false), py_classes(true)];

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    /// How a run over a whole input ended, with absolute offsets.
    #[derive(Debug, Clone, PartialEq, Eq)]
    enum End {
        Done(usize),
        Invalid(usize, &'static str),
        NeedMore,
    }

    /// Feeds `input` cut at the (sorted) positions `cuts`. Checks after every
    /// feed that the output so far is a prefix of valid JSON.
    fn run(input: &[u8], cuts: &[usize], depth: usize) -> (String, End) {
        let mut p = PyArgs::with_max_depth(depth);
        let mut out = String::new();
        let mut start = 0;
        for &c in cuts.iter().chain(std::iter::once(&input.len())) {
            let c = c.clamp(start, input.len());
            let piece = &input[start..c];
            let before = out.clone();
            let st = p.feed(piece, &mut out);
            assert!(out.starts_with(&before), "append-only violated");
            assert!(is_json_prefix(&out), "not a JSON prefix: {out:?}");
            match st {
                PyStatus::NeedMore => {}
                PyStatus::Done { consumed } => {
                    assert!(consumed >= 1 && consumed <= piece.len());
                    assert_eq!(piece[consumed - 1], b')');
                    return (out, End::Done(start + consumed));
                }
                PyStatus::Invalid { at, reason } => {
                    assert!(at < piece.len());
                    return (out, End::Invalid(start + at, reason));
                }
            }
            start = c;
        }
        (out, End::NeedMore)
    }

    /// Runs whole, at every single split point and byte by byte; all must
    /// agree. Returns the whole run's result.
    fn check_splits(input: &[u8], depth: usize) -> (String, End) {
        let whole = run(input, &[], depth);
        for k in 0..=input.len() {
            assert_eq!(run(input, &[k], depth), whole, "split at {k} of {input:?}");
        }
        let bytewise: Vec<usize> = (0..=input.len()).collect();
        assert_eq!(run(input, &bytewise, depth), whole, "byte by byte");
        whole
    }

    /// `args` (the bytes after `(`, ending with `)`) converts to exactly
    /// `expected`; bytes after the `)` are left alone.
    #[track_caller]
    fn ok(args: &str, expected: &str) {
        let input = format!("{args}]trailing");
        let (out, end) = check_splits(input.as_bytes(), DEFAULT_MAX_DEPTH);
        assert_eq!(end, End::Done(args.len()), "input {args:?}, output {out:?}");
        assert_eq!(out, expected, "input {args:?}");
        let got: Value = serde_json::from_str(&out).expect("output is JSON");
        let want: Value = serde_json::from_str(expected).expect("expected is JSON");
        assert_eq!(got, want);
        assert!(got.is_object());
    }

    /// `args` is Invalid at absolute offset `at` with reason `reason`.
    #[track_caller]
    fn bad_depth(args: &[u8], at: usize, reason: &str, depth: usize) {
        let (out, end) = check_splits(args, depth);
        assert_eq!(
            end,
            End::Invalid(at, lookup(reason)),
            "input {:?}, output {out:?}",
            String::from_utf8_lossy(args)
        );
    }

    #[track_caller]
    fn bad(args: &str, at: usize, reason: &str) {
        bad_depth(args.as_bytes(), at, reason, DEFAULT_MAX_DEPTH);
    }

    fn lookup(reason: &str) -> &'static str {
        [
            R_POSITIONAL,
            R_UNPACK,
            R_EXPECTED_ARG,
            R_NON_ASCII_IDENT,
            R_EXPECTED_VALUE,
            R_NOT_LITERAL,
            R_CALL,
            R_EXPR,
            R_BYTES,
            R_FSTRING,
            R_PREFIX,
            R_CONCAT,
            R_EXPECTED_ARG_SEP,
            R_EXPECTED_LIST_SEP,
            R_EXPECTED_TUPLE_SEP,
            R_EXPECTED_DICT_SEP,
            R_EXPECTED_COLON,
            R_SET,
            R_PAREN,
            R_KEY,
            R_DEPTH,
            R_DIGIT,
            R_EXP_DIGIT,
            R_RADIX_DIGIT,
            R_UNDERSCORE,
            R_MALFORMED,
            R_LEADING_ZERO,
            R_COMPLEX,
            R_TOO_LARGE,
            R_UTF8,
            R_SURROGATE,
            R_RANGE,
            R_TRUNC_X,
            R_TRUNC_U4,
            R_TRUNC_U8,
            R_NAMED,
            R_BACKSLASH,
        ]
        .into_iter()
        .find(|r| *r == reason)
        .expect("known reason")
    }

    // ---------------------------------------------------------------- valid

    #[test]
    fn argument_lists() {
        ok(")", "{}");
        ok("  \n )", "{}");
        ok("city='Paris', days=3)", r#"{"city":"Paris","days":3}"#);
        ok("a=1,)", r#"{"a":1}"#);
        ok("a=1 , b=2 ,\n)", r#"{"a":1,"b":2}"#);
        ok("\n  a = 1,\n\tb\t=\t2\n)", r#"{"a":1,"b":2}"#);
        ok("_x9=1, Y_=2)", r#"{"_x9":1,"Y_":2}"#);
        ok("a=1, # first ) ' \"\n b=2 # last\n)", r#"{"a":1,"b":2}"#);
        ok("a=1, \\\n b=[2, \\\r\n 3] \\\n)", r#"{"a":1,"b":[2,3]}"#);
        ok(
            "x=[1, 2.5, -3], flag=True, opts={'a': None, \"b\": (1, 2)})",
            r#"{"x":[1,2.5,-3],"flag":true,"opts":{"a":null,"b":[1,2]}}"#,
        );
    }

    #[test]
    fn strings() {
        ok("s='Paris')", r#"{"s":"Paris"}"#);
        ok("s=\"Paris\")", r#"{"s":"Paris"}"#);
        ok("s='')", r#"{"s":""}"#);
        ok("s=\"\")", r#"{"s":""}"#);
        ok("s='a\"b')", r#"{"s":"a\"b"}"#);
        ok("s=\"it's\")", r#"{"s":"it's"}"#);
        ok("s='])},[({#=')", r#"{"s":"])},[({#="}"#);
        ok(
            "s='tab\there\u{1}\u{7f}')",
            "{\"s\":\"tab\\there\\u0001\u{7f}\"}",
        );
        ok("s='é中😀')", r#"{"s":"é中😀"}"#);
    }

    #[test]
    fn triple_quoted_strings() {
        ok("s='''x'y''z''')", r#"{"s":"x'y''z"}"#);
        ok("s=\"\"\"a\"b\"\"c\"\"\")", r#"{"s":"a\"b\"\"c"}"#);
        ok("s='''line1\nline2\r\n''')", r#"{"s":"line1\nline2\r\n"}"#);
        ok("s='''''')", r#"{"s":""}"#);
        ok("s='''a\\'''')", r#"{"s":"a'"}"#);
        ok("s='''a'''' ')", r#"{"s":"a "}"#);
        ok("s=\"\"\"'''\"\"\")", r#"{"s":"'''"}"#);
        ok("s='''\"\"\"''')", r#"{"s":"\"\"\""}"#);
    }

    #[test]
    fn escapes() {
        ok(r#"s='\n\t\r\\\'\"\0')"#, r#"{"s":"\n\t\r\\'\"\u0000"}"#);
        ok(r"s='\a\b\f\v')", r#"{"s":"\u0007\b\f\u000b"}"#);
        ok(r"s='\x41\xe9\u00e9\u4e2d\U0001F600')", r#"{"s":"Aéé中😀"}"#);
        ok(r"s='\x1f\u001F')", r#"{"s":"\u001f\u001f"}"#);
        ok(r"s='\ud83d\ude00!')", r#"{"s":"😀!"}"#);
        ok(
            r"s='\101\0012\7\777')",
            "{\"s\":\"A\\u00012\\u0007\u{1ff}\"}",
        );
        ok(r"s='\d\q\ é\é')", r#"{"s":"\\d\\q\\ é\\é"}"#);
        ok("s='a\\\nb')", r#"{"s":"ab"}"#);
        ok("s='''a\\\nb''')", r#"{"s":"ab"}"#);
    }

    #[test]
    fn raw_and_prefixed_strings() {
        ok(r"s=r'a\d\n')", r#"{"s":"a\\d\\n"}"#);
        ok(r"s=R'\'')", r#"{"s":"\\'"}"#);
        ok(r"s=r'\\')", r#"{"s":"\\\\"}"#);
        ok(r#"s=r"\"")"#, r#"{"s":"\\\""}"#);
        ok(r"s=r'''a\'''b''')", r#"{"s":"a\\'''b"}"#);
        bad(r"s=r'''a\''''b''')", 13, R_BYTES);
        ok("s=r'a\\\nb')", r#"{"s":"a\\\nb"}"#);
        ok("s=u'x', t=U\"y\")", r#"{"s":"x","t":"y"}"#);
    }

    #[test]
    fn string_concatenation() {
        ok("s='a' 'b' \"c\")", r#"{"s":"abc"}"#);
        ok("s='a''b')", r#"{"s":"ab"}"#);
        ok("s='a'\n  r'\\d' # c\n u'e')", r#"{"s":"a\\de"}"#);
        ok("s='a' '''b''' '')", r#"{"s":"ab"}"#);
        ok("d={'a' 'b': 'c' 'd'})", r#"{"d":{"ab":"cd"}}"#);
    }

    #[test]
    fn numbers() {
        ok("n=0)", r#"{"n":0}"#);
        ok("n=00)", r#"{"n":0}"#);
        ok("n=0_0)", r#"{"n":0}"#);
        ok("n=-5, m=+5)", r#"{"n":-5,"m":5}"#);
        ok("n=- 5)", r#"{"n":-5}"#);
        ok("n=1_000_000)", r#"{"n":1000000}"#);
        ok(
            "n=123456789012345678901234567890)",
            r#"{"n":123456789012345678901234567890}"#,
        );
        ok("n=1.5, m=-0.5, k=0.0)", r#"{"n":1.5,"m":-0.5,"k":0.0}"#);
        ok("n=1., m=-1.)", r#"{"n":1.0,"m":-1.0}"#);
        ok("n=.5, m=-.5, k=+.5)", r#"{"n":0.5,"m":-0.5,"k":0.5}"#);
        ok(
            "n=1e10, m=1E+10, k=2.5e-3)",
            r#"{"n":1e10,"m":1e+10,"k":2.5e-3}"#,
        );
        ok("n=1.e3, m=.5e1, k=0e0)", r#"{"n":1.0e3,"m":0.5e1,"k":0e0}"#);
        ok("n=007.5, m=01e2, k=0_1.5)", r#"{"n":7.5,"m":1e2,"k":1.5}"#);
        ok("n=1_0.0_1e1_0)", r#"{"n":10.01e10}"#);
        ok("n=0x1F, m=0XfF, k=-0x_ff)", r#"{"n":31,"m":255,"k":-255}"#);
        ok(
            "n=-0, m=-00, k=-0x0, j=-0.0, i=-0e1)",
            r#"{"n":0,"m":0,"k":0,"j":-0.0,"i":-0e1}"#,
        );
        ok("n=- # c\n \\\n 1)", r#"{"n":-1}"#);
        ok("n=0o17, m=0b101, k=0b_1_0)", r#"{"n":15,"m":5,"k":2}"#);
        ok("n=0xffffffffffffffff)", r#"{"n":18446744073709551615}"#);
        ok("n=[1,-2,3.5])", r#"{"n":[1,-2,3.5]}"#);
    }

    #[test]
    fn keywords() {
        ok(
            "a=True, b=False, c=None)",
            r#"{"a":true,"b":false,"c":null}"#,
        );
        ok(
            "a=true, b=false, c=null)",
            r#"{"a":true,"b":false,"c":null}"#,
        );
        ok("a=[True,None])", r#"{"a":[true,null]}"#);
    }

    #[test]
    fn lists_and_tuples() {
        ok("x=[])", r#"{"x":[]}"#);
        ok("x=[ ])", r#"{"x":[]}"#);
        ok("x=[1,])", r#"{"x":[1]}"#);
        ok("x=[[], [[]], [1, [2]]])", r#"{"x":[[],[[]],[1,[2]]]}"#);
        ok("x=(1,))", r#"{"x":[1]}"#);
        ok("x=())", r#"{"x":[]}"#);
        ok("x=(1, 2))", r#"{"x":[1,2]}"#);
        ok("x=(1, 2,))", r#"{"x":[1,2]}"#);
        ok("x=((1,), [()]))", r#"{"x":[[1],[[]]]}"#);
        ok("x=[\n  'a',\n  'b',  # comment\n])", r#"{"x":["a","b"]}"#);
    }

    #[test]
    fn dicts() {
        ok("d={})", r#"{"d":{}}"#);
        ok("d={'a': 1,})", r#"{"d":{"a":1}}"#);
        ok(
            "d={'a': {'b': [1, {'c': None}]}})",
            r#"{"d":{"a":{"b":[1,{"c":null}]}}}"#,
        );
        ok(
            "d={1: 'x', True: 1, None: 2, -1.5: 3, 0x10: 4, false: 5, r'k': 6})",
            r#"{"d":{"1":"x","true":1,"null":2,"-1.5":3,"16":4,"false":5,"k":6}}"#,
        );
        ok(
            "d={-0: 1, -0b0: 2, -0.0: 3})",
            r#"{"d":{"0":1,"0":2,"-0.0":3}}"#,
        );
        ok("d={1.: 0, .5: 1})", r#"{"d":{"1.0":0,"0.5":1}}"#);
    }

    /// `string_run` says yes only where `feed` copies the input unchanged and stays
    /// where it was: every sequence of up to three pieces from the bytes that matter
    /// (quotes, backslash, controls, DEL, complete and cut UTF-8), from the states a string
    /// can be in and some it cannot.
    #[test]
    fn string_run_is_feed_copying_its_input() {
        let prefixes: &[&[u8]] = &[
            b"a='",
            b"a=\"",
            b"a='''",
            b"a=\"\"\"",
            b"a='''x'",
            b"a=r'",
            b"a=u\"x",
            b"a='x\\",
            b"a=r'x\\",
            b"a='\xc3",
            b"a='\\ud83d",
            b"a='\\x4",
            b"a=[1, {'k': '",
            b"a=1",
            b"a='x' ",
            b"",
        ];
        let pieces: &[&[u8]] = &[
            b"a",
            b" ",
            b"\"",
            b"'",
            b"\\",
            b"\n",
            b"\r",
            b"\x7f",
            b"\x1f",
            b"#",
            b")",
            "é".as_bytes(),
            "😀".as_bytes(),
            b"\xc3",
            b"\xa9",
            b"u",
        ];
        let mut accepted = 0;
        for p in prefixes {
            let mut base = PyArgs::new();
            let _ = base.feed(p, &mut String::new());
            let mut input = Vec::new();
            let n = pieces.len();
            for code in 0..(1 + n + n * n + n * n * n) {
                input.clear();
                let (len, mut c) = match code {
                    0 => (0, 0),
                    c if c <= n => (1, c - 1),
                    c if c <= n + n * n => (2, c - 1 - n),
                    c => (3, c - 1 - n - n * n),
                };
                for _ in 0..len {
                    input.extend_from_slice(pieces[c % n]);
                    c /= n;
                }
                if !base.string_run(&input) || std::str::from_utf8(&input).is_err() {
                    continue;
                }
                accepted += 1;
                let mut slow = base.clone();
                let mut out = String::new();
                assert_eq!(
                    slow.feed(&input, &mut out),
                    PyStatus::NeedMore,
                    "{p:?} {input:?}"
                );
                assert_eq!(out.as_bytes(), &input[..], "{p:?} {input:?}");
                assert_eq!(format!("{slow:?}"), format!("{base:?}"), "{p:?} {input:?}");
            }
        }
        assert!(accepted > 1000, "{accepted}");
    }

    #[test]
    fn nesting_limit() {
        let (out, end) = check_splits(b"x=[[1]])", 2);
        assert_eq!((out.as_str(), end), (r#"{"x":[[1]]}"#, End::Done(8)));
        bad_depth(b"x=[[[1]]])", 4, R_DEPTH, 2);
        bad_depth(b"x=[1])", 2, R_DEPTH, 0);
        let (out, end) = check_splits(b"x=1)", 0);
        assert_eq!((out.as_str(), end), (r#"{"x":1}"#, End::Done(4)));
        // The default limit is 64.
        let deep = |n: usize| format!("x={}{})", "[".repeat(n), "]".repeat(n));
        let mut out = String::new();
        let st = PyArgs::new().feed(deep(64).as_bytes(), &mut out);
        assert_eq!(st, PyStatus::Done { consumed: 131 });
        let st = PyArgs::new().feed(deep(65).as_bytes(), &mut out);
        assert_eq!(
            st,
            PyStatus::Invalid {
                at: 66,
                reason: R_DEPTH
            }
        );
    }

    // -------------------------------------------------------------- invalid

    #[test]
    fn invalid_arguments() {
        bad("1)", 0, R_POSITIONAL);
        bad("'a')", 0, R_POSITIONAL);
        bad("x)", 1, R_POSITIONAL);
        bad("x, y=1)", 1, R_POSITIONAL);
        bad("a=1, x)", 6, R_POSITIONAL);
        bad("True)", 4, R_POSITIONAL);
        bad("f(1))", 1, R_POSITIONAL);
        bad("*a)", 0, R_UNPACK);
        bad("**kw)", 0, R_UNPACK);
        bad(",)", 0, R_EXPECTED_ARG);
        bad("a=1,,)", 4, R_EXPECTED_ARG);
        bad("café=1)", 3, R_NON_ASCII_IDENT);
        bad("é=1)", 0, R_NON_ASCII_IDENT);
        bad("x=)", 2, R_EXPECTED_VALUE);
        bad("x==1)", 2, R_EXPECTED_VALUE);
        bad("x=1 2)", 4, R_EXPECTED_ARG_SEP);
        bad("x=1]", 3, R_EXPECTED_ARG_SEP);
        bad("a=1 \\ b=2)", 5, R_BACKSLASH);
        bad("a=\\1)", 3, R_BACKSLASH);
    }

    #[test]
    fn invalid_values() {
        bad("x=foo)", 3, R_NOT_LITERAL);
        bad("x=Tru)", 5, R_NOT_LITERAL);
        bad("x=Truth)", 5, R_NOT_LITERAL);
        bad("x=none)", 3, R_NOT_LITERAL);
        bad("x=inf)", 2, R_NOT_LITERAL);
        bad("x=nan)", 3, R_NOT_LITERAL);
        bad("x=-inf)", 3, R_DIGIT);
        bad("x=f(1))", 3, R_CALL);
        bad("x=True(1))", 6, R_EXPR);
        bad("x=1+2)", 3, R_EXPR);
        bad("x='a'.upper())", 5, R_EXPR);
        bad("x=[1][0])", 5, R_EXPR);
        bad("x=b'a')", 3, R_BYTES);
        bad("x=rb'a')", 4, R_BYTES);
        bad("x=f'a')", 3, R_FSTRING);
        bad("x=Rf'a')", 4, R_FSTRING);
        bad("x='a' b'c')", 7, R_BYTES);
        bad("x='a' True)", 10, R_CONCAT);
        bad("x='a' q)", 6, R_CONCAT);
        bad("x=...)", 3, R_DIGIT);
        bad("x=é)", 2, R_EXPECTED_VALUE);
    }

    #[test]
    fn invalid_containers() {
        bad("x={1, 2})", 4, R_SET);
        bad("x={'a'})", 6, R_SET);
        bad("x={'a' 1})", 7, R_EXPECTED_COLON);
        bad("x={'a': 1 'b': 2})", 10, R_EXPECTED_DICT_SEP);
        bad("x=(1))", 4, R_PAREN);
        bad("x=((1, 2)))", 9, R_PAREN);
        bad("x=(,))", 3, R_EXPECTED_VALUE);
        bad("x=[1 2])", 5, R_EXPECTED_LIST_SEP);
        bad("x=[1,,2])", 5, R_EXPECTED_VALUE);
        bad("x=[1))", 4, R_EXPECTED_LIST_SEP);
        bad("x=(1 2))", 5, R_EXPECTED_TUPLE_SEP);
        bad("x={[1]: 2})", 3, R_KEY);
        bad("x={(1,): 2})", 3, R_KEY);
        bad("x={'a': 1, [2]: 3})", 11, R_KEY);
    }

    #[test]
    fn invalid_numbers() {
        bad("x=01)", 4, R_LEADING_ZERO);
        bad("x=00_1)", 6, R_LEADING_ZERO);
        bad("x=1j)", 3, R_COMPLEX);
        bad("x=1.5J)", 5, R_COMPLEX);
        bad("x=1__0)", 4, R_UNDERSCORE);
        bad("x=1_)", 4, R_UNDERSCORE);
        bad("x=1_.5)", 4, R_UNDERSCORE);
        bad("x=1._5)", 4, R_MALFORMED);
        bad("x=1.5.3)", 5, R_MALFORMED);
        bad("x=1a)", 3, R_MALFORMED);
        bad("x=0x)", 4, R_RADIX_DIGIT);
        bad("x=0xg)", 4, R_RADIX_DIGIT);
        bad("x=0b12)", 5, R_MALFORMED);
        bad("x=00x1)", 4, R_MALFORMED);
        bad("x=0x1__2)", 6, R_UNDERSCORE);
        bad("x=0x1_0000_0000_0000_0000)", 24, R_TOO_LARGE);
        bad("x=1e)", 4, R_EXP_DIGIT);
        bad("x=1e+)", 5, R_EXP_DIGIT);
        bad("x=1e_1)", 4, R_EXP_DIGIT);
        bad("x=-)", 3, R_DIGIT);
        bad("x=--1)", 3, R_DIGIT);
        bad("x=.e1)", 3, R_DIGIT);
    }

    #[test]
    fn invalid_strings() {
        // A raw line break in a single-quoted string is content (not Python: models
        // write multi-line values so, and SGLang's LFM2 parser reads them).
        ok("x='a\nb')", r#"{"x":"a\nb"}"#);
        ok("x=\"a\r\nb\")", r#"{"x":"a\r\nb"}"#);
        bad(r"x='\xZZ')", 5, R_TRUNC_X);
        bad(r"x='\x4')", 6, R_TRUNC_X);
        bad(r"x='\u12')", 7, R_TRUNC_U4);
        bad(r"x='\U1234567')", 12, R_TRUNC_U8);
        bad(r"x='\N{DASH}')", 4, R_NAMED);
        bad(r"x='\ud83d')", 9, R_SURROGATE);
        bad(r"x='\ud83dA')", 9, R_SURROGATE);
        bad(r"x='\ud83d\n')", 10, R_SURROGATE);
        bad(r"x='\ud83d\ud83d')", 14, R_SURROGATE);
        bad(r"x='\ude00')", 8, R_SURROGATE);
        bad(r"x='\U0001F600\U0000DC00')", 22, R_SURROGATE);
        bad(r"x='\U00110000')", 12, R_RANGE);
        bad(r"x='\ud83d' '\ude00')", 9, R_SURROGATE);
        bad_depth(b"x='\xff')", 3, R_UTF8, 64);
        bad_depth(b"x='\x80')", 3, R_UTF8, 64);
        bad_depth(b"x='ab\xc3(')", 6, R_UTF8, 64);
        bad_depth(b"x='\xe0\x80\x80')", 4, R_UTF8, 64);
        bad_depth(b"x='\xed\xa0\x80')", 4, R_UTF8, 64);
        bad_depth(b"x='\xf0\x9f\x98')", 6, R_UTF8, 64);
        bad_depth(b"x='\xf0\x9f\x98\n", 6, R_UTF8, 64);
        bad_depth(b"x='''\xc3\n", 6, R_UTF8, 64);
        bad_depth(b"x='''a\xc3\\n'''", 7, R_UTF8, 64);
    }

    #[test]
    fn incomplete_input_needs_more() {
        for input in [
            "",
            "x",
            "x=",
            "x='abc",
            "x='''abc''",
            "x=1",
            "x=0x",
            "x=[1, {'a': (2,",
            "x='a' ",
            "x=Tru",
            "x=1, # comment )",
        ] {
            let (out, end) = check_splits(input.as_bytes(), 64);
            assert_eq!(end, End::NeedMore, "{input:?} -> {out:?}");
        }
    }

    // ---------------------------------------------------------------- API

    #[test]
    fn done_and_error_are_sticky_and_reset_reuses() {
        let mut p = PyArgs::default();
        let mut out = String::new();
        assert_eq!(
            p.feed(b"a=1) rest", &mut out),
            PyStatus::Done { consumed: 4 }
        );
        assert_eq!(p.feed(b"b=2)", &mut out), PyStatus::Done { consumed: 0 });
        assert_eq!(out, r#"{"a":1}"#);

        p.reset();
        out.clear();
        assert_eq!(
            p.feed(b"a=foo)", &mut out),
            PyStatus::Invalid {
                at: 3,
                reason: R_NOT_LITERAL
            }
        );
        let len = out.len();
        assert_eq!(
            p.feed(b"b=2)", &mut out),
            PyStatus::Invalid {
                at: 0,
                reason: R_NOT_LITERAL
            }
        );
        assert_eq!(out.len(), len);

        p.reset();
        out.clear();
        assert_eq!(p.feed(b"", &mut out), PyStatus::NeedMore);
        assert_eq!(out, "{");
        assert_eq!(p.feed(b"s='a", &mut out), PyStatus::NeedMore);
        assert_eq!(out, r#"{"s":"a"#);
        assert_eq!(p.feed(b"bc", &mut out), PyStatus::NeedMore);
        assert_eq!(out, r#"{"s":"abc"#, "string content streams as it arrives");
        assert_eq!(
            p.feed("\u{e9}".as_bytes().get(..1).unwrap(), &mut out),
            PyStatus::NeedMore
        );
        assert_eq!(out, r#"{"s":"abc"#, "incomplete UTF-8 is held back");
        assert_eq!(p.feed(b"\xa9')", &mut out), PyStatus::Done { consumed: 3 });
        assert_eq!(out, r#"{"s":"abcé"}"#);
    }

    #[test]
    fn long_strings_with_escapes_split_anywhere() {
        let mut body = String::new();
        // Fewer under Miri: every split point is run.
        let n = if cfg!(miri) { 14 } else { 200 };
        for i in 0..n {
            body.push_str("word é中😀 ]),");
            body.push_str(["\\n", "\\'", "\"", "\\\\", "\\x41", "\\u00e9", "\t"][i % 7]);
        }
        let input = format!("content='{body}', n=1)");
        let (out, end) = check_splits(input.as_bytes(), 64);
        assert_eq!(end, End::Done(input.len()));
        let v: Value = serde_json::from_str(&out).unwrap();
        let s = v["content"].as_str().unwrap();
        assert_eq!(s.matches("word é中😀 ]),").count(), n);
        for chunk in [3, 4, 7, 64] {
            let cuts: Vec<usize> = (chunk..input.len()).step_by(chunk).collect();
            assert_eq!(run(input.as_bytes(), &cuts, 64), (out.clone(), end.clone()));
        }
    }

    #[test]
    fn control_characters_inside_long_runs_are_not_rescanned() {
        // Many newlines between rare quotes: must stay linear (and correct).
        // Smaller under Miri (the check is the same; linearity is the benches' job).
        let body = "line of text\n".repeat(if cfg!(miri) { 200 } else { 20_000 });
        let input = format!("s='''{body}''')");
        let mut p = PyArgs::new();
        let mut out = String::new();
        let st = p.feed(input.as_bytes(), &mut out);
        assert_eq!(
            st,
            PyStatus::Done {
                consumed: input.len()
            }
        );
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["s"].as_str().unwrap(), body);
    }

    #[test]
    fn many_small_strings_in_one_feed_stay_linear() {
        // Alternating quote kinds, escapes, newlines and comments between
        // strings: the per-feed scan caches must never rescan the rest.
        let n = if cfg!(miri) { 400 } else { 50_000 };
        let mut input = String::from("a=[");
        for k in 0..n {
            input.push_str(match k % 4 {
                0 => "'x\\n',",
                1 => "\"y'\",\n",
                2 => "'''z\n''', # c\n",
                _ => "r'\\d' 'é',",
            });
        }
        input.push_str("])");
        let mut out = String::new();
        let st = PyArgs::new().feed(input.as_bytes(), &mut out);
        assert_eq!(
            st,
            PyStatus::Done {
                consumed: input.len()
            }
        );
        let v: Value = serde_json::from_str(&out).unwrap();
        let items = v["a"].as_array().unwrap();
        assert_eq!(items.len(), n);
        assert_eq!(items[0], "x\n");
        assert_eq!(items[1], "y'");
        assert_eq!(items[2], "z\n");
        assert_eq!(items[3], "\\dé");
    }

    // ------------------------------------------------------ JSON prefixes

    /// Whether `s` can be extended to a valid JSON text.
    fn is_json_prefix(s: &str) -> bool {
        #[derive(Clone, Copy, PartialEq)]
        enum E {
            Value,
            ValueOrClose,
            Key,
            KeyOrClose,
            Colon,
            CommaOrClose,
            End,
        }
        let b = s.as_bytes();
        let mut stack: Vec<u8> = Vec::new();
        let mut e = E::Value;
        let mut i = 0;
        let after = |stack: &Vec<u8>| {
            if stack.is_empty() {
                E::End
            } else {
                E::CommaOrClose
            }
        };
        while i < b.len() {
            let c = b[i];
            if matches!(c, b' ' | b'\n' | b'\t' | b'\r') {
                i += 1;
                continue;
            }
            match e {
                E::Colon => {
                    if c != b':' {
                        return false;
                    }
                    e = E::Value;
                    i += 1;
                }
                E::CommaOrClose => {
                    let top = *stack.last().unwrap();
                    if c == b',' {
                        e = if top == b'{' { E::Key } else { E::Value };
                    } else if (c == b'}' && top == b'{') || (c == b']' && top == b'[') {
                        stack.pop();
                        e = after(&stack);
                    } else {
                        return false;
                    }
                    i += 1;
                }
                E::End => return false,
                E::ValueOrClose | E::KeyOrClose
                    if (c == b']' && e == E::ValueOrClose) || (c == b'}' && e == E::KeyOrClose) =>
                {
                    stack.pop();
                    e = after(&stack);
                    i += 1;
                }
                E::Key | E::KeyOrClose => {
                    if c != b'"' {
                        return false;
                    }
                    match json_string(b, i + 1) {
                        Err(()) => return false,
                        Ok(None) => return true,
                        Ok(Some(j)) => i = j,
                    }
                    e = E::Colon;
                }
                E::Value | E::ValueOrClose => {
                    match c {
                        b'"' => match json_string(b, i + 1) {
                            Err(()) => return false,
                            Ok(None) => return true,
                            Ok(Some(j)) => i = j,
                        },
                        b'{' | b'[' => {
                            stack.push(c);
                            e = if c == b'{' {
                                E::KeyOrClose
                            } else {
                                E::ValueOrClose
                            };
                            i += 1;
                            continue;
                        }
                        b't' | b'f' | b'n' => {
                            let lit: &[u8] = match c {
                                b't' => b"true",
                                b'f' => b"false",
                                _ => b"null",
                            };
                            let rest = &b[i..];
                            let n = lit.len().min(rest.len());
                            if rest[..n] != lit[..n] {
                                return false;
                            }
                            if rest.len() < lit.len() {
                                return true;
                            }
                            i += lit.len();
                        }
                        b'-' | b'0'..=b'9' => match json_number(b, i) {
                            Err(()) => return false,
                            Ok(None) => return true,
                            Ok(Some(j)) => i = j,
                        },
                        _ => return false,
                    }
                    e = after(&stack);
                }
            }
        }
        true
    }

    /// Scans a JSON string body from `i`: Ok(Some(end)) if closed, Ok(None)
    /// if the input ends inside it (still a valid prefix).
    fn json_string(b: &[u8], mut i: usize) -> Result<Option<usize>, ()> {
        while i < b.len() {
            match b[i] {
                b'"' => return Ok(Some(i + 1)),
                b'\\' => {
                    let Some(&c) = b.get(i + 1) else {
                        return Ok(None);
                    };
                    match c {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                        b'u' => {
                            for k in 0..4 {
                                match b.get(i + 2 + k) {
                                    None => return Ok(None),
                                    Some(h) if h.is_ascii_hexdigit() => {}
                                    Some(_) => return Err(()),
                                }
                            }
                            i += 6;
                        }
                        _ => return Err(()),
                    }
                }
                0..=0x1f => return Err(()),
                _ => i += 1,
            }
        }
        Ok(None)
    }

    /// Scans a JSON number from `i`: Ok(Some(end)) if complete and followed
    /// by another byte, Ok(None) if the input ends while still viable.
    fn json_number(b: &[u8], mut i: usize) -> Result<Option<usize>, ()> {
        // 0 start, 1 after '-', 2 after '0', 3 int digits, 4 after '.',
        // 5 frac digits, 6 after 'e', 7 after exp sign, 8 exp digits.
        let mut st = 0;
        while i < b.len() {
            let c = b[i];
            st = match (st, c) {
                (0, b'-') => 1,
                (0 | 1, b'0') => 2,
                (0 | 1, b'1'..=b'9') => 3,
                (3, b'0'..=b'9') => 3,
                (2 | 3, b'.') => 4,
                (4 | 5, b'0'..=b'9') => 5,
                (2 | 3 | 5, b'e' | b'E') => 6,
                (6, b'+' | b'-') => 7,
                (6..=8, b'0'..=b'9') => 8,
                (2 | 3 | 5 | 8, _) => return Ok(Some(i)),
                _ => return Err(()),
            };
            i += 1;
        }
        Ok(None)
    }

    #[test]
    fn json_prefix_checker_sanity() {
        for good in [
            "",
            "{",
            "{\"a",
            "{\"a\":",
            "{\"a\":-",
            "{\"a\":0.",
            "{\"a\":1e",
            "{\"a\":[tr",
            "{\"a\":\"\\u00",
            "{\"a\":1,\"b\":[]}",
            "[1, {}]",
        ] {
            assert!(is_json_prefix(good), "{good:?}");
        }
        for bad in [
            "}",
            "{,",
            "{\"a\",",
            "{\"a\":01",
            "{\"a\":1.}",
            "{\"a\":tx",
            "{\"a\":\"\\x",
            "{\"a\":1,}",
            "[1]]",
            "{}{",
        ] {
            assert!(!is_json_prefix(bad), "{bad:?}");
        }
    }

    // ------------------------------------------------------------ proptest

    /// A Python literal value.
    #[derive(Debug, Clone)]
    enum Py {
        None,
        Bool(bool),
        Int(i64),
        Float(f64),
        Str(String),
        List(Vec<Py>),
        Tuple(Vec<Py>),
        Dict(Vec<(PyKey, Py)>),
    }

    /// A Python dict key.
    #[derive(Debug, Clone)]
    enum PyKey {
        Str(String),
        Int(i64),
        Bool(bool),
        None,
    }

    fn py_string() -> impl Strategy<Value = String> {
        let ch = prop_oneof![
            6 => prop::sample::select(vec![
                'a', 'b', ' ', '\'', '"', '\\', ']', ')', ',', '(', '[', '{', '}', '#', '=',
                '\n', '\t', '\r', '\u{0}', '\u{1}', '\u{7}', '\u{7f}', 'é', 'ÿ', '中', '😀',
                '\u{2028}', '\u{ffff}', '0', '7', '9', 'x', 'u', 'N', 'd', 'q',
            ]),
            1 => any::<char>(),
        ];
        prop::collection::vec(ch, 0..24).prop_map(|v| v.into_iter().collect())
    }

    fn py_key() -> impl Strategy<Value = PyKey> {
        prop_oneof![
            4 => py_string().prop_map(PyKey::Str),
            1 => any::<i64>().prop_map(PyKey::Int),
            1 => (-20i64..20).prop_map(PyKey::Int),
            1 => any::<bool>().prop_map(PyKey::Bool),
            1 => Just(PyKey::None),
        ]
    }

    fn py_value() -> impl Strategy<Value = Py> {
        let leaf = prop_oneof![
            1 => Just(Py::None),
            1 => any::<bool>().prop_map(Py::Bool),
            1 => any::<i64>().prop_map(Py::Int),
            1 => (-1000i64..1000).prop_map(Py::Int),
            1 => (prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO)
                .prop_map(Py::Float),
            1 => (-1000i32..1000, 0u32..4).prop_map(|(m, e)| Py::Float(
                f64::from(m) / f64::from(10u32.pow(e))
            )),
            3 => py_string().prop_map(Py::Str),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Py::List),
                prop::collection::vec(inner.clone(), 0..6).prop_map(Py::Tuple),
                prop::collection::vec((py_key(), inner), 0..6).prop_map(Py::Dict),
            ]
        })
    }

    /// Keyword arguments with distinct names (Python refuses a repeated one; so does
    /// the transducer: `repeated_keyword_argument_is_refused`).
    fn py_args() -> impl Strategy<Value = Vec<(String, Py)>> {
        prop::collection::vec(("[a-zA-Z_][a-zA-Z0-9_]{0,6}", py_value()), 0..5).prop_map(|mut v| {
            let mut seen = std::collections::BTreeSet::new();
            v.retain(|(name, _)| seen.insert(name.clone()));
            v
        })
    }

    /// A repeated keyword is refused at the byte after it, before any of it is written,
    /// however the input is cut; a dict's repeated key is not a keyword (last one wins).
    #[test]
    fn repeated_keyword_argument_is_refused() {
        let input = b"a=1, bb=2, bb=3)";
        for cut in 0..=input.len() {
            let mut p = PyArgs::new();
            let mut out = String::new();
            let (x, y) = input.split_at(cut);
            let first = p.feed(x, &mut out);
            let status = match first {
                PyStatus::NeedMore => match p.feed(y, &mut out) {
                    PyStatus::Invalid { at, reason } => (cut + at, reason),
                    other => panic!("{other:?}"),
                },
                PyStatus::Invalid { at, reason } => (at, reason),
                other => panic!("{other:?}"),
            };
            assert_eq!(status, (13, R_REPEATED), "cut {cut}");
            assert_eq!(out, r#"{"a":1,"bb":2"#, "cut {cut}");
        }
        let mut p = PyArgs::new();
        let mut out = String::new();
        assert_eq!(
            p.feed(b"d={'k': 1, 'k': 2})", &mut out),
            PyStatus::Done { consumed: 19 }
        );
    }

    /// Deterministic choices for rendering (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn pick(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn one_in(&mut self, n: u64) -> bool {
            self.pick(n) == 0
        }
    }

    fn ws(r: &mut Rng, s: &mut String) {
        s.push_str(match r.pick(10) {
            0 => " ",
            1 => "\n    ",
            2 => "\t",
            3 => " # note ) ] } ' \" \\\n",
            4 => "  ",
            _ => "",
        });
    }

    fn key_json(k: &PyKey) -> String {
        match k {
            PyKey::Str(s) => s.clone(),
            PyKey::Int(i) => i.to_string(),
            PyKey::Bool(b) => b.to_string(),
            PyKey::None => "null".to_string(),
        }
    }

    fn to_json(v: &Py) -> Value {
        match v {
            Py::None => Value::Null,
            Py::Bool(b) => Value::Bool(*b),
            Py::Int(i) => Value::from(*i),
            Py::Float(f) => Value::from(*f),
            Py::Str(s) => Value::String(s.clone()),
            Py::List(v) | Py::Tuple(v) => Value::Array(v.iter().map(to_json).collect()),
            Py::Dict(kv) => {
                let mut m = Map::new();
                for (k, v) in kv {
                    m.insert(key_json(k), to_json(v));
                }
                Value::Object(m)
            }
        }
    }

    fn render_int(i: i64, r: &mut Rng, s: &mut String) {
        let mag = i.unsigned_abs();
        if i < 0 {
            s.push('-');
        } else if r.one_in(6) {
            s.push('+');
        }
        let digits = match r.pick(8) {
            0 => format!("0x{}{mag:x}", if r.one_in(2) { "_" } else { "" }),
            1 => format!("0X{mag:X}"),
            2 => format!("0o{mag:o}"),
            3 => format!("0b{mag:b}"),
            _ => mag.to_string(),
        };
        if r.one_in(3) && !digits.starts_with('0') {
            // Underscores between decimal digits.
            for (k, c) in digits.chars().enumerate() {
                if k > 0 && r.one_in(3) {
                    s.push('_');
                }
                s.push(c);
            }
        } else {
            s.push_str(&digits);
        }
    }

    fn render_float(f: f64, r: &mut Rng, s: &mut String) {
        let mut repr = format!("{f:?}");
        if r.one_in(4)
            && let Some(stripped) = repr.strip_suffix(".0")
        {
            repr = format!("{stripped}.");
        }
        if r.one_in(4) {
            if let Some(rest) = repr.strip_prefix("0.").filter(|r| !r.is_empty()) {
                repr = format!(".{rest}");
            } else if let Some(rest) = repr.strip_prefix("-0.").filter(|r| !r.is_empty()) {
                repr = format!("-.{rest}");
            }
        }
        if r.one_in(6) {
            repr = repr.replace('e', "E");
        }
        if r.one_in(6) && repr.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            repr.insert(0, '0');
        }
        if r.one_in(6) && !repr.starts_with('-') {
            s.push('+');
        }
        s.push_str(&repr);
    }

    /// Whether `\c` is an unknown escape in Python (backslash kept).
    fn unknown_escape(c: char) -> bool {
        !"\n\r\\'\"abfnrtvxuUN01234567".contains(c) && !c.is_control()
    }

    fn render_str(text: &str, r: &mut Rng, s: &mut String) {
        let chars: Vec<char> = text.chars().collect();
        if chars.len() >= 2 && r.one_in(4) {
            let k = 1 + r.pick(chars.len() as u64 - 1) as usize;
            render_piece(&chars[..k], r, s);
            ws(r, s);
            render_piece(&chars[k..], r, s);
        } else {
            render_piece(&chars, r, s);
        }
    }

    fn render_piece(chars: &[char], r: &mut Rng, s: &mut String) {
        let (q, triple) = match r.pick(4) {
            0 => ('\'', false),
            1 => ('"', false),
            2 => ('\'', true),
            _ => ('"', true),
        };
        let quote: String = std::iter::repeat_n(q, if triple { 3 } else { 1 }).collect();
        let raw_ok = chars
            .iter()
            .all(|&c| c != '\\' && c != q && !c.is_control());
        if raw_ok && r.one_in(3) {
            s.push(if r.one_in(2) { 'r' } else { 'R' });
            s.push_str(&quote);
            s.extend(chars);
            s.push_str(&quote);
            return;
        }
        if r.one_in(8) {
            s.push(if r.one_in(2) { 'u' } else { 'U' });
        }
        s.push_str(&quote);
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            k += 1;
            if r.one_in(40) {
                s.push_str("\\\n"); // line continuation: produces nothing
            }
            match c {
                '\\' => {
                    if let Some(&next) = chars.get(k)
                        && unknown_escape(next)
                        && next != q
                        && r.one_in(2)
                    {
                        s.push('\\');
                        s.push(next);
                        k += 1;
                    } else {
                        s.push_str("\\\\");
                    }
                }
                _ if c == q => {
                    s.push('\\');
                    s.push(c);
                }
                '\n' if triple && r.one_in(2) => s.push('\n'),
                '\n' => s.push_str("\\n"),
                '\r' => s.push_str("\\r"),
                '\t' if r.one_in(2) => s.push('\t'),
                '\u{7}' if r.one_in(2) => s.push_str("\\a"),
                _ if c.is_control() && (c as u32) < 0x80 => match r.pick(4) {
                    0 => s.push_str(&format!("\\x{:02x}", c as u32)),
                    1 => s.push_str(&format!("\\{:03o}", c as u32)),
                    2 => s.push_str(&format!("\\u{:04X}", c as u32)),
                    _ if c != '\u{0}' && (c as u32) >= 0x20 => s.push(c),
                    _ => s.push_str(&format!("\\U{:08x}", c as u32)),
                },
                _ => {
                    let cp = c as u32;
                    match r.pick(8) {
                        0 if cp <= 0xff => s.push_str(&format!("\\x{cp:02x}")),
                        1 if cp <= 0xffff => s.push_str(&format!("\\u{cp:04x}")),
                        2 => s.push_str(&format!("\\U{cp:08X}")),
                        3 if cp > 0xffff => {
                            let v = cp - 0x10000;
                            let hi = 0xD800 + (v >> 10);
                            let lo = 0xDC00 + (v & 0x3ff);
                            s.push_str(&format!("\\u{hi:04x}\\u{lo:04X}"));
                        }
                        4 if cp <= 0o777 => s.push_str(&format!("\\{cp:03o}")),
                        _ => s.push(c),
                    }
                }
            }
        }
        s.push_str(&quote);
    }

    fn render(v: &Py, r: &mut Rng, s: &mut String) {
        match v {
            Py::None => s.push_str(if r.one_in(4) { "null" } else { "None" }),
            Py::Bool(b) => s.push_str(match (b, r.one_in(4)) {
                (true, false) => "True",
                (true, true) => "true",
                (false, false) => "False",
                (false, true) => "false",
            }),
            Py::Int(i) => render_int(*i, r, s),
            Py::Float(f) => render_float(*f, r, s),
            Py::Str(t) => render_str(t, r, s),
            Py::List(items) => render_seq(items, '[', ']', false, r, s),
            Py::Tuple(items) => render_seq(items, '(', ')', true, r, s),
            Py::Dict(kv) => {
                s.push('{');
                for (n, (k, v)) in kv.iter().enumerate() {
                    if n > 0 {
                        s.push(',');
                    }
                    ws(r, s);
                    match k {
                        PyKey::Str(t) => render_str(t, r, s),
                        PyKey::Int(i) => render_int(*i, r, s),
                        PyKey::Bool(b) => render(&Py::Bool(*b), r, s),
                        PyKey::None => render(&Py::None, r, s),
                    }
                    ws(r, s);
                    s.push(':');
                    ws(r, s);
                    render(v, r, s);
                    ws(r, s);
                }
                if !kv.is_empty() && r.one_in(3) {
                    s.push(',');
                }
                ws(r, s);
                s.push('}');
            }
        }
    }

    fn render_seq(items: &[Py], open: char, close: char, tuple: bool, r: &mut Rng, s: &mut String) {
        s.push(open);
        for (n, v) in items.iter().enumerate() {
            if n > 0 {
                s.push(',');
            }
            ws(r, s);
            render(v, r, s);
            ws(r, s);
        }
        if (tuple && items.len() == 1) || (!items.is_empty() && r.one_in(3)) {
            s.push(',');
        }
        ws(r, s);
        s.push(close);
    }

    /// Renders keyword arguments (the bytes after `(`, through `)`).
    fn render_args(args: &[(String, Py)], r: &mut Rng) -> String {
        let mut s = String::new();
        for (n, (name, v)) in args.iter().enumerate() {
            if n > 0 {
                s.push(',');
            }
            ws(r, &mut s);
            s.push_str(name);
            if r.one_in(4) {
                s.push(' ');
            }
            s.push('=');
            ws(r, &mut s);
            render(v, r, &mut s);
            ws(r, &mut s);
        }
        if !args.is_empty() && r.one_in(3) {
            s.push(',');
        }
        ws(r, &mut s);
        s.push(')');
        s
    }

    /// `v` with each non-integer number as the f64 it denotes: with `exact-numbers`
    /// a number keeps its text (`2.5e-5` is not `0.000025` as text), and the literals
    /// here are compared by value.
    fn as_f64s(v: Value) -> Value {
        match v {
            Value::Number(n) if !n.is_u64() && !n.is_i64() => n
                .as_f64()
                .and_then(serde_json::Number::from_f64)
                .map_or(Value::Number(n), Value::Number),
            Value::Array(a) => Value::Array(a.into_iter().map(as_f64s).collect()),
            Value::Object(o) => {
                Value::Object(o.into_iter().map(|(k, v)| (k, as_f64s(v))).collect())
            }
            other => other,
        }
    }

    fn cuts_for(len: usize, picks: &[prop::sample::Index]) -> Vec<usize> {
        let mut cuts: Vec<usize> = picks.iter().map(|ix| ix.index(len + 1)).collect();
        cuts.sort_unstable();
        cuts
    }

    const MUTATION_BYTES: &[u8] =
        b"'\"\\()[]{},:=#_.-+0179exjabTNrufn \n\t\x00\x7f\x80\xc3\xa9\xff";

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// Random literal trees rendered as Python and fed at random splits
        /// convert to the same value.
        #[test]
        fn roundtrip_random_literals(
            args in py_args(),
            seed in any::<u64>(),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
        ) {
            let mut r = Rng(seed | 1);
            let src = render_args(&args, &mut r);
            let input = format!("{src}]\n<|eot_id|>");
            let cuts = cuts_for(input.len(), &picks);
            let (out, end) = run(input.as_bytes(), &cuts, 64);
            prop_assert_eq!(&end, &End::Done(src.len()), "src {:?} out {:?}", src, out);
            let got: Value = serde_json::from_str(&out).map_err(|e| {
                TestCaseError::fail(format!("{e}: {out}"))
            })?;
            let mut want = Map::new();
            for (name, v) in &args {
                want.insert(name.clone(), to_json(v));
            }
            prop_assert_eq!(as_f64s(got), as_f64s(Value::Object(want)), "src {:?}", src);
            prop_assert_eq!(run(input.as_bytes(), &[], 64), (out, end));
        }

        /// Mutated inputs: never panic; whole, random splits and byte by byte
        /// agree; Done output is a JSON object.
        #[test]
        fn mutations_are_split_invariant(
            args in py_args(),
            seed in any::<u64>(),
            edits in prop::collection::vec(
                (any::<prop::sample::Index>(), 0u8..3, prop::sample::select(MUTATION_BYTES)),
                1..4,
            ),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
        ) {
            let mut r = Rng(seed | 1);
            let mut input = render_args(&args, &mut r).into_bytes();
            for (ix, op, byte) in edits {
                let k = ix.index(input.len() + 1);
                match op {
                    0 if k < input.len() => input[k] = byte,
                    1 if k < input.len() => { input.remove(k); }
                    _ => input.insert(k, byte),
                }
            }
            let whole = run(&input, &[], 64);
            let cuts = cuts_for(input.len(), &picks);
            prop_assert_eq!(&run(&input, &cuts, 64), &whole);
            let bytewise: Vec<usize> = (0..=input.len()).collect();
            prop_assert_eq!(&run(&input, &bytewise, 64), &whole);
            if let End::Done(_) = whole.1 {
                match serde_json::from_str::<Value>(&whole.0) {
                    Ok(v) => prop_assert!(v.is_object()),
                    // A mutation can make a number overflow f64 (`1e999`):
                    // still JSON, but serde_json refuses it (documented).
                    Err(e) if e.to_string().contains("out of range") => {
                        let complete = whole.0.starts_with('{') && whole.0.ends_with('}');
                        prop_assert!(complete, "not an object: {}", whole.0);
                    }
                    Err(e) => prop_assert!(false, "{}: {}", e, whole.0),
                }
            }
        }

        /// Arbitrary bytes: never panic; splitting does not matter.
        #[test]
        fn arbitrary_bytes_are_split_invariant(
            input in prop::collection::vec(
                prop_oneof![3 => prop::sample::select(MUTATION_BYTES), 1 => any::<u8>()],
                0..48,
            ),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
        ) {
            let mut input = input;
            // Start like an argument often, so that deeper states are reached.
            if input.first().is_some_and(|b| b % 2 == 0) {
                input.splice(0..0, *b"a=");
            }
            let whole = run(&input, &[], 3);
            let cuts = cuts_for(input.len(), &picks);
            prop_assert_eq!(&run(&input, &cuts, 3), &whole);
            let bytewise: Vec<usize> = (0..=input.len()).collect();
            prop_assert_eq!(&run(&input, &bytewise, 3), &whole);
        }
    }
}
