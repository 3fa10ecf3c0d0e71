//! The event model every format decodes into.
//!
//! See the crate docs for the invariants (one `ToolCallStart`, then `ToolCallArgs`, then
//! exactly one `ToolCallEnd` or `Error` per call index; split invariance; nothing lost).

use serde::Serialize;
use serde_json::Value;

/// One thing that happened in the response.
///
/// Serializes (with `serde_json`) to the JSON lines of the CLI, `type` first:
///
/// ```
/// use toolstream::Event;
/// let e = Event::ToolCallStart { index: 0, id: "call_1".into(), name: "get_weather".into() };
/// assert_eq!(
///     serde_json::to_string(&e).unwrap(),
///     r#"{"type":"tool_call_start","index":0,"id":"call_1","name":"get_weather"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// Visible assistant text. Never contains tool-call syntax.
    Text {
        /// The new text.
        delta: String,
    },
    /// Thinking / reasoning text, where the format marks it as such.
    Reasoning {
        /// The new reasoning text.
        delta: String,
    },
    /// A tool call began; emitted as soon as its name is complete.
    ToolCallStart {
        /// Dense call index within the response, counting from 0.
        index: usize,
        /// The provider's call id, or a generated one (`<prefix><index>`, see
        /// [`ParserConfig::id_prefix`](crate::ParserConfig::id_prefix)) when none was sent.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// A fragment of the call's arguments as JSON text. The fragments of a call,
    /// concatenated, are JSON text whose value equals the `ToolCallEnd` arguments.
    ToolCallArgs {
        /// Dense call index.
        index: usize,
        /// The new argument text.
        delta: String,
    },
    /// Decoded text of one value inside a call's arguments, as it streams (opt-in:
    /// [`ParserConfig::field_events`](crate::ParserConfig::field_events)). Emitted right after the
    /// `ToolCallArgs` delta that carried it.
    ///
    /// For a string value, `delta` is more of its text with escapes resolved; the deltas
    /// of one `path`, concatenated, are the string. A number, `true`, `false` or `null`
    /// arrives as one event holding its JSON text, when it has closed. `kind` tells which
    /// (the string `"30"` and the number `30` both have the delta `30`). Objects and arrays
    /// produce no field events of their own (their members and elements do). Every value
    /// that has field events, and every string (an empty one has only this end), ends
    /// with a [`ToolCallFieldEnd`](Event::ToolCallFieldEnd).
    ///
    /// ```
    /// use toolstream::{Event, FieldKind};
    /// let e = Event::ToolCallField {
    ///     index: 0,
    ///     path: "/content".into(),
    ///     delta: "line 1\n".into(),
    ///     kind: FieldKind::String,
    /// };
    /// assert_eq!(
    ///     serde_json::to_string(&e).unwrap(),
    ///     r#"{"type":"tool_call_field","index":0,"path":"/content","delta":"line 1\n","kind":"string"}"#
    /// );
    /// ```
    ToolCallField {
        /// Dense call index.
        index: usize,
        /// RFC 6901 JSON Pointer of the value within the arguments (`/a/0/b`; `~` and
        /// `/` in keys written `~0`, `~1`; `""` when the arguments are themselves a string).
        path: String,
        /// Decoded string text, or the JSON text of a number or literal.
        delta: String,
        /// The value's JSON type: whether `delta` is string text or the JSON text of a
        /// number, boolean or null.
        kind: FieldKind,
    },
    /// The value at `path` in a call's arguments closed (opt-in, with
    /// [`ToolCallField`](Event::ToolCallField)).
    ToolCallFieldEnd {
        /// Dense call index.
        index: usize,
        /// JSON Pointer of the value that closed.
        path: String,
    },
    /// A tool call finished; its arguments parsed.
    ToolCallEnd {
        /// Dense call index.
        index: usize,
        /// Same id as in the `ToolCallStart`.
        id: String,
        /// Same name as in the `ToolCallStart`.
        name: String,
        /// The parsed arguments (`{}` when the call sent none).
        arguments: Value,
    },
    /// The response finished.
    Finish {
        /// The provider's stop reason, normalised.
        reason: Option<FinishReason>,
        /// Token usage, if the provider sent it.
        usage: Option<Usage>,
    },
    /// A provider error, or input the parser could not accept. Carries what was
    /// received, so nothing is lost.
    Error {
        /// What went wrong.
        kind: ErrorKind,
        /// A human-readable description.
        message: String,
        /// The call this error replaces the `ToolCallEnd` of, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        index: Option<usize>,
        /// The raw bytes received (lossily decoded as UTF-8).
        raw: String,
        /// For a [`SchemaViolation`](ErrorKind::SchemaViolation): the JSON Pointer of the
        /// offending value within the call's arguments (`""`: the arguments themselves).
        /// Serialized only when present.
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<String>,
    },
}

