//! Events → AG-UI (Agent–User Interaction protocol) events.
//!
//! | event | AG-UI events |
//! |---|---|
//! | first event of the stream | `RUN_STARTED {threadId, runId}` |
//! | [`Event::Text`] | `TEXT_MESSAGE_START {messageId, role: "assistant"}` when no message is open, then `TEXT_MESSAGE_CONTENT {messageId, delta}` |
//! | [`Event::Reasoning`] | `REASONING_START` + `REASONING_MESSAGE_START` when none is open, then `REASONING_MESSAGE_CONTENT` |
//! | [`Event::ToolCallStart`] | open text / reasoning messages end, then `TOOL_CALL_START {toolCallId, toolCallName, parentMessageId}` |
//! | [`Event::ToolCallArgs`] | `TOOL_CALL_ARGS {toolCallId, delta}` |
//! | [`Event::ToolCallEnd`] | `TOOL_CALL_END {toolCallId}` |
//! | [`Event::Finish`] | remembered; `RUN_FINISHED {threadId, runId, result: {finishReason, usage?}}` at `finish` (`usage` a `TokenUsage` object of the known counts; `finishReason` `stop` for a `tool_calls` reason when no call went out) |
//! | [`Event::Error`] of a call, or one that [ends the stream](super::ends_the_stream) (`truncated`: the stream was cut; `provider`; `unrecognized_input`) | `RUN_ERROR {message, code}`: the run is over (AG-UI allows no event after it; later events are dropped, no `RUN_FINISHED` follows, and the failed call gets no `TOOL_CALL_END`, so no client runs it) |
//! | any other [`Event::Error`] (a payload the parser skipped and recovered from) | `CUSTOM {name: "toolstream.error", value: {kind, message, raw}}` |
//!
//! Text and reasoning messages are closed (`*_END`) before a tool call starts, when the
//! other kind begins, and at the end, so every `*_CONTENT` sits between its `*_START` and
//! `*_END`. The thread and run ids are the caller's ([`AgUiEmitter::thread_id`],
//! [`AgUiEmitter::run_id`]), fresh random UUIDs otherwise. Message ids are `<runId>_msg_<n>`; a tool call's `parentMessageId` is the text
//! message it followed, or a message id reserved for the calls when no text came first.
//! Tool call ids are the provider's (or the parser's generated `<prefix><index>`); an id the provider
//! reused within the response gets `_<index>` appended, as AG-UI clients key results by it.
//!
//! Field names follow the AG-UI event schemas (`@ag-ui/core`, `ag_ui.core`): camelCase, `type`
//! in SCREAMING_SNAKE_CASE; the optional `timestamp` is left out (the core has no clock).

use crate::event::{Event, FinishReason, Usage};
use serde::Serialize;
use serde_json::{Value, json};

