//! The main loop of a byte-stream connection (stdio, or any reader/writer
//! pair): read lines, decode them, hand them to the [`Session`], write the
//! frames it queues. Serving and draining are one loop ([`Pump::run`]) in
//! two phases, so their priorities and back-pressure cannot drift apart.

use super::writer::FrameWriter;
use super::{Line, LineReader};
use crate::conn::connection::Connection;
use crate::conn::outbox::{self, Frames};
use crate::protocol::incoming::{Incoming, Rejection};
use crate::session::{Session, notify_tools_changed};
use crate::shared::Shared;
use serde_json::value::RawValue;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

/// Unwritten output that is written before anything more is read: 32 KiB.
const BATCH_SIZE: usize = 32 << 10;

/// How long before the end of the drain the calls still running are
/// cancelled, at most: 250 ms.
const CANCEL_AHEAD: Duration = Duration::from_millis(250);

/// The output side of a connection.
pub(crate) struct Output {
    /// Where frames are written.
    pub(crate) writer: Pin<Box<dyn AsyncWrite + Send>>,
    /// Completes when the client can no longer read what is written (for
    /// stdio: the read end of the stdout pipe was closed); never, for
    /// outputs where that cannot be watched.
    pub(crate) closed: Pin<Box<dyn Future<Output = ()> + Send>>,
    /// Work the transport put off so that it does not delay the answer to
    /// `initialize` (the stdout guard's reader thread): run before any other
    /// message reaches the session (so before any tool runs), or when the
    /// loop first waits after a message, whichever comes first.
    pub(crate) deferred: Option<fn()>,
}

impl Output {
    /// An output with nothing to watch and nothing deferred.
    pub(crate) fn plain(writer: Pin<Box<dyn AsyncWrite + Send>>) -> Output {
        Output {
            writer,
            closed: Box::pin(std::future::pending()),
            deferred: None,
        }
    }
}

/// Serves one connection until its input ends (or `shutdown` completes),
/// then lets the calls in flight finish within `drain` while their
/// responses are written, and returns. Ends at once when the output's
/// `closed` completes or it fails with `BrokenPipe`/`ConnectionReset`: the
/// client is gone, the calls are cancelled and the result is `Ok`.
pub(crate) async fn run<R: AsyncRead + Unpin>(
    shared: Arc<Shared>,
    max_message_size: usize,
    drain: Duration,
    input: R,
    output: Output,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let Output {
        writer: output,
        closed: mut output_closed,
        deferred,
    } = output;
    // One bound for both: past it no request is read and notifications are
    // dropped (`Server::max_unwritten_output`).
    let backlog_limit = shared.max_unwritten_output;
    let (out, mut frames) = outbox::channel(backlog_limit);
    let release = frames.release_when_written();
    let connection = Arc::new(Connection::new(out));
    // Weak: the frame channel closes only when every holder of the
    // connection is gone, which ends the drain.
    let calls = Arc::downgrade(&connection);
    let watcher = tokio::spawn(watch_tool_changes(
        shared.tools.changes(),
        Arc::clone(&connection),
    ));
    let mut pump = Pump {
        session: Some(Session::new(shared, connection)),
        reader: LineReader::new(input, max_message_size),
        max_message_size,
        writer: FrameWriter::new(output).releasing(release),
        backlog_limit,
        frames,
        frames_closed: false,
        deferred,
        had_input: false,
    };
    let mut shutdown = std::pin::pin!(shutdown);
    let end = pump
        .run(Phase::Serving, output_closed.as_mut(), shutdown.as_mut())
        .await;
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
    match pump.run(draining, output_closed.as_mut(), shutdown).await {
        End::ClientGone => client_gone(&calls),
        End::WriteFailed(err) => return Err(err),
        End::Graceful | End::ReadFailed(_) => {}
    }
    read_error.map_or(Ok(()), Err)
}