impl Event {
    /// The call index this event belongs to, if any.
    pub fn index(&self) -> Option<usize> {
        match self {
            Event::ToolCallStart { index, .. }
            | Event::ToolCallArgs { index, .. }
            | Event::ToolCallField { index, .. }
            | Event::ToolCallFieldEnd { index, .. }
            | Event::ToolCallEnd { index, .. } => Some(*index),
            Event::Error { index, .. } => *index,
            _ => None,
        }
    }

    /// Whether this event ends a call (its `ToolCallEnd`, or the `Error` that replaces it).
    pub fn is_call_end(&self) -> bool {
        matches!(
            self,
            Event::ToolCallEnd { .. } | Event::Error { index: Some(_), .. }
        )
    }
}

/// The JSON type of the value a [`ToolCallField`](Event::ToolCallField) event carries:
/// its `delta` is string text ([`String`](FieldKind::String), decoded, possibly one piece of
/// several) or the whole JSON text of a number, boolean or null. Serialized as its
/// [`name`](FieldKind::name), the JSON Schema type name (`"kind":"number"` in the CLI's JSON
/// lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FieldKind {
    /// A string: `delta` is more of its decoded text.
    String,
    /// A number: `delta` is its JSON text (`30`, `-1.5e3`), exactly as sent.
    Number,
    /// `true` or `false`.
    Boolean,
    /// `null`.
    Null,
}

impl FieldKind {
    /// The JSON Schema type name: `string`, `number`, `boolean`, `null`.
    pub fn name(self) -> &'static str {
        match self {
            FieldKind::String => "string",
            FieldKind::Number => "number",
            FieldKind::Boolean => "boolean",
            FieldKind::Null => "null",
        }
    }
}

impl std::fmt::Display for FieldKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An [`Event`] whose text borrows from the input or from the parser's held bytes: what
/// [`Parser::feed_into`](crate::Parser::feed_into) hands to an [`EventSink`], without an
/// allocation per event. [`EventRef::to_owned`] (or the `Vec<Event>` sink) makes an
/// [`Event`] of it. Serializes exactly as the `Event` it stands for.
///
/// ```
/// use toolstream::{Event, EventRef};
/// let e = EventRef::Text { delta: "Hi" };
/// assert_eq!(e.to_owned(), Event::Text { delta: "Hi".into() });
/// assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"type":"text","delta":"Hi"}"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum EventRef<'a> {
    /// [`Event::Text`].
    Text {
        /// The new text.
        delta: &'a str,
    },
    /// [`Event::Reasoning`].
    Reasoning {
        /// The new reasoning text.
        delta: &'a str,
    },
    /// [`Event::ToolCallStart`].
    ToolCallStart {
        /// Dense call index.
        index: usize,
        /// The call id.
        id: &'a str,
        /// The tool's name.
        name: &'a str,
    },
    /// [`Event::ToolCallArgs`].
    ToolCallArgs {
        /// Dense call index.
        index: usize,
        /// The new argument text.
        delta: &'a str,
    },
    /// [`Event::ToolCallField`].
    ToolCallField {
        /// Dense call index.
        index: usize,
        /// JSON Pointer of the value.
        path: &'a str,
        /// Decoded string text, or the JSON text of a number or literal.
        delta: &'a str,
        /// The value's JSON type.
        kind: FieldKind,
    },
    /// [`Event::ToolCallFieldEnd`].
    ToolCallFieldEnd {
        /// Dense call index.
        index: usize,
        /// JSON Pointer of the value that closed.
        path: &'a str,
    },
    /// [`Event::ToolCallEnd`].
    ToolCallEnd {
        /// Dense call index.
        index: usize,
        /// The call id.
        id: &'a str,
        /// The tool's name.
        name: &'a str,
        /// The parsed arguments.
        arguments: &'a Value,
    },
    /// [`Event::Finish`].
    Finish {
        /// The provider's stop reason, normalised.
        reason: Option<&'a FinishReason>,
        /// Token usage, if the provider sent it.
        usage: Option<&'a Usage>,
    },
    /// [`Event::Error`].
    Error {
        /// What went wrong.
        kind: ErrorKind,
        /// A human-readable description.
        message: &'a str,
        /// The call this error replaces the `ToolCallEnd` of, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        index: Option<usize>,
        /// The raw bytes received (lossily decoded as UTF-8).
        raw: &'a str,
        /// The JSON Pointer of the offending value, for a schema violation.
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<&'a str>,
    },
}

