//! The bounded queue of server notifications and the task that hands
//! them to the handler in order.

use super::handler::{Handler, ServerNotification};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::mpsc;

/// What a queued notification counts against the byte bound.
pub(super) fn queued_size(notification: &ServerNotification) -> usize {
    notification.method.len() + notification.params.as_ref().map_or(0, |p| p.get().len())
}

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
