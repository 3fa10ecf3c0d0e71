//! The Gemma family: Gemma 4's `<|tool_call>call:NAME{k:<|"|>v<|"|>,n:3}<tool_call|>`
//! ([`gemma4`]) and FunctionGemma's
//! `<start_function_call>call:NAME{k:<escape>v<escape>}<end_function_call>`
//! ([`functiongemma`]): one engine driven by a [`Dialect`] (the call tokens, the string
//! token, reasoning tags, dropped tokens).
//!
//! Its own engine: the arguments are neither JSON nor XML parameters nor pythonic but
//! Gemma's bare-key objects with token-quoted strings, converted to JSON by their own
//! transducer ([`GemmaArgs`]), and the name follows `call:` (or a bare `:`, which Gemma 4
//! also writes: vllm#53431) inside the marker's body. Below, `<|tool_call>`,
//! `<tool_call|>` and `<|"|>` stand for the dialect's tokens.
//!
//! ```text
//!   Text ──<|tool_call>──> Head ──call:NAME '{'──> Args ──'}' closes──> After ──<tool_call|>──> Text
//!                           │ other                  │ invalid            │ other text: back to Text
//!                           └──────────> Skip (malformed) <─┘ ──<tool_call|>──> Error ──> Text
//! ```
//!
//! - `ToolCallStart` is emitted by the feed that delivers the `{` after the name; the
//!   arguments are converted to JSON by the [`GemmaArgs`] transducer as they arrive
//!   (strings grow while they stream); `ToolCallEnd` when the `}` closing them arrives.
//!   Names: `[A-Za-z0-9_.:-]`, at most 256 bytes, whitespace allowed before `call:`;
//!   `<|tool_call>:NAME{` (the keyword left out) is read as `<|tool_call>call:NAME{`.
//! - `<tool_call|>` ends the call; when it is missing, text after the closed arguments
//!   is text again, and at the end of input a call whose arguments closed is complete.
//! - Text: Gemma 4's reasoning block `<|channel>thought` … `<channel|>` is reasoning
//!   (see [`reasoning`](crate::text::kit::reasoning)); the end-of-turn token `<turn|>` is dropped;
//!   whitespace before `<|tool_call>` is text.
//! - The kit's [recovery rule](crate::text::kit::recovery): `<|tool_call>` followed by
//!   anything but `call:` or `:` is text, released at the byte that shows it; a `<|tool_call>`
//!   where a call's arguments broke, or in the text of a broken call, ends that call and
//!   starts the new one. Inside a string (a `<` stops the transducer's string scan and
//!   the tokens are matched there) `<|tool_call>` cuts the call short and starts the new
//!   one, `<tool_call|>` ends it as an error carrying the token (a missing closing
//!   `<|"|>` does not swallow the next call). A repeated key of the arguments object is
//!   an error with the raw call, refused before it is written.
//! - Malformed call text (no `call:NAME{`, arguments the transducer rejects) → an
//!   `Error` carrying the call's raw text from `<|tool_call>` through `<tool_call|>`;
//!   the call's own error (with its index) once its Start was emitted. A call cut off by
//!   the end of input → `Error` of kind `Truncated` with its bytes.

use std::borrow::Cow;

use crate::calls::{Calls, Slot};
use crate::event::ErrorKind;
use crate::event::EventSink;
use crate::limits::Limits;
use crate::scan::gemma::{GemmaArgs, GemmaStatus};
use crate::scan::marker::{Expect, Found, MarkerMatcher, MarkerSet};
use crate::text::kit::call::{Raw, report};
use crate::text::kit::reasoning::{ReasoningOptions, TextStage};
use crate::text::kit::recovery::{InString, Look, interrupted, released};
use crate::text::kit::table::Shared;
use crate::text::kit::util::closing;
use crate::text::kit::util::{CharInput, ReadsChars, converted_args, reads_chars};

