//! What the proxy tells about each request when it ends: the access-log line on stderr and
//! the numbers `/metrics` adds up (see [Observability](super#observability)).
//!
//! A request's [`Tally`] is made in the accept loop and reached from the request's steps
//! through a task-local ([`tally`]); a streamed reply's relay keeps it (a [`CallTally`])
//! for its pump task. The reply body is wrapped ([`Observed`]): it times the first byte
//! out, counts the bytes and, when the body ends (or is dropped: a client gone), writes the
//! line and records the metrics. Nothing here reads headers or bodies: no secret is logged.

use super::metrics::Metrics;
use crate::http::Body;
use crate::{ErrorKind, Event, Parser};
use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use hyper::{Method, StatusCode};
use serde::Serialize;
use std::fmt;
use std::io::{self, Write};
use std::pin::Pin;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

/// How [`Proxy`](super::Proxy) writes its access log, one line per request on stderr when
/// the request ends ([`ProxyConfig::log_format`](super::ProxyConfig::log_format)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// One JSON object per line (the CLI's default).
    Json,
    /// `key=value` words, for a person reading a terminal.
    Text,
    /// No access log (the library's default: a library does not write to its process's
    /// stderr unless asked).
    #[default]
    Off,
}

impl FromStr for LogFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "json" => Ok(LogFormat::Json),
            "text" => Ok(LogFormat::Text),
            "off" => Ok(LogFormat::Off),
            _ => Err(format!("unknown log format {s:?} (json, text, off)")),
        }
    }
}

impl fmt::Display for LogFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogFormat::Json => "json",
            LogFormat::Text => "text",
            LogFormat::Off => "off",
        })
    }
}

/// Where ended requests go: the log and the metrics.
#[derive(Debug)]
pub(crate) struct Observer {
    pub(crate) log: LogFormat,
    pub(crate) metrics: Metrics,
}

tokio::task_local! {
    /// The request being handled.
    static TALLY: Arc<Tally>;
}

/// What one request did, filled in by its steps as it goes (atomics: a streamed reply's
/// pump task adds to it while the body is read).
#[derive(Debug)]
pub(crate) struct Tally {
    start: Instant,
    route: &'static str,
    method: Method,
    model: OnceLock<String>,
    /// 0: no upstream reply.
    upstream_status: AtomicU16,
    bytes_in: AtomicU64,
    calls: AtomicU64,
    repaired: AtomicU64,
    refused: AtomicU64,
    cut: AtomicBool,
    /// Milliseconds to the first call's start, plus 1 (0: none).
    first_call: AtomicU64,
}

impl Tally {
    pub(crate) fn new(method: &Method, path: &str) -> Tally {
        Tally {
            start: Instant::now(),
            route: route_of(path),
            method: method.clone(),
            model: OnceLock::new(),
            upstream_status: AtomicU16::new(0),
            bytes_in: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            repaired: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            cut: AtomicBool::new(false),
            first_call: AtomicU64::new(0),
        }
    }

    /// Runs `f` (the request's handler) with this tally as the current one.
    pub(crate) async fn scope<F: Future>(self: Arc<Self>, f: F) -> F::Output {
        TALLY.scope(self, f).await
    }

    fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// The route a path is counted under: the proxy's own routes by name, other `/v1/...`
/// (passed through) as `/v1/*`, anything else as `other` (so a scanner cannot make the
/// metrics grow a series per path it tries).
fn route_of(path: &str) -> &'static str {
    match path {
        "/v1/chat/completions" => "/v1/chat/completions",
        "/v1/messages" => "/v1/messages",
        "/v1/responses" => "/v1/responses",
        "/live" | "/live/" | "/live.js" | "/live.css" | "/live/events" => "/live",
        "/metrics" => "/metrics",
        "/healthz" => "/healthz",
        "/" => "/",
        p if p.starts_with("/v1/") => "/v1/*",
        _ => "other",
    }
}

/// The current request's tally (`None` outside a request, as in unit tests).
pub(crate) fn tally() -> Option<Arc<Tally>> {
    TALLY.try_with(Arc::clone).ok()
}

/// Notes the request's `model` (a chat request's; the first one noted stays).
pub(crate) fn note_model(model: Option<&str>) {
    if let (Some(t), Some(m)) = (tally(), model) {
        let _ = t.model.set(m.chars().take(200).collect());
    }
}

/// Notes the status of the upstream's reply.
pub(crate) fn note_upstream(status: StatusCode) {
    if let Some(t) = tally() {
        t.upstream_status.store(status.as_u16(), Relaxed);
    }
}

/// Adds upstream body bytes read (a passed-through or whole reply).
pub(crate) fn add_bytes_in(tally: Option<&Arc<Tally>>, n: usize) {
    if let Some(t) = tally {
        t.bytes_in.fetch_add(n as u64, Relaxed);
    }
}

