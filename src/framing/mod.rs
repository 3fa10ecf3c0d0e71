//! Framing: bytes in, payload messages out. Every framer is sans-IO and pull-style:
//! `while let Some(item) = framer.feed(&mut rest) { .. }` consumes the input from the
//! front until one item is ready; `finish` reports what is left at end of input.
//!
//! Each framer hands out its own item type, with everything its wire format says (the
//! fuzz targets compare them field by field); every item converts into the one
//! [`Frame`] the parser reads, so the parser has one loop for all framings.
//!
//! **Not a stable API**: public (hidden from the docs) only so that the fuzz targets and
//! the benchmarks can drive the framers directly. Use [`Parser`](crate::Parser) with a
//! [`Framing`](crate::Framing).

mod auto;
pub mod eventstream;
pub mod json_array;
mod line;
pub mod ndjson;
pub mod sse;

use std::borrow::Cow;

use crate::format::Framing;
use auto::Detect;
use eventstream::{EventStreamFramer, EventStreamItem};
use json_array::{JsonArrayFramer, JsonArrayItem};
use ndjson::{NdjsonFramer, NdjsonItem};
use sse::{SseFramer, SseItem};

/// What every framer hands the parser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame<'a> {
    /// One payload message: an SSE event, an NDJSON line, a JSON-array element, an
    /// event-stream message.
    Message {
        /// The message's name: the SSE `event:` field; the event stream's `:event-type`,
        /// or `exception:<type>` / `error:<code>` for its exception and error messages;
        /// `""` when the framing has none.
        event: &'a str,
        /// The payload.
        data: &'a [u8],
    },
    /// A unit longer than the framer's limit: skipped, its first bytes kept.
    TooLong {
        /// What was too long (`"SSE line"`, `"NDJSON line"`, ...).
        unit: &'static str,
        /// The unit's first bytes (the limit's worth).
        prefix: &'a [u8],
        /// The unit's whole length.
        len: usize,
    },
    /// Bytes that do not follow the framing.
    Malformed {
        /// What is wrong.
        message: Cow<'static, str>,
        /// The bytes concerned.
        raw: &'a [u8],
    },
    /// A payload that is not valid UTF-8 (as received); the framer hands out the
    /// payload next with each invalid sequence replaced by U+FFFD. The SSE framer checks
    /// its event data itself; for the other framings (NDJSON lines, JSON-array elements
    /// and values, event-stream payloads) the parser checks each payload and applies the
    /// same rule, so an invalid byte is an `invalid_utf8` error with the payload's bytes,
    /// never a dropped payload.
    InvalidUtf8 {
        /// What the payload was (`"SSE event data"`).
        unit: &'static str,
        /// The payload as received.
        raw: &'a [u8],
    },
    /// Raw bytes, as they came (the text framing).
    Text(&'a [u8]),
}

impl<'a> From<SseItem<'a>> for Frame<'a> {
    #[inline]
    fn from(item: SseItem<'a>) -> Self {
        match item {
            SseItem::Event { event, data } => Frame::Message { event, data },
            SseItem::LineTooLong { prefix, len } => Frame::TooLong {
                unit: "SSE line",
                prefix,
                len,
            },
            SseItem::DataTooLong { prefix, len } => Frame::TooLong {
                unit: "SSE event data",
                prefix,
                len,
            },
            SseItem::InvalidUtf8 { data } => Frame::InvalidUtf8 {
                unit: "SSE event data",
                raw: data,
            },
        }
    }
}

impl<'a> From<NdjsonItem<'a>> for Frame<'a> {
    #[inline]
    fn from(item: NdjsonItem<'a>) -> Self {
        match item {
            NdjsonItem::Line(data) => Frame::Message { event: "", data },
            NdjsonItem::LineTooLong { prefix, len } => Frame::TooLong {
                unit: "NDJSON line",
                prefix,
                len,
            },
        }
    }
}

impl<'a> From<JsonArrayItem<'a>> for Frame<'a> {
    #[inline]
    fn from(item: JsonArrayItem<'a>) -> Self {
        match item {
            JsonArrayItem::Element(data) => Frame::Message { event: "", data },
            JsonArrayItem::Error { message, raw } => Frame::Malformed {
                message: Cow::Borrowed(message),
                raw,
            },
        }
    }
}

