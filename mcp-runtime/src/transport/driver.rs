//! The driver of a message-framed connection: the one place where the
//! policy of serving a long-lived connection lives (what is read or written
//! first, back-pressure, draining, cancel-ahead, the client going away),
//! over a small [`MessageTransport`] that only moves messages. Stdio (and
//! any reader/writer pair) is one adapter of it, newline-delimited
//! (`transport/lines.rs`); an in-memory pair of message queues is another
//! (`transport/memory.rs`, for the driver's tests). A WebSocket would be a
//! third. HTTP's per-POST responder is not one: see `transport/http/respond.rs`.
//!
//! Serving and draining are one loop ([`Pump::run`]) in two phases, so
//! their priorities and back-pressure cannot drift apart.

use crate::conn::connection::Connection;
use crate::conn::outbox::{self, Frames, Release};
use crate::protocol::frame::Frame;
use crate::protocol::incoming::{Incoming, Rejection};
use crate::session::{Session, watch_changes};
use crate::shared::Shared;
use serde_json::value::RawValue;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

/// Unwritten output that is written before anything more is read: 4 KiB
/// or 4 answers, whichever comes first. A client that keeps requests in
/// flight then reads the first answers while the rest are made, instead of
/// waiting for all of them; a larger batch saves writes but leaves both
/// ends idle in turn. The count matters for small answers: 4 KiB of them
/// would be every answer to a client that keeps 16 requests in flight
/// (BENCHMARKS.md, "Batches" and "Batches of answers, not only of bytes").
const BATCH_SIZE: usize = 4 << 10;
/// See [`BATCH_SIZE`].
const BATCH_ANSWERS: usize = 4;

/// How long before the end of the drain the calls still running are
/// cancelled, at most: 250 ms.
const CANCEL_AHEAD: Duration = Duration::from_millis(250);

/// One message the transport has framed, borrowed until the next poll.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Message<'a> {
    /// A message's bytes (one JSON-RPC message, not yet decoded).
    Bytes(&'a [u8]),
    /// A message longer than the connection's limit, already discarded.
    Oversized {
        /// How many bytes it had.
        len: usize,
        /// The top-level `id` of the JSON-RPC request it was, as JSON text
        /// (a string with its quotes, or an integer), when the transport
        /// found one (`protocol::id_scan` scans bytes as they are skipped).
        id: Option<&'a str>,
    },
}

/// What a connection's transport does: deliver the client's messages one at
/// a time, and write the server's frames. Nothing here decides what to do
/// when: that is [`drive`]'s, stated once on [`Pump::run`].
///
/// Reading and writing are polled by one task, in turn, never at once:
/// `&mut self` for both is enough.
pub(crate) trait MessageTransport {
    /// The next message (`Ok(None)`: input has ended). Keeps its progress
    /// in `self` when it returns `Pending`, so a message arriving in pieces
    /// loses nothing; the message borrows `self` until the next call.
    fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<Message<'_>>>>;

    /// Queues a frame to be written. Never refuses one: the driver bounds
    /// what is queued by not reading while [`MessageTransport::backlog`] is
    /// past the connection's limit.
    fn push(&mut self, frame: Frame);

    /// Bytes of pushed frames not yet written (the frames' own bytes, not
    /// the transport's framing around them): the driver's back-pressure, and
    /// what it gives back to the outbox's bound as it falls.
    fn backlog(&self) -> usize;

    /// Writes until nothing is queued (`Ready(Ok)`) or the output would
    /// block. `BrokenPipe` or `ConnectionReset` means the client is gone.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Ends the output, once all is written (the drain is over).
    fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Completes when the client can no longer read what is written, even
    /// while nothing is (for stdio: the read end of the stdout pipe was
    /// closed). By default never: a transport that cannot watch for it
    /// learns it from a failed write.
    fn poll_closed(&mut self, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Pending
    }

    /// Work the transport put off so that it does not delay the answer to
    /// `initialize` (the stdout guard's reader thread), taken once when the
    /// driver starts. It runs before any other message reaches the session
    /// (so before any tool runs), or when the loop first waits after a
    /// message, whichever comes first.
    fn take_deferred(&mut self) -> Option<fn()> {
        None
    }
}

