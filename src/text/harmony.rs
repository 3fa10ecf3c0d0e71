//! `harmony`: gpt-oss output as text, in OpenAI's harmony format.
//!
//! Its own engine, not a table on another: harmony is a sequence of messages, each with a
//! header (role, channel, recipient, content type, in either order) read between control
//! tokens; the call's name is the header's recipient and its arguments the message body;
//! which text is reasoning is decided by the channel, not by tags. No other family has
//! headers, so no other engine's table can express it.
//!
//! ```text
//! <|channel|>analysis<|message|>We need the weather.<|end|>
//! <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>
//! ```
//!
//! ```text
//!   Body ──<|start|> / <|channel|>──> Header ──<|message|>──┬─ recipient ──> Args ──value closed──> After ──<|call|>──> Body
//!     ^                                                    └─ no recipient ──> Body (analysis: reasoning; else text)
//!     └──────────────────────── <|end|> / <|return|> / <|call|> ───────────────────────────────────────────────┘
//! ```
//!
//! Rules:
//!
//! - A message's header (between `<|start|>` or `<|channel|>` and `<|message|>`) is never
//!   text: role, channel, recipient and content type are read from it, and control
//!   tokens never leak into names or text.
//! - A header with a recipient `to=functions.name` (after the channel, or before
//!   `<|channel|>`: both orders occur) is a tool call named `name` (the `functions.`
//!   namespace is cut; other recipients such as `browser.search` are kept whole). Start
//!   is emitted as soon as the recipient is settled: by the whitespace or control token
//!   after it. The message body is the arguments, the model's own JSON bytes; End when
//!   the value closes; `<|call|>` ends the message. An empty body gives `{}`.
//! - The `analysis` channel is reasoning; `final`, `commentary` without recipient (a
//!   preamble the user sees) and messages without a channel are text, until `<|end|>`,
//!   `<|return|>` or the next header. Output may start without `<|start|>assistant`
//!   (the prompt ends with it), or with plain text.
//! - Whitespace before a control token is dropped (see [`reasoning`](crate::text::kit::reasoning));
//!   reasoning tags are not looked for: the channels say what is reasoning.
//! - Malformed (a body that is not JSON, a header cut short by `<|end|>`, text after the
//!   arguments) → `Error` with the raw text; a call cut off → `Error` (`Truncated`)
//!   unless its arguments had closed.
//! - A new header (`<|start|>`, `<|channel|>`) inside a call's body ends the call (the
//!   kit's [recovery rule](crate::text::kit::recovery)): its error carries its bytes up
//!   to the token, `truncated` when its JSON broke right there or it had no body.
//! - A damaged header without a recipient (a token cut or misspelt in it, `<|chan`; a
//!   second `<|channel|>`) → `Error` (`UnexpectedPayload`) with its bytes through
//!   `<|message|>`; its body is read as its channel says. A header cut short by
//!   `<|start|>` ends before that token (the next header's).
//! - A header longer than `max_held_bytes` → `Error` (`LimitExceeded`) with its first
//!   bytes, cut at exactly that byte however the text is chunked; the rest is text. A
//!   recipient settled within those bytes has started its call: the error is that call's.

use crate::calls::{Calls, Slot};
use crate::event::EventSink;
use crate::event::{ErrorKind, Event};
use crate::format::Format;
use crate::limits::Limits;
use crate::scan::marker::{Found, MarkerMatcher, MarkerSet};
use crate::text::kit::call::{ArgStep, ArgValue, Forming, Raw};
use crate::text::kit::reasoning::{ReasoningOptions, TextStage};
use crate::text::kit::recovery::interrupted_own;
use crate::text::kit::util::args_string_run;
use crate::text::kit::util::{CharInput, ReadsChars, reads_chars};
use crate::text::row::{Builtin, Detect, Row, Tok};

