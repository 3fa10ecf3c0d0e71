//! `llama-json`: Llama 3.x tool calls written as bare JSON objects in the text,
//! `{"name": "get_weather", "parameters": {"city": "Paris"}}`.
//!
//! Its own scanner, not a table of the [JSON-call engine](crate::text::json): the
//! engine's calls begin at a marker, these at any `{` of the text (or a `[` before one),
//! recognised by their members as they arrive (the marker-less rules below), and one
//! marker, `<|python_tag|>`, opens three shapes (JSON calls, a built-in's pythonic call,
//! code for the interpreter). No spec describes it (`toolstream spec llama-json` says so).
//!
//! Accepted shapes:
//!
//! - `{"name": .., "parameters": ..}`, also `"arguments"` for `"parameters"`, in either
//!   order, with an optional `"type": "function"` member (any string value) anywhere;
//! - several calls separated by `;` (`{..}; {..}`), or a JSON array of calls
//!   (`[{..}, {..}]`);
//! - an optional `<|python_tag|>` before the call(s);
//! - `<|python_tag|>` followed by `name.call(key=value, ..)`: a Llama 3.1 built-in tool
//!   (`brave_search`, `wolfram_alpha`), named by what precedes `.call`, with its pythonic
//!   arguments converted to JSON as in `llama-pythonic`;
//! - `<|python_tag|>` followed by `[`: a list, of JSON calls when `{` follows (the
//!   array above); any other list has no call in it and is text, the tag with it, byte
//!   for byte (`<|python_tag|>[1, 2]`; a pythonic call list is `llama-pythonic`'s, where a
//!   list whose first element begins a call name and breaks is an error);
//! - `<|python_tag|>` followed by anything else: code for the code interpreter. It is
//!   represented as a call named `code_interpreter` whose arguments are
//!   `{"code": "<the code>"}`, the code streamed as a JSON string (escaped as it
//!   arrives; leading whitespace after the tag dropped). The code ends at `<|eom_id|>`
//!   or `<|eot_id|>` (not part of the code), at a second `<|python_tag|>` (the next
//!   call's marker) or at the end of the input.
//! - `<|eom_id|>` / `<|eot_id|>` in the text (end-of-message special tokens some servers
//!   leave in) are dropped.
//!
//! # Streaming
//!
//! `ToolCallStart` is emitted by the feed that delivers the closing quote of the name.
//! The argument deltas are the model's own bytes, sliced out of the object (a
//! [`JsonScanner`] finds where the value ends); `ToolCallEnd` is emitted the moment the
//! value closes. If the arguments come before the name, they are held (bounded by
//! [`Limits::max_held_bytes`]) and flushed right after the Start. A name-only object
//! (`{"name": "f"}`) is a call with `{}` arguments. The argument bytes are kept once, in
//! the call's raw text ([`Raw`], what an error carries), where the call table reads
//! them ([`Calls::open_raw`]); a built-in call's pythonic arguments are converted to
//! JSON, which the call table keeps besides the raw text.
//!
//! # Marker-less rules
//!
//! A call may start at any `{` (or `[` followed by `{`). Text is held back only while
//! the bytes since it still match the call header grammar — `{` ws* `"` followed by a
//! prefix of `name`, `type`, `parameters` or `arguments`, then the rest of that member
//! (`"type"` and parameters-first members may precede the name) — and released verbatim
//! the moment they cannot: `{"answer": 42}`, `{}`, `[1, 2]`, `{"parameters": 1}` (no
//! name) are text, byte for byte. A call nested inside a held-back object that turned
//! out not to be a call is not searched for. The header is decided when the name's
//! closing quote arrives: from then on it is a call.
//! [`ParserConfig::tool_names`](crate::ParserConfig::tool_names): a header whose name is not
//! declared is text. So is one whose name is not among
//! [`ParserConfig::tools`](crate::ParserConfig::tools) (unless `reject_undeclared(false)`), except a
//! later call of a `;` group or an array of calls, or an object right after
//! `<|python_tag|>`: that one is a call, which the call table
//! rejects (an `undeclared_tool` error carrying the object's text), and the calls after it
//! still count. [`ParserConfig::calls_at_start_only`](crate::ParserConfig::calls_at_start_only):
//! a `{`/`[` after non-whitespace text is text (calls continuing the same `;` list or
//! array still count; `<|python_tag|>` is a marker and always counts).
//!
//! # Errors and recovery
//!
//! Once a call has started, anything that breaks the object — an unknown member, a
//! duplicate, invalid JSON in the arguments (`'single quotes'`), a malformed key
//! (`"parameters{`, `"parameters=`) — fails the call: it gets its `Error` event instead of
//! `ToolCallEnd`. The scanner skips to the `}` that balances the call's `{` (tracking
//! strings and brackets) and carries on after it. The error's `raw` is the model's own
//! bytes of the call from its first marker byte — `<|python_tag|>` (and the whitespace
//! after it) or the array's `[` for a group's first call, the `{` otherwise — through its
//! end (up to [`Limits::max_argument_bytes`]), so nothing is lost; an object whose string
//! never closes runs to the end of the input. Members after the arguments closed that do
//! not belong (`.., "parameters": {..}, "x": 1}`) leave the call ended and give an
//! `Error` of kind `trailing_arguments` with those bytes; `<|python_tag|>` there (the
//! object's `}` missing) is the next call's marker, the call before it complete. A call cut off by the end of
//! input gets an `Error` of kind `truncated` with its bytes; only the final `}` may be
//! missing.

use crate::calls::{Calls, Slot};
use crate::event::ErrorKind;
use crate::event::EventSink;
use crate::format::Format;
use crate::limits::Limits;
use crate::scan::find::{find1, find3};
use crate::scan::json::{JsonScanner, JsonStatus, escape_json};
use crate::scan::utf8::{Utf8Holder, whole_str};
use crate::text::kit::call::{Forming, Raw};
use crate::text::kit::options::TextOptions;
use crate::text::kit::skip::Skip;
use crate::text::kit::special::{Match, special};
use crate::text::kit::util::{TextOut, args_text, is_name_byte, is_name_start, is_ws};
use crate::text::pythonic::call::{Broken, Failure, MAX_NAME, PyCall};
use crate::text::row::{Builtin, Detect, Row, Tok};
use std::borrow::Cow;