/// One AG-UI event, serialized as the protocol's JSON (`{"type":"TOOL_CALL_START",...}`).
///
/// ```
/// use toolstream::emit::AgUiEvent;
/// let e = AgUiEvent::ToolCallArgs { tool_call_id: "call_1".into(), delta: "{\"a\":".into() };
/// assert_eq!(
///     serde_json::to_string(&e).unwrap(),
///     r#"{"type":"TOOL_CALL_ARGS","toolCallId":"call_1","delta":"{\"a\":"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "SCREAMING_SNAKE_CASE",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum AgUiEvent {
    /// The run began.
    RunStarted {
        /// The conversation thread.
        thread_id: String,
        /// This run.
        run_id: String,
    },
    /// The run finished.
    RunFinished {
        /// The conversation thread.
        thread_id: String,
        /// This run.
        run_id: String,
        /// `{"finishReason": .., "usage": ..}` when the response said how it finished:
        /// `usage`, when the response sent token counts, is a `TokenUsage` object
        /// (`{"inputTokens", "outputTokens", "totalTokens"}`, absent counts left out).
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
    },
    /// The run failed; no event follows.
    RunError {
        /// What went wrong.
        message: String,
        /// Our [`ErrorKind`](crate::ErrorKind) name.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// An assistant text message began.
    TextMessageStart {
        /// The message.
        message_id: String,
        /// Always `assistant`.
        role: &'static str,
    },
    /// Text of an open message (never empty).
    TextMessageContent {
        /// The message.
        message_id: String,
        /// The new text.
        delta: String,
    },
    /// A text message ended.
    TextMessageEnd {
        /// The message.
        message_id: String,
    },
    /// A reasoning phase began.
    ReasoningStart {
        /// The reasoning message.
        message_id: String,
    },
    /// A reasoning message began.
    ReasoningMessageStart {
        /// The reasoning message.
        message_id: String,
        /// Always `reasoning` (the only role the AG-UI schema allows here).
        role: &'static str,
    },
    /// Reasoning text (never empty).
    ReasoningMessageContent {
        /// The reasoning message.
        message_id: String,
        /// The new reasoning text.
        delta: String,
    },
    /// A reasoning message ended.
    ReasoningMessageEnd {
        /// The reasoning message.
        message_id: String,
    },
    /// A reasoning phase ended.
    ReasoningEnd {
        /// The reasoning message.
        message_id: String,
    },
    /// A tool call began: its name is known.
    ToolCallStart {
        /// The call id.
        tool_call_id: String,
        /// The tool's name.
        tool_call_name: String,
        /// The assistant message the call belongs to.
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
    },
    /// A fragment of the call's arguments (JSON text).
    ToolCallArgs {
        /// The call id.
        tool_call_id: String,
        /// The new argument text.
        delta: String,
    },
    /// The call's arguments are complete.
    ToolCallEnd {
        /// The call id.
        tool_call_id: String,
    },
    /// An application-defined event; used for errors the parser recovered from.
    Custom {
        /// `toolstream.error`.
        name: String,
        /// The error: `{kind, message, raw}`.
        value: Value,
    },
}

impl AgUiEvent {
    /// The protocol's `type` name, e.g. `TOOL_CALL_START`.
    pub fn type_name(&self) -> &'static str {
        match self {
            AgUiEvent::RunStarted { .. } => "RUN_STARTED",
            AgUiEvent::RunFinished { .. } => "RUN_FINISHED",
            AgUiEvent::RunError { .. } => "RUN_ERROR",
            AgUiEvent::TextMessageStart { .. } => "TEXT_MESSAGE_START",
            AgUiEvent::TextMessageContent { .. } => "TEXT_MESSAGE_CONTENT",
            AgUiEvent::TextMessageEnd { .. } => "TEXT_MESSAGE_END",
            AgUiEvent::ReasoningStart { .. } => "REASONING_START",
            AgUiEvent::ReasoningMessageStart { .. } => "REASONING_MESSAGE_START",
            AgUiEvent::ReasoningMessageContent { .. } => "REASONING_MESSAGE_CONTENT",
            AgUiEvent::ReasoningMessageEnd { .. } => "REASONING_MESSAGE_END",
            AgUiEvent::ReasoningEnd { .. } => "REASONING_END",
            AgUiEvent::ToolCallStart { .. } => "TOOL_CALL_START",
            AgUiEvent::ToolCallArgs { .. } => "TOOL_CALL_ARGS",
            AgUiEvent::ToolCallEnd { .. } => "TOOL_CALL_END",
            AgUiEvent::Custom { .. } => "CUSTOM",
        }
    }

    /// Appends the event as one SSE message (`data: {json}\n\n`), AG-UI's HTTP transport.
    pub fn write_sse(&self, out: &mut String) {
        if let Ok(s) = serde_json::to_string(self) {
            out.push_str("data: ");
            out.push_str(&s);
            out.push_str("\n\n");
        }
    }
}

