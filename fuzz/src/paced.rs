//! The in-memory transport of a fuzzed session: a reader that hands the input
//! over in small chunks with gaps, and a writer that captures what the server
//! wrote.

use super::{BLANK_LINE_GAP, LINE_GAP, READ_CHUNK};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The client's side of the session: hands the input over at most one line
/// (and at most [`READ_CHUNK`] bytes) per read, and waits [`LINE_GAP`] of
/// virtual time after each newline ([`BLANK_LINE_GAP`] after a blank line), so
/// tool tasks run between lines as they would with a real client.
pub struct PacedReader<'a> {
    data: &'a [u8],
    pos: usize,
    line_start: usize,
    gap: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<'a> PacedReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        PacedReader {
            data,
            pos: 0,
            line_start: 0,
            gap: None,
        }
    }
}

impl AsyncRead for PacedReader<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(gap) = self.gap.as_mut() {
            if gap.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.gap = None;
        }
        let rest = &self.data[self.pos..];
        let mut n = rest.len().min(READ_CHUNK).min(buf.remaining());
        let newline = rest[..n].iter().position(|&b| b == b'\n');
        if let Some(at) = newline {
            n = at + 1;
        }
        buf.put_slice(&rest[..n]);
        self.pos += n;
        if newline.is_some() {
            let line = &self.data[self.line_start..self.pos];
            let blank = line.iter().all(u8::is_ascii_whitespace);
            let gap = if blank { BLANK_LINE_GAP } else { LINE_GAP };
            self.gap = Some(Box::pin(tokio::time::sleep(gap)));
            self.line_start = self.pos;
        }
        Poll::Ready(Ok(()))
    }
}

/// Collects what the server writes; notes writes after shutdown. Like a
/// pipe, it does not always take everything: every third write takes at most
/// 7 bytes and every fourth is refused for now (`Pending`, woken at once), so
/// the server's partial-write and retry paths run.
#[derive(Clone, Default)]
pub struct Capture {
    pub(crate) bytes: Arc<Mutex<Vec<u8>>>,
    pub(crate) shut: Arc<AtomicBool>,
    pub(crate) written_after_shutdown: Arc<AtomicBool>,
    pub(crate) writes: Arc<std::sync::atomic::AtomicUsize>,
}

impl Capture {
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.lock().unwrap().clone()
    }
}

impl Capture {
    /// How much of `len` offered bytes this write takes; `None`: not now.
    fn accept(&self, cx: &mut TaskContext<'_>, len: usize) -> Option<usize> {
        if self.shut.load(Ordering::SeqCst) {
            self.written_after_shutdown.store(true, Ordering::SeqCst);
        }
        let n = self.writes.fetch_add(1, Ordering::SeqCst);
        if n % 4 == 3 {
            cx.waker().wake_by_ref();
            return None;
        }
        Some(if n.is_multiple_of(3) { len.min(7) } else { len })
    }
}

impl AsyncWrite for Capture {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let Some(take) = self.accept(cx, buf.len()) else {
            return Poll::Pending;
        };
        self.bytes.lock().unwrap().extend_from_slice(&buf[..take]);
        Poll::Ready(Ok(take))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let total = bufs.iter().map(|b| b.len()).sum();
        let Some(mut take) = self.accept(cx, total) else {
            return Poll::Pending;
        };
        let written = take;
        let mut bytes = self.bytes.lock().unwrap();
        for buf in bufs {
            let part = take.min(buf.len());
            bytes.extend_from_slice(&buf[..part]);
            take -= part;
        }
        Poll::Ready(Ok(written))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        self.shut.store(true, Ordering::SeqCst);
        Poll::Ready(Ok(()))
    }
}