/// Special tokens recognised in the text.
const PYTHON_TAG: &[u8] = b"<|python_tag|>";
const EOM: &[u8] = b"<|eom_id|>";
const EOT: &[u8] = b"<|eot_id|>";
const SPECIALS: &[&[u8]] = &[PYTHON_TAG, EOM, EOT];
/// What ends code: the end-of-message tokens, or a second `<|python_tag|>` (the next
/// call).
const CODE_ENDS: &[&[u8]] = &[EOM, EOT, PYTHON_TAG];

/// The name given to `<|python_tag|>` code.
pub(crate) const CODE_INTERPRETER: &str = "code_interpreter";

/// Keys of a call object.
const KEYS: &[(&[u8], Key)] = &[
    (b"name", Key::Name),
    (b"type", Key::Type),
    (b"parameters", Key::Args),
    (b"arguments", Key::Args),
];
const MAX_KEY: usize = 10;
const MAX_TYPE: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Name,
    Type,
    Args,
}

/// Where in a call object the scanner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Obj {
    /// After `{`: a key (or `}`, which is not a call).
    First,
    /// After `,`: a key.
    Next,
    /// Inside a key string.
    Key,
    /// After a key: `:`.
    Colon(Key),
    /// After `:`: the value.
    Value(Key),
    /// Inside the name string.
    Name,
    /// Inside the `type` string.
    Type,
    /// Inside the arguments value.
    Args,
    /// The arguments closed, then `<`: the first `n` bytes of `<|python_tag|>` (not
    /// taken). The whole tag completes the call and opens the next.
    Tag(u8),
    /// The call is open (its arguments not closed), then `<` where the grammar expects
    /// structure: the first `n` bytes of `<|python_tag|>` (not taken). The whole tag
    /// ends the call as cut short (the recovery rule) and opens the next.
    Opener(u8),
    /// After a member: `,` or `}`.
    AfterValue,
}

/// How calls continue after one closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    /// Standalone or after `<|python_tag|>`: `;` then another call.
    Semi,
    /// Inside `[..]`: `,` then another call, or `]`.
    Array,
}

// States (bytes in `held` are not yet released as text):
//
//   Text ──'{'──> Obj(First) ─ key / value / .. ─> Obj(Name) ──'"'──> [Start] ─ .. ─> '}' ─> After
//    │ ──'['──> ArrayOpen ──'{'──^                                                      │
//    │ ──'<'──> Special ──<|python_tag|>──> Tag ──'{'──> Obj                 ';' / ',' ─> Sep ─'{'─> Obj
//    │                                       │ ──'['──> ArrayOpen (not '{' next: the tag and list are text)
//    │                                       │ ──ident──> TagName ──'.call('──> Builtin ──')'──> After
//    │                                       └── other ──> Code ──'<'──> CodeEnd ──<|eom_id|>──> Text
//    └─ a header that stops matching: held bytes released as text, the byte re-read in Text
//   A started call that breaks: Broken (skip to its balancing '}') ──> After
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Text,
    /// Held bytes (from `<`) are a proper prefix of a special token.
    Special,
    /// `[` and whitespace held: `{` may follow.
    ArrayOpen,
    /// Inside a call object.
    Obj(Obj),
    /// After a call: whitespace held, then the group's separator.
    After,
    /// After a separator: whitespace held, then `{`.
    Sep,
    /// After `<|python_tag|>` (whitespace dropped).
    Tag,
    /// After the tag: a name held; `.call(` makes it a built-in tool call.
    TagName,
    /// The code-interpreter call's code.
    Code,
    /// Held `<..` inside code: a prefix of `<|eom_id|>` / `<|eot_id|>`.
    CodeEnd,
    /// A built-in call's pythonic arguments.
    Builtin,
    /// Skipping a broken call.
    Broken,
}

/// The `llama-json` scanner. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct LlamaJson {
    st: St,
    group: Group,
    text: TextOut,
    /// Bytes not yet released as text nor committed to a call.
    held: Vec<u8>,
    options: TextOptions,
    max_held: usize,
    max_raw: usize,
    // The call object being read.
    /// Where the object's `{` is in `held` (before Start).
    obj_from: usize,
    slot: Option<Slot>,
    started: bool,
    /// The object came right after `<|python_tag|>`: a call whatever its name (an
    /// undeclared one is rejected by the call table).
    tagged: bool,
    has_name: bool,
    has_type: bool,
    has_args: bool,
    args_done: bool,
    /// The held arguments value (parameters before the name).
    args_range: (usize, usize),
    key: [u8; MAX_KEY],
    key_len: usize,
    /// Length of the current name / type string.
    str_len: usize,
    json: JsonScanner,
    /// The call's raw text from its first marker byte (after Start), bounded, while the
    /// call table does not hold it: from [`Calls::open_raw`] on it is the call's own (its
    /// argument bytes in it), reached through [`Calls::raw_or`], and its buffer comes back
    /// here when the call closes.
    raw: Forming,
    /// Where the call object's `{` is in `raw`.
    raw_obj: usize,
    /// `<|python_tag|>` and the whitespace after it, when they open the current group.
    lead: Vec<u8>,
    /// The next call is its group's first (its raw text starts at the group's marker).
    first: bool,
    /// Length of `raw` when the arguments closed.
    raw_after_args: usize,
    /// The started call's argument bytes, as text.
    args_utf8: Utf8Holder,
    /// The started call's other bytes, as text (a `type` string may hold any character).
    raw_utf8: Utf8Holder,
    scratch: String,
    esc: String,
    // Built-in and code calls.
    py: PyCall,
    broken: Broken,
}

