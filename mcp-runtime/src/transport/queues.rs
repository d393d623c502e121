//! An in-memory adapter of the driver, message-framed: the client's
//! messages arrive whole on one queue and the server's frames leave whole
//! on a bounded other, with no bytes and no framing in between. It is what
//! a message-framed transport (a WebSocket) needs and no more, and it lets
//! the driver's policy be tested without a byte stream (the tests of
//! `driver.rs`); the public [`testing::memory`](crate::testing::memory)
//! pair is a byte stream, served by the line adapter like stdio.

use super::driver::{Message, MessageTransport};
use crate::protocol::frame::Frame;
use crate::protocol::id_scan::IdScanner;
use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};
use tokio::sync::mpsc;

type Reserving = Pin<
    Box<dyn Future<Output = Result<mpsc::OwnedPermit<Vec<u8>>, mpsc::error::SendError<()>>> + Send>,
>;

/// The server's end: an adapter of [`MessageTransport`].
pub(crate) struct Queues {
    incoming: mpsc::UnboundedReceiver<Vec<u8>>,
    /// The message last delivered, borrowed by the driver until the next.
    current: Vec<u8>,
    max_message_size: usize,
    /// Finds the request id of an oversized message.
    scanner: IdScanner,
    /// Messages delivered so far (what back-pressure holds back is not).
    taken: Arc<AtomicUsize>,
    outgoing: mpsc::Sender<Vec<u8>>,
    /// Waiting for room on the client's queue for the front frame.
    reserving: Option<Reserving>,
    queue: VecDeque<Frame>,
    backlog: usize,
    /// Completes when the client drops its receiving end.
    closed: Pin<Box<dyn Future<Output = ()> + Send>>,
}

/// The client's end.
#[derive(Debug)]
pub(crate) struct Peer {
    /// Messages to the server; dropping it ends the server's input.
    pub(crate) to_server: mpsc::UnboundedSender<Vec<u8>>,
    /// Frames from the server, each one message; dropping it is the client
    /// going away.
    pub(crate) from_server: mpsc::Receiver<Vec<u8>>,
    /// How many messages the server has taken.
    pub(crate) taken: Arc<AtomicUsize>,
}

/// A connected pair whose server end holds at most `room` frames the
/// client has not received (then its backlog grows) and refuses messages
/// longer than `max_message_size`.
pub(crate) fn pair(room: usize, max_message_size: usize) -> (Peer, Queues) {
    let (to_server, incoming) = mpsc::unbounded_channel();
    let (outgoing, from_server) = mpsc::channel(room);
    let taken = Arc::new(AtomicUsize::new(0));
    let watched = outgoing.clone();
    let queues = Queues {
        incoming,
        current: Vec::new(),
        max_message_size,
        scanner: IdScanner::default(),
        taken: Arc::clone(&taken),
        outgoing,
        reserving: None,
        queue: VecDeque::new(),
        backlog: 0,
        closed: Box::pin(async move { watched.closed().await }),
    };
    let peer = Peer {
        to_server,
        from_server,
        taken,
    };
    (peer, queues)
}

impl MessageTransport for Queues {
    fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<Message<'_>>>> {
        let Some(message) = ready!(self.incoming.poll_recv(cx)) else {
            return Poll::Ready(Ok(None));
        };
        self.taken.fetch_add(1, Ordering::Relaxed);
        self.current = message;
        if self.current.len() > self.max_message_size {
            self.scanner.reset();
            self.scanner.feed(&self.current);
            return Poll::Ready(Ok(Some(Message::Oversized {
                len: self.current.len(),
                id: self.scanner.id(),
            })));
        }
        Poll::Ready(Ok(Some(Message::Bytes(&self.current))))
    }

    fn push(&mut self, frame: Frame) {
        self.backlog += frame.byte_len();
        self.queue.push_back(frame);
    }

    fn backlog(&self) -> usize {
        self.backlog
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.queue.is_empty() {
            let outgoing = &self.outgoing;
            let reserving = self
                .reserving
                .get_or_insert_with(|| Box::pin(outgoing.clone().reserve_owned()));
            let permit = ready!(reserving.as_mut().poll(cx));
            self.reserving = None;
            let permit = permit.map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
            if let Some(frame) = self.queue.pop_front() {
                self.backlog -= frame.byte_len();
                permit.send(frame.into_bytes());
            }
        }
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(&mut self, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // The client sees the end when this end is dropped, with the driver.
        Poll::Ready(Ok(()))
    }

    fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.closed.as_mut().poll(cx)
    }
}
