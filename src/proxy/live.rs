//! What `GET /live` shows: a record of each streamed chat reply the proxy fixes, in flight
//! and recent, and the watchers' feed (`GET /live/events`).
//!
//! Each stream's record is the SSE text the page reads: an `event: stream` message (the
//! request's model and declared tools, the wall-clock start), then one message per event
//! the client was sent (the [`Event`] JSON plus `"s"` (the stream's number), `"offset"`
//! (upstream body bytes parsed when it was emitted) and `"us"` (microseconds since the
//! request arrived)), plus the error that ended a call the proxy refused for it (a schema
//! violation, a runaway loop: the client is told by the refusal instead), with `"at"` (the
//! length of the call's text up to and with the byte it broke at), then an `event: end`
//! message with the outcome. A watcher gets every
//! record as it stands, then each new batch as it is recorded (a `tokio` broadcast channel).
//!
//! Memory is bounded: a record keeps at most [`LOG_BYTES`] of messages (then one
//! `event: full` message, and the stream's later events are neither kept nor sent to
//! watchers; its end still is), and at most `recent` ended streams are kept (the oldest
//! dropped first) besides those in flight, whose number the proxy's connection limit bounds.
//! So the whole is at most `(max_connections + recent) × LOG_BYTES` plus the broadcast
//! channel's [`BACKLOG`] batches. Recording costs one JSON serialization per event and one
//! lock per upstream chunk whether or not anyone watches (`ProxyConfig::live_recent(0)`
//! turns it off, and `/live` with it).

use crate::Event;
use std::collections::{HashMap, VecDeque};
use std::io::Write as _;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::broadcast;

/// The most bytes of SSE messages kept for one stream.
pub(super) const LOG_BYTES: usize = 64 * 1024;
/// Batches a watcher may fall behind by before it is told to reconnect.
pub(super) const BACKLOG: usize = 1024;

/// One batch of a stream's messages, in order: what a watcher writes out.
#[derive(Debug)]
pub(super) struct Batch {
    /// The stream's number.
    s: u64,
    /// The sequence number of the batch's last message within its stream (0: the head).
    n: u64,
    /// SSE messages.
    pub(super) text: String,
}

#[derive(Debug)]
struct Record {
    s: u64,
    /// The SSE messages so far.
    text: String,
    /// Sequence number of the last message in `text`.
    n: u64,
    /// The log reached [`LOG_BYTES`]: events are no longer kept.
    full: bool,
    ended: bool,
}

/// The records, in flight and recent, and the watchers' channel.
#[derive(Debug)]
pub(super) struct Live {
    records: Mutex<Hub>,
    tx: broadcast::Sender<Arc<Batch>>,
    recent: usize,
}

#[derive(Debug, Default)]
struct Hub {
    next: u64,
    /// Oldest first.
    records: VecDeque<Arc<Mutex<Record>>>,
    /// How many of them have ended.
    ended: usize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock leaves a record that is still well-formed
    // text: keep using it.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Live {
    /// A hub keeping `recent` ended streams.
    pub(super) fn new(recent: usize) -> Live {
        let (tx, _) = broadcast::channel(BACKLOG);
        Live {
            records: Mutex::new(Hub::default()),
            tx,
            recent,
        }
    }

    /// Starts the record of a stream described by `head` (a JSON object, to which `s` and
    /// `started` are added).
    pub(super) fn begin(self: &Arc<Self>, mut head: serde_json::Value) -> LiveStream {
        let mut hub = lock(&self.records);
        let s = hub.next;
        hub.next += 1;
        let started_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        if let Some(o) = head.as_object_mut() {
            o.insert("s".into(), s.into());
            o.insert(
                "started".into(),
                serde_json::Value::from(u64::try_from(started_ms).unwrap_or(u64::MAX)),
            );
        }
        let text = format!("event: stream\ndata: {head}\n\n");
        let record = Arc::new(Mutex::new(Record {
            s,
            text: text.clone(),
            n: 0,
            full: false,
            ended: false,
        }));
        hub.records.push_back(Arc::clone(&record));
        // Sent under the hub's lock: a watcher that subscribes takes the same lock, so it
        // sees this head either in its snapshot or on the channel.
        let _ = self.tx.send(Arc::new(Batch { s, n: 0, text }));
        drop(hub);
        LiveStream {
            live: Arc::clone(self),
            record,
            s,
            started: Instant::now(),
            n: 0,
            batch: Vec::new(),
            full: false,
            outcome: "client gone",
        }
    }

