//! The entry point: [`Parser`] = framing + dialect decoder, sans-IO.

use crate::calls::Calls;
use crate::config::{IdPrefix, ParserConfig};
use crate::error::{Error, ParseErrorKind};
use crate::event::{Counting, ErrorKind, Event, EventSink};
use crate::format::{Format, Framing};
use crate::framing::{Frame, Framer};
use crate::limits::Limits;
use crate::provider::Sink;
use crate::provider::anthropic::Anthropic;
use crate::provider::bedrock::Bedrock;
use crate::provider::cohere::Cohere;
use crate::provider::gemini::Gemini;
use crate::provider::llama_stack::LlamaStack;
use crate::provider::ollama::Ollama;
use crate::provider::openai_chat::OpenAiChat;
use crate::provider::openai_responses::OpenAiResponses;
use crate::spec::Syntax;
use crate::text::reasoning::ReasoningOptions;
use crate::text::{TextOptions, TextScanner};
use std::borrow::Cow;

/// Parses one streamed response into [`Event`]s as its bytes arrive.
///
/// Sans-IO: give it bytes with [`feed`](Parser::feed) as they arrive, in chunks of any
/// size, and call [`finish`](Parser::finish) at the end of the input. Events are
/// appended to a `Vec` you own ([`feed_into`](Parser::feed_into) hands them, borrowed, to
/// any [`EventSink`]). One parser per response.
///
/// Its methods, by role:
///
/// - **make one**: [`new`](Parser::new) (the format's defaults) and
///   [`with_config`](Parser::with_config) (options: every one is set on a
///   [`ParserConfig`], and only there);
/// - **feed**: [`feed`](Parser::feed) / [`feed_into`](Parser::feed_into) for bytes,
///   [`feed_message`](Parser::feed_message) / [`feed_message_into`](Parser::feed_message_into)
///   for payloads you framed yourself, `feed_eventsource` (feature `eventsource-stream`);
/// - **finish**: [`finish`](Parser::finish) / [`finish_into`](Parser::finish_into);
/// - **read**: [`config`](Parser::config), [`format`](Parser::format),
///   [`limits`](Parser::limits), [`framing_in_use`](Parser::framing_in_use),
///   [`id_prefix_in_use`](Parser::id_prefix_in_use),
///   [`response_meta`](Parser::response_meta), [`bytes_fed`](Parser::bytes_fed),
///   [`retained_bytes`](Parser::retained_bytes).
///
/// ```
/// use toolstream::{Event, Format, Parser};
/// let body = concat!(
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",",
///     "\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}]}\n\n",
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,",
///     "\"function\":{\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]}}]}\n\n",
///     "data: [DONE]\n\n",
/// );
/// let mut parser = Parser::new(Format::OpenAiChat);
/// let mut events = Vec::new();
/// for chunk in body.as_bytes().chunks(7) {
///     parser.feed(chunk, &mut events)?;
/// }
/// parser.finish(&mut events)?;
/// assert!(events.iter().any(|e| matches!(e,
///     Event::ToolCallEnd { name, arguments, .. }
///         if name == "get_weather" && arguments["city"] == "Paris")));
/// # Ok::<(), toolstream::Error>(())
/// ```
#[derive(Debug)]
pub struct Parser {
    format: Format,
    /// A syntax from a spec, parsed instead of `format`'s (then `Format::Auto`).
    syntax: Option<Box<Syntax>>,
    config: ParserConfig,
    /// Generated call ids are `{id_prefix}{index}`: the configured prefix, one made for
    /// `unique_ids`, or the default (borrowed: no allocation).
    id_prefix: Cow<'static, str>,
    /// Built from `config` by the first feed or finish.
    stages: Option<Stages>,
    /// What the input looked like until its first event (for `unrecognized_input`).
    seen: Seen,
    /// The response's id, model and creation time (see [`Parser::response_meta`]).
    meta: crate::event::ResponseMeta,
    fed: u64,
    finished: bool,
}

/// The parts of a [`Parser`] built from its configuration: bytes flow from the framer
/// into the decoder, which keeps its calls in `calls`.
#[derive(Debug)]
struct Stages {
    framer: Framer,
    decoder: Decoder,
    /// The response's call table, shared by the decoder and the content scanner.
    calls: Calls,
    /// Scanner for visible text of an envelope format (`content_format`).
    content: Option<TextScanner>,
    /// Text framing with an envelope format: bytes the decoder cannot take, handed out
    /// in errors of `max_line_bytes` each (the rest at `finish`), the same however they
    /// were cut.
    rejected: Vec<u8>,
}

