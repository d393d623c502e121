//! The frame writer: queues frames and writes them when the main loop has
//! nothing left to read, several frames per write, large frames without
//! copying them.
//!
//! Memory: small frames are copied into segments of [`SEGMENT_SIZE`] bytes,
//! large ones are queued as they are, and a segment is never appended to once
//! the writer has started on it. A written segment is therefore freed (or kept
//! for reuse) as soon as its last byte is out, so what the queue holds is its
//! unwritten backlog plus the partly written front segment: bounded by the
//! main loop's back-pressure limit plus one frame, whatever the reader's pace.

use crate::protocol::frame::Frame;
use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use tokio::io::AsyncWrite;

/// Frames at least this big stay a segment of their own instead of being
/// copied into a segment.
const SHARE_THRESHOLD: usize = 16 * 1024;

/// The capacity of the segments small frames are copied into.
const SEGMENT_SIZE: usize = 32 * 1024;

/// How many segments one vectored write takes at most.
const MAX_SLICES: usize = 64;

enum Segment {
    Bytes(Vec<u8>),
    Shared(Arc<str>),
}

impl Segment {
    fn as_bytes(&self) -> &[u8] {
        match self {
            Segment::Bytes(bytes) => bytes,
            Segment::Shared(text) => text.as_bytes(),
        }
    }
}

/// Output bytes waiting to be written, and the writer they go to.
pub(crate) struct FrameWriter {
    output: Pin<Box<dyn AsyncWrite + Send>>,
    queue: VecDeque<Segment>,
    /// Bytes of the front segment already written.
    written: usize,
    backlog: usize,
    /// A written segment kept for the next small frames, so a steady stream
    /// of responses does not allocate a segment per batch.
    spare: Option<Vec<u8>>,
}

impl std::fmt::Debug for FrameWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameWriter")
            .field("backlog", &self.backlog)
            .finish_non_exhaustive()
    }
}

impl FrameWriter {
    pub(crate) fn new(output: Pin<Box<dyn AsyncWrite + Send>>) -> FrameWriter {
        FrameWriter {
            output,
            queue: VecDeque::new(),
            written: 0,
            backlog: 0,
            spare: None,
        }
    }

    /// Bytes queued and not yet written.
    pub(crate) fn backlog(&self) -> usize {
        self.backlog
    }

    /// Bytes the queue holds in memory, written or not (capacities included).
    #[cfg(test)]
    fn held(&self) -> usize {
        self.queue
            .iter()
            .map(|segment| match segment {
                Segment::Bytes(bytes) => bytes.capacity(),
                Segment::Shared(text) => text.len(),
            })
            .sum()
    }

    /// Queues a frame.
    pub(crate) fn push(&mut self, frame: Frame) {
        match frame {
            Frame::Owned(bytes, _) if bytes.len() >= SHARE_THRESHOLD => {
                self.backlog += bytes.len();
                self.queue.push_back(Segment::Bytes(bytes));
            }
            Frame::Owned(bytes, _) => self.push_bytes(&bytes),
            Frame::Shared { head, body, tail } if body.len() >= SHARE_THRESHOLD => {
                self.push_bytes(&head);
                self.backlog += body.len();
                self.queue.push_back(Segment::Shared(body));
                self.push_bytes(&tail);
            }
            Frame::Shared { head, body, tail } => {
                self.push_bytes(&head);
                self.push_bytes(body.as_bytes());
                self.push_bytes(&tail);
            }
        }
    }

    /// Copies small bytes into the back segment when they fit its capacity
    /// and the writer has not started on it, else into a new segment.
    fn push_bytes(&mut self, bytes: &[u8]) {
        self.backlog += bytes.len();
        // The front segment, once partly written, takes nothing more: its
        // written prefix is only freed with the whole segment.
        let started = self.queue.len() == 1 && self.written > 0;
        if !started
            && let Some(Segment::Bytes(last)) = self.queue.back_mut()
            && last.capacity() - last.len() >= bytes.len()
        {
            last.extend_from_slice(bytes);
            return;
        }
        let mut segment = match self.spare.take() {
            Some(spare) if spare.capacity() >= bytes.len() => spare,
            _ => Vec::with_capacity(bytes.len().max(SEGMENT_SIZE)),
        };
        segment.extend_from_slice(bytes);
        self.queue.push_back(Segment::Bytes(segment));
    }

