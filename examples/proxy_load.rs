//! Load measurement of `toolstream proxy` over loopback (issue 21), not a test:
//!
//! ```sh
//! cargo build --release --bin toolstream --example proxy_load
//! target/release/examples/proxy_load target/release/toolstream [STREAMS [ROUNDS [LIVE]]] \
//!     [--only PHASE,...] [--apart S:M:GAP] [--routes ROUTE,...] [--upstream-port PORT] \
//!     [--litellm PID@BASE]
//! ```
//!
//! `--only` runs the named phases only (`held`, `latency`, `throughput`, `apart`; default:
//! all four); `--apart S:M:GAP` sets phase 4's streams, chunks per stream and gap in ms
//! (default `200:200:5`); `--routes ROUTE,...` runs phase 4 on the named routes only
//! (`direct`, `pass-through`, `parsed`, `messages`, `responses`, `litellm`; default: all).
//! `benches/proxy_relay.sh` runs phase 4 alone, several times. `--upstream-port PORT` binds
//! the fake upstream to that port (default: any), so that another proxy can be pointed at
//! it before the run; `--litellm PID@BASE` adds the route `litellm` to phase 4: Anthropic
//! Messages requests to `BASE/messages` (e.g. `http://127.0.0.1:4000/v1`) of another proxy
//! (LiteLLM's) in front of the same fake upstream, whose CPU (process PID) is measured.
//!
//! LIVE says what `/live` does meanwhile: `closed` (the default: the proxy records every
//! stream, nobody watches), `open` (a watcher reads `/live/events` from the start to the end
//! of the run, as an open page does; the bytes it read are printed) or `off` (the proxy
//! runs with `--live-recent 0`: no recording at all).
//!
//! Starts the given `toolstream` binary as `proxy --content hermes` in front of a fake
//! upstream of its own (127.0.0.1, OpenAI chunks leaking plain text into `content`), then:
//!
//! 1. **Held streams**: opens STREAMS (default 1,000) streamed chat completions at once;
//!    each upstream reply sends one chunk and waits. With every stream's first chunk at
//!    the client, reads the proxy's resident memory (`/proc/PID/status` `VmRSS`); then
//!    releases the replies, reads them to the end, and reads the memory again; ROUNDS
//!    rounds (default 3: growth after the load).
//! 2. **Added latency per chunk**: 50 streams × 200 chunks, 5 ms apart; each chunk carries
//!    the time the upstream wrote it, the client notes when it arrives. Once through the
//!    proxy's parsed route (`/v1/chat/completions`) and once through its plain
//!    pass-through (`/v1/completions`, the same bytes unparsed): p50 / p99 of each.
//! 3. **CPU per streamed MB**: 20 streams × 5,000 chunks with no pauses through the parsed
//!    route; the proxy's user + system CPU time (`/proc/PID/stat`) per MB the upstream
//!    wrote.
//!
//! 4. **CPU per chunk, chunks apart** (issue 29): S streams × M chunks, GAP ms apart (as a
//!    model streams tokens: each chunk arrives alone, so each costs the proxy a wake-up),
//!    the streams' starts spread over one gap. Once per route: straight to the fake upstream
//!    (`direct`: no proxy; the baseline of the latencies, and the proxy's idle CPU), through
//!    the pass-through route (`/v1/completions`, the same bytes unparsed), through the
//!    parsed route (`/v1/chat/completions`) and through the two translated fronts:
//!    `messages` (Anthropic Messages, `POST /v1/messages` with `x-api-key`) and `responses`
//!    (OpenAI Responses, `POST /v1/responses`), which the proxy sends the upstream as Chat
//!    requests (the `model` carrying the plan) and re-emits as their APIs' events (the
//!    stamps read from the `text_delta` / `response.output_text.delta` events). For each: the proxy's CPU time (its threads'
//!    `/proc/PID/task/*/schedstat`, in ns; `/proc/PID/stat`'s user + system, in 10 ms
//!    ticks, beside it) and its threads' context switches
//!    (`/proc/PID/task/*/status`, voluntary + involuntary) per chunk relayed, and the
//!    chunks' latency p50 / p99 (from the upstream's write to the client's read; the added
//!    latency is a route's minus `direct`'s).
//!
//! Linux only (it reads `/proc`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::json;
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// What each upstream reply does, from the request's `model` field.
#[derive(Clone, Copy)]
enum Plan {
    /// One chunk, wait for the release, two more chunks and the end.
    Held,
    /// `n` chunks `gap` ms apart, each stamped with its write time.
    Timed { n: usize, gap: u64 },
    /// `n` chunks as fast as the socket takes them.
    Bulk { n: usize },
}

