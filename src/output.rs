//! What `toolstream parse` writes: our events as NDJSON, re-emitted as OpenAI chunks, OpenAI
//! Responses events, Anthropic Messages events or AG-UI events, or rendered for humans
//! (`--pretty`).

use crate::demo::Pretty;
use std::io::Write;
use toolstream::emit::{AgUiEmitter, AnthropicEmitter, OpenAiChatEmitter, OpenAiResponsesEmitter};
use toolstream::{Event, Parser, ResponseMeta};

/// The `--emit` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Emit {
    /// Our events, one JSON object per line.
    Ndjson,
    /// An OpenAI `chat.completion.chunk` SSE stream.
    OpenaiChat,
    /// An OpenAI Responses API SSE stream (`response.*` events).
    OpenaiResponses,
    /// An Anthropic Messages SSE stream (`message_start`, `content_block_*`, ...).
    Anthropic,
    /// AG-UI events as SSE (`data: {..}`).
    AgUi,
}

impl Emit {
    /// The CLI name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Emit::Ndjson => "ndjson",
            Emit::OpenaiChat => "openai-chat",
            Emit::OpenaiResponses => "openai-responses",
            Emit::Anthropic => "anthropic",
            Emit::AgUi => "ag-ui",
        }
    }
}

/// `--thread-id` / `--run-id` for `--emit ag-ui` (fresh UUIDs when absent).
pub(crate) struct AgUiIds {
    pub(crate) thread_id: Option<String>,
    pub(crate) run_id: Option<String>,
}

pub(crate) enum Output {
    Ndjson { offsets: bool },
    OpenAi(OpenAiChatEmitter, String),
    Responses(Box<OpenAiResponsesEmitter>, String),
    Anthropic(Box<AnthropicEmitter>, String),
    AgUi(Box<AgUiEmitter>, String),
    Pretty(Pretty),
}

impl Output {
    pub(crate) fn new(
        emit: Emit,
        offsets: bool,
        pretty: bool,
        ids: AgUiIds,
        include_usage: bool,
    ) -> Self {
        if pretty {
            return Output::Pretty(Pretty::new(crate::is_tty()));
        }
        match emit {
            Emit::Ndjson => Output::Ndjson { offsets },
            Emit::OpenaiChat => Output::OpenAi(
                OpenAiChatEmitter::new().include_usage(include_usage),
                String::new(),
            ),
            Emit::OpenaiResponses => {
                Output::Responses(Box::new(OpenAiResponsesEmitter::new()), String::new())
            }
            Emit::Anthropic => Output::Anthropic(Box::new(AnthropicEmitter::new()), String::new()),
            Emit::AgUi => {
                let mut em = AgUiEmitter::new();
                if let Some(t) = ids.thread_id {
                    em = em.thread_id(t);
                }
                if let Some(r) = ids.run_id {
                    em = em.run_id(r);
                }
                Output::AgUi(Box::new(em), String::new())
            }
        }
    }

    /// Writes (and drains) `events`; `parser` tells the input bytes fed so far and what
    /// the response said about itself (the OpenAI output keeps the provider's id, model and
    /// time). Flushes, so a piped stream is passed on live.
    pub(crate) fn write(
        &mut self,
        events: &mut Vec<Event>,
        parser: &Parser,
        out: &mut impl Write,
    ) -> Result<(), String> {
        let (fed, meta) = (parser.bytes_fed(), parser.response_meta());
        if events.is_empty() {
            return Ok(());
        }
        match self {
            Output::Ndjson { offsets } => {
                for e in events.drain(..) {
                    let mut line = serde_json::to_string(&e).map_err(|e| e.to_string())?;
                    if *offsets && line.ends_with('}') {
                        line.pop();
                        line.push_str(&format!(",\"offset\":{fed}}}"));
                    }
                    writeln!(out, "{line}").map_err(write_error)?;
                }
            }
            Output::OpenAi(em, buf) => {
                em.response_meta(meta);
                for e in events.drain(..) {
                    em.event(&e, buf);
                }
                out.write_all(buf.as_bytes()).map_err(write_error)?;
                buf.clear();
            }
            Output::Responses(em, buf) => {
                em.response_meta(meta);
                for e in events.drain(..) {
                    em.event(&e, buf);
                }
                out.write_all(buf.as_bytes()).map_err(write_error)?;
                buf.clear();
            }
            Output::Anthropic(em, buf) => {
                em.response_meta(meta);
                for e in events.drain(..) {
                    em.event(&e, buf);
                }
                out.write_all(buf.as_bytes()).map_err(write_error)?;
                buf.clear();
            }
            Output::AgUi(em, buf) => {
                for e in events.drain(..) {
                    em.event_sse(&e, buf);
                }
                out.write_all(buf.as_bytes()).map_err(write_error)?;
                buf.clear();
            }
            Output::Pretty(p) => {
                for e in events.drain(..) {
                    p.render(&e, out);
                }
            }
        }
        out.flush().map_err(write_error)
    }

    /// End of input.
    pub(crate) fn finish(
        &mut self,
        meta: &ResponseMeta,
        out: &mut impl Write,
    ) -> Result<(), String> {
        match self {
            Output::Ndjson { .. } => {}
            Output::OpenAi(em, buf) => {
                em.response_meta(meta);
                em.finish(buf);
                out.write_all(buf.as_bytes()).map_err(write_error)?;
            }
            Output::Responses(em, buf) => {
                em.response_meta(meta);
                em.finish(buf);
                out.write_all(buf.as_bytes()).map_err(write_error)?;
            }
            Output::Anthropic(em, buf) => {
                em.response_meta(meta);
                em.finish(buf);
                out.write_all(buf.as_bytes()).map_err(write_error)?;
            }
            Output::AgUi(em, buf) => {
                em.finish_sse(buf);
                out.write_all(buf.as_bytes()).map_err(write_error)?;
            }
            Output::Pretty(p) => p.end(out),
        }
        Ok(())
    }
}

fn write_error(e: std::io::Error) -> String {
    format!("cannot write: {e}")
}
