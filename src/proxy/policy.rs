//! The early policy of a reply: which calls go out. Sans-IO: events in, verdicts out; the
//! relay ([`super::stream`]) writes what the verdicts let through.
//!
//! ```text
//!   ToolCallStart ──declared, within parallel_tool_calls──▶ Pass (call counted, open)
//!        │ otherwise                       │ its arguments break the tool's schema or loop
//!        ▼                                 ▼ (schema_violation / repetition error)
//!   Refuse { kind, message } ◀─────────────┘
//!        └──▶ ending(): a `truncated` error per other open call, the refusal's error,
//!             a finish
//! ```

use crate::{ErrorKind, Event, FinishReason, Tools};

/// What to do with one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Write it for the client.
    Pass,
    /// A call the request does not allow: write [`Policy::ending`] instead of it, cut the
    /// upstream and write nothing more.
    Refuse {
        /// `undeclared_tool`, `limit_exceeded`, `schema_violation` or `repetition`.
        kind: ErrorKind,
        /// Names the call and why it was refused.
        message: String,
        /// The refused tool's name.
        name: String,
        /// What was wrong in the arguments, for the text the model reads (`""`: nothing
        /// more than the kind says).
        detail: String,
    },
}

/// Why a call of `kind` was refused, in a few words.
fn reason(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::UndeclaredTool => "not among the request's tools",
        ErrorKind::LimitExceeded => "a second call while the request set parallel_tool_calls false",
        ErrorKind::SchemaViolation => "its arguments break the tool's JSON Schema",
        ErrorKind::Repetition => "its arguments repeat in a runaway loop",
        _ => "refused by the proxy's policy",
    }
}

/// The assistant text that tells an agent (and its model) a call was refused:
/// `toolstream: call to rm_rf refused: not among the request's tools`.
pub(super) fn refusal_text(name: &str, kind: ErrorKind, detail: &str) -> String {
    let sep = if detail.is_empty() { "" } else { ": " };
    format!(
        "toolstream: call to {name} refused: {}{sep}{detail}",
        reason(kind)
    )
}

/// What was wrong in a call that broke while it streamed, for the model: the parser's
/// message without its `tool call N: ` lead, and the JSON Pointer of the value.
pub(super) fn broke_detail(message: &str, path: Option<&str>) -> String {
    let what = message
        .strip_prefix("tool call ")
        .and_then(|m| m.split_once(": "))
        .map_or(message, |(_, m)| m);
    match path {
        Some(p) => format!("{what} at \"{p}\""),
        None => what.to_owned(),
    }
}

/// The machine-readable error's message for a refused call of a whole reply.
pub(super) fn refusal_message(name: &str, kind: ErrorKind) -> String {
    format!("a call to \"{name}\": refused ({})", reason(kind))
}

/// The early policy of one reply.
#[derive(Debug)]
pub(super) struct Policy {
    /// The request's declared tools (`None`: any name goes).
    tools: Option<Tools>,
    /// `parallel_tool_calls` (false: one call at most).
    parallel: bool,
    /// Calls let through.
    allowed: usize,
    /// Open calls let through: index and argument text so far.
    open: Vec<(usize, String)>,
    /// Names of the calls let through, by index.
    names: Vec<String>,
}

impl Policy {
    /// The policy of a request declaring `tools`, with `parallel_tool_calls` = `parallel`.
    pub(super) fn new(tools: Option<Tools>, parallel: bool) -> Self {
        Policy {
            tools,
            parallel,
            allowed: 0,
            open: Vec::new(),
            names: Vec::new(),
        }
    }

    /// Whether `name` is among the request's tools (any name when it declared none).
    fn declared(&self, name: &str) -> bool {
        self.tools.as_ref().is_none_or(|t| t.is_declared(name))
    }

