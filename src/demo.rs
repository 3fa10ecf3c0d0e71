//! `toolstream` with no arguments: replays a built-in OpenAI-style stream of our own
//! making through the parser and renders the tool call as it forms.

use crate::{is_tty, pause};
use serde_json::json;
use std::io::{self, Write};
use toolstream::{Event, Format, Parser};

/// A chat-completions SSE body: some text, then a `write_file` call whose arguments
/// arrive a few characters at a time, then a second small call.
pub(crate) fn body() -> String {
    let mut s = String::new();
    let mut chunk = |delta: serde_json::Value, finish: Option<&str>| {
        let c = json!({
            "id": "chatcmpl-demo", "object": "chat.completion.chunk", "created": 1_760_000_000,
            "model": "demo-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        });
        s.push_str("data: ");
        s.push_str(&c.to_string());
        s.push_str("\n\n");
    };
    chunk(json!({"role": "assistant", "content": ""}), None);
    for w in [
        "I'll ", "write ", "the ", "script ", "and ", "then ", "run ", "it.",
    ] {
        chunk(json!({"content": w}), None);
    }
    chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_demo_1", "type": "function",
        "function": {"name": "write_file", "arguments": ""}}]}),
        None,
    );
    let args = json!({
        "path": "hello.py",
        "content": "def greet(name):\n    print(f\"Hello, {name}!\")\n\nfor who in [\"world\", \"toolstream\"]:\n    greet(who)\n",
    })
    .to_string();
    let chars: Vec<char> = args.chars().collect();
    for piece in chars.chunks(5) {
        let p: String = piece.iter().collect();
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}),
            None,
        );
    }
    chunk(
        json!({"tool_calls": [{"index": 1, "id": "call_demo_2", "type": "function",
        "function": {"name": "run", "arguments": ""}}]}),
        None,
    );
    for p in ["{\"cmd\": ", "\"python3 ", "hello.py\"}"] {
        chunk(
            json!({"tool_calls": [{"index": 1, "function": {"arguments": p}}]}),
            None,
        );
    }
    chunk(json!({}), Some("tool_calls"));
    s.push_str("data: {\"id\":\"chatcmpl-demo\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":61,\"completion_tokens\":58,\"total_tokens\":119}}\n\ndata: [DONE]\n\n");
    s
}

pub(crate) fn run(speed: f64) -> Result<(), String> {
    let tty = is_tty();
    let (bold, dim, cyan, green, reset) = if tty {
        ("\x1b[1m", "\x1b[2m", "\x1b[36m", "\x1b[32m", "\x1b[0m")
    } else {
        ("", "", "", "", "")
    };
    let body = body();
    let mut out = io::stdout().lock();
    let w = |out: &mut io::StdoutLock<'_>, s: &str| {
        let _ = out.write_all(s.as_bytes());
        let _ = out.flush();
    };
    w(
        &mut out,
        &format!(
            "{bold}toolstream demo{reset}: a recorded-style OpenAI stream ({} bytes) fed 48 bytes at a time\n\n",
            body.len()
        ),
    );
    let mut parser = Parser::new(Format::OpenAiChat);
    let mut events = Vec::new();
    let render = |events: &mut Vec<Event>, out: &mut io::StdoutLock<'_>| {
        for e in events.drain(..) {
            match e {
                Event::Text { delta } => w(out, &delta),
                Event::Reasoning { delta } => w(out, &format!("{dim}{delta}{reset}")),
                Event::ToolCallStart { index, id, name } => w(
                    out,
                    &format!(
                        "\n\n{cyan}{bold}⏺ call #{index} {name}{reset} {dim}({id}){reset}\n  {dim}"
                    ),
                ),
                Event::ToolCallArgs { delta, .. } => {
                    w(out, &delta.replace("\\n", "\\n\n  "));
                }
                Event::ToolCallEnd {
                    name, arguments, ..
                } => {
                    let pretty = serde_json::to_string_pretty(&arguments).unwrap_or_default();
                    w(
                        out,
                        &format!(
                            "{reset}\n  {green}✓ {name} complete{reset} — parsed arguments:\n  {}\n",
                            pretty.replace('\n', "\n  ")
                        ),
                    );
                }
                Event::Finish { reason, usage } => w(
                    out,
                    &format!(
                        "\n{bold}finish{reset}: {} {}\n",
                        reason.as_ref().map(|r| r.as_str()).unwrap_or("-"),
                        usage
                            .and_then(|u| u.total_tokens)
                            .map(|t| format!("({t} tokens)"))
                            .unwrap_or_default()
                    ),
                ),
                Event::Error { kind, message, .. } => {
                    w(out, &format!("\nerror ({}): {message}\n", kind.as_str()))
                }
                _ => {}
            }
        }
    };
    for chunk in body.as_bytes().chunks(48) {
        parser.feed(chunk, &mut events).map_err(|e| e.to_string())?;
        render(&mut events, &mut out);
        if tty {
            pause(25.0, speed);
        }
    }
    parser.finish(&mut events).map_err(|e| e.to_string())?;
    render(&mut events, &mut out);
    if tty {
        w(
            &mut out,
            &format!(
                "\n{dim}Try: toolstream parse --format openai-chat FILE   ·   toolstream formats{reset}\n"
            ),
        );
    }
    Ok(())
}