/// Bytes of the input's start kept for the `unrecognized_input` error.
const FIRST_BYTES_MAX: usize = 256;

/// What the parser saw before its first event, to tell at `finish` an input that made no
/// event at all because it was not understood (wrong format or framing) from one that
/// had nothing in it. Only watched until the first event; each byte looked at once.
#[derive(Debug, Default)]
struct Seen {
    /// An event was emitted: nothing else here matters any more.
    event: bool,
    /// The input's first bytes (at most [`FIRST_BYTES_MAX`]).
    first: Vec<u8>,
    /// A byte other than whitespace, a BOM byte or an SSE comment line arrived.
    significant: bool,
    /// Inside an SSE comment line (`:` at a line start, SSE framing only).
    comment: bool,
    /// Not at a line start (and not in a comment): the line's first byte was whitespace.
    mid_line: bool,
    /// Payload messages handed to the decoder, and how many of them were `[DONE]`.
    messages: u64,
    sentinels: u64,
}

impl Seen {
    /// Notes input bytes (until the first significant one).
    fn input(&mut self, chunk: &[u8], comments: bool) {
        if self.event {
            return;
        }
        self.keep(chunk);
        if self.significant {
            return;
        }
        let mut rest = chunk;
        while let Some((&b, after)) = rest.split_first() {
            if self.comment {
                match memchr::memchr2(b'\n', b'\r', rest) {
                    Some(i) => {
                        self.comment = false;
                        // invariant: `i` is the index of a byte of `rest`.
                        #[allow(clippy::indexing_slicing)]
                        let after = &rest[i + 1..];
                        rest = after;
                    }
                    None => return,
                }
                continue;
            }
            rest = after;
            match b {
                b'\n' | b'\r' => self.mid_line = false,
                // BOM bytes leave a line start a line start.
                0xEF | 0xBB | 0xBF => {}
                b' ' | b'\t' | b'\x0C' => self.mid_line = true,
                b':' if comments && !self.mid_line => self.comment = true,
                _ => {
                    self.significant = true;
                    return;
                }
            }
        }
    }

    /// Keeps the input's first bytes (one allocation).
    fn keep(&mut self, chunk: &[u8]) {
        let room = FIRST_BYTES_MAX.saturating_sub(self.first.len());
        if room > 0 && !chunk.is_empty() && self.first.capacity() == 0 {
            self.first.reserve_exact(FIRST_BYTES_MAX);
        }
        // invariant: the end is at most `chunk.len()`.
        #[allow(clippy::indexing_slicing)]
        self.first
            .extend_from_slice(&chunk[..room.min(chunk.len())]);
    }

    /// Notes one payload message handed to the decoder.
    fn message(&mut self, data: &[u8]) {
        self.messages += 1;
        if data.trim_ascii() == b"[DONE]" {
            self.sentinels += 1;
        }
    }
}

/// A unique prefix for the call ids one parser generates: `call_`, 12 lowercase hex
/// digits, `_`. The digits come from the standard library's randomly keyed hasher
/// (`RandomState`: keys drawn from the OS once per thread and advanced for every new
/// state) over a process-wide counter, so each parser gets its own.
fn unique_id_prefix() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static PARSERS: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(PARSERS.fetch_add(1, Ordering::Relaxed));
    format!("call_{:012x}_", h.finish() >> 16)
}

/// The dialect: an envelope decoder, or a text scanner for raw model output.
#[derive(Debug)]
enum Decoder {
    OpenAiChat(OpenAiChat),
    Gemini(Gemini),
    Bedrock(Bedrock),
    Anthropic(Anthropic),
    OpenAiResponses(OpenAiResponses),
    Cohere(Cohere),
    Ollama(Ollama),
    LlamaStack(LlamaStack),
    Text(TextScanner),
}

