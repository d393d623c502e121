//! Response bodies: one JSON message, nothing, or a Server-Sent Events
//! stream fed by a call's frames. The stream is bounded in bytes: its
//! frames are taken from the connection's outbox only as hyper asks for
//! more body (which it does only while the socket takes what it has), and
//! the outbox drops notifications (progress, logs) past
//! `Server::max_sse_unwritten` unread bytes, never the final response, so a
//! client that reads slowly or not at all cannot grow the server's memory.

use super::cancel::CancelOnDrop;
use super::resume::{Parked, Resumable};
use crate::conn::connection::Connection;
use crate::conn::outbox::{self, Frames};
use crate::protocol::frame::{Frame, FrameKind};
use bytes::Bytes;
use hyper::body::{Body, Frame as BodyFrame, SizeHint};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};

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
        /// The frame that made this a stream, sent first.
        first: Option<Frame>,
        /// The rest; taking a frame releases its bytes from the outbox's
        /// bound, as hyper then holds them (in a buffer of its own bound).
        frames: Frames,
        /// The stream ends after the first response.
        until_response: bool,
        /// The response went out (with `until_response`): the stream is over.
        ended: bool,
        /// Cancels the calls of the stream's request when the client goes
        /// away before the end (dropping the body is how hyper says so).
        cancel: CancelOnDrop,
        /// What must live as long as the stream (a subscription's
        /// connection, a legacy session's push slot).
        keep: Option<Box<dyn std::any::Any + Send + Sync>>,
        /// Event ids, the call's request to close the stream, and what a
        /// resumed stream replays first (legacy POSTs: `resume.rs`); boxed,
        /// as other streams have none.
        resumable: Option<Box<Resumable>>,
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

    /// Whether this is an event stream.
    pub(crate) fn is_stream(&self) -> bool {
        matches!(self.kind, Kind::Stream { .. })
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
        frames: Frames,
        connection: Weak<Connection>,
        until_response: bool,
        keep: Option<Box<dyn std::any::Any + Send + Sync>>,
    ) -> HttpBody {
        HttpBody {
            kind: Kind::Stream {
                first,
                frames,
                until_response,
                ended: false,
                cancel: CancelOnDrop(connection),
                keep,
                resumable: None,
            },
            guard: None,
        }
    }

    /// This stream with event ids, closable by its call (`resume.rs`).
    pub(crate) fn resumable(mut self, with: Resumable) -> HttpBody {
        if let Kind::Stream { resumable, .. } = &mut self.kind {
            *resumable = Some(Box::new(with));
        }
        self
    }

    /// A closed stream resumed: `missed` replayed, then the call's frames.
    pub(crate) fn resumed(parked: Parked, missed: VecDeque<Bytes>) -> HttpBody {
        let mut resumable = parked.resumable;
        resumable.replay = missed;
        HttpBody {
            kind: Kind::Stream {
                first: None,
                frames: parked.frames,
                until_response: true,
                ended: false,
                cancel: parked.cancel,
                keep: parked.keep,
                resumable: Some(resumable),
            },
            guard: None,
        }
    }
}

/// No body: what a layer of your own answers with when it refuses a
/// request itself (tower-http's CORS preflight and header validation need
/// it).
impl Default for HttpBody {
    fn default() -> HttpBody {
        HttpBody::empty()
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

/// One frame as an SSE `message` event; with its id from `log`, when the
/// stream has one.
fn event(frame: Frame, resumable: Option<&mut Box<Resumable>>) -> Bytes {
    let message = message_event(frame);
    match resumable {
        Some(resumable) => resumable.log.event(&message),
        None => message,
    }
}

/// One frame as an SSE `message` event, without id.
fn message_event(frame: Frame) -> Bytes {
    let bytes = frame.into_bytes();
    let mut event = Vec::with_capacity(bytes.len() + 24);
    event.extend_from_slice(b"event: message\ndata: ");
    // The frame ends with its newline; the blank line ends the event.
    event.extend_from_slice(&bytes);
    event.push(b'\n');
    Bytes::from(event)
}

/// `body` as a `200` event stream: `text/event-stream`, not cached, and
/// not buffered by a proxy in front (nginx's `X-Accel-Buffering`), so each
/// event reaches the client as it is written.
pub(crate) fn event_stream(body: HttpBody) -> hyper::Response<HttpBody> {
    use hyper::header::{self, HeaderValue};
    let mut response = hyper::Response::new(body);
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
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
            Kind::Stream {
                first,
                frames,
                until_response,
                ended,
                cancel,
                keep,
                resumable,
            } => {
                if *ended {
                    return Poll::Ready(None);
                }
                if let Some(event) = resumable.as_mut().and_then(|r| r.replay.pop_front()) {
                    return Poll::Ready(Some(Ok(BodyFrame::data(event))));
                }
                let frame = match first.take() {
                    Some(frame) => frame,
                    None => {
                        if let Some(closing) = resumable
                            .as_ref()
                            .filter(|r| r.close.poll_take(cx).is_ready())
                        {
                            // The call asked to close the stream: it ends
                            // with an event to resume from, and the call's
                            // frames wait in its session for the client.
                            let parked = Arc::clone(&closing.parked);
                            let Some(mut resumable) = resumable.take() else {
                                return Poll::Ready(None);
                            };
                            let close = resumable.log.close_event();
                            *ended = true;
                            parked.park(Parked {
                                resumable,
                                frames: std::mem::replace(frames, outbox::channel(0).1),
                                cancel: std::mem::replace(cancel, CancelOnDrop(Weak::new())),
                                keep: keep.take(),
                            });
                            return Poll::Ready(Some(Ok(BodyFrame::data(close))));
                        }
                        match std::task::ready!(frames.poll_recv(cx)) {
                            Some(frame) => frame,
                            None => return Poll::Ready(None),
                        }
                    }
                };
                if *until_response && frame.kind() != FrameKind::Message {
                    *ended = true;
                }
                Poll::Ready(Some(Ok(BodyFrame::data(event(frame, resumable.as_mut())))))
            }
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
