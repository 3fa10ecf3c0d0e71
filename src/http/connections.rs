//! Accepting and serving HTTP/1 connections under a bound: the accept loop
//! ([`serve_connections`]) and the write-stall limit on each connection ([`StallLimit`]).
//!
//! `toolstream serve` runs on it (32 connections, then `503` at once; 30 s write stalls).
//! `Proxy::run` is the same loop with [`Overflow::Wait`], no stall limit and no
//! `TCP_NODELAY`, and can move onto it as it stands.

use super::Body;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Sleep;

/// What [`serve_connections`] does with a connection while every slot is taken.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Overflow {
    /// Accept nothing until a slot frees (the kernel's backlog holds the rest): what
    /// `Proxy::run` does.
    #[cfg_attr(
        not(test),
        expect(
            dead_code,
            reason = "Proxy::run's policy: the proxy moves onto this loop after its graceful-shutdown change"
        )
    )]
    Wait,
    /// Accept it, write this whole response without parsing the request, and close after
    /// draining what the client sent (for at most 200 ms), so the answer is not lost to a
    /// reset.
    Refuse(&'static [u8]),
}

/// The bounds of [`serve_connections`] and each connection's HTTP/1 settings.
#[derive(Debug, Clone)]
pub(crate) struct Connections {
    /// Connections served at once (at least 1).
    pub(crate) max: usize,
    /// What a connection past `max` gets.
    pub(crate) overflow: Overflow,
    /// A write that makes no progress for this long ends its connection ([`StallLimit`]).
    pub(crate) write_stall: Option<Duration>,
    /// Whether to send each write at once (`TCP_NODELAY`: no Nagle wait for the previous
    /// write's ACK), for streams of small messages.
    pub(crate) nodelay: bool,
    /// hyper's settings: timer, head timeout and size, keep-alive, ...
    pub(crate) http: http1::Builder,
}

/// Accepts connections on `listener` and serves each in its own task with hyper, every
/// request answered by `handler`, until the future is dropped. A connection's failure (a
/// client gone, a timeout, a stall) ends that connection only; an accept error (out of
/// file descriptors and the like) waits 50 ms rather than spin.
pub(crate) async fn serve_connections<H, F>(
    listener: &TcpListener,
    connections: Connections,
    handler: H,
) -> io::Result<()>
where
    H: Fn(Request<Incoming>) -> F + Send + Sync + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    let Connections {
        max,
        overflow,
        write_stall,
        nodelay,
        http,
    } = connections;
    let limit = Arc::new(Semaphore::new(max.max(1)));
    let http = Arc::new(http);
    let handler = Arc::new(handler);
    loop {
        let waited = match overflow {
            Overflow::Wait => Some(
                Arc::clone(&limit)
                    .acquire_owned()
                    .await
                    .map_err(io::Error::other)?,
            ),
            Overflow::Refuse(_) => None,
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(permit) = waited.or_else(|| Arc::clone(&limit).try_acquire_owned().ok()) else {
            if let Overflow::Refuse(answer) = overflow {
                tokio::spawn(refuse(stream, answer));
            }
            continue;
        };
        if nodelay {
            let _ = stream.set_nodelay(true);
        }
        let http = Arc::clone(&http);
        let handler = Arc::clone(&handler);
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let answer = handler(req);
                async move { Ok::<_, Infallible>(answer.await) }
            });
            let io = TokioIo::new(StallLimit::new(stream, write_stall));
            let _ = http.serve_connection(io, service).await;
            drop(permit);
        });
    }
}

/// Writes `answer` (within 200 ms) and closes: a connection past the bound.
async fn refuse(mut stream: TcpStream, answer: &'static [u8]) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // A lingering close, as nginx and Apache do: write the answer, send FIN, then read
    // and drop what the client sends (its request) until it closes, for at most 200 ms
    // and 64 KiB. Closing with its request unread would make the kernel send RST, and a
    // client that already sent its request would read "connection reset" instead of
    // the answer.
    let linger = async {
        stream.write_all(answer).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        let mut left = 64 * 1024usize;
        while left > 0 {
            match stream.read(&mut sink).await? {
                0 => break,
                n => left = left.saturating_sub(n),
            }
        }
        Ok::<_, io::Error>(())
    };
    let _ = tokio::time::timeout(Duration::from_millis(200), linger).await;
}