impl<'a> EventStreamItem<'a> {
    /// The frame of this item. An exception or error message is named
    /// `exception:<type>` / `error:<code>`, written into `name` (reused: no allocation
    /// per message once it has grown).
    fn into_frame(self, name: &'a mut String) -> Frame<'a> {
        match self {
            EventStreamItem::Message {
                event_type,
                message_type,
                exception_type,
                error_code,
                payload,
            } => {
                let detail = match message_type {
                    "exception" => exception_type,
                    "error" => error_code,
                    _ => {
                        return Frame::Message {
                            event: event_type,
                            data: payload,
                        };
                    }
                };
                name.clear();
                name.push_str(message_type);
                name.push(':');
                name.push_str(detail);
                Frame::Message {
                    event: name.as_str(),
                    data: payload,
                }
            }
            EventStreamItem::Error { kind, message, raw } => Frame::Malformed {
                message: Cow::Owned(format!("AWS event stream ({}): {message}", kind.name())),
                raw,
            },
        }
    }
}

/// The framer of one [`Framing`], handing out [`Frame`]s.
#[derive(Debug)]
pub(crate) enum Framer {
    Sse(SseFramer),
    Ndjson(NdjsonFramer),
    JsonArray(JsonArrayFramer),
    /// JSON values one after another ([`JsonArrayFramer::values`]).
    Json(JsonArrayFramer),
    EventStream {
        framer: EventStreamFramer,
        /// The name of the last exception or error message.
        name: String,
    },
    /// The input as it comes, one [`Frame::Text`] per feed.
    Text,
    /// Not chosen yet: [`detect`](Framer::detect) picks one from the first significant
    /// byte.
    Auto {
        detect: Detect,
        /// The limit for the framer it picks.
        max: usize,
    },
}

impl Framer {
    /// The framer of `framing`; `max` bounds its unit (line, event data, element,
    /// message) in bytes.
    pub(crate) fn new(framing: Framing, max: usize) -> Self {
        match framing {
            Framing::Sse => Framer::Sse(SseFramer::with_max_line(max)),
            Framing::Ndjson => Framer::Ndjson(NdjsonFramer::with_max_line(max)),
            Framing::JsonArray => Framer::JsonArray(JsonArrayFramer::with_max_element(max)),
            Framing::Json => Framer::Json(JsonArrayFramer::values(max)),
            Framing::EventStream => Framer::EventStream {
                framer: EventStreamFramer::with_max_message(max),
                name: String::new(),
            },
            Framing::Text => Framer::Text,
            Framing::Auto => Framer::Auto {
                detect: Detect::default(),
                max,
            },
        }
    }

    /// The framing in use (`Auto` until [`detect`](Framer::detect) has picked one).
    pub(crate) fn framing(&self) -> Framing {
        match self {
            Framer::Sse(_) => Framing::Sse,
            Framer::Ndjson(_) => Framing::Ndjson,
            Framer::JsonArray(_) => Framing::JsonArray,
            Framer::Json(_) => Framing::Json,
            Framer::EventStream { .. } => Framing::EventStream,
            Framer::Text => Framing::Text,
            Framer::Auto { .. } => Framing::Auto,
        }
    }

    /// What a payload of this framing is called when the parser, not the framer, checks
    /// that it is UTF-8 ([`Frame::InvalidUtf8`]); `None` for SSE (its framer checks),
    /// the text framing (raw bytes; the text scanners read invalid bytes as U+FFFD) and
    /// `auto` while undecided.
    pub(crate) fn unchecked_unit(&self) -> Option<&'static str> {
        match self {
            Framer::Ndjson(_) => Some("NDJSON line"),
            Framer::JsonArray(_) => Some("JSON array element"),
            Framer::Json(_) => Some("JSON value"),
            Framer::EventStream { .. } => Some("event-stream payload"),
            Framer::Sse(_) | Framer::Text | Framer::Auto { .. } => None,
        }
    }

    /// Bytes held: a partial line, event, element or message, or the bytes `auto` holds.
    pub(crate) fn buffered(&self) -> usize {
        match self {
            Framer::Sse(f) => f.buffered(),
            Framer::Ndjson(f) => f.buffered(),
            Framer::JsonArray(f) | Framer::Json(f) => f.buffered(),
            Framer::EventStream { framer, .. } => framer.buffered(),
            Framer::Text => 0,
            Framer::Auto { detect, .. } => detect.held.len(),
        }
    }

