//! `toolstream serve` in a real headless Chromium (Debian's `chromium` package).
//!
//! Each test starts `toolstream serve` on a free port, drives Chromium over the DevTools
//! protocol (a minimal WebSocket client on std::net: no dependency) and watches the page
//! while the replay runs:
//! - a generated Anthropic call: the name shows while the arguments stream, the fields fill
//!   in, and at the end every value is in the argument tree, decoded, at its JSON Pointer;
//!   Replay (and Replay again mid-way) gives the same page;
//! - a long streamed call from a capture, watched at a phone's width: the value fills in
//!   as a decoded prefix, and prose wraps between words;
//! - reasoning from a capture: a block labelled "Reasoning" that folds and unfolds;
//! - a 200 KB value, and text with line breaks at its edges;
//! - nested arguments from a capture (Ollama raw text, `--content llama-pythonic`): a tree;
//! - Qwen raw text with a malformed call: the error's kind, message and raw text in its
//!   card, the next call's nested tree and multi-line string as lines;
//! - a free-form (custom tool) input: a patch rendered as lines, not `\n`;
//! - a provider's error from a capture: kind, message and the error body it carries;
//! - NDJSON replayed as SSE: the page says the input gave no event (or shows the error);
//! - every capture: cards, trees, errors, text and reasoning as the parser gives them.
//!
//! Each page is checked at 1280 and 420 px (no horizontal overflow, the header wraps on the
//! phone and the progress bar stays, no word split across lines) and screenshotted to
//! `target/browser/<test>-<width>.png` (some mid-replay too, `<test>-streaming-<width>.png`,
//! and one in a dark colour scheme); any console error or exception fails the test. The
//! tests take turns (one Chromium at a time).
//!
//! Runs when `/usr/bin/chromium` exists (or `TOOLSTREAM_CHROMIUM` names a binary); prints a
//! visible SKIPPED line otherwise (`.ci/browser-setup` installs it). The tests that read
//! captures print SKIPPED when `../shared/captures` is absent.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use toolstream::{Event, Format, Parser, ParserConfig};

mod common;

/// Says something cargo's output capture does not swallow.
fn visible(msg: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TOOLSTREAM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let p = PathBuf::from("/usr/bin/chromium");
    p.exists().then_some(p)
}

/// An Anthropic stream: text, then a call whose arguments arrive in small pieces.
fn fixture() -> (String, Value) {
    let args = json!({
        "origin": "CDG",
        "destination": "NRT",
        "date": "2025-03-14",
        "passengers": [{"name": "Ada Lovelace", "age": 36}],
        "note": "window seat, préféré ✈"
    });
    let body = anthropic_stream(
        &["Let me ", "look for ", "flights."],
        ("toolu_live", "search_flights"),
        &args,
        4,
    );
    (body, args)
}

/// An Anthropic stream: the text pieces `text`, then the call `(id, name)` whose
/// arguments' JSON text arrives `piece` characters at a time.
fn anthropic_stream(text: &[&str], (id, name): (&str, &str), args: &Value, piece: usize) -> String {
    let mut payloads = vec![
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "usage": {"input_tokens": 42, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ];
    for w in text {
        payloads.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}));
    }
    payloads.push(json!({"type": "content_block_stop", "index": 0}));
    payloads.push(json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
    let chars: Vec<char> = args.to_string().chars().collect();
    for p in chars.chunks(piece) {
        payloads.push(json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": p.iter().collect::<String>()}}));
    }
    payloads.push(json!({"type": "content_block_stop", "index": 1}));
    payloads.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 57}}));
    payloads.push(json!({"type": "message_stop"}));
    String::from_utf8(common::sse_typed(&payloads)).unwrap()
}

struct Kill(Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

// ---- a minimal WebSocket client (RFC 6455), enough for the DevTools protocol ----

struct Ws {
    stream: TcpStream,
    next_id: u64,
    /// What the page reported on its console or threw, as DevTools events.
    problems: Vec<Value>,
}

impl Ws {
    fn connect(url: &str) -> Ws {
        let rest = url.strip_prefix("ws://").expect("ws:// url");
        let (host, path) = rest.split_at(rest.find('/').unwrap());
        let mut stream = TcpStream::connect(host).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dG9vbHN0cmVhbS10ZXN0IQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .unwrap();
        let mut head = Vec::new();
        let mut b = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            stream.read_exact(&mut b).unwrap();
            head.push(b[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "handshake: {head}");
        Ws {
            stream,
            next_id: 0,
            problems: Vec::new(),
        }
    }

    fn send_text(&mut self, text: &str) {
        let payload = text.as_bytes();
        let mut frame = vec![0x81u8];
        // Client frames are masked; a zero key leaves the payload as is.
        if payload.len() < 126 {
            frame.push(0x80 | payload.len() as u8);
        } else if payload.len() <= 0xFFFF {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        } else {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(payload.len() as u64).to_be_bytes());
        }
        frame.extend_from_slice(&[0, 0, 0, 0]);
        frame.extend_from_slice(payload);
        self.stream.write_all(&frame).unwrap();
    }

    fn read_message(&mut self) -> String {
        let mut message = Vec::new();
        loop {
            let mut h = [0u8; 2];
            self.stream.read_exact(&mut h).unwrap();
            let fin = h[0] & 0x80 != 0;
            let opcode = h[0] & 0x0F;
            let mut len = u64::from(h[1] & 0x7F);
            if len == 126 {
                let mut l = [0u8; 2];
                self.stream.read_exact(&mut l).unwrap();
                len = u64::from(u16::from_be_bytes(l));
            } else if len == 127 {
                let mut l = [0u8; 8];
                self.stream.read_exact(&mut l).unwrap();
                len = u64::from_be_bytes(l);
            }
            let mut payload = vec![0u8; len as usize];
            self.stream.read_exact(&mut payload).unwrap();
            match opcode {
                0x8 => panic!("DevTools closed the connection"),
                0x9 | 0xA => continue, // ping / pong
                _ => message.extend_from_slice(&payload),
            }
            if fin {
                return String::from_utf8(message).unwrap();
            }
        }
    }

    /// Sends a DevTools command and returns its result (events in between are skipped,
    /// except the page's console errors and exceptions, kept in `problems`).
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send_text(&json!({"id": id, "method": method, "params": params}).to_string());
        loop {
            let v: Value = serde_json::from_str(&self.read_message()).unwrap();
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
            let params = &v["params"];
            let problem = match v["method"].as_str() {
                Some("Runtime.exceptionThrown") => true,
                Some("Runtime.consoleAPICalled") => {
                    matches!(params["type"].as_str(), Some("error" | "assert"))
                }
                Some("Log.entryAdded") => params["entry"]["level"] == "error",
                _ => false,
            };
            if problem {
                self.problems.push(v);
            }
        }
    }

    fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        );
        r["result"]["value"].clone()
    }

    /// Evaluates an expression that returns `JSON.stringify(..)`; `Null` when it threw
    /// (the page is not there yet).
    fn eval_json(&mut self, expression: &str) -> Value {
        match self.eval(expression) {
            Value::String(s) => serde_json::from_str(&s).unwrap(),
            _ => Value::Null,
        }
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("base64 byte {c}"),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|b| *b != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for group in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, c) in group.iter().enumerate() {
            n |= val(*c) << (18 - 6 * i);
        }
        for i in 0..group.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

fn http_get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut r = BufReader::new(s);
    let mut len = None;
    loop {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0u8; len.expect("Content-Length")];
    r.read_exact(&mut body).unwrap();
    String::from_utf8(body).unwrap()
}

// ---- the page, seen from the test ----