impl EventRef<'_> {
    /// The owned [`Event`] (allocates its strings).
    #[allow(clippy::should_implement_trait)]
    pub fn to_owned(&self) -> Event {
        match *self {
            EventRef::Text { delta } => Event::Text {
                delta: delta.to_owned(),
            },
            EventRef::Reasoning { delta } => Event::Reasoning {
                delta: delta.to_owned(),
            },
            EventRef::ToolCallStart { index, id, name } => Event::ToolCallStart {
                index,
                id: id.to_owned(),
                name: name.to_owned(),
            },
            EventRef::ToolCallArgs { index, delta } => Event::ToolCallArgs {
                index,
                delta: delta.to_owned(),
            },
            EventRef::ToolCallField {
                index,
                path,
                delta,
                kind,
            } => Event::ToolCallField {
                index,
                path: path.to_owned(),
                delta: delta.to_owned(),
                kind,
            },
            EventRef::ToolCallFieldEnd { index, path } => Event::ToolCallFieldEnd {
                index,
                path: path.to_owned(),
            },
            EventRef::ToolCallEnd {
                index,
                id,
                name,
                arguments,
            } => Event::ToolCallEnd {
                index,
                id: id.to_owned(),
                name: name.to_owned(),
                arguments: arguments.clone(),
            },
            EventRef::Finish { reason, usage } => Event::Finish {
                reason: reason.cloned(),
                usage: usage.cloned(),
            },
            EventRef::Error {
                kind,
                message,
                index,
                raw,
                path,
            } => Event::Error {
                kind,
                message: message.to_owned(),
                index,
                raw: raw.to_owned(),
                path: path.map(str::to_owned),
            },
        }
    }

    /// The call index this event belongs to, if any (as [`Event::index`]).
    pub fn index(&self) -> Option<usize> {
        match *self {
            EventRef::ToolCallStart { index, .. }
            | EventRef::ToolCallArgs { index, .. }
            | EventRef::ToolCallField { index, .. }
            | EventRef::ToolCallFieldEnd { index, .. }
            | EventRef::ToolCallEnd { index, .. } => Some(index),
            EventRef::Error { index, .. } => index,
            _ => None,
        }
    }
}

impl Event {
    /// This event, borrowed.
    pub fn as_ref(&self) -> EventRef<'_> {
        match self {
            Event::Text { delta } => EventRef::Text { delta },
            Event::Reasoning { delta } => EventRef::Reasoning { delta },
            Event::ToolCallStart { index, id, name } => EventRef::ToolCallStart {
                index: *index,
                id,
                name,
            },
            Event::ToolCallArgs { index, delta } => EventRef::ToolCallArgs {
                index: *index,
                delta,
            },
            Event::ToolCallField {
                index,
                path,
                delta,
                kind,
            } => EventRef::ToolCallField {
                index: *index,
                path,
                delta,
                kind: *kind,
            },
            Event::ToolCallFieldEnd { index, path } => EventRef::ToolCallFieldEnd {
                index: *index,
                path,
            },
            Event::ToolCallEnd {
                index,
                id,
                name,
                arguments,
            } => EventRef::ToolCallEnd {
                index: *index,
                id,
                name,
                arguments,
            },
            Event::Finish { reason, usage } => EventRef::Finish {
                reason: reason.as_ref(),
                usage: usage.as_ref(),
            },
            Event::Error {
                kind,
                message,
                index,
                raw,
                path,
            } => EventRef::Error {
                kind: *kind,
                message,
                index: *index,
                raw,
                path: path.as_deref(),
            },
        }
    }
}