/// Serves one connection until its input ends (or `shutdown` completes),
/// then lets the calls in flight finish within `drain` while their
/// responses are written, and returns. Ends at once when the transport
/// reports the client gone ([`MessageTransport::poll_closed`], or a write
/// failing with `BrokenPipe`/`ConnectionReset`): the calls are cancelled
/// and the result is `Ok`. `max_message_size` is the limit the transport
/// enforces, named in the error an oversized message gets.
pub(crate) async fn drive<T: MessageTransport>(
    shared: Arc<Shared>,
    mut transport: T,
    max_message_size: usize,
    drain: Duration,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    // One bound for both: past it no request is read and notifications are
    // dropped (`Server::max_unwritten_output`).
    let backlog_limit = shared.max_unwritten_output;
    let (out, mut frames) = outbox::channel(backlog_limit);
    // What the transport holds unwritten still counts against the bound.
    let release = frames.release_when_written();
    let connection = Arc::new(Connection::new(out));
    // Weak: the frame channel closes only when every holder of the
    // connection is gone, which ends the drain.
    let calls = Arc::downgrade(&connection);
    let watcher = tokio::spawn(watch_changes(
        shared.notifier.subscribe(),
        Arc::downgrade(&connection),
    ));
    let deferred = transport.take_deferred();
    let mut pump = Pump {
        session: Some(Session::new(shared, connection)),
        transport,
        max_message_size,
        release,
        backlog_limit,
        frames,
        frames_closed: false,
        deferred,
        had_input: false,
        unwritten_frames: 0,
    };
    let mut shutdown = std::pin::pin!(shutdown);
    let end = pump.run(Phase::Serving, shutdown.as_mut()).await;
    watcher.abort();
    let read_error = match end {
        End::Graceful => None,
        End::ReadFailed(err) => Some(err),
        End::ClientGone => {
            client_gone(&calls);
            return Ok(());
        }
        End::WriteFailed(err) => {
            cancel_calls(&calls);
            return Err(err);
        }
    };
    let deadline = tokio::time::Instant::now() + drain;
    // The session cancels late calls a little before the loop's own
    // deadline (a tenth of the drain, at most 250 ms): their error responses
    // still have that long to be written to a client that reads slowly.
    let calls_deadline = deadline - (drain / 10).min(CANCEL_AHEAD);
    let session = pump.session.take();
    let draining = Phase::Draining {
        session_done: Box::pin(async move {
            if let Some(session) = session {
                session.shutdown(calls_deadline).await;
            }
        }),
        drained: false,
        expired: Box::pin(tokio::time::sleep_until(deadline)),
        calls: calls.clone(),
    };
    match pump.run(draining, shutdown).await {
        End::ClientGone => client_gone(&calls),
        End::WriteFailed(err) => return Err(err),
        End::Graceful | End::ReadFailed(_) => {}
    }
    read_error.map_or(Ok(()), Err)
}

/// The loop's state: the session, the transport and the channel finished
/// frames arrive on.
struct Pump<T> {
    /// `None` once draining: the session's shutdown owns it.
    session: Option<Session>,
    transport: T,
    max_message_size: usize,
    /// Gives written bytes back to the outbox's bound.
    release: Release,
    /// Unwritten output past which no message is read.
    backlog_limit: usize,
    frames: Frames,
    /// Every holder of the connection is gone: no frame can come.
    frames_closed: bool,
    /// See [`MessageTransport::take_deferred`]; `None` once run.
    deferred: Option<fn()>,
    /// A message has been handed to the session.
    had_input: bool,
    /// Frames pushed since the transport last wrote all it held.
    unwritten_frames: usize,
}

/// What the loop is for.
enum Phase {
    /// Reading input and answering it.
    Serving,
    /// Input is over: writing what calls in flight still answer, until
    /// they are done or the deadline comes.
    Draining {
        session_done: Pin<Box<dyn Future<Output = ()> + Send>>,
        drained: bool,
        expired: Pin<Box<tokio::time::Sleep>>,
        calls: Weak<Connection>,
    },
}

