//! [`ParserConfig`]: every option of a [`Parser`](crate::Parser), each set in one place.

use std::borrow::Cow;
use std::sync::Arc;

use crate::spec::Syntax;

use crate::format::{Format, Framing};
use crate::limits::Limits;
use crate::tools::Tools;

/// Every option of a [`Parser`](crate::Parser), each set in one place: build one with
/// the setters below, then make a parser per response with
/// [`Parser::with_config`](crate::Parser::with_config). [`Parser::new`](crate::Parser::new)
/// is `Parser::with_config(format, ParserConfig::new())`.
///
/// A configuration is cheap to clone (the declared tools are shared), so an agent loop or
/// a server keeps one and clones it for each response; with
/// [`id_prefix`](ParserConfig::id_prefix)`(`[`IdPrefix::Unique`]`)` each parser made from
/// it gets its own call ids.
///
/// ```
/// use toolstream::{Event, Format, IdPrefix, Parser, ParserConfig, Tools};
/// let tools = Tools::from_json(r#"[{"name":"search","parameters":{}}]"#).unwrap();
/// let config = ParserConfig::new()
///     .tools(tools)
///     .reasoning_open(true)
///     .max_calls(16)
///     .id_prefix(IdPrefix::Unique);
///
/// let mut ids = Vec::new();
/// for _turn in 0..2 {
///     let mut parser = Parser::with_config(Format::Hermes, config.clone());
///     assert_eq!(parser.limits().max_calls, 16);
///     let mut events = Vec::new();
///     parser.feed(br#"Plan.</think><tool_call>{"name":"search","arguments":{}}</tool_call>"#, &mut events)?;
///     parser.finish(&mut events)?;
///     assert_eq!(events[0], Event::Reasoning { delta: "Plan.".into() });
///     ids.extend(events.into_iter().filter_map(|e| match e {
///         Event::ToolCallEnd { id, .. } => Some(id),
///         _ => None,
///     }));
/// }
/// assert_ne!(ids[0], ids[1]); // each response its own call ids
/// # Ok::<(), toolstream::Error>(())
/// ```
///
/// # The options
///
/// Each option has one setter, which takes the value by itself (no `Option`: an option
/// not set keeps its default). The CLI flags (`toolstream parse` and `serve`) and the
/// Python keyword arguments (`toolstream.Parser(format, **options)`) map one to one onto
/// them:
///
/// | setter | default | CLI | Python keyword |
/// |---|---|---|---|
/// | [`framing`](ParserConfig::framing) | the format's own | `--framing F` | `framing="ndjson"` |
/// | [`tools`](ParserConfig::tools) | none | `--tools FILE` | `tools=[...]` (or JSON text, or a request dict) |
/// | [`reject_undeclared`](ParserConfig::reject_undeclared) | `true` | `--allow-undeclared` (= `false`) | `reject_undeclared=False` |
/// | [`tool_names`](ParserConfig::tool_names) | any name | `--tool-names A,B` | `tool_names=["a", "b"]` |
/// | [`calls_at_start_only`](ParserConfig::calls_at_start_only) | `false` | `--calls-at-start-only` | `calls_at_start_only=True` |
/// | [`reasoning_open`](ParserConfig::reasoning_open) | `false` | `--reasoning-open` | `reasoning_open=True` |
/// | [`reasoning_tags`](ParserConfig::reasoning_tags) | the syntax's | `--reasoning-tags OPEN,CLOSE` (repeatable) | `reasoning_tags=[("<r>", "</r>")]` |
/// | [`calls_in_reasoning`](ParserConfig::calls_in_reasoning) | `false` | `--calls-in-reasoning` | `calls_in_reasoning=True` |
/// | [`content_format`](ParserConfig::content_format) | none | `--content F` | `content_format="hermes"` |
/// | [`content_syntax`](ParserConfig::content_syntax) | none | `proxy --syntax FILE` | — (`Parser(syntax=...)` parses raw text in a spec's syntax) |
/// | [`field_events`](ParserConfig::field_events) | `false` | `--fields` | `field_events=True` |
/// | [`id_prefix`](ParserConfig::id_prefix) | `call_` | `--id-prefix P`; `--unique-ids` (= [`IdPrefix::Unique`]) | `id_prefix="p"`; `unique_ids=True` (= [`IdPrefix::Unique`]) |
/// | [`max_argument_bytes`](ParserConfig::max_argument_bytes) | 16 MiB | `--max-argument-bytes N` | `max_argument_bytes=N` |
/// | [`max_calls`](ParserConfig::max_calls) | 1024 | `--max-calls N` | `max_calls=N` |
/// | [`max_held_bytes`](ParserConfig::max_held_bytes) | 64 KiB | `--max-held-bytes N` | `max_held_bytes=N` |
/// | [`max_line_bytes`](ParserConfig::max_line_bytes) | 16 MiB | `--max-line-bytes N` | `max_line_bytes=N` |
/// | [`max_depth`](ParserConfig::max_depth) | 128 | `--max-depth N` | `max_depth=N` |
/// | [`max_repeats`](ParserConfig::max_repeats) | off | `--max-repeats N` | `max_repeats=N` |
/// | [`validate_arguments`](ParserConfig::validate_arguments) | `false` | `--validate` (with `--tools`) | `validate=True` |
///
/// A parser reports what it runs with: [`Parser::limits`](crate::Parser::limits),
/// [`Parser::framing_in_use`](crate::Parser::framing_in_use),
/// [`Parser::id_prefix_in_use`](crate::Parser::id_prefix_in_use), and the whole
/// configuration, [`Parser::config`](crate::Parser::config) (compared with `==`, shown with
/// `{:?}`).
///
/// Why setters and no public fields: one way to set each option, and room to add options
/// (the struct is `#[non_exhaustive]` and its fields private, so a new option is not a
/// breaking change), and each setter keeps related options consistent (one call-id rule,
/// [`IdPrefix`], instead of a prefix and a flag that could disagree).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParserConfig {
    /// `None`: the format's own ([`Format::default_framing`]).
    pub(crate) framing: Option<Framing>,
    pub(crate) limits: Limits,
    pub(crate) reasoning_open: bool,
    pub(crate) reasoning_tags: Option<Vec<(String, String)>>,
    pub(crate) calls_in_reasoning: bool,
    pub(crate) tools: Option<Arc<Tools>>,
    pub(crate) tool_names: Option<Vec<String>>,
    pub(crate) reject_undeclared: bool,
    pub(crate) id_prefix: IdPrefix,
    pub(crate) calls_at_start_only: bool,
    pub(crate) content_format: Option<Format>,
    pub(crate) content_syntax: Option<Arc<Syntax>>,
    pub(crate) field_events: bool,
    /// 0: off.
    pub(crate) max_repeats: usize,
    pub(crate) validate: bool,
}

