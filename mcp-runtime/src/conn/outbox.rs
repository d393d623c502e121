//! A connection's outbox: the channel frames go out on, bounded in bytes.
//!
//! Every frame is counted from when it is queued until the transport has
//! taken it off the server's hands (stdio: written to the pipe; an SSE
//! stream: handed to hyper, whose own buffer is bounded). Responses, errors
//! and requests to the client are always queued: a client must get the
//! answer to what it asked, and the transports bound those by bounding what
//! they read. Notifications a tool emits at will (progress, log messages)
//! are the one thing a call can produce without limit while the client does
//! not read, so past the bound they are dropped and counted, with a
//! rate-limited warning that says how many.

use crate::protocol::frame::Frame;
use crate::util::lock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How often, at most, the warning about dropped notifications is logged
/// per connection: a client that does not read would otherwise turn every
/// dropped notification into a log line.
const WARN_EVERY: Duration = Duration::from_secs(10);

/// Makes an outbox holding at most `limit` unreleased bytes of
/// notifications, and the receiving end the transport takes frames from.
pub(crate) fn channel(limit: usize) -> (Outbox, Frames) {
    let (tx, rx) = mpsc::unbounded_channel();
    let budget = Arc::new(Budget {
        limit,
        queued: AtomicUsize::new(0),
        unreported: AtomicU64::new(0),
        last_warning: Mutex::new(None),
    });
    (
        Outbox {
            tx,
            budget: Release(Arc::clone(&budget)),
        },
        Frames {
            rx,
            budget: Release(budget),
            release_on_receive: true,
        },
    )
}

/// The sending end, held by the [`Connection`](super::connection::Connection).
#[derive(Debug)]
pub(crate) struct Outbox {
    tx: mpsc::UnboundedSender<Frame>,
    budget: Release,
}

impl Outbox {
    /// Queues `frame`, whatever the bound: responses and requests to the
    /// client are never dropped.
    pub(crate) fn send(&self, frame: Frame) {
        self.budget
            .0
            .queued
            .fetch_add(frame.byte_len(), Ordering::Relaxed);
        // The receiver only goes away with the output; nothing to tell then
        // (its bytes will never be released, and no one reads them).
        let _ = self.tx.send(frame);
    }

    /// Queues the notification `frame` unless it would take the queued bytes
    /// past the bound; a dropped one is counted and reported.
    pub(crate) fn send_lossy(&self, frame: Frame) {
        let budget = &self.budget.0;
        let len = frame.byte_len();
        // Reserve first, so concurrent senders cannot together overshoot.
        let before = budget.queued.fetch_add(len, Ordering::Relaxed);
        if before.saturating_add(len) > budget.limit {
            budget.queued.fetch_sub(len, Ordering::Relaxed);
            budget.dropped();
            return;
        }
        let _ = self.tx.send(frame);
    }
}

/// The receiving end: the transport's source of frames.
#[derive(Debug)]
pub(crate) struct Frames {
    rx: mpsc::UnboundedReceiver<Frame>,
    budget: Release,
    /// Whether a frame's bytes are released as it is received (else the
    /// holder of [`Frames::release_when_written`]'s handle releases them).
    release_on_receive: bool,
}

impl Frames {
    /// From now on frames stay counted after they are received, until the
    /// returned handle releases their bytes (the stdio writer, as it writes
    /// them): what waits in the writer's queue is still unwritten output.
    pub(crate) fn release_when_written(&mut self) -> Release {
        self.release_on_receive = false;
        self.budget.clone()
    }

    fn received(&self, frame: Option<Frame>) -> Option<Frame> {
        if self.release_on_receive
            && let Some(frame) = &frame
        {
            self.budget.release(frame.byte_len());
        }
        frame
    }

    /// The next frame; `None` once every sender is gone.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) async fn recv(&mut self) -> Option<Frame> {
        let frame = self.rx.recv().await;
        self.received(frame)
    }

    /// [`Frames::recv`], polled.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Frame>> {
        let frame = std::task::ready!(self.rx.poll_recv(cx));
        Poll::Ready(self.received(frame))
    }

    /// A frame if one is queued (for the test context).
    pub(crate) fn try_recv(&mut self) -> Option<Frame> {
        let frame = self.rx.try_recv().ok();
        self.received(frame)
    }
}

/// Gives queued bytes back to the outbox's bound once they left the server.
#[derive(Clone, Debug)]
pub(crate) struct Release(Arc<Budget>);

impl Release {
    /// `bytes` of queued frames have been written or handed on.
    pub(crate) fn release(&self, bytes: usize) {
        // Saturating: a frame received before `release_when_written` was
        // released already; never wrap around.
        let _ = self
            .0
            .queued
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |queued| {
                Some(queued.saturating_sub(bytes))
            });
    }
}

/// The shared count of one outbox.
#[derive(Debug)]
struct Budget {
    limit: usize,
    /// Bytes queued and not yet released.
    queued: AtomicUsize,
    /// Notifications dropped since the last warning.
    unreported: AtomicU64,
    /// When the last warning was logged.
    last_warning: Mutex<Option<Instant>>,
}

impl Budget {
    /// Counts a dropped notification, and says so unless it was said less
    /// than [`WARN_EVERY`] ago.
    fn dropped(&self) {
        self.unreported.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let mut last = lock(&self.last_warning);
        if last.is_some_and(|at| now.duration_since(at) < WARN_EVERY) {
            return;
        }
        *last = Some(now);
        drop(last);
        self.report();
    }

    fn report(&self) {
        let dropped = self.unreported.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            tracing::warn!(
                dropped,
                limit_bytes = self.limit,
                "the client is not reading its output: notifications (progress, log messages) were dropped"
            );
        }
    }
}

impl Drop for Budget {
    /// What was dropped since the last warning is said when the connection ends.
    fn drop(&mut self) {
        self.report();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::frame::FrameKind;

    fn frame(len: usize, kind: FrameKind) -> Frame {
        Frame::Owned(vec![b'x'; len], kind)
    }

    #[test]
    fn notifications_past_the_bound_are_dropped_responses_never() {
        let (out, mut frames) = channel(100);
        out.send_lossy(frame(60, FrameKind::Message));
        out.send_lossy(frame(60, FrameKind::Message));
        out.send(frame(60, FrameKind::Result));
        out.send(frame(
            60,
            FrameKind::Error(crate::protocol::ErrorCode::INVALID_PARAMS),
        ));
        let kinds: Vec<FrameKind> = std::iter::from_fn(|| frames.try_recv())
            .map(|f| f.kind())
            .collect();
        assert_eq!(kinds.len(), 3, "{kinds:?}");
        assert_eq!(kinds[0], FrameKind::Message);
        assert_eq!(kinds[1], FrameKind::Result);
        // Received frames were released: there is room again.
        out.send_lossy(frame(100, FrameKind::Message));
        assert!(frames.try_recv().is_some());
    }

    #[test]
    fn bytes_held_by_the_writer_count_until_released() {
        let (out, mut frames) = channel(100);
        let release = frames.release_when_written();
        out.send_lossy(frame(80, FrameKind::Message));
        assert!(frames.try_recv().is_some());
        out.send_lossy(frame(80, FrameKind::Message));
        assert!(frames.try_recv().is_none(), "still 80 bytes unwritten");
        release.release(80);
        out.send_lossy(frame(80, FrameKind::Message));
        assert!(frames.try_recv().is_some());
    }
}