const START: &str = "<|start|>";
/// The error of a call whose body broke.
const NOT_JSON: &str = "the body of a harmony tool call is not JSON";
const CHANNEL: &str = "<|channel|>";
const MESSAGE: &str = "<|message|>";
const CONSTRAIN: &str = "<|constrain|>";
const END: &str = "<|end|>";
const RETURN: &str = "<|return|>";
const CALL: &str = "<|call|>";
/// Tokens, in the order of every set below.
const TOKENS: [&str; 7] = [START, CHANNEL, END, RETURN, CALL, MESSAGE, CONSTRAIN];
const T_START: usize = 0;
const T_CHANNEL: usize = 1;
const T_MESSAGE: usize = 5;
const T_CONSTRAIN: usize = 6;
/// Longest header kept.
const MAX_HEADER: usize = 4096;

#[inline]
fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    /// Message body text (or text between messages).
    Body,
    /// Inside a header.
    Header,
    /// A call's body, before its first non-space character.
    Args,
    /// A call's JSON arguments.
    Json,
    /// A call's body that is not JSON: raw until the end token.
    RawBody(ErrorKind),
    /// The arguments closed: until the end token.
    After,
}

/// Scanner for `harmony`. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct Harmony {
    /// The bytes of a character cut by the last feed.
    input: CharInput,
    text: TextStage,
    st: St,
    tokens: MarkerSet,
    matcher: MarkerMatcher,
    header: String,
    raw: Forming,
    /// Body text of a call that is not JSON.
    body: Raw,
    /// Longest header kept: `MAX_HEADER`, or `max_held_bytes` when smaller.
    header_max: usize,
    slot: Option<Slot>,
    started: bool,
    /// The settled recipient names no tool (`"get`, `functions.`, `get"x`): the message
    /// is no call, its bytes through its end token an index-less error.
    junk: bool,
    args: ArgValue,
}

/// The recipient named in a header: `to=` at a word start, up to whitespace or a token.
/// `None` until it is settled (something follows it), unless `at_end`.
fn recipient(header: &str, at_end: bool) -> Option<&str> {
    let mut from = 0;
    while let Some(p) = header.get(from..).and_then(|h| h.find("to=")) {
        let at = from + p;
        let word_start = header
            .get(..at)
            .is_none_or(|b| b.is_empty() || b.ends_with(is_ws) || b.ends_with('>'));
        if word_start {
            let rest = header.get(at + 3..).unwrap_or_default();
            return match rest.find(|c: char| is_ws(c) || c == '<') {
                Some(e) => rest.get(..e).filter(|r| !r.is_empty()),
                None if at_end => Some(rest).filter(|r| !r.is_empty()),
                None => None,
            };
        }
        from = at + 3;
    }
    None
}

/// Whether a recipient names a tool: no quote, bracket, markup or escape in it, and no
/// `.` at its end (`to=functions."get weather"` settles as `"get`).
fn is_tool_name(name: &str) -> bool {
    !name.is_empty()
        && !name.ends_with('.')
        && !name.contains(|c: char| c.is_control() || "\"'<>{}()[],;=\\`".contains(c))
}

/// Whether a header (its text, with the `<|channel|>` and `<|constrain|>` tokens read
/// in it) is damaged: a token cut or misspelt in it (a `<` or `|>` left outside the
/// tokens), or a second channel.
fn damaged(header: &str) -> bool {
    if header.matches(CHANNEL).count() > 1 {
        return true;
    }
    header
        .split(CHANNEL)
        .flat_map(|p| p.split(CONSTRAIN))
        .any(|p| p.contains('<') || p.contains("|>"))
}

/// The channel named in a header.
fn channel(header: &str) -> &str {
    header
        .find(CHANNEL)
        .and_then(|p| header.get(p + CHANNEL.len()..))
        .map(|rest| rest.trim_start_matches(is_ws))
        .map(|rest| {
            rest.get(
                ..rest
                    .find(|c: char| is_ws(c) || c == '<')
                    .unwrap_or(rest.len()),
            )
            .unwrap_or_default()
        })
        .unwrap_or_default()
}