/// What the page shows, as JSON (`Null` before the page is there); how values are laid
/// out (`rendered`, `lines`: layout work) only when `full` is true.
const SNAPSHOT: &str = r#"JSON.stringify(((full) => {
  const shown = e => !!e && e.checkVisibility() && e.getBoundingClientRect().height > 0;
  const lines = e => {
    const r = document.createRange();
    r.selectNodeContents(e);
    return new Set([...r.getClientRects()].filter(x => x.height > 0).map(x => Math.round(x.top))).size;
  };
  const problem = p => p && {
    kind: p.querySelector('.kind').textContent,
    message: p.querySelector('.message').textContent,
    raw: p.querySelector('pre.raw-text')?.innerText ?? null,
    shown: shown(p.querySelector('pre.raw-text')),
    broke: p.querySelector('.broke')?.textContent ?? null,
    brokeShown: shown(p.querySelector('.broke')),
    mark: p.querySelector('pre.raw-text mark.at')?.textContent ?? null,
    font: p.querySelector('pre.raw-text') ? getComputedStyle(p.querySelector('pre.raw-text')).fontFamily : null,
  };
  return {
    url: location.href,
    meta: document.getElementById('meta').textContent,
    state: document.body.dataset.state,
    status: document.getElementById('status').textContent,
    text: [...document.querySelectorAll('#log > .text')].map(t => t.textContent).join(''),
    reasoning: [...document.querySelectorAll('#log > details.reasoning')].map(d => ({
      label: d.querySelector(':scope > summary .label')?.textContent ?? null,
      open: d.open,
      body: d.querySelector(':scope > .body').textContent,
      shown: shown(d.querySelector(':scope > .body')),
    })),
    calls: [...document.querySelectorAll('#log > .call')].map(c => ({
      index: Number(c.dataset.index),
      name: c.querySelector('.name').textContent,
      nameShown: shown(c.querySelector('.name')),
      id: c.querySelector('.id').textContent,
      state: c.dataset.state,
      fields: [...c.querySelectorAll('.f')].map(f => {
        const v = f.querySelector(':scope > .v');
        return {
          path: f.dataset.path,
          kind: v ? 'leaf' : f.classList.contains('arr') ? 'arr' : 'obj',
          value: v ? v.textContent : null,
          rendered: v && full ? v.innerText : null,
          lines: v && full ? lines(v) : null,
          type: v ? ((v.className.match(/t-(\w+)/) || [])[1] ?? null) : null,
          summary: f.querySelector(':scope > .sum')?.textContent ?? null,
        };
      }),
      args: c.querySelector('details.raw pre.args').textContent,
      argsOpen: c.querySelector('details.raw').open,
      problem: problem(c.querySelector('.problem')),
      none: c.querySelector('.none')?.textContent ?? null,
    })),
    errors: [...document.querySelectorAll('#log > .error > .problem')].map(problem),
    finish: document.querySelector('#log > .finish')?.textContent ?? null,
    empty: document.querySelector('#log > .empty')?.textContent ?? null,
  };
})(FULL))"#;

/// The layout at the current width: overflow, the header's rows, the progress bar, and
/// the elements that stick out on the right.
const LAYOUT: &str = r#"JSON.stringify((() => {
  const r = e => e.getBoundingClientRect();
  const bar = document.getElementById('progress');
  const p = r(bar), title = r(document.querySelector('header h1'));
  const style = getComputedStyle(bar);
  return {
    innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    bar: { width: p.width, height: p.height, left: p.left, right: p.right, top: p.top,
           visible: style.display !== 'none' && style.visibility === 'visible' && p.width > 0 },
    titleBottom: title.bottom,
    header: [...document.querySelector('header').children].map(e => ({
      what: e.id || e.tagName.toLowerCase(), left: r(e).left, right: r(e).right })),
    outside: [...document.querySelectorAll('body *')]
      .filter(e => r(e).width > 0 && (r(e).right > innerWidth + 0.5 || r(e).left < -0.5))
      .map(e => e.tagName.toLowerCase() + '.' + e.className).slice(0, 8),
    wordBreak: [...document.querySelectorAll('.v, pre, .text, .reasoning > .body')]
      .map(e => getComputedStyle(e).wordBreak).filter(w => w !== 'normal'),
  };
})())"#;

/// Words split across two lines inside `selector`'s text: for each line break the text
/// wraps at, a letter or digit on both sides is a word cut in two.
fn split_words(ws: &mut Ws, selector: &str) -> Value {
    let js = format!(
        r#"JSON.stringify((() => {{
  const out = [];
  for (const e of document.querySelectorAll({selector:?})) {{
    const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let t = walk.nextNode(); t; t = walk.nextNode()) {{
      const s = t.data, range = document.createRange();
      let top = null;
      for (let i = 0; i < s.length; i++) {{
        range.setStart(t, i); range.setEnd(t, i + 1);
        const rect = [...range.getClientRects()].find(x => x.width > 0);
        if (!rect) continue;
        const y = Math.round(rect.top);
        if (top !== null && y > top && /[\p{{L}}\p{{N}}]/u.test(s[i - 1] || '') && /[\p{{L}}\p{{N}}]/u.test(s[i])) {{
          out.push(s.slice(Math.max(0, i - 12), i) + '|' + s.slice(i, i + 12));
        }}
        top = y;
      }}
    }}
  }}
  return out;
}})())"#
    );
    ws.eval_json(&js)
}

// ---- a browser per test, one test at a time (the machine is small) ----

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Desktop and phone widths of the screenshots and layout checks.
const WIDE: u32 = 1280;
const NARROW: u32 = 420;

struct Browser {
    ws: Ws,
    name: &'static str,
    tmp: PathBuf,
    started: Instant,
    servers: Vec<Kill>,
    _chrome: Kill,
}