impl Decoder {
    fn new(format: Format, limits: &Limits, options: &TextOptions) -> Self {
        if let Some(scanner) = TextScanner::with_options(format, limits, options) {
            return Decoder::Text(scanner);
        }
        match format {
            Format::OpenAiChat => Decoder::OpenAiChat(OpenAiChat::new()),
            Format::Gemini => Decoder::Gemini(Gemini::new()),
            Format::Bedrock => Decoder::Bedrock(Bedrock::new()),
            Format::Anthropic => Decoder::Anthropic(Anthropic::new(limits)),
            Format::OpenAiResponses => Decoder::OpenAiResponses(OpenAiResponses::new(limits)),
            Format::Cohere => Decoder::Cohere(Cohere::new()),
            Format::Ollama => Decoder::Ollama(Ollama::new()),
            Format::LlamaStack => Decoder::LlamaStack(LlamaStack::new(limits)),
            // Text formats got their scanner above.
            _ => Decoder::Text(TextScanner::plain()),
        }
    }

    /// One payload message (SSE event, NDJSON line, array element, event-stream message).
    fn message(&mut self, event: &str, data: &[u8], sink: &mut Sink<'_>) {
        match self {
            Decoder::OpenAiChat(d) => d.message(event, data, sink),
            Decoder::Gemini(d) => d.message(event, data, sink),
            Decoder::Bedrock(d) => d.message(event, data, sink),
            Decoder::Anthropic(d) => d.message(event, data, sink),
            Decoder::OpenAiResponses(d) => d.message(event, data, sink),
            Decoder::Cohere(d) => d.message(event, data, sink),
            Decoder::Ollama(d) => d.message(event, data, sink),
            Decoder::LlamaStack(d) => d.message(event, data, sink),
            // A text format behind a message framing: each payload is more text.
            Decoder::Text(t) => t.feed(data, sink.calls, sink.out),
        }
    }

    /// Raw bytes (text framing). `rejected` collects what an envelope decoder cannot
    /// take; `limit` bytes at a time become an error (`at_end`: all that is left).
    fn raw(
        &mut self,
        bytes: &[u8],
        rejected: &mut Vec<u8>,
        limit: usize,
        at_end: bool,
        sink: &mut Sink<'_>,
    ) {
        if let Decoder::Text(t) = self {
            if !bytes.is_empty() {
                t.feed(bytes, sink.calls, sink.out);
            }
            return;
        }
        let limit = limit.max(1);
        let mut rest = bytes;
        loop {
            let room = limit.saturating_sub(rejected.len()).min(rest.len());
            let (take, after) = rest.split_at(room);
            rejected.extend_from_slice(take);
            rest = after;
            if rejected.len() < limit && !(at_end && rest.is_empty() && !rejected.is_empty()) {
                return;
            }
            sink.error(
                ErrorKind::UnexpectedPayload,
                "text framing is only for text formats; these bytes were not decoded".into(),
                rejected,
            );
            rejected.clear();
        }
    }

    fn finish(&mut self, sink: &mut Sink<'_>) {
        match self {
            Decoder::OpenAiChat(d) => d.finish(sink),
            Decoder::Gemini(d) => d.finish(sink),
            Decoder::Bedrock(d) => d.finish(sink),
            Decoder::Anthropic(d) => d.finish(sink),
            Decoder::OpenAiResponses(d) => d.finish(sink),
            Decoder::Cohere(d) => d.finish(sink),
            Decoder::Ollama(d) => d.finish(sink),
            Decoder::LlamaStack(d) => d.finish(sink),
            Decoder::Text(t) => {
                t.finish(sink.calls, sink.out);
                sink.calls.close_all(sink.out);
            }
        }
    }

    fn retained(&self) -> usize {
        match self {
            Decoder::OpenAiChat(_)
            | Decoder::Bedrock(_)
            | Decoder::Cohere(_)
            | Decoder::Ollama(_) => 0,
            Decoder::Gemini(d) => d.retained(),
            Decoder::Anthropic(d) => d.retained(),
            Decoder::OpenAiResponses(d) => d.retained(),
            Decoder::LlamaStack(d) => d.retained(),
            Decoder::Text(t) => t.retained(),
        }
    }
}

fn framing_error(what: &str, limit: usize, prefix: &[u8], len: usize, out: &mut dyn EventSink) {
    out.push(Event::Error {
        path: None,
        kind: ErrorKind::LimitExceeded,
        message: format!(
            "{what} of {len} bytes exceeds max_line_bytes ({limit}); skipped, first {} bytes kept",
            prefix.len()
        ),
        index: None,
        raw: String::from_utf8_lossy(prefix).into_owned(),
    });
}