reads_chars!(Harmony;
    #[inline]
    fn fast_path(&mut self, bytes: &[u8], calls: &mut Calls, out: &mut dyn EventSink) -> bool {
        self.st == St::Json
            && args_string_run(&self.input, &mut self.args, bytes, &mut self.raw, self.slot, calls, out)
    }

    /// Body text goes to the text stage before `run`'s loop (what its `Body` state does).
    #[inline]
    fn text_first(&mut self, s: &mut &str, out: &mut dyn EventSink) {
        if self.st == St::Body {
            self.body_text(s, out);
        }
    }
);

impl Harmony {
    pub(crate) fn new(limits: &Limits, _opts: &ReasoningOptions) -> Self {
        let none = ReasoningOptions {
            open: false,
            tags: Some(Vec::new()),
            calls: false,
        };
        Harmony {
            input: CharInput::default(),
            text: TextStage::new(&TOKENS, &[] as &[&str], &[], &none, limits),
            st: St::Body,
            tokens: MarkerSet::new(TOKENS),
            matcher: MarkerMatcher::new(),
            header: String::new(),
            raw: Forming::new(limits.max_argument_bytes),
            body: Raw::new(MAX_HEADER.min(limits.max_argument_bytes)),
            header_max: MAX_HEADER.min(limits.max_held_bytes),
            slot: None,
            started: false,
            junk: false,
            args: ArgValue::new(limits.max_depth),
        }
    }

    pub(crate) fn retained(&self) -> usize {
        self.input.held()
            + self.text.retained()
            + self.matcher.held()
            + self.header.capacity()
            + self.raw.retained()
            + self.body.retained()
    }

    /// A header begins with token `t` (`<|start|>` or `<|channel|>`).
    fn header(&mut self, t: usize) {
        let tok = TOKENS.get(t).copied().unwrap_or(START);
        self.header.clear();
        if t == T_CHANNEL {
            self.header.push_str(CHANNEL);
        }
        self.raw.start(tok);
        self.slot = None;
        self.started = false;
        self.junk = false;
        self.matcher.clear();
        self.st = St::Header;
    }

    /// Emits Start once the recipient is settled.
    fn try_start(&mut self, at_end: bool, calls: &mut Calls, out: &mut dyn EventSink) {
        if self.started {
            return;
        }
        let Some(r) = recipient(&self.header, at_end) else {
            return;
        };
        let name = r
            .strip_prefix("functions.")
            .filter(|n| !n.is_empty())
            .unwrap_or(r)
            .to_owned();
        self.started = true;
        if !is_tool_name(&name) || name == "functions." {
            // No name: no call (its bytes go with an error when the message ends).
            self.junk = true;
            return;
        }
        self.slot = calls.open_raw(&mut self.raw, out);
        if let Some(slot) = self.slot {
            calls.set_name(slot, &name, out);
        }
    }

    /// Body text from the start of `s` to the text stage, up to a token (consumed, and
    /// acted on).
    #[inline]
    fn body_text(&mut self, s: &mut &str, out: &mut dyn EventSink) {
        match self.text.run(s, out) {
            Some(t @ (T_START | T_CHANNEL)) => self.header(t),
            Some(T_MESSAGE | T_CONSTRAIN) | None => {}
            Some(_) => self.body_kind(false),
        }
    }

    fn body_kind(&mut self, reasoning: bool) {
        self.text.set_reasoning_text(reasoning);
        self.st = St::Body;
    }