fn plan(model: &str) -> Plan {
    let mut parts = model.split(':');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("timed"), Some(n), Some(gap)) => Plan::Timed {
            n: n.parse().unwrap(),
            gap: gap.parse().unwrap(),
        },
        (Some("bulk"), Some(n), _) => Plan::Bulk {
            n: n.parse().unwrap(),
        },
        _ => Plan::Held,
    }
}

fn chunk(content: &str) -> String {
    let c = json!({"id": "chatcmpl-load", "object": "chat.completion.chunk", "created": 1,
        "model": "load", "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]});
    format!("data: {c}\n\n")
}

struct Upstream {
    addr: SocketAddr,
    release: watch::Sender<bool>,
    written: Arc<AtomicU64>,
    epoch: Instant,
}

async fn upstream(port: u16) -> Upstream {
    let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (release, rx) = watch::channel(false);
    let written = Arc::new(AtomicU64::new(0));
    let epoch = Instant::now();
    let w = Arc::clone(&written);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let rx = rx.clone();
            let w = Arc::clone(&w);
            tokio::spawn(serve(socket, rx, w, epoch));
        }
    });
    Upstream {
        addr,
        release,
        written,
        epoch,
    }
}

async fn serve(
    mut socket: TcpStream,
    mut release: watch::Receiver<bool>,
    written: Arc<AtomicU64>,
    epoch: Instant,
) {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 4096];
    let (head_end, len) = loop {
        let Ok(n) = socket.read(&mut tmp).await else {
            return;
        };
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            break (i + 4, len);
        }
    };
    while buf.len() < head_end + len {
        let Ok(n) = socket.read(&mut tmp).await else {
            return;
        };
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let request: serde_json::Value = serde_json::from_slice(&buf[head_end..]).unwrap();
    let plan = plan(request["model"].as_str().unwrap_or(""));
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let mut send = async |s: String| {
        written.fetch_add(s.len() as u64, Ordering::Relaxed);
        socket.write_all(s.as_bytes()).await.is_ok()
    };
    match plan {
        Plan::Held => {
            if !send(chunk("Hello, ")).await {
                return;
            }
            let _ = release.wait_for(|r| *r).await;
            let _ = send(chunk("world.")).await;
        }
        Plan::Timed { n, gap } => {
            for _ in 0..n {
                let stamp = epoch.elapsed().as_nanos();
                if !send(chunk(&format!("t={stamp};"))).await {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(gap)).await;
            }
        }
        Plan::Bulk { n } => {
            let text = "The quick brown fox jumps over the lazy dog, again and again. ";
            for _ in 0..n {
                if !send(chunk(text)).await {
                    return;
                }
            }
        }
    }
    let _ = send("data: [DONE]\n\n".into()).await;
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Context switches (voluntary, involuntary) of all of a process's threads alive now.
fn ctx_switches(pid: u32) -> (u64, u64) {
    let mut total = (0, 0);
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let Ok(status) = std::fs::read_to_string(task.unwrap().path().join("status")) else {
            continue;
        };
        for l in status.lines() {
            if let Some(v) = l.strip_prefix("voluntary_ctxt_switches:") {
                total.0 += v.trim().parse::<u64>().unwrap();
            } else if let Some(v) = l.strip_prefix("nonvoluntary_ctxt_switches:") {
                total.1 += v.trim().parse::<u64>().unwrap();
            }
        }
    }
    total
}