/// Where a parser delivers its events: the caller owns the output (as in `httparse`).
///
/// [`Parser::feed_into`](crate::Parser::feed_into) calls [`event`](EventSink::event) with
/// borrowed events, so a sink that looks at them (a UI, a counter, a writer of JSON lines)
/// costs no allocation per event. `Vec<Event>` is a sink that keeps owned copies; it is
/// what [`Parser::feed`](crate::Parser::feed) uses.
///
/// ```
/// use toolstream::{EventRef, EventSink, Format, Parser};
///
/// /// Counts visible text bytes and remembers call names.
/// #[derive(Default)]
/// struct Watch { text: usize, names: Vec<String> }
/// impl EventSink for Watch {
///     fn event(&mut self, e: EventRef<'_>) {
///         match e {
///             EventRef::Text { delta } => self.text += delta.len(),
///             EventRef::ToolCallStart { name, .. } => self.names.push(name.to_owned()),
///             _ => {}
///         }
///     }
/// }
///
/// let mut p = Parser::new(Format::Hermes);
/// let mut w = Watch::default();
/// p.feed_into(b"Hi <tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>", &mut w).unwrap();
/// p.finish_into(&mut w).unwrap();
/// // "Hi ": the text before the call, its space included.
/// assert_eq!((w.text, w.names), (3, vec!["f".to_owned()]));
/// ```
pub trait EventSink {
    /// One event, borrowed for the call.
    fn event(&mut self, event: EventRef<'_>);

    /// One event the parser already owns (rare events: ends, errors, finishes). The
    /// default lends it to [`event`](EventSink::event); a sink that keeps owned events
    /// takes it as it is.
    fn push(&mut self, event: Event) {
        self.event(event.as_ref());
    }
}

impl EventSink for Vec<Event> {
    #[inline]
    fn event(&mut self, event: EventRef<'_>) {
        Vec::push(self, event.to_owned());
    }

    #[inline]
    fn push(&mut self, event: Event) {
        Vec::push(self, event);
    }
}

impl<S: EventSink + ?Sized> EventSink for &mut S {
    #[inline]
    fn event(&mut self, event: EventRef<'_>) {
        (**self).event(event);
    }

    #[inline]
    fn push(&mut self, event: Event) {
        (**self).push(event);
    }
}

/// A sink that counts what passes through it to another (the parser's "did this feed
/// emit anything" bookkeeping).
pub(crate) struct Counting<'a> {
    pub(crate) inner: &'a mut dyn EventSink,
    pub(crate) count: usize,
}

impl EventSink for Counting<'_> {
    #[inline]
    fn event(&mut self, event: EventRef<'_>) {
        self.count += 1;
        self.inner.event(event);
    }

    #[inline]
    fn push(&mut self, event: Event) {
        self.count += 1;
        self.inner.push(event);
    }
}

/// What a response said about itself, where its format sends it: the provider's response
/// id, model name and creation time. Read it with
/// [`Parser::response_meta`](crate::Parser::response_meta); the OpenAI emitter passes it on
/// ([`OpenAiChatEmitter::response_meta`](crate::emit::OpenAiChatEmitter::response_meta)).
///
/// Filled from `openai-chat` chunks (`id`, `model`, `created`), Anthropic's `message_start`
/// (`message.id`, `message.model`), the Responses API's `response` object (`id`, `model`,
/// `created_at`), Gemini chunks (`responseId`, `modelVersion`, Vertex AI's RFC 3339
/// `createTime`), Cohere's `message-start` (`id`) and Ollama lines (`model`, RFC 3339
/// `created_at`); the first non-empty value of each wins. Bedrock's ConverseStream and
/// Llama Stack's inference stream send none of them. Kept apart from the [`Event`]s: it is not something that happened
/// in the response, and most callers never look at it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ResponseMeta {
    /// The provider's response id (`chatcmpl-…`, `msg_…`, `resp_…`).
    pub id: Option<String>,
    /// The model that answered, as the provider named it.
    pub model: Option<String>,
    /// Creation time, Unix seconds.
    pub created: Option<u64>,
}

impl ResponseMeta {
    /// Fills the fields still unknown from a payload's raw JSON values (their JSON text:
    /// a string id and model, an integer time); values of another type, and empty
    /// strings, are ignored.
    pub(crate) fn fill(&mut self, id: Option<&str>, model: Option<&str>, created: Option<&str>) {
        fn string(raw: Option<&str>) -> Option<String> {
            raw.and_then(|r| serde_json::from_str::<String>(r).ok())
                .filter(|s| !s.is_empty())
        }
        if self.id.is_none() {
            self.id = string(id);
        }
        if self.model.is_none() {
            self.model = string(model);
        }
        if self.created.is_none() {
            self.created = created.and_then(|r| serde_json::from_str::<u64>(r).ok());
        }
    }

