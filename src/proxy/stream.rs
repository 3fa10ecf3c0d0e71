//! Streamed replies: each upstream chunk parsed, policed and written for the client as soon
//! as it arrives.

use super::State;
use super::live::LiveStream;
use super::observe::CallTally;
use super::policy::Policy;
use super::policy::Verdict;
use super::request::RequestInfo;
use super::upstream::{Next, next_chunk, reply_headers};
use crate::emit::OpenAiChatEmitter;
use crate::http::{Body, channel_response};
use crate::{ErrorKind, Event, Parser, ResponseMeta};
use bytes::Bytes;
use hyper::Response;
use hyper::header::{self, HeaderName, HeaderValue};
use serde_json::json;
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

impl ClientEmitter for OpenAiChatEmitter {
    fn response_meta(&mut self, meta: &ResponseMeta) {
        OpenAiChatEmitter::response_meta(self, meta);
    }
    fn event(&mut self, event: &Event, out: &mut String) {
        OpenAiChatEmitter::event(self, event, out);
    }
    fn finish(&mut self, out: &mut String) {
        OpenAiChatEmitter::finish(self, out);
    }
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
            "model": info.model,
            "tools": info.tools.as_ref().map(|t| t.names().collect::<Vec<_>>()),
            "parallel_tool_calls": info.parallel,
        }))
    });
    let relay = Relay {
        policy: Policy::new(info.tools, info.parallel),
        emitter,
        live,
        offset: 0,
        tally: CallTally::current(),
    };
    tokio::spawn(pump(upstream, tx, parser, relay, stall));
    response
}

/// What a streamed reply's events go through on their way to the client: the policy, the
/// emitter, the `/live` record.
struct Relay<E> {
    policy: Policy,
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

    /// Writes `event` for the client and records it.
    fn emit(&mut self, event: &Event, out: &mut String) {
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
            if let Verdict::Refuse { kind, message } = self.policy.check(&event) {
                self.outcome("refused");
                self.tally.refused();
                for e in self.policy.ending(kind, message) {
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
                let _ = parser.finish(&mut events);
                relay.outcome("done");
                true
            }
            Next::Failed(message) => {
                relay.outcome("upstream failed");
                events.push(Event::Error {
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
