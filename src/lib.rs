//! # toolstream
//!
//! Parse streaming LLM responses into tool-call events **as the bytes arrive**: the
//! call's name the moment it is known, its arguments as they grow (the model's own bytes,
//! append-only), the finished call with parsed arguments, and the ordinary text around it
//! untouched. One event model for OpenAI-compatible servers and the other providers'
//! streams (see [`Format`] and `toolstream formats`).
//!
//! Every byte is looked at a bounded number of times (no re-parsing of the accumulated
//! buffer), any chunking of the input gives the same events, and no input can make the
//! parser panic or grow without bound.
//!
//! Three uses, each a section below: [wrap a streaming HTTP
//! response](#wrap-a-streaming-http-response), [show tool calls live in a
//! UI](#show-tool-calls-live-in-a-ui), [detect calls early to cancel
//! generation](#detect-calls-early-to-cancel-generation) (and [catch a bad call while it
//! streams](#catch-a-bad-call-while-it-streams)). Beyond the library: [`emit`] writes the
//! events back out in OpenAI Chat, OpenAI Responses, Anthropic Messages or AG-UI form, and
//! `toolstream proxy` (feature `proxy`, module `proxy`) puts all of it in front of any
//! OpenAI-compatible server for any agent — OpenAI SDKs, Claude Code, Codex — with the
//! requests translated by [`translate`].
//!
//! ## Wrap a streaming HTTP response
//!
//! Any `Stream` of byte chunks becomes a `Stream` of [`Event`]s (feature `stream`, on by
//! default). With the `reqwest` feature, [`stream::from_response`][from_response] does it for a
//! `reqwest::Response` and turns an HTTP error status into an error carrying the body.
//! Options are set once on a [`ParserConfig`] (here: the request's declared tools, so a
//! call to any other name becomes an error instead of a call) and the configuration is
//! cloned for each response:
//!
//! ```
//! use futures::{StreamExt, executor::block_on, stream};
//! use toolstream::{Event, Format, IdPrefix, Parser, ParserConfig, Tools, stream::ByteStreamExt};
//!
//! // Once: the `tools` the request declared; call ids of their own for every response
//! // (for formats whose provider sends none), so an agent's history never repeats one.
//! let config = ParserConfig::new()
//!     .tools(Tools::from_json(r#"[{"type":"function","function":{"name":"get_weather","parameters":{}}}]"#)?)
//!     .id_prefix(IdPrefix::Unique);
//!
//! // Per response. `body_chunks`: e.g. `response.bytes_stream()` from reqwest.
//! let body_chunks = vec![Ok::<_, std::io::Error>(concat!(
//!     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","#,
//!     r#""function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}}]}"#, "\n\n",
//!     "data: [DONE]\n\n",
//! ).as_bytes())];
//! let parser = Parser::with_config(Format::OpenAiChat, config.clone());
//! let mut events = stream::iter(body_chunks).tool_events(parser);
//! let mut calls = Vec::new();
//! block_on(async {
//!     while let Some(event) = events.next().await {
//!         match event {
//!             Ok(Event::ToolCallEnd { name, arguments, .. }) => calls.push(format!("{name}({arguments})")),
//!             Ok(_) => {}
//!             Err(transport) => eprintln!("{transport}"),
//!         }
//!     }
//! });
//! assert_eq!(calls, [r#"get_weather({"city":"Paris"})"#]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Show tool calls live in a UI
//!
//! The sans-IO [`Parser`] takes bytes whenever you have them and appends events to a
//! `Vec` you own: render the name on [`Event::ToolCallStart`], append
//! [`Event::ToolCallArgs`] deltas as they come. With
//! [`field_events`](ParserConfig::field_events) each argument value also streams decoded,
//! by its JSON Pointer ([`Event::ToolCallField`], with its [`FieldKind`]): a file's content
//! can be shown as text while it is written. ([`partial::PartialValue`] keeps the whole
//! arguments value up to date instead.)
//!
//! ```
//! use toolstream::{Event, FieldKind, Format, Parser, ParserConfig};
//!
//! let config = ParserConfig::new().field_events(true);
//! let mut parser = Parser::with_config(Format::OpenAiChat, config);
//! let mut events = Vec::new();
//! let chunk = concat!(
//!     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_9","#,
//!     r#""function":{"name":"write_file","arguments":"{\"mode\":420,\"text\":\"line 1\\nli"}}]}}]}"#, "\n\n",
//! );
//! parser.feed(chunk.as_bytes(), &mut events)?;
//! let mut shown = Vec::new();
//! for e in events.drain(..) {
//!     match e {
//!         Event::ToolCallStart { name, .. } => shown.push(format!("calling {name}…")),
//!         Event::ToolCallArgs { .. } => {} // the raw JSON text, for a raw view
//!         Event::ToolCallField { path, delta, kind: FieldKind::String, .. } => {
//!             shown.push(format!("{path} += {delta:?}")) // decoded: a real newline
//!         }
//!         Event::ToolCallField { path, delta, kind, .. } => shown.push(format!("{path} = {delta} ({kind})")),
//!         Event::ToolCallFieldEnd { .. } => {}
//!         other => panic!("{other:?}"),
//!     }
//! }
//! assert_eq!(shown, [
//!     "calling write_file…",
//!     "/mode = 420 (number)",
//!     r#"/text += "line 1\nli""#,
//! ]);
//! # Ok::<(), toolstream::Error>(())
//! ```
//!
//! ## Detect calls early to cancel generation
//!
//! [`Event::ToolCallEnd`] is emitted by the `feed` that closes the arguments' JSON value,
//! not at the end of the response, and [`Event::ToolCallStart`] by the `feed` that completes
//! the name: stop reading (drop the response) as soon as you have what you need. To refuse
//! a tool the moment its name appears, declare the tools but keep undeclared calls as calls
//! ([`reject_undeclared(false)`](ParserConfig::reject_undeclared); by default such a call
//! becomes an error when it closes) and check each name at its start:
//!
//! ```
//! use toolstream::{Event, Format, Parser, ParserConfig, Tools};
//!
//! let tools = Tools::from_json(r#"[{"type":"function","function":{"name":"search","parameters":{}}}]"#)?;
//! let config = ParserConfig::new().tools(tools.clone()).reject_undeclared(false);
//! let body = concat!(
//!     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"search","arguments":"{\"q\":\"rust\"}"}}]}}]}"#, "\n\n",
//!     r#"data: {"choices":[{"index":0,"delta":{"content":"…a long answer nobody needs…"}}]}"#, "\n\n",
//! );
//! let mut parser = Parser::with_config(Format::OpenAiChat, config);
//! let mut events = Vec::new();
//! let mut read = 0;
//! 'outer: for chunk in body.as_bytes().chunks(16) {
//!     read += chunk.len();
//!     parser.feed(chunk, &mut events)?;
//!     for e in events.drain(..) {
//!         match e {
//!             Event::ToolCallStart { name, .. } if !tools.is_declared(&name) => break 'outer, // refuse now
//!             Event::ToolCallEnd { arguments, .. } => {
//!                 assert_eq!(arguments["q"], "rust");
//!                 break 'outer; // got it: drop the connection here
//!             }
//!             _ => {}
//!         }
//!     }
//! }
//! assert!(read < body.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ### Catch a bad call while it streams
//!
//! With [`ParserConfig::validate_arguments`] each call's arguments are checked against its
//! tool's JSON Schema as they arrive, and with [`ParserConfig::max_repeats`] a runaway loop
//! in them is stopped: the call ends as an [`Event::Error`] of kind
//! [`SchemaViolation`](ErrorKind::SchemaViolation) (with the offending value's JSON Pointer
//! in `path`) or [`Repetition`](ErrorKind::Repetition), emitted by the `feed` that carries
//! the first byte no valid continuation can follow, and it gets no `ToolCallEnd`: drop the
//! response there.
//!
//! ```
//! use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig, Tools};
//!
//! let tools = Tools::from_json(r#"[{"name":"get_weather","parameters":{"type":"object",
//!     "properties":{"city":{"type":"string"},"days":{"type":"integer","maximum":14}},
//!     "required":["city"],"additionalProperties":false}}]"#)?;
//! let config = ParserConfig::new().tools(tools).validate_arguments(true).max_repeats(16);
//! let output = r#"<tool_call>{"name":"get_weather","arguments":{"city":"Paris","days":"three"}}</tool_call>"#;
//! let mut parser = Parser::with_config(Format::Hermes, config);
//! let mut events = Vec::new();
//! let mut offset = 0;
//! for chunk in output.as_bytes().chunks(4) {
//!     offset += chunk.len();
//!     parser.feed(chunk, &mut events)?;
//!     if let Some(Event::Error { kind: ErrorKind::SchemaViolation, path, message, .. }) = events.last() {
//!         assert_eq!(path.as_deref(), Some("/days")); // a string where an integer goes
//!         assert!(message.contains("type"));
//!         break; // cancel generation here
//!     }
//! }
//! // Stopped at the `"` of "three": byte 70, in the feed of bytes 69..72.
//! assert_eq!(offset, 72);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Keywords checked as the bytes arrive (any other keyword is not checked and never causes
//! an error), each at the first byte after which no continuation can be valid: `type` (a
//! name or a list, `nullable`), `enum` and `const` (a string at the first character no
//! member shares, a number at the first digit no member can follow), `properties` with
//! `additionalProperties: false` (an undeclared key at the first character no declared
//! name shares) or a schema, `required` (at the object's `}`), `items`, `prefixItems` (and
//! `items` as a list), `minItems` / `maxItems`, `minLength` / `maxLength` (characters),
//! `minimum` / `maximum` / `exclusiveMinimum` / `exclusiveMaximum` (at the digit after
//! which no number the text can become is within them), `multipleOf` (at the number's
//! end), `pattern` (ECMA-262 search semantics over the decoded string, stepped on a
//! `regex-automata` DFA: at the first character after which no match can follow; a
//! pattern it cannot compile, such as look-around, is not checked), `anyOf` / `oneOf` /
//! `allOf` (sets of live branches: refused when no branch can still accept; `oneOf`'s
//! "exactly one" at the value's close) and `$ref` into the schema's own `$defs` /
//! `definitions`. Not checked: `not`, `if`/`then`/`else`, `patternProperties`,
//! `propertyNames`, `minProperties` / `maxProperties`, `uniqueItems`, `contains`, `format`,
//! `dependentRequired`. Schemas are compiled once per [`Tools`]. Each argument byte is
//! looked at once by each check; the runaway guard follows all 64 periods at once with
//! 64-bit masks (no loop over the periods per byte).
//!
//! ## Which API do I want?
//!
//! | you have | use |
//! |---|---|
//! | bytes arriving from anywhere (sync or async, your own I/O) | [`Parser::feed`] / [`Parser::finish`] |
//! | the same, without an owned [`Event`] per event | [`Parser::feed_into`] / [`Parser::finish_into`] with your [`EventSink`] |
//! | one set of options for many responses | [`ParserConfig`], [`Parser::with_config`] |
//! | a `futures::Stream` of byte chunks | [`stream::EventStream`], [`stream::ByteStreamExt::tool_events`] |
//! | a `reqwest::Response` | `stream::from_response` (feature `reqwest`) |
//! | SSE events framed by `eventsource-stream` | `Parser::feed_eventsource` (feature `eventsource-stream`) |
//! | a body whose format you do not know | [`detect::detect`] on its first bytes, then [`Parser::with_config`] |
//! | a model syntax that is not built in, as data (transformers' `response_template`) | [`Syntax::from_json`], [`Parser::with_syntax`]; CLI `toolstream parse --syntax FILE`, `toolstream spec NAME` ([`spec`]) |
//! | a shell, another language | the `toolstream parse [--format F]` CLI: events as NDJSON |
//! | a proxy or UI that speaks OpenAI chunks, Responses, Anthropic Messages or AG-UI | [`emit`]: [`emit::OpenAiChatEmitter`], [`emit::OpenAiResponsesEmitter`], [`emit::AnthropicEmitter`], [`emit::AgUiEmitter`]; CLI `--emit openai-chat\|openai-responses\|anthropic\|ag-ui` |
//!
//! Runnable examples (each is run against a local server in the tests, so they stay
//! correct):
//!
//! | example | what it shows |
//! |---|---|
//! | `openai_compatible` | a real streaming request with tools to any OpenAI-compatible server (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `MODEL`), events printed live |
//! | `anthropic` | the same against Anthropic's Messages API (`ANTHROPIC_API_KEY`) |
//! | `cancel_early` | drop the response the moment the first call is complete, or a forbidden tool's name appears |
//! | `replay` | a recorded body through the `Stream` adapter with realistic pacing |
//!
//! ```sh
//! OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=qwen3:8b cargo run --example openai_compatible --features reqwest
//! OPENAI_API_KEY=sk-... cargo run --example openai_compatible --features reqwest,reqwest/rustls  # https: add a TLS backend
//! ```
//!
//! ## Detecting the format
//!
//! [`detect::detect`] tells a provider stream and its framing from its first payload, and
//! calls anything else raw model text ([`Format::Auto`]). The repository's `samples/` hold a
//! small stream of our own per provider format and for several raw-text syntaxes:
//!
//! ```
//! use toolstream::{Event, Parser, ParserConfig, detect::detect};
//!
//! let body = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/bedrock.eventstream"))?;
//! let found = detect(&body, true).expect("at the end it always answers");
//! let format = found.format.expect("a provider stream");
//! assert_eq!((format.name(), found.framing.name()), ("bedrock", "eventstream"));
//! let mut parser = Parser::with_config(format, ParserConfig::new().framing(found.framing));
//! let mut events = Vec::new();
//! parser.feed(&body, &mut events)?;
//! parser.finish(&mut events)?;
//! assert!(events.iter().any(|e| matches!(e, Event::ToolCallEnd { name, .. } if name == "get_weather")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Options set once
//!
//! Every option (framing, [`Limits`], declared tools, call ids, reasoning tags, ...) is set
//! on a [`ParserConfig`], and only there ([`Parser`] feeds, finishes and reports); its doc
//! lists each option with its CLI flag and Python keyword. Clone one configuration for
//! each response:
//!
//! ```
//! use toolstream::{Event, Format, IdPrefix, Parser, ParserConfig};
//!
//! let config = ParserConfig::new().id_prefix(IdPrefix::Unique).max_calls(8);
//! let mut ids = Vec::new();
//! for response in [&b"<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>"[..]; 2] {
//!     let mut parser = Parser::with_config(Format::Hermes, config.clone());
//!     let mut events = Vec::new();
//!     parser.feed(response, &mut events)?;
//!     parser.finish(&mut events)?;
//!     ids.extend(events.into_iter().filter_map(|e| match e {
//!         Event::ToolCallEnd { id, .. } => Some(id),
//!         _ => None,
//!     }));
//! }
//! assert_ne!(ids[0], ids[1]); // each parser its own call ids
//! # Ok::<(), toolstream::Error>(())
//! ```
//!
//! ## Borrowed events
//!
//! [`Parser::feed_into`] and [`Parser::finish_into`] hand each event to an [`EventSink`] as
//! an [`EventRef`] borrowing its text from the input or the parser: no allocation per event.
//! `Vec<Event>` is a sink too ([`Parser::feed`] is `feed_into` with one).
//!
//! ```
//! use toolstream::{EventRef, EventSink, Format, Parser};
//!
//! /// Counts argument bytes per call without keeping any event.
//! #[derive(Default)]
//! struct ArgBytes(Vec<usize>);
//! impl EventSink for ArgBytes {
//!     fn event(&mut self, event: EventRef<'_>) {
//!         if let EventRef::ToolCallArgs { index, delta } = event {
//!             self.0.resize(self.0.len().max(index + 1), 0);
//!             self.0[index] += delta.len();
//!         }
//!     }
//! }
//! let mut parser = Parser::new(Format::Hermes);
//! let mut sink = ArgBytes::default();
//! for chunk in br#"<tool_call>{"name":"f","arguments":{"a":1}}</tool_call>"#.chunks(4) {
//!     parser.feed_into(chunk, &mut sink)?;
//! }
//! parser.finish_into(&mut sink)?;
//! assert_eq!(sink.0, [7]); // {"a":1}
//! # Ok::<(), toolstream::Error>(())
//! ```
//!
//! ## Formats
//!
//! [`Format`] names (as the CLI spells them; `toolstream formats` lists them too):
//!
//! | name | default framing | what |
//! |---|---|---|
//! | `openai-chat` | SSE | OpenAI Chat Completions (`chat.completion.chunk`) and compatible servers: Azure, Groq, Together, Mistral, xAI, DeepSeek, Cerebras, vLLM, TGI, llama.cpp, Ollama `/v1`, OpenRouter, ... |
//! | `openai-responses` | SSE | OpenAI Responses API (`response.output_item.added`, ...) and compatible servers |
//! | `anthropic` | SSE | Anthropic Messages (`message_start`, `content_block_delta`, ...), also via Vertex AI |
//! | `gemini` | detected: SSE, JSON array or NDJSON | Google Gemini `generateContent` streaming (Google AI, Vertex AI incl. streamed `partialArgs`) |
//! | `bedrock` | AWS event stream | AWS Bedrock `ConverseStream` (binary event stream, CRC-checked; NDJSON recordings) |
//! | `cohere` | SSE | Cohere Chat v2 (`tool-call-start` / `-delta` / `-end`, `tool-plan-delta`) |
//! | `ollama` | NDJSON | Ollama's native `/api/chat` and `/api/generate` |
//! | `llama-stack` | SSE | Llama Stack's native `/v1/inference/chat-completion` |
#![doc = include_str!(concat!(env!("OUT_DIR"), "/syntax_table.md"))]
//!
//! Any format's framing can be overridden ([`ParserConfig::framing`], CLI `--framing`), e.g. NDJSON
//! for recorded payloads.
//!
//! The XML-parameter syntaxes (`qwen-xml`, `glm`, `minimax`, `deepseek-dsml` and the others
//! whose calls hold `<parameter>`-like elements)
//! write each value as raw text. [`ParserConfig::tools`] types values from the request's JSON
//! Schema (a `string` parameter streams as a string, never parsed); without a schema a value
//! is a JSON string unless its whole trimmed text is a JSON number, literal, object or array
//! (`deepseek-dsml`'s own `string="true|false"` and `kimi-k3`'s `type="..."` decide where
//! the model wrote them; `glm` also reads Python's `True`/`False`/`None`, `minimax` decodes
//! XML character references such as `&lt;`).
//!
//! A syntax can also be given as data: a spec in transformers' `response_template`
//! format (a bare template, a checkpoint's `tokenizer_config.json`, or what `toolstream
//! spec NAME` prints), read strictly into a [`Syntax`] and run by the same engines as the
//! built-ins ([`Parser::with_syntax`]; the [`spec`] module says what can be written as a
//! spec today):
//!
//! ```
//! use toolstream::{Event, Format, Parser, ParserConfig, Syntax};
//! let spec = Syntax::builtin(Format::CommandR).unwrap().to_json(); // `toolstream spec command-r`
//! let mut p = Parser::with_syntax(Syntax::from_value(&spec)?, ParserConfig::new());
//! let mut ev = Vec::new();
//! p.feed(br#"<|START_ACTION|>[{"tool_name": "f", "parameters": {}}]<|END_ACTION|>"#, &mut ev)?;
//! p.finish(&mut ev)?;
//! assert!(matches!(&ev[0], Event::ToolCallStart { name, .. } if name == "f"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## The event contract
//!
//! For every format and every input:
//! 1. Per call index: one `ToolCallStart`, then `ToolCallArgs` deltas, then exactly one
//!    `ToolCallEnd` — or, when the call cannot be completed (malformed arguments, stream
//!    cut off, a limit hit), exactly one `Error` with that `index` instead. Indices count
//!    calls from 0, densely, whatever the provider numbers.
//! 2. The `ToolCallArgs` deltas of a call, concatenated, are JSON text whose value equals
//!    the `ToolCallEnd` arguments. A call sent with no arguments gets one `{}` delta.
//! 3. Split invariance: any chunking yields the same events once adjacent deltas of the same
//!    kind and index are merged ([`merge_deltas`]).
//! 4. Nothing lost: a malformed payload or call yields an `Error` carrying its raw text; a
//!    stream cut off mid-call is reported by `finish` with what had arrived. For a text
//!    format (raw model output), a call's `Error` (malformed, cut off) carries in `raw` the
//!    model's own bytes of that call, unchanged, from its first marker byte — its own
//!    opening marker, or, for the first call of a list opened by one marker
//!    (`[TOOL_CALLS][`, `<|python_tag|>`, a pythonic or JSON list's `[`), that marker; a
//!    later call of such a list from its own first byte — through its end (or the end of
//!    the input), up to [`Limits::max_argument_bytes`], so a UI can show what the model
//!    said. A special token that introduces a call is consumed as a marker, never text;
//!    one that no call follows is text. A closing reasoning tag with no opening one is text
//!    unless [`ParserConfig::reasoning_open`] declared the block open. Bytes are never dropped.
//! 5. Bounded: see [`Limits`].
//! 6. Ids: the provider's when it sends one; otherwise `<prefix><index>` (`call_0`,
//!    `call_1`, … by default), the same for the same input however it is chunked. Give
//!    each response of an agent loop its own prefix ([`ParserConfig::id_prefix`]) or a random
//!    one ([`IdPrefix::Unique`]) so that its history never repeats an id.
//!
//! Bad input never returns `Err`: it becomes an [`Event::Error`] and parsing goes on.
//! `feed`/`finish` return `Err` only when called after `finish`. Input that was not empty
//! but made no event at all (a wrong format or framing, typically) gets one error of kind
//! [`ErrorKind::UnrecognizedInput`] from `finish`, naming the format and framing and
//! carrying the first 256 bytes; whitespace, SSE comments and `[DONE]` alone are an empty
//! stream, not an error.
//!
//! ## Declared tools
//!
//! Give the request's `tools` ([`Tools::from_json`] reads OpenAI Chat / Responses and
//! Anthropic shapes, or a whole request body) to [`ParserConfig::tools`] (CLI `--tools FILE`):
//! a call to a name the request did not declare is then not a call but one
//! [`Event::Error`] of kind [`ErrorKind::UndeclaredTool`], without an index, emitted when
//! that call closes and carrying its raw text (raw model text: the model's own bytes of
//! the call; provider formats: the argument text received). It gets no `ToolCallStart`
//! and takes no index, so the declared calls stay densely numbered and decode as usual, in
//! every format. Marker-less syntaxes (`llama-pythonic`, `llama-json`, `auto`) read a call
//! header only for a declared name: a list or `;` group is recognised by its first call,
//! and a later undeclared call in it is rejected as above. [`ParserConfig::reject_undeclared`]`(false)` turns the
//! rejection off (every call is emitted; refuse a tool yourself at its `ToolCallStart`).
//!
//! ```
//! use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig, Tools};
//! let tools = Tools::from_json(r#"[{"type":"function","function":{"name":"search","parameters":{}}}]"#).unwrap();
//! let mut parser = Parser::with_config(Format::LlamaPythonic, ParserConfig::new().tools(tools));
//! let mut events = Vec::new();
//! parser.feed(b"[search(q='rust'), rm_rf(path='/'), search(q='tokio')]", &mut events)?;
//! parser.finish(&mut events)?;
//! let ids: Vec<_> = events.iter().filter_map(|e| match e {
//!     Event::ToolCallEnd { id, .. } => Some(id.as_str()), _ => None }).collect();
//! assert_eq!(ids, ["call_0", "call_1"]);
//! assert!(events.iter().any(|e| matches!(e,
//!     Event::Error { kind: ErrorKind::UndeclaredTool, index: None, raw, .. } if raw == "rm_rf(path='/')")));
//! # Ok::<(), toolstream::Error>(())
//! ```
//!
//! ## Re-emitting: proxies and agent UIs
//!
//! [`emit`] writes events back out: as an OpenAI `chat.completion.chunk` SSE stream (so any
//! provider's stream becomes one every OpenAI client reads; our own `openai-chat` decoder
//! reads it back to the same events), or as AG-UI events (`TOOL_CALL_START` /
//! `TOOL_CALL_ARGS` / `TOOL_CALL_END`, `TEXT_MESSAGE_*`, `RUN_*`) for agent UIs.
//!
//! ```
//! use toolstream::{Event, emit::AgUiEmitter};
//!
//! let mut ui = AgUiEmitter::new().thread_id("thread_1").run_id("run_1");
//! let mut sse = String::new();
//! ui.event_sse(&Event::ToolCallStart { index: 0, id: "call_1".into(), name: "search".into() }, &mut sse);
//! assert!(sse.ends_with(concat!(
//!     r#"data: {"type":"TOOL_CALL_START","toolCallId":"call_1","toolCallName":"search","parentMessageId":"run_1_msg_0"}"#,
//!     "\n\n",
//! )));
//! ```
//!
//! ## The command line
//!
//! ```text
//! toolstream                                        # demo: a tool call rendered live (--speed 2 for faster)
//! toolstream parse samples/anthropic.sse            # events as NDJSON; format and framing detected
//! toolstream parse --pretty samples/anthropic.sse   # for humans (says the format it detected)
//! toolstream parse --format anthropic samples/anthropic.sse       # the format given
//! toolstream parse --emit openai-chat samples/gemini.sse          # any format → OpenAI chunks
//! toolstream parse --emit ag-ui samples/openai-chat.sse           # → AG-UI events (SSE)
//! toolstream serve samples/anthropic.sse --format anthropic       # a page on 127.0.0.1 replaying it live
//! toolstream parse --format gemini --id-prefix call_ samples/gemini.sse   # generated ids call_0, call_1, …
//! toolstream formats
//! toolstream spec hermes > hermes.json                             # a built-in syntax as a spec file
//! toolstream parse --syntax hermes.json samples/hermes.txt        # raw text in a spec's syntax
//! ```
//!
//! ## Cargo features
//!
//! - `stream` (default): the `futures::Stream` adapter ([`stream`]).
//! - `cli` (default): the `toolstream` binary (clap), with `toolstream proxy` (it turns on
//!   `proxy` and `tls`).
//! - `exact-numbers` (default): numbers in `ToolCallEnd::arguments` keep the model's text
//!   exactly (integers of any size, `1e400`, `1.50`: serde_json's `arbitrary_precision`).
//!   Without it, integers past 64 bits become floats and a number outside f64 makes the call
//!   an `invalid_arguments` error. It changes how serde reads numbers through
//!   `#[serde(untagged)]`, internally tagged and `#[serde(flatten)]` types in the whole
//!   build: a build that needs those with numbers turns it off
//!   (`default-features = false, features = ["stream"]`).
//! - `reqwest`: `stream::from_response` for `reqwest` 0.13 (enable a TLS feature of reqwest
//!   in your own dependency).
//! - `eventsource-stream`: accept `eventsource_stream::Event`s as input.
//! - `proxy`: `toolstream::proxy`, the OpenAI-compatible server that repairs and polices
//!   another server's streamed chat replies (tokio, hyper, reqwest).
//! - `tls`: `https://` upstreams for the proxy (reqwest's rustls with the aws-lc-rs
//!   provider and the system's roots, plus CAs given to the proxy).
//!
//! docs.rs documents every feature (`[package.metadata.docs.rs]`); links to items behind a
//! feature that is off point there, so `cargo doc` is clean with any feature set.
//!
#![cfg_attr(feature = "reqwest", doc = "[from_response]: stream::from_response")]
#![cfg_attr(
    not(feature = "reqwest"),
    doc = "[from_response]: https://docs.rs/toolstream/latest/toolstream/stream/fn.from_response.html"
)]
#![forbid(unsafe_code)]

mod calls;
mod check;
mod config;
pub mod detect;
pub mod emit;
mod error;
mod event;
mod format;
#[doc(hidden)]
pub mod framing;
#[cfg(feature = "proxy")]
mod http;
mod limits;
mod parser;
pub mod partial;
mod provider;
#[cfg(feature = "proxy")]
pub mod proxy;
#[doc(hidden)]
pub mod scan;
// `toolstream serve`'s implementation, here for the proxy's HTTP stack (`http`); not an API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod serve;
pub mod spec;
#[cfg(feature = "stream")]
pub mod stream;
#[doc(hidden)]
pub mod testing;
mod text;
mod tools;
pub mod translate;

pub use config::{IdPrefix, ParserConfig};
pub use error::{Error, ParseErrorKind};
pub use event::{
    ErrorKind, Event, EventRef, EventSink, FieldKind, FinishReason, ResponseMeta, Usage,
    merge_deltas,
};
pub use format::{Format, Framing, UnknownName};
pub use limits::Limits;
pub use parser::Parser;
pub use spec::{SpecError, Syntax};
pub use tools::{MAX_TOOLS_BYTES, MAX_TOOLS_NAMES, Tools, ToolsError};