/// CPU seconds of all of a process's threads alive now, to the nanosecond
/// (`/proc/PID/task/*/schedstat`: `stat`'s ticks are 10 ms, too coarse for a few thousand
/// chunks). The proxy's threads (the runtime's workers) live as long as it does.
fn cpu_ns_seconds(pid: u32) -> f64 {
    let mut ns = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let Ok(s) = std::fs::read_to_string(task.unwrap().path().join("schedstat")) else {
            continue;
        };
        ns += s.split(' ').next().unwrap().parse::<u64>().unwrap();
    }
    ns as f64 / 1e9
}

/// User + system CPU seconds of a process.
fn cpu_seconds(pid: u32) -> f64 {
    let (user, system) = user_system(pid);
    user + system
}

/// User and system CPU seconds of a process (10 ms ticks).
fn user_system(pid: u32) -> (f64, f64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split(' ').collect();
    // Fields 14 and 15 (utime, stime) of stat(5); `after` starts at field 3.
    (
        f[11].parse::<f64>().unwrap() / 100.0,
        f[12].parse::<f64>().unwrap() / 100.0,
    )
}

fn request(model: &str) -> String {
    Api::Chat.request(model)
}

/// The API a client speaks to the proxy: its request, and the streamed events whose text
/// carries the upstream's stamps (the Responses API repeats the whole text in its `…done`
/// and `response.completed` events, which must not count again).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Api {
    /// OpenAI Chat Completions (and the pass-through's same bytes): every `data:` line is
    /// a chunk.
    Chat,
    /// Anthropic Messages: the `text_delta`s.
    Messages,
    /// OpenAI Responses: the `response.output_text.delta`s.
    Responses,
}

impl Api {
    fn request(self, model: &str) -> String {
        match self {
            Api::Chat => json!({"model": model, "stream": true,
                "messages": [{"role": "user", "content": "hi"}]}),
            Api::Messages => json!({"model": model, "max_tokens": 1024, "stream": true,
                "messages": [{"role": "user", "content": "hi"}]}),
            Api::Responses => json!({"model": model, "stream": true, "input": "hi"}),
        }
        .to_string()
    }

    /// Whether a `data:` line carries a chunk's text.
    fn carries(self, line: &str) -> bool {
        match self {
            Api::Chat => true,
            Api::Messages => line.contains("\"text_delta\""),
            Api::Responses => line.contains("\"response.output_text.delta\""),
        }
    }
}

