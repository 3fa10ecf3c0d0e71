//! Re-emit events in other wire formats: the proxy and UI use.
//!
//! Whatever format a response came in, its [`Event`]s can be written back
//! out as
//!
//! - an **OpenAI Chat Completions stream** ([`OpenAiChatEmitter`]): `chat.completion.chunk`
//!   SSE, so any provider's stream becomes one that every OpenAI client library reads. Our
//!   own `openai-chat` decoder reads it back to the same events (tested for every recorded
//!   capture of every format; the differences are listed on [`OpenAiChatEmitter`]);
//! - an **OpenAI Responses API stream** ([`OpenAiResponsesEmitter`]): `response.created`,
//!   `response.output_item.added` / `.done` for `message`, `reasoning` and `function_call`
//!   items with their deltas, `response.completed` / `.incomplete` / `.failed`, as the openai
//!   SDKs and Codex read it; [`OpenAiResponsesEmitter::response`] is the whole Response
//!   object for a non-streamed reply;
//! - an **Anthropic Messages stream** ([`AnthropicEmitter`]): `message_start`,
//!   `content_block_*` for `text`, `thinking` and `tool_use` blocks, `message_delta`,
//!   `message_stop`, as the Anthropic SDKs read it; [`AnthropicEmitter::message`] is the
//!   whole Message for a non-streamed reply;
//! - **AG-UI events** ([`AgUiEmitter`]): `RUN_STARTED`, `TEXT_MESSAGE_*`, `REASONING_*`,
//!   `TOOL_CALL_START` / `TOOL_CALL_ARGS` / `TOOL_CALL_END`, `RUN_FINISHED` / `RUN_ERROR`, the
//!   protocol agent UIs (CopilotKit and others) consume.
//!
//! Our own decoders read the OpenAI Chat, Responses and Anthropic outputs back to the same
//! calls, text and reasoning (tested for every recorded capture of every format).
//!
//! The emitters are sans-IO and stateful, like the [`Parser`](crate::Parser): give them each
//! event as it arrives and call `finish` at the end of the stream; they append to a buffer
//! you own. The CLI exposes them as
//! `toolstream parse --emit openai-chat|openai-responses|anthropic|ag-ui`.
//!
//! **One call at a time.** Anthropic content blocks and Responses output items are written
//! one after another, as those APIs do: while a call's block is open, the events of other
//! calls (an OpenAI stream's parallel calls interleave), text and reasoning wait, and go out
//! in order when that call ends. Call ids are written in each API's legal form ([`ids`]).
//!
//! **Nothing invented.** A stream the parser reports cut (`truncated`), or that carries the
//! provider's own error, never ends like a complete reply: the OpenAI output ends in
//! `event: error` without `finish_reason` or `[DONE]`, the Anthropic one in `event: error`
//! without `message_delta` / `message_stop`, the Responses one in `response.failed`, the AG-UI
//! run in `RUN_ERROR` without `RUN_FINISHED` ([`ends_the_stream`] says which errors do this). A recoverable error
//! (one call failed, an undeclared tool, a payload skipped) does not end the OpenAI stream:
//! clients would lose the calls and text around it (see [`openai_chat`], [`anthropic`] and
//! [`openai_responses`] for where it is written instead). The provider's response id, model and time are kept whenever the
//! parser read them ([`OpenAiChatEmitter::response_meta`]).
//!
//! Ids: `new()` makes up unique ones (a `chatcmpl-…` id and the current time for OpenAI,
//! UUID thread and run ids for AG-UI), so two streams never look like one to a client;
//! the builder methods set them (the provider's own with
//! [`OpenAiChatEmitter::response_meta`], the AG-UI request's with
//! [`AgUiEmitter::thread_id`] / [`AgUiEmitter::run_id`]) for reproducible output.
//!
//! ```
//! use toolstream::{Format, Parser, emit::OpenAiChatEmitter};
//!
//! let anthropic = concat!(
//!     "event: content_block_start\n",
//!     r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}"#, "\n\n",
//!     "event: content_block_delta\n",
//!     r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Paris\"}"}}"#, "\n\n",
//! );
//! let mut parser = Parser::new(Format::Anthropic);
//! let mut emitter = OpenAiChatEmitter::new().model("claude-via-proxy");
//! let (mut events, mut sse) = (Vec::new(), String::new());
//! parser.feed(anthropic.as_bytes(), &mut events)?;
//! for e in events.drain(..) {
//!     emitter.event(&e, &mut sse);
//! }
//! assert!(sse.contains(r#""tool_calls":[{"index":0,"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":""}}]"#));
//! # Ok::<(), toolstream::Error>(())
//! ```

