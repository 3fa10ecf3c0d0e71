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
//! ## Wrap a streaming HTTP response
//!
//! Any `Stream` of byte chunks becomes a `Stream` of [`Event`]s (feature `stream`, on by
//! default). With the `reqwest` feature, [`stream::from_response`] does it for a
//! `reqwest::Response` and turns an HTTP error status into an error carrying the body.
//!
//! ```
//! use futures::{StreamExt, executor::block_on, stream};
//! use toolstream::{Event, Format, Parser, stream::ByteStreamExt};
//!
//! # let body_chunks = vec![Ok::<_, std::io::Error>(&b"data: [DONE]\n\n"[..])];
//! // `body_chunks`: e.g. `response.bytes_stream()` from reqwest.
//! let mut events = stream::iter(body_chunks).tool_events(Parser::new(Format::OpenAiChat));
//! block_on(async {
//!     while let Some(event) = events.next().await {
//!         match event {
//!             Ok(Event::ToolCallEnd { name, arguments, .. }) => println!("{name}({arguments})"),
//!             Ok(other) => { let _ = other; }
//!             Err(transport) => eprintln!("{transport}"),
//!         }
//!     }
//! });
//! ```
//!
//! ## Show tool calls live in a UI
//!
//! The sans-IO [`Parser`] takes bytes whenever you have them and appends events to a
//! `Vec` you own: render the name on [`Event::ToolCallStart`], append
//! [`Event::ToolCallArgs`] deltas as they come.
//!
//! ```
//! use toolstream::{Event, Format, Parser};
//!
//! let mut parser = Parser::new(Format::OpenAiChat);
//! let mut events = Vec::new();
//! let chunk = concat!(
//!     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_9","#,
//!     r#""function":{"name":"write_file","arguments":"{\"path\":\"a.txt\","}}]}}]}"#, "\n\n",
//! );
//! parser.feed(chunk.as_bytes(), &mut events)?;
//! for e in events.drain(..) {
//!     match e {
//!         Event::ToolCallStart { name, .. } => assert_eq!(name, "write_file"), // show "calling write_file…"
//!         Event::ToolCallArgs { delta, .. } => assert_eq!(delta, r#"{"path":"a.txt","#), // append to the view
//!         other => panic!("{other:?}"),
//!     }
//! }
//! # Ok::<(), toolstream::Error>(())
//! ```
//!
//! ## Detect calls early to cancel generation
//!
//! [`Event::ToolCallEnd`] is emitted by the `feed` that closes the arguments' JSON value,
//! not at the end of the response, and [`Event::ToolCallStart`] by the `feed` that completes
//! the name: stop reading (drop the response) as soon as you have what you need.
//!
//! ```
//! use toolstream::{Event, Format, Parser};
//!
//! let body = concat!(
//!     r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"search","arguments":"{\"q\":\"rust\"}"}}]}}]}"#, "\n\n",
//!     r#"data: {"choices":[{"index":0,"delta":{"content":"…a long answer nobody needs…"}}]}"#, "\n\n",
//! );
//! let mut parser = Parser::new(Format::OpenAiChat);
//! let mut events = Vec::new();
//! let mut read = 0;
//! 'outer: for chunk in body.as_bytes().chunks(16) {
//!     read += chunk.len();
//!     parser.feed(chunk, &mut events)?;
//!     for e in events.drain(..) {
//!         match e {
//!             Event::ToolCallStart { name, .. } if name == "rm_rf" => break 'outer, // forbidden
//!             Event::ToolCallEnd { arguments, .. } => {
//!                 assert_eq!(arguments["q"], "rust");
//!                 break 'outer; // got it: drop the connection here
//!             }
//!             _ => {}
//!         }
//!     }
//! }
//! assert!(read < body.len());
//! # Ok::<(), toolstream::Error>(())
//! ```
//!
//! ## Which API do I want?
//!
//! | you have | use |
//! |---|---|
//! | bytes arriving from anywhere (sync or async, your own I/O) | [`Parser::feed`] / [`Parser::finish`] |
//! | a `futures::Stream` of byte chunks | [`stream::EventStream`], [`stream::ByteStreamExt::tool_events`] |
//! | a `reqwest::Response` | `stream::from_response` (feature `reqwest`) |
//! | SSE events framed by `eventsource-stream` | `Parser::feed_eventsource` (feature `eventsource-stream`) |
//! | a shell, another language | the `toolstream parse --format F` CLI: events as NDJSON |
//! | a proxy or UI that speaks OpenAI chunks or AG-UI | [`emit`]: [`emit::OpenAiChatEmitter`], [`emit::AgUiEmitter`]; CLI `--emit openai-chat\|ag-ui` |
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
//! | `hermes` | text | `<tool_call>{"name": .., "arguments": ..}</tool_call>` (Hermes, Qwen 2.5 / Qwen3) |
//! | `qwen-xml` | text | `<tool_call><function=name><parameter=key>value</parameter></function></tool_call>` (Qwen3-Coder, Qwen3.5) |
//! | `seed-oss` | text | `<seed:tool_call><function=name><parameter=key>value</parameter></function></seed:tool_call>`, `<seed:think>` reasoning (ByteDance Seed-OSS) |
//! | `glm` | text | `<tool_call>name\n<arg_key>k</arg_key>\n<arg_value>v</arg_value></tool_call>` (GLM-4.5, 4.6, 4.7, 5) |
//! | `minimax` | text | `<minimax:tool_call><invoke name="f"><parameter name="k">v</parameter></invoke>…</minimax:tool_call>` (MiniMax M2) |
//! | `deepseek-dsml` | text | DSML calls `<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="k" string="true">v</｜DSML｜parameter>…` (DeepSeek V3.2; V4's `tool_calls`) |
//! | `mistral` | text | `[TOOL_CALLS][{..}]` (v3) and `[TOOL_CALLS]name[ARGS]{..}` (v11+) |
//! | `deepseek` | text | DeepSeek special-token calls (V3 / R1 fenced JSON, V3.1) |
//! | `harmony` | text | gpt-oss harmony channels and `to=functions.name` calls |
//! | `llama-pythonic` | text | Llama 3.2 / 4 pythonic calls `[f(a=1, b='x'), g()]`, arguments converted to JSON as they stream |
//! | `llama-json` | text | Llama 3.x bare JSON calls `{"name": .., "parameters": ..}`, `<\|python_tag\|>`, `code_interpreter` |
//! | `auto` | text | raw model output; the syntax is detected from its first call marker |
//!
//! Any format's framing can be overridden ([`Parser::framing`], CLI `--framing`), e.g. NDJSON
//! for recorded payloads.
//!
//! The XML-parameter syntaxes (`qwen-xml`, `seed-oss`, `glm`, `minimax`, `deepseek-dsml`)
//! write each value as raw text. [`Parser::tools`] types values from the request's JSON
//! Schema (a `string` parameter streams as a string, never parsed); without a schema a value
//! is a JSON string unless its whole trimmed text is a JSON number, literal, object or array
//! (`deepseek-dsml`'s own `string="true|false"` decides where the model wrote it).
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
//!    stream cut off mid-call is reported by `finish` with what had arrived.
//! 5. Bounded: see [`Limits`].
//! 6. Ids: the provider's when it sends one; otherwise `call_<index>` (deterministic).
//!
//! Bad input never returns `Err`: it becomes an [`Event::Error`] and parsing goes on.
//! `feed`/`finish` return `Err` only when called after `finish`.
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
//! toolstream parse --format anthropic body.sse      # events as NDJSON
//! toolstream parse --format anthropic --pretty body.sse
//! toolstream parse --format gemini --emit openai-chat body.json   # any format → OpenAI chunks
//! toolstream parse --format openai-chat --emit ag-ui body.sse     # → AG-UI events (SSE)
//! toolstream serve body.sse --format anthropic      # a page on 127.0.0.1 replaying it live
//! toolstream formats
//! ```
//!
//! ## Cargo features
//!
//! - `stream` (default): the `futures::Stream` adapter ([`stream`]).
//! - `cli` (default): the `toolstream` binary (clap).
//! - `reqwest`: `stream::from_response` for `reqwest` 0.13 (enable a TLS feature of reqwest
//!   in your own dependency).
//! - `eventsource-stream`: accept `eventsource_stream::Event`s as input.
#![forbid(unsafe_code)]

mod calls;
pub mod emit;
pub mod error;
pub mod event;
pub mod format;
pub mod framing;
pub mod limits;
mod parser;
pub mod partial;
mod provider;
pub mod scan;
#[cfg(feature = "stream")]
pub mod stream;
mod text;
pub mod tools;

pub use error::{Error, ParseErrorKind};
pub use event::{ErrorKind, Event, FinishReason, Usage, merge_deltas};
pub use format::{Format, Framing, UnknownName};
pub use limits::Limits;
pub use parser::Parser;
pub use tools::{Tools, ToolsError};
