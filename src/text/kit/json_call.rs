//! [`JsonCall`], the streaming walker of one JSON call object
//! (`{"name": .., "arguments": ..}`, or another [`Shape`]) that every JSON-call syntax
//! shares: the [JSON-call engine](crate::text::json) (`hermes`, `command-r`, `granite`,
//! ...) and `mistral`'s `[TOOL_CALLS][..]` lists. `ToolCallStart` when the name string
//! closes; the arguments value is streamed as the model's own bytes, its end found with
//! [`JsonScanner`]; an `"id"` before the name is the call id; arguments written before
//! the name are held (bounded by `max_argument_bytes`) and flushed after the Start.
//!
//! String-encoded arguments (`"arguments": "{\"a\": 1}"`, a JSON string holding the
//! object, as OpenAI's own wire format writes them and some models copy) are decoded
//! when the name came first: the argument deltas are then the decoded object's text —
//! the string's content unescaped as it arrives (an escape sequence split across feeds
//! is held until complete, so every chunking gives the same text), whitespace before the
//! object left out; the call's raw text in an error stays the model's own bytes. The
//! string must hold one JSON object (whitespace around it allowed) and nothing else: an
//! empty (or all-whitespace) string is `{}`; anything else (`"hello"`, a broken or
//! unfinished object, a second value after it) ends the call as an `invalid_arguments`
//! error at the byte that shows it. A string before the name is not decoded (the
//! arguments are that JSON string, as written). Arguments written as an object cost
//! nothing more: the string case is one byte comparison at the value's first byte.

use std::borrow::Cow;

use crate::calls::{Calls, Slot, split_at_room};
use crate::event::ErrorKind;
use crate::event::EventSink;
use crate::limits::Limits;
use crate::scan::json::{JsonError, JsonScanner, JsonStatus};
use crate::text::kit::call::Forming;
use crate::text::kit::table::{Token, list, tok};