/// Starts headless Chromium for the test `name`, or says SKIPPED and returns `None`.
fn browser(name: &'static str) -> Option<Browser> {
    let Some(chrome) = chromium() else {
        visible(&format!(
            "SKIPPED: browser test {name}: no /usr/bin/chromium (run .ci/browser-setup or set TOOLSTREAM_CHROMIUM)"
        ));
        return None;
    };
    let started = Instant::now();
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("browser-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let profile = tmp.join("profile");
    let chrome = Kill(
        Command::new(&chrome)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1280,900",
                "--remote-debugging-port=0",
                // DNS rebinding, simulated: a name of another site resolving to 127.0.0.1.
                "--host-resolver-rules=MAP rebind.attacker.test 127.0.0.1",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let port_file = profile.join("DevToolsActivePort");
    let deadline = Instant::now() + Duration::from_secs(30);
    let port = loop {
        if let Ok(s) = std::fs::read_to_string(&port_file)
            && let Some(p) = s.lines().next().filter(|p| !p.is_empty())
        {
            break p.to_owned();
        }
        assert!(Instant::now() < deadline, "Chromium did not open DevTools");
        std::thread::sleep(Duration::from_millis(50));
    };
    let devtools = format!("127.0.0.1:{port}");
    let targets: Value = serde_json::from_str(&http_get(&devtools, "/json/list")).unwrap();
    let page = targets
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "page")
        .expect("a page target");
    let mut ws = Ws::connect(page["webSocketDebuggerUrl"].as_str().unwrap());
    // Console messages and exceptions arrive as events from here on.
    ws.call("Runtime.enable", json!({}));
    ws.call("Log.enable", json!({}));
    Some(Browser {
        ws,
        name,
        tmp,
        started,
        servers: Vec::new(),
        _chrome: chrome,
    })
}

impl Browser {
    /// Writes `body` to a file and starts `toolstream serve` on it; returns the page's URL.
    fn serve(&mut self, file: &str, body: &[u8], format: &str, speed: f64) -> String {
        self.serve_with(
            file,
            body,
            &["--format", format, "--speed", &speed.to_string()],
        )
    }

    /// The same with the options `args`.
    fn serve_with(&mut self, file: &str, body: &[u8], args: &[&str]) -> String {
        let path = self.tmp.join(file);
        std::fs::write(&path, body).unwrap();
        let mut server = Kill(
            Command::new(env!("CARGO_BIN_EXE_toolstream"))
                .args(["serve", path.to_str().unwrap()])
                .args(args)
                .args(["--port", "0"])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let mut line = String::new();
        BufReader::new(server.0.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        self.servers.push(server);
        line.split_whitespace()
            .find(|w| w.starts_with("http://"))
            .expect("serve prints its URL")
            .to_owned()
    }

    /// Sets the viewport: a phone (touch, device width) below 600 px, a desktop above.
    fn width(&mut self, width: u32) {
        self.ws.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": if width < 600 { 860 } else { 900 },
                   "deviceScaleFactor": 1, "mobile": width < 600}),
        );
    }

    /// Opens `url` at `width` and polls the page until the replay is done, handing each
    /// snapshot to `each`; returns the last. The first time `each` says so, the viewport
    /// is saved as `target/browser/<test>-streaming-<width>.png` (the page mid-replay).
    fn watch(&mut self, url: &str, width: u32, mut each: impl FnMut(&Value) -> bool) -> Value {
        self.width(width);
        self.ws.call("Page.navigate", json!({"url": url}));
        let deadline = Instant::now() + Duration::from_secs(40);
        let mut shot = false;
        loop {
            let mut snap = self.ws.eval_json(&SNAPSHOT.replace("FULL", "false"));
            if snap["url"] != url {
                snap = Value::Null; // still the page before
            }
            if !snap.is_null() && each(&snap) && !shot {
                shot = true;
                self.png(&format!("{}-streaming-{width}.png", self.name));
            }
            if snap["state"] == "done" {
                return self.snapshot();
            }
            assert!(Instant::now() < deadline, "replay never finished: {snap}");
            std::thread::sleep(Duration::from_millis(15));
        }
    }

    /// Opens `url` and waits (in the page) until the replay is done; returns the snapshot.
    fn replay(&mut self, url: &str) -> Value {
        self.ws.call("Page.navigate", json!({"url": url}));
        let wait = format!(
            "new Promise(done => {{ const check = () => location.href === {url:?} \
             && document.body && document.body.dataset.state === 'done' \
             ? done(true) : setTimeout(check, 5); check(); }})"
        );
        let r = self.ws.call(
            "Runtime.evaluate",
            json!({"expression": wait, "awaitPromise": true, "returnByValue": true}),
        );
        assert_eq!(r["result"]["value"], true, "{url}: {r}");
        self.snapshot()
    }

    /// What the page shows now, laid out.
    fn snapshot(&mut self) -> Value {
        self.ws.eval_json(&SNAPSHOT.replace("FULL", "true"))
    }

    /// Checks the layout at `width` (no horizontal overflow; at a phone's width the header
    /// wraps and the progress bar spans it; on a desktop one header row) and saves a
    /// full-page screenshot `target/browser/<test>-<width>.png`.
    fn check_and_shoot(&mut self, width: u32) -> PathBuf {
        self.width(width);
        let l = self.ws.eval_json(LAYOUT);
        let w = l["innerWidth"].as_f64().unwrap();
        assert_eq!(w, f64::from(width), "viewport: {l}");
        assert!(
            l["scrollWidth"].as_f64().unwrap() <= w,
            "{}: horizontal overflow at {width} px: {l}",
            self.name
        );
        assert_eq!(
            l["outside"],
            json!([]),
            "elements past the edge at {width} px: {l}"
        );
        assert_eq!(
            l["wordBreak"],
            json!([]),
            "word-break other than normal: {l}"
        );
        for h in l["header"].as_array().unwrap() {
            assert!(
                h["right"].as_f64().unwrap() <= w + 0.5 && h["left"].as_f64().unwrap() >= 0.0,
                "header item outside at {width} px: {l}"
            );
        }
        let bar = &l["bar"];
        assert_eq!(
            bar["visible"], true,
            "progress bar hidden at {width} px: {l}"
        );
        assert!(bar["height"].as_f64().unwrap() >= 4.0, "progress bar: {l}");
        if width < 600 {
            assert!(
                bar["top"].as_f64().unwrap() >= l["titleBottom"].as_f64().unwrap(),
                "the header should wrap at {width} px: {l}"
            );
            assert!(
                bar["width"].as_f64().unwrap() >= 0.8 * w,
                "the progress bar should span the phone's width: {l}"
            );
        } else {
            assert!(
                bar["top"].as_f64().unwrap() < l["titleBottom"].as_f64().unwrap(),
                "the header should be one row at {width} px: {l}"
            );
            assert!(bar["width"].as_f64().unwrap() >= 120.0, "progress bar: {l}");
        }
        // The whole page in one viewport, from the top (a full-page capture of a scrolled
        // page with a sticky header and scroll boxes paints them wrongly).
        let height = self
            .ws
            .eval("window.scrollTo(0, 0), document.documentElement.scrollHeight")
            .as_u64()
            .unwrap()
            .clamp(600, 8000);
        self.ws.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}),
        );
        self.png(&format!("{}-{width}.png", self.name))
    }

    /// Saves the viewport as `target/browser/<file>`.
    fn png(&mut self, file: &str) -> PathBuf {
        let shot = self
            .ws
            .call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64_decode(shot["data"].as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
        assert!(png.len() > 10_000, "screenshot suspiciously small");
        let path = out_dir().join(file);
        std::fs::write(&path, &png).unwrap();
        path
    }

    /// Fails on any console error or uncaught exception the page reported; prints the
    /// test's line; removes the scratch files.
    fn done(mut self, shots: &[PathBuf]) {
        // A round trip, so events sent before it are in.
        self.ws.eval("1");
        assert!(
            self.ws.problems.is_empty(),
            "{}: the page reported errors: {:#?}",
            self.name,
            self.ws.problems
        );
        let html = self.ws.eval("document.documentElement.outerHTML");
        std::fs::write(
            out_dir().join(format!("{}.html", self.name)),
            html.as_str().unwrap_or_default(),
        )
        .unwrap();
        visible(&format!(
            "browser test {}: passed in headless Chromium in {:.1} s; screenshots {}",
            self.name,
            self.started.elapsed().as_secs_f64(),
            shots
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

/// `target/browser/`: the screenshots and the pages' HTML, for people to look at.
fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Checks the page at both widths and saves the screenshots.
fn shoot_both(b: &mut Browser) -> Vec<PathBuf> {
    vec![b.check_and_shoot(WIDE), b.check_and_shoot(NARROW)]
}

impl Browser {
    /// The end of a test: the page at both widths, then [`Browser::done`].
    fn finish(mut self) {
        let shots = shoot_both(&mut self);
        self.done(&shots);
    }
}

fn lock() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn parse(format: Format, body: &[u8]) -> Vec<Event> {
    common::run_whole(&|| Parser::new(format), body)
}

fn parse_with(format: Format, config: ParserConfig, body: &[u8]) -> Vec<Event> {
    common::run_whole(&|| Parser::with_config(format, config.clone()), body)
}

/// The page's node for JSON Pointer `path` in a call's card.
fn node<'a>(call: &'a Value, path: &str) -> &'a Value {
    call["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("no node {path:?} in the card: {call}"))
}

/// The keys of a card's top-level nodes, in page order.
fn top_level_keys(call: &Value) -> Vec<String> {
    call["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .filter(|p| p.len() > 1 && !p[1..].contains('/'))
        .map(|p| p[1..].replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// Every value of `arguments` is in the card at its JSON Pointer: objects and arrays as
/// tree nodes of their kind, strings decoded, numbers and literals as their JSON text,
/// each typed.
fn assert_tree(call: &Value, arguments: &Value) {
    fn walk(call: &Value, v: &Value, path: &str) {
        let escape = |k: &str| k.replace('~', "~0").replace('/', "~1");
        match v {
            Value::Object(m) => {
                if !path.is_empty() {
                    assert_eq!(node(call, path)["kind"], "obj", "{path}: {call}");
                }
                for (k, v) in m {
                    walk(call, v, &format!("{path}/{}", escape(k)));
                }
            }
            Value::Array(a) => {
                if !path.is_empty() {
                    assert_eq!(node(call, path)["kind"], "arr", "{path}: {call}");
                }
                for (i, v) in a.iter().enumerate() {
                    walk(call, v, &format!("{path}/{i}"));
                }
            }
            leaf => {
                let n = node(call, path);
                assert_eq!(n["kind"], "leaf", "{path}");
                let (text, kind) = match leaf {
                    Value::String(s) => (s.clone(), "str"),
                    Value::Number(x) => (x.to_string(), "num"),
                    Value::Bool(b) => (b.to_string(), "boolean"),
                    _ => ("null".to_owned(), "null"),
                };
                assert_eq!(n["value"], text, "decoded value at {path}");
                assert_eq!(n["type"], kind, "type at {path}");
            }
        }
    }
    walk(call, arguments, "");
}

/// Clicks the first element `selector` matches.
fn click(b: &mut Browser, selector: &str) {
    let done = b.ws.eval(&format!(
        "(e => e ? (e.click(), true) : false)(document.querySelector({selector:?}))"
    ));
    assert_eq!(done, true, "nothing to click at {selector}");
}

/// A capture's bytes and a browser for the test `name`, or `None` (with a visible SKIPPED
/// line) when the captures or Chromium are absent.
fn with_capture(name: &'static str, path: &str) -> Option<(Vec<u8>, Browser)> {
    let Some(dir) = common::captures_dir() else {
        visible(&format!(
            "SKIPPED: browser test {name}: no captures (put the captures at ../shared/captures or set TOOLSTREAM_CAPTURES)"
        ));
        return None;
    };
    let body = std::fs::read(dir.join(path)).unwrap();
    Some((body, browser(name)?))
}

/// DNS rebinding: a site whose name is re-pointed at 127.0.0.1 loads its own page from the
/// server's port and reads `/events` same-origin. The server answers only its own `Host`
/// (127.0.0.1:PORT / localhost:PORT), so that page gets a refusal and never the stream's
/// arguments; under `localhost` the replay works.
#[test]
fn serve_refuses_a_page_loaded_under_another_name() {
    let _one = lock();
    let Some(mut b) = browser("rebinding") else {
        return;
    };
    let (body, args) = fixture();
    let secret = args["passengers"][0]["name"].as_str().unwrap().to_owned();
    let url = b.serve("secret.sse", body.as_bytes(), "anthropic", 0.0);
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches('/')
        .to_owned();
    let attacker = format!("http://rebind.attacker.test:{port}/");
    b.ws.call("Page.navigate", json!({"url": attacker}));
    let read = r#"new Promise(done => { const go = () => {
        if (location.href !== URL || document.readyState !== 'complete') return setTimeout(go, 10);
        fetch('/events').then(r => r.text().then(t => done(JSON.stringify(
            {page: document.body ? document.body.innerText : '', status: r.status, events: t}))),
          e => done(JSON.stringify({page: document.body ? document.body.innerText : '', error: String(e)})));
      }; go(); })"#
        .replace("URL", &format!("{attacker:?}"));
    let r = b.ws.call(
        "Runtime.evaluate",
        json!({"expression": read, "awaitPromise": true, "returnByValue": true}),
    );
    let seen: Value =
        serde_json::from_str(r["result"]["value"].as_str().expect("a result")).unwrap();
    assert!(
        seen["page"].as_str().unwrap().contains("answers only"),
        "{seen}"
    );
    assert_eq!(seen["status"], 421, "{seen}");
    assert!(
        !seen.to_string().contains(&secret),
        "the stream leaked: {seen}"
    );
    // Its own names work.
    let own = format!("http://localhost:{port}/");
    let last = b.replay(&own);
    assert!(last.to_string().contains(&secret), "{last}");
    // The refused loads under the other name (the page, /events, its favicon, whenever
    // they are reported) are the console errors expected here; any other one fails.
    b.ws.eval("1");
    b.ws.problems
        .retain(|p| !p.to_string().contains("rebind.attacker.test"));
    b.done(&[]);
}

#[test]
fn serve_renders_a_call_as_it_forms_in_headless_chromium() {
    let _one = lock();
    let Some(mut b) = browser("flights") else {
        return;
    };
    let (body, args) = fixture();
    // What the parser says, for comparison.
    let events = parse(Format::Anthropic, body.as_bytes());
    assert!(events.iter().any(
        |e| matches!(e, Event::ToolCallEnd { name, arguments, .. } if name == "search_flights" && *arguments == args)
    ));

    // A slow replay (about 2 s), so the page can be watched mid-call.
    let url = b.serve("flights.sse", body.as_bytes(), "anthropic", 0.5);
    let mut seen_name_while_streaming = false;
    let mut seen_partial_fields = false;
    let last = b.watch(&url, WIDE, |snap| {
        if let Some(c) = snap["calls"].get(0)
            && c["state"] == "streaming"
        {
            assert_eq!(c["name"], "search_flights");
            assert_eq!(c["nameShown"], true);
            seen_name_while_streaming = true;
            let n = top_level_keys(c).len();
            if n > 0 && n < 5 {
                seen_partial_fields = true;
                return n >= 3;
            }
        }
        false
    });
    assert!(
        seen_name_while_streaming,
        "the call's name was never shown before its arguments completed"
    );
    assert!(
        seen_partial_fields,
        "the argument fields never showed while filling in"
    );

    // The end state: the name, every field decoded in a tree, the raw arguments on
    // demand, the text.
    let call = &last["calls"][0];
    assert_eq!(last["calls"].as_array().unwrap().len(), 1, "{last}");
    assert_eq!(call["name"], "search_flights");
    assert_eq!(call["id"], "toolu_live");
    assert_eq!(call["state"], "done");
    // In the order the arguments streamed (the fixture's text, serde_json's key order).
    let keys: Vec<String> = args.as_object().unwrap().keys().cloned().collect();
    assert_eq!(top_level_keys(call), keys);
    assert_tree(call, &args);
    assert_eq!(node(call, "/passengers/0/name")["value"], "Ada Lovelace");
    assert_eq!(node(call, "/passengers")["summary"], "[1 item]");
    assert_eq!(call["argsOpen"], false, "the raw JSON is on demand");
    let shown: Value = serde_json::from_str(call["args"].as_str().unwrap()).unwrap();
    assert_eq!(shown, args, "final arguments in the DOM");
    assert!(
        call["args"].as_str().unwrap().lines().count() > 5,
        "the raw JSON is laid out one member per line: {}",
        call["args"]
    );
    assert_eq!(last["text"], "Let me look for flights.");
    assert_eq!(last["finish"], "finish: tool_calls · 99 tokens");

    // Replay, and Replay again mid-way: the page starts over, the first replay is dropped.
    click(&mut b, "#replay");
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(b.snapshot()["state"], "streaming");
    click(&mut b, "#replay");
    let deadline = Instant::now() + Duration::from_secs(30);
    let again = loop {
        let snap = b.snapshot();
        if snap["state"] == "done" {
            break snap;
        }
        assert!(
            Instant::now() < deadline,
            "the replay never finished: {snap}"
        );
        std::thread::sleep(Duration::from_millis(30));
    };
    assert_eq!(again["calls"], last["calls"], "the same page again");
    assert_eq!(again["text"], last["text"]);
    b.finish();
}

#[test]
fn serve_fills_in_a_long_streamed_call_from_a_capture() {
    let _one = lock();
    let Some((body, mut b)) = with_capture(
        "long-call",
        "anthropic/sonnet-4-5-long-tool-input-216-deltas.sse",
    ) else {
        return;
    };
    let events = parse(Format::Anthropic, &body);
    let want = &common::calls(&events)[0];
    let summary = want.arguments["summary"].as_str().unwrap().to_owned();
    assert!(summary.len() > 1000);

    // Watched at a phone's width from the start, in about 1.3 s.
    let url = b.serve("long.sse", &body, "anthropic", 4.0);
    let mut seen_name_early = false;
    let mut partial = std::collections::BTreeSet::new();
    let last = b.watch(&url, NARROW, |snap| {
        if let Some(c) = snap["calls"].get(0)
            && c["state"] == "streaming"
        {
            assert_eq!(c["name"], want.name.as_str());
            assert_eq!(c["nameShown"], true);
            seen_name_early = true;
            if let Some(f) = c["fields"].as_array().unwrap().first() {
                let v = f["value"].as_str().unwrap();
                assert!(summary.starts_with(v), "a decoded prefix: {v:?}");
                if !v.is_empty() && v.len() < summary.len() {
                    partial.insert(v.len());
                    return v.len() > summary.len() / 3;
                }
            }
        }
        false
    });
    assert!(
        seen_name_early,
        "the name was not shown before the arguments finished"
    );
    assert!(
        partial.len() >= 3,
        "the value should fill in as it streams; seen lengths {partial:?}"
    );
    let call = &last["calls"][0];
    assert_eq!(call["state"], "done");
    assert_tree(call, &want.arguments);
    assert_eq!(node(call, "/summary")["value"], summary.as_str());
    assert!(node(call, "/summary")["lines"].as_u64().unwrap() > 10);

    // Prose wraps between words, at the phone's width and with the raw JSON opened.
    b.width(NARROW);
    click(&mut b, ".call details.raw > summary");
    assert_eq!(b.snapshot()["calls"][0]["argsOpen"], true);
    let split = split_words(&mut b.ws, ".call .v, .call pre.args");
    assert_eq!(split, json!([]), "words split across lines");
    b.finish();
}

#[test]
fn serve_shows_reasoning_in_a_labelled_block_that_folds() {
    let _one = lock();
    let Some((body, mut b)) =
        with_capture("reasoning", "anthropic/thinking-block-then-noarg-tool.sse")
    else {
        return;
    };
    let events = parse(Format::Anthropic, &body);
    let thinking = common::reasoning(&events);
    assert!(thinking.contains('\n'));

    let url = b.serve("thinking.sse", &body, "anthropic", 0.0);
    let last = b.watch(&url, WIDE, |_| false);
    let r = &last["reasoning"];
    assert_eq!(r.as_array().unwrap().len(), 1, "{last}");
    assert_eq!(r[0]["label"], "Reasoning");
    assert_eq!(r[0]["open"], true);
    assert_eq!(r[0]["shown"], true);
    assert_eq!(r[0]["body"], thinking.as_str());
    let call = &last["calls"][0];
    assert_eq!(call["name"], "fixed_version");
    assert_eq!(call["state"], "done");
    assert_eq!(call["none"], "no arguments");

    // It folds and unfolds on a click of its label.
    click(&mut b, "details.reasoning > summary");
    let folded = b.snapshot();
    assert_eq!(folded["reasoning"][0]["open"], false);
    assert_eq!(folded["reasoning"][0]["shown"], false, "folded: {folded}");
    click(&mut b, "details.reasoning > summary");
    let unfolded = b.snapshot();
    assert_eq!(unfolded["reasoning"][0]["open"], true);
    assert_eq!(unfolded["reasoning"][0]["shown"], true);
    b.finish();
}

#[test]
fn serve_shows_nested_arguments_as_a_tree() {
    let _one = lock();
    let Some((body, mut b)) = with_capture(
        "nested",
        "ollama/generate-raw-llama3.2-pythonic-nested-args-74-chunks.ndjson",
    ) else {
        return;
    };
    // Ollama's raw generate stream: the model's pythonic call is in the text, so the
    // page is told to scan it (`--content`).
    let events = common::run_whole(
        &|| {
            Parser::with_config(
                Format::Ollama,
                ParserConfig::new().content_format(Format::LlamaPythonic),
            )
        },
        &body,
    );
    let want = &common::calls(&events)[0];
    let url = b.serve_with(
        "nested.ndjson",
        &body,
        &[
            "--format",
            "ollama",
            "--content",
            "llama-pythonic",
            "--speed",
            "2",
        ],
    );
    let last = b.watch(&url, NARROW, |snap| {
        snap["calls"][0]["state"] == "streaming" && top_level_keys(&snap["calls"][0]).len() == 1
    });
    let call = &last["calls"][0];
    assert_eq!(call["name"], "book_flight");
    assert_eq!(call["state"], "done");
    assert_tree(call, &want.arguments);
    assert_eq!(node(call, "/flight")["kind"], "obj");
    assert_eq!(node(call, "/flight/passengers")["kind"], "arr");
    assert_eq!(node(call, "/flight/passengers/0/name")["value"], "John Doe");
    assert!(
        last["meta"]
            .as_str()
            .unwrap()
            .contains("--content llama-pythonic")
    );
    check_page("nested", &last, &events);
    b.finish();
}

#[test]
fn serve_keeps_up_with_a_large_value() {
    let _one = lock();
    let Some(mut b) = browser("large") else {
        return;
    };
    // 200 KB of file content in 64-character pieces, text with line breaks at its edges.
    let content: String = (0..4000)
        .map(|i| format!("line {i:05}: the quick brown fox jumps over the lazy dog\n"))
        .collect();
    let args = json!({"path": "big.txt", "content": content});
    let body = anthropic_stream(
        &["\n\nWriting ", "the file.\n", "\n"],
        ("toolu_big", "write_file"),
        &args,
        64,
    );
    let started = Instant::now();
    let url = b.serve("big.sse", body.as_bytes(), "anthropic", 0.0);
    let last = b.watch(&url, WIDE, |_| false);
    let took = started.elapsed();
    let call = &last["calls"][0];
    assert_eq!(call["state"], "done");
    assert_eq!(node(call, "/content")["value"], content.as_str());
    assert_eq!(node(call, "/content")["lines"], 4000);
    assert!(
        took < Duration::from_secs(20),
        "{} KB took {took:?}",
        body.len() / 1024
    );
    // All the text is in the page; the line breaks at its edges are not drawn.
    assert_eq!(last["text"], "\n\nWriting the file.\n\n");
    let drawn =
        b.ws.eval("document.querySelector('#log > .text').innerText");
    assert_eq!(drawn, "Writing the file.");
    b.finish();
}

#[test]
fn serve_says_when_the_input_gives_no_event() {
    let _one = lock();
    let Some(mut b) = browser("wrong-framing") else {
        return;
    };
    // NDJSON replayed as SSE: no SSE event in it. The page says so, or shows the error
    // event the parser gives for it.
    let (body, _) = fixture();
    let ndjson: String = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|l| format!("{l}\n"))
        .collect();
    let events = common::run_whole(
        &|| {
            Parser::with_config(
                Format::Anthropic,
                ParserConfig::new().framing(toolstream::Framing::Sse),
            )
        },
        ndjson.as_bytes(),
    );
    let url = b.serve_with(
        "wrong.ndjson",
        ndjson.as_bytes(),
        &["--format", "anthropic", "--framing", "sse", "--speed", "0"],
    );
    let last = b.watch(&url, WIDE, |_| false);
    check_page("wrong framing", &last, &events);
    if events.is_empty() {
        assert!(
            last["empty"].as_str().unwrap().contains("no event"),
            "{last}"
        );
    }
    b.finish();
}

/// Qwen-style raw model text: reasoning, text, a call whose arguments are not JSON, text,
/// a call with nested arguments and a multi-line string, and a call without a name (an
/// error that belongs to no call).
const QWEN_TEXT: &str = r##"<think>
The user wants the weather in Paris, then a note saved.
Two tools: get_weather and write_file.
</think>
Checking the weather first.
<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris", "unit": celsius}}
</tool_call>
That call was malformed; saving the note anyway.
<tool_call>
{"name": "write_file", "arguments": {"path": "notes/paris.md", "content": "# Paris\n\n- weather: unknown\n- \"bring an umbrella\"", "options": {"mode": 420, "append": false, "tags": ["travel", {"lang": "fr", "score": 0.75}], "extra": {}}}}
</tool_call>
One more, without a name:
<tool_call>
{"arguments": {"city": "Lyon"}}
</tool_call>"##;

#[test]
fn serve_shows_a_malformed_call_with_its_raw_text() {
    let _one = lock();
    let Some(mut b) = browser("malformed") else {
        return;
    };
    let events = parse(Format::Hermes, QWEN_TEXT.as_bytes());
    let error = events
        .iter()
        .find(|e| matches!(e, Event::Error { index: Some(0), .. }))
        .expect("the first call fails");
    let error = serde_json::to_value(error).unwrap();
    let want = &common::calls(&events)[0];
    assert_eq!(want.name, "write_file");

    let url = b.serve("qwen.txt", QWEN_TEXT.as_bytes(), "hermes", 0.5);
    let last = b.watch(&url, WIDE, |_| false);
    let calls = last["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "{last}");

    // The failed call: its name, the kind, the message and the raw text it carries, shown
    // in monospace; the field that had arrived stays.
    let bad = &calls[0];
    assert_eq!(bad["name"], "get_weather");
    assert_eq!(bad["state"], "error");
    let p = &bad["problem"];
    assert_eq!(p["kind"], error["kind"]);
    assert_eq!(p["message"], error["message"]);
    assert_eq!(p["raw"], error["raw"], "the raw text, as it was received");
    assert!(error["raw"].as_str().unwrap().contains("celsius"));
    assert_eq!(p["shown"], true);
    assert!(p["font"].as_str().unwrap().contains("mono"), "{p}");
    assert_eq!(node(bad, "/city")["value"], "Paris");
    assert!(
        last["status"].as_str().unwrap().contains("2 errors"),
        "{last}"
    );

    // The error of no call: on its own, with its raw text.
    let loose = events
        .iter()
        .find(|e| matches!(e, Event::Error { index: None, .. }))
        .expect("the nameless call is an error");
    let loose = serde_json::to_value(loose).unwrap();
    let shown = &last["errors"][0];
    assert_eq!(shown["kind"], loose["kind"]);
    assert_eq!(shown["message"], loose["message"]);
    assert_eq!(shown["raw"], loose["raw"]);
    assert_eq!(shown["shown"], true);

    // The good call: a tree of decoded values; the multi-line string as lines.
    let good = &calls[1];
    assert_eq!(good["state"], "done");
    assert_tree(good, &want.arguments);
    assert_eq!(node(good, "/options/extra")["summary"], "{}");
    let content = node(good, "/content");
    let text = want.arguments["content"].as_str().unwrap();
    assert_eq!(content["rendered"], text, "rendered with its line breaks");
    assert_eq!(content["lines"], text.lines().count(), "{content}");

    assert_eq!(last["reasoning"][0]["label"], "Reasoning");
    assert_eq!(
        last["text"],
        common::text(&events).as_str(),
        "the text around the calls"
    );

    // The raw arguments on demand, one member per line, no word split.
    click(&mut b, ".call[data-index='1'] details.raw > summary");
    let snap = b.snapshot();
    let raw = snap["calls"][1]["args"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(raw).unwrap(), want.arguments);
    b.width(NARROW);
    let split = split_words(&mut b.ws, ".call .v, .call pre, .text");
    assert_eq!(split, json!([]), "words split across lines");
    let mut shots = shoot_both(&mut b);
    // And in a dark colour scheme.
    b.ws.call(
        "Emulation.setEmulatedMedia",
        json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
    );
    b.width(WIDE);
    shots.push(b.png("malformed-dark-1280.png"));
    b.done(&shots);
}

/// A Responses API stream with a free-form (custom) tool whose input is a patch, streamed
/// in 7-byte pieces.
fn free_form_fixture() -> (Vec<u8>, String) {
    let patch = "*** Begin Patch\n*** Update File: src/greet.py\n@@ def greet(name):\n-    print(\"Hello, \" + name)\n+    print(f\"Hello, {name}!\")\n*** End Patch\n";
    let item = json!({"id": "ctc_1", "type": "custom_tool_call", "status": "in_progress",
                      "call_id": "call_patch", "input": "", "name": "apply_patch"});
    let mut done = item.clone();
    done["status"] = json!("completed");
    done["input"] = json!(patch);
    let mut payloads = vec![
        json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
        json!({"type": "response.output_item.added", "item": item, "output_index": 0}),
    ];
    let chars: Vec<char> = patch.chars().collect();
    for piece in chars.chunks(7) {
        payloads.push(json!({"type": "response.custom_tool_call_input.delta",
                             "delta": piece.iter().collect::<String>(), "item_id": "ctc_1", "output_index": 0}));
    }
    payloads.push(
        json!({"type": "response.custom_tool_call_input.done", "input": patch,
                         "item_id": "ctc_1", "output_index": 0}),
    );
    payloads.push(json!({"type": "response.output_item.done", "item": done, "output_index": 0}));
    payloads.push(json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed",
                         "output": [done], "usage": {"input_tokens": 10, "output_tokens": 20, "total_tokens": 30}}}));
    (common::sse_typed(&payloads), patch.to_owned())
}