/// The rule for the call ids a parser generates (for calls whose provider sent none:
/// raw-text formats, Gemini, Ollama, ...): [`ParserConfig::id_prefix`].
///
/// Ids are `{prefix}{index}`. With a [`Fixed`](IdPrefix::Fixed) prefix they are
/// deterministic: the same input gives the same ids however it is chunked (the contract's
/// split invariance), so two responses get the same generated ids. An agent loop, whose
/// history must not repeat an id, gives each response its own prefix: one derived from its
/// request or turn id (`Fixed`), or [`Unique`](IdPrefix::Unique).
///
/// A `&str` or `String` converts to `Fixed`: `config.id_prefix("turn7_")`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum IdPrefix {
    /// This prefix for every parser made from the configuration (default `call_`: ids
    /// `call_0`, `call_1`, ...).
    Fixed(Cow<'static, str>),
    /// A prefix of its own for each parser made from the configuration, made when the
    /// parser is: `call_`, 12 lowercase hex digits, `_` (e.g. `call_3fa85f64c1d2_0`), from
    /// the standard library's randomly keyed hasher over a process-wide parser counter.
    /// The ids stay the same however that parser's input is chunked; another parser
    /// (another response) gets other ids.
    Unique,
}

impl Default for IdPrefix {
    fn default() -> Self {
        IdPrefix::Fixed(Cow::Borrowed(crate::calls::DEFAULT_ID_PREFIX))
    }
}

impl From<&str> for IdPrefix {
    fn from(prefix: &str) -> Self {
        IdPrefix::Fixed(Cow::Owned(prefix.to_owned()))
    }
}

