//! The stdio transport, hardened.
//!
//! - Stdout guard (Unix): the protocol gets a private duplicate of fd 1, and
//!   fd 1 itself is pointed at stderr, so a stray `println!` or a logger that
//!   writes to stdout anywhere in the program cannot corrupt the frame
//!   stream. Opt out with [`Server::stdout_guard`](crate::Server::stdout_guard).
//! - Stdin is read on a thread of its own that is never joined: a read that
//!   blocks forever (a client that neither writes nor closes) cannot keep the
//!   process from exiting after a shutdown signal.

use std::io::{self, Read};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc;

/// Stdin as an `AsyncRead`, fed by a detached reader thread.
#[derive(Debug)]
pub(crate) struct StdinReader {
    chunks: mpsc::Receiver<io::Result<Vec<u8>>>,
    current: Vec<u8>,
    offset: usize,
}

impl StdinReader {
    pub(crate) fn spawn() -> io::Result<StdinReader> {
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
        Ok(StdinReader {
            chunks,
            current: Vec::new(),
            offset: 0,
        })
    }
}

impl AsyncRead for StdinReader {
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
            match self.chunks.poll_recv(cx) {
                Poll::Ready(Some(Ok(chunk))) => {
                    self.current = chunk;
                    self.offset = 0;
                }
                Poll::Ready(Some(Err(err))) => return Poll::Ready(Err(err)),
                // The thread ended: end of input.
                Poll::Ready(None) => return Poll::Ready(Ok(())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// The writer for protocol frames: with the guard, a private duplicate of
/// stdout taken before fd 1 is pointed at stderr.
pub(crate) fn protocol_stdout(guard: bool) -> io::Result<Box<dyn io::Write + Send>> {
    #[cfg(unix)]
    if guard {
        let private = rustix::io::dup(rustix::stdio::stdout())?;
        rustix::stdio::dup2_stdout(rustix::stdio::stderr())?;
        return Ok(Box::new(std::fs::File::from(private)));
    }
    let _ = guard;
    Ok(Box::new(io::stdout()))
}