/// Longest key kept while walking a call object.
const MAX_KEY: usize = 64;

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Where the walker is in `{"name": .., "arguments": ..}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum W {
    /// Before `{`.
    Open,
    /// After `{`: a key or `}`.
    KeyOrEnd,
    /// After `,`: a key.
    Key,
    /// Inside a key string.
    KeyStr { esc: bool },
    /// After a key: `:`.
    Colon,
    /// After `:`: the value.
    Value,
    /// Inside the name or id string.
    Str { esc: bool },
    /// Inside the arguments value.
    Args,
    /// Inside string-encoded arguments ([`Encoded`]).
    ArgsStr,
    /// Inside a value that is skipped.
    Skip,
    /// After a value: `,` or `}`.
    After,
    /// The object closed.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Id,
    Args,
    Other,
}

impl Shape {
    /// Which field `key` is (named fields only).
    fn field(&self, key: &str) -> Field {
        let Shape::Fields { name, args, id } = self else {
            return Field::Other;
        };
        if name.iter().any(|k| k == key) {
            Field::Name
        } else if id.iter().any(|k| k == key) {
            Field::Id
        } else if args.iter().any(|k| k == key) {
            Field::Args
        } else {
            Field::Other
        }
    }

    #[inline]
    fn name_key(&self) -> bool {
        matches!(self, Shape::NameKey)
    }
}

/// What [`JsonCall::feed`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Walk {
    /// All input consumed; the object is still open.
    NeedMore,
    /// The object closed (its `}` consumed).
    Done,
    /// Not a call object; the offending byte was not consumed.
    Invalid(ErrorKind),
    /// Inside an argument string, the stop byte ([`JsonCall::set_stop`]): it may begin
    /// one of the syntax's special tokens (not consumed). The caller looks; if it is
    /// string content after all, [`JsonCall::past_stop`] hands it on.
    Special,
}

/// How a call object says which tool it calls: a built-in table's `const` (its keys
/// borrowed) or a syntax spec's (owned).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Named fields: the name, the arguments and the id under these keys (the first
    /// arguments key seen is used).
    Fields {
        /// Keys whose string value is the tool name.
        name: Cow<'static, [Token]>,
        /// Keys whose value is the arguments (the first one seen is used).
        args: Cow<'static, [Token]>,
        /// Keys whose string value, before the name, is the call id.
        id: Cow<'static, [Token]>,
    },
    /// The object's one key is the tool name, its value the arguments:
    /// `{"get_weather": {"city": "Paris"}}` (Apertus). A second key is malformed.
    NameKey,
}

/// `{"name": .., "arguments": ..}` with `"parameters"` accepted, and `"id"`.
pub(crate) const NAME_ARGUMENTS: Shape = Shape::Fields {
    name: list![tok("name")],
    args: list![tok("arguments"), tok("parameters")],
    id: list![tok("id")],
};

/// Streams one call object (`{"name": .., "arguments": ..}`, or a [`Shape`]) into
/// [`Calls`]: Start when the name string closes, the arguments value's own bytes as
/// argument deltas.
#[derive(Debug)]
pub(crate) struct JsonCall {
    shape: Shape,
    w: W,
    field: Field,
    key: String,
    /// The raw name / id string, quotes included.
    sbuf: String,
    value: JsonScanner,
    id: String,
    args_seen: bool,
    args_done: bool,
    named: bool,
    slot: Option<Slot>,
    /// Within one [`feed`](JsonCall::feed): the bytes of its input already in the raw text.
    synced: usize,
    max_str: usize,
    max_depth: usize,
    /// The first byte of the syntax's special tokens, where an argument string stops.
    stop: Option<crate::scan::find::StopByte>,
    /// String-encoded arguments being decoded (allocated only for them).
    enc: Option<Box<Encoded>>,
    /// The name the call's message header wrote ([`header_name`](Self::header_name)),
    /// until the object's own name member (which must be it) is read.
    header: String,
}

/// Where the decoder of string-encoded arguments is inside the string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Esc {
    /// Plain content.
    No,
    /// After `\`.
    Slash,
    /// In `\uXXXX`: `n` hex digits read into `acc`; `hi`: the high surrogate before it.
    Hex { n: u8, acc: u32, hi: Option<u32> },
    /// After a high surrogate's `\uXXXX`: its low half's `\` expected.
    LowSlash(u32),
    /// Its low half's `u` expected.
    LowU(u32),
}

/// The state of string-encoded arguments: the escape being read, the decoded object's
/// scanner (the decoded text is the call's, [`Calls::decoded_args`]).
#[derive(Debug)]
struct Encoded {
    esc: Esc,
    inner: JsonScanner,
    /// A non-whitespace byte was decoded (the object began).
    began: bool,
    /// The object closed.
    done: bool,
}

/// Why decoded text is refused.
struct Refused;

impl JsonCall {
    /// A walker for call objects of `shape`.
    pub(crate) fn with_shape(shape: Shape, limits: &Limits) -> Self {
        JsonCall {
            shape,
            w: W::Open,
            field: Field::Other,
            key: String::new(),
            sbuf: String::new(),
            value: JsonScanner::with_max_depth(limits.max_depth),
            id: String::new(),
            args_seen: false,
            args_done: false,
            named: false,
            slot: None,
            synced: 0,
            max_str: limits.max_held_bytes,
            max_depth: limits.max_depth,
            stop: None,
            enc: None,
            header: String::new(),
        }
    }

    /// The call's message header wrote `name` before the object (Inkling's
    /// `<|message_model|>NAME<|content_invoke_tool_json|>{..}`): the call starts with it
    /// now when it is a name (no whitespace, quote, brace or markup; else it is only
    /// compared), and the object's own `name` member, if it writes one, must be the same
    /// (another is an `invalid_arguments` error with the call's bytes: the call never
    /// silently takes one of two names). Call right after the object's `{` is read.
    pub(crate) fn header_name(
        &mut self,
        name: &str,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) {
        self.header.clear();
        self.header.push_str(name);
        let junk =
            name.is_empty() || name.contains(|c: char| c.is_whitespace() || "\"'{}<>".contains(c));
        if !junk && !self.named {
            self.start(name, raw, calls, out);
        }
    }

    /// Argument strings stop at `stop` ([`Walk::Special`]): the first byte of the
    /// syntax's special tokens (never string content), not `"`, `\\` or a control
    /// character.
    pub(crate) fn set_stop(&mut self, stop: Option<crate::scan::find::StopByte>) {
        self.stop = stop;
    }

    /// Whether the arguments are in a string's plain content (where a stop byte stops).
    #[inline]
    pub(crate) fn in_plain_string(&self) -> bool {
        self.w == W::Args && self.value.in_plain_string()
    }

    /// The stop byte of [`set_stop`](Self::set_stop).
    #[inline]
    pub(crate) fn stop(&self) -> Option<crate::scan::find::StopByte> {
        self.stop
    }

    /// After [`Walk::Special`]: the stop byte (the first byte of `s`, ASCII) is string
    /// content after all; hands it to the call as [`feed`](Self::feed) would. `false`
    /// (nothing consumed) when the call breaks there, past the argument bound.
    pub(crate) fn past_stop(
        &mut self,
        s: &str,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> bool {
        let piece = s.get(..1).unwrap_or_default();
        self.synced = 0;
        if self
            .deliver(piece, 0, piece, false, raw, calls, out)
            .is_err()
        {
            return false;
        }
        // A string byte: the scanner stays in the string.
        let _ = self.value.feed(piece.as_bytes());
        true
    }

    /// Starts over for the next object.
    pub(crate) fn reset(&mut self) {
        self.w = W::Open;
        self.key.clear();
        self.sbuf.clear();
        self.value = JsonScanner::with_max_depth(self.max_depth);
        self.id.clear();
        self.args_seen = false;
        self.args_done = false;
        self.named = false;
        self.slot = None;
        self.enc = None;
        self.header.clear();
    }

    /// The call's slot once it was opened: at its name, or at arguments written before
    /// its name (`None` before, or when the name came past the call limit).
    pub(crate) fn slot(&self) -> Option<Slot> {
        self.slot
    }

    /// Whether the name was seen (Start emitted, unless past the call limit).
    pub(crate) fn named(&self) -> bool {
        self.named
    }

    /// Whether the walker is inside a string: a key, the name or id, or a string of a
    /// value (a delimiter there is string content).
    pub(crate) fn in_string(&self) -> bool {
        match self.w {
            W::KeyStr { .. } | W::Str { .. } => true,
            W::Args | W::Skip => self.value.in_string(),
            _ => false,
        }
    }

    /// Whether the arguments value closed.
    pub(crate) fn args_done(&self) -> bool {
        self.args_done
    }

    /// What a member the call may not have is: the call's own error while its
    /// arguments are open, text after them once they closed (the call ended).
    fn extra(&self) -> ErrorKind {
        if self.args_done {
            ErrorKind::TrailingArguments
        } else {
            ErrorKind::UnexpectedPayload
        }
    }

    /// Bytes retained.
    pub(crate) fn retained(&self) -> usize {
        self.sbuf.capacity() + self.key.capacity()
    }

    /// Decoded text `piece` of string-encoded arguments goes to the decoded object's
    /// scanner and, as far as it is valid, to the call (the model's bytes stay in the raw
    /// text: they are pushed as the call's text, not as its arguments).
    fn decoded(
        &mut self,
        mut piece: &str,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Result<(), Refused> {
        let Some(e) = self.enc.as_mut() else {
            return Ok(());
        };
        if !e.began {
            piece = piece.trim_start_matches([' ', '\t', '\n', '\r']);
            if piece.is_empty() {
                return Ok(());
            }
            if !piece.starts_with('{') {
                return Err(Refused);
            }
            e.began = true;
        }
        if e.done {
            // Only whitespace may follow the object.
            return if piece.bytes().all(is_ws) {
                Ok(())
            } else {
                Err(Refused)
            };
        }
        let (take, closed, bad) = match e.inner.feed(piece.as_bytes()) {
            JsonStatus::NeedMore => (piece.len(), false, false),
            JsonStatus::Complete { consumed } => (consumed, true, false),
            JsonStatus::Invalid { at, .. } => (at, false, true),
        };
        let value = piece.get(..take).unwrap_or_default();
        // (The arguments close at the string's closing quote, once nothing but
        // whitespace followed the object.)
        e.done = closed;
        if let Some(slot) = self.slot
            && !value.is_empty()
        {
            calls.decoded_args(slot, value, false, false, out);
        }
        let rest = piece.get(take..).unwrap_or_default();
        if bad || !rest.bytes().all(is_ws) {
            return Err(Refused);
        }
        Ok(())
    }

    /// Walks the content of string-encoded arguments from `i`: decodes it into the call
    /// (run by run, escape by escape) up to the closing quote, which ends the arguments.
    /// Returns where it stopped and, when the arguments are refused, at which byte (not
    /// consumed).
    fn args_str(
        &mut self,
        s: &str,
        mut i: usize,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> (usize, Option<Walk>) {
        let bytes = s.as_bytes();
        let bad = Some(Walk::Invalid(ErrorKind::InvalidArguments));
        while i < bytes.len() {
            let Some(esc) = self.enc.as_ref().map(|e| e.esc) else {
                return (i, bad);
            };
            let Some(&b) = bytes.get(i) else { break };
            let mut one = [0u8; 4];
            let (next, piece): (Esc, &str) = match esc {
                Esc::No => {
                    let rest = bytes.get(i..).unwrap_or_default();
                    let n = rest
                        .iter()
                        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                        .unwrap_or(rest.len());
                    if n > 0 {
                        let run = s.get(i..i + n).unwrap_or_default();
                        if self.decoded(run, calls, out).is_err() {
                            return (i, bad);
                        }
                        i += n;
                        continue;
                    }
                    match b {
                        b'"' => {
                            // The string closed: the arguments end with it.
                            let (began, done) = self
                                .enc
                                .as_ref()
                                .map_or((false, false), |e| (e.began, e.done));
                            if began && !done {
                                return (i, bad);
                            }
                            // The call's raw text through the quote first: the End
                            // marks what it holds as the ended call's
                            // ([`Raw::delivered`](crate::calls::Raw::delivered)), so a
                            // later error about junk after it carries only the junk,
                            // however the bytes were split.
                            if let Some(t) = s.get(self.synced..i + 1).filter(|t| !t.is_empty()) {
                                calls.raw_or(self.slot, raw).push(t);
                            }
                            self.synced = i + 1;
                            if let Some(slot) = self.slot {
                                // An empty string: `{}`.
                                let delta = if began { "" } else { "{}" };
                                calls.decoded_args(slot, delta, true, true, out);
                            }
                            self.args_done = true;
                            self.w = W::After;
                            return (i + 1, None);
                        }
                        b'\\' => (Esc::Slash, ""),
                        // A raw control character: not a JSON string.
                        _ => return (i, bad),
                    }
                }
                Esc::Slash => {
                    let c = match b {
                        b'"' => "\"",
                        b'\\' => "\\",
                        b'/' => "/",
                        b'b' => "\u{8}",
                        b'f' => "\u{c}",
                        b'n' => "\n",
                        b'r' => "\r",
                        b't' => "\t",
                        b'u' => "",
                        _ => return (i, bad),
                    };
                    if b == b'u' {
                        (
                            Esc::Hex {
                                n: 0,
                                acc: 0,
                                hi: None,
                            },
                            "",
                        )
                    } else {
                        (Esc::No, c)
                    }
                }
                Esc::Hex { n, acc, hi } => {
                    let Some(d) = char::from(b).to_digit(16) else {
                        return (i, bad);
                    };
                    let acc = acc * 16 + d;
                    if n < 3 {
                        (Esc::Hex { n: n + 1, acc, hi }, "")
                    } else {
                        let unit = match (hi, acc) {
                            (None, 0xD800..=0xDBFF) => {
                                // A high surrogate: its low half must follow.
                                if let Some(e) = self.enc.as_mut() {
                                    e.esc = Esc::LowSlash(acc);
                                }
                                i += 1;
                                continue;
                            }
                            (None, 0xDC00..=0xDFFF) => return (i, bad),
                            (None, u) => u,
                            (Some(h), 0xDC00..=0xDFFF) => {
                                0x10000 + ((h - 0xD800) << 10) + (acc - 0xDC00)
                            }
                            (Some(_), _) => return (i, bad),
                        };
                        let Some(c) = char::from_u32(unit) else {
                            return (i, bad);
                        };
                        (Esc::No, &*c.encode_utf8(&mut one))
                    }
                }
                Esc::LowSlash(h) if b == b'\\' => (Esc::LowU(h), ""),
                Esc::LowU(h) if b == b'u' => (
                    Esc::Hex {
                        n: 0,
                        acc: 0,
                        hi: Some(h),
                    },
                    "",
                ),
                // A lone high surrogate.
                Esc::LowSlash(_) | Esc::LowU(_) => return (i, bad),
            };
            if let Some(e) = self.enc.as_mut() {
                e.esc = next;
            }
            if !piece.is_empty() && self.decoded(piece, calls, out).is_err() {
                return (i, bad);
            }
            i += 1;
        }
        (bytes.len(), None)
    }

    fn start(&mut self, name: &str, raw: &mut Forming, calls: &mut Calls, out: &mut dyn EventSink) {
        self.named = true;
        if self.slot.is_none() {
            self.slot = calls.open_raw(raw, out);
        }
        if let Some(slot) = self.slot {
            calls.set_id(slot, &self.id);
            // Emits the arguments the call held since before its name (in its raw text).
            calls.set_name(slot, name, out);
        }
    }

    /// Hands argument bytes `piece`, at `at` in this feed's input `s` (scanned by
    /// `self.value`), to the call and to the raw text (the bytes of `s` before it first);
    /// `complete`: the value closed with them. Arguments before the name open the call,
    /// which holds them (bounded: past the bound, `Err` with the bytes of `piece` that
    /// fit, none taken; the call breaks right there, however the arguments were cut).
    #[allow(clippy::too_many_arguments)]
    fn deliver(
        &mut self,
        s: &str,
        at: usize,
        piece: &str,
        complete: bool,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> Result<(), usize> {
        if !self.named && self.slot.is_none() {
            self.slot = Some(calls.open_unnamed(raw));
        }
        // (An empty push changes nothing: the call is not looked up for it.)
        if let Some(t) = s.get(self.synced..at).filter(|t| !t.is_empty()) {
            calls.raw_or(self.slot, raw).push(t);
        }
        self.synced = at;
        let Some(slot) = self.slot else {
            // No call (named past the call limit): the bytes are only call text.
            return Ok(());
        };
        calls.push_args(slot, raw, piece, complete, out)?;
        self.synced = at + piece.len();
        Ok(())
    }

    /// The hot path of [`feed`](Self::feed) inside the arguments: when all of `s` is more
    /// of a string in the named call's arguments ([`JsonScanner::string_run`]), hands it
    /// to the call as `feed` would and returns `true`; otherwise returns `false` having
    /// done nothing.
    #[inline]
    pub(crate) fn args_run(
        &mut self,
        s: &str,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> bool {
        if self.w != W::Args || !self.named {
            return false;
        }
        let run = match self.stop {
            None => self.value.string_run(s.as_bytes()),
            Some(stop) => self.value.string_run_stop(s.as_bytes(), stop),
        };
        if !run {
            return false;
        }
        match self.slot {
            // Named: the call never refuses argument bytes.
            Some(slot) => drop(calls.push_args(slot, raw, s, false, out)),
            None => calls.raw_or(None, raw).push(s),
        }
        true
    }

    /// Walks `s`, the bytes it consumes going to the call's raw text `raw` (the arguments
    /// with [`Raw::push_args`], where the call reads them); returns the bytes consumed
    /// and what was found.
    pub(crate) fn feed(
        &mut self,
        s: &str,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> (usize, Walk) {
        self.synced = 0;
        let (n, walk) = self.walk(s, raw, calls, out);
        if let Some(t) = s.get(self.synced..n).filter(|t| !t.is_empty()) {
            calls.raw_or(self.slot, raw).push(t);
        }
        (n, walk)
    }

    fn walk(
        &mut self,
        s: &str,
        raw: &mut Forming,
        calls: &mut Calls,
        out: &mut dyn EventSink,
    ) -> (usize, Walk) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let Some(&b) = bytes.get(i) else { break };
            match self.w {
                W::Open | W::KeyOrEnd | W::Key | W::Colon | W::Value | W::After if is_ws(b) => {
                    i += 1;
                }
                W::Open => {
                    if b != b'{' {
                        return (i, Walk::Invalid(ErrorKind::InvalidJson));
                    }
                    self.w = W::KeyOrEnd;
                    i += 1;
                }
                W::KeyOrEnd | W::Key => {
                    if b == b'"' && self.shape.name_key() {
                        // The key is the name: read like a name string.
                        if self.named {
                            return (i, Walk::Invalid(self.extra()));
                        }
                        self.field = Field::Name;
                        self.sbuf.clear();
                        self.sbuf.push('"');
                        self.w = W::Str { esc: false };
                    } else if b == b'"' {
                        self.key.clear();
                        self.w = W::KeyStr { esc: false };
                    } else if b == b'}' && self.w == W::KeyOrEnd {
                        self.w = W::Done;
                        return (i + 1, Walk::Done);
                    } else {
                        return (i, Walk::Invalid(ErrorKind::InvalidJson));
                    }
                    i += 1;
                }
                W::KeyStr { esc } => {
                    let rest = bytes.get(i..).unwrap_or_default();
                    let (n, closed, esc) = string_run(rest, esc);
                    if self.key.len() + n <= MAX_KEY {
                        self.key.push_str(s.get(i..i + n).unwrap_or_default());
                    } else {
                        // Too long to be a field we read: not kept (bounded in one
                        // piece too). A bare `"` cannot occur in key text, so the
                        // key matches no field name however it continues.
                        self.key.clear();
                        self.key.push('"');
                    }
                    i += n;
                    if closed {
                        i += 1;
                        self.field = self.shape.field(&self.key);
                        self.w = W::Colon;
                    } else {
                        self.w = W::KeyStr { esc };
                    }
                }
                W::Colon => {
                    if b != b':' {
                        return (i, Walk::Invalid(ErrorKind::InvalidJson));
                    }
                    self.w = W::Value;
                    i += 1;
                }
                W::Value => {
                    self.value = JsonScanner::with_max_depth(self.max_depth);
                    match self.field {
                        Field::Name | Field::Id
                            if b == b'"'
                                && !(self.field == Field::Name
                                    && self.named
                                    && self.header.is_empty()) =>
                        {
                            self.sbuf.clear();
                            self.sbuf.push('"');
                            self.w = W::Str { esc: false };
                            i += 1;
                        }
                        Field::Args if !self.args_seen => {
                            self.args_seen = true;
                            if b == b'"' && self.named && self.slot.is_some() {
                                // String-encoded arguments, decoded (module docs).
                                self.enc = Some(Box::new(Encoded {
                                    esc: Esc::No,
                                    inner: JsonScanner::with_max_depth(self.max_depth),
                                    began: false,
                                    done: false,
                                }));
                                self.w = W::ArgsStr;
                                i += 1;
                            } else {
                                self.w = W::Args;
                            }
                        }
                        // A member the syntax does not define, a second arguments value,
                        // a second name: an error with the raw call, never dropped.
                        Field::Other | Field::Args => return (i, Walk::Invalid(self.extra())),
                        Field::Name if self.named => return (i, Walk::Invalid(self.extra())),
                        _ => self.w = W::Skip,
                    }
                }
                W::Str { esc } => {
                    let rest = bytes.get(i..).unwrap_or_default();
                    let (n, closed, esc) = string_run(rest, esc);
                    let run = s.get(i..i + n).unwrap_or_default();
                    if self.sbuf.len() + n > self.max_str {
                        // The call breaks at the first character past the bound, however
                        // the string arrived (what fits is consumed up to there).
                        let (fit, _) =
                            split_at_room(run, self.max_str.saturating_sub(self.sbuf.len()));
                        self.sbuf.push_str(fit);
                        return (i + fit.len(), Walk::Invalid(ErrorKind::LimitExceeded));
                    }
                    self.sbuf.push_str(run);
                    i += n;
                    if closed {
                        i += 1;
                        self.sbuf.push('"');
                        self.w = W::After;
                        if self.shape.name_key() {
                            // `{"name": args}`: the value is the arguments.
                            self.w = W::Colon;
                        }
                        let decoded = serde_json::from_str::<String>(&self.sbuf).ok();
                        // The header named the call: the object's name must be it (and
                        // the call started with it, unless it was no name).
                        let headed = self.field == Field::Name && !self.header.is_empty();
                        if headed {
                            if decoded.as_deref() != Some(self.header.as_str()) {
                                return (i, Walk::Invalid(ErrorKind::InvalidArguments));
                            }
                            self.header.clear();
                        }
                        match (self.field, decoded) {
                            (Field::Name, _) if headed && self.named => {}
                            (Field::Name, Some(name)) if !name.is_empty() => {
                                self.start(&name, raw, calls, out);
                            }
                            (Field::Id, Some(id)) if !self.named => self.id = id,
                            _ => {}
                        }
                        if self.shape.name_key() {
                            self.field = Field::Args;
                        }
                    } else {
                        self.w = W::Str { esc };
                    }
                }
                W::Args | W::Skip => {
                    let rest = s.get(i..).unwrap_or_default();
                    let args = self.w == W::Args;
                    let status = match self.stop {
                        Some(stop) if args => match self.value.feed_stop(rest.as_bytes(), stop) {
                            Ok(status) => status,
                            Err(at) => {
                                let before = rest.get(..at).unwrap_or_default();
                                if let Err(fit) = self.deliver(s, i, before, false, raw, calls, out)
                                {
                                    return (i + fit, Walk::Invalid(ErrorKind::LimitExceeded));
                                }
                                return (i + at, Walk::Special);
                            }
                        },
                        _ => self.value.feed(rest.as_bytes()),
                    };
                    match status {
                        JsonStatus::NeedMore => {
                            if args
                                && let Err(fit) = self.deliver(s, i, rest, false, raw, calls, out)
                            {
                                return (i + fit, Walk::Invalid(ErrorKind::LimitExceeded));
                            }
                            i = bytes.len();
                        }
                        JsonStatus::Complete { consumed } => {
                            if args {
                                let value = rest.get(..consumed).unwrap_or_default();
                                if let Err(fit) = self.deliver(s, i, value, true, raw, calls, out) {
                                    return (i + fit, Walk::Invalid(ErrorKind::LimitExceeded));
                                }
                                self.args_done = true;
                            }
                            i += consumed;
                            self.w = W::After;
                        }
                        JsonStatus::Invalid { at, error } => {
                            // The valid prefix streams as it would have in smaller pieces.
                            if args
                                && let Err(fit) = self.deliver(
                                    s,
                                    i,
                                    rest.get(..at).unwrap_or_default(),
                                    false,
                                    raw,
                                    calls,
                                    out,
                                )
                            {
                                return (i + fit, Walk::Invalid(ErrorKind::LimitExceeded));
                            }
                            let kind = match error {
                                JsonError::TooDeep => ErrorKind::LimitExceeded,
                                _ if args => ErrorKind::InvalidArguments,
                                _ => ErrorKind::InvalidJson,
                            };
                            return (i + at, Walk::Invalid(kind));
                        }
                    }
                }
                W::ArgsStr => {
                    let (n, walk) = self.args_str(s, i, raw, calls, out);
                    if let Some(walk) = walk {
                        return (n, walk);
                    }
                    i = n;
                }
                W::After => {
                    match b {
                        b',' => self.w = W::Key,
                        b'}' => {
                            self.w = W::Done;
                            return (i + 1, Walk::Done);
                        }
                        _ => return (i, Walk::Invalid(ErrorKind::InvalidJson)),
                    }
                    i += 1;
                }
                W::Done => return (i, Walk::Done),
            }
        }
        (bytes.len(), Walk::NeedMore)
    }
}

/// Runs over string bytes: returns (bytes of content, whether the closing quote follows
/// them, escape state at the end).
#[inline]
fn string_run(rest: &[u8], mut esc: bool) -> (usize, bool, bool) {
    let mut i = 0;
    loop {
        if esc {
            if i >= rest.len() {
                return (i, false, true);
            }
            esc = false;
            i += 1;
            continue;
        }
        match crate::scan::find::find2(b'"', b'\\', rest.get(i..).unwrap_or_default()) {
            None => return (rest.len(), false, false),
            Some(off) => {
                i += off;
                if rest.get(i) == Some(&b'"') {
                    return (i, true, false);
                }
                esc = true;
                i += 1;
            }
        }
    }
}