/// Latencies (µs) of the stamped chunks of one timed stream, sent as `api`'s request.
async fn timed(
    client: reqwest::Client,
    url: String,
    api: Api,
    model: String,
    epoch: Instant,
) -> Vec<u64> {
    let mut response = client
        .post(url)
        .header("content-type", "application/json")
        .header("x-api-key", "load")
        .header("anthropic-version", "2023-06-01")
        .body(api.request(&model))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{model}");
    let mut out = Vec::new();
    let mut pending = String::new();
    while let Some(bytes) = response.chunk().await.unwrap() {
        let now = epoch.elapsed().as_nanos();
        pending.push_str(std::str::from_utf8(&bytes).unwrap());
        // Whole lines only; a `data:` line of text carries its chunks' stamps `t=NS;`.
        let Some(end) = pending.rfind('\n') else {
            continue;
        };
        for line in pending[..end].lines() {
            if !line.starts_with("data:") || !api.carries(line) {
                continue;
            }
            let mut rest = line;
            while let Some(i) = rest.find("t=") {
                let Some(j) = rest[i..].find(';') else {
                    break;
                };
                let stamp: u128 = rest[i + 2..i + j].parse().unwrap();
                out.push(((now - stamp) / 1000) as u64);
                rest = &rest[i + j + 1..];
            }
        }
        pending.drain(..=end);
    }
    out
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Opens `streams` held streams, reads the proxy's RSS with all of them open, releases
/// them and reads them to the end: (RSS KiB, time to open them all, streams complete).
async fn held_round(
    client: &reqwest::Client,
    base: &str,
    streams: usize,
    release: &watch::Sender<bool>,
    pid: u32,
) -> (u64, Duration, usize) {
    let started = Instant::now();
    let (first_tx, mut first_rx) = tokio::sync::mpsc::channel::<()>(streams);
    let mut held = Vec::new();
    for _ in 0..streams {
        let client = client.clone();
        let url = format!("{base}/chat/completions");
        let first = first_tx.clone();
        held.push(tokio::spawn(async move {
            let mut r = client
                .post(url)
                .header("content-type", "application/json")
                .body(request("held"))
                .send()
                .await
                .unwrap();
            let mut body = Vec::new();
            let mut told = false;
            while let Some(b) = r.chunk().await.unwrap() {
                body.extend_from_slice(&b);
                if !told {
                    told = true;
                    let _ = first.send(()).await;
                }
            }
            String::from_utf8(body).unwrap()
        }));
    }
    for _ in 0..streams {
        first_rx.recv().await.unwrap();
    }
    let open_after = started.elapsed();
    let loaded = rss_kib(pid);
    release.send(true).unwrap();
    let mut complete = 0;
    for h in held {
        let body = h.await.unwrap();
        if body.contains("world.") && body.trim_end().ends_with("data: [DONE]") {
            complete += 1;
        }
    }
    (loaded, open_after, complete)
}

#[tokio::main]
async fn main() {
    let mut phases = vec!["held", "latency", "throughput", "apart"];
    let mut apart = (200usize, 200usize, 5u64);
    let mut routes = vec![
        "direct",
        "pass-through",
        "parsed",
        "messages",
        "responses",
        "litellm",
    ];
    let mut upstream_port = 0u16;
    let mut litellm: Option<(u32, String)> = None;
    let mut positional = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--only" => {
                let only = args.next().expect("--only PHASE,...");
                phases.retain(|p| only.split(',').any(|o| o == *p));
            }
            "--apart" => {
                let v = args.next().expect("--apart S:M:GAP");
                let f: Vec<&str> = v.split(':').collect();
                apart = (
                    f[0].parse().unwrap(),
                    f[1].parse().unwrap(),
                    f[2].parse().unwrap(),
                );
            }
            "--upstream-port" => {
                upstream_port = args.next().expect("--upstream-port PORT").parse().unwrap();
            }
            "--litellm" => {
                let v = args.next().expect("--litellm PID@BASE");
                let (other, other_base) = v.split_once('@').expect("--litellm PID@BASE");
                litellm = Some((other.parse().unwrap(), other_base.to_owned()));
            }
            "--routes" => {
                let only = args.next().expect("--routes ROUTE,...");
                routes.retain(|r| only.split(',').any(|o| o == *r));
            }
            _ => positional.push(a),
        }
    }
    let mut args = positional.into_iter();
    let bin = args
        .next()
        .expect("usage: proxy_load PATH/TO/toolstream [STREAMS [ROUNDS [LIVE]]] [--only PHASE,...] [--apart S:M:GAP] [--routes ROUTE,...] [--upstream-port PORT] [--litellm PID@BASE]");
    let streams: usize = args.next().map_or(1000, |s| s.parse().unwrap());
    let rounds: usize = args.next().map_or(3, |s| s.parse().unwrap());
    let live = args.next().unwrap_or_else(|| "closed".into());
    assert!(
        matches!(live.as_str(), "closed" | "open" | "off"),
        "LIVE: closed, open or off"
    );
    let up = upstream(upstream_port).await;
    let mut child = Command::new(&bin)
        .args(["proxy", "--listen", "127.0.0.1:0", "--content", "hermes"])
        .args(["--live-recent", if live == "off" { "0" } else { "32" }])
        .args(["--max-connections", "100000", "--upstream"])
        .arg(format!("http://{}", up.addr))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut line = String::new();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
    // The rest of what the proxy says, read so that its writes never fail.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let base = line
        .trim()
        .strip_prefix("toolstream proxy: listening on ")
        .unwrap()
        .to_owned();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    // An open /live page: a watcher reading the feed for the whole run, connecting again
    // when the proxy tells it it fell behind (`event: lagged`), as the page does.
    let watched = Arc::new(AtomicU64::new(0));
    let reconnects = Arc::new(AtomicU64::new(0));
    let watcher = (live == "open").then(|| {
        let url = base.replace("/v1", "/live/events");
        let (watched, reconnects) = (Arc::clone(&watched), Arc::clone(&reconnects));
        let client = client.clone();
        tokio::spawn(async move {
            loop {
                let mut r = client.get(&url).send().await.unwrap();
                assert_eq!(r.status(), 200);
                while let Ok(Some(b)) = r.chunk().await {
                    watched.fetch_add(b.len() as u64, Ordering::Relaxed);
                }
                reconnects.fetch_add(1, Ordering::Relaxed);
            }
        })
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let idle = rss_kib(pid);
    println!("/live: {live}");

    // 1. Held streams, ROUNDS rounds: the later ones show whether memory grows per load.
    for round in (1..=rounds).filter(|_| phases.contains(&"held")) {
        up.release.send(false).unwrap();
        let (loaded, open_after, complete) =
            held_round(&client, &base, streams, &up.release, pid).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after = rss_kib(pid);
        println!(
            "held streams, round {round}: {streams} open at once ({complete} read to [DONE]) after {open_after:.2?}; proxy RSS idle {idle} KiB, with them {loaded} KiB ({:.1} KiB per stream), after {after} KiB",
            (loaded.saturating_sub(idle)) as f64 / streams as f64
        );
    }

    // 2. Added latency per chunk, parsed route vs pass-through of the same bytes.
    for (route, name) in [
        ("completions", "pass-through"),
        ("chat/completions", "parsed"),
    ]
    .into_iter()
    .filter(|_| phases.contains(&"latency"))
    {
        let mut tasks = Vec::new();
        for _ in 0..50 {
            tasks.push(tokio::spawn(timed(
                client.clone(),
                format!("{base}/{route}"),
                Api::Chat,
                "timed:200:5".into(),
                up.epoch,
            )));
        }
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        all.sort_unstable();
        println!(
            "latency per chunk, {name} (/v1/{route}): {} chunks, p50 {} µs, p99 {} µs",
            all.len(),
            percentile(&all, 0.5),
            percentile(&all, 0.99)
        );
    }

    // 3. CPU per streamed MB.
    if phases.contains(&"throughput") {
        throughput(&client, &base, &up, pid).await;
    }

    // 4. CPU per chunk, chunks apart.
    if phases.contains(&"apart") {
        let (s, m, gap) = apart;
        let direct = format!("http://{}/v1", up.addr);
        let mut all = vec![
            (
                format!("{direct}/chat/completions"),
                "direct",
                Api::Chat,
                pid,
            ),
            (
                format!("{base}/completions"),
                "pass-through",
                Api::Chat,
                pid,
            ),
            (format!("{base}/chat/completions"), "parsed", Api::Chat, pid),
            (format!("{base}/messages"), "messages", Api::Messages, pid),
            (
                format!("{base}/responses"),
                "responses",
                Api::Responses,
                pid,
            ),
        ];
        if let Some((other, other_base)) = &litellm {
            all.push((
                format!("{other_base}/messages"),
                "litellm",
                Api::Messages,
                *other,
            ));
        }
        for (url, name, api, pid) in all.into_iter().filter(|r| routes.contains(&r.1)) {
            chunks_apart(&client, &url, name, api, (s, m, gap), &up, pid).await;
        }
    }

    println!("proxy RSS at the end: {} KiB", rss_kib(pid));
    if let Some(w) = watcher {
        println!(
            "/live watcher read {:.1} MB of events, connected again {} times (fell behind)",
            watched.load(Ordering::Relaxed) as f64 / 1e6,
            reconnects.load(Ordering::Relaxed)
        );
        w.abort();
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Phase 4: `s` streams × `m` chunks `gap` ms apart through `url`; prints the proxy's CPU
/// and context switches per chunk and the chunks' latency.
async fn chunks_apart(
    client: &reqwest::Client,
    url: &str,
    name: &str,
    api: Api,
    (s, m, gap): (usize, usize, u64),
    up: &Upstream,
    pid: u32,
) {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (user0, sys0) = user_system(pid);
    let ns0 = cpu_ns_seconds(pid);
    let own0 = cpu_seconds(std::process::id());
    let (vol0, invol0) = ctx_switches(pid);
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..s {
        let (client, url) = (client.clone(), url.to_owned());
        let epoch = up.epoch;
        // Starts spread over one gap, as independent streams' tokens are.
        let delay = Duration::from_micros(gap * 1000 * i as u64 / s as u64);
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            timed(client, url, api, format!("timed:{m}:{gap}"), epoch).await
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let wall = t0.elapsed();
    let (user1, sys1) = user_system(pid);
    let (user, sys) = (user1 - user0, sys1 - sys0);
    let ns = cpu_ns_seconds(pid) - ns0;
    let own = cpu_seconds(std::process::id()) - own0;
    let (vol1, invol1) = ctx_switches(pid);
    all.sort_unstable();
    let n = all.len() as f64;
    println!(
        "chunks apart, {name}: {s} streams × {m} chunks {gap} ms apart, {} chunks in {wall:.2?}; proxy CPU {ns:.3} s = {:.1} µs/chunk (stat: user {:.1} + system {:.1} µs/chunk), ctx switches {:.2}+{:.2}/chunk (voluntary+involuntary); latency p50 {} µs, p99 {} µs; load generator CPU {:.1} µs/chunk",
        all.len(),
        ns * 1e6 / n,
        user * 1e6 / n,
        sys * 1e6 / n,
        (vol1 - vol0) as f64 / n,
        (invol1 - invol0) as f64 / n,
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        own * 1e6 / n,
    );
}

/// Phase 3: 20 streams × 5,000 chunks with no pauses; prints the proxy's CPU per MB.
async fn throughput(client: &reqwest::Client, base: &str, up: &Upstream, pid: u32) {
    let cpu0 = cpu_seconds(pid);
    let bytes0 = up.written.load(Ordering::Relaxed);
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let client = client.clone();
        let url = format!("{base}/chat/completions");
        tasks.push(tokio::spawn(async move {
            let mut r = client
                .post(url)
                .header("content-type", "application/json")
                .body(request("bulk:5000"))
                .send()
                .await
                .unwrap();
            let mut n = 0;
            while let Some(b) = r.chunk().await.unwrap() {
                n += b.len();
            }
            n
        }));
    }
    let mut out_bytes = 0;
    for t in tasks {
        out_bytes += t.await.unwrap();
    }
    let mb = (up.written.load(Ordering::Relaxed) - bytes0) as f64 / 1e6;
    let cpu = cpu_seconds(pid) - cpu0;
    println!(
        "throughput: {mb:.1} MB upstream ({:.1} MB to the clients) in {:.2?}; proxy CPU {cpu:.2} s, {:.1} ms per upstream MB",
        out_bytes as f64 / 1e6,
        t0.elapsed(),
        cpu * 1000.0 / mb
    );
}