// Every syntax file of this family (`build.rs`: a file that exports a `ROW`).
include!(concat!(env!("OUT_DIR"), "/text_gemma.rs"));

const PREFIX: &str = "call:";
/// Longest tool name kept.
const MAX_NAME: usize = 256;

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

#[inline]
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-')
}

/// A syntax of the Gemma family: its tokens. The built-ins' are borrowed constants; a
/// spec's ([`Syntax`](crate::Syntax) with `content_args.string_delims`) owns its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dialect {
    /// Opens a call (`<|tool_call>`).
    pub(crate) open: Cow<'static, str>,
    /// Closes a call (`<tool_call|>`).
    pub(crate) close: Cow<'static, str>,
    /// Quotes a string (`<|"|>`): begins with `<` and holds no other `<`.
    pub(crate) quote: Cow<'static, str>,
    pub(crate) reasoning: Cow<'static, [(Cow<'static, str>, Cow<'static, str>)]>,
    /// End-of-turn tokens dropped from the text.
    pub(crate) drops: Cow<'static, [Cow<'static, str>]>,
}

impl Dialect {
    /// Whether `quote` can be this engine's string token: it begins with `<` and holds
    /// no other `<` (a string's content is plain up to a `<`; a `<` that breaks a
    /// partial token begins it again).
    pub(crate) fn quote_fits(quote: &str) -> bool {
        quote.len() > 1
            && quote.starts_with('<')
            && !quote.get(1..).unwrap_or_default().contains('<')
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Text,
    /// After `<|tool_call>`: `n` bytes of `call:` matched (whitespace before it allowed).
    Prefix(usize),
    /// Reading the name.
    Name,
    /// Streaming the arguments.
    Args,
    /// The arguments closed: `<tool_call|>` expected.
    After,
    /// Malformed: collecting raw text until `<tool_call|>`.
    Skip(ErrorKind),
    /// A string of the arguments reached `<`: the string token, or the open or close
    /// token (never content: a missing closing `<|"|>` does not swallow them), looked
    /// for there ([`Gemma::in_string`]).
    Special,
}

/// Scanner for the Gemma family (`gemma4`, `functiongemma`). See the [module docs](self).
#[derive(Debug)]
pub(crate) struct Gemma {
    dialect: Shared<Dialect>,
    /// The bytes of a character cut by the last feed.
    input: CharInput,
    text: TextStage,
    st: St,
    name: String,
    args: GemmaArgs,
    json: String,
    slot: Option<Slot>,
    raw: Raw,
    close: MarkerSet,
    /// The close token, then the open token: what ends the text of a broken call.
    skip_set: MarkerSet,
    /// The call broke at the current position and nothing of its rest was read yet.
    fresh: bool,
    /// The string token, the open token, the close token: what a `<` in a string may
    /// begin.
    in_string: InString,
    expect: Expect,
    matcher: MarkerMatcher,
    max_depth: usize,
    /// The call table scans the JSON itself (it nests deeper than `max_depth`; see
    /// [`converted_args`]).
    own: bool,
}

reads_chars!(Gemma;
    #[inline]
    fn fast_path(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) -> bool {
        self.st == St::Args && self.string_run(bytes, calls, out)
    }

    /// Text goes to the text stage before `run`'s loop (what its `Text` state does).
    #[inline]
    fn text_first(&mut self, s: &mut &str, out: &mut dyn EventSink) {
        if self.st == St::Text {
            self.text_run(s, out);
        }
    }
);

impl Gemma {
    pub(crate) fn new(dialect: Shared<Dialect>, limits: &Limits, opts: &ReasoningOptions) -> Self {
        let tags: Vec<(&str, &str)> = dialect
            .reasoning
            .iter()
            .map(|(o, c)| (&**o, &**c))
            .collect();
        Gemma {
            input: CharInput::default(),
            text: TextStage::new(
                std::slice::from_ref(&dialect.open),
                &dialect.drops,
                &tags,
                opts,
                limits,
            ),
            st: St::Text,
            name: String::new(),
            args: GemmaArgs::with_max_depth(limits.max_depth.saturating_add(1))
                .quote(&dialect.quote)
                .stop_at_tokens([&dialect.quote, &dialect.open, &dialect.close]),
            json: String::new(),
            slot: None,
            raw: Raw::new(limits.max_argument_bytes),
            close: MarkerSet::new([dialect.close.clone()]),
            skip_set: MarkerSet::new([dialect.close.clone(), dialect.open.clone()]),
            fresh: false,
            in_string: InString::new([
                dialect.quote.clone(),
                dialect.open.clone(),
                dialect.close.clone(),
            ]),
            expect: Expect::default(),
            matcher: MarkerMatcher::new(),
            max_depth: limits.max_depth,
            own: false,
            dialect,
        }
    }