#[test]
fn serve_renders_free_form_input_as_lines() {
    let _one = lock();
    let Some(mut b) = browser("free-form") else {
        return;
    };
    let (body, patch) = free_form_fixture();
    let events = parse(Format::OpenAiResponses, &body);
    assert_eq!(common::calls(&events)[0].arguments, json!(patch));

    let url = b.serve("patch.sse", &body, "openai-responses", 0.5);
    let mut seen_name_early = false;
    let last = b.watch(&url, WIDE, |snap| {
        if let Some(c) = snap["calls"].get(0)
            && c["state"] == "streaming"
        {
            assert_eq!(c["name"], "apply_patch");
            seen_name_early = true;
        }
        false
    });
    assert!(seen_name_early);
    let call = &last["calls"][0];
    assert_eq!(call["state"], "done");
    let input = node(call, "");
    assert_eq!(input["value"], patch.as_str());
    let rendered = input["rendered"].as_str().unwrap();
    assert!(
        !rendered.contains("\\n"),
        "escaped newlines shown: {rendered:?}"
    );
    assert_eq!(rendered.trim_end(), patch.trim_end(), "rendered as lines");
    assert_eq!(input["lines"], patch.lines().count(), "{input}");
    b.finish();
}

#[test]
fn serve_shows_a_provider_error_with_its_raw_text() {
    let _one = lock();
    let Some((body, mut b)) = with_capture(
        "provider-error",
        "groq/gpt-oss-120b-tool-use-failed-error-event.sse",
    ) else {
        return;
    };
    let events = parse(Format::OpenAiChat, &body);
    let error = events
        .iter()
        .find(|e| matches!(e, Event::Error { index: None, .. }))
        .expect("Groq's tool_use_failed error");
    let error = serde_json::to_value(error).unwrap();

    let url = b.serve("groq.sse", &body, "openai-chat", 0.0);
    let last = b.watch(&url, WIDE, |_| false);
    let shown = &last["errors"][0];
    assert_eq!(shown["kind"], "provider");
    assert_eq!(shown["message"], error["message"]);
    assert_eq!(shown["raw"], error["raw"], "the provider's error body");
    assert_eq!(shown["shown"], true);
    assert_eq!(last["reasoning"][0]["label"], "Reasoning");
    assert_eq!(
        last["reasoning"][0]["body"],
        common::reasoning(&events).as_str()
    );
    b.finish();
}

