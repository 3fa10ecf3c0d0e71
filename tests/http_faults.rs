//! Network faults end to end, on 127.0.0.1 with a hand-written HTTP/1.1 server (chunked
//! transfer encoding, so every write is its own body chunk): a body dripped one byte at a
//! time, a connection reset in the middle of a call, and a server that stalls.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::*;
use futures::StreamExt;
use serde_json::json;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolstream::stream::{EventStream, StreamError};
use toolstream::{ErrorKind, Event, Format, merge_deltas};

/// A small openai-chat body: text, one call with arguments in pieces, finish.
fn body() -> Vec<u8> {
    let mut s = String::new();
    let mut push = |v: serde_json::Value| s.push_str(&format!("data: {v}\n\n"));
    push(json!({"choices": [{"index": 0, "delta": {"content": "Saving. "}}]}));
    push(
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_s", "function": {"name": "save", "arguments": ""}}]}}]}),
    );
    for piece in [
        "{\"path\": ",
        "\"ü.txt\", ",
        "\"text\": \"",
        "héllo wörld",
        "\"}",
    ] {
        push(
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}}]}),
        );
    }
    push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
    s.push_str("data: [DONE]\n\n");
    s.into_bytes()
}

/// What the server does after the response headers.
#[derive(Clone)]
enum Script {
    /// Each byte of the body as its own chunk.
    Drip(Vec<u8>),
    /// Send these bytes, then reset the connection (no terminating chunk).
    ResetAfter(Vec<u8>),
    /// Send the first bytes, stay silent for a while, then send the rest.
    Stall(Vec<u8>, Vec<u8>, Duration),
}

async fn chunk(tcp: &mut TcpStream, data: &[u8]) {
    let mut c = format!("{:x}\r\n", data.len()).into_bytes();
    c.extend_from_slice(data);
    c.extend_from_slice(b"\r\n");
    tcp.write_all(&c).await.unwrap();
    tcp.flush().await.unwrap();
}

/// A one-request server following `script`; returns its URL.
async fn serve(script: Script) -> (String, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/v1/chat/completions",
        listener.local_addr().unwrap()
    );
    let handle = tokio::spawn(async move {
        let (mut tcp, _) = listener.accept().await.unwrap();
        tcp.set_nodelay(true).unwrap();
        // Read the request head (the request has no body).
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = tcp.read(&mut buf).await.unwrap();
            assert!(n > 0, "client closed before sending its request");
            head.extend_from_slice(&buf[..n]);
        }
        tcp.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
        )
        .await
        .unwrap();
        match script {
            Script::Drip(body) => {
                for b in body {
                    chunk(&mut tcp, &[b]).await;
                    tokio::task::yield_now().await;
                }
                tcp.write_all(b"0\r\n\r\n").await.unwrap();
            }
            Script::ResetAfter(part) => {
                chunk(&mut tcp, &part).await;
                tokio::time::sleep(Duration::from_millis(20)).await;
                // Close with a RST, as a crashed proxy would.
                let std = tcp.into_std().unwrap();
                socket_reset(std);
            }
            Script::Stall(first, rest, pause) => {
                chunk(&mut tcp, &first).await;
                tokio::time::sleep(pause).await;
                chunk(&mut tcp, &rest).await;
                tcp.write_all(b"0\r\n\r\n").await.unwrap();
            }
        }
    });
    (url, handle)
}

/// Drops a socket with SO_LINGER 0, so the peer sees a connection reset.
fn socket_reset(s: std::net::TcpStream) {
    let s = TcpStream::from_std(s).unwrap();
    #[allow(deprecated)]
    let _ = s.set_linger(Some(Duration::ZERO));
    drop(s);
}

/// Counts the polls of the stream it wraps.
struct Counted<S> {
    inner: S,
    polls: Arc<AtomicUsize>,
}

impl<S: futures::Stream + Unpin> futures::Stream for Counted<S> {
    type Item = S::Item;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        self.polls.fetch_add(1, Ordering::SeqCst);
        Pin::new(&mut self.inner).poll_next(cx)
    }
}

