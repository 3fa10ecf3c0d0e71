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
        s.push_str(&spaced(&c));
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
    let usage = json!({
        "id": "chatcmpl-demo", "object": "chat.completion.chunk", "choices": [],
        "usage": {"prompt_tokens": 61, "completion_tokens": 58, "total_tokens": 119},
    });
    s.push_str("data: ");
    s.push_str(&spaced(&usage));
    s.push_str("\n\ndata: [DONE]\n\n");
    s
}

/// JSON text with a space after each `,` and `:` (as Python servers such as vLLM write
/// it), so the demo's input lines wrap on word boundaries.
fn spaced(value: &serde_json::Value) -> String {
    use serde::Serialize;
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_key<W: ?Sized + Write>(
            &mut self,
            w: &mut W,
            first: bool,
        ) -> io::Result<()> {
            if first { Ok(()) } else { w.write_all(b", ") }
        }
        fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
            w.write_all(b": ")
        }
    }
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    // Writing JSON values into a Vec cannot fail.
    let _ = value.serialize(&mut ser);
    String::from_utf8(out).unwrap_or_default()
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
    /// Wrap lines on word boundaries at this many columns (the demo); `None`: never.
    width: Option<usize>,
    /// With a width: the word being written (its escapes included), held until a space or
    /// newline ends it, so it moves to the next line whole.
    word: String,
    /// Columns of `word`.
    word_columns: usize,
    /// With a width: spaces before `word`, held so that a line never ends in one.
    spaces: usize,
    /// Inside an escape sequence (while wrapping).
    escape: bool,
    /// Where a wrapped line starts (2 inside a call's block).
    indent: usize,
}

impl Pretty {
    pub(crate) fn new(colour: bool) -> Self {
        Pretty {
            style: Style::new(colour),
            column: 0,
            written: false,
            calls: 0,
            reasoning: false,
            width: None,
            word: String::new(),
            word_columns: 0,
            spaces: 0,
            escape: false,
            indent: 0,
        }
    }

    /// A renderer that wraps lines on word boundaries at `width` columns (a word longer
    /// than a line is cut).
    pub(crate) fn wrapped(colour: bool, width: usize) -> Self {
        Pretty {
            width: Some(width.max(20)),
            ..Pretty::new(colour)
        }
    }

    /// The column the output stands at, the held word included.
    fn at(&self) -> usize {
        self.column + self.spaces + self.word_columns
    }

    fn put(&mut self, out: &mut impl Write, s: &str) {
        if let Some(width) = self.width {
            self.written |= !s.is_empty();
            for c in s.chars() {
                self.wrap_char(out, c, width);
            }
            return;
        }
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

    /// One character of wrapped output: a space or newline ends the held word (written on
    /// this line if it fits, else on the next); a space at the end of a line becomes the
    /// line break.
    fn wrap_char(&mut self, out: &mut impl Write, c: char, width: usize) {
        if self.escape || c == '\x1b' {
            self.escape = c != 'm';
            self.word.push(c);
            return;
        }
        match c {
            '\n' => {
                self.flush_word(out, width);
                // Spaces at the end of a line are not shown.
                self.spaces = 0;
                let _ = out.write_all(b"\n");
                self.column = 0;
            }
            ' ' => {
                self.flush_word(out, width);
                self.spaces += 1;
            }
            _ => {
                // A word longer than a line is cut where the line ends.
                if self.word_columns > 0 && self.indent + self.word_columns >= width {
                    self.flush_word(out, width);
                }
                self.word.push(c);
                self.word_columns += 1;
            }
        }
    }

    /// Writes the held spaces and word, or breaks the line instead of the spaces if the
    /// word does not fit.
    fn flush_word(&mut self, out: &mut impl Write, width: usize) {
        if self.word.is_empty() {
            return;
        }
        if self.word_columns > 0 && self.column > self.indent && self.at() > width {
            self.new_line(out);
        } else {
            let _ = write!(out, "{:1$}", "", self.spaces);
            self.column += self.spaces;
        }
        self.spaces = 0;
        let _ = out.write_all(self.word.as_bytes());
        self.column += self.word_columns;
        self.word.clear();
        self.word_columns = 0;
    }

    /// Breaks the line, indenting the next.
    fn new_line(&mut self, out: &mut impl Write) {
        let _ = write!(out, "\n{:1$}", "", self.indent);
        self.column = self.indent;
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
            let gap = if self.at() > 0 { "\n" } else { "" };
            self.put(out, &format!("{gap}{dim}{bold}reasoning:{reset} "));
        } else if !reasoning && self.reasoning && !matches!(e, Event::Finish { .. }) {
            let gap = if self.at() > 0 { "\n" } else { "" };
            self.put(out, &format!("{gap}{dim}{bold}(end of reasoning){reset}\n"));
        }
        self.reasoning = reasoning;
        match e {
            Event::Text { delta } => self.put(out, delta),
            Event::Reasoning { delta } => self.put(out, &format!("{dim}{delta}{reset}")),
            Event::ToolCallStart { index, id, name } => {
                self.calls += 1;
                self.indent = 0;
                let gap = match (self.written, self.at()) {
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
                self.indent = 2;
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
                self.indent = 0;
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
        if let Some(width) = self.width {
            self.flush_word(out, width);
        }
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
    let mut pretty = Pretty::wrapped(tty, width());
    let Style {
        bold, dim, reset, ..
    } = pretty.style;
    pretty.put(
        &mut out,
        &format!(
            "{bold}toolstream demo{reset}: an OpenAI chat-completions stream (SSE, {} bytes) fed to the parser {CHUNK} bytes at a time. The input starts:\n\n",
            body.len()
        ),
    );
    // The input's first events, as they are on the wire.
    pretty.indent = 2;
    for line in body.lines().filter(|l| !l.is_empty()).take(INPUT_LINES) {
        pretty.put(&mut out, &format!("  {dim}{line}{reset}\n"));
    }
    pretty.put(
        &mut out,
        &format!(
            "  {dim}... ({} more events){reset}\n\n{bold}The events, as the parser emits them:{reset}\n\n",
            body.matches("data: ").count().saturating_sub(INPUT_LINES)
        ),
    );
    pretty.indent = 0;
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
    // Run from the build tree (`cargo run`): `toolstream` is not on PATH yet.
    let installed = std::env::current_exe()
        .map(|p| !p.components().any(|c| c.as_os_str() == "target"))
        .unwrap_or(false);
    let install = if installed {
        String::new()
    } else {
        format!(
            "\n{bold}`toolstream` is not on your PATH yet:{reset} cargo install --locked --path . puts it there (in ~/.cargo/bin), reusing this build's locked versions.\n"
        )
    };
    pretty.put(
        &mut out,
        &format!(
            "\n{dim}Try: toolstream parse --pretty samples/anthropic.sse · toolstream demo --write demo.sse · toolstream formats{reset}\n{install}"
        ),
    );
    pretty.end(&mut out);
    Ok(())
}

/// Lines of the input shown before the events.
const INPUT_LINES: usize = 3;

/// The terminal's width for the demo: `COLUMNS`, else 80.
fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|&c: &usize| c > 0)
        .unwrap_or(80)
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