    /// Writes until the queue is empty or the output would block.
    pub(crate) fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.queue.is_empty() {
            let mut slices = Vec::with_capacity(self.queue.len().min(MAX_SLICES));
            for (i, segment) in self.queue.iter().take(MAX_SLICES).enumerate() {
                let bytes = segment.as_bytes();
                slices.push(IoSlice::new(if i == 0 {
                    &bytes[self.written..]
                } else {
                    bytes
                }));
            }
            let n = ready!(self.output.as_mut().poll_write_vectored(cx, &slices))?;
            if n == 0 {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "the output is closed",
                )));
            }
            self.advance(n);
        }
        ready!(self.output.as_mut().poll_flush(cx))?;
        Poll::Ready(Ok(()))
    }

    fn advance(&mut self, mut n: usize) {
        self.backlog -= n;
        while n > 0 {
            let Some(front) = self.queue.front() else {
                break;
            };
            let left = front.as_bytes().len() - self.written;
            if n < left {
                self.written += n;
                return;
            }
            n -= left;
            self.written = 0;
            if let Some(Segment::Bytes(mut done)) = self.queue.pop_front()
                && done.capacity() == SEGMENT_SIZE
            {
                done.clear();
                self.spare = Some(done);
            }
        }
    }

    /// Ends the output (for transports that have an end, like pipes in tests).
    pub(crate) fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.output.as_mut().poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::frame::FrameKind;
    use tokio::io::{AsyncRead, AsyncReadExt};

    #[tokio::test]
    async fn frames_come_out_whole_and_in_order() {
        let (mut read, write) = tokio::io::duplex(64);
        let mut writer = FrameWriter::new(Box::pin(write));
        let big: Arc<str> = Arc::from("x".repeat(40_000));
        writer.push(Frame::Owned(b"one\n".to_vec(), FrameKind::Message));
        writer.push(Frame::Shared {
            head: b"[".to_vec(),
            body: Arc::clone(&big),
            tail: b"]\n".to_vec(),
        });
        writer.push(Frame::Owned(b"three\n".to_vec(), FrameKind::Message));
        assert_eq!(writer.backlog(), 4 + 1 + 40_000 + 2 + 6);
        let reading = tokio::spawn(async move {
            let mut all = Vec::new();
            read.read_to_end(&mut all).await.unwrap();
            all
        });
        std::future::poll_fn(|cx| writer.poll_flush(cx))
            .await
            .unwrap();
        assert_eq!(writer.backlog(), 0);
        std::future::poll_fn(|cx| writer.poll_shutdown(cx))
            .await
            .unwrap();
        drop(writer);
        let all = reading.await.unwrap();
        let expected = format!("one\n[{big}]\nthree\n");
        assert_eq!(String::from_utf8(all).unwrap(), expected);
    }

    /// A reader slightly slower than the writer keeps the queue from ever
    /// emptying; what the queue holds must still follow the backlog, not
    /// the total output.
    #[test]
    fn memory_follows_the_backlog_when_the_queue_never_empties() {
        const LIMIT: usize = 64 * 1024;
        let (mut read, write) = tokio::io::duplex(4096);
        let mut writer = FrameWriter::new(Box::pin(write));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut buf = [0u8; 900];
        let mut total_read = 0;
        let mut most_held = 0;
        for i in 0..20_000 {
            // The main loop's back-pressure: no new frames past the limit.
            if writer.backlog() < LIMIT {
                let size = if i % 5_000 == 0 { 40_000 } else { 1_000 };
                writer.push(Frame::Owned(vec![b'x'; size], FrameKind::Message));
            }
            let _ = writer.poll_flush(&mut cx);
            let mut read_buf = tokio::io::ReadBuf::new(&mut buf);
            if let Poll::Ready(Ok(())) = Pin::new(&mut read).poll_read(&mut cx, &mut read_buf) {
                total_read += read_buf.filled().len();
            }
            most_held = most_held.max(writer.held());
        }
        assert!(
            total_read > 10_000_000,
            "only {total_read} bytes went through"
        );
        assert!(
            most_held <= 2 * LIMIT + SEGMENT_SIZE + 40_000,
            "the queue held {most_held} bytes"
        );
    }
}
