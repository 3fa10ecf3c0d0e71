//! `toolstream serve FILE --format F`: a live browser view of a replayed stream.
//!
//! A tiny HTTP/1.1 server on 127.0.0.1 (std::net, a thread per connection):
//! - `GET /` — the page (one embedded HTML/JS string, no external resources);
//! - `GET /events` — the replay: FILE fed to the parser 64 bytes at a time, every 10 ms
//!   (scaled by `--speed`), each event sent as it is emitted as an SSE message
//!   `data: {event JSON with "offset"}`; first an `event: meta` message with the file,
//!   format and size. Each request replays from the start; the response ends with the
//!   input (the page reads it with `fetch`, so nothing reconnects).
//!
//! The page renders text as it arrives and each tool call as a card: the name the moment
//! it is known, the arguments filling in field by field (a tolerant parse of the partial
//! JSON), then the parsed arguments when the call completes.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;
use toolstream::{Format, Framing, Parser};

const CHUNK: usize = 64;
const PAUSE_MS: f64 = 10.0;

struct Replay {
    name: String,
    bytes: Vec<u8>,
    format: Format,
    framing: Option<Framing>,
    speed: f64,
    setup: crate::Setup,
}

pub(crate) fn run(
    file: &str,
    format: Format,
    framing: Option<Framing>,
    port: u16,
    speed: f64,
    setup: crate::Setup,
) -> Result<(), String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the local address: {e}"))?;
    let name = std::path::Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_owned());
    let replay = Arc::new(Replay {
        name,
        bytes,
        format,
        framing,
        speed,
        setup,
    });
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "toolstream serve: http://{addr}/  (replaying {file} as {format}; Ctrl-C to stop)"
        );
        let _ = out.flush();
    }
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        let replay = Arc::clone(&replay);
        std::thread::spawn(move || {
            // A client that goes away mid-replay is not an error worth reporting.
            let _ = handle(conn, &replay);
        });
    }
    Ok(())
}

fn handle(conn: TcpStream, replay: &Replay) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Skip the headers (bounded).
    let mut header = String::new();
    for _ in 0..100 {
        header.clear();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default();
    let path = parts.next().unwrap_or_default();
    let path = path.split('?').next().unwrap_or_default();
    let mut conn = conn;
    match (method, path) {
        ("GET", "/") | ("GET", "/index.html") => respond(
            &mut conn,
            "200 OK",
            "text/html; charset=utf-8",
            PAGE.as_bytes(),
        ),
        ("GET", "/events") => events(&mut conn, replay),
        ("GET", "/favicon.ico") => respond(&mut conn, "204 No Content", "text/plain", b""),
        _ => respond(&mut conn, "404 Not Found", "text/plain", b"not found\n"),
    }
}

fn respond(conn: &mut TcpStream, status: &str, kind: &str, body: &[u8]) -> std::io::Result<()> {
    write!(
        conn,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    conn.write_all(body)?;
    conn.flush()
}

fn events(conn: &mut TcpStream, replay: &Replay) -> std::io::Result<()> {
    conn.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
    )?;
    let meta = serde_json::json!({
        "file": replay.name,
        "format": replay.format.name(),
        "bytes": replay.bytes.len(),
    });
    write!(conn, "event: meta\ndata: {meta}\n\n")?;
    conn.flush()?;
    let mut parser = replay.setup.apply(Parser::new(replay.format));
    if let Some(f) = replay.framing {
        parser = parser.framing(f);
    }
    let mut events = Vec::new();
    let mut buf = String::new();
    let send = |events: &mut Vec<toolstream::Event>,
                fed: u64,
                buf: &mut String,
                conn: &mut TcpStream|
     -> std::io::Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        buf.clear();
        for e in events.drain(..) {
            let Ok(mut line) = serde_json::to_string(&e) else {
                continue;
            };
            if line.ends_with('}') {
                line.pop();
                line.push_str(&format!(",\"offset\":{fed}}}"));
            }
            buf.push_str("data: ");
            buf.push_str(&line);
            buf.push_str("\n\n");
        }
        conn.write_all(buf.as_bytes())?;
        conn.flush()
    };
    for chunk in replay.bytes.chunks(CHUNK) {
        // `feed` fails only after `finish`, which comes below.
        let _ = parser.feed(chunk, &mut events);
        send(&mut events, parser.bytes_fed(), &mut buf, conn)?;
        crate::pause(PAUSE_MS, replay.speed);
    }
    let _ = parser.finish(&mut events);
    send(&mut events, parser.bytes_fed(), &mut buf, conn)?;
    conn.write_all(b"event: end\ndata: {}\n\n")?;
    conn.flush()
}

