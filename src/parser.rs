//! The entry point: [`Parser`] = framing + dialect decoder, sans-IO.

use crate::calls::Calls;
use crate::error::{Error, ParseErrorKind};
use crate::event::{Counting, ErrorKind, Event, EventSink};
use crate::format::{Format, Framing};
use crate::framing::eventstream::{EventStreamFramer, EventStreamItem};
use crate::framing::json_array::{JsonArrayFramer, JsonArrayItem};
use crate::framing::ndjson::{NdjsonFramer, NdjsonItem};
use crate::framing::sse::{SseFramer, SseItem};
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
use crate::text::{TextOptions, TextScanner};

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
    /// The response's call table, shared by the decoder and the content scanner.
    calls: Calls,
    /// Scanner for visible text of an envelope format (`content_format`).
    content: Option<TextScanner>,
    content_format: Option<Format>,
    /// Emit `ToolCallField` events.
    field_events: bool,
    /// Options of the marker-less text scanners.
    text_options: TextOptions,
    /// Calls to undeclared tools are errors (with `tools`).
    reject_undeclared: bool,
    /// Generated call ids are `{id_prefix}{index}` (the default borrowed: no allocation).
    id_prefix: std::borrow::Cow<'static, str>,
    /// What the input looked like until its first event (for `unrecognized_input`).
    seen: Seen,
    /// The response's id, model and creation time (see [`Parser::response_meta`]).
    meta: crate::event::ResponseMeta,
    fed: u64,
    finished: bool,
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
                        rest = rest.get(i + 1..).unwrap_or_default();
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
        self.first
            .extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
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

#[derive(Debug)]
enum Framer {
    Sse(SseFramer),
    Ndjson(NdjsonFramer),
    JsonArray(JsonArrayFramer),
    EventStream(EventStreamFramer),
    /// Raw bytes straight to the decoder. For an envelope format (no text scanner)
    /// the bytes cannot be decoded: they are collected here and handed out in errors
    /// of `max_line_bytes` each (the rest at `finish`), the same however they were cut.
    Text(Vec<u8>),
    /// Framing not chosen yet: holds the leading BOM / whitespace until the first
    /// significant byte picks it.
    Auto(AutoDetect),
}

/// The `auto` framing step: waits for the first byte that is neither a BOM nor ASCII
/// whitespace, then picks the framer (`[` a JSON array, `{` NDJSON, else SSE) and
/// replays the held bytes into it.
///
/// Held bytes are bounded: the BOM, and the whitespace since the last line break (all
/// three framers treat whole blank lines as nothing), capped at 64 bytes.
#[derive(Debug, Default)]
struct AutoDetect {
    held: Vec<u8>,
    /// Bytes of the leading BOM seen (0..=3).
    bom: usize,
    /// A byte other than the BOM's was seen.
    past_bom: bool,
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
const AUTO_HELD_MAX: usize = 64;

impl AutoDetect {
    /// Scans `chunk`; returns the framing and the offset of the first significant
    /// byte once one arrives.
    fn detect(&mut self, chunk: &[u8]) -> Option<(Framing, usize)> {
        for (i, &b) in chunk.iter().enumerate() {
            if !self.past_bom {
                if BOM.get(self.bom) == Some(&b) {
                    self.bom += 1;
                    self.held.push(b);
                    continue;
                }
                self.past_bom = true;
                if self.bom > 0 && self.bom < BOM.len() {
                    // A cut-off BOM: its bytes are content.
                    return Some((Framing::Sse, i));
                }
            }
            match b {
                b'\n' | b'\r' => self.held.truncate(self.bom),
                b' ' | b'\t' | b'\x0C' => {
                    if self.held.len() < self.bom + AUTO_HELD_MAX {
                        self.held.push(b);
                    }
                }
                b'[' => return Some((Framing::JsonArray, i)),
                b'{' => return Some((Framing::Ndjson, i)),
                _ => return Some((Framing::Sse, i)),
            }
        }
        None
    }
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
        let id_prefix = std::borrow::Cow::Borrowed(crate::calls::DEFAULT_ID_PREFIX);
        Parser {
            format,
            framing,
            limits,
            framer: Self::make_framer(framing, &limits),
            decoder: Decoder::new(format, &limits, &TextOptions::default()),
            calls: Calls::new(limits).with_id_prefix(&id_prefix),
            content: None,
            content_format: None,
            field_events: false,
            text_options: TextOptions::default(),
            reject_undeclared: true,
            id_prefix,
            seen: Seen::default(),
            meta: crate::event::ResponseMeta::default(),
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
            Framing::EventStream => {
                Framer::EventStream(EventStreamFramer::with_max_message(limits.max_line_bytes))
            }
            Framing::Text => Framer::Text(Vec::new()),
            Framing::Auto => Framer::Auto(AutoDetect::default()),
        }
    }