    /// The hot path inside the arguments: when nothing is held, all of `bytes` is
    /// complete UTF-8 and more of a string with no `<` ([`GemmaArgs::string_piece`]),
    /// takes it as `run`'s `Args` state would (the raw text,
    /// the call) and returns `true`; otherwise `false`, nothing done. Out of line: the
    /// scanners' `feed`s are inlined into `Parser::feed_into`, which the caller inlines.
    #[inline(never)]
    fn string_run(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) -> bool {
        if self.input.held() != 0 {
            return false;
        }
        let Some(s) = crate::scan::utf8::whole_str(bytes) else {
            return false;
        };
        // Plain content goes on as it is; with bytes to escape, through `json`.
        let json = if self.args.string_run(s) {
            s
        } else {
            self.json.clear();
            if !self.args.string_piece(s, &mut self.json) {
                return false;
            }
            &self.json
        };
        self.raw.push(s);
        if let Some(slot) = self.slot {
            converted_args(
                calls,
                slot,
                json,
                false,
                self.args.deepest(),
                self.max_depth,
                &mut self.own,
                out,
            );
        }
        true
    }

    pub(crate) fn retained(&self) -> usize {
        self.input.held()
            + self.text.retained()
            + self.name.capacity()
            + self.raw.retained()
            + self.matcher.held()
            + self.expect.matched()
            + self.in_string.held()
            + self.args.retained()
    }