    fn run(&mut self, mut s: &str, calls: &mut Calls, out: &mut dyn EventSink) {
        while !s.is_empty() {
            match self.st {
                St::Body => self.body_text(&mut s, out),
                St::Header => {
                    let mut matcher = std::mem::take(&mut self.matcher);
                    match matcher.next(&self.tokens, &mut s) {
                        None => {}
                        Some(Found::Text(t)) => {
                            let room = self.header_max.saturating_sub(self.header.len());
                            if t.len() > room {
                                // Cut at exactly the limit, however the text arrived: the
                                // header's first bytes go with its error, the rest is text.
                                let mut cut = room;
                                while !t.is_char_boundary(cut) {
                                    cut -= 1;
                                }
                                // The kept bytes are header bytes like any others: a
                                // recipient they settle starts its call here too, as it
                                // does when they arrive in pieces within the bound.
                                let kept = t.get(..cut).unwrap_or_default();
                                calls.raw_or(self.slot, &mut self.raw).push(kept);
                                self.header.push_str(kept);
                                self.try_start(false, calls, out);
                                let mut rest = t.get(cut..).unwrap_or_default().to_owned();
                                // A partial token the matcher holds after the text is
                                // text's now too (the body stage matches it afresh).
                                rest.push_str(matcher.finish());
                                self.matcher = matcher;
                                self.bad_header(ErrorKind::LimitExceeded, calls, out);
                                // Marker-free text (the matcher stopped before any token):
                                // the body stage takes it as text, without recursing further.
                                self.run(&rest, calls, out);
                                continue;
                            }
                            calls.raw_or(self.slot, &mut self.raw).push(t);
                            self.header.push_str(t);
                            self.try_start(false, calls, out);
                        }
                        Some(Found::Marker(m)) => {
                            let tok = TOKENS.get(m).copied().unwrap_or_default();
                            if m != T_START {
                                // (A `<|start|>` begins the next header: its bytes are
                                // that header's, not this one's.)
                                calls.raw_or(self.slot, &mut self.raw).push(tok);
                            }
                            match m {
                                T_CHANNEL | T_CONSTRAIN => {
                                    self.header.push_str(tok);
                                    self.try_start(false, calls, out);
                                }
                                T_MESSAGE => {
                                    self.try_start(true, calls, out);
                                    if self.junk {
                                        self.body.start("x");
                                        self.st = St::RawBody(ErrorKind::InvalidArguments);
                                    } else if self.started {
                                        self.st = St::Args;
                                    } else {
                                        let reasoning = channel(&self.header) == "analysis";
                                        if damaged(&self.header) {
                                            // Not a header the format writes: its bytes
                                            // go out with an error, never silently.
                                            calls.report(
                                                None,
                                                ErrorKind::UnexpectedPayload,
                                                "a malformed harmony message header",
                                                &mut self.raw,
                                                out,
                                            );
                                        }
                                        self.header.clear();
                                        self.body_kind(reasoning);
                                    }
                                }
                                _ => {
                                    // A header cut short by another token.
                                    self.matcher = matcher;
                                    self.bad_header(ErrorKind::UnexpectedPayload, calls, out);
                                    if m == T_START {
                                        self.header(T_START);
                                    }
                                    continue;
                                }
                            }
                        }
                    }
                    self.matcher = matcher;
                }
                St::Args => {
                    let n = s.len() - s.trim_start_matches(is_ws).len();
                    calls
                        .raw_or(self.slot, &mut self.raw)
                        .push(s.get(..n).unwrap_or_default());
                    s = s.get(n..).unwrap_or_default();
                    match s.chars().next() {
                        None => {}
                        Some('{' | '[' | '"' | '-' | '0'..='9' | 't' | 'f' | 'n') => {
                            self.args.reset();
                            self.st = St::Json;
                        }
                        Some(_) => {
                            self.body.start("");
                            self.st = St::RawBody(ErrorKind::InvalidArguments);
                        }
                    }
                }
                St::Json => match self.args.feed(&mut s, self.slot, &mut self.raw, calls, out) {
                    ArgStep::NeedMore => {}
                    ArgStep::Closed => {
                        calls.close_own(self.slot, &mut self.raw, out);
                        self.body.start("");
                        // The call is over: its raw text (kept for an error) is freed;
                        // text after the arguments is reported from `body`.
                        drop(calls.raw_or(self.slot, &mut self.raw).take());
                        self.st = St::After;
                    }
                    // (`Special` is not asked for: no stop byte is set on these arguments.)
                    ArgStep::Broken(kind) => {
                        self.body.start("x");
                        self.st = St::RawBody(kind);
                    }
                    ArgStep::Special => {
                        self.body.start("x");
                        self.st = St::RawBody(ErrorKind::InvalidArguments);
                    }
                },
                St::RawBody(_) | St::After => {
                    let mut matcher = std::mem::take(&mut self.matcher);
                    match matcher.next(&self.tokens, &mut s) {
                        None => {}
                        Some(Found::Text(t)) => {
                            if self.st != St::After {
                                calls.raw_or(self.slot, &mut self.raw).push(t);
                            }
                            self.body.push(t);
                        }
                        Some(Found::Marker(m @ (T_MESSAGE | T_CONSTRAIN)))
                            if self.st != St::After =>
                        {
                            let tok = TOKENS.get(m).copied().unwrap_or_default();
                            calls.raw_or(self.slot, &mut self.raw).push(tok);
                            self.body.push(tok);
                        }
                        Some(Found::Marker(m)) => {
                            self.matcher = matcher;
                            self.end_call(m, calls, out);
                            continue;
                        }
                    }
                    self.matcher = matcher;
                }
            }
        }
    }