    /// Fills the creation time, when still unknown, from a payload's raw JSON string of an
    /// RFC 3339 time (`"2025-07-29T17:37:08.301403Z"`, Ollama's `created_at`, Vertex AI's
    /// `createTime`): Unix seconds, the fraction dropped. Anything else is ignored.
    pub(crate) fn fill_time(&mut self, time: Option<&str>) {
        if self.created.is_none() {
            self.created = time
                .and_then(|r| serde_json::from_str::<String>(r).ok())
                .and_then(|s| unix_seconds(&s));
        }
    }
}

/// An RFC 3339 time (`2025-07-29T17:37:08.301403Z`, `2025-07-29T19:37:08+02:00`) as Unix
/// seconds, its fraction dropped; `None` when malformed or before 1970. By hand: one
/// conversion does not justify a date crate.
fn unix_seconds(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let digits = |from: usize, to: usize| -> Option<i64> {
        let t = s.get(from..to)?;
        if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    let sep = |i: usize, c: &[u8]| b.get(i).is_some_and(|x| c.contains(x));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let (y, mo, d) = (digits(0, 4)?, digits(5, 7)?, digits(8, 10)?);
    let (h, mi, sec) = (digits(11, 13)?, digits(14, 16)?, digits(17, 19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut rest = s.get(19..)?;
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        rest = frac.get(n..)?;
    }
    let offset = match rest.as_bytes() {
        b"Z" | b"z" => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let (oh, om) = (
                digits(s.len() - 5, s.len() - 3)?,
                digits(s.len() - 2, s.len())?,
            );
            if oh > 23 || om > 59 {
                return None;
            }
            let o = oh * 3600 + om * 60;
            if *sign == b'-' { -o } else { o }
        }
        _ => return None,
    };
    // Days from 1970-01-01 to the civil date (Howard Hinnant's `days_from_civil`).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((mo + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + h * 3600 + mi * 60 + sec - offset).ok()
}

/// Why the response stopped, normalised across providers.
///
/// Serializes as a snake_case string; provider reasons with no common equivalent are
/// kept as given (lower-cased) in [`FinishReason::Other`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FinishReason {
    /// The model finished its turn.
    Stop,
    /// The model stopped to call tools. Reported whenever the response held a call,
    /// even when the provider said `stop` (several OpenAI-compatible servers do).
    ToolCalls,
    /// A token limit was hit.
    Length,
    /// Output was withheld by a content filter / safety system.
    ContentFilter,
    /// The provider reported an error as the stop reason.
    Error,
    /// Anything else, as the provider spelled it (lower-cased).
    Other(String),
}

impl FinishReason {
    /// Normalises a provider's stop reason.
    ///
    /// ```
    /// use toolstream::FinishReason;
    /// assert_eq!(FinishReason::from_provider("end_turn"), FinishReason::Stop);
    /// assert_eq!(FinishReason::from_provider("tool_use"), FinishReason::ToolCalls);
    /// assert_eq!(FinishReason::from_provider("MAX_TOKENS"), FinishReason::Length);
    /// ```
    pub fn from_provider(s: &str) -> Self {
        let lower = s.to_ascii_lowercase();
        match lower.as_str() {
            "stop" | "end_turn" | "stop_sequence" | "complete" | "end_of_turn"
            | "end_of_message" | "eos" | "eos_token" | "finished" => FinishReason::Stop,
            "tool_calls" | "tool_call" | "tool_use" | "function_call" | "tool-calls" => {
                FinishReason::ToolCalls
            }
            "length" | "max_tokens" | "max_output_tokens" | "out_of_tokens" => FinishReason::Length,
            "content_filter"
            | "safety"
            | "recitation"
            | "blocklist"
            | "prohibited_content"
            | "spii"
            | "refusal"
            | "guardrail_intervened"
            | "content_filtered" => FinishReason::ContentFilter,
            "error" | "malformed_function_call" => FinishReason::Error,
            _ => FinishReason::Other(lower),
        }
    }

    /// The normalised name, as serialized.
    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::Length => "length",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Error => "error",
            FinishReason::Other(s) => s,
        }
    }
}

