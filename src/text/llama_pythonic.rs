//! `llama-pythonic`: Llama 3.2 / Llama 4 tool calls written in Python call syntax,
//! `[get_weather(city='Paris', days=3), get_time()]`, anywhere in the text.
//!
//! Byte-level and incremental. `ToolCallStart` is emitted by the feed that delivers the
//! `(` after the name; the keyword arguments are converted to JSON object text by the
//! [`PyArgs`] transducer *while they arrive* (strings grow as they stream); the call
//! ends (`ToolCallEnd`) at its `)`. A list holds any number of calls separated by `,`
//! and closes with `]`; text before and after is text.
//!
//! # Marker-less rules
//!
//! There is no marker, so a call may start at any `[`. Text is held back only while the
//! bytes since that `[` still match the call header `[` ws* name `(` — at most
//! [`MAX_NAME`] name bytes (and [`Limits::max_held_bytes`]) — and released verbatim the
//! moment they cannot: `[1, 2]`, `[link](url)`, `[ x ]`, `[see below]` are text, byte for
//! byte. Once the `(` arrives the header is decided: it is a call.
//!
//! - Names: `[A-Za-z_][A-Za-z0-9_.-]*`, no trailing `.`/`-`, no `..`. A dotted name
//!   ending in `.call` is a Llama built-in tool (`brave_search.call(query='x')`, as
//!   Llama 3.1 writes them): the call is named by what precedes `.call` (`brave_search`,
//!   the name Llama Stack gives it). Other dotted names are kept whole (`math.sqrt`).
//! - [`Parser::tool_names`](crate::Parser::tool_names): a header whose name is not
//!   declared is text. So is one whose name is not among [`Parser::tools`](crate::Parser::tools)
//!   (unless `reject_undeclared(false)`), except a later call of a list that is already
//!   calls (`, name(`): that one is a call, which the call table rejects (an
//!   `undeclared_tool` error carrying `name(..)`), and the calls after it still count. [`Parser::calls_at_start_only`](crate::Parser::calls_at_start_only):
//!   a `[` after non-whitespace text is text (further calls of the same list still count).
//! - After a call's `)`: `,` and another call, or `]`. Anything else ends the list and
//!   is text (the calls before it stand).
//!
//! # Errors and recovery
//!
//! Arguments that are not keyword arguments with literal values (`f(1)`, `f(x=y)`,
//! `f(a={b=1})`, …; see [`PyArgs`] for what is accepted) make the call fail: it gets
//! its `Error` event instead of `ToolCallEnd`. The scanner then skips to the end of
//! the broken call — the `)` that balances its `(`, tracking brackets and quoted
//! strings, or a `]` at its top level — and carries on after it (`,` another call, `]`,
//! then text). The error's `raw` is the call's argument text already streamed (the
//! converted JSON, as for every call error), followed by the call's own raw text in full
//! (`name(...)`, up to [`Limits::max_argument_bytes`]), so nothing is lost. A call cut off
//! by the end of input gets an `Error` of kind `truncated` carrying the argument text
//! streamed so far.
//!
//! Invalid UTF-8 in text becomes U+FFFD; a UTF-8 character split across feeds is held
//! until complete.

use crate::calls::{Calls, Slot};
use crate::event::{ErrorKind, Event};
use crate::limits::Limits;
use crate::scan::find::find1;
use crate::scan::pythonic::{PyArgs, PyStatus};
use crate::scan::utf8::Utf8Holder;
use crate::text::TextOptions;
use crate::text::util::{TextOut, is_name_byte, is_name_start, is_ws, push_bounded};

/// Longest tool name accepted in a marker-less call header (bytes).
pub(crate) const MAX_NAME: usize = 256;

/// The tool name a pythonic callee designates: `x.call` → `x` (a Llama built-in tool),
/// anything else as written.
pub(crate) fn callee_name(callee: &str) -> &str {
    match callee.strip_suffix(".call") {
        Some(base) if !base.is_empty() => base,
        _ => callee,
    }
}