impl<T: MessageTransport> Pump<T> {
    /// The main loop, in priority order:
    /// 1. (draining) let the session's shutdown make progress;
    /// 2. take the frames that calls have finished;
    /// 3. (serving) write a full batch ([`BATCH_SIZE`]) before reading more,
    ///    which bounds latency while input keeps coming;
    /// 4. (serving) read and dispatch every message that is available (a
    ///    request is answered, or its tool polled once and, if it waits,
    ///    given a task of its own, so reading never waits on a tool);
    /// 5. write the rest only when there is nothing left to read, so one
    ///    write carries many responses; once draining is done and all is
    ///    written, shut the output down;
    /// 6. when input and output both wait: the client closing its end of
    ///    the output, then a termination signal (serving) or the drain
    ///    deadline (draining).
    ///
    /// Back-pressure: past `backlog_limit` unwritten bytes no message is
    /// read until the client has taken some, and what the transport writes
    /// is given back to the outbox's bound as it goes, so a client that
    /// reads slowly or not at all holds the output to that limit plus the
    /// responses of the calls in flight; its further requests wait in the
    /// transport. Notifications the calls send meanwhile are dropped past
    /// the same limit (the outbox counts what waits in the transport too),
    /// so running calls cannot grow it either. At the drain deadline what is
    /// still unwritten is dropped, so such a client cannot keep the process
    /// alive.
    async fn run(
        &mut self,
        mut phase: Phase,
        mut shutdown: Pin<&mut impl Future<Output = ()>>,
    ) -> End {
        std::future::poll_fn(|cx| self.poll_phase(cx, &mut phase, shutdown.as_mut())).await
    }

    fn poll_phase(
        &mut self,
        cx: &mut Context<'_>,
        phase: &mut Phase,
        mut shutdown: Pin<&mut impl Future<Output = ()>>,
    ) -> Poll<End> {
        loop {
            if let Phase::Draining {
                session_done,
                drained: drained @ false,
                ..
            } = phase
                && session_done.as_mut().poll(cx).is_ready()
            {
                *drained = true;
            }
            while !self.frames_closed {
                match self.frames.poll_recv(cx) {
                    Poll::Ready(Some(frame)) => {
                        self.transport.push(frame);
                        self.unwritten_frames += 1;
                    }
                    Poll::Ready(None) => self.frames_closed = true,
                    Poll::Pending => break,
                }
            }
            let serving = matches!(phase, Phase::Serving);
            if serving
                && (self.transport.backlog() >= BATCH_SIZE
                    || self.unwritten_frames >= BATCH_ANSWERS)
            {
                match self.flush(cx) {
                    Poll::Ready(Ok(())) => continue,
                    Poll::Ready(Err(err)) => return Poll::Ready(End::write_failed(err)),
                    Poll::Pending => {}
                }
            }
            if serving && self.transport.backlog() < self.backlog_limit {
                match self.transport.poll_message(cx) {
                    Poll::Ready(Ok(Some(message))) => {
                        if let Some(session) = self.session.as_mut() {
                            self.had_input = true;
                            dispatch(session, &mut self.deferred, self.max_message_size, message);
                        }
                        continue;
                    }
                    Poll::Ready(Ok(None)) => return Poll::Ready(End::Graceful),
                    Poll::Ready(Err(err)) => return Poll::Ready(End::ReadFailed(err)),
                    Poll::Pending => {}
                }
            }
            if self.transport.backlog() > 0 {
                match self.flush(cx) {
                    Poll::Ready(Ok(())) => continue,
                    Poll::Ready(Err(err)) => return Poll::Ready(End::write_failed(err)),
                    Poll::Pending => {}
                }
            } else if let Phase::Draining { drained: true, .. } = phase
                && self.frames_closed
            {
                return self.transport.poll_shutdown(cx).map(|result| match result {
                    Ok(()) => End::Graceful,
                    Err(err) => End::write_failed(err),
                });
            }
            if self.transport.poll_closed(cx).is_ready() {
                return Poll::Ready(End::ClientGone);
            }
            match phase {
                Phase::Serving => {
                    if shutdown.as_mut().poll(cx).is_ready() {
                        tracing::info!("shutting down on a signal");
                        return Poll::Ready(End::Graceful);
                    }
                }
                Phase::Draining { expired, calls, .. } => {
                    if expired.as_mut().poll(cx).is_ready() {
                        tracing::warn!(
                            unwritten_bytes = self.transport.backlog(),
                            "the drain timeout ended the shutdown"
                        );
                        cancel_calls(calls);
                        // All that could be written was: end the output too,
                        // if that takes no waiting.
                        if self.transport.backlog() == 0 {
                            let _ = self.transport.poll_shutdown(cx);
                        }
                        return Poll::Ready(End::Graceful);
                    }
                }
            }
            if self.had_input
                && let Some(deferred) = self.deferred.take()
            {
                deferred();
            }
            return Poll::Pending;
        }
    }

    /// Writes what the transport can take, and gives what it wrote back to
    /// the outbox's bound.
    fn flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let before = self.transport.backlog();
        let result = self.transport.poll_flush(cx);
        self.release
            .release(before.saturating_sub(self.transport.backlog()));
        if let Poll::Ready(Ok(())) = result {
            self.unwritten_frames = 0;
        }
        result
    }
}