/// A streamed reply's view of its request's tally, kept by its relay: which calls went
/// out, which of them came from leaked text, a refusal, a cut.
#[derive(Debug, Default)]
pub(crate) struct CallTally {
    tally: Option<Arc<Tally>>,
    /// Indices of the current batch's calls that the parser found in text.
    from_text: Vec<usize>,
    refused: bool,
}

impl CallTally {
    /// The current request's.
    pub(crate) fn current() -> CallTally {
        CallTally {
            tally: tally(),
            ..CallTally::default()
        }
    }

    /// Before a batch of `events` (just parsed) goes to the policy: which of its calls
    /// were found in text, and the upstream bytes parsed so far.
    pub(crate) fn batch(&mut self, events: &[Event], parser: &Parser) {
        let Some(t) = &self.tally else { return };
        t.bytes_in.store(parser.bytes_fed(), Relaxed);
        self.from_text.clear();
        for e in events {
            if let Event::ToolCallStart { index, .. } = e
                && parser.call_found_in_text(*index)
            {
                self.from_text.push(*index);
            }
        }
    }

    /// An event sent to the client.
    pub(crate) fn emitted(&mut self, event: &Event) {
        let Some(t) = &self.tally else { return };
        match event {
            Event::ToolCallStart { index, .. } => {
                if t.calls.fetch_add(1, Relaxed) == 0 {
                    t.first_call.store(t.elapsed_ms() + 1, Relaxed);
                }
                if self.from_text.contains(index) {
                    t.repaired.fetch_add(1, Relaxed);
                }
            }
            // After a refusal, a `truncated` error is the refused stream's open call, not
            // an upstream cut.
            Event::Error {
                kind: ErrorKind::Truncated,
                ..
            } if !self.refused => t.cut.store(true, Relaxed),
            _ => {}
        }
    }

    /// The policy refused a call.
    pub(crate) fn refused(&mut self) {
        self.refused = true;
        if let Some(t) = &self.tally {
            t.refused.fetch_add(1, Relaxed);
        }
    }
}

/// One ended request: the access-log line's fields, in its order.
#[derive(Debug, Serialize)]
pub(crate) struct Line {
    pub(crate) route: &'static str,
    pub(crate) method: String,
    pub(crate) model: Option<String>,
    pub(crate) status: u16,
    pub(crate) streamed: bool,
    pub(crate) calls: u64,
    pub(crate) repaired: u64,
    pub(crate) refused: u64,
    pub(crate) cut: bool,
    pub(crate) upstream_status: Option<u16>,
    pub(crate) ttfb_ms: Option<u64>,
    pub(crate) first_call_ms: Option<u64>,
    pub(crate) duration_ms: u64,
    pub(crate) bytes_in: u64,
    pub(crate) bytes_out: u64,
}

impl Line {
    /// The line as written for `format` (with its newline), `None` when off.
    pub(crate) fn render(&self, format: LogFormat) -> Option<String> {
        match format {
            LogFormat::Off => None,
            LogFormat::Json => serde_json::to_string(self).ok().map(|mut s| {
                s.push('\n');
                s
            }),
            LogFormat::Text => {
                let ms = |v: Option<u64>| v.map_or("-".to_owned(), |v| format!("{v}ms"));
                let model = self.model.as_deref().map_or("-".to_owned(), |m| {
                    serde_json::to_string(m).unwrap_or_default()
                });
                Some(format!(
                    "toolstream proxy: {} {} {} model={} streamed={} calls={} repaired={} refused={} cut={} upstream={} ttfb={} first_call={} duration={}ms in={} out={}\n",
                    self.method,
                    self.route,
                    self.status,
                    model,
                    self.streamed,
                    self.calls,
                    self.repaired,
                    self.refused,
                    self.cut,
                    self.upstream_status
                        .map_or("-".to_owned(), |s| s.to_string()),
                    ms(self.ttfb_ms),
                    ms(self.first_call_ms),
                    self.duration_ms,
                    self.bytes_in,
                    self.bytes_out,
                ))
            }
        }
    }
}

/// Completes when the proxy starts draining.
type Stop = std::sync::Mutex<Pin<Box<dyn Future<Output = ()> + Send>>>;

/// A reply body that reports its request when it ends.
pub(crate) struct Observed {
    inner: Body,
    /// For a body that never ends by itself (the `/live` feed): ends it when the proxy
    /// drains.
    stop: Option<Stop>,
    tally: Arc<Tally>,
    observer: Arc<Observer>,
    status: u16,
    streamed: bool,
    ttfb_ms: Option<u64>,
    bytes_out: u64,
    done: bool,
}

