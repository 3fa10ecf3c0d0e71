//! Streamed replies: each upstream chunk parsed, policed and written for the client as soon
//! as it arrives.

use super::live::LiveStream;
use super::observe::CallTally;
use super::policy::Policy;
use super::policy::{Verdict, refusal_text};
use super::request::RequestInfo;
use super::upstream::{Next, cut, next_chunk, reply_headers};
use super::{OnRefused, State};
use crate::emit::{AnthropicEmitter, OpenAiChatEmitter, OpenAiResponsesEmitter};
use crate::http::{Body, channel_response, full};
use crate::{ErrorKind, Event, Parser, ResponseMeta};
use bytes::Bytes;
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};
use std::io;
use std::time::Duration;
use tokio::sync::mpsc;

/// An emitter of the client's API, as the relay drives it.
pub(super) trait ClientEmitter: Send + 'static {
    /// Keeps the provider's response id, model and time.
    fn response_meta(&mut self, meta: &ResponseMeta);
    /// Writes one event.
    fn event(&mut self, event: &Event, out: &mut String);
    /// Writes the stream's ending.
    fn finish(&mut self, out: &mut String);
}

/// The three emitters drive alike.
macro_rules! client_emitter {
    ($($t:ty),*) => {$(
        impl ClientEmitter for $t {
            fn response_meta(&mut self, meta: &ResponseMeta) {
                <$t>::response_meta(self, meta);
            }
            fn event(&mut self, event: &Event, out: &mut String) {
                <$t>::event(self, event, out);
            }
            fn finish(&mut self, out: &mut String) {
                <$t>::finish(self, out);
            }
        }
    )*};
}

client_emitter!(OpenAiChatEmitter, AnthropicEmitter, OpenAiResponsesEmitter);

/// An emitter that can also give its API's whole (non-streamed) reply once finished.
pub(super) trait WholeEmitter: ClientEmitter {
    /// The reply's status and JSON body.
    fn whole(&self) -> (StatusCode, Value);
}

impl WholeEmitter for AnthropicEmitter {
    /// The message, or (a cut or failed stream) Anthropic's error object with the status
    /// its type goes with.
    fn whole(&self) -> (StatusCode, Value) {
        match self.message() {
            Ok(message) => (StatusCode::OK, message),
            Err(error) => {
                let status = match error.pointer("/error/type").and_then(Value::as_str) {
                    Some("rate_limit_error") => StatusCode::TOO_MANY_REQUESTS,
                    Some("overloaded_error") => {
                        StatusCode::from_u16(529).unwrap_or(StatusCode::SERVICE_UNAVAILABLE)
                    }
                    Some("invalid_request_error") => StatusCode::BAD_REQUEST,
                    _ => StatusCode::BAD_GATEWAY,
                };
                (status, error)
            }
        }
    }
}

impl WholeEmitter for OpenAiResponsesEmitter {
    /// The response object (status `completed` or `incomplete`); a failed one (a cut
    /// stream, a provider error) is a 502 with OpenAI's error shape and the response.
    fn whole(&self) -> (StatusCode, Value) {
        let response = self.response();
        if response.get("status").and_then(Value::as_str) == Some("failed") {
            let message = response
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or("the upstream reply failed")
                .to_owned();
            let body = json!({"error": {"message": message, "type": "server_error",
                "param": null, "code": "upstream_failed"}, "response": response});
            return (StatusCode::BAD_GATEWAY, body);
        }
        (StatusCode::OK, response)
    }
}

