//! `toolstream serve` in a real headless Chromium (Debian's `chromium` package).
//!
//! Starts `toolstream serve` on a free port with a generated Anthropic stream, drives
//! Chromium over the DevTools protocol (a minimal WebSocket client on std::net: no
//! dependency), and watches the page while the replay runs: the call's card must show its
//! name while its arguments are still streaming, and at the end the call's name, every
//! argument field and the final arguments must be in the DOM. A screenshot is saved to
//! `target/browser/serve-live-view.png` (and the DOM beside it).
//!
//! Runs when `/usr/bin/chromium` exists (or `TOOLSTREAM_CHROMIUM` names a binary); prints a
//! visible SKIPPED line otherwise (`.ci/browser-setup` installs it).

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
use std::time::{Duration, Instant};
use toolstream::{Event, Format, Parser, merge_deltas};

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
    let mut s = String::new();
    let mut ev = |name: &str, data: Value| {
        s.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    ev(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-test", "usage": {"input_tokens": 42, "output_tokens": 1}}}),
    );
    ev(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    for w in ["Let me ", "look for ", "flights."] {
        ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}),
        );
    }
    ev(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    ev(
        "content_block_start",
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_live", "name": "search_flights", "input": {}}}),
    );
    let text = args.to_string();
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(4) {
        let p: String = piece.iter().collect();
        ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": p}}),
        );
    }
    ev(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 1}),
    );
    ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 57}}),
    );
    ev("message_stop", json!({"type": "message_stop"}));
    (s, args)
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
        Ws { stream, next_id: 0 }
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

    /// Sends a DevTools command and returns its result (events in between are skipped).
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
        }
    }

    fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        );
        r["result"]["value"].clone()
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

/// What the page shows, as JSON.
const SNAPSHOT: &str = r#"JSON.stringify({
  state: document.body.dataset.state,
  text: [...document.querySelectorAll('.text')].map(t => t.textContent).join(''),
  calls: [...document.querySelectorAll('.call')].map(c => ({
    name: c.querySelector('.name').textContent,
    state: c.dataset.state,
    fields: [...c.querySelectorAll('td.key')].map(k => k.textContent),
    args: c.querySelector('pre.args').textContent,
    final: c.querySelector('pre.args').classList.contains('final'),
  })),
})"#;

#[test]
fn serve_renders_a_call_as_it_forms_in_headless_chromium() {
    let Some(chrome) = chromium() else {
        visible(
            "SKIPPED: browser test: no /usr/bin/chromium (run .ci/browser-setup or set TOOLSTREAM_CHROMIUM)",
        );
        return;
    };
    let started = Instant::now();
    let tmp =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("browser-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (body, args) = fixture();
    let file = tmp.join("flights.sse");
    std::fs::write(&file, &body).unwrap();

    // What the parser says, for comparison.
    let mut p = Parser::new(Format::Anthropic).id_prefix("call_");
    let mut events = Vec::new();
    p.feed(body.as_bytes(), &mut events).unwrap();
    p.finish(&mut events).unwrap();
    merge_deltas(&mut events);
    assert!(events.iter().any(
        |e| matches!(e, Event::ToolCallEnd { name, arguments, .. } if name == "search_flights" && *arguments == args)
    ));

    // The server: a slow replay (about 3 s), so the page can be watched mid-call.
    let mut server = Kill(
        Command::new(env!("CARGO_BIN_EXE_toolstream"))
            .args(["serve", file.to_str().unwrap(), "--format", "anthropic"])
            .args(["--port", "0", "--speed", "0.25"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("serve prints its URL")
        .to_owned();

    // The browser, with DevTools on a free port.
    let profile = tmp.join("profile");
    let _chrome = Kill(
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
                "--window-size=1100,900",
                "--remote-debugging-port=0",
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
    ws.call("Page.navigate", json!({"url": url}));

    // Watch the replay.
    let mut seen_name_while_streaming = false;
    let mut seen_partial_fields = false;
    let deadline = Instant::now() + Duration::from_secs(60);
    let last: Value = loop {
        let snap: Value = match ws.eval(SNAPSHOT) {
            Value::String(s) => serde_json::from_str(&s).unwrap(),
            _ => Value::Null, // the page is not there yet
        };
        if let Some(c) = snap["calls"].get(0)
            && c["state"] == "streaming"
        {
            assert_eq!(c["name"], "search_flights");
            seen_name_while_streaming = true;
            let n = c["fields"].as_array().unwrap().len();
            if n > 0 && n < 5 {
                seen_partial_fields = true;
            }
        }
        if snap["state"] == "done" {
            break snap;
        }
        assert!(Instant::now() < deadline, "replay never finished: {snap}");
        std::thread::sleep(Duration::from_millis(15));
    };
    assert!(
        seen_name_while_streaming,
        "the call's name was never shown before its arguments completed"
    );
    assert!(
        seen_partial_fields,
        "the argument fields never showed while filling in"
    );

    // The end state: the name, every field, the final arguments, the text.
    let call = &last["calls"][0];
    assert_eq!(last["calls"].as_array().unwrap().len(), 1, "{last}");
    assert_eq!(call["name"], "search_flights");
    assert_eq!(call["state"], "done");
    // In the order the arguments streamed (the fixture's text, serde_json's key order).
    let keys: Vec<&String> = args.as_object().unwrap().keys().collect();
    assert_eq!(call["fields"], json!(keys));
    assert_eq!(call["final"], true);
    let shown: Value = serde_json::from_str(call["args"].as_str().unwrap()).unwrap();
    assert_eq!(shown, args, "final arguments in the DOM");
    assert_eq!(last["text"], "Let me look for flights.");

    // A screenshot and the DOM, for people.
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("browser");
    std::fs::create_dir_all(&out_dir).unwrap();
    let shot = ws.call(
        "Page.captureScreenshot",
        json!({"format": "png", "captureBeyondViewport": true}),
    );
    let png = base64_decode(shot["data"].as_str().unwrap());
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(png.len() > 10_000, "screenshot suspiciously small");
    let png_path = out_dir.join("serve-live-view.png");
    std::fs::write(&png_path, &png).unwrap();
    let html = ws.eval("document.documentElement.outerHTML");
    std::fs::write(
        out_dir.join("serve-live-view.html"),
        html.as_str().unwrap_or_default(),
    )
    .unwrap();
    visible(&format!(
        "browser test: call rendered live and complete in headless Chromium in {:.1} s; screenshot {}",
        started.elapsed().as_secs_f64(),
        png_path.display()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
}