impl Observed {
    /// Wraps `response`'s body: the request is reported when it ends.
    pub(crate) fn wrap(
        response: hyper::Response<Body>,
        tally: Arc<Tally>,
        observer: Arc<Observer>,
        stop: Option<tokio::sync::watch::Receiver<bool>>,
    ) -> hyper::Response<Body> {
        use http_body_util::BodyExt;
        let status = response.status().as_u16();
        let streamed = response
            .headers()
            .get(hyper::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        response.map(|inner| {
            Observed {
                inner,
                stop: stop.map(|mut rx| {
                    let f: Pin<Box<dyn Future<Output = ()> + Send>> = Box::pin(async move {
                        let _ = rx.wait_for(|stopping| *stopping).await;
                    });
                    std::sync::Mutex::new(f)
                }),
                tally,
                observer,
                status,
                streamed,
                ttfb_ms: None,
                bytes_out: 0,
                done: false,
            }
            .boxed()
        })
    }

    /// Writes the line and records the metrics, once.
    fn report(&mut self) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let t = &self.tally;
        let line = Line {
            route: t.route,
            method: t.method.to_string(),
            model: t.model.get().cloned(),
            status: self.status,
            streamed: self.streamed,
            calls: t.calls.load(Relaxed),
            repaired: t.repaired.load(Relaxed),
            refused: t.refused.load(Relaxed),
            cut: t.cut.load(Relaxed),
            upstream_status: Some(t.upstream_status.load(Relaxed)).filter(|&s| s != 0),
            ttfb_ms: self.ttfb_ms,
            first_call_ms: Some(t.first_call.load(Relaxed))
                .filter(|&ms| ms != 0)
                .map(|ms| ms - 1),
            duration_ms: t.elapsed_ms(),
            bytes_in: t.bytes_in.load(Relaxed),
            bytes_out: self.bytes_out,
        };
        self.observer.metrics.record(&line);
        if let Some(text) = line.render(self.observer.log) {
            // One write (a line under PIPE_BUF is never interleaved with another), and no
            // panic when stderr is closed: the error is dropped.
            let _ = io::stderr().lock().write_all(text.as_bytes());
        }
    }
}

impl HttpBody for Observed {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = &mut *self;
        if let Some(stop) = &mut this.stop
            && let Ok(stop) = stop.get_mut()
            && stop.as_mut().poll(cx).is_ready()
        {
            this.report();
            return Poll::Ready(None);
        }
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    if this.ttfb_ms.is_none() && !data.is_empty() {
                        this.ttfb_ms = Some(this.tally.elapsed_ms());
                    }
                    this.bytes_out += data.len() as u64;
                }
                // hyper stops polling a body that says it has ended.
                if this.inner.is_end_stream() {
                    this.report();
                }
            }
            Poll::Ready(Some(Err(_))) => {
                // A passed-through body cut mid-way.
                this.tally.cut.store(true, Relaxed);
                this.report();
            }
            Poll::Ready(None) => this.report(),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Observed {
    fn drop(&mut self) {
        // A body never read to its end: a HEAD reply, an empty one, a client gone.
        self.report();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_line_fields_in_order() {
        let line = Line {
            route: "/v1/chat/completions",
            method: "POST".into(),
            model: Some("qwen\"3".into()),
            status: 200,
            streamed: true,
            calls: 2,
            repaired: 1,
            refused: 0,
            cut: false,
            upstream_status: Some(200),
            ttfb_ms: Some(3),
            first_call_ms: None,
            duration_ms: 40,
            bytes_in: 900,
            bytes_out: 1200,
        };
        let json = line.render(LogFormat::Json).unwrap_or_default();
        assert_eq!(
            json,
            "{\"route\":\"/v1/chat/completions\",\"method\":\"POST\",\"model\":\"qwen\\\"3\",\"status\":200,\"streamed\":true,\"calls\":2,\"repaired\":1,\"refused\":0,\"cut\":false,\"upstream_status\":200,\"ttfb_ms\":3,\"first_call_ms\":null,\"duration_ms\":40,\"bytes_in\":900,\"bytes_out\":1200}\n"
        );
        let text = line.render(LogFormat::Text).unwrap_or_default();
        assert!(
            text.starts_with("toolstream proxy: POST /v1/chat/completions 200 model=\"qwen\\\"3\" streamed=true calls=2 repaired=1"),
            "{text}"
        );
        assert!(line.render(LogFormat::Off).is_none());
        for f in [LogFormat::Json, LogFormat::Text, LogFormat::Off] {
            assert_eq!(f.to_string().parse::<LogFormat>(), Ok(f));
        }
        assert_eq!(route_of("/v1/models"), "/v1/*");
        assert_eq!(route_of("/wp-admin"), "other");
    }
}
