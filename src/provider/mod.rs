//! Dialect decoders: one per wire format. Each consumes payload messages (an SSE
//! event, an NDJSON line, an array element, an event-stream message) and keeps the
//! per-call state.

use crate::calls::{Calls, Slot};
use crate::event::{ErrorKind, Event, ResponseMeta};
use crate::event::{EventRef, EventSink};
use crate::event::{FinishReason, Usage};
use crate::text::TextScanner;
use serde::Deserialize;
use serde_json::value::RawValue;

pub(crate) mod anthropic;
mod json;
pub(crate) use json::{
    ObjectOr, OneOrMany, Raw, RawStr, Reader, Seen, Seq, Str, from_payload, json_string,
    read_fields, read_struct, scan_payload,
};
pub(crate) mod bedrock;
pub(crate) mod cohere;
pub(crate) mod gemini;
pub(crate) mod llama_stack;
pub(crate) mod ollama;
pub(crate) mod openai_chat;
pub(crate) mod openai_responses;

/// Where a decoder's events go, with the response's call table and the optional text
/// scanner that visible text is routed through (`--content`).
pub(crate) struct Sink<'a> {
    pub(crate) out: &'a mut dyn EventSink,
    pub(crate) calls: &'a mut Calls,
    pub(crate) content: Option<&'a mut TextScanner>,
    /// The response's id, model and creation time, as the decoder finds them.
    pub(crate) meta: &'a mut ResponseMeta,
    /// At `finish`: the stream made an event before its end (else, with no response id,
    /// model or time either, there was no stream to cut off: see [`cut_off`](Sink::cut_off)).
    pub(crate) started: bool,
}