    /// The `auto` framing: takes bytes from the front of `*input` until the first
    /// significant byte picks the framing (`at_end`: the input has ended, SSE, the
    /// default), then becomes the picked framer and returns the bytes it held, to be
    /// fed before the rest of `*input`. `None` while undecided (all of `*input` held or
    /// skipped) and for every other framing.
    #[inline]
    pub(crate) fn detect(&mut self, input: &mut &[u8], at_end: bool) -> Option<Vec<u8>> {
        match self {
            Framer::Auto { .. } => self.pick(input, at_end),
            _ => None,
        }
    }

    /// [`detect`](Framer::detect) for `Auto`.
    fn pick(&mut self, input: &mut &[u8], at_end: bool) -> Option<Vec<u8>> {
        let Framer::Auto { detect, max } = self else {
            return None;
        };
        let framing = match detect.detect(input) {
            Some((framing, at)) => {
                // invariant: `at` is the index of a byte of `input`.
                #[allow(clippy::indexing_slicing)]
                let rest = &input[at..];
                *input = rest;
                framing
            }
            None if at_end => Framing::Sse,
            None => {
                *input = &[];
                return None;
            }
        };
        let held = std::mem::take(&mut detect.held);
        *self = Framer::new(framing, *max);
        Some(held)
    }

    /// The next frame: from the front of `*input` (advanced past what it took), or with
    /// `at_end` (the input has ended, `*input` is empty) what the framer still holds.
    /// `None` once `*input` is used up, or at the end once nothing is left.
    #[inline(always)]
    pub(crate) fn next<'s, 'i: 's>(
        &'s mut self,
        input: &mut &'i [u8],
        at_end: bool,
    ) -> Option<Frame<'s>> {
        match self {
            Framer::Sse(f) => if at_end { f.finish() } else { f.feed(input) }.map(Frame::from),
            Framer::Ndjson(f) => if at_end { f.finish() } else { f.feed(input) }.map(Frame::from),
            Framer::JsonArray(f) | Framer::Json(f) => {
                if at_end { f.finish() } else { f.feed(input) }.map(Frame::from)
            }
            Framer::EventStream { framer, name } => {
                let item = if at_end {
                    framer.finish()
                } else {
                    framer.feed(input)
                };
                item.map(|item| item.into_frame(name))
            }
            Framer::Text => {
                let text = std::mem::take(input);
                (!text.is_empty()).then_some(Frame::Text(text))
            }
            // Undecided: `detect` held or skipped the bytes.
            Framer::Auto { .. } => None,
        }
    }
}

/// Drivers shared by the framers' tests.
#[cfg(test)]
pub(crate) mod testing {
    /// A framer as its tests drive it, its items owned.
    pub(crate) trait Pull {
        /// An owned copy of the framer's item.
        type Owned;
        /// The next item from the front of `*input` (see the framers' `feed`).
        fn feed_owned(&mut self, input: &mut &[u8]) -> Option<Self::Owned>;
        /// What the framer still holds at the end of input (see the framers' `finish`).
        fn finish_owned(&mut self) -> Option<Self::Owned>;
    }

    /// Feeds `chunks` in order (each one used up before the next), then finishes.
    pub(crate) fn run_with<F: Pull>(framer: &mut F, chunks: &[&[u8]]) -> Vec<F::Owned> {
        let mut out = Vec::new();
        for chunk in chunks {
            let mut rest = *chunk;
            while let Some(item) = framer.feed_owned(&mut rest) {
                out.push(item);
            }
            assert!(
                rest.is_empty(),
                "feed returned None before the input ran out"
            );
        }
        while let Some(item) = framer.finish_owned() {
            out.push(item);
        }
        out
    }

    /// `input` in chunks of one byte.
    pub(crate) fn bytewise(input: &[u8]) -> Vec<&[u8]> {
        input.chunks(1).collect()
    }

    /// The items `run` makes of `input` are the same whole, byte by byte, and split in
    /// two at every point; returns them.
    pub(crate) fn check_splits<T: PartialEq + std::fmt::Debug>(
        input: &[u8],
        run: impl Fn(&[&[u8]]) -> Vec<T>,
    ) -> Vec<T> {
        let whole = run(&[input]);
        assert_eq!(run(&bytewise(input)), whole, "byte by byte");
        for i in 0..=input.len() {
            let (a, b) = input.split_at(i);
            assert_eq!(run(&[a, b]), whole, "split at {i}");
        }
        whole
    }

    /// `input` cut at the points `cuts` (each taken modulo the length plus one).
    pub(crate) fn split_at_points<'a>(input: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for c in cuts {
            chunks.push(input.get(start..c).unwrap_or_default());
            start = c;
        }
        chunks.push(input.get(start..).unwrap_or_default());
        chunks
    }
}