pub mod ag_ui;
pub mod anthropic;
pub mod ids;
pub(crate) mod json;
pub mod openai_chat;
pub mod openai_responses;

pub use ag_ui::{AgUiEmitter, AgUiEvent};
pub use anthropic::AnthropicEmitter;
pub use openai_chat::OpenAiChatEmitter;
pub use openai_responses::OpenAiResponsesEmitter;

use crate::event::{ErrorKind, Event, Usage};
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::VecDeque;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh random UUID (version 4 layout), for the ids the emitters make up when the
/// caller gives none: 122 bits of SipHash, keyed by std's `RandomState` (seeded from the
/// operating system's randomness per process, different keys for every call), over a
/// process-wide counter. No clock, no dependency; unique across calls and processes in
/// practice, not a cryptographic secret.
pub(crate) fn fresh_uuid() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let keys = std::collections::hash_map::RandomState::new();
    let half = |salt: u8| {
        let mut h = keys.build_hasher();
        h.write_u64(n);
        h.write_u8(salt);
        h.finish()
    };
    let mut x = (u128::from(half(0)) << 64) | u128::from(half(1));
    x = (x & !(0xf << 76)) | (0x4 << 76); // version 4
    x = (x & !(0x3 << 62)) | (0x2 << 62); // RFC 4122 variant
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        x >> 96,
        (x >> 80) & 0xffff,
        (x >> 64) & 0xffff,
        (x >> 48) & 0xffff,
        x & 0xffff_ffff_ffff
    )
}

/// Whether an error of this kind ends the re-emitted stream as failed: the stream was cut
/// ([`ErrorKind::Truncated`]: a call cut mid-way, or a provider stream that ended without
/// its terminal event), the provider reported an error ([`ErrorKind::Provider`]), or the
/// input was not a stream of the format at all ([`ErrorKind::UnrecognizedInput`]). Every
/// other error is recoverable (one call failed, a tool was not declared, a payload was
/// skipped): the emitters report it and go on, so the calls and text around it reach the
/// client.
///
/// ```
/// use toolstream::{ErrorKind, emit::ends_the_stream};
/// assert!(ends_the_stream(ErrorKind::Truncated));
/// assert!(!ends_the_stream(ErrorKind::UndeclaredTool));
/// ```
pub fn ends_the_stream(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Truncated | ErrorKind::Provider | ErrorKind::UnrecognizedInput
    )
}

/// The known token counts of `u` as a JSON object, under the names `[input, output,
/// total]` of the protocol being written (absent counts left out, not null).
pub(crate) fn usage_counts(u: &Usage, names: [&str; 3]) -> Value {
    let mut o = serde_json::Map::new();
    for (k, v) in names
        .into_iter()
        .zip([u.input_tokens, u.output_tokens, u.total_tokens])
    {
        if let Some(v) = v {
            o.insert(k.into(), Value::from(v));
        }
    }
    Value::Object(o)
}

/// Writes one named SSE event: `event: <name>`, `data: <json>`, a blank line. Serializing
/// the emitters' borrowed structs and `Value`s cannot fail (string keys only); a failure
/// would only lose the event.
pub(crate) fn push_sse<T: Serialize>(out: &mut String, name: &str, data: &T) {
    if let Ok(json) = serde_json::to_string(data) {
        out.push_str("event: ");
        out.push_str(name);
        out.push_str("\ndata: ");
        out.push_str(&json);
        out.push_str("\n\n");
    }
}

/// A recoverable error as the extension object the Anthropic and Responses emitters write
/// (`{"type": <our kind>, "message", "index"?, "raw"}`).
pub(crate) fn error_object(
    kind: ErrorKind,
    message: &str,
    index: Option<usize>,
    raw: &str,
) -> Value {
    let mut o = serde_json::Map::new();
    o.insert("type".into(), Value::from(kind.as_str()));
    o.insert("message".into(), Value::from(message));
    if let Some(i) = index {
        o.insert("index".into(), Value::from(i));
    }
    o.insert("raw".into(), Value::from(raw));
    Value::Object(o)
}