impl Stages {
    /// Builds the framer, decoder, call table and content scanner `config` asks for.
    fn new(
        format: Format,
        syntax: Option<&Syntax>,
        config: &ParserConfig,
        id_prefix: &str,
    ) -> Self {
        let limits = config.limits;
        let options = TextOptions {
            reasoning: ReasoningOptions {
                open: config.reasoning_open,
                tags: config.reasoning_tags.clone(),
                calls: config.calls_in_reasoning,
            },
            tool_names: config.tool_names.clone(),
            calls_at_start_only: config.calls_at_start_only,
            narrow_to_tools: config.reject_undeclared,
            tools: config.tools.clone(),
        };
        let framing = config.framing.unwrap_or(format.default_framing());
        Stages {
            framer: Framer::new(framing, limits.max_line_bytes),
            decoder: match syntax {
                Some(syntax) => Decoder::Text(syntax.scanner(&limits, &options)),
                None => Decoder::new(format, &limits, &options),
            },
            calls: Calls::new(limits)
                .with_field_events(config.field_events)
                .with_max_repeats(config.max_repeats)
                .with_validation(config.tools.clone().filter(|_| config.validate))
                .with_id_prefix(id_prefix)
                .with_declared(config.tools.clone().filter(|_| config.reject_undeclared)),
            content: match &config.content_syntax {
                Some(syntax) => Some(syntax.scanner(&limits, &options)),
                None => config
                    .content_format
                    .and_then(|f| TextScanner::with_options(f, &limits, &options)),
            },
            rejected: Vec::new(),
        }
    }

    /// The `auto` framing, undecided: picks the framer once the first significant byte
    /// of `*input` has arrived (`at_end`: the default) and runs the bytes held until then
    /// through it; `*input` is advanced past what was taken. Out of the feed path: at
    /// most once per stream.
    #[cold]
    #[inline(never)]
    fn detect(
        &mut self,
        input: &mut &[u8],
        at_end: bool,
        limit: usize,
        seen: &mut Seen,
        meta: &mut crate::event::ResponseMeta,
        out: &mut dyn EventSink,
    ) {
        if let Some(held) = self.framer.detect(input, at_end) {
            self.run(&held, false, limit, seen, meta, out);
        }
    }

    /// Runs `input` through the framer into the decoder (`at_end`: the input has ended,
    /// `input` is empty, and the framer hands out what it still holds); the `auto`
    /// framing picks its framer first ([`detect`](Stages::detect)).
    #[inline(always)]
    fn run(
        &mut self,
        input: &[u8],
        at_end: bool,
        limit: usize,
        seen: &mut Seen,
        meta: &mut crate::event::ResponseMeta,
        out: &mut dyn EventSink,
    ) {
        let mut rest = input;
        if self.framer.framing() == Framing::Auto {
            self.detect(&mut rest, at_end, limit, seen, meta, out);
        }
        // The payload's name when the parser checks its UTF-8 (the SSE framer does).
        let unchecked = self.framer.unchecked_unit();
        let mut sink = Sink {
            out,
            calls: &mut self.calls,
            content: self.content.as_mut(),
            meta,
            started: false,
        };
        while let Some(frame) = self.framer.next(&mut rest, at_end) {
            match frame {
                Frame::Message { event, data } => {
                    if let Some(unit) = unchecked
                        && std::str::from_utf8(data).is_err()
                    {
                        repaired_message(unit, event, data, &mut self.decoder, seen, &mut sink);
                        continue;
                    }
                    seen.message(data);
                    self.decoder.message(event, data, &mut sink);
                }
                Frame::TooLong { unit, prefix, len } => {
                    framing_error(unit, limit, prefix, len, sink.out)
                }
                Frame::Malformed { message, raw } => {
                    sink.error(ErrorKind::Framing, message.into_owned(), raw)
                }
                Frame::InvalidUtf8 { unit, raw } => invalid_utf8(unit, raw, &mut sink),
                Frame::Text(bytes) => {
                    self.decoder
                        .raw(bytes, &mut self.rejected, limit, false, &mut sink)
                }
            }
        }
    }