/// Reads a streamed Chat reply to its end, parsed and policed as [`stream_as`] does, and
/// answers with `emitter`'s whole reply (for a client that did not ask to stream).
pub(super) async fn collect_as<E: WholeEmitter>(
    mut upstream: reqwest::Response,
    info: RequestInfo,
    state: &State,
    emitter: E,
) -> Response<Body> {
    let mut parser = Parser::with_config(
        state.config.format,
        info.parser_config(&state.config.parser, state.config.content.as_ref(), false),
    );
    let stall = state.config.upstream_timeout;
    let mut relay = Relay {
        policy: Policy::new(info.tools, info.parallel),
        on_refused: state.config.on_refused,
        emitter,
        live: None,
        offset: 0,
        tally: CallTally::current(),
    };
    let (mut events, mut out) = (Vec::new(), String::new());
    loop {
        let next = tokio::time::timeout(stall, upstream.chunk()).await;
        let ended = match next {
            Ok(Ok(Some(chunk))) => {
                let _ = parser.feed(&chunk, &mut events);
                false
            }
            Ok(Ok(None)) => {
                if parser.bytes_fed() == 0 {
                    events.push(empty_reply());
                }
                let _ = parser.finish(&mut events);
                true
            }
            Ok(Err(e)) => {
                events.push(cut_reply(format!(
                    "toolstream proxy: the upstream connection failed mid-reply: {}",
                    crate::http::chain(&e)
                )));
                let _ = parser.finish(&mut events);
                true
            }
            Err(_) => {
                events.push(cut_reply(format!(
                    "toolstream proxy: the upstream sent nothing for {} s mid-reply",
                    stall.as_secs_f64()
                )));
                let _ = parser.finish(&mut events);
                true
            }
        };
        relay.emitter.response_meta(parser.response_meta());
        relay.tally.batch(&events, &parser);
        let stopped = relay.pass(&mut events, &mut out);
        out.clear();
        if stopped {
            drop(upstream);
            break;
        }
        if ended {
            relay.emitter.finish(&mut out);
            break;
        }
    }
    let (status, body) = relay.emitter.whole();
    let mut response = Response::new(full(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The error of an upstream reply cut off (`message` says how).
fn cut_reply(message: String) -> Event {
    Event::Error {
        path: None,
        kind: ErrorKind::Truncated,
        message,
        index: None,
        raw: String::new(),
    }
}

/// The error of an empty 200 reply: it must not end like a complete one.
fn empty_reply() -> Event {
    cut_reply("toolstream proxy: the upstream's reply body was empty".into())
}

/// Parses a streamed chat reply chunk by chunk and writes each chunk's events as OpenAI
/// chunks, applying the early policy.
pub(super) fn stream_fixed(
    upstream: reqwest::Response,
    info: RequestInfo,
    state: &State,
) -> Response<Body> {
    let emitter = OpenAiChatEmitter::new().include_usage(info.include_usage);
    stream_as(upstream, info, state, emitter)
}

/// Parses a streamed chat reply chunk by chunk and writes each chunk's events with
/// `emitter`, applying the early policy.
pub(super) fn stream_as<E: ClientEmitter>(
    upstream: reqwest::Response,
    info: RequestInfo,
    state: &State,
    emitter: E,
) -> Response<Body> {
    let mut headers = reply_headers(upstream.headers(), true);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        HeaderName::from_static("x-toolstream"),
        HeaderValue::from_static("fixed"),
    );
    let (response, tx) = channel_response(upstream.status(), headers);
    let parser = Parser::with_config(
        state.config.format,
        info.parser_config(&state.config.parser, state.config.content.as_ref(), false),
    );
    let stall = state.config.upstream_timeout;
    let live = state.live.as_ref().map(|live| {
        live.begin(json!({
            "route": info.route,
            "model": info.model,
            "tools": info.tools.as_ref().map(|t| t.names().collect::<Vec<_>>()),
            "parallel_tool_calls": info.parallel,
        }))
    });
    let relay = Relay {
        policy: Policy::new(info.tools, info.parallel),
        on_refused: state.config.on_refused,
        emitter,
        live,
        offset: 0,
        tally: CallTally::current(),
    };
    tokio::spawn(pump(upstream, tx, parser, relay, stall));
    response
}

/// The most bytes of a failed call's text an error event repeats.
const RAW_ECHO_BYTES: usize = 4096;

/// What a streamed reply's events go through on their way to the client: the policy, the
/// emitter, the `/live` record.
struct Relay<E> {
    policy: Policy,
    on_refused: OnRefused,
    emitter: E,
    /// The record `/live` shows: every event the client is sent.
    live: Option<LiveStream>,
    /// Upstream body bytes parsed so far (the events' offsets on `/live`).
    offset: u64,
    /// The request's access-log line and metrics: calls out, repaired, refused, cut.
    tally: CallTally,
}

impl<E: ClientEmitter> Relay<E> {
    /// How the live record says the stream ended.
    fn outcome(&mut self, outcome: &'static str) {
        if let Some(live) = &mut self.live {
            live.outcome = outcome;
        }
    }

    /// Writes `event` for the client and records it. A call's error does not carry its
    /// argument text again past [`RAW_ECHO_BYTES`] (the client had the arguments as they
    /// streamed; a call over the argument limit would be re-sent whole in one event).
    fn emit(&mut self, event: &Event, out: &mut String) {
        let short;
        let event = if let Event::Error {
            path: _,
            kind,
            message,
            index: Some(index),
            raw,
        } = event
            && raw.len() > RAW_ECHO_BYTES
        {
            short = Event::Error {
                path: None,
                kind: *kind,
                message: format!(
                    "{message} (its {} bytes of text, already streamed, are not repeated here past the first {RAW_ECHO_BYTES})",
                    raw.len()
                ),
                index: Some(*index),
                raw: cut(raw, RAW_ECHO_BYTES),
            };
            &short
        } else {
            event
        };
        if let Some(live) = &mut self.live {
            live.event(event, self.offset);
        }
        self.tally.emitted(event);
        self.emitter.event(event, out);
    }

    /// Hands `events` (drained) to the emitter until the policy refuses a call; then ends
    /// the stream (the events after that call are dropped) and returns `true`.
    fn pass(&mut self, events: &mut Vec<Event>, out: &mut String) -> bool {
        for event in events.drain(..) {
            if let Verdict::Refuse {
                kind,
                message,
                name,
            } = self.policy.check(&event)
            {
                self.outcome("refused");
                self.tally.refused();
                let text = (self.on_refused == OnRefused::Text).then(|| refusal_text(&name, kind));
                for e in self.policy.ending(kind, message, text) {
                    self.emit(&e, out);
                }
                self.emitter.finish(out);
                return true;
            }
            self.emit(&event, out);
        }
        false
    }
}

async fn pump<E: ClientEmitter>(
    mut upstream: reqwest::Response,
    tx: mpsc::Sender<Result<Bytes, io::Error>>,
    mut parser: Parser,
    mut relay: Relay<E>,
    stall: Duration,
) {
    let mut events = Vec::new();
    let mut out = String::new();
    loop {
        let next = next_chunk(&mut upstream, &tx, stall).await;
        let ended = match next {
            Next::Gone => return,
            Next::Chunk(chunk) => {
                // `feed` fails only after `finish`, which comes last here.
                let _ = parser.feed(&chunk, &mut events);
                false
            }
            Next::End => {
                if parser.bytes_fed() == 0 {
                    relay.outcome("empty");
                    events.push(empty_reply());
                } else {
                    relay.outcome("done");
                }
                let _ = parser.finish(&mut events);
                true
            }
            Next::Failed(message) => {
                relay.outcome("upstream failed");
                events.push(Event::Error {
                    path: None,
                    kind: ErrorKind::Truncated,
                    message,
                    index: None,
                    raw: String::new(),
                });
                let _ = parser.finish(&mut events);
                true
            }
        };
        relay.emitter.response_meta(parser.response_meta());
        relay.offset = parser.bytes_fed();
        relay.tally.batch(&events, &parser);
        let stopped = relay.pass(&mut events, &mut out);
        if let Some(live) = &mut relay.live {
            live.flush();
        }
        if stopped {
            // Close the upstream connection before anything else: it stops generating.
            drop(upstream);
            let _ = tx.send(Ok(Bytes::from(out))).await;
            return;
        }
        if ended {
            relay.emitter.finish(&mut out);
        }
        if !out.is_empty()
            && tx
                .send(Ok(Bytes::from(std::mem::take(&mut out))))
                .await
                .is_err()
        {
            return;
        }
        if ended {
            return;
        }
    }
}