/// Turns a stream of [`Event`]s into AG-UI events, keeping the protocol's ordering rules
/// (see the [module docs](self)).
///
/// ```
/// use toolstream::{Event, emit::{AgUiEmitter, AgUiEvent}};
///
/// let mut ag = AgUiEmitter::new().thread_id("t1").run_id("r1");
/// let mut out = Vec::new();
/// ag.event(&Event::Text { delta: "Checking.".into() }, &mut out);
/// ag.event(&Event::ToolCallStart { index: 0, id: "call_9".into(), name: "get_weather".into() }, &mut out);
/// ag.event(&Event::ToolCallArgs { index: 0, delta: r#"{"city":"Paris"}"#.into() }, &mut out);
/// ag.finish(&mut out);
/// let types: Vec<&str> = out.iter().map(AgUiEvent::type_name).collect();
/// assert_eq!(types, [
///     "RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
///     "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "RUN_FINISHED",
/// ]);
/// ```
#[derive(Debug, Clone)]
pub struct AgUiEmitter {
    thread_id: String,
    run_id: String,
    started: bool,
    /// `RUN_FINISHED` or `RUN_ERROR` has been emitted.
    over: bool,
    next_message: usize,
    /// The open text message.
    text: Option<String>,
    /// The open reasoning message.
    reasoning: Option<String>,
    /// The message tool calls attach to: the last text message, or one reserved for calls.
    parent: Option<String>,
    /// Started calls not yet ended: (index, toolCallId).
    open_calls: Vec<(usize, String)>,
    /// Every toolCallId used in this run (AG-UI clients key tool results by it).
    used_ids: Vec<String>,
    result: Option<Value>,
    scratch: Vec<AgUiEvent>,
}

impl Default for AgUiEmitter {
    fn default() -> Self {
        Self::new()
    }
}

impl AgUiEmitter {
    /// An emitter with a fresh random thread id and run id (UUIDs, different for every
    /// emitter, so two runs never merge in a client). A server answering an AG-UI
    /// `RunAgentInput` should pass the request's `threadId` and `runId` with
    /// [`thread_id`](Self::thread_id) and [`run_id`](Self::run_id) (CLI: `--thread-id`,
    /// `--run-id`).
    pub fn new() -> Self {
        AgUiEmitter {
            thread_id: super::fresh_uuid(),
            run_id: super::fresh_uuid(),
            started: false,
            over: false,
            next_message: 0,
            text: None,
            reasoning: None,
            parent: None,
            open_calls: Vec::new(),
            used_ids: Vec::new(),
            result: None,
            scratch: Vec::new(),
        }
    }

    /// The thread id of `RUN_STARTED` / `RUN_FINISHED`.
    pub fn thread_id(mut self, id: impl Into<String>) -> Self {
        self.thread_id = id.into();
        self
    }

    /// The run id of `RUN_STARTED` / `RUN_FINISHED`; message ids start with it.
    pub fn run_id(mut self, id: impl Into<String>) -> Self {
        self.run_id = id.into();
        self
    }