impl From<String> for IdPrefix {
    fn from(prefix: String) -> Self {
        IdPrefix::Fixed(Cow::Owned(prefix))
    }
}

impl Default for ParserConfig {
    fn default() -> Self {
        ParserConfig {
            framing: None,
            limits: Limits::default(),
            reasoning_open: false,
            reasoning_tags: None,
            calls_in_reasoning: false,
            tools: None,
            tool_names: None,
            reject_undeclared: true,
            id_prefix: IdPrefix::default(),
            calls_at_start_only: false,
            content_format: None,
            content_syntax: None,
            field_events: false,
            max_repeats: 0,
            validate: false,
        }
    }
}

impl ParserConfig {
    /// The defaults: the format's framing, default [`Limits`], no tools, call ids
    /// `call_0`, `call_1`, ... (the same as [`ParserConfig::default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Overrides the format's default framing (e.g. NDJSON for recorded payloads,
    /// [`Framing::Auto`] to detect it from the first byte).
    ///
    /// ```
    /// use toolstream::{Format, Framing, Parser, ParserConfig};
    /// let parser = Parser::with_config(Format::OpenAiChat, ParserConfig::new().framing(Framing::Ndjson));
    /// assert_eq!(parser.framing_in_use(), Framing::Ndjson);
    /// ```
    #[must_use]
    pub fn framing(mut self, framing: Framing) -> Self {
        self.framing = Some(framing);
        self
    }

    /// Maximum bytes of one call's arguments (default 16 MiB). See
    /// [`Limits::max_argument_bytes`].
    ///
    /// ```
    /// use toolstream::{Format, Parser, ParserConfig};
    /// let config = ParserConfig::new().max_argument_bytes(1 << 20).max_calls(16);
    /// let parser = Parser::with_config(Format::OpenAiChat, config);
    /// assert_eq!(parser.limits().max_argument_bytes, 1 << 20);
    /// assert_eq!(parser.limits().max_calls, 16);
    /// ```
    #[must_use]
    pub fn max_argument_bytes(mut self, n: usize) -> Self {
        self.limits.max_argument_bytes = n;
        self
    }

    /// Maximum tool calls in one response (default 1024). See [`Limits::max_calls`].
    #[must_use]
    pub fn max_calls(mut self, n: usize) -> Self {
        self.limits.max_calls = n;
        self
    }

    /// Maximum bytes of text held back while it might start a call (default 64 KiB). See
    /// [`Limits::max_held_bytes`].
    #[must_use]
    pub fn max_held_bytes(mut self, n: usize) -> Self {
        self.limits.max_held_bytes = n;
        self
    }

    /// Maximum bytes of one SSE line (and of one SSE event's joined data), NDJSON line,
    /// JSON-array element or event-stream message (default 16 MiB). See
    /// [`Limits::max_line_bytes`].
    #[must_use]
    pub fn max_line_bytes(mut self, n: usize) -> Self {
        self.limits.max_line_bytes = n;
        self
    }

    /// Maximum nesting depth of JSON arguments (default 128). See [`Limits::max_depth`].
    #[must_use]
    pub fn max_depth(mut self, n: usize) -> Self {
        self.limits.max_depth = n;
        self
    }

    /// With [`tools`](ParserConfig::tools): each call's arguments are checked against its
    /// tool's `parameters` JSON Schema as the bytes arrive (default `false`), for every
    /// format. A violation ends the call, at the first byte after which no continuation
    /// could be valid, as an [`Event::Error`](crate::Event::Error) of kind
    /// [`SchemaViolation`](crate::ErrorKind::SchemaViolation) with the call's index, the
    /// offending value's JSON Pointer in `path`, a message naming the keyword, and the
    /// call's bytes so far; it gets no `ToolCallEnd`. The keywords checked are listed in
    /// the crate docs ("Cancel early"); any other keyword is not checked (never a false
    /// error). Schemas are compiled once per [`Tools`] and shared by every parser made
    /// from it.
    ///
    /// ```
    /// use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig, Tools};
    /// let tools = Tools::from_json(r#"[{"name":"set","parameters":{"type":"object",
    ///     "properties":{"unit":{"enum":["celsius","fahrenheit"]}}}}]"#).unwrap();
    /// let config = ParserConfig::new().tools(tools).validate_arguments(true);
    /// let mut p = Parser::with_config(Format::Hermes, config);
    /// let mut ev = Vec::new();
    /// p.feed(br#"<tool_call>{"name":"set","arguments":{"unit":"kel"#, &mut ev)?;
    /// match ev.last() {
    ///     Some(Event::Error { kind: ErrorKind::SchemaViolation, path, .. }) => {
    ///         assert_eq!(path.as_deref(), Some("/unit")) // at the `k`: no member starts so
    ///     }
    ///     other => panic!("{other:?}"),
    /// }
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn validate_arguments(mut self, on: bool) -> Self {
        self.validate = on;
        self
    }