    /// The decoder, and the sink it writes into: events to `out`, calls into the call
    /// table, visible text through the content scanner.
    fn decoder<'a>(
        &'a mut self,
        meta: &'a mut crate::event::ResponseMeta,
        out: &'a mut dyn EventSink,
    ) -> (&'a mut Decoder, Sink<'a>) {
        let sink = Sink {
            out,
            calls: &mut self.calls,
            content: self.content.as_mut(),
            meta,
            started: false,
        };
        (&mut self.decoder, sink)
    }

    /// Bytes held: partial framing units, open calls, held-back text.
    fn retained(&self) -> usize {
        self.framer.buffered()
            + self.rejected.len()
            + self.decoder.retained()
            + self.calls.retained()
            + self.content.as_ref().map_or(0, TextScanner::retained)
    }
}

/// The `invalid_utf8` error of a payload that is not valid UTF-8 (`raw`, as received),
/// read with each invalid sequence replaced by U+FFFD: SSE's rule, for every framing.
fn invalid_utf8(unit: &str, raw: &[u8], sink: &mut Sink<'_>) {
    let at = std::str::from_utf8(raw)
        .err()
        .map_or(0, |e| e.valid_up_to());
    let message = format!(
        "{unit} is not valid UTF-8 (first invalid byte at {at}); read with each invalid sequence replaced by U+FFFD"
    );
    sink.error(ErrorKind::InvalidUtf8, message, raw);
}

/// A payload of a framing whose framer does not check UTF-8 (NDJSON, JSON array, event
/// stream) that is not valid UTF-8: the [`invalid_utf8`] error with its bytes, then the
/// payload read with U+FFFD, as the SSE framer hands it out.
#[cold]
#[inline(never)]
fn repaired_message(
    unit: &str,
    event: &str,
    data: &[u8],
    decoder: &mut Decoder,
    seen: &mut Seen,
    sink: &mut Sink<'_>,
) {
    invalid_utf8(unit, data, sink);
    let repaired = String::from_utf8_lossy(data);
    seen.message(repaired.as_bytes());
    decoder.message(event, repaired.as_bytes(), sink);
}

/// The call-id prefix `config` asks for: a new unique one, the configured one, or the
/// default (borrowed).
fn id_prefix_of(config: &ParserConfig) -> Cow<'static, str> {
    match &config.id_prefix {
        IdPrefix::Fixed(prefix) => prefix.clone(),
        IdPrefix::Unique => Cow::Owned(unique_id_prefix()),
    }
}

impl Parser {
    /// A parser for `format`, with its default framing and default [`Limits`].
    pub fn new(format: Format) -> Self {
        Self::with_config(format, ParserConfig::default())
    }

    /// A parser for `format` with the options of `config` (see [`ParserConfig`]; clone
    /// one configuration for each response).
    ///
    /// ```
    /// use toolstream::{Format, Framing, Parser, ParserConfig};
    /// let config = ParserConfig::new().framing(Framing::Ndjson).field_events(true);
    /// let parser = Parser::with_config(Format::OpenAiChat, config.clone());
    /// assert_eq!(parser.config(), &config);
    /// assert_eq!(parser.framing_in_use(), Framing::Ndjson);
    /// ```
    pub fn with_config(format: Format, config: ParserConfig) -> Self {
        Parser {
            format,
            syntax: None,
            id_prefix: id_prefix_of(&config),
            config,
            stages: None,
            seen: Seen::default(),
            meta: crate::event::ResponseMeta::default(),
            fed: 0,
            finished: false,
        }
    }

    /// A parser for raw model text written in `syntax` (read from a spec file, see
    /// [`Syntax`]), with the options of `config`. Its [`format`](Parser::format) is
    /// [`Format::Auto`] (raw text, framing [`Framing::Text`] unless `config` says
    /// otherwise); [`syntax`](Parser::syntax) says which syntax it reads.
    ///
    /// ```
    /// use toolstream::{Format, Parser, ParserConfig, Syntax};
    /// let hermes = Syntax::builtin(Format::Hermes).expect("hermes is table-driven");
    /// let spec = hermes.to_json().to_string();             // what `toolstream spec hermes` prints
    /// let parser = Parser::with_syntax(Syntax::from_json(&spec)?, ParserConfig::new());
    /// assert_eq!(parser.syntax().map(Syntax::name), Some("hermes"));
    /// # Ok::<(), toolstream::SpecError>(())
    /// ```
    pub fn with_syntax(syntax: Syntax, config: ParserConfig) -> Self {
        let mut parser = Self::with_config(Format::Auto, config);
        parser.syntax = Some(Box::new(syntax));
        parser
    }