    fn run(&mut self, mut s: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        while let Some(&b) = s.as_bytes().first() {
            match self.st {
                St::Text => self.text_run(&mut s, out),
                St::Prefix(n) => {
                    if n == 0 && is_ws(b) {
                        self.raw.push(s.get(..1).unwrap_or_default());
                        s = s.get(1..).unwrap_or_default();
                    } else if n == 0 && b == b':' {
                        // The bare opener `<|tool_call>:NAME{` (the keyword left out).
                        self.raw.push(":");
                        s = s.get(1..).unwrap_or_default();
                        self.st = St::Name;
                    } else if PREFIX.as_bytes().get(n) == Some(&b) {
                        self.raw.push(s.get(..1).unwrap_or_default());
                        s = s.get(1..).unwrap_or_default();
                        self.st = if n + 1 == PREFIX.len() {
                            St::Name
                        } else {
                            St::Prefix(n + 1)
                        };
                    } else {
                        // Not `call:`: the marker was text, and what followed it is.
                        released(&mut self.raw, &mut self.text, out);
                        self.end_call();
                    }
                }
                St::Name => {
                    let n = s.bytes().take_while(|&c| is_name_byte(c)).count();
                    let part = s.get(..n).unwrap_or_default();
                    self.raw.push(part);
                    s = s.get(n..).unwrap_or_default();
                    if self.name.len() + part.len() > MAX_NAME {
                        self.st = St::Skip(ErrorKind::MissingName);
                        continue;
                    }
                    self.name.push_str(part);
                    match s.as_bytes().first() {
                        None => {}
                        Some(b'{') if !self.name.is_empty() => self.start(calls, out),
                        Some(_) => self.st = St::Skip(ErrorKind::MissingName),
                    }
                }
                St::Args => {
                    self.json.clear();
                    let status = self.args.feed(s, &mut self.json);
                    let stop = self.args.take_stop();
                    let used = match status {
                        GemmaStatus::NeedMore => stop.unwrap_or(s.len()),
                        GemmaStatus::Done { consumed } => consumed,
                        GemmaStatus::Invalid { at, .. } => at,
                    };
                    self.raw.push(s.get(..used).unwrap_or_default());
                    s = s.get(used..).unwrap_or_default();
                    if let Some(slot) = self.slot {
                        converted_args(
                            calls,
                            slot,
                            &self.json,
                            matches!(status, GemmaStatus::Done { .. }),
                            self.args.deepest(),
                            self.max_depth,
                            &mut self.own,
                            out,
                        );
                    }
                    match status {
                        // A `<` that begins no token, seen at once: content.
                        GemmaStatus::NeedMore if stop.is_some() && self.in_string.content_at(s) => {
                            self.args.past_stop();
                        }
                        GemmaStatus::NeedMore if stop.is_some() => {
                            self.in_string.reset();
                            self.st = St::Special;
                        }
                        GemmaStatus::NeedMore => {}
                        GemmaStatus::Done { .. } => {
                            if let Some(slot) = self.slot {
                                calls.close(slot, out);
                            }
                            self.expect.reset();
                            self.st = St::After;
                        }
                        GemmaStatus::Invalid { .. } => {
                            self.fresh = true;
                            self.st = St::Skip(ErrorKind::InvalidArguments);
                            self.token_begins_open();
                        }
                    }
                }
                St::Special => match self.in_string.look(s) {
                    Look::NeedMore => s = "",
                    Look::Token { index: 1, consumed } => {
                        // A new call began inside this one's string: it ends here.
                        s = s.get(consumed..).unwrap_or_default();
                        let open = self.dialect.open.clone();
                        interrupted(calls, self.slot, &open, &mut self.raw, out);
                        self.end_call();
                        self.raw.start(&open);
                        self.st = St::Prefix(0);
                    }
                    Look::Token { index: 2, consumed } => {
                        // The close token inside a string (its closing string token
                        // missing): the call ends, broken, the token with it.
                        s = s.get(consumed..).unwrap_or_default();
                        self.raw.push(&self.dialect.close);
                        let kind = ErrorKind::InvalidArguments;
                        let what = self.skip_message(kind);
                        report(calls, self.slot, kind, &what, &mut self.raw, out);
                        self.end_call();
                    }
                    Look::Token { consumed, .. } => {
                        // The string token: read as the transducer reads it.
                        s = s.get(consumed..).unwrap_or_default();
                        self.args.past_stop();
                        self.st = St::Args;
                        let quote = self.dialect.quote.clone();
                        self.run(&quote, calls, out);
                    }
                    Look::Content { consumed } => {
                        // No token: the `<` is content, the bytes after it read again.
                        s = s.get(consumed..).unwrap_or_default();
                        let given = self.in_string.take_given();
                        self.args.past_stop();
                        self.st = St::Args;
                        self.run(&given, calls, out);
                        self.in_string.put_back(given);
                    }
                },
                St::After => {
                    if let Some(given) = closing(&mut self.expect, &self.close, &mut s) {
                        self.end_call();
                        // No close token: what follows the call is text again.
                        let close = &self.dialect.close;
                        self.text
                            .give_back(close.get(..given).unwrap_or_default(), out);
                    }
                }
                St::Skip(kind) => {
                    let Some(found) = self.matcher.next(&self.skip_set, &mut s) else {
                        continue;
                    };
                    match found {
                        Found::Text(t) => {
                            self.fresh &= t.is_empty();
                            self.raw.push(t);
                        }
                        Found::Marker(1) => {
                            // A new call began inside this one: it ends here (cut short,
                            // when its arguments broke right at the marker).
                            // Borrowed for the built-ins (a spec's owns its token).
                            let open = self.dialect.open.clone();
                            if self.fresh {
                                interrupted(calls, self.slot, &open, &mut self.raw, out);
                            } else {
                                let what = self.skip_message(kind);
                                report(calls, self.slot, kind, &what, &mut self.raw, out);
                            }
                            self.end_call();
                            self.raw.start(&open);
                            self.st = St::Prefix(0);
                        }
                        Found::Marker(_) => {
                            self.raw.push(&self.dialect.close);
                            let what = self.skip_message(kind);
                            report(calls, self.slot, kind, &what, &mut self.raw, out);
                            self.end_call();
                        }
                    }
                }
            }
        }
    }