    /// Whether the run is over (`RUN_FINISHED` or `RUN_ERROR` emitted).
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// Appends the AG-UI events for one event to `out`.
    pub fn event(&mut self, event: &Event, out: &mut Vec<AgUiEvent>) {
        if self.over {
            return;
        }
        self.start(out);
        match event {
            Event::Text { delta } if !delta.is_empty() => {
                self.end_reasoning(out);
                let id = match &self.text {
                    Some(id) => id.clone(),
                    None => {
                        let id = self.message_id();
                        out.push(AgUiEvent::TextMessageStart {
                            message_id: id.clone(),
                            role: "assistant",
                        });
                        self.text = Some(id.clone());
                        self.parent = Some(id.clone());
                        id
                    }
                };
                out.push(AgUiEvent::TextMessageContent {
                    message_id: id,
                    delta: delta.clone(),
                });
            }
            Event::Reasoning { delta } if !delta.is_empty() => {
                self.end_text(out);
                let id = match &self.reasoning {
                    Some(id) => id.clone(),
                    None => {
                        let id = self.message_id();
                        out.push(AgUiEvent::ReasoningStart {
                            message_id: id.clone(),
                        });
                        out.push(AgUiEvent::ReasoningMessageStart {
                            message_id: id.clone(),
                            role: "reasoning",
                        });
                        self.reasoning = Some(id.clone());
                        id
                    }
                };
                out.push(AgUiEvent::ReasoningMessageContent {
                    message_id: id,
                    delta: delta.clone(),
                });
            }
            Event::ToolCallStart { index, id, name } => {
                self.end_text(out);
                self.end_reasoning(out);
                let parent = match &self.parent {
                    Some(p) => p.clone(),
                    None => {
                        let p = self.message_id();
                        self.parent = Some(p.clone());
                        p
                    }
                };
                let mut id = id.clone();
                if self.used_ids.contains(&id) {
                    // A provider reusing a call id within one response.
                    id = format!("{id}_{index}");
                }
                self.used_ids.push(id.clone());
                out.push(AgUiEvent::ToolCallStart {
                    tool_call_id: id.clone(),
                    tool_call_name: name.clone(),
                    parent_message_id: Some(parent),
                });
                self.open_calls.push((*index, id));
            }
            Event::ToolCallArgs { index, delta } if !delta.is_empty() => {
                if let Some(id) = self.call_id(*index) {
                    out.push(AgUiEvent::ToolCallArgs {
                        tool_call_id: id.to_owned(),
                        delta: delta.clone(),
                    });
                }
            }
            Event::ToolCallEnd { index, .. } => {
                if let Some(pos) = self.open_calls.iter().position(|(i, _)| i == index) {
                    let (_, id) = self.open_calls.remove(pos);
                    out.push(AgUiEvent::ToolCallEnd { tool_call_id: id });
                }
            }
            Event::Finish { reason, usage } => {
                self.end_text(out);
                self.end_reasoning(out);
                let reason = match reason {
                    Some(FinishReason::ToolCalls) if self.used_ids.is_empty() => Some("stop"),
                    r => r.as_ref().map(FinishReason::as_str),
                };
                let mut result = serde_json::Map::new();
                result.insert("finishReason".into(), json!(reason));
                if let Some(u) = usage {
                    result.insert("usage".into(), token_usage(u));
                }
                self.result = Some(Value::Object(result));
            }
            Event::Error {
                path: _,
                kind,
                message,
                index,
                raw,
            } => {
                if index.is_some() || super::ends_the_stream(*kind) {
                    self.end_text(out);
                    self.end_reasoning(out);
                    out.push(AgUiEvent::RunError {
                        message: message.clone(),
                        code: Some(kind.as_str().to_owned()),
                    });
                    self.over = true;
                } else {
                    out.push(AgUiEvent::Custom {
                        name: "toolstream.error".into(),
                        value: json!({"kind": kind.as_str(), "message": message, "raw": raw}),
                    });
                }
            }
            // Empty deltas, and variants added later.
            _ => {}
        }
    }

    /// Ends the run: closes open messages and calls, then `RUN_FINISHED` (unless a
    /// `RUN_ERROR` already ended it).
    pub fn finish(&mut self, out: &mut Vec<AgUiEvent>) {
        if self.over {
            return;
        }
        self.start(out);
        self.end_text(out);
        self.end_reasoning(out);
        for (_, id) in self.open_calls.drain(..) {
            out.push(AgUiEvent::ToolCallEnd { tool_call_id: id });
        }
        out.push(AgUiEvent::RunFinished {
            thread_id: self.thread_id.clone(),
            run_id: self.run_id.clone(),
            result: self.result.take(),
        });
        self.over = true;
    }

    /// [`event`](Self::event), written as SSE (`data: {json}\n\n` per AG-UI event).
    pub fn event_sse(&mut self, event: &Event, out: &mut String) {
        let mut scratch = std::mem::take(&mut self.scratch);
        self.event(event, &mut scratch);
        for e in scratch.drain(..) {
            e.write_sse(out);
        }
        self.scratch = scratch;
    }