    /// The call message ended with token `m` (or the text ended: `m` is `usize::MAX`).
    fn end_call(&mut self, m: usize, calls: &mut Calls, out: &mut dyn EventSink) {
        let tok = TOKENS.get(m).copied().unwrap_or_default();
        match self.st {
            St::After => {
                let (stray, note) = self.body.take();
                let kept = stray.trim_matches(is_ws);
                if !kept.is_empty() || !note.is_empty() {
                    out.push(Event::Error {
                        path: None,
                        kind: ErrorKind::TrailingArguments,
                        message: format!("text after the arguments of a harmony tool call{note}"),
                        index: None,
                        raw: kept.to_owned(),
                    });
                }
            }
            St::RawBody(kind) if matches!(m, T_START | T_CHANNEL) => {
                // A new message's header inside the call (the kit's recovery rule): the
                // call ends with its bytes up to the token: cut short when its JSON broke
                // right there or it had no body, else as broken.
                let body = self.body.as_str();
                if (body == "x" || body.trim_matches(is_ws).is_empty())
                    && self.body.dropped() == 0
                    && !self.junk
                {
                    interrupted_own(calls, self.slot, tok, &mut self.raw, out);
                } else {
                    calls.report(self.slot, kind, self.not_json(), &mut self.raw, out);
                }
            }
            St::RawBody(kind) => {
                calls.raw_or(self.slot, &mut self.raw).push(tok);
                if self.junk {
                    calls.report(None, kind, self.not_json(), &mut self.raw, out);
                } else if self.body.as_str().trim_matches(is_ws).is_empty()
                    && self.body.dropped() == 0
                {
                    // `<|message|><|call|>`: no arguments.
                    calls.close_own(self.slot, &mut self.raw, out);
                } else {
                    calls.report(self.slot, kind, self.not_json(), &mut self.raw, out);
                }
            }
            _ => {}
        }
        self.body.start("");
        self.slot = None;
        self.started = false;
        self.junk = false;
        match m {
            T_START | T_CHANNEL => self.header(m),
            _ => self.body_kind(false),
        }
    }

