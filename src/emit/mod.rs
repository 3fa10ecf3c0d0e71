//! Re-emit events in other wire formats: the proxy and UI use.
//!
//! Whatever format a response came in, its [`Event`](crate::Event)s can be written back
//! out as
//!
//! - an **OpenAI Chat Completions stream** ([`OpenAiChatEmitter`]): `chat.completion.chunk`
//!   SSE, so any provider's stream becomes one that every OpenAI client library reads. Our
//!   own `openai-chat` decoder reads it back to the same events (tested for every recorded
//!   capture of every format; the differences are listed on [`OpenAiChatEmitter`]);
//! - **AG-UI events** ([`AgUiEmitter`]): `RUN_STARTED`, `TEXT_MESSAGE_*`, `REASONING_*`,
//!   `TOOL_CALL_START` / `TOOL_CALL_ARGS` / `TOOL_CALL_END`, `RUN_FINISHED` / `RUN_ERROR`, the
//!   protocol agent UIs (CopilotKit and others) consume.
//!
//! Both emitters are sans-IO and stateful, like the [`Parser`](crate::Parser): give them each
//! event as it arrives and call `finish` at the end of the stream; they append to a buffer
//! you own. The CLI exposes them as `toolstream parse --emit openai-chat|ag-ui`.
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
pub mod openai_chat;

pub use ag_ui::{AgUiEmitter, AgUiEvent};
pub use openai_chat::OpenAiChatEmitter;