impl Sink<'_> {
    /// Visible text (empty deltas are dropped). Routed through the content scanner
    /// when one is configured, so calls the server leaked into text are found.
    pub(crate) fn text(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        match self.content.as_deref_mut() {
            Some(scanner) => {
                self.calls.in_text = true;
                scanner.feed(s.as_bytes(), self.calls, self.out);
                self.calls.in_text = false;
            }
            None => self.out.event(EventRef::Text { delta: s }),
        }
    }

    /// Ends the visible text: the content scanner releases what it holds and reports
    /// an unfinished call. Decoders call this before their `Finish` event.
    pub(crate) fn end_text(&mut self) {
        if let Some(scanner) = self.content.as_deref_mut() {
            self.calls.in_text = true;
            scanner.finish(self.calls, self.out);
            self.calls.in_text = false;
        }
    }

    /// Reasoning text (empty deltas are dropped).
    pub(crate) fn reasoning(&mut self, s: &str) {
        if !s.is_empty() {
            self.out.event(EventRef::Reasoning { delta: s });
        }
    }

    /// The error a payload reports: its `error` object (the provider's message), else,
    /// for an SSE `error` event, a generic one. Whether there was one (a provider error
    /// ends the stream as its terminal event would: see [`cut_off`](Sink::cut_off)).
    pub(crate) fn payload_error(&mut self, event: &str, error: Option<&str>, data: &[u8]) -> bool {
        if let Some(err) = error {
            self.provider_error(err, data);
        } else if event == "error" {
            self.error(
                ErrorKind::Provider,
                "the server sent an error event".into(),
                data,
            );
        } else {
            return false;
        }
        true
    }

    /// The error object `error` (JSON text) a provider sent: an error of kind `provider`
    /// with its message (see [`provider_error_message`]), carrying the payload `data`.
    pub(crate) fn provider_error(&mut self, error: &str, data: &[u8]) {
        self.error(ErrorKind::Provider, provider_error_message(error), data);
    }

    /// Opens a call with the provider's id and name, as far as it sent them (see
    /// [`identify`](Sink::identify)); `None` past the call limit (reported once).
    pub(crate) fn open_call(&mut self, id: Option<&str>, name: Option<&str>) -> Option<Slot> {
        let slot = self.calls.open(self.out)?;
        self.identify(slot, id, name);
        Some(slot)
    }

    /// Gives call `slot` the provider's id and name, those of them it sent: the name,
    /// harmony control tokens cut off (see [`clean_name`]), emits its `ToolCallStart`.
    pub(crate) fn identify(&mut self, slot: Slot, id: Option<&str>, name: Option<&str>) {
        if let Some(id) = id {
            self.calls.set_id(slot, id);
        }
        if let Some(name) = name {
            self.calls.set_name(slot, clean_name(name), self.out);
        }
    }

    /// An OpenAI-style [`ToolCall`] object for call `slot`: its id, name and arguments
    /// (see [`arguments`](Sink::arguments); `scratch` decodes them).
    pub(crate) fn tool_call(&mut self, slot: Slot, call: &ToolCall<'_>, scratch: &mut String) {
        let function = call.function.as_ref();
        let name = function.and_then(|f| f.name.as_deref());
        self.identify(slot, call.id.as_deref(), name);
        if let Some(a) = function.and_then(|f| f.arguments) {
            self.arguments(slot, a.0, scratch);
        }
    }

    /// A call's argument text as the provider sent it (`raw`, JSON text): a JSON string's
    /// contents (the usual case; decoded into `scratch`, reused), a JSON value as sent
    /// (arguments sent as an object), nothing for `null`. A string that cannot be decoded
    /// (a lone surrogate escape) is passed on as sent, so the call reports it.
    pub(crate) fn arguments(&mut self, slot: Slot, raw: &str, scratch: &mut String) {
        if raw.starts_with('"') {
            let text = json_string(raw, scratch).unwrap_or(raw);
            self.calls.args(slot, text, self.out);
        } else if raw != "null" {
            self.calls.args(slot, raw, self.out);
        }
    }

    /// Ends the response: releases the visible text and closes every call.
    pub(crate) fn end(&mut self) {
        self.end_text();
        self.calls.close_all(self.out);
    }

    /// The response's one [`Event::Finish`] (none if `finished` says it was sent): the
    /// provider's `reason` normalised (see [`normalise_reason`]), and `usage`.
    pub(crate) fn finish(
        &mut self,
        finished: &mut bool,
        reason: Option<&str>,
        usage: Option<Usage>,
    ) {
        if std::mem::replace(finished, true) {
            return;
        }
        let mut reason = normalise_reason(reason, self.calls.any_started());
        // With declared tools, a response whose every call was rejected holds no call.
        if reason == Some(FinishReason::ToolCalls) && self.calls.none_survived_declared() {
            reason = Some(FinishReason::Stop);
        }
        self.out.push(Event::Finish { reason, usage });
    }

    /// Ends a stream whose terminal event never came (`missing` names it, e.g.
    /// `` `message_stop` ``): `close` closes what the decoder still holds (its own end of
    /// input, without a `Finish`: a cut stream has no ending); unless that reported a call
    /// `truncated` (one error per open call, as for any call cut off), one `truncated`
    /// error without an index follows, its message naming the missing event, its `raw`
    /// empty: everything that arrived was already emitted as events (a partial last
    /// payload is reported by its own framing or JSON error). An input that made no event
    /// and named no response id, model or time (empty, blank, or not of the format: the
    /// parser's `unrecognized_input` error covers it) is no stream, and gets no error here.
    pub(crate) fn cut_off(&mut self, missing: &str, close: impl FnOnce(&mut Sink<'_>)) {
        let mut watch = Watch {
            inner: &mut *self.out,
            truncated: false,
            events: 0,
        };
        let mut sink = Sink {
            out: &mut watch,
            calls: &mut *self.calls,
            content: self.content.as_deref_mut(),
            meta: &mut *self.meta,
            started: self.started,
        };
        close(&mut sink);
        let m = &*self.meta;
        let recognised = m.id.is_some() || m.model.is_some() || m.created.is_some();
        if !watch.truncated && (self.started || recognised || watch.events > 0) {
            self.out.push(Event::Error { path: None,
                kind: ErrorKind::Truncated,
                message: format!(
                    "the stream ended without its terminal event ({missing}): the response is incomplete"
                ),
                index: None,
                raw: String::new(),
            });
        }
    }

    /// An error not tied to a call, carrying the payload.
    pub(crate) fn error(&mut self, kind: ErrorKind, message: String, raw: &[u8]) {
        self.out.push(Event::Error {
            path: None,
            kind,
            message,
            index: None,
            raw: String::from_utf8_lossy(raw).into_owned(),
        });
    }
}