impl LlamaJson {
    pub(crate) fn new(limits: &Limits, options: &TextOptions) -> Self {
        LlamaJson {
            st: St::Text,
            group: Group::Semi,
            text: TextOut::default(),
            held: Vec::new(),
            options: options.clone(),
            max_held: limits.max_held_bytes.max(16),
            max_raw: limits.max_argument_bytes,
            obj_from: 0,
            slot: None,
            started: false,
            tagged: false,
            has_name: false,
            has_type: false,
            has_args: false,
            args_done: false,
            args_range: (0, 0),
            key: [0; MAX_KEY],
            key_len: 0,
            str_len: 0,
            json: JsonScanner::with_max_depth(limits.max_depth),
            raw: Forming::new(limits.max_argument_bytes),
            raw_obj: 0,
            lead: Vec::new(),
            first: true,
            raw_after_args: 0,
            args_utf8: Utf8Holder::new(),
            raw_utf8: Utf8Holder::new(),
            scratch: String::new(),
            esc: String::new(),
            py: PyCall::new(limits),
            broken: Broken::default(),
        }
    }

    pub(crate) fn set_text_seen(&mut self, seen: bool) {
        self.text.set_seen(seen);
    }

    pub(crate) fn retained(&self) -> usize {
        self.held.capacity()
            + self.lead.capacity()
            + self.raw.retained()
            + self.text.held()
            + self.py.retained()
    }

    fn may_start(&self) -> bool {
        !(self.options.calls_at_start_only && self.text.seen())
    }

    /// Held bytes are text after all.
    fn release(&mut self) {
        // `<|python_tag|>` (and the whitespace after it) that opened no call is text too.
        if !self.lead.is_empty() {
            self.text.emit(&self.lead);
            self.lead.clear();
        }
        self.text.emit(&self.held);
        self.held.clear();
        self.st = St::Text;
    }

    /// The error of a broken call of an array that waited for the byte after the call
    /// ([`Broken::pending`](crate::text::pythonic::call::Broken::pending)) goes out.
    fn end_broken(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        if self.broken.pending() {
            self.broken.end(calls, out);
        }
    }

    /// A call object begins at the `{` just pushed to `held` (at `obj_from`).
    fn begin_object(&mut self, group: Group) {
        self.group = group;
        self.tagged = false;
        self.st = St::Obj(Obj::First);
        self.slot = None;
        self.started = false;
        self.has_name = false;
        self.has_type = false;
        self.has_args = false;
        self.args_done = false;
        self.args_range = (0, 0);
        self.clear_raw();
    }

    /// Forgets the call's raw text.
    fn clear_raw(&mut self) {
        self.raw.start("");
        self.args_utf8 = Utf8Holder::new();
        self.raw_utf8 = Utf8Holder::new();
    }

    /// Takes object bytes other than the arguments value's: held before Start, raw text
    /// after.
    fn take(&mut self, bytes: &[u8], calls: &mut Calls) {
        if self.started {
            let t = self.raw_utf8.push(bytes, &mut self.scratch);
            calls.raw_or(self.slot, &mut self.raw).push(&t);
        } else {
            self.held.extend_from_slice(bytes);
        }
    }

    /// Sends argument bytes of the started call to it and to its raw text, which keeps
    /// them once: the call was opened with [`Calls::open_raw`] and reads them there (this
    /// scanner's [`JsonScanner`] has checked them).
    fn send_args(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        let t = args_text(&mut self.args_utf8, bytes, &mut self.scratch);
        send_text(self.slot, &mut self.raw, &t, calls, out);
    }

    /// The arguments end here: an incomplete character at their end goes as U+FFFD.
    fn finish_args(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        if let Some(t) = self.args_utf8.finish() {
            send_text(self.slot, &mut self.raw, t, calls, out);
        }
    }

    /// The arguments value is complete (`args_done`, or a top-level number at the end of
    /// the text): the call table learns it (its `ToolCallEnd`), before the call closes.
    /// Nothing happens to a call that already ended. A value that closes with its own
    /// last byte (not a number) is marked as soon as it closes (`args_closed`), the
    /// byte on which a call table scanning it would have ended it; a number only when the
    /// call closes, as that scanner's `finish` would.
    fn mark_closed(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        if let Some(s) = self.slot {
            let _ = calls.push_args(s, &mut self.raw, "", true, out);
        }
    }

    /// The object broke at the current byte (not taken): before Start its bytes are
    /// text; after Start the call fails (`kind`) and is skipped.
    fn object_failed(&mut self, kind: ErrorKind, calls: &mut Calls, out: &mut dyn EventSink) {
        if !self.started {
            self.release();
            return;
        }
        self.finish_args(calls, out);
        if self.args_done {
            // A number value closes with the call (which `broken.begin` closes).
            self.mark_closed(calls, out);
            // The call ended: it closes here, with its argument text for what its close
            // reports (a rejected call's error carries it, as it did when the call table
            // kept the arguments), before `broken.begin` closes it (then a no-op).
            if let Some(s) = self.slot {
                calls.close_own_args(s, &mut self.raw, out);
            }
        }
        self.st = St::Broken;
        // The error's raw text: the call's own bytes from its first marker byte; after
        // its arguments closed (its End emitted), only the bytes after the ended call
        // (the `trailing_arguments` error never repeats them, as in every engine).
        let raw = calls.raw_or(self.slot, &mut self.raw);
        let from = raw.delivered_len();
        let (send, lost) = raw_from(raw, from, [&self.args_utf8, &self.raw_utf8], self.max_raw);
        let send = send.into_owned();
        let replay = raw
            .as_str()
            .get(self.raw_obj..)
            .unwrap_or_default()
            .to_owned();
        // Where it broke, in the error's raw text (the call's bytes up to the offending
        // one, unless cut at the limit).
        let at = if lost {
            String::new()
        } else {
            format!(" at byte {} of the call", send.len())
        };
        let done = self.broken.begin(
            Skip::new(false, if lost { 1 } else { 0 }),
            replay.as_bytes(),
            lost,
            self.slot,
            self.args_done,
            &send,
            Failure {
                kind,
                message: match kind {
                    ErrorKind::UnexpectedPayload => format!(
                        "a JSON tool call with a member its syntax does not define, or one repeated{at}"
                    ),
                    _ => format!("a malformed JSON tool call{at}"),
                },
            },
            self.max_raw,
            calls,
            out,
        );
        drop(send);
        calls.give_back(self.slot, &mut self.raw);
        self.clear_raw();
        if done {
            self.broken.end(calls, out);
            self.st = St::After;
        }
    }