    /// The runaway guard (default off): a call whose argument text repeats one period of
    /// up to 64 bytes more than `n` times in a row (`(n + 1) · p` bytes of period `p`)
    /// ends, at the byte that exceeds it, as an [`Event::Error`](crate::Event::Error) of
    /// kind [`Repetition`](crate::ErrorKind::Repetition) carrying its index and its bytes
    /// so far; it gets no `ToolCallEnd`, and the rest of its text is ignored. For every
    /// format. Linear time, bounded state: see the crate docs' "Cancel early". `0` turns
    /// it off. Pick `n` well above the repeats real arguments hold (a run of spaces or
    /// `0`s is period 1): 10 repeats of a 9-byte `</invoke>` is 90 bytes, while 10 spaces
    /// are 11.
    ///
    /// ```
    /// use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig};
    /// let config = ParserConfig::new().max_repeats(20);
    /// let mut p = Parser::with_config(Format::Hermes, config);
    /// let mut ev = Vec::new();
    /// let looping = "</invoke>".repeat(100);
    /// p.feed(format!(r#"<tool_call>{{"name":"f","arguments":{{"a":"{looping}"#).as_bytes(), &mut ev)?;
    /// assert!(matches!(ev.last(), Some(Event::Error { kind: ErrorKind::Repetition, index: Some(0), .. })));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn max_repeats(mut self, n: usize) -> Self {
        self.max_repeats = n;
        self
    }

    /// Text formats (and the [`content_format`](ParserConfig::content_format) scanner):
    /// the output starts inside reasoning, because the chat template put the opening tag
    /// (`<think>`) in the prompt and the model writes only the closing one. Default
    /// `false`: only text between an opening and a closing tag is reasoning, and a closing
    /// tag without an opening one is text, byte for byte (bytes are never dropped; nothing
    /// in the output says a block was open). With `true`, everything before the first
    /// closing tag is reasoning. Ignored by `harmony`, whose channels say what is
    /// reasoning.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser, ParserConfig};
    /// let mut p = Parser::with_config(Format::Hermes, ParserConfig::new().reasoning_open(true));
    /// let mut ev = Vec::new();
    /// p.feed(b"Plan it.</think>Done.", &mut ev)?;
    /// p.finish(&mut ev)?;
    /// assert_eq!(ev[0], Event::Reasoning { delta: "Plan it.".into() });
    /// assert_eq!(ev[1], Event::Text { delta: "Done.".into() });
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn reasoning_open(mut self, open: bool) -> Self {
        self.reasoning_open = open;
        self
    }

    /// Text formats (and the [`content_format`](ParserConfig::content_format) scanner):
    /// the reasoning tag pairs, replacing the syntax's defaults (`<think>`/`</think>`;
    /// `mistral` also `[THINK]`/`[/THINK]`). The first pair is the one
    /// [`reasoning_open`](ParserConfig::reasoning_open) starts in.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser, ParserConfig};
    /// let config = ParserConfig::new()
    ///     .reasoning_tags(&[("<reasoning>", "</reasoning>"), ("<think>", "</think>")]);
    /// let mut p = Parser::with_config(Format::Hermes, config);
    /// let mut ev = Vec::new();
    /// p.feed(b"<reasoning>hm</reasoning>ok", &mut ev)?;
    /// p.finish(&mut ev)?;
    /// assert_eq!(ev[0], Event::Reasoning { delta: "hm".into() });
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn reasoning_tags<S: AsRef<str>>(mut self, tags: &[(S, S)]) -> Self {
        self.reasoning_tags = Some(
            tags.iter()
                .map(|(open, close)| (open.as_ref().to_owned(), close.as_ref().to_owned()))
                .collect(),
        );
        self
    }

    /// Text formats (and the `content_format` scanner): a tool call the model writes
    /// inside its reasoning, before the closing tag, is extracted as a call; the
    /// reasoning text around it stays reasoning, and the block stays open after it.
    /// Qwen 3.5 and Nemotron do this in thinking mode (vllm#39056, #42021: the call
    /// ends up in `reasoning_content`). Default `false`: inside reasoning only the
    /// closing tag is looked for, as the servers' parsers do, so a model that reasons
    /// *about* call syntax (`<tool_call>` as prose) never makes a call from it. Either
    /// way a marker that opens no call stays reasoning, byte for byte. Formats whose
    /// call markers end reasoning (Kimi K2) keep that rule.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser, ParserConfig};
    /// let config = ParserConfig::new().calls_in_reasoning(true);
    /// let mut p = Parser::with_config(Format::Hermes, config);
    /// let mut ev = Vec::new();
    /// p.feed(b"<think>Look it up.\n<tool_call>{\"name\": \"search\", \"arguments\": {}}</tool_call>\nDone.</think>Hi", &mut ev)?;
    /// p.finish(&mut ev)?;
    /// toolstream::merge_deltas(&mut ev);
    /// assert_eq!(ev[0], Event::Reasoning { delta: "Look it up.\n".into() });
    /// assert!(matches!(&ev[1], Event::ToolCallStart { name, .. } if name == "search"));
    /// assert!(ev.contains(&Event::Reasoning { delta: "\nDone.".into() }));
    /// assert!(ev.contains(&Event::Text { delta: "Hi".into() }));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn calls_in_reasoning(mut self, on: bool) -> Self {
        self.calls_in_reasoning = on;
        self
    }

    /// The request's declared tools ([`Tools`], read from its `tools` array; the CLI's
    /// `--tools FILE`). A [`Tools`] or an `Arc<Tools>` (shared, not copied). With them:
    ///
    /// - **Undeclared calls are errors** (every format, provider and text alike): a call
    ///   whose name is not declared is not emitted as a call: no `ToolCallStart`, no
    ///   index (the emitted calls stay numbered 0, 1, 2, ... densely), no argument events.
    ///   When the call closes, one [`Event::Error`](crate::Event::Error) of kind
    ///   [`UndeclaredTool`](crate::ErrorKind::UndeclaredTool), without an index, carries
    ///   its raw text: for text formats the model's own bytes of the call (markers
    ///   included), for provider formats the argument text received. The calls around it
    ///   decode as they would have. The error comes at the call's close rather than the
    ///   moment the name is known, so that it carries the whole call and nothing is lost
    ///   (an error at the name would have to drop the rest, or split one call into two
    ///   events). To act on a name the moment it appears instead (cancel generation),
    ///   turn this off with [`reject_undeclared(false)`](ParserConfig::reject_undeclared)
    ///   and check each `ToolCallStart`'s name yourself.
    /// - **Marker-less syntaxes** (`llama-pythonic`, `llama-json`, and `auto` when it
    ///   detects one of them) recognise a call only for a declared name: `[note(x=1)]` in
    ///   prose is text, as with [`tool_names`](ParserConfig::tool_names) (which, when set,
    ///   takes precedence).
    /// - **XML-parameter syntaxes** (`qwen-xml`, `seed-oss`, `glm`, `minimax`,
    ///   `deepseek-dsml`, `kimi-k3`, `minimax-m3`) type each parameter value from its JSON Schema: a parameter
    ///   that allows only `string` streams as a string and is never parsed; one that
    ///   allows no string is JSON text (Python `True`/`False`/`None` accepted; text that
    ///   does not parse stays a string, nothing lost); any other parameter (or no
    ///   schema) follows the syntax's documented schema-less rule.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser, ParserConfig, Tools};
    /// let tools = Tools::from_json(r#"[{"type":"function","function":{"name":"f",
    ///     "parameters":{"type":"object","properties":{
    ///     "zip":{"type":"string"},"n":{"type":"integer"},"ok":{"type":"boolean"}}}}}]"#).unwrap();
    /// let input = "<tool_call>\n<function=f>\n<parameter=zip>\n12345\n</parameter>\n\
    ///     <parameter=n>\n12345\n</parameter>\n<parameter=ok>\nTrue\n</parameter>\n\
    ///     </function>\n</tool_call>";
    /// let end = |config: ParserConfig| -> Result<serde_json::Value, toolstream::Error> {
    ///     let mut p = Parser::with_config(Format::QwenXml, config);
    ///     let mut ev = Vec::new();
    ///     p.feed(input.as_bytes(), &mut ev)?;
    ///     p.finish(&mut ev)?;
    ///     Ok(ev.into_iter().find_map(|e| match e {
    ///         Event::ToolCallEnd { arguments, .. } => Some(arguments),
    ///         _ => None,
    ///     }).unwrap_or_default())
    /// };
    /// // Typed by the schema: the string stays "12345", the integer is 12345.
    /// let typed = end(ParserConfig::new().tools(tools))?;
    /// assert_eq!(typed, serde_json::json!({"zip": "12345", "n": 12345, "ok": true}));
    /// // Without a schema both read as numbers, and `True` is a string.
    /// let inferred = end(ParserConfig::new())?;
    /// assert_eq!(inferred, serde_json::json!({"zip": 12345, "n": 12345, "ok": "True"}));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn tools(mut self, tools: impl Into<Arc<Tools>>) -> Self {
        self.tools = Some(tools.into());
        self
    }

    /// With [`tools`](ParserConfig::tools): whether a call to an undeclared name is an
    /// [`UndeclaredTool`](crate::ErrorKind::UndeclaredTool) error (default `true`). With
    /// `false` such a call is emitted like any other, in every format, and the
    /// marker-less syntaxes accept any name again (unless
    /// [`tool_names`](ParserConfig::tool_names) is set); the schema still types XML
    /// parameter values. No effect without `tools`.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser, ParserConfig, Tools};
    /// let tools = Tools::from_json(r#"[{"name":"f","parameters":{}}]"#).unwrap();
    /// let config = ParserConfig::new().tools(tools).reject_undeclared(false);
    /// let mut p = Parser::with_config(Format::Hermes, config);
    /// let mut ev = Vec::new();
    /// p.feed(br#"<tool_call>{"name":"g","arguments":{}}</tool_call>"#, &mut ev)?;
    /// p.finish(&mut ev)?;
    /// assert!(matches!(&ev[0], Event::ToolCallStart { name, .. } if name == "g"));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn reject_undeclared(mut self, reject: bool) -> Self {
        self.reject_undeclared = reject;
        self
    }

    /// Marker-less text syntaxes (`llama-pythonic`, `llama-json`, and `auto` when it
    /// detects one of them): only these tool names make a call. A call header
    /// (`[name(` or `{"name": "name"`) whose name is not in the list is text, byte for
    /// byte. Without this option any well-formed name makes a call (or, with
    /// [`tools`](ParserConfig::tools), any declared one). Other formats ignore it.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser, ParserConfig};
    /// let config = ParserConfig::new().tool_names(["get_weather"]);
    /// let mut p = Parser::with_config(Format::LlamaPythonic, config);
    /// let mut events = Vec::new();
    /// p.feed(b"See [note(x=1)]. [get_weather(city='Paris')]", &mut events)?;
    /// p.finish(&mut events)?;
    /// assert_eq!(events[0], Event::Text { delta: "See [note(x=1)]. ".into() });
    /// assert!(matches!(&events[1], Event::ToolCallStart { name, .. } if name == "get_weather"));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn tool_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.tool_names = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// The call ids the parser generates: `{prefix}{index}` with a fixed prefix (a `&str`
    /// or `String`; default `call_`), or a prefix of each parser's own
    /// ([`IdPrefix::Unique`]). See [`IdPrefix`] for when to use which.
    ///
    /// ```
    /// use toolstream::{Event, Format, IdPrefix, Parser, ParserConfig};
    /// let call = br#"<tool_call>{"name":"f","arguments":{}}</tool_call>"#;
    /// let mut p = Parser::with_config(Format::Hermes, ParserConfig::new().id_prefix("turn7_call_"));
    /// let mut ev = Vec::new();
    /// p.feed(call, &mut ev)?;
    /// assert!(matches!(&ev[0], Event::ToolCallStart { id, .. } if id == "turn7_call_0"));
    ///
    /// let mut plain = Parser::new(Format::Hermes);
    /// let mut ev = Vec::new();
    /// plain.feed(call, &mut ev)?;
    /// assert!(matches!(&ev[0], Event::ToolCallStart { id, .. } if id == "call_0"));
    ///
    /// let unique = ParserConfig::new().id_prefix(IdPrefix::Unique);
    /// let a = Parser::with_config(Format::Hermes, unique.clone());
    /// let b = Parser::with_config(Format::Hermes, unique);
    /// assert_ne!(a.id_prefix_in_use(), b.id_prefix_in_use());
    /// assert!(a.id_prefix_in_use().starts_with("call_"));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn id_prefix(mut self, prefix: impl Into<IdPrefix>) -> Self {
        self.id_prefix = prefix.into();
        self
    }

    /// Marker-less text syntaxes: when `true`, a call is recognised only at the start of
    /// the output (nothing but whitespace emitted before it); later `[f(..)]` or
    /// `{"name": ..}` is text. Calls continuing the first call's group (the same
    /// pythonic list, `;`-separated or arrayed JSON calls) and calls after further
    /// whitespace are still calls. Explicit markers (`<|python_tag|>`) are not
    /// restricted. Default `false`: a call may start anywhere.
    ///
    /// ```
    /// use toolstream::{Event, Format, Parser, ParserConfig};
    /// let config = ParserConfig::new().calls_at_start_only(true);
    /// let mut p = Parser::with_config(Format::LlamaPythonic, config);
    /// let mut events = Vec::new();
    /// p.feed(b"See [f(x=1)]", &mut events)?;
    /// p.finish(&mut events)?;
    /// assert_eq!(events[0], Event::Text { delta: "See [f(x=1)]".into() });
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn calls_at_start_only(mut self, yes: bool) -> Self {
        self.calls_at_start_only = yes;
        self
    }

    /// Routes the visible text of an envelope format through the scanner of a text
    /// format, for servers that leak unparsed calls into `content` (e.g. `hermes` for a
    /// `<tool_call>` written into an OpenAI stream). Ignored when `text_format` is not a
    /// text format, or when the parser's own format is one.
    #[must_use]
    pub fn content_format(mut self, text_format: Format) -> Self {
        self.content_format = Some(text_format);
        self.content_syntax = None;
        self
    }

    /// Routes the visible text of an envelope format through the scanner of `syntax` (a
    /// [`Syntax`] read from a spec, or an `Arc<Syntax>` shared), as [`content_format`](Self::content_format()) does for
    /// a built-in text format. The two are one option: the one set last is used.
    #[must_use]
    pub fn content_syntax(mut self, syntax: impl Into<Arc<Syntax>>) -> Self {
        self.content_syntax = Some(syntax.into());
        self.content_format = None;
        self
    }

    /// Adds [`ToolCallField`](crate::Event::ToolCallField) /
    /// [`ToolCallFieldEnd`](crate::Event::ToolCallFieldEnd) events: the decoded text of
    /// each string in a call's arguments as it streams, with its JSON Pointer, and each
    /// number or literal when it closes, each with its [`FieldKind`](crate::FieldKind)
    /// (default off). For every format.
    ///
    /// ```
    /// use toolstream::{Event, FieldKind, Format, Parser, ParserConfig};
    /// let body = concat!(
    ///     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","#,
    ///     r#""function":{"name":"write_file","arguments":"{\"text\":\"a\\nb"}}]}}]}"#, "\n\n",
    /// );
    /// let mut parser = Parser::with_config(Format::OpenAiChat, ParserConfig::new().field_events(true));
    /// let mut events = Vec::new();
    /// parser.feed(body.as_bytes(), &mut events)?;
    /// assert_eq!(events.last(), Some(&Event::ToolCallField {
    ///     index: 0,
    ///     path: "/text".into(),
    ///     delta: "a\nb".into(), // decoded: a real newline
    ///     kind: FieldKind::String,
    /// }));
    /// # Ok::<(), toolstream::Error>(())
    /// ```
    #[must_use]
    pub fn field_events(mut self, on: bool) -> Self {
        self.field_events = on;
        self
    }
}
