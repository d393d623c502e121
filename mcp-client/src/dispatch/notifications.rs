//! The bounded queue of server notifications and the task that hands
//! them to the handler in order.

use super::handler::{Handler, ServerNotification};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::mpsc;

/// The sending end of the queue, kept by the routing task: a notification
/// past either bound (count or bytes) is dropped, with one warning when
/// dropping starts and one when the handler catches up.
#[derive(Debug)]
pub(super) struct NotificationQueue {
    sender: mpsc::Sender<ServerNotification>,
    /// Bytes of notifications in the queue.
    queued: Arc<AtomicUsize>,
    /// The most bytes the queue may hold.
    max_bytes: usize,
    /// The most notifications it may hold (for the warning).
    max_count: usize,
    /// Notifications dropped since the last warning.
    dropped: u64,
}

impl NotificationQueue {
    /// A queue of at most `max_count` notifications and `max_bytes` bytes,
    /// and the task's end of it: the receiver and the byte count that
    /// [`deliver_notifications`] decreases.
    pub(super) fn new(
        max_count: usize,
        max_bytes: usize,
    ) -> (Self, mpsc::Receiver<ServerNotification>, Arc<AtomicUsize>) {
        let (sender, receiver) = mpsc::channel(max_count.max(1));
        let queued = Arc::new(AtomicUsize::new(0));
        let queue = NotificationQueue {
            sender,
            queued: Arc::clone(&queued),
            max_bytes,
            max_count,
            dropped: 0,
        };
        (queue, receiver, queued)
    }

    /// Queues `notification` from the server `server`; whether it was
    /// queued (false: dropped).
    pub(super) fn push(&mut self, server: &str, notification: ServerNotification) -> bool {
        let size = queued_size(&notification);
        let sent = if self.queued.load(Ordering::Relaxed) + size > self.max_bytes {
            Err(mpsc::error::TrySendError::Full(notification))
        } else {
            self.queued.fetch_add(size, Ordering::Relaxed);
            let sent = self.sender.try_send(notification);
            if sent.is_err() {
                self.queued.fetch_sub(size, Ordering::Relaxed);
            }
            sent
        };
        match sent {
            Ok(()) => {
                if self.dropped > 0 {
                    tracing::warn!(
                        server = %server,
                        dropped = self.dropped,
                        "the handler caught up; notifications were dropped meanwhile"
                    );
                    self.dropped = 0;
                }
                true
            }
            Err(mpsc::error::TrySendError::Full(_)) => {
                if self.dropped == 0 {
                    tracing::warn!(
                        server = %server,
                        limit = self.max_count,
                        "dropping notifications: the handler fell behind"
                    );
                }
                self.dropped += 1;
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }
}

/// What a queued notification counts against the byte bound.
fn queued_size(notification: &ServerNotification) -> usize {
    notification.method.len() + notification.params.as_ref().map_or(0, |p| p.get().len())
}

/// Hands the queued notifications to `handler`, in order, one at a time.
pub(super) async fn deliver_notifications(
    handler: Arc<dyn Handler>,
    mut queue: mpsc::Receiver<ServerNotification>,
    queued: Arc<AtomicUsize>,
) {
    while let Some(notification) = queue.recv().await {
        queued.fetch_sub(queued_size(&notification), Ordering::Relaxed);
        handler.notification(notification).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    /// A notification of `len` bytes as the byte bound counts them.
    fn sized(len: usize) -> ServerNotification {
        let params = RawValue::from_string("{}".into()).ok();
        ServerNotification {
            method: "m".repeat(len - 2),
            params,
        }
    }

    #[test]
    fn the_count_bound_holds_at_the_bound_and_frees_as_the_handler_takes() {
        let (mut queue, mut receiver, queued) = NotificationQueue::new(2, 1 << 20);
        assert!(queue.push("s", sized(10)));
        assert!(queue.push("s", sized(10)));
        assert!(!queue.push("s", sized(10)));
        assert_eq!(queued.load(Ordering::Relaxed), 20);
        assert!(receiver.try_recv().is_ok());
        assert!(queue.push("s", sized(10)));
        assert_eq!(queue.dropped, 0);
    }

    #[test]
    fn the_byte_bound_takes_exactly_its_bytes_and_not_one_more() {
        let (mut queue, _receiver, queued) = NotificationQueue::new(100, 25);
        assert!(queue.push("s", sized(10)));
        assert!(!queue.push("s", sized(16)));
        assert!(queue.push("s", sized(15)));
        assert!(!queue.push("s", sized(3)));
        assert_eq!(queued.load(Ordering::Relaxed), 25);
        // Reset by the one queued in between.
        assert_eq!(queue.dropped, 1);
    }

    #[tokio::test]
    async fn delivery_is_in_order_and_gives_the_bytes_back() {
        #[derive(Default)]
        struct Recorder(std::sync::Mutex<Vec<String>>);
        impl Handler for Recorder {
            fn notification(
                &self,
                notification: ServerNotification,
            ) -> crate::transport::BoxFuture<'_, ()> {
                self.0.lock().unwrap().push(notification.method);
                Box::pin(async {})
            }
        }
        let (mut queue, receiver, queued) = NotificationQueue::new(4, 100);
        assert!(queue.push("s", sized(3)));
        assert!(queue.push("s", sized(4)));
        drop(queue);
        let handler = Arc::new(Recorder::default());
        deliver_notifications(handler.clone(), receiver, Arc::clone(&queued)).await;
        assert_eq!(*handler.0.lock().unwrap(), ["m", "mm"]);
        assert_eq!(queued.load(Ordering::Relaxed), 0);
    }
}