    /// The name's closing quote arrived: the header is decided. Once per call: kept out
    /// of [`feed`](Self::feed)'s loop.
    #[inline(never)]
    fn start(&mut self, calls: &mut Calls, out: &mut dyn EventSink) -> bool {
        let name_end = self.held.len();
        let name_from = name_end - self.str_len;
        let Some(name) = self
            .held
            .get(name_from..name_end)
            .and_then(|n| std::str::from_utf8(n).ok())
        else {
            return false;
        };
        let continues = self.tagged
            || self
                .held
                .get(..self.obj_from)
                .is_some_and(|h| h.iter().any(|&b| b == b';' || b == b','));
        if name.is_empty() || !self.options.allows_header(name, continues) {
            return false;
        }
        self.text.flush(out);
        // The raw text: from the group's marker (`<|python_tag|>`, `[`) for its first
        // call, from the `{` for a later one; arguments held before the name go to it as
        // the call's arguments (the call reads them there). Each piece starts and ends
        // next to an ASCII byte, so converting them one by one is converting the whole.
        // (What `clear_raw` does, beside the name borrowed from `held`.)
        self.raw.start("");
        self.args_utf8 = Utf8Holder::new();
        self.raw_utf8 = Utf8Holder::new();
        self.slot = calls.open_raw(&mut self.raw, out);
        if let Some(s) = self.slot {
            calls.set_name(s, name, out);
        }
        self.started = true;
        let from = if self.first { 0 } else { self.obj_from };
        if self.first {
            calls
                .raw_or(self.slot, &mut self.raw)
                .push(&String::from_utf8_lossy(&self.lead));
        }
        let held = std::mem::take(&mut self.held);
        calls
            .raw_or(self.slot, &mut self.raw)
            .push(&String::from_utf8_lossy(
                held.get(from..self.obj_from).unwrap_or_default(),
            ));
        self.raw_obj = calls.raw_or(self.slot, &mut self.raw).len();
        let (args_from, args_to) = if self.args_done {
            self.args_range
        } else {
            (held.len(), held.len())
        };
        calls
            .raw_or(self.slot, &mut self.raw)
            .push(&String::from_utf8_lossy(
                held.get(self.obj_from..args_from).unwrap_or_default(),
            ));
        if let Some(args) = held.get(args_from..args_to)
            && !args.is_empty()
        {
            let t = String::from_utf8_lossy(args);
            match self.slot {
                Some(s) => drop(calls.push_args(s, &mut self.raw, &t, args_closed(args), out)),
                None => calls.raw_or(self.slot, &mut self.raw).push(&t),
            }
        }
        calls
            .raw_or(self.slot, &mut self.raw)
            .push(&String::from_utf8_lossy(
                held.get(args_to..).unwrap_or_default(),
            ));
        self.held = held;
        self.first = false;
        self.lead.clear();
        self.held.clear();
        true
    }

    /// Starts the code-interpreter call with `code` as its first bytes.
    fn start_code(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.text.flush(out);
        self.slot = calls.open(out);
        if let Some(s) = self.slot {
            calls.set_name(s, CODE_INTERPRETER, out);
            calls.args(s, "{\"code\":\"", out);
        }
        self.args_utf8 = Utf8Holder::new();
        let held = std::mem::take(&mut self.held);
        self.code(&held, calls, out);
        self.held = held;
        self.held.clear();
        self.st = St::Code;
    }

    /// Streams code bytes as JSON string content.
    fn code(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        let Some(s) = self.slot else { return };
        if bytes.is_empty() {
            return;
        }
        let text = args_text(&mut self.args_utf8, bytes, &mut self.scratch);
        self.esc.clear();
        escape_json(&text, &mut self.esc);
        calls.args(s, &self.esc, out);
    }

    /// The code ended (marker or end of input).
    fn end_code(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        if let Some(s) = self.slot {
            if let Some(t) = self.args_utf8.finish() {
                calls.args(s, t, out);
            }
            calls.args(s, "\"}", out);
            calls.close(s, out);
        }
    }

    pub(crate) fn feed(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        // Inside a started call's arguments most pieces are only more of a string: what
        // `scan`'s `args` does with them, without its loop and the JSON state machine.
        if self.st == St::Obj(Obj::Args) && self.started && self.json.string_run(bytes) {
            match whole_str(bytes) {
                Some(s) if self.args_utf8.held() == 0 => match self.slot {
                    // A named call never refuses argument bytes.
                    Some(slot) => drop(calls.push_args(slot, &mut self.raw, s, false, out)),
                    None => calls.raw_or(self.slot, &mut self.raw).push(s),
                },
                _ => self.send_args(bytes, calls, out),
            }
            self.text.commit(out);
            return;
        }
        // A piece of prose with nothing that may begin a call or a special token: text,
        // before `scan`'s loop sets up.
        if self.st == St::Text {
            let found = if self.may_start() {
                find3(b'{', b'[', b'<', bytes)
            } else {
                find1(b'<', bytes)
            };
            if found.is_none() {
                self.text.emit_last(bytes, out);
                self.text.commit(out);
                return;
            }
        }
        self.scan(bytes, calls, out);
        self.text.commit(out);
    }

