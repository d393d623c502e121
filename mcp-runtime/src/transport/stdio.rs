//! The stdio transport, hardened.
//!
//! - Stdout and stderr guard (Unix): the protocol gets a private duplicate
//!   of fd 1, and fd 1 and fd 2 are pointed at one pipe whose reader thread
//!   hands what arrives to the non-blocking stderr queue (see `logging`),
//!   which writes to a duplicate of the original fd 2. So a stray `println!`
//!   or a logger that writes to stdout anywhere in the program cannot corrupt
//!   the frame stream, and nothing written to either (`eprintln!` included)
//!   can block on a host that does not read stderr: past the queue's bound
//!   it is dropped. Opt out with
//!   [`Server::stdout_guard`](crate::Server::stdout_guard). It is in `guard`.
//! - Pipes and sockets (what MCP clients connect) are made non-blocking and
//!   driven by the runtime's reactor: reading and writing cost no thread
//!   hops. A terminal or a file falls back to a reader thread (stdin) and
//!   blocking writes (stdout); that thread is never joined, so a read that
//!   blocks forever cannot keep the process from exiting.
//! - A client that stops reading stdout (it exited, or closed the pipe) is
//!   noticed at once on a pipe, even when nothing is being written: the
//!   reactor reports the error condition of the write end ([`Output::closed`]).

use std::fs::File;
use std::io::{self, Read, Write};
use std::pin::Pin;
#[cfg(unix)]
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;

use super::lines::Output;

mod guard;
pub(crate) use guard::end_stdout_guard;
#[cfg(unix)]
use guard::{divert_stdout, start_stdout_guard};

/// Stdin as an `AsyncRead`.
pub(crate) fn stdin() -> io::Result<Pin<Box<dyn AsyncRead + Send>>> {
    #[cfg(unix)]
    {
        let file = File::from(rustix::io::dup(rustix::stdio::stdin())?);
        if let Ok(end) = PipeEnd::try_new(file, Direction::Read)? {
            return Ok(Box::pin(Pipe(Arc::new(end))));
        }
    }
    Ok(Box::pin(StdinThread::spawn()?))
}

/// The writer for protocol frames: with the guard, a private duplicate of
/// stdout taken before fd 1 is diverted to the stderr queue (the thread that
/// drains it is started by the main loop, see [`start_stdout_guard`]).
pub(crate) fn stdout(guard: bool) -> io::Result<Output> {
    #[cfg(unix)]
    {
        let file = File::from(rustix::io::dup(rustix::stdio::stdout())?);
        let deferred = if guard {
            divert_stdout()?;
            Some(start_stdout_guard as fn())
        } else {
            None
        };
        match PipeEnd::try_new(file, Direction::Write)? {
            Ok(end) => {
                let end = Arc::new(end);
                let watched = Arc::clone(&end);
                // The write end of a pipe reports an error condition once its
                // read end is closed (EPOLLERR), whether or not a write is
                // pending; waiting for it consumes no write readiness.
                let closed = async move {
                    let _ = watched.error().await;
                };
                Ok(Output {
                    writer: Box::pin(Pipe(end)),
                    closed: Box::pin(closed),
                    deferred,
                })
            }
            Err(file) => Ok(Output {
                deferred,
                ..Output::plain(Box::pin(BlockingWriter(file)))
            }),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = guard;
        Ok(Output::plain(Box::pin(BlockingWriter(io::stdout()))))
    }
}

/// Which way a stdio end carries bytes.
#[cfg(unix)]
#[derive(Clone, Copy)]
enum Direction {
    Read,
    Write,
}

/// A non-blocking pipe or socket end, driven by the reactor through tokio's
/// own safe types (no raw fd registration): a FIFO as a pipe end, a socket
/// (Node's and libuv's child stdio are socket pairs) as a stream.
#[cfg(unix)]
enum PipeEnd {
    Reader(tokio::net::unix::pipe::Receiver),
    Writer(tokio::net::unix::pipe::Sender),
    Socket(tokio::net::UnixStream),
}

#[cfg(unix)]
impl PipeEnd {
    /// Wraps `file` when it is a pipe or a socket (made non-blocking); gives
    /// terminals and regular files back, which the reactor cannot poll.
    fn try_new(file: File, direction: Direction) -> io::Result<Result<PipeEnd, File>> {
        use std::os::unix::fs::FileTypeExt;
        use tokio::net::unix::pipe;
        let kind = file.metadata()?.file_type();
        if kind.is_fifo() {
            // `from_file` checks the access mode and sets O_NONBLOCK.
            return Ok(Ok(match direction {
                Direction::Read => PipeEnd::Reader(pipe::Receiver::from_file(file)?),
                Direction::Write => PipeEnd::Writer(pipe::Sender::from_file(file)?),
            }));
        }
        if kind.is_socket() {
            rustix::io::ioctl_fionbio(&file, true)?;
            let socket = std::os::unix::net::UnixStream::from(std::os::fd::OwnedFd::from(file));
            return Ok(Ok(PipeEnd::Socket(tokio::net::UnixStream::from_std(
                socket,
            )?)));
        }
        Ok(Err(file))
    }

    fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self {
            PipeEnd::Reader(end) => end.poll_read_ready(cx),
            PipeEnd::Socket(end) => end.poll_read_ready(cx),
            PipeEnd::Writer(_) => Poll::Ready(Err(io::ErrorKind::Unsupported.into())),
        }
    }

    fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            PipeEnd::Reader(end) => end.try_read(buf),
            PipeEnd::Socket(end) => end.try_read(buf),
            PipeEnd::Writer(_) => Err(io::ErrorKind::Unsupported.into()),
        }
    }

    fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self {
            PipeEnd::Writer(end) => end.poll_write_ready(cx),
            PipeEnd::Socket(end) => end.poll_write_ready(cx),
            PipeEnd::Reader(_) => Poll::Ready(Err(io::ErrorKind::Unsupported.into())),
        }
    }

    fn try_write(&self, data: &[u8]) -> io::Result<usize> {
        match self {
            PipeEnd::Writer(end) => end.try_write(data),
            PipeEnd::Socket(end) => end.try_write(data),
            PipeEnd::Reader(_) => Err(io::ErrorKind::Unsupported.into()),
        }
    }

    fn try_write_vectored(&self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        match self {
            PipeEnd::Writer(end) => end.try_write_vectored(bufs),
            PipeEnd::Socket(end) => end.try_write_vectored(bufs),
            PipeEnd::Reader(_) => Err(io::ErrorKind::Unsupported.into()),
        }
    }

    /// Completes when the reactor reports an error condition on the end.
    async fn error(&self) -> io::Result<()> {
        let interest = tokio::io::Interest::ERROR;
        match self {
            PipeEnd::Reader(end) => end.ready(interest).await.map(drop),
            PipeEnd::Writer(end) => end.ready(interest).await.map(drop),
            PipeEnd::Socket(end) => end.ready(interest).await.map(drop),
        }
    }
}