/// The loop's state: the session, the line reader, the frame writer and
/// the channel finished frames arrive on.
struct Pump<R> {
    /// `None` once draining: the session's shutdown owns it.
    session: Option<Session>,
    reader: LineReader<R>,
    max_message_size: usize,
    writer: FrameWriter,
    /// Unwritten output past which no line is read.
    backlog_limit: usize,
    frames: Frames,
    /// Every holder of the connection is gone: no frame can come.
    frames_closed: bool,
    /// See [`Output::deferred`]; `None` once run.
    deferred: Option<fn()>,
    /// A line has been handed to the session.
    had_input: bool,
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

impl<R: AsyncRead + Unpin> Pump<R> {
    /// The main loop, in priority order:
    /// 1. (draining) let the session's shutdown make progress;
    /// 2. take the frames that calls have finished;
    /// 3. (serving) write a full batch (BATCH_SIZE) before reading more,
    ///    which bounds latency while input keeps coming;
    /// 4. (serving) read and dispatch every line that is available (a
    ///    request is answered, or its tool polled once and, if it waits,
    ///    given a task of its own, so reading never waits on a tool);
    /// 5. write the rest only when there is nothing left to read, so one
    ///    write carries many responses; once draining is done and all is
    ///    written, shut the output down;
    /// 6. when input and output both wait: the client closing its end of
    ///    the output, then a termination signal (serving) or the drain
    ///    deadline (draining).
    ///
    /// Back-pressure: past `backlog_limit` unwritten bytes no line is read
    /// until the client has taken some, and the writer frees what it has
    /// written segment by segment, so a client that reads slowly or not at
    /// all holds the output to that limit plus the responses of the calls
    /// in flight; its further requests wait in the pipe. Notifications the
    /// calls send meanwhile are dropped past the same limit (the outbox
    /// counts what waits here too), so running calls cannot grow it either. At the drain deadline what is still
    /// unwritten is dropped, so such a client cannot keep the process alive.
    async fn run(
        &mut self,
        mut phase: Phase,
        mut output_closed: Pin<&mut (impl Future<Output = ()> + ?Sized)>,
        mut shutdown: Pin<&mut impl Future<Output = ()>>,
    ) -> End {
        std::future::poll_fn(|cx| {
            self.poll_phase(cx, &mut phase, output_closed.as_mut(), shutdown.as_mut())
        })
        .await
    }

    fn poll_phase(
        &mut self,
        cx: &mut Context<'_>,
        phase: &mut Phase,
        mut output_closed: Pin<&mut (impl Future<Output = ()> + ?Sized)>,
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
                    Poll::Ready(Some(frame)) => self.writer.push(frame),
                    Poll::Ready(None) => self.frames_closed = true,
                    Poll::Pending => break,
                }
            }
            let serving = matches!(phase, Phase::Serving);
            if serving && self.writer.backlog() >= BATCH_SIZE {
                match self.writer.poll_flush(cx) {
                    Poll::Ready(Ok(())) => continue,
                    Poll::Ready(Err(err)) => return Poll::Ready(End::write_failed(err)),
                    Poll::Pending => {}
                }
            }
            if serving && self.writer.backlog() < self.backlog_limit {
                match self.reader.poll_ready(cx) {
                    Poll::Ready(Ok(())) => {
                        if !self.take_line() {
                            return Poll::Ready(End::Graceful);
                        }
                        continue;
                    }
                    Poll::Ready(Err(err)) => return Poll::Ready(End::ReadFailed(err)),
                    Poll::Pending => {}
                }
            }
            if self.writer.backlog() > 0 {
                match self.writer.poll_flush(cx) {
                    Poll::Ready(Ok(())) => continue,
                    Poll::Ready(Err(err)) => return Poll::Ready(End::write_failed(err)),
                    Poll::Pending => {}
                }
            } else if let Phase::Draining { drained: true, .. } = phase
                && self.frames_closed
            {
                return self.writer.poll_shutdown(cx).map(|result| match result {
                    Ok(()) => End::Graceful,
                    Err(err) => End::write_failed(err),
                });
            }
            if output_closed.as_mut().poll(cx).is_ready() {
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
                            unwritten_bytes = self.writer.backlog(),
                            "the drain timeout ended the shutdown"
                        );
                        cancel_calls(calls);
                        // All that could be written was: end the output too,
                        // if that takes no waiting.
                        if self.writer.backlog() == 0 {
                            let _ = self.writer.poll_shutdown(cx);
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

    /// Decodes the line the reader has ready and hands it to the session;
    /// `false` when input has ended.
    fn take_line(&mut self) -> bool {
        let Some(session) = self.session.as_mut() else {
            return true;
        };
        self.had_input = true;
        match self.reader.take_ready() {
            Some(Line::Message(line)) => {
                let message = crate::protocol::incoming::parse(line);
                if self.deferred.is_some()
                    && !is_initialize(&message)
                    && let Some(deferred) = self.deferred.take()
                {
                    deferred();
                }
                session.handle(message)
            }
            Some(Line::Oversized { len, id }) => {
                let id = id.and_then(|text| serde_json::from_str::<&RawValue>(text).ok());
                session.handle_oversized(len, self.max_message_size, id);
            }
            None => return false,
        }
        true
    }
}

/// `initialize` runs no user code, so it may be answered before the
/// transport's deferred work is done.
fn is_initialize(message: &Result<Incoming<'_>, Rejection<'_>>) -> bool {
    matches!(message, Ok(Incoming::Request { method, .. }) if method == "initialize")
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

/// Sends list-changed notifications on this connection after each change.
async fn watch_tool_changes(
    mut changes: tokio::sync::watch::Receiver<u64>,
    connection: Arc<Connection>,
) {
    while changes.changed().await.is_ok() {
        notify_tools_changed(&connection);
    }
}