    /// A new watcher: every record as it stands (one SSE text) and the channel of what
    /// comes after, with the sequence numbers already in the snapshot, per stream.
    pub(super) fn watch(&self) -> (String, broadcast::Receiver<Arc<Batch>>, HashMap<u64, u64>) {
        let hub = lock(&self.records);
        let rx = self.tx.subscribe();
        let mut text = String::new();
        let mut seen = HashMap::new();
        for r in &hub.records {
            let r = lock(r);
            text.push_str(&r.text);
            seen.insert(r.s, r.n);
        }
        (text, rx, seen)
    }

    /// Whether `batch` is new to a watcher that has seen `seen`; notes it.
    pub(super) fn fresh(seen: &mut HashMap<u64, u64>, batch: &Batch) -> bool {
        match seen.get_mut(&batch.s) {
            Some(n) if *n >= batch.n => false,
            Some(n) => {
                *n = batch.n;
                true
            }
            None => {
                seen.insert(batch.s, batch.n);
                true
            }
        }
    }

    /// Counts a record that ended and drops the oldest ended ones past `recent`.
    fn ended(&self) {
        let mut hub = lock(&self.records);
        hub.ended += 1;
        while hub.ended > self.recent {
            let Some(at) = hub.records.iter().position(|r| lock(r).ended) else {
                break;
            };
            hub.records.remove(at);
            hub.ended -= 1;
        }
    }
}

/// The recorder of one stream, held by the body that relays it. Events are serialized as
/// they are emitted and recorded (and sent to watchers) once per upstream chunk
/// ([`flush`](LiveStream::flush)); dropping it ends the record with its outcome.
#[derive(Debug)]
pub(super) struct LiveStream {
    live: Arc<Live>,
    record: Arc<Mutex<Record>>,
    s: u64,
    started: Instant,
    /// Sequence number of the last message serialized.
    n: u64,
    /// Messages serialized since the last flush (UTF-8: serde_json's output and ASCII).
    batch: Vec<u8>,
    /// The record is full: events are no longer serialized.
    full: bool,
    /// What the end message says.
    pub(super) outcome: &'static str,
}

impl LiveStream {
    /// Serializes `event`, emitted when `offset` upstream bytes had been parsed, straight
    /// into the batch (no string per event).
    pub(super) fn event(&mut self, event: &Event, offset: u64) {
        self.message(event, offset, None);
    }

    /// Records the error that ended a call the proxy refused for it (a schema violation,
    /// a runaway loop): the client is not sent it (it is told by the refusal), the page
    /// shows it on the call's card. `at` is the length of the call's text up to and with
    /// the byte it broke at (the error's `raw` may be cut shorter): the message's `"at"`.
    pub(super) fn broke(&mut self, event: &Event, offset: u64, at: usize) {
        self.message(event, offset, Some(at));
    }

    fn message(&mut self, event: &Event, offset: u64, at: Option<usize>) {
        if self.full {
            return;
        }
        let start = self.batch.len();
        self.batch.extend_from_slice(b"data: ");
        let json = self.batch.len();
        if serde_json::to_writer(&mut self.batch, event).is_err() {
            self.batch.truncate(start);
            return;
        }
        if self.batch.len() > json && self.batch.ends_with(b"}") {
            self.batch.pop();
            let us = self.started.elapsed().as_micros();
            let _ = write!(
                self.batch,
                ",\"s\":{},\"offset\":{offset},\"us\":{us}",
                self.s
            );
            if let Some(at) = at {
                let _ = write!(self.batch, ",\"at\":{at}");
            }
            self.batch.push(b'}');
        }
        self.n += 1;
        self.batch.extend_from_slice(b"\n\n");
    }

