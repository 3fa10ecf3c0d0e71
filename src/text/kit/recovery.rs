//! The one recovery rule of every text engine: what a call becomes when the model slips.
//! The engines keep it with the helpers below; `tests/text/rules/recovery.rs` states it
//! as one fixture table (each slip in every syntax where it can occur) run whole, byte by
//! byte and at every split point.
//!
//! - **An opener ends the open call.** A call-opening marker of the syntax inside an open
//!   call ends that call as a [`Truncated`](ErrorKind::Truncated) error carrying its
//!   bytes (from its first marker byte up to the new marker, [`interrupted`]) and starts
//!   the new call: a call never completes with another call's bytes. Where the marker
//!   counts:
//!   - a *special token* (`<|python_tag|>`, `[TOOL_CALLS]`, `<｜tool▁call▁begin｜>`,
//!     `<|tool_call>`, `<|start|>`) is never content: it ends the call wherever it comes,
//!     inside what looks like a JSON string too; a syntax's closing token inside an
//!     unterminated string ends the call as an error, the token with it;
//!   - a *plain-text marker* (`<tool_call>`, `<function=`, `<invoke name=`) ends the call
//!     where the grammar expects structure — between JSON tokens, between XML
//!     parameters, in the text of a call that already broke — and is content inside a
//!     JSON string or an XML parameter value, which may quote markup (as a close marker
//!     inside a JSON string does not close the call).
//!
//!   A call whose arguments already closed is complete (its End was emitted): an opener
//!   after it is only the next call.
//! - **Nothing dropped from a call.** A member the syntax does not define, a duplicate
//!   key or a repeated parameter is an error, never a silent drop ([`Members`]): the
//!   call's own error (`unexpected_payload` for a member, `invalid_arguments` for a
//!   repeated argument) with its raw text while the call is open; after its arguments
//!   closed, `trailing_arguments` without index, carrying only the bytes after the
//!   ended call (an index-less error never repeats bytes a call already delivered: the
//!   call's raw text knows where its End came, [`Raw::delivered`](crate::calls::Raw::delivered)).
//! - **A string JSON forbids fails at its byte** (a raw control character, a lone
//!   surrogate escape): [`JsonScanner`](crate::scan::json::JsonScanner) rejects it there,
//!   the valid prefix has streamed, the error carries the model's bytes of the call.
//! - **Literal markers in prose stream on.** Held-back text is released the moment the
//!   bytes after a marker cannot begin a call body ([`released`]): `Use a literal
//!   <tool_call> tag` is text as it arrives.
//! - **Text is the model's bytes.** Whitespace before a call marker or a dropped token
//!   is text ([`reasoning`](super::reasoning)).
//!
//! Kept by `json` (every table), `xml` (every dialect), `sections` (`deepseek`, `kimi-k2`:
//! between JSON tokens and in a broken call's text), `gemma` (between arguments, literal
//! `<|tool_call>`), `harmony` (`<|start|>` / `<|channel|>` in a call's body), the
//! pythonic engine (an opening token after a list; a repeated keyword refused by
//! [`PyArgs`](crate::scan::pythonic::PyArgs)), `llama-json` (undefined and repeated
//! members) and `auto` (a JSON call array is the call list's); the text stage keeps the
//! whitespace rule for all of them.
//!
//! A special token inside a string is found without a matcher in front of the argument
//! bytes (that cost 12-18 % of the argument hot loop, measured): each string scan stops
//! at the tokens' first byte as one more stop byte (`<`, or `[` for `mistral`'s
//! `[TOOL_CALLS]`: [`JsonScanner::feed_stop`](crate::scan::json::JsonScanner::feed_stop),
//! [`GemmaArgs`](crate::scan::gemma::GemmaArgs), [`PyArgs`](crate::scan::pythonic::PyArgs)),
//! and [`InString`] (or the pythonic engine's held bytes) matches the tokens only there;
//! a byte that begins none is handed back to the scan as content. Which tokens: a JSON
//! table's openers written `<|..|>` / `<｜..｜>`
//! ([`is_special`](crate::text::json::is_special)), the section engines' call-begin
//! token, `mistral` v11's `[TOOL_CALLS]`, Gemma's string, open and close tokens, the
//! pythonic frames' opening tokens when they are `<|..|>` tokens.

use crate::calls::{Calls, Slot};
use crate::event::{ErrorKind, EventSink};
use crate::scan::marker::{Expect, Expected, MarkerSet};
use crate::text::kit::call::{Forming, Raw, report};
use crate::text::kit::reasoning::TextStage;

/// Ends the call in `slot` (or the call text with no Start yet) because the syntax's
/// opener `marker` began inside it: a `truncated` error carrying the call's raw text up
/// to the marker (which is not in it).
pub(crate) fn interrupted(
    calls: &mut Calls,
    slot: Option<Slot>,
    marker: &str,
    raw: &mut Raw,
    out: &mut dyn EventSink,
) {
    let what = format!("a new call ({marker}) began inside this one");
    report(calls, slot, ErrorKind::Truncated, &what, raw, out);
}

/// [`interrupted`] for a call that owns its raw text ([`Calls::open_raw`]; `raw` holds
/// it when the table does not).
pub(crate) fn interrupted_own(
    calls: &mut Calls,
    slot: Option<Slot>,
    marker: &str,
    raw: &mut Forming,
    out: &mut dyn EventSink,
) {
    let what = format!("a new call ({marker}) began inside this one");
    calls.report(slot, ErrorKind::Truncated, &what, raw, out);
}