    /// [`finish`](Self::finish), written as SSE.
    pub fn finish_sse(&mut self, out: &mut String) {
        let mut scratch = std::mem::take(&mut self.scratch);
        self.finish(&mut scratch);
        for e in scratch.drain(..) {
            e.write_sse(out);
        }
        self.scratch = scratch;
    }

    fn start(&mut self, out: &mut Vec<AgUiEvent>) {
        if !self.started {
            self.started = true;
            out.push(AgUiEvent::RunStarted {
                thread_id: self.thread_id.clone(),
                run_id: self.run_id.clone(),
            });
        }
    }

    fn message_id(&mut self) -> String {
        let id = format!("{}_msg_{}", self.run_id, self.next_message);
        self.next_message += 1;
        id
    }

    fn call_id(&self, index: usize) -> Option<&str> {
        self.open_calls
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, id)| id.as_str())
    }

    fn end_text(&mut self, out: &mut Vec<AgUiEvent>) {
        if let Some(id) = self.text.take() {
            out.push(AgUiEvent::TextMessageEnd { message_id: id });
        }
    }

    fn end_reasoning(&mut self, out: &mut Vec<AgUiEvent>) {
        if let Some(id) = self.reasoning.take() {
            out.push(AgUiEvent::ReasoningMessageEnd {
                message_id: id.clone(),
            });
            out.push(AgUiEvent::ReasoningEnd { message_id: id });
        }
    }
}