    /// The syntax a parser made with [`with_syntax`](Parser::with_syntax) reads.
    pub fn syntax(&self) -> Option<&Syntax> {
        self.syntax.as_deref()
    }

    /// The options in force.
    pub fn config(&self) -> &ParserConfig {
        &self.config
    }

    /// The prefix of the call ids this parser generates (see
    /// [`ParserConfig::id_prefix`]): the configured one, or for
    /// [`IdPrefix::Unique`](crate::IdPrefix::Unique) the one made for this parser.
    pub fn id_prefix_in_use(&self) -> &str {
        &self.id_prefix
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.config.limits
    }

    /// The format being parsed.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The framing in use: for [`Framing::Auto`], the one detected from the first
    /// bytes (`Auto` until a significant byte has arrived).
    pub fn framing_in_use(&self) -> Framing {
        match &self.stages {
            Some(stages) => stages.framer.framing(),
            None => self.configured_framing(),
        }
    }

    /// The configured framing (the format's own unless overridden).
    fn configured_framing(&self) -> Framing {
        self.config.framing.unwrap_or(self.format.default_framing())
    }

    /// The parts built from the configuration (built now: at the first feed or finish),
    /// with the state the feed paths update beside them.
    #[inline]
    fn parts(&mut self) -> (&mut Stages, &mut Seen, &mut crate::event::ResponseMeta) {
        let stages = self.stages.get_or_insert_with(|| {
            Stages::new(
                self.format,
                self.syntax.as_deref(),
                &self.config,
                &self.id_prefix,
            )
        });
        (stages, &mut self.seen, &mut self.meta)
    }