    /// The arguments broke where a value began with bytes of the string token that also
    /// begin the open token (`<|` of `<|tool_call>` read as the start of `<|"|>`): they
    /// leave the broken call's text and go to the skip's matcher, which looks for the
    /// open token from them on (a call never carries the next one's bytes).
    fn token_begins_open(&mut self) {
        let n = self.args.failed_in_token();
        let held = self.dialect.quote.get(..n).unwrap_or_default();
        if n == 0 || n >= self.dialect.open.len() || !self.dialect.open.starts_with(held) {
            return;
        }
        self.raw.unpush(n);
        let mut rest = held;
        // A proper prefix of the open token: the matcher holds it all (nothing found).
        while let Some(found) = self.matcher.next(&self.skip_set, &mut rest) {
            if let Found::Text(t) = found {
                self.fresh &= t.is_empty();
                self.raw.push(t);
            }
        }
    }

    /// Text from the start of `s` to the text stage, up to the open token (consumed: a
    /// call's head follows).
    #[inline]
    fn text_run(&mut self, s: &mut &str, out: &mut dyn EventSink) {
        if self.text.run(s, out).is_some() {
            self.raw.start(&self.dialect.open);
            self.name.clear();
            self.slot = None;
            self.st = St::Prefix(0);
        }
    }

    /// The `{` after the name: the call starts.
    fn start(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.slot = calls.open_scanned(out);
        if let Some(slot) = self.slot {
            calls.set_name(slot, &self.name, out);
        }
        self.args.reset();
        self.own = false;
        self.st = St::Args;
    }

    fn end_call(&mut self) {
        self.fresh = false;
        self.st = St::Text;
        self.expect.reset();
        self.matcher.clear();
        self.raw.start("");
        self.name.clear();
        self.slot = None;
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.run_held(calls, out);
        while self.st == St::Special {
            // The text ended inside what could have been a token: string content (each
            // round reads at least its `<`).
            let given = self.in_string.finish();
            self.args.past_stop();
            self.st = St::Args;
            if given.is_empty() {
                break;
            }
            self.run(&given, calls, out);
        }
        match self.st {
            St::Text => {}
            St::Prefix(_) | St::Name | St::Args | St::Special => {
                let what = format!("the text ended inside a {}", self.dialect.open);
                report(
                    calls,
                    self.slot,
                    ErrorKind::Truncated,
                    &what,
                    &mut self.raw,
                    out,
                );
            }
            St::After => {
                let given = self.expect.text(&self.close).to_owned();
                self.end_call();
                self.text.give_back(&given, out);
            }
            St::Skip(kind) => {
                let tail = self.matcher.finish().to_owned();
                self.raw.push(&tail);
                let what = self.skip_message(kind);
                report(calls, self.slot, kind, &what, &mut self.raw, out);
            }
        }
        self.end_call();
        self.text.finish(out);
    }

    fn skip_message(&self, kind: ErrorKind) -> String {
        let open = &self.dialect.open;
        match kind {
            ErrorKind::MissingName => format!("a {open} without call:NAME{{"),
            _ => format!("the arguments of a {open} are malformed"),
        }
    }
}