/// The `TokenUsage` of `RUN_FINISHED.result.usage`: the counts that are known (absent,
/// not null, when unknown).
fn token_usage(u: &Usage) -> Value {
    super::usage_counts(u, ["inputTokens", "outputTokens", "totalTokens"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::ErrorKind;

    fn types(v: &[AgUiEvent]) -> Vec<&'static str> {
        v.iter().map(AgUiEvent::type_name).collect()
    }

    #[test]
    fn reasoning_then_text_then_call_then_finish() {
        let mut ag = AgUiEmitter::new().thread_id("thread_0").run_id("run_0");
        let mut out = Vec::new();
        for e in [
            Event::Reasoning { delta: "hm".into() },
            Event::Text { delta: "ok".into() },
            Event::ToolCallStart {
                index: 0,
                id: "c".into(),
                name: "f".into(),
            },
            Event::ToolCallArgs {
                index: 0,
                delta: "{}".into(),
            },
            Event::ToolCallEnd {
                index: 0,
                id: "c".into(),
                name: "f".into(),
                arguments: json!({}),
            },
            Event::Text {
                delta: "after".into(),
            },
            Event::Finish {
                reason: Some(FinishReason::ToolCalls),
                usage: None,
            },
        ] {
            ag.event(&e, &mut out);
        }
        ag.finish(&mut out);
        assert_eq!(
            types(&out),
            [
                "RUN_STARTED",
                "REASONING_START",
                "REASONING_MESSAGE_START",
                "REASONING_MESSAGE_CONTENT",
                "REASONING_MESSAGE_END",
                "REASONING_END",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "RUN_FINISHED",
            ]
        );
        assert_eq!(
            serde_json::to_value(&out[9]).unwrap(),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "run_0_msg_1"})
        );
        assert_eq!(
            serde_json::to_value(out.last().unwrap()).unwrap(),
            json!({"type": "RUN_FINISHED", "threadId": "thread_0", "runId": "run_0",
                   "result": {"finishReason": "tool_calls"}})
        );
        // The schema allows only `reasoning` here.
        assert_eq!(
            serde_json::to_value(&out[2]).unwrap(),
            json!({"type": "REASONING_MESSAGE_START", "messageId": "run_0_msg_0", "role": "reasoning"})
        );
    }

    #[test]
    fn usage_is_in_the_result_with_the_known_counts() {
        let mut ag = AgUiEmitter::new().thread_id("t").run_id("r");
        let mut out = Vec::new();
        let usage = Usage {
            input_tokens: Some(3),
            output_tokens: None,
            total_tokens: Some(3),
            reasoning_tokens: None,
            cached_input_tokens: None,
            raw: json!({}),
        };
        ag.event(
            &Event::Finish {
                reason: None,
                usage: Some(usage),
            },
            &mut out,
        );
        ag.finish(&mut out);
        assert_eq!(
            serde_json::to_value(out.last().unwrap()).unwrap(),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
                   "result": {"finishReason": null,
                              "usage": {"inputTokens": 3, "totalTokens": 3}}})
        );
    }

    #[test]
    fn ids_are_the_callers_or_fresh() {
        let run_ids = |ag: AgUiEmitter| {
            let mut ag = ag;
            let mut out = Vec::new();
            ag.event(&Event::Text { delta: "x".into() }, &mut out);
            ag.finish(&mut out);
            match (&out[0], &out[1]) {
                (
                    AgUiEvent::RunStarted { thread_id, run_id },
                    AgUiEvent::TextMessageStart { message_id, .. },
                ) => (thread_id.clone(), run_id.clone(), message_id.clone()),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(
            run_ids(AgUiEmitter::new().thread_id("t9").run_id("r9")),
            ("t9".into(), "r9".into(), "r9_msg_0".into())
        );
        let (t1, r1, m1) = run_ids(AgUiEmitter::new());
        let (t2, r2, _) = run_ids(AgUiEmitter::new());
        assert!(t1 != t2 && r1 != r2 && t1 != r1);
        assert_eq!(m1, format!("{r1}_msg_0"));
        assert_eq!(r1.len(), 36);
    }

    #[test]
    fn call_error_ends_the_run_without_ending_the_call() {
        let mut ag = AgUiEmitter::new().thread_id("thread_0").run_id("run_0");
        let mut out = Vec::new();
        ag.event(
            &Event::ToolCallStart {
                index: 0,
                id: "c".into(),
                name: "f".into(),
            },
            &mut out,
        );
        ag.event(
            &Event::Error {
                path: None,
                kind: ErrorKind::Truncated,
                message: "cut".into(),
                index: Some(0),
                raw: "{\"a".into(),
            },
            &mut out,
        );
        ag.event(&Event::Text { delta: "x".into() }, &mut out);
        ag.finish(&mut out);
        assert_eq!(types(&out), ["RUN_STARTED", "TOOL_CALL_START", "RUN_ERROR"]);
        assert!(ag.is_over());
    }

    #[test]
    fn reused_call_ids_are_made_unique() {
        let mut ag = AgUiEmitter::new().thread_id("thread_0").run_id("run_0");
        let mut out = Vec::new();
        for i in 0..2 {
            ag.event(
                &Event::ToolCallStart {
                    index: i,
                    id: "0".into(),
                    name: "f".into(),
                },
                &mut out,
            );
            ag.event(
                &Event::ToolCallEnd {
                    index: i,
                    id: "0".into(),
                    name: "f".into(),
                    arguments: json!({}),
                },
                &mut out,
            );
        }
        let ids: Vec<String> = out
            .iter()
            .filter_map(|e| match e {
                AgUiEvent::ToolCallEnd { tool_call_id } => Some(tool_call_id.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(ids, ["0", "0_1"]);
    }

    #[test]
    fn recoverable_error_is_custom() {
        let mut ag = AgUiEmitter::new().thread_id("thread_0").run_id("run_0");
        let mut s = String::new();
        ag.event_sse(
            &Event::Error {
                path: None,
                kind: ErrorKind::InvalidJson,
                message: "m".into(),
                index: None,
                raw: "r".into(),
            },
            &mut s,
        );
        ag.finish_sse(&mut s);
        assert_eq!(
            s,
            "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"thread_0\",\"runId\":\"run_0\"}\n\n\
             data: {\"type\":\"CUSTOM\",\"name\":\"toolstream.error\",\"value\":{\"kind\":\"invalid_json\",\"message\":\"m\",\"raw\":\"r\"}}\n\n\
             data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"thread_0\",\"runId\":\"run_0\"}\n\n"
        );
    }
}