    fn rebuild(mut self) -> Self {
        self.framer = Self::make_framer(self.framing, &self.limits);
        self.text_options.narrow_to_tools = self.reject_undeclared;
        self.decoder = Decoder::new(self.format, &self.limits, &self.text_options);
        self.calls = Calls::new(self.limits)
            .with_field_events(self.field_events)
            .with_id_prefix(&self.id_prefix)
            .with_declared(
                self.text_options
                    .tools
                    .clone()
                    .filter(|_| self.reject_undeclared),
            );
        self.content = self
            .content_format
            .and_then(|f| TextScanner::with_options(f, &self.limits, &self.text_options));
        self
    }

    /// Text formats (and the `content_format` scanner): the output starts inside
    /// reasoning, because the chat template put the opening tag (`<think>`) in the prompt
    /// and the model writes only the closing one. Default `false`: only text between
    /// an opening and a closing tag is reasoning, and a closing tag without an opening
    /// one is text, byte for byte (bytes are never dropped; nothing in the output says a
    /// block was open). With `true`, everything before the first closing tag is
    /// reasoning. Ignored by `harmony`, whose channels say what is reasoning.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser};
    /// let mut p = Parser::new(Format::Hermes).reasoning_open(true);
    /// let mut ev = Vec::new();
    /// p.feed(b"Plan it.</think>Done.", &mut ev)?;
    /// p.finish(&mut ev)?;
    /// assert_eq!(ev[0], Event::Reasoning { delta: "Plan it.".into() });
    /// assert_eq!(ev[1], Event::Text { delta: "Done.".into() });
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn reasoning_open(mut self, open: bool) -> Self {
        self.text_options.reasoning.open = open;
        self.rebuild()
    }

    /// Text formats (and the `content_format` scanner): the reasoning tag pairs, replacing
    /// the syntax's defaults (`<think>`/`</think>`; `mistral` also `[THINK]`/`[/THINK]`).
    /// The first pair is the one [`reasoning_open`](Parser::reasoning_open) starts in.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser};
    /// let mut p = Parser::new(Format::Hermes)
    ///     .reasoning_tags(&[("<reasoning>", "</reasoning>"), ("<think>", "</think>")]);
    /// let mut ev = Vec::new();
    /// p.feed(b"<reasoning>hm</reasoning>ok", &mut ev)?;
    /// p.finish(&mut ev)?;
    /// assert_eq!(ev[0], Event::Reasoning { delta: "hm".into() });
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn reasoning_tags(mut self, tags: &[(&str, &str)]) -> Self {
        self.text_options.reasoning.tags = Some(
            tags.iter()
                .map(|(o, c)| ((*o).to_owned(), (*c).to_owned()))
                .collect(),
        );
        self.rebuild()
    }