impl Serialize for FinishReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Token usage, normalised, with the provider's own object kept.
///
/// Normalised so that `input_tokens + output_tokens = total_tokens` whatever the provider's
/// accounting: reasoning (thinking) tokens are counted in `output_tokens` (added where the
/// provider counts them apart: Gemini's `thoughtsTokenCount`, xAI's `reasoning_tokens`
/// outside `completion_tokens`), tokens read from or written to a prompt cache in
/// `input_tokens` (added where the provider counts them apart: Anthropic's
/// `cache_read_input_tokens` / `cache_creation_input_tokens`, Bedrock's
/// `cacheReadInputTokens` / `cacheWriteInputTokens`). [`raw`](Usage::raw) is the
/// provider's object as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[non_exhaustive]
pub struct Usage {
    /// Prompt / input tokens, cached ones included.
    pub input_tokens: Option<u64>,
    /// Completion / output tokens, reasoning ones included.
    pub output_tokens: Option<u64>,
    /// Total tokens, as sent or computed from the two above.
    pub total_tokens: Option<u64>,
    /// Of `output_tokens`, the reasoning / thinking tokens, where the provider reports them
    /// (OpenAI `completion_tokens_details.reasoning_tokens`, Responses
    /// `output_tokens_details.reasoning_tokens`, Gemini `thoughtsTokenCount`, Anthropic
    /// `output_tokens_details.thinking_tokens`).
    pub reasoning_tokens: Option<u64>,
    /// Of `input_tokens`, the tokens read from the provider's prompt cache, where it reports
    /// them (OpenAI `prompt_tokens_details.cached_tokens`, Responses
    /// `input_tokens_details.cached_tokens`, DeepSeek `prompt_cache_hit_tokens`, Gemini
    /// `cachedContentTokenCount`, Anthropic `cache_read_input_tokens`, Bedrock
    /// `cacheReadInputTokens`, Cohere `cached_tokens`).
    pub cached_input_tokens: Option<u64>,
    /// The provider's usage object as sent.
    pub raw: Value,
}

/// Where providers put their reasoning-token count (JSON pointers), first found wins.
const REASONING_AT: [&str; 4] = [
    "/completion_tokens_details/reasoning_tokens",
    "/output_tokens_details/reasoning_tokens",
    "/output_tokens_details/thinking_tokens",
    "/reasoning_tokens",
];

/// Where providers put their cached-input-token count (JSON pointers), first found wins.
const CACHED_AT: [&str; 4] = [
    "/prompt_tokens_details/cached_tokens",
    "/input_tokens_details/cached_tokens",
    "/prompt_cache_hit_tokens",
    "/cached_tokens",
];

impl Usage {
    /// Builds usage from a provider object, reading the first present key of each list;
    /// the reasoning and cached counts from their usual places ([`REASONING_AT`],
    /// [`CACHED_AT`]). Output tokens that leave the reasoning out (the total sent is input
    /// + output + reasoning, as xAI sends it) get it added.
    pub(crate) fn from_value(raw: Value, input_keys: &[&str], output_keys: &[&str]) -> Self {
        let get = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| raw.get(*k).and_then(Value::as_u64))
        };
        let at = |pointers: &[&str]| {
            pointers
                .iter()
                .find_map(|p| raw.pointer(p).and_then(Value::as_u64))
        };
        let input_tokens = get(input_keys);
        let mut output_tokens = get(output_keys);
        let sent_total = get(&["total_tokens", "totalTokenCount", "totalTokens"]);
        let reasoning_tokens = at(&REASONING_AT);
        if let (Some(i), Some(o), Some(r), Some(t)) =
            (input_tokens, output_tokens, reasoning_tokens, sent_total)
            && r > 0
            && i.checked_add(o) != Some(t)
            && i.checked_add(o).and_then(|n| n.checked_add(r)) == Some(t)
        {
            output_tokens = Some(o + r);
        }
        let mut u = Usage {
            input_tokens,
            output_tokens,
            total_tokens: sent_total,
            reasoning_tokens,
            cached_input_tokens: at(&CACHED_AT),
            raw,
        };
        u.total_tokens = u.total_tokens.or_else(|| u.sum());
        u
    }

    /// `input_tokens + output_tokens`, when both are known.
    fn sum(&self) -> Option<u64> {
        self.input_tokens?.checked_add(self.output_tokens?)
    }

    /// Adds tokens the provider counts apart from its input count (cache reads and
    /// writes, tool-use prompts) to `input_tokens` (and to the total, unless the provider
    /// sent one).
    pub(crate) fn add_input(&mut self, extra: u64) {
        if extra == 0 {
            return;
        }
        self.input_tokens = self.input_tokens.map(|i| i.saturating_add(extra));
        if !self.raw_has_total() {
            self.total_tokens = self.sum();
        }
    }

    /// Adds tokens the provider counts apart from its output count (Gemini's thoughts) to
    /// `output_tokens` (and to the total, unless the provider sent one).
    pub(crate) fn add_output(&mut self, extra: u64) {
        if extra == 0 {
            return;
        }
        self.output_tokens = self.output_tokens.map(|o| o.saturating_add(extra));
        if !self.raw_has_total() {
            self.total_tokens = self.sum();
        }
    }

    /// Whether the provider's object holds a total of its own.
    fn raw_has_total(&self) -> bool {
        ["total_tokens", "totalTokenCount", "totalTokens"]
            .iter()
            .any(|k| self.raw.get(*k).is_some_and(Value::is_u64))
    }

    /// The count at `key` of the provider's object.
    pub(crate) fn raw_count(&self, key: &str) -> Option<u64> {
        self.raw.get(key).and_then(Value::as_u64)
    }
}