/// Decodes `message` and hands it to the session; the transport's deferred
/// work runs first unless it is the `initialize` that may go before it.
fn dispatch(
    session: &mut Session,
    deferred: &mut Option<fn()>,
    max_message_size: usize,
    message: Message<'_>,
) {
    match message {
        Message::Bytes(bytes) => {
            let message = crate::protocol::incoming::parse(bytes);
            if deferred.is_some()
                && !is_initialize(&message)
                && let Some(deferred) = deferred.take()
            {
                deferred();
            }
            session.handle(message);
        }
        Message::Oversized { len, id } => {
            let id = id.and_then(|text| serde_json::from_str::<&RawValue>(text).ok());
            session.handle_oversized(len, max_message_size, id);
        }
    }
}

/// `initialize` runs no user code, so it may be answered before the
/// transport's deferred work is done.
fn is_initialize(message: &Result<Incoming<'_>, Rejection<'_>>) -> bool {
    matches!(message, Ok(Incoming::Request { method, .. }) if method == crate::protocol::model::method::INITIALIZE)
}

/// How a phase of the main loop ended.
enum End {
    /// Serving: input ended or a termination signal came, so drain.
    /// Draining: done, or the deadline came.
    Graceful,
    /// Reading input failed: drain, then report it.
    ReadFailed(io::Error),
    /// The client can no longer read the output: nothing is left to do.
    ClientGone,
    /// Writing failed for another reason.
    WriteFailed(io::Error),
}

impl End {
    /// A closed pipe or reset connection is the client leaving, a normal
    /// end; other write errors are failures.
    fn write_failed(err: io::Error) -> End {
        match err.kind() {
            io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset => End::ClientGone,
            _ => End::WriteFailed(err),
        }
    }
}

/// Cancels the calls still running, without responses: nobody reads them.
fn cancel_calls(connection: &Weak<Connection>) -> usize {
    connection.upgrade().map_or(0, |connection| {
        connection.fail_server_requests();
        connection.cancel_all().len()
    })
}

/// The client closed the connection: a normal end, said once.
fn client_gone(connection: &Weak<Connection>) {
    let cancelled = cancel_calls(connection);
    tracing::info!(
        cancelled_calls = cancelled,
        "the client closed the connection; exiting"
    );
}

#[cfg(test)]
mod tests {
    //! The driver's policy over the message-framed adapter (`queues.rs`):
    //! no bytes, no line framing, only the driver between the client and
    //! the session.

    use super::drive;
    use crate::Server;
    use crate::outcome::ToolOutcome;
    use crate::tool::ToolBuilder;
    use crate::transport::queues::{self, Peer};
    use serde_json::{Value, json};
    use std::io;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;
    use tokio::task::JoinHandle;

    const WAIT: Duration = Duration::from_secs(10);

    /// Serves `server` over an in-memory message pair holding `room` frames
    /// the client has not received.
    fn serve(server: Server, room: usize) -> (Peer, JoinHandle<io::Result<()>>) {
        let (shared, max, drain) = server
            .into_shared(false)
            .unwrap_or_else(|err| panic!("a valid test server: {err}"));
        let (peer, transport) = queues::pair(room, max);
        let served = tokio::spawn(drive(shared, transport, max, drain, std::future::pending()));
        (peer, served)
    }

    fn send(peer: &Peer, message: &Value) {
        peer.to_server
            .send(message.to_string().into_bytes())
            .unwrap_or_else(|_| panic!("the server takes input"));
    }

    async fn recv(peer: &mut Peer) -> Option<Value> {
        let frame = tokio::time::timeout(WAIT, peer.from_server.recv())
            .await
            .unwrap_or_else(|_| panic!("no frame within {WAIT:?}"))?;
        Some(serde_json::from_slice(&frame).unwrap_or_else(|err| panic!("a JSON frame: {err}")))
    }

    async fn initialize(peer: &mut Peer) {
        send(
            peer,
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
        );
        let answer = recv(peer).await.unwrap_or_else(|| panic!("an answer"));
        assert_eq!(
            answer["result"]["protocolVersion"], "2025-11-25",
            "{answer}"
        );
    }

    fn call(id: u64, name: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": {}}})
    }

    /// What a [`sleeper`] did.
    #[derive(Default)]
    struct Probe {
        started: AtomicBool,
        /// Its future was dropped before it answered.
        dropped: AtomicBool,
    }