    /// The state machine over `bytes`. Out of line: [`feed`](Self::feed)'s fast paths (a
    /// piece of an argument string, a piece of prose) are most feeds, and with this loop
    /// inlined they paid for its setup (registers saved, field addresses computed before
    /// the loop) on every feed. Also called again from inside itself, on bytes to read
    /// again (rare).
    #[inline(never)]
    fn scan(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) {
        let mut i = 0;
        while let Some(rest) = bytes.get(i..).filter(|r| !r.is_empty()) {
            let Some(&b) = rest.first() else { break };
            match self.st {
                St::Text => {
                    let may_start = self.may_start();
                    let found = if may_start {
                        find3(b'{', b'[', b'<', rest)
                    } else {
                        find1(b'<', rest)
                    };
                    // One whose next byte (in this feed) rules out what it could begin is
                    // text: passed over without holding it and going through the state it
                    // opens (the search goes on in `next_open`, out of line).
                    let found = match found {
                        Some(p) if rest.get(p..p + 2).is_some_and(ruled_out) => {
                            // The byte passed over is text, and not whitespace (`{` and
                            // `[` found while no call may start are released below anyway).
                            let may_start = may_start && !self.options.calls_at_start_only;
                            next_open(rest, p + 1, may_start)
                        }
                        found => found,
                    };
                    let Some(p) = found else {
                        self.text.emit_last(rest, out);
                        return;
                    };
                    self.text.emit(rest.get(..p).unwrap_or_default());
                    i += p + 1;
                    let c = rest.get(p).copied().unwrap_or(b'<');
                    self.held.clear();
                    self.held.push(c);
                    self.lead.clear();
                    self.first = true;
                    match c {
                        b'<' => self.st = St::Special,
                        _ if !self.may_start() => self.release(),
                        b'{' => {
                            self.obj_from = 0;
                            self.begin_object(Group::Semi);
                        }
                        _ => self.st = St::ArrayOpen,
                    }
                }
                St::Special => {
                    self.held.push(b);
                    match special(&self.held, SPECIALS) {
                        Match::Full(t) => {
                            if t == PYTHON_TAG {
                                // The tag opens the call(s) after it: the first call's
                                // raw text starts with it.
                                self.lead.clear();
                                self.lead.extend_from_slice(t);
                                self.st = St::Tag;
                            } else {
                                self.st = St::Text;
                            }
                            self.held.clear();
                            i += 1;
                        }
                        Match::Prefix => i += 1,
                        Match::No => {
                            self.held.pop();
                            self.release();
                        }
                    }
                }
                St::ArrayOpen | St::Sep => {
                    if is_ws(b) && self.held.len() < self.max_held {
                        self.held.push(b);
                        i += 1;
                    } else if b == b'{' {
                        self.obj_from = self.held.len();
                        self.held.push(b);
                        let group = if self.st == St::ArrayOpen {
                            Group::Array
                        } else {
                            self.group
                        };
                        self.begin_object(group);
                        // Right after `<|python_tag|>`: a call whatever its name.
                        self.tagged = !self.lead.is_empty();
                        i += 1;
                    } else {
                        self.release();
                    }
                }
                St::After => match b {
                    _ if is_ws(b) && self.held.len() < self.max_held => {
                        self.held.push(b);
                        i += 1;
                    }
                    b';' if self.group == Group::Semi => {
                        self.held.push(b);
                        self.st = St::Sep;
                        i += 1;
                    }
                    b',' if self.group == Group::Array => {
                        self.end_broken(calls, out);
                        self.held.push(b);
                        self.st = St::Sep;
                        i += 1;
                    }
                    b']' if self.group == Group::Array => {
                        if self.broken.pending() {
                            // The array closes right after a broken call: its `]` (and
                            // the whitespace before it) end the call's raw text.
                            self.broken.close_list(&self.held, calls, out);
                        }
                        self.held.clear();
                        self.st = St::Text;
                        i += 1;
                    }
                    _ => {
                        self.end_broken(calls, out);
                        self.release();
                    }
                },
                St::Obj(Obj::Args) => i += self.args(rest, calls, out),
                St::Obj(Obj::AfterValue) if b == b'<' && self.started && self.args_done => {
                    // A call whose arguments closed is complete: the tag of the next
                    // call ends it (the recovery rule); anything else is trailing text.
                    self.st = St::Obj(Obj::Tag(1));
                    i += 1;
                }
                St::Obj(Obj::Opener(n)) => {
                    let n = usize::from(n);
                    if PYTHON_TAG.get(n) != Some(&b) {
                        // Not the tag: the call breaks at its `<`, and the bytes since
                        // are read again (this one too).
                        self.opener_mismatch(n, calls, out);
                    } else if n + 1 < PYTHON_TAG.len() {
                        self.st = St::Obj(Obj::Opener(n as u8 + 1));
                        i += 1;
                    } else {
                        self.interrupted(calls, out);
                        self.held.clear();
                        self.lead.clear();
                        self.lead.extend_from_slice(PYTHON_TAG);
                        self.first = true;
                        self.st = St::Tag;
                        i += 1;
                    }
                }
                St::Obj(o)
                    if b == b'<'
                        && self.started
                        && !matches!(
                            o,
                            Obj::Key | Obj::Name | Obj::Type | Obj::Args | Obj::Tag(_)
                        ) =>
                {
                    // Where structure is expected: perhaps the next call's tag.
                    self.st = St::Obj(Obj::Opener(1));
                    i += 1;
                }
                St::Obj(Obj::Tag(n)) => {
                    let n = usize::from(n);
                    if PYTHON_TAG.get(n) != Some(&b) {
                        // Not the tag: the call breaks at its `<` as it would have
                        // there, and the bytes since are read again (this one too).
                        self.tag_mismatch(n, calls, out);
                    } else if n + 1 < PYTHON_TAG.len() {
                        self.st = St::Obj(Obj::Tag(n as u8 + 1));
                        i += 1;
                    } else {
                        if let Some(t) = self.raw_utf8.finish() {
                            calls.raw_or(self.slot, &mut self.raw).push(t);
                        }
                        self.mark_closed(calls, out);
                        calls.close_own(self.slot, &mut self.raw, out);
                        self.clear_raw();
                        self.held.clear();
                        self.lead.clear();
                        self.lead.extend_from_slice(PYTHON_TAG);
                        self.first = true;
                        self.st = St::Tag;
                        i += 1;
                    }
                }
                St::Obj(o) => {
                    if self.object_byte(o, b, calls, out) {
                        i += 1;
                    }
                }
                St::Tag => {
                    if is_ws(b) {
                        if self.lead.len() < self.max_held {
                            self.lead.push(b);
                        }
                        i += 1;
                    } else if b == b'{' {
                        self.held.clear();
                        self.obj_from = 0;
                        self.held.push(b);
                        self.begin_object(Group::Semi);
                        self.tagged = true;
                        i += 1;
                    } else if b == b'[' {
                        // A list: of calls if `{` follows, else text (with the tag).
                        self.held.clear();
                        self.held.push(b);
                        self.st = St::ArrayOpen;
                        i += 1;
                    } else if is_name_start(b) {
                        self.held.clear();
                        self.held.push(b);
                        self.st = St::TagName;
                        i += 1;
                    } else {
                        self.held.clear();
                        self.start_code(calls, out);
                    }
                }
                St::TagName => {
                    if is_name_byte(b) && self.held.len() < MAX_NAME {
                        self.held.push(b);
                        i += 1;
                    } else if b == b'('
                        && let Some(base) = self.held.strip_suffix(b".call")
                        && !base.is_empty()
                        && base.iter().all(|&c| c != b'.')
                        && let Ok(name) = std::str::from_utf8(base)
                    {
                        self.text.flush(out);
                        self.slot = calls.open_scanned(out);
                        if let Some(s) = self.slot {
                            calls.set_name(s, name, out);
                        }
                        self.lead.extend_from_slice(&self.held);
                        self.py.begin(&self.lead);
                        self.lead.clear();
                        self.held.clear();
                        self.group = Group::Semi;
                        self.st = St::Builtin;
                        i += 1;
                    } else {
                        self.start_code(calls, out);
                    }
                }
                St::Code => match find1(b'<', rest) {
                    None => {
                        self.code(rest, calls, out);
                        return;
                    }
                    Some(p) => {
                        self.code(rest.get(..p).unwrap_or_default(), calls, out);
                        self.held.clear();
                        self.held.push(b'<');
                        self.st = St::CodeEnd;
                        i += p + 1;
                    }
                },
                St::CodeEnd => {
                    self.held.push(b);
                    match special(&self.held, CODE_ENDS) {
                        Match::Full(t) => {
                            self.held.clear();
                            self.end_code(calls, out);
                            self.st = St::Text;
                            if t == PYTHON_TAG {
                                // A second tag: the next call (code or a call object).
                                self.lead.clear();
                                self.lead.extend_from_slice(t);
                                self.first = true;
                                self.st = St::Tag;
                            }
                            i += 1;
                        }
                        Match::Prefix => i += 1,
                        Match::No => {
                            self.held.pop();
                            let held = std::mem::take(&mut self.held);
                            self.code(&held, calls, out);
                            self.held = held;
                            self.held.clear();
                            self.st = St::Code;
                        }
                    }
                }
                St::Builtin | St::Broken => {
                    let skipping = self.st == St::Broken;
                    // A broken call of an array: its error waits for the byte after its
                    // `}` (a `]` there is its raw text's).
                    let in_list = skipping && self.group == Group::Array;
                    let Some((n, still_skipping)) = self.py.step(
                        skipping,
                        in_list,
                        self.slot,
                        rest,
                        &mut self.broken,
                        calls,
                        out,
                    ) else {
                        return;
                    };
                    i += n;
                    self.st = if still_skipping {
                        St::Broken
                    } else {
                        St::After
                    };
                }
            }
        }
    }