/// What an [`Event::Error`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The provider sent an error (an error object, an `error` event, an exception).
    Provider,
    /// A payload was not valid JSON.
    InvalidJson,
    /// A payload was JSON but not of the shape the format expects.
    UnexpectedPayload,
    /// A call's arguments were not valid JSON (or not convertible to JSON).
    InvalidArguments,
    /// Text after a call's arguments had already closed.
    TrailingArguments,
    /// The stream ended (or a call was abandoned) before the call was complete.
    Truncated,
    /// A call arrived without a tool name.
    MissingName,
    /// A configured limit was exceeded.
    LimitExceeded,
    /// The byte framing (SSE line, event-stream message, JSON array) was broken.
    Framing,
    /// Bytes that were not valid UTF-8 where text was required.
    InvalidUtf8,
    /// A call to a tool the request did not declare ([`ParserConfig::tools`]). The call is not
    /// emitted (no `ToolCallStart`, no index); this error, without an index, carries its
    /// raw text. Off with [`ParserConfig::reject_undeclared`]`(false)`.
    ///
    /// [`ParserConfig::tools`]: crate::ParserConfig::tools
    /// [`ParserConfig::reject_undeclared`]: crate::ParserConfig::reject_undeclared
    UndeclaredTool,
    /// The input was not empty but produced no event at all: most often a wrong format
    /// or framing. Emitted by [`Parser::finish`](crate::Parser::finish); `raw` holds the
    /// input's first bytes.
    UnrecognizedInput,
    /// A call's arguments broke its tool's JSON Schema
    /// ([`ParserConfig::validate_arguments`](crate::ParserConfig::validate_arguments)):
    /// reported at the first byte no valid continuation can follow, with the offending
    /// value's JSON Pointer in `path`. The call gets no `ToolCallEnd`.
    SchemaViolation,
    /// A call's argument text repeated one period more than
    /// [`ParserConfig::max_repeats`](crate::ParserConfig::max_repeats) times in a row (a
    /// runaway loop). The call gets no `ToolCallEnd`.
    Repetition,
}

impl ErrorKind {
    /// The snake_case name, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Provider => "provider",
            ErrorKind::InvalidJson => "invalid_json",
            ErrorKind::UnexpectedPayload => "unexpected_payload",
            ErrorKind::InvalidArguments => "invalid_arguments",
            ErrorKind::TrailingArguments => "trailing_arguments",
            ErrorKind::Truncated => "truncated",
            ErrorKind::MissingName => "missing_name",
            ErrorKind::LimitExceeded => "limit_exceeded",
            ErrorKind::Framing => "framing",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::UndeclaredTool => "undeclared_tool",
            ErrorKind::UnrecognizedInput => "unrecognized_input",
            ErrorKind::SchemaViolation => "schema_violation",
            ErrorKind::Repetition => "repetition",
        }
    }
}