    /// What the response said about itself so far: the provider's response id, model and
    /// creation time, for the formats that send them (see
    /// [`ResponseMeta`](crate::ResponseMeta)). Known once the payload carrying them was fed
    /// (for OpenAI chunks, the first chunk; Anthropic, `message_start`), so before the
    /// first events of the response.
    ///
    /// ```
    /// use toolstream::{Format, Parser};
    /// let mut p = Parser::new(Format::OpenAiChat);
    /// let mut events = Vec::new();
    /// p.feed(br#"data: {"id":"chatcmpl-9","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"}}]}"#, &mut events)?;
    /// p.feed(b"\n\n", &mut events)?;
    /// let meta = p.response_meta();
    /// assert_eq!(meta.id.as_deref(), Some("chatcmpl-9"));
    /// assert_eq!(meta.model.as_deref(), Some("gpt-4o"));
    /// assert_eq!(meta.created, Some(1700000000));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn response_meta(&self) -> &crate::event::ResponseMeta {
        &self.meta
    }

    /// Whether the call with this `index` (as in its events) was found in text rather than
    /// sent as a structured call: every call of a text format, and, for a provider format
    /// with [`content_format`](crate::ParserConfig::content_format) or
    /// [`content_syntax`](crate::ParserConfig::content_syntax), the calls its content
    /// scanner found in the visible text (calls the server leaked). `false` for an index
    /// no call has (yet).
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser, ParserConfig};
    /// let mut parser = Parser::with_config(
    ///     Format::OpenAiChat,
    ///     ParserConfig::new().content_format(Format::Hermes),
    /// );
    /// let mut events = Vec::new();
    /// let leaked = r#"{"choices":[{"delta":{"content":"<tool_call>{\"name\": \"ls\", \"arguments\": {}}</tool_call>"}}]}"#;
    /// let native = r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"pwd","arguments":"{}"}}]}}]}"#;
    /// parser.feed(format!("data: {leaked}\n\ndata: {native}\n\n").as_bytes(), &mut events)?;
    /// assert!(parser.call_found_in_text(0));
    /// assert!(!parser.call_found_in_text(1));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn call_found_in_text(&self, index: usize) -> bool {
        self.stages.as_ref().is_some_and(|s| match s.decoder {
            Decoder::Text(_) => index < s.calls.started(),
            _ => s.calls.found_in_text(index),
        })
    }

    /// Input bytes fed so far.
    pub fn bytes_fed(&self) -> u64 {
        self.fed
    }

    /// Bytes the parser currently retains (partial lines, open calls' arguments).
    pub fn retained_bytes(&self) -> usize {
        self.stages.as_ref().map_or(0, Stages::retained)
    }

    /// Feeds the next bytes of the response, appending the events they complete.
    ///
    /// Incomplete input waits silently: nothing is an error until [`finish`](Parser::finish).
    /// Returns `Err` only when called after `finish`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<Event>) -> Result<(), Error> {
        self.feed_into(chunk, out)
    }

    /// Feeds the next bytes of the response, handing the events they complete to `sink`,
    /// borrowed: no allocation per event (see [`EventSink`]). The same events as
    /// [`feed`](Parser::feed), which is this with a `Vec<Event>` sink.
    // Always inlined: it is the per-feed layer between a caller's loop and the scanner, and
    // LLVM's size heuristic dropped it out of line whenever a scanner's inlined `feed` grew
    // (~27 instructions per 4-byte feed on every text syntax, seen twice in session 6).
    #[inline(always)]
    pub fn feed_into<S: EventSink>(&mut self, chunk: &[u8], sink: &mut S) -> Result<(), Error> {
        if self.finished {
            return Err(Error::new(ParseErrorKind::Finished, self.fed));
        }
        self.fed += chunk.len() as u64;
        // Raw model text once the first event is out: straight to the text scanner (what
        // `feed_bytes` → `Stages::run` → `Decoder::raw` do, without their layers per feed).
        if self.seen.event
            && let Some(Stages {
                framer: Framer::Text,
                decoder: Decoder::Text(t),
                calls,
                ..
            }) = &mut self.stages
        {
            if !chunk.is_empty() {
                t.feed(chunk, calls, sink);
            }
            return Ok(());
        }
        if self.seen.event {
            self.feed_bytes(chunk, sink);
        } else {
            self.feed_before_first_event(chunk, sink);
        }
        Ok(())
    }

    /// [`feed_into`](Parser::feed_into) until the first event is out: the input is watched
    /// for the unrecognized-input error. Out of line, so that `feed_into` stays small
    /// enough to be inlined into a caller's feed loop (kept inline, this branch cost every
    /// text syntax ~28 instructions per 4-byte feed: hermes prose 93 -> 100 Ir/B).
    #[inline(never)]
    fn feed_before_first_event(&mut self, chunk: &[u8], sink: &mut dyn EventSink) {
        let comments = matches!(self.configured_framing(), Framing::Sse | Framing::Auto);
        self.seen.input(chunk, comments);
        let mut counting = Counting {
            inner: sink,
            count: 0,
        };
        self.feed_bytes(chunk, &mut counting);
        self.seen.event = counting.count > 0;
    }

    /// The body of [`feed_into`](Parser::feed_into): framing detection, then the framer.
    fn feed_bytes(&mut self, chunk: &[u8], out: &mut dyn EventSink) {
        let limit = self.config.limits.max_line_bytes;
        let (stages, seen, meta) = self.parts();
        stages.run(chunk, false, limit, seen, meta, out);
    }

    /// Ends the input: reports what is still open (a call cut off mid-arguments, a
    /// partial line) and emits the final events. The parser cannot be fed afterwards.
    pub fn finish(&mut self, out: &mut Vec<Event>) -> Result<(), Error> {
        self.finish_into(out)
    }

    /// Ends the input as [`finish`](Parser::finish) does, handing the final events to
    /// `sink`, borrowed.
    pub fn finish_into<S: EventSink>(&mut self, sink: &mut S) -> Result<(), Error> {
        if self.finished {
            return Err(Error::new(ParseErrorKind::Finished, self.fed));
        }
        self.finished = true;
        let mut counting = Counting {
            inner: sink,
            count: 0,
        };
        self.finish_bytes(&mut counting);
        self.seen.event |= counting.count > 0;
        self.report_unrecognized(counting.inner);
        Ok(())
    }

    /// The body of [`finish_into`](Parser::finish_into): what the framer and the decoder
    /// still hold.
    fn finish_bytes(&mut self, out: &mut Counting<'_>) {
        let limit = self.config.limits.max_line_bytes;
        let (stages, seen, meta) = self.parts();
        stages.run(&[], true, limit, seen, meta, out);
        // Whether the stream made an event before its end (see `Sink::started`).
        let started = seen.event || out.count > 0;
        let mut rejected = std::mem::take(&mut stages.rejected);
        let (decoder, mut sink) = stages.decoder(meta, out);
        sink.started = started;
        // Text framing with an envelope format: the rest of the bytes it could not take.
        decoder.raw(&[], &mut rejected, limit, true, &mut sink);
        decoder.finish(&mut sink);
    }

    /// At `finish`: an input that made no event at all although it held something (a
    /// byte other than whitespace, a BOM or an SSE comment line, and not only `[DONE]`
    /// sentinels) gets one `unrecognized_input` error naming the format and framing,
    /// carrying the input's first bytes. Raw text read with the text framing is exempt
    /// (a text scanner emits every byte it does not deliberately drop, such as a lone
    /// end-of-turn token), and so is a text format whose framing delivered messages, and
    /// a stream whose payloads the decoder recognised as its format's (they named the
    /// response's id, model or creation time: [`Parser::response_meta`]) but that carried
    /// nothing, such as a lone role chunk.
    fn report_unrecognized(&mut self, out: &mut dyn EventSink) {
        let seen = &self.seen;
        let framing = self.framing_in_use();
        let text_decoder =
            (self.stages.as_ref()).is_some_and(|stages| matches!(stages.decoder, Decoder::Text(_)));
        let recognised =
            self.meta.id.is_some() || self.meta.model.is_some() || self.meta.created.is_some();
        if seen.event
            || recognised
            || !seen.significant
            || framing == Framing::Text
            || (seen.messages > 0 && seen.messages == seen.sentinels)
            || (text_decoder && seen.messages > 0)
        {
            return;
        }
        let shown = if seen.first.len() as u64 == self.fed {
            String::new()
        } else {
            format!(" (the first {} are in raw)", seen.first.len())
        };
        let message = if seen.messages == 0 {
            format!(
                "no event: the {framing} framing found no message in the {} bytes of input{shown}; \
                 is the framing right for format {}?",
                self.fed, self.format
            )
        } else {
            format!(
                "no event: {} payload message(s) were read with the {framing} framing from {} bytes{shown}, \
                 but none made an event as format {}; is the format right, or was the stream cut off before its content?",
                seen.messages, self.fed, self.format
            )
        };
        out.push(Event::Error {
            path: None,
            kind: ErrorKind::UnrecognizedInput,
            message,
            index: None,
            raw: String::from_utf8_lossy(&seen.first).into_owned(),
        });
        self.seen.event = true;
    }
}