    /// The verdict on `event`, the next event of the reply.
    pub(super) fn check(&mut self, event: &Event) -> Verdict {
        match event {
            Event::ToolCallStart { index, id, name } => {
                if !self.declared(name) {
                    return Verdict::Refuse {
                        kind: ErrorKind::UndeclaredTool,
                        message: format!(
                            "a call to \"{name}\" (id {id}), which the request did not declare: refused, and the upstream reply cut off there"
                        ),
                        name: name.clone(),
                        detail: String::new(),
                    };
                }
                if !self.parallel && self.allowed >= 1 {
                    return Verdict::Refuse {
                        kind: ErrorKind::LimitExceeded,
                        message: format!(
                            "a second call (\"{name}\", id {id}) while the request set parallel_tool_calls false: refused, and the upstream reply cut off there"
                        ),
                        name: name.clone(),
                        detail: String::new(),
                    };
                }
                self.allowed += 1;
                self.open.push((*index, String::new()));
                if self.names.len() <= *index {
                    self.names.resize(*index + 1, String::new());
                }
                if let Some(n) = self.names.get_mut(*index) {
                    n.clone_from(name);
                }
            }
            Event::ToolCallArgs { index, delta } => {
                if let Some(c) = self.open.iter_mut().find(|(i, _)| i == index) {
                    c.1.push_str(delta);
                }
            }
            // A call broke while it streamed (`--validate`, `--max-repeats`): refused, so the
            // upstream is cut there and the agent told why.
            Event::Error {
                kind: kind @ (ErrorKind::SchemaViolation | ErrorKind::Repetition),
                index: Some(index),
                message,
                path,
                ..
            } => {
                self.open.retain(|(i, _)| i != index);
                let name = self.names.get(*index).cloned().unwrap_or_default();
                let at = path
                    .as_deref()
                    .map(|p| format!(" at \"{p}\""))
                    .unwrap_or_default();
                // The model reads the keyword and the place, so it can correct the call.
                let detail = broke_detail(message, path.as_deref());
                return Verdict::Refuse {
                    kind: *kind,
                    message: format!(
                        "a call to \"{name}\" broke while its arguments streamed{at} ({message}): refused, and the upstream reply cut off there"
                    ),
                    name,
                    detail,
                };
            }
            Event::ToolCallEnd { index, .. }
            | Event::Error {
                index: Some(index), ..
            } => self.open.retain(|(i, _)| i != index),
            _ => {}
        }
        Verdict::Pass
    }