/// An [`EventSink`] that passes events on and notes whether a `truncated` error went by.
struct Watch<'a> {
    inner: &'a mut dyn EventSink,
    truncated: bool,
    /// Events passed on.
    events: usize,
}

impl EventSink for Watch<'_> {
    fn event(&mut self, event: EventRef<'_>) {
        self.truncated |= matches!(
            event,
            EventRef::Error {
                kind: ErrorKind::Truncated,
                ..
            }
        );
        self.events += 1;
        self.inner.event(event);
    }

    fn push(&mut self, event: Event) {
        self.truncated |= matches!(
            event,
            Event::Error {
                kind: ErrorKind::Truncated,
                ..
            }
        );
        self.events += 1;
        self.inner.push(event);
    }
}

/// The response's one [`Event::Finish`] as a decoder gathers it: the provider's stop
/// reason and usage as they arrive, and whether the event was sent.
#[derive(Debug, Default)]
pub(crate) struct Ending {
    /// The provider's stop reason (normalised when sent).
    pub(crate) reason: Option<String>,
    /// The provider's token counts.
    pub(crate) usage: Option<Usage>,
    /// The event was sent.
    sent: bool,
}

impl Ending {
    /// Whether a stop reason or usage has arrived.
    pub(crate) fn known(&self) -> bool {
        self.reason.is_some() || self.usage.is_some()
    }

    /// Whether the event was sent.
    pub(crate) fn sent(&self) -> bool {
        self.sent
    }

    /// Sends the event, once (see [`Sink::finish`]).
    pub(crate) fn send(&mut self, sink: &mut Sink<'_>) {
        sink.finish(&mut self.sent, self.reason.as_deref(), self.usage.take());
    }
}

/// What a decoder's message holds, once read.
pub(crate) enum Incoming<T> {
    /// The dialect's payload.
    Payload(T),
    /// `[DONE]`, the end sentinel of OpenAI-style streams (proxies send it in other
    /// dialects too).
    Done,
    /// Nothing to decode: a blank payload, or one reported as not the dialect's.
    Skip,
}

/// A message's payload with the whitespace around it trimmed, unless it is blank or
/// the `[DONE]` sentinel.
#[inline]
fn trimmed(data: &[u8]) -> Incoming<&[u8]> {
    match data.trim_ascii() {
        b"" => Incoming::Skip,
        b"[DONE]" => Incoming::Done,
        trimmed => Incoming::Payload(trimmed),
    }
}

