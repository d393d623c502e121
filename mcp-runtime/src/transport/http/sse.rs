//! Response bodies: one JSON message, nothing, or a Server-Sent Events
//! stream fed by a call's frames. The stream is bounded: a client that
//! reads slowly makes the server drop notifications (progress, logs), never
//! the final response, so its memory cannot grow without bound.

use crate::protocol::frame::{Frame, FrameKind};
use crate::session::connection::Connection;
use bytes::Bytes;
use hyper::body::{Body, Frame as BodyFrame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Weak;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// SSE events a stream may hold unread before notifications are dropped.
const STREAM_BUFFER: usize = 64;

/// The body of a response of [`HttpService`](super::HttpService).
#[derive(Debug)]
pub struct HttpBody {
    kind: Kind,
    /// Lives as long as the body (the count of requests being answered).
    guard: Option<Box<dyn std::any::Any + Send + Sync>>,
}

#[derive(Debug)]
enum Kind {
    Full(Option<Bytes>),
    Stream {
        events: mpsc::Receiver<Bytes>,
        /// Cancels the calls of the stream's request when the client goes
        /// away before the end (dropping the body is how hyper says so).
        _cancel: CancelOnDrop,
        /// What must live as long as the stream (a subscription's
        /// connection, a legacy session's push slot).
        _keep: Option<Box<dyn std::any::Any + Send + Sync>>,
    },
}

impl HttpBody {
    /// A body of these bytes.
    pub(crate) fn full(bytes: impl Into<Bytes>) -> HttpBody {
        HttpBody {
            kind: Kind::Full(Some(bytes.into())),
            guard: None,
        }
    }

    /// No body.
    pub(crate) fn empty() -> HttpBody {
        HttpBody {
            kind: Kind::Full(None),
            guard: None,
        }
    }

    /// An SSE stream: `first`, then the frames still to come on `frames`,
    /// until a response (when `until_response`) or until `frames` closes;
    /// `keep` lives as long as the stream.
    pub(crate) fn stream(
        first: Option<Frame>,
        frames: mpsc::UnboundedReceiver<Frame>,
        connection: Weak<Connection>,
        until_response: bool,
        keep: Option<Box<dyn std::any::Any + Send + Sync>>,
    ) -> HttpBody {
        let (tx, events) = mpsc::channel(STREAM_BUFFER);
        tokio::spawn(forward(first, frames, tx, until_response));
        HttpBody {
            kind: Kind::Stream {
                events,
                _cancel: CancelOnDrop(connection),
                _keep: keep,
            },
            guard: None,
        }
    }
}

impl HttpBody {
    /// This body, keeping `guard` (and what it kept already) until it is
    /// dropped.
    pub(crate) fn holding(mut self, guard: impl std::any::Any + Send + Sync) -> HttpBody {
        self.guard = Some(match self.guard.take() {
            None => Box::new(guard),
            Some(earlier) => Box::new((earlier, guard)),
        });
        self
    }
}

/// Moves frames into the bounded event channel: notifications are dropped
/// when it is full, responses wait for room.
async fn forward(
    first: Option<Frame>,
    mut frames: mpsc::UnboundedReceiver<Frame>,
    events: mpsc::Sender<Bytes>,
    until_response: bool,
) {
    let mut next = match first {
        Some(first) => Some(first),
        None => frames.recv().await,
    };
    let mut dropped = 0_u64;
    while let Some(frame) = next.take() {
        let kind = frame.kind();
        let event = event(frame);
        if kind == FrameKind::Message {
            match events.try_send(event) {
                Ok(()) => {}
                Err(mpsc::error::TrySendError::Full(_)) => dropped += 1,
                Err(mpsc::error::TrySendError::Closed(_)) => return,
            }
        } else {
            if events.send(event).await.is_err() {
                return;
            }
            if until_response {
                break;
            }
        }
        next = frames.recv().await;
    }
    if dropped > 0 {
        tracing::warn!(
            dropped,
            "a client read its event stream too slowly; notifications were dropped"
        );
    }
}

/// One frame as an SSE `message` event.
fn event(frame: Frame) -> Bytes {
    let bytes = frame.into_bytes();
    let mut event = Vec::with_capacity(bytes.len() + 24);
    event.extend_from_slice(b"event: message\ndata: ");
    // The frame ends with its newline; the blank line ends the event.
    event.extend_from_slice(&bytes);
    event.push(b'\n');
    Bytes::from(event)
}

/// Cancels every call of a request's connection when dropped; calls that
/// have finished are gone from it, so this is a no-op after a normal end.
#[derive(Debug)]
pub(crate) struct CancelOnDrop(pub(crate) Weak<Connection>);

impl CancelOnDrop {
    /// The connection, without cancelling it (its guard moves on).
    pub(crate) fn disarm(mut self) -> Weak<Connection> {
        std::mem::take(&mut self.0)
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(connection) = self.0.upgrade() {
            connection.fail_server_requests();
            let cancelled = connection.cancel_all();
            if !cancelled.is_empty() {
                tracing::debug!(
                    calls = cancelled.len(),
                    "the client went away; cancelled its calls"
                );
            }
        }
    }
}

impl Body for HttpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<BodyFrame<Bytes>, Infallible>>> {
        match &mut self.kind {
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(BodyFrame::data(b)))),
            Kind::Stream { events, .. } => events
                .poll_recv(cx)
                .map(|event| event.map(|b| Ok(BodyFrame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.kind, Kind::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Full(Some(bytes)) => SizeHint::with_exact(bytes.len() as u64),
            Kind::Full(None) => SizeHint::with_exact(0),
            Kind::Stream { .. } => SizeHint::default(),
        }
    }
}