    /// Records the messages serialized since the last flush and sends them to watchers
    /// (when there are any: the record is what a later watcher reads).
    pub(super) fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        // serde_json writes UTF-8 only.
        let Ok(text) = std::str::from_utf8(&self.batch) else {
            self.batch.clear();
            return;
        };
        let mut r = lock(&self.record);
        if r.full {
            drop(r);
            self.batch.clear();
            return;
        }
        let note;
        let text = if r.text.len() + text.len() > LOG_BYTES {
            r.full = true;
            self.full = true;
            note = format!(
                "event: full\ndata: {{\"s\":{},\"bytes\":{LOG_BYTES}}}\n\n",
                self.s
            );
            &note
        } else {
            text
        };
        r.text.push_str(text);
        r.n = self.n;
        // Sent under the record's lock, so a watcher's snapshot has it or the channel does
        // (a watcher subscribes before it takes this lock for its snapshot, so with no
        // receiver now, any later watcher's snapshot has this text).
        if self.live.tx.receiver_count() > 0 {
            let _ = self.live.tx.send(Arc::new(Batch {
                s: self.s,
                n: self.n,
                text: text.to_owned(),
            }));
        }
        drop(r);
        // Kept with its capacity for the next chunk's messages.
        self.batch.clear();
    }
}

impl Drop for LiveStream {
    fn drop(&mut self) {
        self.flush();
        self.n += 1;
        let us = self.started.elapsed().as_micros();
        let text = format!(
            "event: end\ndata: {{\"s\":{},\"outcome\":\"{}\",\"us\":{us}}}\n\n",
            self.s, self.outcome
        );
        {
            let mut r = lock(&self.record);
            r.text.push_str(&text);
            r.n = self.n;
            r.ended = true;
            let _ = self.live.tx.send(Arc::new(Batch {
                s: self.s,
                n: self.n,
                text,
            }));
        }
        self.live.ended();
    }
}

/// The page (`GET /live` here, `GET /` in `toolstream serve`): HTML that loads
/// [`LIVE_CSS`] and [`LIVE_JS`] from its own origin, as `live.css` and `live.js` beside it.
pub const LIVE_HTML: &str = include_str!("live.html");
/// The page's script: reads the SSE feed (`/live/events` under `/live`, else `/events`)
/// with `fetch` and renders each stream as its events arrive.
pub const LIVE_JS: &str = include_str!("live.js");
/// The page's style sheet.
pub const LIVE_CSS: &str = include_str!("live.css");
/// The `Content-Security-Policy` the page is served with: scripts, styles and requests
/// from its own origin only; nothing else (no inline script, no frames, no forms).
pub const LIVE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use serde_json::json;

    /// The record of a stream whose call the proxy refused for breaking its schema: the
    /// call's own error is there (for the page's card), with its path and `"at"`, the
    /// length of the call's text up to the byte it broke at, even when its `raw` was cut.
    #[test]
    fn a_refused_calls_error_is_recorded_with_the_byte_it_broke_at() {
        let live = Arc::new(Live::new(4));
        let mut stream = live.begin(json!({"model": "m"}));
        stream.event(
            &Event::ToolCallStart {
                index: 0,
                id: "call_0".into(),
                name: "set_mode".into(),
            },
            10,
        );
        stream.broke(
            &Event::Error {
                kind: ErrorKind::SchemaViolation,
                message: "tool call 0: enum: the string is none of the allowed values".into(),
                index: Some(0),
                raw: "{\"mode\": \"r".into(),
                path: Some("/mode".into()),
            },
            42,
            5000,
        );
        stream.outcome = "refused";
        drop(stream);
        let (text, _, _) = live.watch();
        let messages: Vec<serde_json::Value> = text
            .split("\n\n")
            .filter_map(|m| m.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str(d).ok())
            .collect();
        let broke = messages
            .iter()
            .find(|m| m["type"] == "error")
            .unwrap_or_else(|| panic!("no error in {text}"));
        assert_eq!(broke["kind"], "schema_violation");
        assert_eq!(broke["index"], 0);
        assert_eq!(broke["path"], "/mode");
        assert_eq!(broke["offset"], 42);
        assert_eq!(broke["at"], 5000);
        // The other events have no "at".
        let start = messages
            .iter()
            .find(|m| m["type"] == "tool_call_start")
            .unwrap_or_else(|| panic!("no start in {text}"));
        assert!(start.get("at").is_none(), "{start}");
        assert!(text.contains("\"outcome\":\"refused\""), "{text}");
    }
}