/// A message of a dialect whose payload is one JSON envelope `T`: blank payloads and
/// `[DONE]` told apart, the rest read by [`parse_payload`] (`what`, `read`: see there).
#[inline]
pub(crate) fn read_message<'a, T: Deserialize<'a>>(
    event: &str,
    what: &str,
    data: &'a [u8],
    read: Option<fn(&mut Reader<'a>) -> Option<T>>,
    sink: &mut Sink<'_>,
) -> Incoming<T> {
    match trimmed(data) {
        Incoming::Payload(trimmed) => match parse_payload(event, what, trimmed, read, data, sink) {
            Some(v) => Incoming::Payload(v),
            None => Incoming::Skip,
        },
        Incoming::Done => Incoming::Done,
        Incoming::Skip => Incoming::Skip,
    }
}

/// The payload read as the dialect's envelope `T` (by its field scan `read` where it has
/// one, see [`scan_payload`], else by serde_json); else (`None`) the error is reported:
/// of kind `provider` for an SSE `error` event, else `invalid_json`, its message
/// `"{what}: {e}"` (`what` says what the payload should have been: `payload is not a
/// chat.completion.chunk`).
pub(crate) fn parse_payload<'a, T: Deserialize<'a>>(
    event: &str,
    what: &str,
    trimmed: &'a [u8],
    read: Option<fn(&mut Reader<'a>) -> Option<T>>,
    data: &[u8],
    sink: &mut Sink<'_>,
) -> Option<T> {
    let parsed = match read {
        Some(read) => scan_payload(trimmed, read),
        None => from_payload(trimmed),
    };
    match parsed {
        Ok(v) => Some(v),
        Err(e) => {
            not_payload(event, what, &e, data, sink);
            None
        }
    }
}

/// A payload that is not JSON of the dialect's envelope: an error of kind `provider` for
/// an SSE `error` event, else `invalid_json`, its message `"{what}: {e}"` (`what` says
/// what the payload should have been: `payload is not a chat.completion.chunk`).
fn not_payload(event: &str, what: &str, e: &serde_json::Error, data: &[u8], sink: &mut Sink<'_>) {
    let kind = if event == "error" {
        ErrorKind::Provider
    } else {
        ErrorKind::InvalidJson
    };
    sink.error(kind, format!("{what}: {e}"), data);
}

/// How a dialect whose events carry their `type` in the payload names them, for
/// [`bad_payload`].
pub(crate) struct Envelope {
    /// Event types whose payload must fit the dialect's payload struct.
    pub(crate) decoded: &'static [&'static str],
    /// The event's name in the error for a decoded type of an unexpected shape
    /// (`Anthropic stream event`).
    pub(crate) event: &'static str,
    /// The error for a payload that is not JSON of an object
    /// (`payload is not an Anthropic stream event`).
    pub(crate) not: &'static str,
    /// The message for an `error` event of an unexpected shape, from the trimmed
    /// payload and the parse error.
    pub(crate) error_message: fn(&[u8], &serde_json::Error) -> String,
}

impl Envelope {
    /// A message of the dialect: its payload read by the field scan `read` (see
    /// [`scan_payload`]); a payload that does not fit is reported by [`bad_payload`],
    /// blank payloads and `[DONE]` are skipped (`None`).
    #[inline]
    pub(crate) fn read<'a, T: Deserialize<'a>>(
        &self,
        event: &str,
        data: &'a [u8],
        read: fn(&mut Reader<'a>) -> Option<T>,
        sink: &mut Sink<'_>,
    ) -> Option<T> {
        let Incoming::Payload(trimmed) = trimmed(data) else {
            return None;
        };
        match scan_payload(trimmed, read) {
            Ok(p) => Some(p),
            Err(e) => {
                bad_payload(self, event, data, trimmed, &e, sink);
                None
            }
        }
    }

    /// A payload without a `type`: the provider error of its `error` object (its message
    /// by `error`), else an unexpected payload.
    pub(crate) fn untyped(
        &self,
        error: Option<Raw<'_>>,
        message: fn(&str) -> String,
        data: &[u8],
        sink: &mut Sink<'_>,
    ) {
        match error {
            Some(err) => sink.error(ErrorKind::Provider, message(err.get()), data),
            None => sink.error(
                ErrorKind::UnexpectedPayload,
                format!("{} without a `type`", self.event),
                data,
            ),
        }
    }
}

/// A payload that did not fit the dialect's payload struct (`e`): an error unless it is
/// valid JSON of an event type the dialect does not decode (a newer event, skipped).
fn bad_payload(
    envelope: &Envelope,
    event: &str,
    data: &[u8],
    trimmed: &[u8],
    e: &serde_json::Error,
    sink: &mut Sink<'_>,
) {
    #[derive(Default, Deserialize)]
    #[serde(default, bound(deserialize = "'de: 'a"))]
    struct TypeOnly<'a> {
        #[serde(rename = "type")]
        kind: Option<Str<'a>>,
    }
    match from_payload::<TypeOnly<'_>>(trimmed) {
        Ok(TypeOnly { kind: Some(k) }) if *k == *"error" || event == "error" => sink.error(
            ErrorKind::Provider,
            (envelope.error_message)(trimmed, e),
            data,
        ),
        Ok(TypeOnly { kind: Some(k) }) if !envelope.decoded.contains(&k.as_ref()) => {}
        Ok(_) => sink.error(
            ErrorKind::UnexpectedPayload,
            format!("{} of an unexpected shape: {e}", envelope.event),
            data,
        ),
        Err(_) => not_payload(event, envelope.not, e, data, sink),
    }
}