/// A marker and the whitespace after it turned out not to open a call (the next byte
/// cannot begin a call body): they are text, emitted now by the text stage `text` (which
/// goes on after them).
pub(crate) fn released(raw: &mut Raw, text: &mut TextStage, out: &mut dyn EventSink) {
    let (s, _) = raw.take();
    text.emit(&s, out);
}

/// [`released`] for a scanner whose call text is a [`Forming`] (no call opened).
pub(crate) fn released_own(
    calls: &mut Calls,
    raw: &mut Forming,
    text: &mut TextStage,
    out: &mut dyn EventSink,
) {
    let (s, _) = calls.raw_or(None, raw).take();
    text.emit(&s, out);
}

/// The argument names a call has had, to refuse a repeated one (in [`scan`](crate::scan),
/// where the pythonic transducer uses it too).
pub(crate) use crate::scan::members::Members;

/// A syntax's special-token openers looked for where an argument string stopped at
/// their first byte (the string scans stop there as at `"`, [`JsonScanner::feed_stop`]
/// (crate::scan::json::JsonScanner::feed_stop)): the token is matched only at that
/// byte, across pieces, so nothing is put in front of the other argument bytes.
#[derive(Debug)]
pub(crate) struct InString {
    tokens: MarkerSet,
    expect: Expect,
    /// What the last [`Look::Content`] gave back (a buffer kept between calls: a stop
    /// byte in content is common, an allocation for each would not do).
    given: String,
}

/// What [`InString::look`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Look {
    /// All of the input is a prefix of a token: more is needed.
    NeedMore,
    /// Token `index` (its bytes the first `consumed` of the input): it ends the call.
    Token { index: usize, consumed: usize },
    /// No token: the bytes matched ([`InString::take_given`]: they start with the stop
    /// byte) are string content to read again (the first one past the stop), then the
    /// input from `consumed`.
    Content { consumed: usize },
}

impl InString {
    /// Looks for `tokens`, which all begin with the same (stop) byte.
    pub(crate) fn new<I, S>(tokens: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<std::borrow::Cow<'static, str>>,
    {
        InString {
            tokens: MarkerSet::new(tokens),
            expect: Expect::default(),
            given: String::new(),
        }
    }

    /// Token `index`.
    pub(crate) fn token(&self, index: usize) -> &str {
        self.tokens.get(index)
    }

    /// Whether `s`, which starts at a stop byte, shows at once that no token begins
    /// there (its second byte continues none): the hot case of a `<` or `[` in string
    /// content, handed back without holding anything.
    #[inline]
    pub(crate) fn content_at(&self, s: &str) -> bool {
        let Some(&second) = s.as_bytes().get(1) else {
            return false;
        };
        (0..self.tokens.len()).all(|k| self.tokens.get(k).as_bytes().get(1) != Some(&second))
    }

    /// Starts over (at a stop byte).
    pub(crate) fn reset(&mut self) {
        self.expect.reset();
    }

    /// A piece ended on the stop byte `stop` (the byte after it not seen yet): holds it,
    /// as [`look`](Self::look) holds a token's prefix (every token is longer than its
    /// first byte).
    #[inline]
    pub(crate) fn hold(&mut self, stop: crate::scan::find::StopByte) {
        self.reset();
        let _ = self.look(stop.as_str());
    }

    /// Whether only the stop byte `stop` is held and `next`, the byte after it, continues
    /// no token: then it is string content and nothing is held any more (what `look`
    /// finds there, without the token match).
    #[inline]
    pub(crate) fn release_content(
        &mut self,
        stop: crate::scan::find::StopByte,
        next: Option<&u8>,
    ) -> bool {
        if self.held() != 1 || stop.may_begin(next) {
            return false;
        }
        self.reset();
        true
    }

    /// Bytes held (a prefix of a token).
    pub(crate) fn held(&self) -> usize {
        self.expect.matched()
    }

    /// Matches the input, which starts at the stop byte or continues a held prefix.
    pub(crate) fn look(&mut self, s: &str) -> Look {
        match self.expect.feed(&self.tokens, s) {
            Expected::NeedMore => Look::NeedMore,
            Expected::Matched { index, consumed } => Look::Token { index, consumed },
            Expected::Mismatch {
                which,
                len,
                consumed,
            } => {
                self.given.clear();
                let text = self.tokens.get(which).get(..len).unwrap_or_default();
                self.given.push_str(text);
                Look::Content { consumed }
            }
        }
    }

    /// After [`Look::Content`]: the bytes given back (hand the buffer back with
    /// [`put_back`](Self::put_back) once read).
    pub(crate) fn take_given(&mut self) -> String {
        std::mem::take(&mut self.given)
    }

    /// The buffer of [`take_given`](Self::take_given), kept for the next time.
    pub(crate) fn put_back(&mut self, mut given: String) {
        given.clear();
        if self.given.capacity() == 0 {
            self.given = given;
        }
    }

    /// End of input: the held prefix was string content.
    pub(crate) fn finish(&mut self) -> String {
        let given = self.expect.text(&self.tokens).to_owned();
        self.expect.reset();
        given
    }
}