/// Every recorded capture replayed through the page: no console error, every call a card
/// in the state the parser gives it (its arguments' tree, or its error's raw text), all
/// text and reasoning shown, every error shown.
#[test]
fn serve_renders_every_capture() {
    let _one = lock();
    let Some(dir) = common::captures_dir() else {
        visible(
            "SKIPPED: browser test every-capture: no captures (put the captures at ../shared/captures or set TOOLSTREAM_CAPTURES)",
        );
        return;
    };
    let table: std::collections::BTreeMap<String, Value> =
        serde_json::from_slice(&std::fs::read(dir.join("FORMATS.json")).unwrap()).unwrap();
    let formats: std::collections::BTreeSet<String> = table
        .values()
        .filter_map(|v| v["format"].as_str().map(str::to_owned))
        .collect();
    let Some(mut b) = browser("every-capture") else {
        return;
    };
    b.width(WIDE);
    let mut n = 0;
    for format in &formats {
        for cap in common::captures(format) {
            let events = common::run_whole(&common::maker(format, cap.framing), &cap.bytes);
            let url = b.serve_with(
                "capture",
                &cap.bytes,
                &[
                    "--format",
                    format,
                    "--framing",
                    &cap.framing.to_string(),
                    "--speed",
                    "0",
                ],
            );
            let last = b.replay(&url);
            drop(b.servers.pop());
            check_page(&cap.path, &last, &events);
            n += 1;
        }
    }
    assert!(n > 100, "only {n} captures");
    b.ws.eval("1");
    assert!(b.ws.problems.is_empty(), "{:#?}", b.ws.problems);
    visible(&format!(
        "browser test every-capture: {n} captures rendered in {:.1} s",
        b.started.elapsed().as_secs_f64()
    ));
}