/// The JSON text of an optional raw value.
pub(crate) fn raw(v: Option<Raw<'_>>) -> Option<&str> {
    v.map(|r| r.0)
}

/// A tool call object as OpenAI-style APIs send it, `{"id", "function": {"name",
/// "arguments"}}` (Cohere, Ollama; an OpenAI Chat delta adds its `index`).
#[derive(Debug, PartialEq, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
pub(crate) struct ToolCall<'a> {
    pub(crate) id: Option<Str<'a>>,
    pub(crate) function: Option<Function<'a>>,
}

/// A call's `function`: its name and its arguments (a JSON string of JSON text, or an
/// object), either of them absent from a delta.
#[derive(Debug, PartialEq, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
pub(crate) struct Function<'a> {
    pub(crate) name: Option<Str<'a>>,
    pub(crate) arguments: Option<Raw<'a>>,
}

read_struct!(r, ToolCall {
    b"id" => id: r.opt_str()?,
    b"function" => function: r.opt(Function::read)?,
});

read_struct!(r, Function {
    b"name" => name: r.opt_str()?,
    b"arguments" => arguments: r.opt_raw()?,
});

/// A provider's stop reason, normalised; `tool_calls` whenever a call was made and the
/// provider said `stop` or nothing.
pub(crate) fn normalise_reason(reason: Option<&str>, had_calls: bool) -> Option<FinishReason> {
    let r = reason.map(FinishReason::from_provider);
    match r {
        Some(FinishReason::Stop) | None if had_calls => Some(FinishReason::ToolCalls),
        r => r,
    }
}

/// Cuts harmony control tokens leaked into a tool name (`get_x<|channel|>commentary`).
pub(crate) fn clean_name(name: &str) -> &str {
    match name.find("<|") {
        Some(i) => name.get(..i).unwrap_or(name).trim(),
        None => name.trim(),
    }
}

/// The `message` of an error object, or its JSON text.
pub(crate) fn provider_error_message(raw: &str) -> String {
    #[derive(Default, Deserialize)]
    #[serde(default, bound(deserialize = "'de: 'a"))]
    struct E<'a> {
        message: Option<Str<'a>>,
        code: Option<&'a RawValue>,
    }
    match serde_json::from_str::<E<'_>>(raw) {
        Ok(E {
            message: Some(m),
            code,
        }) => match code {
            Some(c) => format!("{m} (code {})", c.get().trim_matches('"')),
            None => m.into_owned(),
        },
        _ => match serde_json::from_str::<String>(raw) {
            Ok(s) => s,
            Err(_) => raw.to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use crate::scan::json::escape_json_as_serde;

    #[test]
    fn escape_matches_serde() {
        for s in [
            "",
            "plain",
            "a\"b\\c\nd\te\u{1}f\u{1f}",
            "é😀\u{7f}",
            "\r\u{8}\u{c}",
        ] {
            let mut out = String::from("\"");
            escape_json_as_serde(s, &mut out);
            out.push('"');
            assert_eq!(
                serde_json::from_str::<String>(&out).ok().as_deref(),
                Some(s)
            );
        }
    }
}