impl Parser {
    /// Feeds one already-framed payload message (an SSE event's type and data, an
    /// NDJSON line with `event` empty), bypassing the framer. For callers that frame
    /// the bytes themselves, e.g. with `eventsource-stream` (feature `eventsource-stream`).
    pub fn feed_message(
        &mut self,
        event: &str,
        data: &[u8],
        out: &mut Vec<Event>,
    ) -> Result<(), Error> {
        self.feed_message_into(event, data, out)
    }

    /// [`feed_message`](Parser::feed_message) with the events handed to `sink`, borrowed.
    pub fn feed_message_into<S: EventSink>(
        &mut self,
        event: &str,
        data: &[u8],
        sink: &mut S,
    ) -> Result<(), Error> {
        if self.finished {
            return Err(Error::new(ParseErrorKind::Finished, self.fed));
        }
        self.fed += data.len() as u64;
        let mut out = Counting {
            inner: sink,
            count: 0,
        };
        if !self.seen.event {
            self.seen.keep(data);
            self.seen.significant = true;
        }
        let (stages, seen, meta) = self.parts();
        seen.message(data);
        let (decoder, mut sink) = stages.decoder(meta, &mut out);
        decoder.message(event, data, &mut sink);
        self.seen.event |= out.count > 0;
        Ok(())
    }

    /// Feeds one event produced by the `eventsource-stream` crate (feature
    /// `eventsource-stream`). Our own SSE framer is the default path; this is for callers
    /// who already hold an `eventsource_stream::EventStream`.
    #[cfg(feature = "eventsource-stream")]
    pub fn feed_eventsource(
        &mut self,
        event: &eventsource_stream::Event,
        out: &mut Vec<Event>,
    ) -> Result<(), Error> {
        let name = if event.event == "message" {
            ""
        } else {
            event.event.as_str()
        };
        self.feed_message(name, event.data.as_bytes(), out)
    }
}
