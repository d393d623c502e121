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
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// How often, at most, the warning about dropped notifications is logged
/// per connection: a client that does not read would otherwise turn every
/// dropped notification into a log line.
const WARN_EVERY: Duration = Duration::from_secs(10);

/// Makes an outbox holding at most `limit` unreleased bytes of
/// notifications, and the receiving end the transport takes frames from.
///
/// One allocation for the channel and its count together (and the queue's
/// own on the first frame): an HTTP POST makes one of these per request,
/// and tokio's unbounded channel cost it three allocations and a 32-slot
/// block for a queue that holds a frame or two, with one sender and one
/// receiver (a measured share of an HTTP call's instructions:
/// BENCHMARKS.md).
pub(crate) fn channel(limit: usize) -> (Outbox, Frames) {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue::default()),
        budget: Budget {
            limit,
            queued: AtomicUsize::new(0),
            unreported: AtomicU64::new(0),
            last_warning: Mutex::new(None),
        },
    });
    (
        Outbox {
            shared: Arc::clone(&shared),
        },
        Frames {
            shared,
            release_on_receive: true,
        },
    )
}

/// The queue and the count both ends share.
#[derive(Debug)]
struct Shared {
    queue: Mutex<Queue>,
    budget: Budget,
}

/// The frames not yet received, and who waits for them.
#[derive(Debug, Default)]
struct Queue {
    frames: VecDeque<Frame>,
    /// The receiver's waker while it waits for a frame.
    waker: Option<Waker>,
    /// The [`Outbox`] is gone: once `frames` is empty, no more will come.
    closed: bool,
    /// The [`Frames`] are gone: what is sent now is dropped at once.
    unread: bool,
}

/// The sending end, held by the [`Connection`](super::connection::Connection).
#[derive(Debug)]
pub(crate) struct Outbox {
    shared: Arc<Shared>,
}

impl Outbox {
    /// Queues `frame`, whatever the bound: responses and requests to the
    /// client are never dropped.
    pub(crate) fn send(&self, frame: Frame) {
        self.shared
            .budget
            .queued
            .fetch_add(frame.byte_len(), Ordering::Relaxed);
        self.push(frame);
    }

    /// Queues the notification `frame` unless it would take the queued bytes
    /// past the bound; a dropped one is counted and reported.
    pub(crate) fn send_lossy(&self, frame: Frame) {
        let budget = &self.shared.budget;
        let len = frame.byte_len();
        // Reserve first, so concurrent senders cannot together overshoot.
        let before = budget.queued.fetch_add(len, Ordering::Relaxed);
        if before.saturating_add(len) > budget.limit {
            budget.queued.fetch_sub(len, Ordering::Relaxed);
            budget.dropped();
            return;
        }
        self.push(frame);
    }

    fn push(&self, frame: Frame) {
        let mut queue = lock(&self.shared.queue);
        // The receiver went away with the output: nothing to tell (its
        // bytes will never be released, and no one reads them).
        if queue.unread {
            return;
        }
        queue.frames.push_back(frame);
        wake_receiver(queue);
    }
}

impl Drop for Outbox {
    /// The receiver sees the end once it has taken what is queued.
    fn drop(&mut self) {
        let mut queue = lock(&self.shared.queue);
        queue.closed = true;
        wake_receiver(queue);
    }
}

/// Wakes the receiver if it waits, after the lock is released (its task
/// may run at once on another thread and take the lock).
fn wake_receiver(mut queue: MutexGuard<'_, Queue>) {
    let waker = queue.waker.take();
    drop(queue);
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// The receiving end: the transport's source of frames.
#[derive(Debug)]
pub(crate) struct Frames {
    shared: Arc<Shared>,
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
        Release(Arc::clone(&self.shared))
    }

    fn received(&self, frame: Frame) -> Frame {
        if self.release_on_receive {
            self.shared.budget.release(frame.byte_len());
        }
        frame
    }

    /// The next frame, polled; `None` once the outbox is gone and empty.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Frame>> {
        let mut queue = lock(&self.shared.queue);
        if let Some(frame) = queue.frames.pop_front() {
            drop(queue);
            return Poll::Ready(Some(self.received(frame)));
        }
        if queue.closed {
            return Poll::Ready(None);
        }
        match &mut queue.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// A frame if one is queued (for the test context).
    pub(crate) fn try_recv(&mut self) -> Option<Frame> {
        let frame = lock(&self.shared.queue).frames.pop_front()?;
        Some(self.received(frame))
    }
}

impl Drop for Frames {
    /// What is queued goes now, not with the last sender.
    fn drop(&mut self) {
        let mut queue = lock(&self.shared.queue);
        queue.unread = true;
        let unread = std::mem::take(&mut queue.frames);
        queue.waker = None;
        drop(queue);
        drop(unread);
    }
}

/// Gives queued bytes back to the outbox's bound once they left the server.
#[derive(Clone, Debug)]
pub(crate) struct Release(Arc<Shared>);

impl Release {
    /// `bytes` of queued frames have been written or handed on.
    pub(crate) fn release(&self, bytes: usize) {
        self.0.budget.release(bytes);
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
    fn release(&self, bytes: usize) {
        // Saturating: a frame received before `release_when_written` was
        // released already; never wrap around.
        let _ = self
            .queued
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |queued| {
                Some(queued.saturating_sub(bytes))
            });
    }

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

    /// A waker that counts its wakes.
    struct Counting(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Counting {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn a_waiting_receiver_is_woken_by_a_frame_and_by_the_end() {
        let (out, mut frames) = channel(usize::MAX);
        let counter = Arc::new(Counting(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&counter));
        let mut cx = Context::from_waker(&waker);
        assert!(frames.poll_recv(&mut cx).is_pending());
        out.send(frame(3, FrameKind::Result));
        assert_eq!(counter.0.load(Ordering::Relaxed), 1);
        assert!(matches!(frames.poll_recv(&mut cx), Poll::Ready(Some(_))));
        assert!(frames.poll_recv(&mut cx).is_pending());
        // Queued before the outbox went: still received, then the end.
        out.send(frame(3, FrameKind::Result));
        drop(out);
        assert_eq!(counter.0.load(Ordering::Relaxed), 2);
        assert!(matches!(frames.poll_recv(&mut cx), Poll::Ready(Some(_))));
        assert!(matches!(frames.poll_recv(&mut cx), Poll::Ready(None)));
    }

    #[test]
    fn frames_sent_after_the_receiver_is_gone_are_dropped_at_once() {
        let (out, frames) = channel(usize::MAX);
        out.send(Frame::Owned(b"{}".to_vec(), FrameKind::Result));
        assert_eq!(lock(&out.shared.queue).frames.len(), 1);
        drop(frames);
        assert!(
            lock(&out.shared.queue).frames.is_empty(),
            "dropped with the receiver"
        );
        out.send(frame(3, FrameKind::Result));
        assert!(lock(&out.shared.queue).frames.is_empty());
    }
}
