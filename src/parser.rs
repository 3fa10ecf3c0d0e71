//! The entry point: [`Parser`] = framing + dialect decoder, sans-IO.

use crate::error::{Error, ParseErrorKind};
use crate::event::{ErrorKind, Event};
use crate::format::{Format, Framing};
use crate::framing::json_array::{JsonArrayFramer, JsonArrayItem};
use crate::framing::ndjson::{NdjsonFramer, NdjsonItem};
use crate::framing::sse::{SseFramer, SseItem};
use crate::limits::Limits;
use crate::provider::Sink;
use crate::provider::openai_chat::OpenAiChat;

/// Parses one streamed response into [`Event`]s as its bytes arrive.
///
/// Sans-IO: give it bytes with [`feed`](Parser::feed) as they arrive, in chunks of any
/// size, and call [`finish`](Parser::finish) at the end of the input. Events are
/// appended to a `Vec` you own. One parser per response.
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
    framing: Framing,
    limits: Limits,
    framer: Framer,
    decoder: Decoder,
    fed: u64,
    finished: bool,
}

#[derive(Debug)]
enum Framer {
    Sse(SseFramer),
    Ndjson(NdjsonFramer),
    JsonArray(JsonArrayFramer),
}

#[derive(Debug)]
enum Decoder {
    OpenAiChat(OpenAiChat),
}

impl Decoder {
    fn new(format: Format, limits: Limits) -> Self {
        match format {
            Format::OpenAiChat => Decoder::OpenAiChat(OpenAiChat::new(limits)),
        }
    }

    fn message(&mut self, event: &str, data: &[u8], out: &mut Vec<Event>) {
        let mut sink = Sink { out };
        match self {
            Decoder::OpenAiChat(d) => d.message(event, data, &mut sink),
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        let mut sink = Sink { out };
        match self {
            Decoder::OpenAiChat(d) => d.finish(&mut sink),
        }
    }

    fn retained(&self) -> usize {
        match self {
            Decoder::OpenAiChat(d) => d.retained(),
        }
    }
}

fn framing_error(what: &str, limit: usize, prefix: &[u8], len: usize, out: &mut Vec<Event>) {
    out.push(Event::Error {
        kind: ErrorKind::LimitExceeded,
        message: format!(
            "{what} of {len} bytes exceeds max_line_bytes ({limit}); skipped, first {} bytes kept",
            prefix.len()
        ),
        index: None,
        raw: String::from_utf8_lossy(prefix).into_owned(),
    });
}

impl Parser {
    /// A parser for `format`, with its default framing and default [`Limits`].
    pub fn new(format: Format) -> Self {
        let limits = Limits::default();
        let framing = format.default_framing();
        Parser {
            format,
            framing,
            limits,
            framer: Self::make_framer(framing, &limits),
            decoder: Decoder::new(format, limits),
            fed: 0,
            finished: false,
        }
    }

    fn make_framer(framing: Framing, limits: &Limits) -> Framer {
        match framing {
            Framing::Sse => Framer::Sse(SseFramer::with_max_line(limits.max_line_bytes)),
            Framing::Ndjson => Framer::Ndjson(NdjsonFramer::with_max_line(limits.max_line_bytes)),
            Framing::JsonArray => {
                Framer::JsonArray(JsonArrayFramer::with_max_element(limits.max_line_bytes))
            }
        }
    }

    fn rebuild(mut self) -> Self {
        self.framer = Self::make_framer(self.framing, &self.limits);
        self.decoder = Decoder::new(self.format, self.limits);
        self
    }

    /// Overrides the format's default framing (e.g. NDJSON for recorded payloads).
    pub fn framing(mut self, framing: Framing) -> Self {
        self.framing = framing;
        self.rebuild()
    }

    /// Replaces all limits at once.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self.rebuild()
    }

    /// Maximum bytes of one call's arguments (default 16 MiB).
    pub fn max_argument_bytes(mut self, n: usize) -> Self {
        self.limits.max_argument_bytes = n;
        self.rebuild()
    }

    /// Maximum tool calls in one response (default 1024).
    pub fn max_calls(mut self, n: usize) -> Self {
        self.limits.max_calls = n;
        self.rebuild()
    }

