//! Streamed replies: each upstream chunk parsed, policed and written for the client as soon
//! as it arrives.
//!
//! The reply's body ([`RelayBody`]) does the work itself when hyper asks for its next frame:
//! it polls the upstream's body, feeds the chunk to the parser and returns the chunk's
//! events as one frame. No task and no channel stand between the upstream and the client:
//! a relayed chunk costs one task wake-up fewer (PERFORMANCE.md, "CPU per relayed chunk"),
//! and the client going away (hyper drops the body) drops the upstream with it.

use super::live::LiveStream;
use super::observe::CallTally;
use super::policy::Policy;
use super::policy::{Verdict, refusal_text};
use super::request::RequestInfo;
use super::upstream::{Chunks, Next, cut, reply_headers};
use super::{OnRefused, State};
use crate::emit::{AnthropicEmitter, OpenAiChatEmitter, OpenAiResponsesEmitter};
use crate::http::{Body, full};
use crate::{ErrorKind, Event, Parser, ResponseMeta};
use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};
use std::io;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll, ready};

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
    ($t:ty, $meta:expr) => {
        impl ClientEmitter for $t {
            fn response_meta(&mut self, meta: &ResponseMeta) {
                $meta(self, meta);
            }
            fn event(&mut self, event: &Event, out: &mut String) {
                <$t>::event(self, event, out);
            }
            fn finish(&mut self, out: &mut String) {
                <$t>::finish(self, out);
            }
        }
    };
}