/// A [`PipeEnd`] as an `AsyncRead`/`AsyncWrite`, shared with the watcher of
/// its error condition.
#[cfg(unix)]
struct Pipe(Arc<PipeEnd>);

/// Retries `op` until it does not report `WouldBlock`, waiting for readiness
/// with `ready` (each `WouldBlock` clears the readiness it consumed).
#[cfg(unix)]
fn poll_io<T>(
    cx: &mut Context<'_>,
    ready: impl Fn(&mut Context<'_>) -> Poll<io::Result<()>>,
    mut op: impl FnMut() -> io::Result<T>,
) -> Poll<io::Result<T>> {
    loop {
        ready!(ready(cx))?;
        match op() {
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => continue,
            result => return Poll::Ready(result),
        }
    }
}

#[cfg(unix)]
impl AsyncRead for Pipe {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let end = &*self.0;
        let unfilled = buf.initialize_unfilled();
        let n = ready!(poll_io(
            cx,
            |cx| end.poll_read_ready(cx),
            || end.try_read(unfilled)
        ))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

#[cfg(unix)]
impl AsyncWrite for Pipe {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let end = &*self.0;
        poll_io(cx, |cx| end.poll_write_ready(cx), || end.try_write(data))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let end = &*self.0;
        poll_io(
            cx,
            |cx| end.poll_write_ready(cx),
            || end.try_write_vectored(bufs),
        )
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Blocking writes for outputs the reactor cannot poll (terminals, files),
/// which do not block for long.
struct BlockingWriter<W>(W);

impl<W: Write + Unpin> AsyncWrite for BlockingWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(self.0.write(data))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.flush())
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.flush())
    }
}

/// Stdin read on a detached thread, for inputs the reactor cannot poll.
#[derive(Debug)]
struct StdinThread {
    chunks: mpsc::Receiver<io::Result<Vec<u8>>>,
    current: Vec<u8>,
    offset: usize,
}

impl StdinThread {
    fn spawn() -> io::Result<StdinThread> {
        let (tx, chunks) = mpsc::channel(8);
        std::thread::Builder::new()
            .name("mcp-stdin".into())
            .spawn(move || {
                let mut stdin = io::stdin().lock();
                // One reused buffer; each chunk sent is only as long as the read.
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    match stdin.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            if tx.blocking_send(Ok(buf[..n].to_vec())).is_err() {
                                break;
                            }
                        }
                        Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                        Err(err) => {
                            let _ = tx.blocking_send(Err(err));
                            break;
                        }
                    }
                }
            })?;
        Ok(StdinThread {
            chunks,
            current: Vec::new(),
            offset: 0,
        })
    }
}

impl AsyncRead for StdinThread {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            if self.offset < self.current.len() {
                let available = &self.current[self.offset..];
                let n = available.len().min(buf.remaining());
                buf.put_slice(&available[..n]);
                self.offset += n;
                return Poll::Ready(Ok(()));
            }
            match ready!(self.chunks.poll_recv(cx)) {
                Some(Ok(chunk)) => {
                    self.current = chunk;
                    self.offset = 0;
                }
                Some(Err(err)) => return Poll::Ready(Err(err)),
                // The thread ended: end of input.
                None => return Poll::Ready(Ok(())),
            }
        }
    }
}