/// Puts events in the order the block-structured APIs (Anthropic content blocks, Responses
/// output items) need: one tool call at a time.
///
/// Events pass straight through, except while a tool call's block is open: then the events
/// of every other call, text, reasoning and the finish are held back (in order) until that
/// call ends (its [`Event::ToolCallEnd`] or its error). Then the held events are released
/// in order; a held call that starts takes the block, and its own held events are released
/// with it, ahead of the others. Errors without a call index pass at once (they open no
/// block), and so does an error that [ends the stream](ends_the_stream) (the held events
/// are then dropped: the stream is over). Memory: the held events, bounded by the
/// parser's limits on calls and argument bytes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sequencer {
    /// The call whose block is open.
    current: Option<usize>,
    held: VecDeque<Event>,
}

impl Sequencer {
    /// The call whose block is open, if any.
    pub(crate) fn current(&self) -> Option<usize> {
        self.current
    }

    /// Hands `event` (and whatever it releases) to `write`, in the order to write them.
    pub(crate) fn push(&mut self, event: &Event, write: &mut impl FnMut(&Event)) {
        let Some(current) = self.current else {
            self.pass(event, write);
            self.release(write);
            return;
        };
        match event {
            e if e.index() == Some(current) => {
                self.pass(e, write);
                self.release(write);
            }
            Event::Error { kind, .. } if ends_the_stream(*kind) => {
                self.held.clear();
                write(event);
            }
            Event::Error { index: None, .. } => write(event),
            e => self.held.push_back(e.clone()),
        }
    }

    /// Writes `event` and tracks the open call.
    fn pass(&mut self, event: &Event, write: &mut impl FnMut(&Event)) {
        match event {
            Event::ToolCallStart { index, .. } => self.current = Some(*index),
            Event::Error { kind, .. } if ends_the_stream(*kind) => {
                self.held.clear();
                self.current = None;
            }
            e if e.is_call_end() && e.index() == self.current => self.current = None,
            _ => {}
        }
        write(event);
    }

    /// Releases held events while no call is open; a call that starts takes its own held
    /// events along.
    fn release(&mut self, write: &mut impl FnMut(&Event)) {
        while self.current.is_none() {
            let Some(e) = self.held.pop_front() else {
                return;
            };
            self.pass(&e, write);
            if let Some(c) = self.current {
                let mut i = 0;
                while self.current == Some(c) {
                    let Some(pos) = self
                        .held
                        .iter()
                        .skip(i)
                        .position(|h| h.index() == Some(c))
                        .map(|p| p + i)
                    else {
                        break;
                    };
                    if let Some(own) = self.held.remove(pos) {
                        self.pass(&own, write);
                    }
                    i = pos;
                }
            }
        }
    }
}

/// A call's arguments as the client APIs need them: an object. A call whose arguments are
/// another JSON value (a custom tool's free-form input is a JSON string, see
/// [`Format::OpenAiResponses`](crate::Format::OpenAiResponses)) is written inside
/// `{"input": <value>}`; a call that sent no argument text gets `{}`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ObjectArgs {
    /// The first non-whitespace byte has been seen.
    decided: bool,
    /// The arguments are not an object: wrapped.
    wrapped: bool,
}