    /// Maximum bytes of text held back while it might start a call (default 64 KiB).
    pub fn max_held_bytes(mut self, n: usize) -> Self {
        self.limits.max_held_bytes = n;
        self.rebuild()
    }

    /// Maximum bytes of one SSE line, NDJSON line or array element (default 16 MiB).
    pub fn max_line_bytes(mut self, n: usize) -> Self {
        self.limits.max_line_bytes = n;
        self.rebuild()
    }

    /// Maximum nesting depth of JSON arguments (default 128).
    pub fn max_depth(mut self, n: usize) -> Self {
        self.limits.max_depth = n;
        self.rebuild()
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The format being parsed.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The framing in use.
    pub fn framing_in_use(&self) -> Framing {
        self.framing
    }

    /// Input bytes fed so far.
    pub fn bytes_fed(&self) -> u64 {
        self.fed
    }

    /// Bytes the parser currently retains (partial lines, open calls' arguments).
    pub fn retained_bytes(&self) -> usize {
        let framer = match &self.framer {
            Framer::Sse(f) => f.buffered(),
            Framer::Ndjson(f) => f.buffered(),
            Framer::JsonArray(f) => f.buffered(),
        };
        framer + self.decoder.retained()
    }

    /// Feeds the next bytes of the response, appending the events they complete.
    ///
    /// Incomplete input waits silently: nothing is an error until [`finish`](Parser::finish).
    /// Returns `Err` only when called after `finish`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<Event>) -> Result<(), Error> {
        if self.finished {
            return Err(Error::new(ParseErrorKind::Finished, self.fed));
        }
        self.fed += chunk.len() as u64;
        let mut rest = chunk;
        let limit = self.limits.max_line_bytes;
        let decoder = &mut self.decoder;
        match &mut self.framer {
            Framer::Sse(f) => {
                while let Some(item) = f.feed(&mut rest) {
                    sse_item(item, decoder, limit, out);
                }
            }
            Framer::Ndjson(f) => {
                while let Some(item) = f.feed(&mut rest) {
                    ndjson_item(item, decoder, limit, out);
                }
            }
            Framer::JsonArray(f) => {
                while let Some(item) = f.feed(&mut rest) {
                    array_item(item, decoder, out);
                }
            }
        }
        Ok(())
    }

    /// Ends the input: reports what is still open (a call cut off mid-arguments, a
    /// partial line) and emits the final events. The parser cannot be fed afterwards.
    pub fn finish(&mut self, out: &mut Vec<Event>) -> Result<(), Error> {
        if self.finished {
            return Err(Error::new(ParseErrorKind::Finished, self.fed));
        }
        self.finished = true;
        let limit = self.limits.max_line_bytes;
        let decoder = &mut self.decoder;
        match &mut self.framer {
            Framer::Sse(f) => {
                while let Some(item) = f.finish() {
                    sse_item(item, decoder, limit, out);
                }
            }
            Framer::Ndjson(f) => {
                while let Some(item) = f.finish() {
                    ndjson_item(item, decoder, limit, out);
                }
            }
            Framer::JsonArray(f) => {
                while let Some(item) = f.finish() {
                    array_item(item, decoder, out);
                }
            }
        }
        decoder.finish(out);
        Ok(())
    }
}

fn sse_item(item: SseItem<'_>, decoder: &mut Decoder, limit: usize, out: &mut Vec<Event>) {
    match item {
        SseItem::Event { event, data } => decoder.message(event, data, out),
        SseItem::LineTooLong { prefix, len } => framing_error("SSE line", limit, prefix, len, out),
    }
}

fn ndjson_item(item: NdjsonItem<'_>, decoder: &mut Decoder, limit: usize, out: &mut Vec<Event>) {
    match item {
        NdjsonItem::Line(line) => decoder.message("", line, out),
        NdjsonItem::LineTooLong { prefix, len } => {
            framing_error("NDJSON line", limit, prefix, len, out)
        }
    }
}

fn array_item(item: JsonArrayItem<'_>, decoder: &mut Decoder, out: &mut Vec<Event>) {
    match item {
        JsonArrayItem::Element(e) => decoder.message("", e, out),
        JsonArrayItem::Error { message, raw } => out.push(Event::Error {
            kind: ErrorKind::Framing,
            message: message.to_owned(),
            index: None,
            raw: String::from_utf8_lossy(raw).into_owned(),
        }),
    }
}