    /// A tool that answers after `wait`.
    fn sleeper(wait: Duration, probe: &Arc<Probe>) -> crate::Tool {
        struct Flag(Arc<Probe>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.dropped.store(true, Ordering::SeqCst);
            }
        }
        let probe = Arc::clone(probe);
        ToolBuilder::new("sleepy", move |_| {
            probe.started.store(true, Ordering::SeqCst);
            let flag = Flag(Arc::clone(&probe));
            Box::pin(async move {
                tokio::time::sleep(wait).await;
                std::mem::forget(flag);
                ToolOutcome::text("done")
            })
        })
        .build()
    }

    /// Waits until `done` says so.
    async fn until(what: &str, done: impl Fn() -> bool) {
        let deadline = tokio::time::Instant::now() + WAIT;
        while !done() {
            assert!(tokio::time::Instant::now() < deadline, "{what}");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    #[tokio::test]
    async fn the_end_of_input_drains_the_calls_in_flight() {
        let probe = Arc::new(Probe::default());
        let server = Server::new("t", "1").tool(sleeper(Duration::from_millis(100), &probe));
        let (mut peer, served) = serve(server, 16);
        initialize(&mut peer).await;
        send(&peer, &call(1, "sleepy"));
        // Input ends while the call runs: its answer still comes, then the
        // output ends.
        let (to_server, _) = tokio::sync::mpsc::unbounded_channel();
        drop(std::mem::replace(&mut peer.to_server, to_server));
        let answer = recv(&mut peer).await.unwrap_or_else(|| panic!("an answer"));
        assert_eq!(answer["id"], 1, "{answer}");
        assert_eq!(answer["result"]["content"][0]["text"], "done", "{answer}");
        assert_eq!(recv(&mut peer).await, None);
        served.await.unwrap().unwrap();
        assert!(!probe.dropped.load(Ordering::SeqCst));
    }

    #[tokio::test]
    async fn a_client_that_does_not_read_stops_the_reading() {
        // One frame in the client's queue, one byte of backlog: the second
        // answer waits in the transport, and nothing more is read.
        let server = Server::new("t", "1").max_unwritten_output(1);
        let (mut peer, served) = serve(server, 1);
        initialize(&mut peer).await;
        const PINGS: u64 = 50;
        for id in 1..=PINGS {
            send(
                &peer,
                &json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        let taken = peer.taken.load(Ordering::SeqCst);
        // initialize, and the pings whose answers fill the queue and the
        // backlog (the one read before the backlog was seen full, at most).
        assert!(taken <= 4, "{taken} messages were read");
        for id in 1..=PINGS {
            let answer = recv(&mut peer)
                .await
                .unwrap_or_else(|| panic!("answer {id}"));
            assert_eq!(answer["id"], id, "{answer}");
        }
        assert_eq!(peer.taken.load(Ordering::SeqCst), 1 + PINGS as usize);
        drop(peer);
        served.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_client_gone_ends_the_connection_and_cancels_its_calls() {
        let probe = Arc::new(Probe::default());
        let server = Server::new("t", "1")
            .tool(sleeper(Duration::from_secs(30), &probe))
            .drain_timeout(Duration::from_secs(30));
        let (mut peer, served) = serve(server, 16);
        initialize(&mut peer).await;
        send(&peer, &call(1, "sleepy"));
        until("the call did not start", || {
            probe.started.load(Ordering::SeqCst)
        })
        .await;
        // The client stops reading for good; its input stays open.
        let Peer {
            to_server,
            from_server,
            ..
        } = peer;
        drop(from_server);
        tokio::time::timeout(WAIT, served)
            .await
            .unwrap_or_else(|_| panic!("the driver did not notice the client leave"))
            .unwrap()
            .unwrap();
        // The call's task is aborted, which drops its future when the
        // runtime next gets to it.
        until("the call was not cancelled", || {
            probe.dropped.load(Ordering::SeqCst)
        })
        .await;
        drop(to_server);
    }

    #[tokio::test]
    async fn an_oversized_message_is_refused_with_its_id() {
        let server = Server::new("t", "1").max_message_size(64);
        let (mut peer, served) = serve(server, 16);
        let long = json!({"jsonrpc": "2.0", "id": "big", "method": "ping",
            "params": {"pad": "x".repeat(100)}});
        send(&peer, &long);
        let answer = recv(&mut peer).await.unwrap_or_else(|| panic!("an answer"));
        assert_eq!(answer["id"], "big", "{answer}");
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        drop(peer);
        served.await.unwrap().unwrap();
    }
}
