//! The frame writer: queues frames and writes them when the main loop has
//! nothing left to read, several frames per write, large shared bodies
//! without copying them.

use crate::protocol::frame::Frame;
use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use tokio::io::AsyncWrite;

/// Frames at least this big stay a segment of their own instead of being
/// copied into the batch.
const SHARE_THRESHOLD: usize = 16 * 1024;

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
        }
    }

    /// Bytes queued and not yet written.
    pub(crate) fn backlog(&self) -> usize {
        self.backlog
    }

    /// Queues a frame.
    pub(crate) fn push(&mut self, frame: Frame) {
        match frame {
            Frame::Owned(bytes) => self.push_bytes(&bytes),
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

    fn push_bytes(&mut self, bytes: &[u8]) {
        self.backlog += bytes.len();
        // Appending to a segment the writer has started on is fine: only its
        // written prefix is fixed.
        if let Some(Segment::Bytes(last)) = self.queue.back_mut() {
            last.extend_from_slice(bytes);
        } else {
            let mut segment = Vec::with_capacity(bytes.len().max(8 * 1024));
            segment.extend_from_slice(bytes);
            self.queue.push_back(Segment::Bytes(segment));
        }
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
            self.queue.pop_front();
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
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn frames_come_out_whole_and_in_order() {
        let (mut read, write) = tokio::io::duplex(64);
        let mut writer = FrameWriter::new(Box::pin(write));
        let big: Arc<str> = Arc::from("x".repeat(40_000));
        writer.push(Frame::Owned(b"one\n".to_vec()));
        writer.push(Frame::Shared {
            head: b"[".to_vec(),
            body: Arc::clone(&big),
            tail: b"]\n".to_vec(),
        });
        writer.push(Frame::Owned(b"three\n".to_vec()));
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
}
