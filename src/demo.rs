//! `toolstream` with no arguments: replays a built-in OpenAI-style stream of our own
//! making through the parser and renders the tool call as it forms. Colour and pacing on
//! a terminal (`--speed`), with a progress line below the output while a replay runs;
//! plain text, unpaced, when piped. [`Pretty`] is also `toolstream parse --pretty`.

use crate::{is_tty, pause};
use serde_json::json;
use std::io::{self, Write};
use std::time::Instant;
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

/// ANSI styles, or empty strings when not on a terminal.
#[derive(Clone, Copy)]
struct Style {
    bold: &'static str,
    dim: &'static str,
    cyan: &'static str,
    green: &'static str,
    red: &'static str,
    reset: &'static str,
}

impl Style {
    fn new(colour: bool) -> Self {
        if colour {
            Style {
                bold: "\x1b[1m",
                dim: "\x1b[2m",
                cyan: "\x1b[36m",
                green: "\x1b[32m",
                red: "\x1b[31m",
                reset: "\x1b[0m",
            }
        } else {
            Style {
                bold: "",
                dim: "",
                cyan: "",
                green: "",
                red: "",
                reset: "",
            }
        }
    }
}

/// Renders events for humans: text as it comes, each call as a block with its name, its
/// arguments filling in, and the parsed arguments when complete.
pub(crate) struct Pretty {
    style: Style,
    /// Characters written since the last newline (where a progress line returns to).
    column: usize,
    /// Whether anything was written yet.
    written: bool,
    /// Calls seen, for the progress line.
    pub(crate) calls: usize,
    /// The last event written was reasoning (so its block is open).
    reasoning: bool,
}

impl Pretty {
    pub(crate) fn new(colour: bool) -> Self {
        Pretty {
            style: Style::new(colour),
            column: 0,
            written: false,
            calls: 0,
            reasoning: false,
        }
    }

    fn put(&mut self, out: &mut impl Write, s: &str) {
        let _ = out.write_all(s.as_bytes());
        self.written |= !s.is_empty();
        // Escape sequences do not move the cursor; count only what is printed.
        let visible = |t: &str| {
            let mut n = 0;
            let mut esc = false;
            for c in t.chars() {
                match (esc, c) {
                    (false, '\x1b') => esc = true,
                    (true, 'm') => esc = false,
                    (true, _) => {}
                    (false, _) => n += 1,
                }
            }
            n
        };
        match s.rfind('\n') {
            Some(i) => self.column = visible(s.get(i + 1..).unwrap_or_default()),
            None => self.column += visible(s),
        }
    }

    pub(crate) fn render(&mut self, e: &Event, out: &mut impl Write) {
        let Style {
            bold,
            dim,
            cyan,
            green,
            red,
            reset,
        } = self.style;
        // Reasoning is labelled in words, not only by colour: piped, it would read as
        // the answer.
        let reasoning = matches!(e, Event::Reasoning { .. });
        if reasoning && !self.reasoning {
            let gap = if self.column > 0 { "\n" } else { "" };
            self.put(out, &format!("{gap}{dim}{bold}reasoning:{reset} "));
        } else if !reasoning && self.reasoning && !matches!(e, Event::Finish { .. }) {
            let gap = if self.column > 0 { "\n" } else { "" };
            self.put(out, &format!("{gap}{dim}{bold}(end of reasoning){reset}\n"));
        }
        self.reasoning = reasoning;
        match e {
            Event::Text { delta } => self.put(out, delta),
            Event::Reasoning { delta } => self.put(out, &format!("{dim}{delta}{reset}")),
            Event::ToolCallStart { index, id, name } => {
                self.calls += 1;
                let gap = match (self.written, self.column) {
                    (false, _) => "",
                    (true, 0) => "\n",
                    (true, _) => "\n\n",
                };
                self.put(
                    out,
                    &format!(
                        "{gap}{cyan}{bold}⏺ call #{index} {name}{reset} {dim}({id}){reset}\n  "
                    ),
                );
            }
            Event::ToolCallArgs { delta, .. } => {
                self.put(
                    out,
                    &format!("{dim}{}{reset}", delta.replace("\\n", "\\n\n  ")),
                );
            }
            Event::ToolCallEnd {
                name, arguments, ..
            } => {
                let pretty = serde_json::to_string_pretty(arguments).unwrap_or_default();
                self.put(
                    out,
                    &format!(
                        "\n  {green}✓ {name} complete{reset} — parsed arguments:\n  {}\n",
                        pretty.replace('\n', "\n  ")
                    ),
                );
            }
            Event::Finish { reason, usage } => {
                let reason = reason.as_ref().map(|r| r.as_str()).unwrap_or("-");
                let tokens = usage
                    .as_ref()
                    .and_then(|u| u.total_tokens)
                    .map(|t| format!(" ({t} tokens)"))
                    .unwrap_or_default();
                self.put(out, &format!("\n{bold}finish{reset}: {reason}{tokens}\n"));
            }
            Event::Error {
                path: _,
                kind,
                message,
                index,
                raw,
            } => {
                let call = index.map(|i| format!(" in call #{i}")).unwrap_or_default();
                let mut raw: String = raw.chars().take(200).collect();
                if raw.len() < 200 && !raw.is_empty() {
                    raw = format!("\n  {dim}raw: {raw}{reset}");
                } else if !raw.is_empty() {
                    raw = format!("\n  {dim}raw: {raw}…{reset}");
                }
                self.put(
                    out,
                    &format!(
                        "\n{red}{bold}error{reset}{red} ({}){call}: {message}{reset}{raw}\n",
                        kind.as_str()
                    ),
                );
            }
            // Variants added later are not rendered.
            _ => {}
        }
    }

