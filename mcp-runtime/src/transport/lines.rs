//! The byte-stream adapter of the driver: newline-delimited messages in
//! (`codec.rs`), frames out in vectored writes (`writer.rs`), over any
//! async reader and writer; stdio adds a watch on the output's closing and
//! its deferred guard thread ([`Output`]).

use super::codec::LineReader;
use super::driver::{Message, MessageTransport};
use super::writer::FrameWriter;
use crate::protocol::frame::Frame;
use crate::shared::Shared;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

/// The output side of a byte-stream connection.
pub(crate) struct Output {
    /// Where frames are written.
    pub(crate) writer: Pin<Box<dyn AsyncWrite + Send>>,
    /// Completes when the client can no longer read what is written (for
    /// stdio: the read end of the stdout pipe was closed); never, for
    /// outputs where that cannot be watched.
    pub(crate) closed: Pin<Box<dyn Future<Output = ()> + Send>>,
    /// See [`MessageTransport::take_deferred`].
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

/// Serves one byte-stream connection (stdio, or any reader/writer pair)
/// with [`drive`](super::driver::drive): lines of at most
/// `max_message_size` bytes in, frames out.
pub(crate) async fn serve<R: AsyncRead + Unpin>(
    shared: Arc<Shared>,
    max_message_size: usize,
    drain: Duration,
    input: R,
    output: Output,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let transport = Lines {
        reader: LineReader::new(input, max_message_size),
        writer: FrameWriter::new(output.writer),
        closed: output.closed,
        deferred: output.deferred,
    };
    super::driver::drive(shared, transport, max_message_size, drain, shutdown).await
}

/// Newline-delimited JSON-RPC over a byte stream.
struct Lines<R> {
    reader: LineReader<R>,
    writer: FrameWriter,
    closed: Pin<Box<dyn Future<Output = ()> + Send>>,
    deferred: Option<fn()>,
}

impl<R: AsyncRead + Unpin> MessageTransport for Lines<R> {
    fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<Message<'_>>>> {
        self.reader.poll_next(cx)
    }

    fn push(&mut self, frame: Frame) {
        self.writer.push(frame);
    }

    fn backlog(&self) -> usize {
        self.writer.backlog()
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.writer.poll_flush(cx)
    }

    fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.writer.poll_shutdown(cx)
    }

    fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.closed.as_mut().poll(cx)
    }

    fn take_deferred(&mut self) -> Option<fn()> {
        self.deferred.take()
    }
}