impl ObjectArgs {
    /// The text to write for the argument delta `d`.
    pub(crate) fn delta<'a>(&mut self, d: &'a str) -> Cow<'a, str> {
        if self.decided {
            return Cow::Borrowed(d);
        }
        let Some(at) = d.find(|c: char| !c.is_ascii_whitespace()) else {
            return Cow::Borrowed(d);
        };
        self.decided = true;
        let (space, value) = d.split_at_checked(at).unwrap_or(("", d));
        self.wrapped = !value.starts_with('{');
        if self.wrapped {
            Cow::Owned(format!("{space}{{\"input\":{value}"))
        } else {
            Cow::Borrowed(d)
        }
    }

    /// The text that closes the arguments at the call's end: `}` for wrapped ones, `{}`
    /// when no value came, else nothing.
    pub(crate) fn end(&self) -> &'static str {
        if self.wrapped {
            "}"
        } else if !self.decided {
            "{}"
        } else {
            ""
        }
    }

    /// The parsed arguments as the client sees them (`{"input": v}` for a value that is
    /// not an object).
    pub(crate) fn value(arguments: &Value) -> Value {
        if arguments.is_object() {
            arguments.clone()
        } else {
            let mut o = serde_json::Map::new();
            o.insert("input".into(), arguments.clone());
            Value::Object(o)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(i: usize) -> Event {
        Event::ToolCallStart {
            index: i,
            id: format!("c{i}"),
            name: "f".into(),
        }
    }
    fn args(i: usize, d: &str) -> Event {
        Event::ToolCallArgs {
            index: i,
            delta: d.into(),
        }
    }
    fn end(i: usize) -> Event {
        Event::ToolCallEnd {
            index: i,
            id: format!("c{i}"),
            name: "f".into(),
            arguments: serde_json::json!({}),
        }
    }

    fn sequenced(events: &[Event]) -> Vec<Event> {
        let mut seq = Sequencer::default();
        let mut out = Vec::new();
        for e in events {
            seq.push(e, &mut |e: &Event| out.push(e.clone()));
        }
        out
    }

    #[test]
    fn interleaved_calls_come_out_one_after_the_other() {
        let text = Event::Text { delta: "t".into() };
        let events = [
            start(0),
            start(1),
            args(1, "{"),
            args(0, "{"),
            text.clone(),
            args(1, "}"),
            end(1),
            start(2),
            args(0, "}"),
            end(0),
            args(2, "{}"),
            end(2),
        ];
        assert_eq!(
            sequenced(&events),
            [
                start(0),
                args(0, "{"),
                args(0, "}"),
                end(0),
                start(1),
                args(1, "{"),
                args(1, "}"),
                end(1),
                text,
                start(2),
                args(2, "{}"),
                end(2),
            ]
        );
    }

    #[test]
    fn a_fatal_error_passes_at_once_and_drops_what_was_held() {
        let fatal = Event::Error {
            path: None,
            kind: ErrorKind::Truncated,
            message: "cut".into(),
            index: Some(0),
            raw: "{".into(),
        };
        let events = [start(0), start(1), args(1, "{}"), end(1), fatal.clone()];
        assert_eq!(sequenced(&events), [start(0), fatal]);
    }

    #[test]
    fn object_args_wrap_values_that_are_not_objects() {
        let mut a = ObjectArgs::default();
        assert_eq!(a.delta(" "), " ");
        assert_eq!(a.delta("\"x"), " {\"input\":\"x".trim_start());
        assert_eq!(a.delta("\""), "\"");
        assert_eq!(a.end(), "}");
        let mut b = ObjectArgs::default();
        assert_eq!(b.delta("{\"a\":1}"), "{\"a\":1}");
        assert_eq!(b.end(), "");
        assert_eq!(ObjectArgs::default().end(), "{}");
    }

    /// Every emitter's output for `events`, written with its hand-written paths and through
    /// `serde_json` only ([`json::serde_only`]), from clones of the same emitter (the
    /// Responses one makes up its item ids at construction).
    fn both_ways(events: &[Event], name: &str) -> Vec<String> {
        fn run<E: Clone>(
            em: &E,
            events: &[Event],
            event: impl Fn(&mut E, &Event, &mut String),
            finish: impl Fn(&mut E, &mut String),
        ) -> String {
            let mut em = em.clone();
            let mut out = String::new();
            for e in events {
                event(&mut em, e, &mut out);
            }
            finish(&mut em, &mut out);
            out
        }
        let mut failures = Vec::new();
        let mut compare = |what: &str, fast: String, slow: String| {
            if fast != slow {
                let at = fast
                    .bytes()
                    .zip(slow.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(fast.len().min(slow.len()));
                failures.push(format!(
                    "{name}, {what}: differ at byte {at}: hand {:?} vs serde {:?}",
                    fast.get(at.saturating_sub(40)..(at + 40).min(fast.len())),
                    slow.get(at.saturating_sub(40)..(at + 40).min(slow.len())),
                ));
            }
        };
        let tricky = "id \"\u{1}\n\\/é😀";
        for usage in [false, true] {
            let chat = OpenAiChatEmitter::new()
                .id(tricky)
                .model(tricky)
                .created(7)
                .include_usage(usage);
            let ev = |e: &mut OpenAiChatEmitter, x: &Event, o: &mut String| e.event(x, o);
            let fin = |e: &mut OpenAiChatEmitter, o: &mut String| e.finish(o);
            compare(
                "openai-chat",
                run(&chat, events, ev, fin),
                json::serde_only(|| run(&chat, events, ev, fin)),
            );
        }
        let anthropic = AnthropicEmitter::new().id(tricky).model(tricky);
        let ev = |e: &mut AnthropicEmitter, x: &Event, o: &mut String| e.event(x, o);
        let fin = |e: &mut AnthropicEmitter, o: &mut String| e.finish(o);
        compare(
            "anthropic",
            run(&anthropic, events, ev, fin),
            json::serde_only(|| run(&anthropic, events, ev, fin)),
        );
        for summary in [false, true] {
            let responses = OpenAiResponsesEmitter::new()
                .id(tricky)
                .model(tricky)
                .created_at(7)
                .reasoning_summary(summary);
            let ev = |e: &mut OpenAiResponsesEmitter, x: &Event, o: &mut String| e.event(x, o);
            let fin = |e: &mut OpenAiResponsesEmitter, o: &mut String| e.finish(o);
            compare(
                "openai-responses",
                run(&responses, events, ev, fin),
                json::serde_only(|| run(&responses, events, ev, fin)),
            );
        }
        failures
    }

    /// The hand-written JSON of the emitters' hot paths is byte for byte what `serde_json`
    /// wrote before them: every recorded capture (fed whole and in 7-byte pieces, so with
    /// small deltas), through every emitter that has such paths.
    #[test]
    fn hand_written_output_is_serde_jsons_for_every_capture() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/captures");
        let Ok(table) = std::fs::read(dir.join("FORMATS.json")) else {
            eprintln!(
                "SKIPPED: no captures at {} (check out the shared captures beside the repository)",
                dir.display()
            );
            return;
        };
        let table: serde_json::Map<String, Value> =
            serde_json::from_slice(&table).unwrap_or_default();
        let (mut checked, mut failures) = (0, Vec::new());
        for (path, v) in &table {
            let format = v["format"].as_str().unwrap_or("");
            let (Ok(f), Ok(framing)) = (
                format.parse::<crate::Format>(),
                v["framing"]
                    .as_str()
                    .unwrap_or("sse")
                    .parse::<crate::Framing>(),
            ) else {
                eprintln!("SKIPPED: {path}: format {format} not in this build");
                continue;
            };
            let Ok(bytes) = std::fs::read(dir.join(path)) else {
                failures.push(format!("{path}: unreadable"));
                continue;
            };
            for chunk in [usize::MAX, 7] {
                let mut p =
                    crate::Parser::with_config(f, crate::ParserConfig::new().framing(framing));
                let mut events = Vec::new();
                for c in bytes.chunks(chunk) {
                    let _ = p.feed(c, &mut events);
                }
                let _ = p.finish(&mut events);
                failures.extend(both_ways(&events, path));
                checked += 1;
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(checked > 100, "only {checked} capture runs");
    }

    /// The same for random strings of control characters, quotes, backslashes and
    /// non-ASCII in every field the hand-written paths write, and for every event kind.
    #[test]
    fn hand_written_output_is_serde_jsons_for_random_strings() {
        let strings = json::tests::tricky_strings(0xc0ffee, 300);
        let mut events = Vec::new();
        for (i, s) in strings.iter().enumerate() {
            let index = i / 4;
            events.push(match i % 6 {
                0 => Event::Text { delta: s.clone() },
                1 => Event::Reasoning { delta: s.clone() },
                2 => start(index),
                3 => args(index, s),
                4 => Event::ToolCallStart {
                    index: 1000 + i,
                    id: s.clone(),
                    name: s.clone(),
                },
                _ => args(1000 + i - 1, &format!("\"{}", s.replace(['"', '\\'], ""))),
            });
            if i % 6 == 5 {
                events.push(end(1000 + i - 1));
            }
            if i % 4 == 3 {
                events.push(end(index));
            }
        }
        events.push(Event::Error {
            path: None,
            kind: ErrorKind::InvalidArguments,
            message: strings.get(5).cloned().unwrap_or_default(),
            index: None,
            raw: strings.get(6).cloned().unwrap_or_default(),
        });
        events.push(Event::Finish {
            reason: Some(crate::FinishReason::ToolCalls),
            usage: Some(Usage::from_value(
                serde_json::json!({"input_tokens": 3, "output_tokens": 4}),
                &["input_tokens"],
                &["output_tokens"],
            )),
        });
        let failures = both_ways(&events, "random strings");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn fresh_uuids_differ_and_have_the_v4_layout() {
        let ids: Vec<String> = (0..100).map(|_| super::fresh_uuid()).collect();
        let set: std::collections::BTreeSet<&String> = ids.iter().collect();
        assert_eq!(set.len(), ids.len());
        for id in &ids {
            let parts: Vec<&str> = id.split('-').collect();
            assert_eq!(
                parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
                [8, 4, 4, 4, 12]
            );
            assert!(parts[2].starts_with('4'), "{id}");
            assert!("89ab".contains(&parts[3][..1]), "{id}");
        }
    }
}