    /// Ends the output on a fresh line.
    pub(crate) fn end(&mut self, out: &mut impl Write) {
        if self.column > 0 {
            self.put(out, "\n");
        }
        let _ = out.flush();
    }

    /// Draws a progress line below the cursor and returns to where the output stands.
    fn draw_progress(&mut self, out: &mut impl Write, line: &str) {
        let col = self.column + 1;
        let _ = write!(
            out,
            "\n\x1b[2K{}{line}{}\x1b[1A\x1b[{col}G",
            self.style.dim, self.style.reset
        );
        let _ = out.flush();
    }

    /// Erases the progress line (everything below the cursor).
    fn clear_progress(&mut self, out: &mut impl Write) {
        let _ = out.write_all(b"\x1b[J");
    }
}

fn progress_line(fed: usize, total: usize, calls: usize, started: Instant) -> String {
    const WIDTH: usize = 24;
    let filled = (fed * WIDTH).checked_div(total).unwrap_or(WIDTH).min(WIDTH);
    format!(
        "  ▕{}{}▏ {:.1}/{:.1} KB · {calls} call{} · {:.1} s",
        "█".repeat(filled),
        "░".repeat(WIDTH - filled),
        fed as f64 / 1024.0,
        total as f64 / 1024.0,
        if calls == 1 { "" } else { "s" },
        started.elapsed().as_secs_f64()
    )
}

/// `toolstream demo --write FILE`: the demo's stream, to replay or parse yourself.
pub(crate) fn write(path: &str) -> Result<(), String> {
    std::fs::write(path, body()).map_err(|e| format!("cannot write {path}: {e}"))?;
    eprintln!(
        "toolstream: wrote the demo's OpenAI stream to {path}; try: toolstream parse --pretty {path}"
    );
    Ok(())
}

pub(crate) fn run(speed: f64) -> Result<(), String> {
    let tty = is_tty();
    let body = body();
    const CHUNK: usize = 48;
    const PAUSE_MS: f64 = 25.0;
    let mut out = io::stdout().lock();
    let mut pretty = Pretty::new(tty);
    let Style {
        bold, dim, reset, ..
    } = pretty.style;
    pretty.put(
        &mut out,
        &format!(
            "{bold}toolstream demo{reset}: a recorded-style OpenAI stream ({} bytes) fed {CHUNK} bytes at a time\n\n",
            body.len()
        ),
    );
    // A progress line when the replay is paced and long enough to watch.
    let chunks = body.len().div_ceil(CHUNK);
    let paced = tty && speed > 0.0;
    let progress = paced && chunks as f64 * PAUSE_MS / speed > 1000.0;
    let started = Instant::now();
    let mut parser = Parser::new(Format::OpenAiChat);
    let mut events = Vec::new();
    let mut fed = 0;
    for chunk in body.as_bytes().chunks(CHUNK) {
        parser.feed(chunk, &mut events).map_err(|e| e.to_string())?;
        fed += chunk.len();
        if progress && !events.is_empty() {
            pretty.clear_progress(&mut out);
        }
        for e in events.drain(..) {
            pretty.render(&e, &mut out);
        }
        if progress {
            let line = progress_line(fed, body.len(), pretty.calls, started);
            pretty.draw_progress(&mut out, &line);
        }
        let _ = out.flush();
        if paced {
            pause(PAUSE_MS, speed);
        }
    }
    parser.finish(&mut events).map_err(|e| e.to_string())?;
    if progress {
        pretty.clear_progress(&mut out);
    }
    for e in events.drain(..) {
        pretty.render(&e, &mut out);
    }
    if tty {
        pretty.put(
            &mut out,
            &format!(
                "\n{dim}Try: toolstream parse --pretty samples/anthropic.sse   ·   toolstream demo --write demo.sse   ·   toolstream formats{reset}\n"
            ),
        );
    }
    pretty.end(&mut out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_rendering_has_no_escapes_and_tracks_the_column() {
        let mut p = Pretty::new(false);
        let mut out = Vec::new();
        p.render(
            &Event::Text {
                delta: "ab\ncd".into(),
            },
            &mut out,
        );
        assert_eq!(p.column, 2);
        p.render(
            &Event::ToolCallStart {
                index: 0,
                id: "c".into(),
                name: "f".into(),
            },
            &mut out,
        );
        assert_eq!(p.column, 2);
        let s = String::from_utf8(out).unwrap();
        assert!(!s.contains('\x1b'));
        assert!(s.contains("⏺ call #0 f (c)"));
    }

    #[test]
    fn colour_escapes_do_not_count_as_columns() {
        let mut p = Pretty::new(true);
        let mut out = Vec::new();
        p.render(
            &Event::Reasoning {
                delta: "xyz".into(),
            },
            &mut out,
        );
        assert_eq!(p.column, "reasoning: xyz".len());
    }

    #[test]
    fn reasoning_is_labelled_in_words() {
        let mut p = Pretty::new(false);
        let mut out = Vec::new();
        for e in [
            Event::Reasoning {
                delta: "hmm".into(),
            },
            Event::Reasoning {
                delta: ", ok".into(),
            },
            Event::Text { delta: "Hi".into() },
        ] {
            p.render(&e, &mut out);
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "reasoning: hmm, ok\n(end of reasoning)\nHi"
        );
    }

    #[test]
    fn progress_line_is_bounded() {
        let l = progress_line(10, 0, 1, Instant::now());
        assert!(l.contains("1 call "));
        let l = progress_line(50, 100, 2, Instant::now());
        assert_eq!(l.matches('█').count(), 12);
    }
}