/// The page: reads `/events` with `fetch` and renders as events arrive.
const PAGE: &str = r##"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>toolstream — live tool calls</title>
<style>
  :root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1d1d1f; --muted: #6e6e73; --card: #fff;
          --line: #e3e3e0; --accent: #0a66c2; --ok: #1a7f37; --err: #c62828; --think: #8a6d3b; }
  @media (prefers-color-scheme: dark) {
    :root { --bg: #17171a; --fg: #ececef; --muted: #9a9aa2; --card: #202024; --line: #34343a;
            --accent: #5aa9ff; --ok: #4cc26b; --err: #ff6b6b; --think: #d4b16a; } }
  body { margin: 0; background: var(--bg); color: var(--fg);
         font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
  header { position: sticky; top: 0; display: flex; gap: 1em; align-items: center; padding: .6em 1.2em;
           background: var(--card); border-bottom: 1px solid var(--line); }
  header h1 { font-size: 1.05em; margin: 0; }
  #meta, #status { color: var(--muted); font-size: .9em; }
  progress { flex: 1; max-width: 20em; }
  button { font: inherit; padding: .2em .8em; }
  main { max-width: 52em; margin: 1.2em auto; padding: 0 1.2em; }
  .text { white-space: pre-wrap; margin: .6em 0; }
  .reasoning { white-space: pre-wrap; color: var(--think); font-style: italic; border-left: 3px solid var(--think);
               padding-left: .8em; margin: .6em 0; }
  .call { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--accent);
          border-radius: 6px; padding: .6em 1em; margin: .8em 0; }
  .call[data-state="done"] { border-left-color: var(--ok); }
  .call[data-state="error"] { border-left-color: var(--err); }
  .call .head { display: flex; gap: .8em; align-items: baseline; }
  .call .name { font-family: ui-monospace, monospace; font-weight: 700; font-size: 1.05em; }
  .call .id, .call .state { color: var(--muted); font-size: .85em; }
  .call .state { margin-left: auto; }
  .call table { border-collapse: collapse; margin: .5em 0; width: 100%; }
  .call td { vertical-align: top; padding: .15em .6em .15em 0; font-family: ui-monospace, monospace; font-size: .9em; }
  .call td.key { color: var(--accent); white-space: nowrap; width: 1%; padding-right: 1.2em; }
  .call td.value { white-space: pre-wrap; word-break: break-word; }
  .call tr.filling td.value::after { content: "▍"; color: var(--accent); }
  .call pre.args { margin: .3em 0 0; color: var(--muted); font-size: .8em; white-space: pre-wrap; word-break: break-all; }
  .finish { color: var(--muted); border-top: 1px dashed var(--line); margin-top: 1em; padding-top: .5em; }
  .error { color: var(--err); white-space: pre-wrap; margin: .6em 0; font-family: ui-monospace, monospace; font-size: .9em; }
</style>
</head>
<body data-state="loading">
<header>
  <h1>toolstream</h1>
  <span id="meta"></span>
  <progress id="progress" max="1" value="0"></progress>
  <span id="status">connecting…</span>
  <button id="replay" type="button">Replay</button>
</header>
<main id="log"></main>
<script>
"use strict";
const log = document.getElementById("log");
const statusEl = document.getElementById("status");
const progress = document.getElementById("progress");
let last = null;       // the block text/reasoning deltas append to
let calls = new Map(); // index -> card state
let total = 1;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// A tolerant parse of partial JSON: close what is open and try, so fields show as they fill in.
function partial(text) {
  const stack = [];
  let inStr = false, esc = false;
  for (const c of text) {
    if (inStr) {
      if (esc) esc = false;
      else if (c === "\\") esc = true;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === "{") stack.push("}");
    else if (c === "[") stack.push("]");
    else if (c === "}" || c === "]") stack.pop();
  }
  let t = text;
  if (inStr) t = (esc ? t.slice(0, -1) : t).replace(/\\u[0-9a-fA-F]{0,3}$/, "") + '"';
  const close = stack.reverse().join("");
  const tries = [t + close, t + " null" + close, t.replace(/,\s*$/, "") + close,
                 t.replace(/,?\s*"(?:[^"\\]|\\.)*"\s*:?\s*$/, "") + close];
  for (const a of tries) { try { return JSON.parse(a); } catch (_) {} }
  return undefined;
}

function show(v) { return typeof v === "string" ? v : JSON.stringify(v); }

function renderFields(card, value, streaming) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return;
  const keys = Object.keys(value);
  keys.forEach((k, i) => {
    let row = card.rows.get(k);
    if (!row) {
      row = el("tr");
      row.append(el("td", "key", k), el("td", "value"));
      card.table.append(row);
      card.rows.set(k, row);
    }
    row.lastChild.textContent = show(value[k]);
    row.classList.toggle("filling", streaming && i === keys.length - 1);
  });
}

function append(kind, delta) {
  if (!last || last.kind !== kind) {
    last = { kind, node: el("div", kind) };
    log.append(last.node);
  }
  last.node.textContent += delta;
}

function onEvent(e) {
  if (typeof e.offset === "number") progress.value = e.offset / total;
  switch (e.type) {
    case "text": append("text", e.delta); break;
    case "reasoning": append("reasoning", e.delta); break;
    case "tool_call_start": {
      last = null;
      const node = el("div", "call");
      node.dataset.state = "streaming";
      node.dataset.index = e.index;
      const head = el("div", "head");
      const state = el("span", "state", "arguments streaming…");
      head.append(el("span", "name", e.name), el("span", "id", e.id), state);
      const table = el("table", "fields");
      const args = el("pre", "args");
      node.append(head, table, args);
      log.append(node);
      calls.set(e.index, { node, state, table, args, rows: new Map(), text: "" });
      break;
    }
    case "tool_call_args": {
      const c = calls.get(e.index);
      if (!c) break;
      c.text += e.delta;
      c.args.textContent = c.text;
      const v = partial(c.text);
      if (v !== undefined) renderFields(c, v, true);
      break;
    }
    case "tool_call_end": {
      const c = calls.get(e.index);
      if (!c) break;
      renderFields(c, e.arguments, false);
      c.args.textContent = JSON.stringify(e.arguments);
      c.args.className = "args final";
      c.node.dataset.state = "done";
      c.state.textContent = "✓ complete";
      break;
    }
    case "finish": {
      last = null;
      const usage = e.usage && e.usage.total_tokens != null ? ` · ${e.usage.total_tokens} tokens` : "";
      log.append(el("div", "finish", `finish: ${e.reason ?? "–"}${usage}`));
      break;
    }
    case "error": {
      last = null;
      const c = e.index != null ? calls.get(e.index) : null;
      if (c) { c.node.dataset.state = "error"; c.state.textContent = "✗ " + e.kind; }
      log.append(el("div", "error", `error (${e.kind}): ${e.message}`));
      break;
    }
  }
}

function handle(message) {
  let event = "message", data = "";
  for (const line of message.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data += line.slice(5).trimStart();
  }
  if (!data) return;
  const v = JSON.parse(data);
  if (event === "meta") {
    total = Math.max(1, v.bytes);
    document.getElementById("meta").textContent = `${v.file} · ${v.format} · ${v.bytes} bytes`;
  } else if (event === "message") {
    onEvent(v);
  }
}

async function run() {
  log.textContent = "";
  last = null; calls = new Map();
  progress.value = 0;
  document.body.dataset.state = "streaming";
  statusEl.textContent = "replaying…";
  try {
    const res = await fetch("/events", { cache: "no-store" });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        handle(buf.slice(0, i));
        buf = buf.slice(i + 2);
      }
    }
    progress.value = 1;
    statusEl.textContent = "done";
    document.body.dataset.state = "done";
  } catch (err) {
    statusEl.textContent = "failed: " + err;
    document.body.dataset.state = "failed";
  }
}

document.getElementById("replay").addEventListener("click", run);
run();
</script>
</body>
</html>
"##;

#[cfg(test)]
mod tests {
    use super::PAGE;

    #[test]
    fn page_is_self_contained() {
        assert!(!PAGE.contains("http://") && !PAGE.contains("https://"));
        assert!(PAGE.contains("fetch(\"/events\""));
    }
}