fn sans_io(body: &[u8]) -> Vec<Event> {
    run_whole(&|| common::parser(Format::OpenAiChat), body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn body_dripped_one_byte_at_a_time() {
    let body = body();
    let (url, server) = serve(Script::Drip(body.clone())).await;
    let resp = reqwest::Client::new().post(&url).send().await.unwrap();
    let polls = Arc::new(AtomicUsize::new(0));
    let bytes = Counted {
        inner: resp.bytes_stream(),
        polls: polls.clone(),
    };
    let mut got: Vec<Event> = EventStream::new(bytes, common::parser(Format::OpenAiChat))
        .map(|r| r.expect("no transport error"))
        .collect()
        .await;
    merge_deltas(&mut got);
    assert_eq!(got, sans_io(&body));
    assert_eq!(calls(&got).len(), 1);
    // Most bytes did arrive on their own.
    assert!(polls.load(Ordering::SeqCst) > body.len() / 4, "not dripped");
    server.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_reset_mid_call_yields_the_error_then_the_partial_call() {
    let body = body();
    // Cut after the event that carries `"text": "`, before the rest of the arguments.
    let marker = br#"\"text\": \""#;
    let at = body
        .windows(marker.len())
        .position(|w| w == marker)
        .unwrap();
    let cut = at + body[at..].windows(2).position(|w| w == b"\n\n").unwrap() + 2;
    let (url, server) = serve(Script::ResetAfter(body[..cut].to_vec())).await;
    let resp = reqwest::Client::new().post(&url).send().await.unwrap();
    let items: Vec<_> = toolstream::stream::from_response(resp, common::parser(Format::OpenAiChat))
        .collect()
        .await;
    let transport = items
        .iter()
        .position(|r| matches!(r, Err(StreamError::Transport(_))))
        .expect("the transport error is yielded");
    // After it: what `finish` reports (the cut-off call with its bytes), then the end.
    let after: Vec<&Event> = items[transport + 1..]
        .iter()
        .map(|r| r.as_ref().expect("only events after the transport error"))
        .collect();
    assert!(
        matches!(
            after.as_slice(),
            [Event::Error { kind: ErrorKind::Truncated, index: Some(0), raw, .. }]
                if raw == "{\"path\": \"ü.txt\", \"text\": \""
        ),
        "{after:?}"
    );
    // Before it: the text, the Start and the argument bytes that arrived.
    let mut before: Vec<Event> = items[..transport]
        .iter()
        .map(|r| r.as_ref().unwrap().clone())
        .collect();
    merge_deltas(&mut before);
    assert_eq!(text(&before), "Saving. ");
    assert!(matches!(&before[1], Event::ToolCallStart { name, .. } if name == "save"));
    server.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_server_does_not_make_the_adapter_spin() {
    let body = body();
    let half = body.len() / 2;
    let pause = Duration::from_millis(600);
    let (url, server) = serve(Script::Stall(
        body[..half].to_vec(),
        body[half..].to_vec(),
        pause,
    ))
    .await;
    let resp = reqwest::Client::new().post(&url).send().await.unwrap();
    let inner_polls = Arc::new(AtomicUsize::new(0));
    let bytes = Counted {
        inner: resp.bytes_stream(),
        polls: inner_polls.clone(),
    };
    let outer_polls = Arc::new(AtomicUsize::new(0));
    let mut events = Counted {
        inner: EventStream::new(bytes, common::parser(Format::OpenAiChat)),
        polls: outer_polls.clone(),
    };
    let mut got = Vec::new();
    let mut longest_wait = Duration::ZERO;
    let mut polls_during_wait = 0;
    loop {
        let (o0, i0, t0) = (
            outer_polls.load(Ordering::SeqCst),
            inner_polls.load(Ordering::SeqCst),
            Instant::now(),
        );
        let Some(e) = events.next().await else { break };
        let waited = t0.elapsed();
        if waited > longest_wait {
            longest_wait = waited;
            polls_during_wait = (outer_polls.load(Ordering::SeqCst) - o0)
                .max(inner_polls.load(Ordering::SeqCst) - i0);
        }
        got.push(e.unwrap());
    }
    eprintln!("longest wait {longest_wait:?}: {polls_during_wait} polls");
    assert!(longest_wait >= pause / 2, "the stall was not observed");
    // Woken by the socket, not by a loop: a handful of polls over the whole silence.
    assert!(
        polls_during_wait <= 8,
        "{polls_during_wait} polls while the server was silent for {longest_wait:?}"
    );
    merge_deltas(&mut got);
    assert_eq!(got, sans_io(&body));
    server.await.unwrap();
}