/// The page `last` shows what the parser said in `events`.
fn check_page(path: &str, last: &Value, events: &[Event]) {
    let cards = last["calls"].as_array().unwrap();
    let indexes: std::collections::BTreeSet<usize> =
        events.iter().filter_map(Event::index).collect();
    assert_eq!(cards.len(), indexes.len(), "{path}: cards {last}");
    for e in events {
        let card = |i: &usize| {
            cards
                .iter()
                .find(|c| c["index"] == *i)
                .unwrap_or_else(|| panic!("{path}: no card {i}"))
        };
        match e {
            Event::ToolCallEnd {
                index,
                name,
                arguments,
                ..
            } => {
                let c = card(index);
                assert_eq!(c["state"], "done", "{path}");
                assert_eq!(c["name"], name.as_str(), "{path}");
                assert_tree(c, arguments);
            }
            Event::Error {
                index: Some(i),
                raw,
                ..
            } => {
                let c = card(i);
                assert_eq!(c["state"], "error", "{path}");
                assert_eq!(c["problem"]["raw"].as_str().unwrap_or(""), raw, "{path}");
            }
            _ => {}
        }
    }
    let loose = events
        .iter()
        .filter(|e| matches!(e, Event::Error { index: None, .. }))
        .count();
    assert_eq!(last["errors"].as_array().unwrap().len(), loose, "{path}");
    assert_eq!(last["text"], common::text(events).as_str(), "{path}");
    let reasoning: String = last["reasoning"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["body"].as_str().unwrap())
        .collect();
    assert_eq!(reasoning, common::reasoning(events), "{path}");
    assert_eq!(last["empty"].is_null(), !events.is_empty(), "{path}");
}

// ---- the proxy's /live page ----