// A Chat client gets the upstream's own id, model and time; a Messages or Responses client
// gets ids of its API's form (`msg_…`, `resp_…`) and the model it asked for, not the
// upstream's `chatcmpl-…` id.
client_emitter!(OpenAiChatEmitter, OpenAiChatEmitter::response_meta);
client_emitter!(
    AnthropicEmitter,
    |_: &mut AnthropicEmitter, _: &ResponseMeta| {}
);
client_emitter!(
    OpenAiResponsesEmitter,
    |_: &mut OpenAiResponsesEmitter, _: &ResponseMeta| {}
);

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
    upstream: reqwest::Response,
    info: RequestInfo,
    state: &State,
    emitter: E,
) -> Response<Body> {
    let mut relaying = relaying(upstream, info, state, emitter, None);
    // The frames a streamed client would get are dropped; the emitter keeps the reply.
    while std::future::poll_fn(|cx| relaying.poll_frame(cx))
        .await
        .is_some()
    {}
    let (status, body) = relaying.relay.emitter.whole();
    let mut response = Response::new(full(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The relay of one reply: its parser, policy, emitter and `/live` record.
fn relaying<E: ClientEmitter>(
    upstream: reqwest::Response,
    info: RequestInfo,
    state: &State,
    emitter: E,
    live: Option<LiveStream>,
) -> Relaying<E> {
    let parser = Parser::with_config(
        state.config.format,
        info.parser_config(&state.config.parser, state.config.content.as_ref(), false),
    );
    Relaying {
        upstream: Some(Chunks::new(upstream, state.config.upstream_timeout)),
        parser,
        relay: Relay {
            mid_line: false,
            policy: Policy::new(info.tools, info.parallel),
            on_refused: state.config.on_refused,
            emitter,
            live,
            offset: 0,
            tally: CallTally::current(),
        },
        events: Vec::new(),
        out: String::new(),
    }
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
    let status = upstream.status();
    let live = state.live.as_ref().map(|live| {
        live.begin(json!({
            "route": info.route,
            "model": info.model,
            "tools": info.tools.as_ref().map(|t| t.names().collect::<Vec<_>>()),
            "parallel_tool_calls": info.parallel,
        }))
    });
    let body = RelayBody(Mutex::new(relaying(upstream, info, state, emitter, live)));
    let mut response = Response::new(Body::new(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// The most bytes of a failed call's text an error event repeats.
const RAW_ECHO_BYTES: usize = 4096;

/// What a streamed reply's events go through on their way to the client: the policy, the
/// emitter, the `/live` record.
struct Relay<E> {
    /// Whether the text sent so far ends inside a line.
    mid_line: bool,
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
        let short = shortened(event);
        let event = short.as_ref().unwrap_or(event);
        if let Some(live) = &mut self.live {
            live.event(event, self.offset);
        }
        self.tally.emitted(event);
        if let Event::Text { delta } = event
            && let Some(last) = delta.as_bytes().last()
        {
            self.mid_line = *last != b'\n';
        }
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
                detail,
            } = self.policy.check(&event)
            {
                self.outcome("refused");
                self.tally.refused();
                // The call's own error (a schema violation, a runaway loop) goes to `/live`
                // only, on that call's card with its path and the byte it broke at; the
                // client is told by the ending below.
                if let (
                    Some(live),
                    Event::Error {
                        index: Some(_),
                        raw,
                        ..
                    },
                ) = (&mut self.live, &event)
                {
                    let short = shortened(&event);
                    live.broke(short.as_ref().unwrap_or(&event), self.offset, raw.len());
                }
                let text = (self.on_refused == OnRefused::Text).then(|| {
                    // On a line of its own after the model's text.
                    let sep = if self.mid_line { "\n" } else { "" };
                    format!("{sep}{}", refusal_text(&name, kind, &detail))
                });
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

/// `event` with its text cut to [`RAW_ECHO_BYTES`] when it is a call's error carrying more
/// (`None`: as it is).
fn shortened(event: &Event) -> Option<Event> {
    let Event::Error {
        path,
        kind,
        message,
        index: Some(index),
        raw,
    } = event
    else {
        return None;
    };
    (raw.len() > RAW_ECHO_BYTES).then(|| Event::Error {
        path: path.clone(),
        kind: *kind,
        message: format!(
            "{message} (its {} bytes of text, already streamed, are not repeated here past the first {RAW_ECHO_BYTES})",
            raw.len()
        ),
        index: Some(*index),
        raw: cut(raw, RAW_ECHO_BYTES),
    })
}

/// The body of a streamed reply: each frame is the events of the upstream's next chunk.
///
/// In a `Mutex` only to be `Sync` (hyper's boxed body must be) with an emitter that is not:
/// `poll_frame` has `&mut self`, so it reaches the state with `get_mut`, never locking.
struct RelayBody<E>(Mutex<Relaying<E>>);

// Nothing in it is ever pinned: the upstream's body and the timer are boxed.
impl<E> Unpin for RelayBody<E> {}

struct Relaying<E> {
    /// `None` once the reply has ended or a call was refused (the upstream dropped).
    upstream: Option<Chunks>,
    parser: Parser,
    relay: Relay<E>,
    /// Scratch: one chunk's events.
    events: Vec<Event>,
    /// Scratch: one chunk's output (kept between chunks with its capacity).
    out: String,
}

impl<E: ClientEmitter> Relaying<E> {
    /// The next frame for the client: the events of the upstream's next chunk that produce
    /// output, the ending, or `None` once all is written.
    fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        loop {
            let Some(upstream) = &mut self.upstream else {
                return Poll::Ready(None);
            };
            let ended = match ready!(upstream.poll_next(cx)) {
                Next::Chunk(chunk) => {
                    // `feed` fails only after `finish`, which comes last here.
                    let _ = self.parser.feed(&chunk, &mut self.events);
                    false
                }
                Next::End => {
                    if self.parser.bytes_fed() == 0 {
                        self.relay.outcome("empty");
                        self.events.push(empty_reply());
                    } else {
                        self.relay.outcome("done");
                    }
                    let _ = self.parser.finish(&mut self.events);
                    true
                }
                Next::Failed(message) => {
                    self.relay.outcome("upstream failed");
                    self.events.push(cut_reply(message));
                    let _ = self.parser.finish(&mut self.events);
                    true
                }
            };
            let relay = &mut self.relay;
            relay.emitter.response_meta(self.parser.response_meta());
            relay.offset = self.parser.bytes_fed();
            relay.tally.batch(&self.events, &self.parser);
            let stopped = relay.pass(&mut self.events, &mut self.out);
            if let Some(live) = &mut relay.live {
                live.flush();
            }
            if stopped || ended {
                // Close the upstream connection before anything else: it stops generating.
                self.upstream = None;
                if ended && !stopped {
                    relay.emitter.finish(&mut self.out);
                }
                // The record ends before the client reads the end.
                relay.live = None;
            }
            if !self.out.is_empty() {
                // Copied out, so `out` keeps its capacity: one allocation per frame rather
                // than a string grown from empty for each chunk.
                let frame = Bytes::copy_from_slice(self.out.as_bytes());
                self.out.clear();
                return Poll::Ready(Some(frame));
            }
        }
    }
}

impl<E: ClientEmitter> HttpBody for RelayBody<E> {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let relaying = self
            .0
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        relaying
            .poll_frame(cx)
            .map(|frame| frame.map(|bytes| Ok(Frame::data(bytes))))
    }
}