    /// The arguments value; returns the bytes used.
    fn args(&mut self, rest: &[u8], calls: &mut Calls, out: &mut dyn EventSink) -> usize {
        // Before Start the value is held: stop at the byte that exceeds the bound, so
        // the outcome does not depend on how the input was cut.
        let input = if self.started {
            rest
        } else {
            let room = (self.max_held + 1).saturating_sub(self.held.len());
            rest.get(..room.min(rest.len())).unwrap_or_default()
        };
        let status = self.json.feed(input);
        let used = match status {
            JsonStatus::NeedMore => input.len(),
            JsonStatus::Complete { consumed } => consumed,
            JsonStatus::Invalid { at, .. } => at,
        };
        let value = input.get(..used).unwrap_or_default();
        if self.started {
            self.send_args(value, calls, out);
        } else {
            self.held.extend_from_slice(value);
        }
        match status {
            JsonStatus::NeedMore => {
                if !self.started && self.held.len() > self.max_held {
                    self.release();
                }
            }
            JsonStatus::Complete { .. } => {
                self.args_done = true;
                self.raw_after_args = calls.raw_or(self.slot, &mut self.raw).len();
                if self.started {
                    self.finish_args(calls, out);
                    if args_closed(value) {
                        self.mark_closed(calls, out);
                    }
                } else {
                    self.args_range.1 = self.held.len();
                }
                self.st = St::Obj(Obj::AfterValue);
            }
            JsonStatus::Invalid { .. } if self.started && rest.get(used) == Some(&b'<') => {
                // Where structure is expected: perhaps the next call's tag.
                self.st = St::Obj(Obj::Opener(1));
                return used + 1;
            }
            JsonStatus::Invalid { .. } => {
                self.object_failed(ErrorKind::InvalidArguments, calls, out);
            }
        }
        used
    }