/// Where a skipped broken call ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkipEnd {
    /// The call ends after this many bytes (its closing bracket included).
    After(usize),
    /// The call ends before this byte (a `]` closing the pythonic list).
    Before(usize),
}

/// Finds the end of a broken call by balancing brackets outside quoted strings.
#[derive(Debug, Default, Clone)]
pub(crate) struct Skip {
    depth: u32,
    quote: u8,
    esc: bool,
    python: bool,
}

impl Skip {
    /// A skipper for a pythonic call (after its `(`; `'` quotes too) or a JSON call
    /// object (from its `{`; `depth` open brackets already seen).
    pub(crate) fn new(python: bool, depth: u32) -> Self {
        Skip {
            depth,
            quote: 0,
            esc: false,
            python,
        }
    }

    /// Scans bytes; returns where the call ends, if it does in `input`.
    pub(crate) fn scan(&mut self, input: &[u8]) -> Option<SkipEnd> {
        for (i, &b) in input.iter().enumerate() {
            if self.quote != 0 {
                if self.esc {
                    self.esc = false;
                } else if b == b'\\' {
                    self.esc = true;
                } else if b == self.quote {
                    self.quote = 0;
                }
                continue;
            }
            match b {
                b'"' => self.quote = b,
                b'\'' if self.python => self.quote = b,
                b'(' | b'[' | b'{' => self.depth = self.depth.saturating_add(1),
                b')' | b']' | b'}' if self.python && self.depth == 0 => match b {
                    b')' => return Some(SkipEnd::After(i + 1)),
                    b']' => return Some(SkipEnd::Before(i)),
                    _ => {}
                },
                b')' | b']' | b'}' => {
                    self.depth = self.depth.saturating_sub(1);
                    if !self.python && self.depth == 0 {
                        return Some(SkipEnd::After(i + 1));
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// Where the bytes of a skipped call go.
#[derive(Debug, Default)]
enum Target {
    /// Nowhere (the call was never opened: call limit).
    #[default]
    Drop,
    /// The failed call's error (its argument text).
    Call(Slot),
    /// An error of its own: text after a call had already ended (its first
    /// `max_argument_bytes` bytes, the rest counted).
    Orphan(crate::text::hermes::Raw),
}

/// A broken call being skipped to its end; its bytes become the error's `raw`.
#[derive(Debug, Default)]
pub(crate) struct Broken {
    skip: Skip,
    target: Target,
    utf8: Utf8Holder,
    scratch: String,
}

impl Broken {
    /// Starts skipping a broken call. `replay` is the call's text so far that the
    /// skipper scans to learn where it is (skipped when `raw_lost`: it was cut at the
    /// limit, and `skip` starts as given). `slot`: the call to fail (with `kind`), or
    /// `None`. `ended`: the call already ended (what follows is an error of its own).
    /// `send`: bytes that open the error's raw text.
    ///
    /// Returns `true` when the call already ended within `replay` (end it now).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn begin(
        &mut self,
        skip: Skip,
        replay: &[u8],
        raw_lost: bool,
        slot: Option<Slot>,
        ended: bool,
        send: &[u8],
        kind: ErrorKind,
        max: usize,
        calls: &mut Calls,
        out: &mut Vec<Event>,
    ) -> bool {
        self.skip = skip;
        self.utf8 = Utf8Holder::new();
        let done = !raw_lost && self.skip.scan(replay).is_some();
        self.target = match slot {
            Some(s) if ended => {
                calls.close(s, out);
                Target::Orphan(crate::text::hermes::Raw::new(max))
            }
            Some(s) => {
                calls.fail(s, kind, "", out);
                Target::Call(s)
            }
            None => Target::Drop,
        };
        self.send(send, calls, out);
        done
    }

    /// Skips bytes of the broken call; returns where it ends, if it does in `input`.
    pub(crate) fn feed(
        &mut self,
        input: &[u8],
        calls: &mut Calls,
        out: &mut Vec<Event>,
    ) -> Option<SkipEnd> {
        let end = self.skip.scan(input);
        let used = match end {
            None => input.len(),
            Some(SkipEnd::After(n) | SkipEnd::Before(n)) => n,
        };
        self.send(input.get(..used).unwrap_or_default(), calls, out);
        end
    }

    fn send(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut Vec<Event>) {
        if bytes.is_empty() || matches!(self.target, Target::Drop) {
            return;
        }
        let s = self.utf8.push(bytes, &mut self.scratch);
        match &mut self.target {
            Target::Drop => {}
            Target::Call(slot) => calls.args(*slot, &s, out),
            Target::Orphan(raw) => raw.push(&s),
        }
    }

    /// The broken call is over (or the input ended): emits its error.
    pub(crate) fn end(&mut self, calls: &mut Calls, out: &mut Vec<Event>) {
        if let Some(tail) = self.utf8.finish() {
            match &mut self.target {
                Target::Drop => {}
                Target::Call(slot) => calls.args(*slot, tail, out),
                Target::Orphan(raw) => raw.push(tail),
            }
        }
        match std::mem::take(&mut self.target) {
            Target::Drop => {}
            Target::Call(slot) => calls.close(slot, out),
            Target::Orphan(mut raw) => {
                let (raw, note) = raw.take();
                if !raw.is_empty() || !note.is_empty() {
                    out.push(Event::Error {
                        kind: ErrorKind::TrailingArguments,
                        message: format!(
                            "text after a tool call's arguments had closed, inside the call{note}"
                        ),
                        index: None,
                        raw,
                    });
                }
            }
        }
    }
}

/// What [`PyCall::feed`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PyFeed {
    /// All bytes used; the call is open.
    NeedMore,
    /// The call's `)` was consumed: this many bytes were used.
    Done(usize),
    /// The byte at this offset cannot be part of the call.
    Invalid(usize),
}

/// The arguments of one pythonic call, streamed to the call table as JSON.
#[derive(Debug)]
pub(crate) struct PyCall {
    args: PyArgs,
    json: String,
    /// The call's raw text (`name(` and the arguments so far), bounded.
    raw: Vec<u8>,
    raw_lost: bool,
    /// Where the arguments begin in `raw`.
    args_from: usize,
    max_raw: usize,
}

impl PyCall {
    pub(crate) fn new(limits: &Limits) -> Self {
        PyCall {
            args: PyArgs::with_max_depth(limits.max_depth),
            json: String::new(),
            raw: Vec::new(),
            raw_lost: false,
            args_from: 0,
            max_raw: limits.max_argument_bytes,
        }
    }

    /// A new call: `callee` is the name as written, before its `(`.
    pub(crate) fn begin(&mut self, callee: &[u8]) {
        self.args.reset();
        self.raw.clear();
        self.raw_lost = false;
        self.raw.extend_from_slice(callee);
        self.raw.push(b'(');
        self.args_from = self.raw.len();
    }

    /// Bytes retained.
    pub(crate) fn retained(&self) -> usize {
        self.raw.len()
    }

    /// Converts argument bytes, streaming the JSON to `slot`.
    pub(crate) fn feed(
        &mut self,
        slot: Option<Slot>,
        input: &[u8],
        calls: &mut Calls,
        out: &mut Vec<Event>,
    ) -> PyFeed {
        self.json.clear();
        let status = self.args.feed(input, &mut self.json);
        let (used, result) = match status {
            PyStatus::NeedMore => (input.len(), PyFeed::NeedMore),
            PyStatus::Done { consumed } => (consumed, PyFeed::Done(consumed)),
            PyStatus::Invalid { at, .. } => (at, PyFeed::Invalid(at)),
        };
        if !push_bounded(
            &mut self.raw,
            input.get(..used).unwrap_or_default(),
            self.max_raw,
        ) {
            self.raw_lost = true;
        }
        if let Some(s) = slot {
            calls.args(s, &self.json, out);
        }
        if matches!(result, PyFeed::Done(_)) {
            // The call is complete: it closes here, with its own text (`name(..)`) for
            // the error of a call to an undeclared tool.
            if let Some(s) = slot {
                calls.close_with_raw(s, &String::from_utf8_lossy(&self.raw), out);
            }
            // Its raw text is no longer needed for an error.
            if self.raw.capacity() > 4096 {
                self.raw = Vec::new();
            } else {
                self.raw.clear();
            }
        }
        result
    }

    /// The arguments broke: fails the call and starts skipping it.
    /// Returns `true` when the call ends at once (before the offending byte).
    pub(crate) fn fail(
        &self,
        broken: &mut Broken,
        slot: Option<Slot>,
        calls: &mut Calls,
        out: &mut Vec<Event>,
    ) -> bool {
        broken.begin(
            Skip::new(true, 0),
            self.raw.get(self.args_from..).unwrap_or_default(),
            self.raw_lost,
            slot,
            false,
            &self.raw,
            ErrorKind::InvalidArguments,
            self.max_raw,
            calls,
            out,
        )
    }
}

// States (bytes in `held` are not yet released as text):
//
//   Text ──'['──> Open ──name byte──> Name ──'('──> Args ──')'──> After ──','──> Open
//    ^  (held '[')  │ ws               │ name bytes   │ invalid       │ ws      (in list)
//    │              │                  │              v               │
//    │              │                  │            Broken ──end──────┤
//    │              └── other byte ────┴── other byte / undeclared ───┤── ']' ──> Text
//    └──────────────── release held as text, re-read the byte ────────┘── other: release
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Text,
    /// `[` (or `,` inside a list) and whitespace held: a name may follow.
    Open,
    /// Reading a name.
    Name,
    /// Streaming a call's arguments.
    Args,
    /// Skipping a broken call.
    Broken,
    /// After a call's `)`: whitespace held, then `,` or `]`.
    After,
}

/// The `llama-pythonic` scanner. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct LlamaPythonic {
    st: St,
    text: TextOut,
    held: Vec<u8>,
    /// Where the name begins in `held`.
    name_from: usize,
    call: PyCall,
    slot: Option<Slot>,
    broken: Broken,
    options: TextOptions,
    max_held: usize,
}

impl LlamaPythonic {
    pub(crate) fn new(limits: &Limits, options: &TextOptions) -> Self {
        LlamaPythonic {
            st: St::Text,
            text: TextOut::default(),
            held: Vec::new(),
            name_from: 0,
            call: PyCall::new(limits),
            slot: None,
            broken: Broken::default(),
            options: options.clone(),
            max_held: limits.max_held_bytes.clamp(2, MAX_NAME + 64),
        }
    }

    pub(crate) fn set_text_seen(&mut self, seen: bool) {
        self.text.set_seen(seen);
    }

    pub(crate) fn retained(&self) -> usize {
        self.held.len() + self.text.held() + self.call.retained()
    }

    /// Whether a new call group may start here.
    fn may_start(&self) -> bool {
        !(self.options.calls_at_start_only && self.text.seen())
    }

    /// The header failed: its held bytes are text.
    fn release(&mut self) {
        self.text.emit(&self.held);
        self.held.clear();
        self.st = St::Text;
    }

    pub(crate) fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut Vec<Event>) {
        self.scan(bytes, calls, out);
        self.text.commit(out);
    }

    fn scan(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut Vec<Event>) {
        let mut i = 0;
        while let Some(rest) = bytes.get(i..).filter(|r| !r.is_empty()) {
            match self.st {
                St::Text => {
                    if !self.may_start() {
                        self.text.emit_last(rest, out);
                        return;
                    }
                    match find1(b'[', rest) {
                        None => {
                            self.text.emit_last(rest, out);
                            return;
                        }
                        Some(p) => {
                            self.text.emit(rest.get(..p).unwrap_or_default());
                            i += p + 1;
                            if self.may_start() {
                                self.held.clear();
                                self.held.push(b'[');
                                self.st = St::Open;
                            } else {
                                self.text.emit(b"[");
                            }
                        }
                    }
                }
                St::Open => {
                    let Some(&b) = rest.first() else { break };
                    if is_ws(b) && self.held.len() < self.max_held {
                        self.held.push(b);
                        i += 1;
                    } else if is_name_start(b) {
                        self.name_from = self.held.len();
                        self.held.push(b);
                        self.st = St::Name;
                        i += 1;
                    } else {
                        self.release();
                    }
                }
                St::Name => {
                    let Some(&b) = rest.first() else { break };
                    let prev = self.held.last().copied().unwrap_or(b'.');
                    let len = self.held.len() - self.name_from;
                    if is_name_byte(b) {
                        // After `.` a name starts again; no `-.`.
                        let ok = (prev != b'.' || is_name_start(b))
                            && !(b == b'.' && prev == b'-')
                            && len < MAX_NAME
                            && self.held.len() < self.max_held;
                        if ok {
                            self.held.push(b);
                            i += 1;
                        } else {
                            self.release();
                        }
                    } else if b == b'(' && prev != b'.' && prev != b'-' {
                        if self.start(calls, out) {
                            i += 1;
                        } else {
                            self.release();
                        }
                    } else {
                        self.release();
                    }
                }
                St::Args => match self.call.feed(self.slot, rest, calls, out) {
                    PyFeed::NeedMore => return,
                    PyFeed::Done(n) => {
                        if let Some(s) = self.slot {
                            calls.close(s, out);
                        }
                        self.st = St::After;
                        i += n;
                    }
                    PyFeed::Invalid(at) => {
                        i += at;
                        self.st = St::Broken;
                        if self.call.fail(&mut self.broken, self.slot, calls, out) {
                            self.broken.end(calls, out);
                            self.st = St::After;
                        }
                    }
                },
                St::Broken => match self.broken.feed(rest, calls, out) {
                    None => return,
                    Some(end) => {
                        self.broken.end(calls, out);
                        self.st = St::After;
                        i += match end {
                            SkipEnd::After(n) | SkipEnd::Before(n) => n,
                        };
                    }
                },
                St::After => {
                    let Some(&b) = rest.first() else { break };
                    match b {
                        _ if is_ws(b) && self.held.len() < self.max_held => {
                            self.held.push(b);
                            i += 1;
                        }
                        b',' => {
                            self.held.push(b);
                            self.st = St::Open;
                            i += 1;
                        }
                        b']' => {
                            self.held.clear();
                            self.st = St::Text;
                            i += 1;
                        }
                        _ => self.release(),
                    }
                }
            }
        }
    }

    /// The `(` after a name arrived: starts the call. `false` when the name is not
    /// allowed (the header is text).
    fn start(&mut self, calls: &mut Calls, out: &mut Vec<Event>) -> bool {
        let callee = self.held.get(self.name_from..).unwrap_or_default();
        let Ok(callee_str) = std::str::from_utf8(callee) else {
            return false;
        };
        let name = callee_name(callee_str);
        let continues = self.held.first() == Some(&b',');
        if !self.options.allows_header(name, continues) {
            return false;
        }
        self.text.flush(out);
        self.slot = calls.open(out);
        if let Some(s) = self.slot {
            calls.set_name(s, name, out);
        }
        self.call.begin(callee);
        self.held.clear();
        self.st = St::Args;
        true
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut Vec<Event>) {
        match self.st {
            St::Text => {}
            St::Open | St::Name | St::After => self.release(),
            St::Args => {
                if let Some(s) = self.slot {
                    calls.close(s, out);
                }
            }
            St::Broken => self.broken.end(calls, out),
        }
        self.st = St::Text;
        self.text.flush(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callee_names() {
        assert_eq!(callee_name("brave_search.call"), "brave_search");
        assert_eq!(callee_name("math.sqrt"), "math.sqrt");
        assert_eq!(callee_name("f"), "f");
        assert_eq!(callee_name(".call"), ".call");
    }

    #[test]
    fn skip_balances() {
        let mut s = Skip::new(true, 0);
        assert_eq!(s.scan(b"a={b=')'}, c=[1])]"), Some(SkipEnd::After(17)));
        let mut s = Skip::new(true, 0);
        assert_eq!(s.scan(b"a=1]"), Some(SkipEnd::Before(3)));
        let mut s = Skip::new(false, 0);
        assert_eq!(
            s.scan(br#"{"a": "}", "b": {}} x"#),
            Some(SkipEnd::After(19))
        );
    }
}