/// Merges adjacent deltas of the same kind and index, in place.
///
/// Split invariance is stated over merged events: any chunking of the input gives the
/// same events once this is applied.
///
/// Field events ([`Event::ToolCallField`], [`Event::ToolCallFieldEnd`]) follow the
/// `ToolCallArgs` delta that carried them, so a call's argument and field events
/// interleave differently for each chunking. Within a run of one call's argument and
/// field events, the `ToolCallArgs` deltas merge into the run's first one (across the
/// field events between them) and a `ToolCallField` merges into the previous field event
/// when that is a `ToolCallField` of the same path (across argument deltas only).
///
/// ```
/// use toolstream::{Event, merge_deltas};
/// let mut v = vec![
///     Event::Text { delta: "Hel".into() },
///     Event::Text { delta: "lo".into() },
/// ];
/// merge_deltas(&mut v);
/// assert_eq!(v, vec![Event::Text { delta: "Hello".into() }]);
///
/// let args = |d: &str| Event::ToolCallArgs { index: 0, delta: d.into() };
/// let field = |d: &str| Event::ToolCallField {
///     index: 0,
///     path: "/s".into(),
///     delta: d.into(),
///     kind: toolstream::FieldKind::String,
/// };
/// let mut v = vec![args(r#"{"s":"a"#), field("a"), args(r#"b"}"#), field("b")];
/// merge_deltas(&mut v);
/// assert_eq!(v, vec![args(r#"{"s":"ab"}"#), field("ab")]);
/// ```
pub fn merge_deltas(events: &mut Vec<Event>) {
    /// A run of one call's argument and field events in `out`.
    struct Run {
        index: usize,
        /// Position of the run's first `ToolCallArgs`.
        args: Option<usize>,
        /// Position of the run's last field event.
        field: Option<usize>,
    }
    impl Run {
        /// The current run if it is call `index`'s, else a new one for it.
        fn of(run: &mut Option<Run>, index: usize) -> &mut Run {
            if run.as_ref().is_some_and(|r| r.index != index) {
                *run = None;
            }
            run.get_or_insert(Run {
                index,
                args: None,
                field: None,
            })
        }
    }
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    let mut run: Option<Run> = None;
    for e in events.drain(..) {
        match e {
            Event::ToolCallArgs { index, delta } => {
                if delta.is_empty() {
                    continue;
                }
                let r = Run::of(&mut run, index);
                if let Some(Event::ToolCallArgs { delta: a, .. }) =
                    r.args.and_then(|p| out.get_mut(p))
                {
                    a.push_str(&delta);
                } else {
                    r.args = Some(out.len());
                    out.push(Event::ToolCallArgs { index, delta });
                }
            }
            Event::ToolCallField {
                index,
                path,
                delta,
                kind,
            } => {
                if delta.is_empty() {
                    continue;
                }
                let r = Run::of(&mut run, index);
                match r.field.and_then(|p| out.get_mut(p)) {
                    Some(Event::ToolCallField {
                        path: p,
                        delta: a,
                        kind: k,
                        ..
                    }) if *p == path && *k == kind => a.push_str(&delta),
                    _ => {
                        r.field = Some(out.len());
                        out.push(Event::ToolCallField {
                            index,
                            path,
                            delta,
                            kind,
                        });
                    }
                }
            }
            Event::ToolCallFieldEnd { index, path } => {
                let r = Run::of(&mut run, index);
                r.field = Some(out.len());
                out.push(Event::ToolCallFieldEnd { index, path });
            }
            e => {
                run = None;
                match (out.last_mut(), e) {
                    (Some(Event::Text { delta: a }), Event::Text { delta: b }) => a.push_str(&b),
                    (Some(Event::Reasoning { delta: a }), Event::Reasoning { delta: b }) => {
                        a.push_str(&b)
                    }
                    (_, e) => {
                        let empty = matches!(&e, Event::Text { delta } | Event::Reasoning { delta } if delta.is_empty());
                        if !empty {
                            out.push(e);
                        }
                    }
                }
            }
        }
    }
    *events = out;
}

#[cfg(test)]
mod tests {
    use super::{ResponseMeta, unix_seconds};

    #[test]
    fn rfc3339_times_become_unix_seconds() {
        for (s, want) in [
            ("1970-01-01T00:00:00Z", Some(0)),
            ("2025-07-29T17:37:08.301403Z", Some(1_753_810_628)),
            ("2025-07-29T19:37:08+02:00", Some(1_753_810_628)),
            ("2026-05-19T14:59:42.780296Z", Some(1_779_202_782)),
            ("2000-02-29T23:59:59z", Some(951_868_799)),
            ("1969-12-31T23:59:59Z", None),
            ("2025-13-01T00:00:00Z", None),
            ("2025-07-29T17:37:08", None),
            ("2025-07-29T17:37:08.Z", None),
            ("2025-07-29 17:37:08+0200", None),
            ("", None),
            ("é025-07-29T17:37:08Z", None),
        ] {
            assert_eq!(unix_seconds(s), want, "{s}");
        }
        let mut m = ResponseMeta::default();
        m.fill_time(Some("\"2025-07-29T17:37:08Z\""));
        m.fill_time(Some("\"2026-05-19T14:59:42Z\""));
        assert_eq!(m.created, Some(1_753_810_628));
    }
}