    /// Why a call message's body is an error: its recipient names no tool, or the body is
    /// not JSON.
    fn not_json(&self) -> &'static str {
        if self.junk {
            "the recipient of a harmony message names no tool"
        } else {
            NOT_JSON
        }
    }

    /// A header that cannot be completed: reported with its raw text.
    fn bad_header(&mut self, kind: ErrorKind, calls: &mut Calls, out: &mut dyn EventSink) {
        calls.report(
            self.slot,
            kind,
            "a harmony message header without <|message|>",
            &mut self.raw,
            out,
        );
        self.header.clear();
        self.slot = None;
        self.started = false;
        self.junk = false;
        self.body_kind(false);
    }

    pub(crate) fn finish(&mut self, calls: &mut Calls, out: &mut dyn EventSink) {
        self.run_held(calls, out);
        let tail = self.matcher.finish().to_owned();
        match self.st {
            St::Body => {}
            St::Header => {
                calls.raw_or(self.slot, &mut self.raw).push(&tail);
                calls.report(
                    self.slot,
                    ErrorKind::Truncated,
                    "the text ended inside a harmony header",
                    &mut self.raw,
                    out,
                );
            }
            St::Args => {
                // `<|message|>` and nothing more: a call without arguments is not known
                // to be complete.
                calls.report(
                    self.slot,
                    ErrorKind::Truncated,
                    "the text ended before a harmony call's arguments",
                    &mut self.raw,
                    out,
                );
            }
            St::Json => {
                if self.args.finish(self.slot, &mut self.raw, calls, out) {
                    calls.close_own(self.slot, &mut self.raw, out);
                } else {
                    calls.report(
                        self.slot,
                        ErrorKind::Truncated,
                        "the text ended inside a harmony tool call",
                        &mut self.raw,
                        out,
                    );
                }
            }
            St::RawBody(kind) => {
                calls.raw_or(self.slot, &mut self.raw).push(&tail);
                calls.report(
                    self.slot,
                    kind,
                    if self.junk {
                        "the recipient of a harmony message names no tool"
                    } else {
                        "the text ended inside a harmony tool call that is not JSON"
                    },
                    &mut self.raw,
                    out,
                );
            }
            St::After => {
                self.body.push(&tail);
                self.end_call(usize::MAX, calls, out);
            }
        }
        self.st = St::Body;
        self.text.finish(out);
    }
}

/// Raw gpt-oss output in OpenAI's harmony format (channels, `to=functions.name`).
pub(crate) const ROW: Row = Row {
    format: Format::Harmony,
    name: "harmony",
    // SGLang's `gpt-oss`; not vLLM's parser name `openai`: as a `--format` it would read
    // an OpenAI stream as gpt-oss text; `openai` stays an error that offers `openai-chat`
    // / `openai-responses`.
    aliases: &["gpt-oss"],
    about: "raw gpt-oss text: <|channel|>analysis<|message|>..<|end|> and commentary to=functions.name <|constrain|>json<|message|>{..}<|call|>",
    engine: Builtin::Harmony,
    detect: &[
        Detect {
            rank: 180,
            pattern: &[Tok::Lit(b"<|start|>")],
        },
        Detect {
            rank: 190,
            pattern: &[Tok::Lit(b"<|channel|>")],
        },
    ],
    example: "<|channel|>analysis<|message|>{prose}<|end|>{call}<|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{args}<|call|>",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipients_and_channels() {
        assert_eq!(
            recipient(
                "<|channel|>commentary to=functions.f <|constrain|>json",
                false
            ),
            Some("functions.f")
        );
        assert_eq!(recipient("assistant to=functions.f", false), None);
        assert_eq!(
            recipient("assistant to=functions.f", true),
            Some("functions.f")
        );
        assert_eq!(
            recipient("assistant to=functions.f<|channel|>commentary", false),
            Some("functions.f")
        );
        assert_eq!(recipient("assistant<|channel|>auto=1", true), None);
        assert_eq!(channel("assistant<|channel|>analysis"), "analysis");
        assert_eq!(channel("<|channel|>commentary to=x"), "commentary");
    }
}