/// A fake OpenAI-compatible upstream on 127.0.0.1 (a thread): every request is answered
/// with a stream that leaks `text` into `content`, `piece` characters per chunk, `gap` apart.
fn leaking_upstream(text: &'static str, piece: usize, gap: Duration) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            std::thread::spawn(move || {
                // The request: its head, then Content-Length bytes of body.
                let mut reader = BufReader::new(conn.try_clone().unwrap());
                let mut len = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    if line.trim().is_empty() {
                        break;
                    }
                    if let Some((k, v)) = line.split_once(':')
                        && k.eq_ignore_ascii_case("content-length")
                    {
                        len = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0u8; len];
                let _ = reader.read_exact(&mut body);
                let chunk = |delta: Value, finish: Value| {
                    let c = json!({"id": "chatcmpl-live", "object": "chat.completion.chunk",
                        "created": 1, "model": "live-model",
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
                    format!("data: {c}\n\n")
                };
                let mut out = String::from(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
                );
                out.push_str(&chunk(
                    json!({"role": "assistant", "content": ""}),
                    Value::Null,
                ));
                if conn.write_all(out.as_bytes()).is_err() {
                    return;
                }
                let chars: Vec<char> = text.chars().collect();
                for p in chars.chunks(piece) {
                    let s: String = p.iter().collect();
                    if conn
                        .write_all(chunk(json!({"content": s}), Value::Null).as_bytes())
                        .is_err()
                    {
                        return;
                    }
                    std::thread::sleep(gap);
                }
                let end = chunk(json!({}), json!("stop")) + "data: [DONE]\n\n";
                let _ = conn.write_all(end.as_bytes());
            });
        }
    });
    format!("http://{addr}/v1")
}

