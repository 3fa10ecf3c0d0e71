//! Dialect decoders: one per wire format. Each consumes payload messages (an SSE
//! event, an NDJSON line, an array element, an event-stream message) and keeps the
//! per-call state.

use crate::calls::Calls;
use crate::event::{ErrorKind, Event};
use crate::text::TextScanner;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::marker::PhantomData;

pub(crate) mod openai_chat;

/// Where a decoder's events go, with the response's call table and the optional text
/// scanner that visible text is routed through (`--content`).
pub(crate) struct Sink<'a> {
    pub(crate) out: &'a mut Vec<Event>,
    pub(crate) calls: &'a mut Calls,
    pub(crate) content: Option<&'a mut TextScanner>,
}

impl Sink<'_> {
    /// Visible text (empty deltas are dropped). Routed through the content scanner
    /// when one is configured, so calls the server leaked into text are found.
    pub(crate) fn text(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        match self.content.as_deref_mut() {
            Some(scanner) => scanner.feed(s.as_bytes(), self.calls, self.out),
            None => self.out.push(Event::Text {
                delta: s.to_owned(),
            }),
        }
    }

    /// Ends the visible text: the content scanner releases what it holds and reports
    /// an unfinished call. Decoders call this before their `Finish` event.
    pub(crate) fn end_text(&mut self) {
        if let Some(scanner) = self.content.as_deref_mut() {
            scanner.finish(self.calls, self.out);
        }
    }

    /// Reasoning text (empty deltas are dropped).
    pub(crate) fn reasoning(&mut self, s: &str) {
        if !s.is_empty() {
            self.out.push(Event::Reasoning {
                delta: s.to_owned(),
            });
        }
    }

    /// An error not tied to a call, carrying the payload.
    pub(crate) fn error(&mut self, kind: ErrorKind, message: String, raw: &[u8]) {
        self.out.push(Event::Error {
            kind,
            message,
            index: None,
            raw: String::from_utf8_lossy(raw).into_owned(),
        });
    }
}

/// A JSON field that is usually an array but sometimes a single object.
pub(crate) struct OneOrMany<T>(pub(crate) Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array or an object")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(16));
                while let Some(x) = seq.next_element()? {
                    v.push(x);
                }
                Ok(OneOrMany(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let x = T::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(OneOrMany(vec![x]))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(OneOrMany(Vec::new()))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}