/// A connection whose writes may stall for at most a given time: a write or flush that
/// makes no progress for that long fails with [`io::ErrorKind::TimedOut`], which ends the
/// connection (a client that stopped reading cannot hold it). Reads are passed through
/// (hyper bounds the wait for a request head itself). Without a limit, a plain wrapper.
pub(crate) struct StallLimit<T> {
    io: T,
    limit: Option<Duration>,
    /// Runs from the first write that could not proceed; reused across stalls.
    timer: Option<Pin<Box<Sleep>>>,
    /// Whether `timer` times the current stall.
    stalled: bool,
}

impl<T> StallLimit<T> {
    pub(crate) fn new(io: T, limit: Option<Duration>) -> Self {
        StallLimit {
            io,
            limit,
            timer: None,
            stalled: false,
        }
    }

    /// Passes a write's outcome on; a `Pending` one starts (or checks) the stall timer.
    fn check<R>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<R>>) -> Poll<io::Result<R>> {
        if poll.is_ready() {
            self.stalled = false;
            return poll;
        }
        let Some(limit) = self.limit else {
            return Poll::Pending;
        };
        let deadline = tokio::time::Instant::now() + limit;
        let timer = match &mut self.timer {
            Some(timer) if self.stalled => timer,
            Some(timer) => {
                timer.as_mut().reset(deadline);
                timer
            }
            None => self
                .timer
                .insert(Box::pin(tokio::time::sleep_until(deadline))),
        };
        self.stalled = true;
        if timer.as_mut().poll(cx).is_ready() {
            self.stalled = false;
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client took no data for the write timeout",
            )));
        }
        Poll::Pending
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for StallLimit<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for StallLimit<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.io).poll_write(cx, buf);
        self.check(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.check(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.io).poll_flush(cx);
        self.check(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::full;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Serves `overflow` with one slot on a free port; every request gets `ok`.
    async fn one_slot(overflow: Overflow) -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut http = http1::Builder::new();
        http.keep_alive(false);
        let connections = Connections {
            max: 1,
            overflow,
            write_stall: Some(Duration::from_secs(5)),
            nodelay: true,
            http,
        };
        tokio::spawn(async move {
            serve_connections(&listener, connections, |_| async {
                Response::new(full("ok"))
            })
            .await
        });
        addr
    }

    async fn read_all(s: &mut TcpStream) -> String {
        let mut out = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out)).await;
        String::from_utf8_lossy(&out).into_owned()
    }

    const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";

    #[tokio::test]
    async fn past_the_bound_refuse_answers_at_once_and_wait_queues() {
        let addr = one_slot(Overflow::Refuse(b"busy")).await;
        let mut first = TcpStream::connect(addr).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut second = TcpStream::connect(addr).await.unwrap();
        assert_eq!(read_all(&mut second).await, "busy");
        let _ = first.write_all(GET).await;
        assert!(read_all(&mut first).await.ends_with("ok"));

        let addr = one_slot(Overflow::Wait).await;
        let mut first = TcpStream::connect(addr).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut second = TcpStream::connect(addr).await.unwrap();
        let _ = second.write_all(GET).await;
        // Not served while the first holds the slot...
        let mut byte = [0u8; 1];
        let early = tokio::time::timeout(Duration::from_millis(200), second.read(&mut byte)).await;
        assert!(early.is_err(), "served past the bound");
        // ...and served once it is gone.
        let _ = first.write_all(GET).await;
        assert!(read_all(&mut first).await.ends_with("ok"));
        assert!(read_all(&mut second).await.ends_with("ok"));
    }

    /// A writer that never takes a byte.
    struct Stuck;

    impl AsyncWrite for Stuck {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &[u8],
        ) -> Poll<io::Result<usize>> {
            Poll::Pending
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn a_stalled_write_fails_after_the_limit() {
        let limit = Duration::from_millis(50);
        let mut io = StallLimit::new(Stuck, Some(limit));
        for _ in 0..2 {
            // Each stall is timed from its own start (the timer is reused).
            let started = tokio::time::Instant::now();
            let write = std::future::poll_fn(|cx| Pin::new(&mut io).poll_write(cx, b"x")).await;
            assert_eq!(write.map_err(|e| e.kind()), Err(io::ErrorKind::TimedOut));
            assert!(started.elapsed() >= limit);
        }
        // Without a limit, a plain wrapper: still pending.
        let mut io = StallLimit::new(Stuck, None);
        let write = tokio::time::timeout(
            limit,
            std::future::poll_fn(|cx| Pin::new(&mut io).poll_write(cx, b"x")),
        )
        .await;
        assert!(write.is_err());
    }
}