impl Browser {
    /// Starts `toolstream proxy --content hermes` with `flags` in front of `upstream`; its
    /// address.
    fn proxy(&mut self, upstream: &str, flags: &[&str]) -> String {
        let mut server = Kill(
            Command::new(env!("CARGO_BIN_EXE_toolstream"))
                .args(["proxy", "--listen", "127.0.0.1:0", "--content", "hermes"])
                .args(["--upstream", upstream])
                .args(flags)
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let mut line = String::new();
        BufReader::new(server.0.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        self.servers.push(server);
        line.trim()
            .strip_prefix("toolstream proxy: listening on http://")
            .and_then(|a| a.strip_suffix("/v1"))
            .unwrap_or_else(|| panic!("{line}"))
            .to_owned()
    }
}

/// A streamed chat request through the proxy at `addr`, in a thread; its reply body.
fn chat_through(addr: &str, tools: Value) -> std::thread::JoinHandle<String> {
    let addr = addr.to_owned();
    std::thread::spawn(move || {
        let body = json!({"model": "live-model", "stream": true,
            "messages": [{"role": "user", "content": "weather?"}], "tools": tools})
        .to_string();
        let mut s = TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "POST /v1/chat/completions HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        s.read_to_string(&mut reply).unwrap();
        reply
    })
}

/// `toolstream proxy`'s `/live` in headless Chromium, while a client's streamed request
/// goes through it: the stream appears, its call's name shows before the arguments are
/// done; Pause freezes the view while events keep arriving (the event log counts them),
/// Step applies one event, Resume catches up; the card's copy button puts the call's
/// arguments on the clipboard; the page under another name is refused.
#[test]
fn proxy_live_page_shows_a_stream_as_it_forms() {
    let _one = lock();
    let Some(mut b) = browser("proxy-live") else {
        return;
    };
    let note = "Bring an umbrella if the forecast shows rain after noon; the city is large, so \
                check each arrondissement separately and report the warmest one.";
    let text: &'static str = Box::leak(
        format!(
            "Let me check.\n<tool_call>\n{}\n</tool_call>",
            json!({"name": "get_weather", "arguments": {"city": "Paris", "note": note, "days": 3}})
        )
        .into_boxed_str(),
    );
    let upstream = leaking_upstream(text, 4, Duration::from_millis(40));
    let addr = b.proxy(&upstream, &[]);
    let tools = json!([{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"},
        "note": {"type": "string"}, "days": {"type": "integer"}}}}}]);

    // Refused under another name (DNS rebinding), as serve's page is.
    let port = addr.rsplit(':').next().unwrap().to_owned();
    let (status, _) = {
        let mut s = TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "GET /live HTTP/1.1\r\nHost: rebind.attacker.test:{port}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut r = String::new();
        s.read_to_string(&mut r).unwrap();
        (r.split_whitespace().nth(1).unwrap().to_owned(), r)
    };
    assert_eq!(status, "421");

    let url = format!("http://{addr}/live");
    b.width(WIDE);
    b.ws.call("Page.navigate", json!({"url": url}));
    let wait_for = |b: &mut Browser, what: &str, f: &dyn Fn(&Value) -> bool| -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let snap = b.ws.eval_json(&SNAPSHOT.replace("FULL", "false"));
            if !snap.is_null() && snap["url"] == url && f(&snap) {
                return snap;
            }
            assert!(Instant::now() < deadline, "never {what}: {snap}");
            std::thread::sleep(Duration::from_millis(15));
        }
    };
    wait_for(&mut b, "connected", &|s| s["state"] == "live");

    // A client's request: the page shows the call's name while its arguments stream.
    let client = chat_through(&addr, tools.clone());
    let named = wait_for(&mut b, "the name while streaming", &|s| {
        s["calls"].get(0).is_some_and(|c| c["state"] == "streaming")
    });
    let call = &named["calls"][0];
    assert_eq!(call["name"], "get_weather");
    assert_eq!(call["nameShown"], true);
    assert!(
        !call["args"].as_str().unwrap().contains("\"days\""),
        "the arguments were not done yet: {call}"
    );
    assert_eq!(call["argsOpen"], true, "the arguments show as they stream");
    b.png("proxy-live-streaming-1280.png");

    // Pause: the view stands still while the feed goes on.
    click(&mut b, "#pause");
    let count = |b: &mut Browser| -> u64 {
        let t =
            b.ws.eval("document.getElementById('eventlog-count').textContent");
        t.as_str()
            .unwrap()
            .trim_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .unwrap()
    };
    let frozen = b.snapshot();
    let received = count(&mut b);
    std::thread::sleep(Duration::from_millis(600));
    let later = b.snapshot();
    assert_eq!(later["calls"], frozen["calls"], "paused, the view changed");
    assert_eq!(later["text"], frozen["text"]);
    assert!(
        count(&mut b) > received,
        "the events should keep arriving while paused"
    );
    assert!(
        later["status"].as_str().unwrap().contains("paused"),
        "{later}"
    );
    // Step: one event more, the log shows which ones wait.
    click(&mut b, "#eventlog > summary");
    // Events shown: the log's rows that are not dimmed (read at once, as more arrive).
    let shown = |b: &mut Browser| -> (u64, u64) {
        let v = b.ws.eval_json(
            "JSON.stringify([document.querySelectorAll('#eventlog-rows tr').length, \
             document.querySelectorAll('#eventlog-rows tr.pending').length])",
        );
        let (all, pending) = (v[0].as_u64().unwrap(), v[1].as_u64().unwrap());
        (all - pending, pending)
    };
    let (before, waiting) = shown(&mut b);
    assert!(waiting > 0, "events should wait while paused");
    click(&mut b, "#step");
    assert_eq!(shown(&mut b).0, before + 1, "Step applies one event");
    let stepped = b.snapshot();
    assert_ne!(
        stepped["calls"], frozen["calls"],
        "the step showed nothing new"
    );

    // Resume: the view catches up, the call completes, the client got the same call.
    click(&mut b, "#pause");
    let reply = client.join().unwrap();
    assert!(reply.contains(r#""name":"get_weather""#), "{reply}");
    let done = wait_for(&mut b, "the call done", &|s| {
        s["calls"].get(0).is_some_and(|c| c["state"] == "done") && s["finish"].is_string()
    });
    let args = json!({"city": "Paris", "note": note, "days": 3});
    assert_tree(&done["calls"][0], &args);
    assert_eq!(done["text"], "Let me check.\n");
    assert_eq!(done["finish"], "finish: tool_calls");
    let timing =
        b.ws.eval("document.querySelector('.call .timing').textContent");
    let timing = timing.as_str().unwrap();
    assert!(
        timing.starts_with("name at ") && timing.contains(" · done at "),
        "{timing}"
    );

    // Copy: the call's arguments, as the client was sent them, on the clipboard.
    b.ws.call(
        "Browser.grantPermissions",
        json!({"origin": format!("http://{addr}"),
               "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
    );
    b.ws.call("Page.bringToFront", json!({}));
    b.ws.call(
        "Emulation.setFocusEmulationEnabled",
        json!({"enabled": true}),
    );
    b.ws.call(
        "Runtime.evaluate",
        json!({"expression": "document.querySelector('.call button.copy').click()", "userGesture": true}),
    );
    let read = b.ws.call(
        "Runtime.evaluate",
        json!({"expression": "new Promise(r => setTimeout(r, 100)).then(() => navigator.clipboard.readText())",
               "awaitPromise": true, "userGesture": true, "returnByValue": true}),
    );
    let copied: Value = serde_json::from_str(read["result"]["value"].as_str().unwrap()).unwrap();
    assert_eq!(copied, args);
    let said =
        b.ws.eval("document.querySelector('.call button.copy').textContent");
    assert_eq!(said, "Copied");
    b.finish();
}

/// `toolstream proxy --validate`'s `/live`: a call whose arguments break the request's
/// schema mid-argument (a value outside an enum) is refused, and the page marks that call's
/// card with what broke: the keyword, the JSON Pointer, the byte of the call's text it
/// broke at (the raw text ends there, that byte highlighted), not only the refusal's
/// generic error line.
#[test]
fn proxy_live_page_marks_a_call_that_broke_its_schema_on_its_card() {
    let _one = lock();
    let Some(mut b) = browser("proxy-live-violation") else {
        return;
    };
    let call = r#"<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris", "unit": "kelvin", "days": 3}}
</tool_call>"#;
    let text: &'static str =
        Box::leak(format!("Let me check.\n{call}{}", " More text.".repeat(40)).into_boxed_str());
    let upstream = leaking_upstream(text, 4, Duration::from_millis(10));
    let addr = b.proxy(&upstream, &["--validate"]);
    let tools = json!([{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"},
        "unit": {"enum": ["celsius", "fahrenheit"]}, "days": {"type": "integer"}}}}}]);
    // What the parser says of the call: the error the card must show.
    let tools_set = toolstream::Tools::from_value(&json!({ "tools": tools })).unwrap();
    let events = common::run_whole(
        &|| {
            Parser::with_config(
                Format::Hermes,
                ParserConfig::new()
                    .tools(tools_set.clone())
                    .validate_arguments(true),
            )
        },
        text.as_bytes(),
    );
    let Some(Event::Error {
        raw,
        message,
        path: Some(path),
        ..
    }) = events
        .iter()
        .find(|e| matches!(e, Event::Error { index: Some(0), .. }))
    else {
        panic!("no schema violation in {events:?}")
    };
    assert_eq!(path, "/unit");
    assert!(raw.ends_with("\"unit\": \"k"), "{raw}");
    assert!(message.contains("enum"), "{message}");

    let url = format!("http://{addr}/live");
    b.width(WIDE);
    b.ws.call("Page.navigate", json!({"url": url}));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let snap = b.ws.eval_json(&SNAPSHOT.replace("FULL", "false"));
        if !snap.is_null() && snap["url"] == url && snap["state"] == "live" {
            break;
        }
        assert!(Instant::now() < deadline, "never connected: {snap}");
        std::thread::sleep(Duration::from_millis(15));
    }
    let reply = chat_through(&addr, tools).join().unwrap();
    assert!(reply.contains("schema_violation"), "{reply}");
    assert!(
        !reply.contains("More text"),
        "the upstream was not cut: {reply}"
    );
    let snap = loop {
        let snap = b.ws.eval_json(&SNAPSHOT.replace("FULL", "false"));
        if snap["calls"].get(0).is_some_and(|c| c["state"] == "error") && snap["finish"].is_string()
        {
            break b.snapshot();
        }
        assert!(
            Instant::now() < deadline,
            "the call never showed its error: {snap}"
        );
        std::thread::sleep(Duration::from_millis(15));
    };
    let card = &snap["calls"][0];
    assert_eq!(card["name"], "get_weather");
    let p = &card["problem"];
    assert_eq!(p["kind"], "schema_violation");
    assert_eq!(p["message"], message.as_str());
    let at = raw.len();
    assert_eq!(
        p["broke"],
        format!("enum at /unit · broke at byte {at} of the call's text"),
        "{card}"
    );
    assert_eq!(p["brokeShown"], true);
    assert_eq!(
        p["raw"],
        raw.as_str(),
        "the call's text up to the byte it broke at"
    );
    assert_eq!(p["mark"], "k", "the byte it broke at, highlighted");
    // The arguments as they streamed, up to the break.
    assert_eq!(card["args"], r#"{"city": "Paris", "unit": ""#, "{card}");
    let state =
        b.ws.eval("document.querySelector('.call .state').textContent");
    assert_eq!(state, "✗ stopped: breaks its schema");
    // The refusal itself, on its own line, as before.
    assert!(
        snap["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("broke while its arguments streamed"),
        "{snap}"
    );
    // The event log names the path too.
    click(&mut b, "#eventlog > summary");
    let logged = b.ws.eval(
        "[...document.querySelectorAll('#eventlog-rows td')].map(t => t.textContent).join('\\n')",
    );
    assert!(
        logged.as_str().unwrap().contains("[0] schema_violation: ")
            && logged.as_str().unwrap().contains(" at \"/unit\""),
        "{logged}"
    );
    b.finish();
}

/// `toolstream serve --validate` (the README's sample and tools file): the call stopped at
/// an undeclared key shows on its card what broke (`additionalProperties`, at the arguments
/// themselves), the byte it broke at (the end of its raw text, marked), and the field that
/// had arrived.
#[test]
fn serve_marks_a_call_stopped_mid_argument_on_its_card() {
    let _one = lock();
    let Some(mut b) = browser("serve-violation") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sample = std::fs::read(root.join("samples/hermes.txt")).unwrap();
    let tools_file = root.join("samples/tools/weather.json");
    let tools =
        toolstream::Tools::from_json(&std::fs::read_to_string(&tools_file).unwrap()).unwrap();
    let events = parse_with(
        Format::Hermes,
        ParserConfig::new().tools(tools).validate_arguments(true),
        &sample,
    );
    let Some(Event::Error { raw, message, .. }) = events
        .iter()
        .find(|e| matches!(e, Event::Error { index: Some(0), .. }))
    else {
        panic!("no violation in {events:?}")
    };
    let url = b.serve_with(
        "hermes.txt",
        &sample,
        &[
            "--format",
            "hermes",
            "--speed",
            "0",
            "--validate",
            "--tools",
            tools_file.to_str().unwrap(),
        ],
    );
    let last = b.watch(&url, WIDE, |_| false);
    let card = &last["calls"][0];
    assert_eq!(card["state"], "error", "{last}");
    let p = &card["problem"];
    assert_eq!(p["kind"], "schema_violation");
    assert_eq!(p["message"], message.as_str());
    assert_eq!(
        p["broke"],
        format!(
            "additionalProperties at the arguments themselves · broke at byte {} of the call's text",
            raw.len()
        )
    );
    assert_eq!(p["raw"], raw.as_str());
    assert_eq!(p["mark"], "d");
    assert_eq!(node(card, "/city")["value"], "Paris");
    b.finish();
}

/// `serve`'s page with the controls it shares with the proxy's: Pause freezes a slow
/// replay, Step applies one event, and the speed control replays at once from the start
/// (`/events?speed=0`), ending with the same page as a whole replay.
#[test]
fn serve_pauses_steps_and_changes_speed() {
    let _one = lock();
    let Some(mut b) = browser("serve-controls") else {
        return;
    };
    let (body, args) = fixture();
    // About 10 s at this speed: the test changes it long before.
    let url = b.serve("slow.sse", body.as_bytes(), "anthropic", 0.1);
    b.width(WIDE);
    b.ws.call("Page.navigate", json!({"url": url}));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let snap = b.snapshot();
        if snap["url"] == url && snap["calls"].get(0).is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "no call yet: {snap}");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(b.ws.eval("document.getElementById('speed').value"), "0.1");
    click(&mut b, "#pause");
    let frozen = b.snapshot();
    std::thread::sleep(Duration::from_millis(700));
    let later = b.snapshot();
    assert_eq!(later["calls"], frozen["calls"], "paused, the view changed");
    assert_eq!(later["state"], "paused");
    click(&mut b, "#step");
    let stepped = b.snapshot();
    assert_ne!(stepped["calls"], frozen["calls"], "Step showed nothing new");
    click(&mut b, "#pause");
    // Instant: the replay starts over and ends at once.
    let started = Instant::now();
    b.ws.eval(
        "(s => { s.value = '0'; s.dispatchEvent(new Event('change')); })(document.getElementById('speed'))",
    );
    let last = loop {
        let snap = b.snapshot();
        if snap["state"] == "done" {
            break snap;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the instant replay did not end: {snap}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let call = &last["calls"][0];
    assert_eq!(call["state"], "done");
    assert_tree(call, &args);
    assert_eq!(last["text"], "Let me look for flights.");
    b.finish();
}