    /// Marker-less text syntaxes (`llama-pythonic`, `llama-json`, and `auto` when it
    /// detects one of them): only these tool names make a call. A call header
    /// (`[name(` or `{"name": "name"`) whose name is not in the list is text, byte for
    /// byte. Without this option any well-formed name makes a call. Other formats
    /// ignore it.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser};
    /// let mut p = Parser::new(Format::LlamaPythonic).tool_names(["get_weather".to_string()]);
    /// let mut events = Vec::new();
    /// p.feed(b"See [note(x=1)]. [get_weather(city='Paris')]", &mut events)?;
    /// p.finish(&mut events)?;
    /// assert_eq!(events[0], Event::Text { delta: "See [note(x=1)]. ".into() });
    /// assert!(matches!(&events[1], Event::ToolCallStart { name, .. } if name == "get_weather"));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn tool_names(mut self, names: impl IntoIterator<Item = String>) -> Self {
        self.text_options.tool_names = Some(names.into_iter().collect());
        self.rebuild()
    }

    /// The request's declared tools ([`Tools`](crate::Tools), read from its `tools`
    /// array; the CLI's `--tools FILE`). With them:
    ///
    /// - **Undeclared calls are errors** (every format, provider and text alike): a call
    ///   whose name is not declared is not emitted as a call: no `ToolCallStart`, no
    ///   index (the emitted calls stay numbered 0, 1, 2, ... densely), no argument events.
    ///   When the call closes, one [`Event::Error`] of kind
    ///   [`UndeclaredTool`](crate::ErrorKind::UndeclaredTool), without an index, carries
    ///   its raw text: for text formats the model's own bytes of the call (markers
    ///   included), for provider formats the argument text received. The calls around it
    ///   decode as they would have. The error comes at the call's close rather than the
    ///   moment the name is known, so that it carries the whole call and nothing is lost
    ///   (an error at the name would have to drop the rest, or split one call into two
    ///   events). To act on a name the moment it appears instead (cancel generation),
    ///   turn this off with [`reject_undeclared(false)`](Parser::reject_undeclared) and
    ///   check each `ToolCallStart`'s name yourself.
    /// - **Marker-less syntaxes** (`llama-pythonic`, `llama-json`, and `auto` when it
    ///   detects one of them) recognise a call only for a declared name: `[note(x=1)]` in
    ///   prose is text, as with [`tool_names`](Parser::tool_names) (which, when set,
    ///   takes precedence).
    /// - **XML-parameter syntaxes** (`qwen-xml`, `seed-oss`, `glm`, `minimax`,
    ///   `deepseek-dsml`) type each parameter value from its JSON Schema: a parameter
    ///   that allows only `string` streams as a string and is never parsed; one that
    ///   allows no string is JSON text (Python `True`/`False`/`None` accepted; text that
    ///   does not parse stays a string, nothing lost); any other parameter (or no
    ///   schema) follows the syntax's documented schema-less rule.
    ///
    /// ```
    /// use toolstream::{ErrorKind, Event, Format, Parser, Tools};
    /// let tools = Tools::from_json(r#"[{"type":"function","function":{"name":"f",
    ///     "parameters":{"type":"object","properties":{
    ///     "zip":{"type":"string"},"n":{"type":"integer"},"ok":{"type":"boolean"}}}}}]"#).unwrap();
    /// let input = "<tool_call>\n<function=f>\n<parameter=zip>\n12345\n</parameter>\n\
    ///     <parameter=n>\n12345\n</parameter>\n<parameter=ok>\nTrue\n</parameter>\n\
    ///     </function>\n</tool_call>";
    /// let end = |p: &mut Parser| -> Result<serde_json::Value, toolstream::Error> {
    ///     let mut ev = Vec::new();
    ///     p.feed(input.as_bytes(), &mut ev)?;
    ///     p.finish(&mut ev)?;
    ///     Ok(ev.into_iter().find_map(|e| match e {
    ///         Event::ToolCallEnd { arguments, .. } => Some(arguments),
    ///         _ => None,
    ///     }).unwrap_or_default())
    /// };
    /// // Typed by the schema: the string stays "12345", the integer is 12345.
    /// let typed = end(&mut Parser::new(Format::QwenXml).tools(tools))?;
    /// assert_eq!(typed, serde_json::json!({"zip": "12345", "n": 12345, "ok": true}));
    /// // Without a schema both read as numbers, and `True` is a string.
    /// let inferred = end(&mut Parser::new(Format::QwenXml))?;
    /// assert_eq!(inferred, serde_json::json!({"zip": 12345, "n": 12345, "ok": "True"}));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn tools(mut self, tools: crate::Tools) -> Self {
        self.text_options.tools = Some(std::sync::Arc::new(tools));
        self.rebuild()
    }

    /// With [`tools`](Parser::tools): whether a call to an undeclared name is an
    /// [`UndeclaredTool`](crate::ErrorKind::UndeclaredTool) error (default `true`). With
    /// `false` such a call is emitted like any other, in every format, and the
    /// marker-less syntaxes accept any name again (unless [`tool_names`](Parser::tool_names)
    /// is set); the schema still types XML parameter values. No effect without `tools`.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser, Tools};
    /// let tools = Tools::from_json(r#"[{"name":"f","parameters":{}}]"#).unwrap();
    /// let mut p = Parser::new(Format::Hermes).tools(tools).reject_undeclared(false);
    /// let mut ev = Vec::new();
    /// p.feed(br#"<tool_call>{"name":"g","arguments":{}}</tool_call>"#, &mut ev)?;
    /// p.finish(&mut ev)?;
    /// assert!(matches!(&ev[0], Event::ToolCallStart { name, .. } if name == "g"));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn reject_undeclared(mut self, reject: bool) -> Self {
        self.reject_undeclared = reject;
        self.rebuild()
    }

    /// Generated call ids (for calls whose provider sent none: raw-text formats, Gemini,
    /// Ollama, ...) are `{prefix}{index}`; the default prefix is `call_` (`call_0`,
    /// `call_1`, ...). Ids are deterministic: the same input gives the same ids however it
    /// is chunked (the contract's split invariance), so two responses get the same
    /// generated ids. In an agent loop, whose history must not repeat an id, give each
    /// response its own prefix — derived from your request or turn id here, or a random
    /// one with [`unique_ids`](Parser::unique_ids).
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser};
    /// let call = br#"<tool_call>{"name":"f","arguments":{}}</tool_call>"#;
    /// let mut p = Parser::new(Format::Hermes).id_prefix("turn7_call_");
    /// let mut ev = Vec::new();
    /// p.feed(call, &mut ev)?;
    /// assert!(matches!(&ev[0], Event::ToolCallStart { id, .. } if id == "turn7_call_0"));
    /// let mut plain = Parser::new(Format::Hermes);
    /// let mut ev = Vec::new();
    /// plain.feed(call, &mut ev)?;
    /// assert!(matches!(&ev[0], Event::ToolCallStart { id, .. } if id == "call_0"));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn id_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.id_prefix = std::borrow::Cow::Owned(prefix.into());
        self.rebuild()
    }

    /// A generated call-id prefix unique to this parser: `call_`, 12 lowercase hex digits,
    /// `_` (e.g. `call_3fa85f64c1d2_0`), from the standard library's randomly keyed hasher
    /// over a process-wide parser counter. The ids stay the same however this parser's
    /// input is chunked; another parser (another response) gets other ids.
    ///
    /// ```
    /// use toolstream::{Format, Parser};
    /// let a = Parser::new(Format::Hermes).unique_ids();
    /// let b = Parser::new(Format::Hermes).unique_ids();
    /// assert_ne!(a.id_prefix_in_use(), b.id_prefix_in_use());
    /// assert!(a.id_prefix_in_use().starts_with("call_"));
    /// ```
    pub fn unique_ids(self) -> Self {
        self.id_prefix(unique_id_prefix())
    }

    /// The prefix of the call ids this parser generates (see [`id_prefix`](Parser::id_prefix)).
    pub fn id_prefix_in_use(&self) -> &str {
        &self.id_prefix
    }

    /// Marker-less text syntaxes: when `true`, a call is recognised only at the start of
    /// the output (nothing but whitespace emitted before it); later `[f(..)]` or
    /// `{"name": ..}` is text. Calls continuing the first call's group (the same
    /// pythonic list, `;`-separated or arrayed JSON calls) and calls after further
    /// whitespace are still calls. Explicit markers (`<|python_tag|>`) are not
    /// restricted. Default `false`: a call may start anywhere.
    pub fn calls_at_start_only(mut self, yes: bool) -> Self {
        self.text_options.calls_at_start_only = yes;
        self.rebuild()
    }

    /// Routes the visible text of an envelope format through the scanner of a text
    /// format, for servers that leak unparsed calls into `content` (e.g. `hermes` for a
    /// `<tool_call>` written into an OpenAI stream). Ignored when `text_format` is not a
    /// text format, or when the parser's own format is one.
    pub fn content_format(mut self, text_format: Format) -> Self {
        self.content_format = Some(text_format);
        self.rebuild()
    }

    /// Adds [`Event::ToolCallField`] / [`Event::ToolCallFieldEnd`] events: the decoded
    /// text of each string in a call's arguments as it streams, with its JSON Pointer,
    /// and each number or literal when it closes (default off). For every format.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser};
    /// let body = concat!(
    ///     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","#,
    ///     r#""function":{"name":"write_file","arguments":"{\"text\":\"a\\nb"}}]}}]}"#, "\n\n",
    /// );
    /// let mut parser = Parser::new(Format::OpenAiChat).field_events(true);
    /// let mut events = Vec::new();
    /// parser.feed(body.as_bytes(), &mut events)?;
    /// assert_eq!(events.last(), Some(&Event::ToolCallField {
    ///     index: 0,
    ///     path: "/text".into(),
    ///     delta: "a\nb".into(), // decoded: a real newline
    /// }));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    pub fn field_events(mut self, on: bool) -> Self {
        self.field_events = on;
        self.rebuild()
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

    /// Maximum bytes of one SSE line (and of one SSE event's joined data), NDJSON line,
    /// JSON-array element or event-stream message (default 16 MiB).
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

    /// The framing in use: for [`Framing::Auto`], the one detected from the first
    /// bytes (`Auto` until a significant byte has arrived).
    pub fn framing_in_use(&self) -> Framing {
        match &self.framer {
            Framer::Sse(_) => Framing::Sse,
            Framer::Ndjson(_) => Framing::Ndjson,
            Framer::JsonArray(_) => Framing::JsonArray,
            Framer::EventStream(_) => Framing::EventStream,
            Framer::Text(_) => Framing::Text,
            Framer::Auto(_) => Framing::Auto,
        }
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
            Framer::EventStream(f) => f.buffered(),
            Framer::Text(rejected) => rejected.len(),
            Framer::Auto(a) => a.held.len(),
        };
        framer
            + self.decoder.retained()
            + self.calls.retained()
            + self.content.as_ref().map_or(0, TextScanner::retained)
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
    pub fn feed_into<S: EventSink>(&mut self, chunk: &[u8], sink: &mut S) -> Result<(), Error> {
        if self.finished {
            return Err(Error::new(ParseErrorKind::Finished, self.fed));
        }
        self.fed += chunk.len() as u64;
        // Raw model text once the first event is out: straight to the text scanner (what
        // `feed_bytes` → `feed_framer` → `Decoder::raw` do, without their layers per feed).
        if self.seen.event
            && let (Framer::Text(_), Decoder::Text(t)) = (&self.framer, &mut self.decoder)
        {
            if !chunk.is_empty() {
                t.feed(chunk, &mut self.calls, sink);
            }
            return Ok(());
        }
        self.seen
            .input(chunk, matches!(self.framing, Framing::Sse | Framing::Auto));
        if self.seen.event {
            self.feed_bytes(chunk, sink);
        } else {
            let mut counting = Counting {
                inner: sink,
                count: 0,
            };
            self.feed_bytes(chunk, &mut counting);
            self.seen.event = counting.count > 0;
        }
        Ok(())
    }

    /// The body of [`feed_into`](Parser::feed_into): framing detection, then the framer.
    fn feed_bytes(&mut self, chunk: &[u8], out: &mut dyn EventSink) {
        let mut chunk = chunk;
        if let Framer::Auto(auto) = &mut self.framer {
            let Some((framing, at)) = auto.detect(chunk) else {
                return;
            };
            let held = std::mem::take(&mut auto.held);
            self.framer = Self::make_framer(framing, &self.limits);
            self.feed_framer(&held, out);
            chunk = chunk.get(at..).unwrap_or_default();
        }
        self.feed_framer(chunk, out);
    }

    /// Runs bytes through the framer (not `Auto`) into the decoder.
    fn feed_framer(&mut self, chunk: &[u8], out: &mut dyn EventSink) {
        let mut rest = chunk;
        let limit = self.limits.max_line_bytes;
        let decoder = &mut self.decoder;
        let seen = &mut self.seen;
        let mut sink = Sink {
            out,
            calls: &mut self.calls,
            content: self.content.as_mut(),
            meta: &mut self.meta,
        };
        match &mut self.framer {
            Framer::Sse(f) => {
                while let Some(item) = f.feed(&mut rest) {
                    sse_item(item, decoder, limit, seen, &mut sink);
                }
            }
            Framer::Ndjson(f) => {
                while let Some(item) = f.feed(&mut rest) {
                    ndjson_item(item, decoder, limit, seen, &mut sink);
                }
            }
            Framer::JsonArray(f) => {
                while let Some(item) = f.feed(&mut rest) {
                    array_item(item, decoder, seen, &mut sink);
                }
            }
            Framer::EventStream(f) => {
                while let Some(item) = f.feed(&mut rest) {
                    eventstream_item(item, decoder, seen, &mut sink);
                }
            }
            Framer::Text(rejected) => decoder.raw(rest, rejected, limit, false, &mut sink),
            // Replaced before this is called.
            Framer::Auto(_) => {}
        }
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
    fn finish_bytes(&mut self, out: &mut dyn EventSink) {
        if let Framer::Auto(auto) = &mut self.framer {
            // Nothing significant arrived: the default, SSE.
            let held = std::mem::take(&mut auto.held);
            self.framer = Self::make_framer(Framing::Sse, &self.limits);
            self.feed_framer(&held, out);
        }
        let limit = self.limits.max_line_bytes;
        let decoder = &mut self.decoder;
        let seen = &mut self.seen;
        let mut sink = Sink {
            out,
            calls: &mut self.calls,
            content: self.content.as_mut(),
            meta: &mut self.meta,
        };
        match &mut self.framer {
            Framer::Sse(f) => {
                while let Some(item) = f.finish() {
                    sse_item(item, decoder, limit, seen, &mut sink);
                }
            }
            Framer::Ndjson(f) => {
                while let Some(item) = f.finish() {
                    ndjson_item(item, decoder, limit, seen, &mut sink);
                }
            }
            Framer::JsonArray(f) => {
                while let Some(item) = f.finish() {
                    array_item(item, decoder, seen, &mut sink);
                }
            }
            Framer::EventStream(f) => {
                while let Some(item) = f.finish() {
                    eventstream_item(item, decoder, seen, &mut sink);
                }
            }
            Framer::Text(rejected) => decoder.raw(&[], rejected, limit, true, &mut sink),
            Framer::Auto(_) => {}
        }
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
        let text_decoder = matches!(self.decoder, Decoder::Text(_));
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
                 is the framing right for format {}? (--framing)",
                self.fed, self.format
            )
        } else {
            format!(
                "no event: {} payload message(s) were read with the {framing} framing from {} bytes{shown}, \
                 but none made an event as format {}; is the format right (--format), or was the stream cut off before its content?",
                seen.messages, self.fed, self.format
            )
        };
        out.push(Event::Error {
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
        self.seen.message(data);
        let mut sink = Sink {
            out: &mut out,
            calls: &mut self.calls,
            content: self.content.as_mut(),
            meta: &mut self.meta,
        };
        self.decoder.message(event, data, &mut sink);
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

fn sse_item(
    item: SseItem<'_>,
    decoder: &mut Decoder,
    limit: usize,
    seen: &mut Seen,
    sink: &mut Sink<'_>,
) {
    match item {
        SseItem::Event { event, data } => {
            seen.message(data);
            decoder.message(event, data, sink)
        }
        SseItem::LineTooLong { prefix, len } => {
            framing_error("SSE line", limit, prefix, len, sink.out)
        }
        SseItem::DataTooLong { prefix, len } => {
            framing_error("SSE event data", limit, prefix, len, sink.out)
        }
    }
}

fn ndjson_item(
    item: NdjsonItem<'_>,
    decoder: &mut Decoder,
    limit: usize,
    seen: &mut Seen,
    sink: &mut Sink<'_>,
) {
    match item {
        NdjsonItem::Line(line) => {
            seen.message(line);
            decoder.message("", line, sink)
        }
        NdjsonItem::LineTooLong { prefix, len } => {
            framing_error("NDJSON line", limit, prefix, len, sink.out)
        }
    }
}

fn array_item(
    item: JsonArrayItem<'_>,
    decoder: &mut Decoder,
    seen: &mut Seen,
    sink: &mut Sink<'_>,
) {
    match item {
        JsonArrayItem::Element(e) => {
            seen.message(e);
            decoder.message("", e, sink)
        }
        JsonArrayItem::Error { message, raw } => {
            sink.error(ErrorKind::Framing, message.to_owned(), raw)
        }
    }
}

/// Event-stream messages reach the decoder as `(event, payload)`: the `:event-type`
/// for events, `exception:<type>` / `error:<code>` for the other message types.
fn eventstream_item(
    item: EventStreamItem<'_>,
    decoder: &mut Decoder,
    seen: &mut Seen,
    sink: &mut Sink<'_>,
) {
    match item {
        EventStreamItem::Message {
            event_type,
            message_type,
            exception_type,
            error_code,
            payload,
        } => {
            seen.message(payload);
            match message_type {
                "exception" => {
                    decoder.message(&format!("exception:{exception_type}"), payload, sink)
                }
                "error" => decoder.message(&format!("error:{error_code}"), payload, sink),
                _ => decoder.message(event_type, payload, sink),
            }
        }
        EventStreamItem::Error { kind, message, raw } => sink.error(
            ErrorKind::Framing,
            format!("event stream {kind:?}: {message}"),
            raw,
        ),
    }
}