    /// The events that end the client's reply after a refusal of `kind` (`message`): a
    /// `truncated` error for each call still open (with its argument text), `text` (the
    /// refusal told as assistant text, [`refusal_text`]) when given, the refusal's error,
    /// and a finish (`tool_calls` if a call went out, else `stop`).
    pub(super) fn ending(
        &mut self,
        kind: ErrorKind,
        message: String,
        text: Option<String>,
    ) -> Vec<Event> {
        let mut out: Vec<Event> = std::mem::take(&mut self.open)
            .into_iter()
            .map(|(index, raw)| Event::Error {
                path: None,
                kind: ErrorKind::Truncated,
                message: "the call was still open when the proxy cut the upstream reply off".into(),
                index: Some(index),
                raw,
            })
            .collect();
        if let Some(text) = text {
            out.push(Event::Text { delta: text });
        }
        out.push(Event::Error {
            path: None,
            kind,
            message,
            index: None,
            raw: String::new(),
        });
        let reason = if self.allowed > 0 {
            FinishReason::ToolCalls
        } else {
            FinishReason::Stop
        };
        out.push(Event::Finish {
            reason: Some(reason),
            usage: None,
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools(names: &[&str]) -> Option<Tools> {
        let list: Vec<_> = names
            .iter()
            .map(|n| json!({"type": "function", "function": {"name": n, "parameters": {}}}))
            .collect();
        Tools::from_value(&json!({ "tools": list })).ok()
    }

    fn start(index: usize, name: &str) -> Event {
        Event::ToolCallStart {
            index,
            id: format!("call_{index}"),
            name: name.into(),
        }
    }

    fn args(index: usize, delta: &str) -> Event {
        Event::ToolCallArgs {
            index,
            delta: delta.into(),
        }
    }

    #[test]
    fn declared_calls_pass_and_an_undeclared_one_is_refused() {
        let mut p = Policy::new(tools(&["ls", "cat"]), true);
        assert_eq!(p.check(&Event::Text { delta: "hi".into() }), Verdict::Pass);
        assert_eq!(p.check(&start(0, "ls")), Verdict::Pass);
        assert_eq!(p.check(&args(0, "{\"a\":")), Verdict::Pass);
        let Verdict::Refuse {
            kind,
            message,
            name,
            ..
        } = p.check(&start(1, "rm_rf"))
        else {
            panic!("rm_rf passed");
        };
        assert_eq!(kind, ErrorKind::UndeclaredTool);
        assert_eq!(name, "rm_rf");
        assert!(message.contains("\"rm_rf\" (id call_1)"), "{message}");
        // The open call is reported cut with its text, then the refusal told as text, its
        // error, then a finish saying a call went out.
        let text = refusal_text(&name, kind, "");
        assert_eq!(
            text,
            "toolstream: call to rm_rf refused: not among the request's tools"
        );
        let mut ending = p.ending(kind, message, Some(text.clone()));
        assert_eq!(ending.remove(1), Event::Text { delta: text });
        assert!(matches!(
            &ending[0],
            Event::Error { kind: ErrorKind::Truncated, index: Some(0), raw, .. } if raw == "{\"a\":"
        ));
        assert!(matches!(
            &ending[1],
            Event::Error {
                kind: ErrorKind::UndeclaredTool,
                index: None,
                ..
            }
        ));
        assert!(matches!(
            ending[2],
            Event::Finish {
                reason: Some(FinishReason::ToolCalls),
                ..
            }
        ));
        assert_eq!(ending.len(), 3);
    }

    #[test]
    fn a_second_call_is_refused_without_parallel_calls() {
        let mut p = Policy::new(tools(&["ls"]), false);
        assert_eq!(p.check(&start(0, "ls")), Verdict::Pass);
        assert_eq!(
            p.check(&Event::ToolCallEnd {
                index: 0,
                id: "call_0".into(),
                name: "ls".into(),
                arguments: json!({}),
            }),
            Verdict::Pass
        );
        let v = p.check(&start(1, "ls"));
        assert!(
            matches!(&v, Verdict::Refuse { kind: ErrorKind::LimitExceeded, message, .. } if message.contains("parallel_tool_calls false")),
            "{v:?}"
        );
        // No call left open: the ending is the refusal and the finish.
        let Verdict::Refuse { kind, message, .. } = v else {
            return;
        };
        assert_eq!(p.ending(kind, message, None).len(), 2);
    }

    #[test]
    fn without_declared_tools_any_name_goes_and_a_refusal_before_any_call_finishes_stop() {
        let mut p = Policy::new(None, true);
        for i in 0..3 {
            assert_eq!(p.check(&start(i, "anything")), Verdict::Pass);
        }
        let mut q = Policy::new(tools(&["ls"]), true);
        let Verdict::Refuse { kind, message, .. } = q.check(&start(0, "rm")) else {
            panic!("rm passed");
        };
        let ending = q.ending(kind, message, None);
        assert!(matches!(
            ending.last(),
            Some(Event::Finish {
                reason: Some(FinishReason::Stop),
                ..
            })
        ));
    }

    #[test]
    fn a_failed_call_is_no_longer_open() {
        let mut p = Policy::new(tools(&["ls"]), true);
        p.check(&start(0, "ls"));
        p.check(&Event::Error {
            path: None,
            kind: ErrorKind::InvalidArguments,
            message: "bad".into(),
            index: Some(0),
            raw: "{x".into(),
        });
        let Verdict::Refuse { kind, message, .. } = p.check(&start(1, "rm")) else {
            panic!("rm passed");
        };
        assert_eq!(p.ending(kind, message, None).len(), 2);
    }

    #[test]
    fn a_call_that_breaks_while_it_streams_is_refused() {
        for kind in [ErrorKind::SchemaViolation, ErrorKind::Repetition] {
            let mut p = Policy::new(tools(&["ls", "cat"]), true);
            assert_eq!(p.check(&start(0, "ls")), Verdict::Pass);
            assert_eq!(p.check(&args(0, "{\"a\":1")), Verdict::Pass);
            assert_eq!(p.check(&start(1, "cat")), Verdict::Pass);
            assert_eq!(p.check(&args(1, "{\"n\":\"k")), Verdict::Pass);
            let broke = Event::Error {
                kind,
                message: "tool call 1: enum: the string is none of the allowed values".into(),
                index: Some(1),
                raw: "{\"n\":\"k".into(),
                path: Some("/n".into()),
            };
            let Verdict::Refuse {
                kind: k,
                message,
                name,
                detail,
            } = p.check(&broke)
            else {
                panic!("passed");
            };
            assert_eq!((k, name.as_str()), (kind, "cat"));
            assert!(
                message.contains("\"/n\"") && message.contains("enum"),
                "{message}"
            );
            // The model reads what was wrong and where.
            assert_eq!(
                detail,
                "enum: the string is none of the allowed values at \"/n\""
            );
            let text = refusal_text(&name, kind, &detail);
            assert!(
                text.starts_with("toolstream: call to cat refused: its arguments")
                    && text.ends_with("enum: the string is none of the allowed values at \"/n\""),
                "{text}"
            );
            let end = p.ending(k, message, Some(text));
            // The other open call is cut off; the broken one is told by the refusal.
            let truncated: Vec<_> = end
                .iter()
                .filter_map(|e| match e {
                    Event::Error {
                        kind: ErrorKind::Truncated,
                        index,
                        ..
                    } => *index,
                    _ => None,
                })
                .collect();
            assert_eq!(truncated, [0]);
            assert!(
                end.iter()
                    .any(|e| matches!(e, Event::Error { kind: x, index: None, .. } if *x == kind))
            );
        }
        // Other errors of a call do not refuse it.
        let mut p = Policy::new(tools(&["ls"]), true);
        assert_eq!(p.check(&start(0, "ls")), Verdict::Pass);
        let bad = Event::Error {
            kind: ErrorKind::InvalidArguments,
            message: String::new(),
            index: Some(0),
            raw: String::new(),
            path: None,
        };
        assert_eq!(p.check(&bad), Verdict::Pass);
    }
}