    /// One byte of a call object outside the arguments value. Returns whether the byte
    /// was used (otherwise it is re-read in the new state).
    fn object_byte(&mut self, o: Obj, b: u8, calls: &mut Calls, out: &mut dyn EventSink) -> bool {
        if !self.started && self.held.len() >= self.max_held {
            self.release();
            return false;
        }
        let next = match o {
            Obj::First | Obj::Next | Obj::Colon(_) | Obj::AfterValue if is_ws(b) => Some(o),
            Obj::Value(_) if is_ws(b) => Some(o),
            Obj::First | Obj::Next if b == b'"' => {
                self.key_len = 0;
                Some(Obj::Key)
            }
            Obj::Key => {
                if b == b'"' {
                    let key = self.key.get(..self.key_len).unwrap_or_default();
                    KEYS.iter()
                        .find(|(k, _)| *k == key)
                        .map(|(_, k)| Obj::Colon(*k))
                } else if let Some(slot) = self.key.get_mut(self.key_len) {
                    *slot = b;
                    self.key_len += 1;
                    let key = self.key.get(..self.key_len).unwrap_or_default();
                    KEYS.iter().any(|(k, _)| k.starts_with(key)).then_some(o)
                } else {
                    None
                }
            }
            Obj::Colon(k) if b == b':' => Some(Obj::Value(k)),
            Obj::Value(Key::Name) if b == b'"' && !self.has_name => {
                self.str_len = 0;
                Some(Obj::Name)
            }
            Obj::Value(Key::Type) if b == b'"' && !self.has_type => {
                self.str_len = 0;
                Some(Obj::Type)
            }
            Obj::Value(Key::Args) if !self.has_args => {
                // The value's first byte: read it as arguments.
                self.has_args = true;
                self.json.reset();
                if !self.started {
                    self.args_range = (self.held.len(), self.held.len());
                }
                self.st = St::Obj(Obj::Args);
                return false;
            }
            Obj::Name => {
                if b == b'"' {
                    self.has_name = true;
                    if self.start(calls, out) {
                        // The closing quote belongs to the call.
                        self.take(b"\"", calls);
                        self.st = St::Obj(Obj::AfterValue);
                        return true;
                    }
                    None
                } else if b == b'\\' || b < 0x20 || self.str_len >= MAX_NAME {
                    None
                } else {
                    self.str_len += 1;
                    Some(o)
                }
            }
            Obj::Type => {
                if b == b'"' {
                    self.has_type = true;
                    Some(Obj::AfterValue)
                } else if b == b'\\' || b < 0x20 || self.str_len >= MAX_TYPE {
                    None
                } else {
                    self.str_len += 1;
                    Some(o)
                }
            }
            Obj::AfterValue if b == b',' => Some(Obj::Next),
            Obj::AfterValue if b == b'}' => {
                if !self.started {
                    None
                } else {
                    self.take(b"}", calls);
                    if self.args_done {
                        self.mark_closed(calls, out);
                    }
                    calls.close_own(self.slot, &mut self.raw, out);
                    self.clear_raw();
                    self.held.clear();
                    self.st = St::After;
                    return true;
                }
            }
            _ => None,
        };
        match next {
            Some(o) => {
                self.take(&[b], calls);
                self.st = St::Obj(o);
                true
            }
            None => {
                // A member the object may not have (a key that is none of `KEYS`, or one
                // it already had): the recovery rule's `unexpected_payload`.
                let member = match o {
                    Obj::Key => true,
                    Obj::Value(Key::Name) => self.has_name,
                    Obj::Value(Key::Type) => self.has_type,
                    Obj::Value(Key::Args) => self.has_args,
                    _ => false,
                };
                let kind = if member {
                    ErrorKind::UnexpectedPayload
                } else {
                    ErrorKind::InvalidArguments
                };
                self.object_failed(kind, calls, out);
                false
            }
        }
    }

    /// [`Obj::Tag`]`(n)` turned out not to be `<|python_tag|>`: the call breaks at its
    /// `<` (a member after the arguments: `trailing_arguments`), and the `n` bytes
    /// matched are read again, in the broken call's skip.
    fn tag_mismatch(&mut self, n: usize, calls: &mut Calls, out: &mut dyn EventSink) {
        self.st = St::Obj(Obj::AfterValue);
        self.object_failed(ErrorKind::InvalidArguments, calls, out);
        self.scan(PYTHON_TAG.get(..n).unwrap_or_default(), calls, out);
    }

    /// [`Obj::Opener`]`(n)` turned out not to be `<|python_tag|>`: the call breaks at
    /// its `<`, and the `n` bytes matched are read again, in the broken call's skip.
    fn opener_mismatch(&mut self, n: usize, calls: &mut Calls, out: &mut dyn EventSink) {
        self.object_failed(ErrorKind::InvalidArguments, calls, out);
        self.scan(PYTHON_TAG.get(..n).unwrap_or_default(), calls, out);
    }

    /// `<|python_tag|>` began inside the open call: it ends as cut short, its error
    /// carrying its raw text up to the tag (the recovery rule).
    fn interrupted(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.truncated(
            "a new call (<|python_tag|>) began inside this one",
            calls,
            out,
        );
    }

    /// The open call ends cut short (`message`): its `truncated` error carries its raw
    /// text.
    fn truncated(&mut self, message: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        let raw = calls.raw_or(self.slot, &mut self.raw);
        let (send, _) = raw_from(raw, 0, [&self.args_utf8, &self.raw_utf8], self.max_raw);
        let send = send.into_owned();
        self.broken.begin(
            Skip::new(false, 0),
            &[],
            true,
            self.slot,
            false,
            &send,
            Failure {
                kind: ErrorKind::Truncated,
                message: message.to_owned(),
            },
            self.max_raw,
            calls,
            out,
        );
        self.broken.end(calls, out);
        calls.give_back(self.slot, &mut self.raw);
        self.clear_raw();
        self.slot = None;
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        if let St::Obj(Obj::Tag(n)) = self.st {
            self.tag_mismatch(usize::from(n), calls, out);
        }
        if let St::Obj(Obj::Opener(n)) = self.st {
            self.opener_mismatch(usize::from(n), calls, out);
        }
        match self.st {
            St::Text | St::Tag => {}
            St::Special | St::ArrayOpen | St::After | St::Sep => {
                self.end_broken(calls, out);
                self.release();
            }
            St::Obj(o) => {
                if !self.started {
                    self.release();
                } else if self.args_done || (o == Obj::Args && self.json.finish()) {
                    // Only the closing `}` missing (the call stands).
                    if let Some(s) = self.slot {
                        self.finish_args(calls, out);
                        // The value is complete (a number: here, at the end).
                        self.mark_closed(calls, out);
                        if let Some(t) = self.raw_utf8.finish() {
                            calls.raw_or(self.slot, &mut self.raw).push(t);
                        }
                        calls.close_own(Some(s), &mut self.raw, out);
                    }
                } else {
                    // Cut off: the call's error carries its raw text.
                    self.truncated("the text ended inside a JSON tool call", calls, out);
                }
            }
            St::TagName => {
                self.start_code(calls, out);
                self.end_code(calls, out);
            }
            St::Code => self.end_code(calls, out),
            St::CodeEnd => {
                let held = std::mem::take(&mut self.held);
                self.code(&held, calls, out);
                self.end_code(calls, out);
            }
            St::Builtin => self.py.truncated(self.slot, calls, out),
            St::Broken => self.broken.end(calls, out),
        }
        self.lead.clear();
        self.held.clear();
        self.clear_raw();
        self.st = St::Text;
        self.text.flush(out);
    }
}

/// Whether `pair`, a `{`, `[` or `<` found in text and the byte after it, makes the first
/// byte text: what the state it would open decides on the second ([`Obj::First`]: a
/// key's `"` or whitespace; [`St::ArrayOpen`]: `{` or whitespace; [`St::Special`]: every
/// special token begins `<|`), without holding it. Not with one byte.
#[inline(always)]
fn ruled_out(pair: &[u8]) -> bool {
    match *pair {
        [b'<', next] => next != b'|',
        [b'[', next] => !is_ws(next) && next != b'{',
        [_, next] => !is_ws(next) && next != b'"',
        _ => false,
    }
}

/// The first `{`, `[` or `<` (only `<` unless `may_start`) in `text` from `from` on that
/// may begin something ([`ruled_out`] by the byte after it, when `text` has it).
#[inline(never)]
fn next_open(text: &[u8], mut from: usize, may_start: bool) -> Option<usize> {
    loop {
        let hay = text.get(from..)?;
        let p = if may_start {
            find3(b'{', b'[', b'<', hay)
        } else {
            find1(b'<', hay)
        }? + from;
        if !text.get(p..p + 2).is_some_and(ruled_out) {
            return Some(p);
        }
        // (`may_start` stays: a call may start after text unless `calls_at_start_only`.)
        from = p + 1;
    }
}

/// Argument text of the started call in `slot` to it and to its raw text, which keeps it
/// once (see [`LlamaJson::send_args`]).
fn send_text(
    slot: Option<Slot>,
    raw: &mut Forming,
    t: &str,
    calls: &mut Calls,
    out: &mut dyn EventSink,
) {
    if t.is_empty() {
        return;
    }
    match slot {
        // A named call never refuses argument bytes.
        Some(s) => drop(calls.push_args(s, raw, t, false, out)),
        // No call (past the call limit): the bytes are only call text.
        None => calls.raw_or(None, raw).push(t),
    }
}

/// A call's raw text from `from` (a position in it), followed by the bytes of an
/// incomplete character held at its end (by one of `utf8`) as far as they fit in `max`
/// bytes with the text: what a broken call's error goes on from (its next bytes may
/// complete the character). Also whether the call's text so far ran past `max` bytes.
fn raw_from<'a>(
    raw: &'a Raw,
    from: usize,
    utf8: [&'a Utf8Holder; 2],
    max: usize,
) -> (Cow<'a, [u8]>, bool) {
    let text = raw.as_str().get(from..).unwrap_or_default().as_bytes();
    let held = utf8
        .iter()
        .map(|u| u.held_bytes())
        .find(|h| !h.is_empty())
        .unwrap_or_default();
    if raw.dropped() > 0 {
        return (Cow::Borrowed(text), true);
    }
    let room = max.saturating_sub(raw.len());
    let kept = held.get(..room.min(held.len())).unwrap_or_default();
    let lost = kept.len() < held.len();
    if kept.is_empty() {
        return (Cow::Borrowed(text), lost);
    }
    let mut v = text.to_vec();
    v.extend_from_slice(kept);
    (Cow::Owned(v), lost)
}

/// Whether a complete arguments value closed with its own last byte (`}`, `]`, `"`, the
/// last letter of `true` / `false` / `null`), not at the delimiter after it (a number).
fn args_closed(value: &[u8]) -> bool {
    value.last().is_some_and(|b| !b.is_ascii_digit())
}

/// Raw Llama 3.x output with bare JSON tool calls `{"name": .., "parameters": ..}`,
/// optionally after `<|python_tag|>` (which may also introduce code: the
/// `code_interpreter` call, or a built-in `brave_search.call(..)`).
pub(crate) const ROW: Row = Row {
    format: Format::LlamaJson,
    name: "llama-json",
    // xLAM-2 writes a bare JSON list `[{"name": .., "arguments": ..}]`, which
    // `llama-json` reads (vLLM's parser also looks for it inside fences and tags).
    aliases: &["llama3_json", "xlam", "llama4_json", "llama3"],
    about: "raw Llama 3.x text with JSON tool calls {\"name\": .., \"parameters\": ..}, <|python_tag|>, code_interpreter",
    engine: Builtin::LlamaJson,
    detect: &[
        Detect {
            rank: 220,
            pattern: &[Tok::Lit(b"<|python_tag|>")],
        },
        Detect {
            rank: 270,
            // A JSON array of calls: its `[` is the call's first marker byte (`llama-json`
            // reads the array), not text.
            pattern: &[
                Tok::Lit(b"["),
                Tok::Ws,
                Tok::Lit(b"{"),
                Tok::Ws,
                Tok::Lit(b"\"name\""),
                Tok::Ws,
                Tok::Lit(b":"),
                Tok::Ws,
                Tok::Lit(b"\""),
            ],
        },
        Detect {
            rank: 280,
            pattern: &[
                Tok::Lit(b"{"),
                Tok::Ws,
                Tok::Lit(b"\"name\""),
                Tok::Ws,
                Tok::Lit(b":"),
                Tok::Ws,
                Tok::Lit(b"\""),
            ],
        },
        Detect {
            rank: 290,
            pattern: &[
                Tok::Lit(b"{"),
                Tok::Ws,
                Tok::Lit(b"\"type\""),
                Tok::Ws,
                Tok::Lit(b":"),
                Tok::Ws,
                Tok::Lit(b"\"function\""),
            ],
        },
    ],
    example: "{prose}{call}<|python_tag|>{\"name\": \"write_file\", \"parameters\": {args}}<|eom_id|>",
};
