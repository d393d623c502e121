//! What the dispatcher's tasks share: the transport, the pending table,
//! the queue of replies owed to the server, and the shutdown.

use super::config::DispatcherConfig;
use super::pending::State;
use crate::error::{ClientError, RpcError};
use crate::jsonrpc;
use crate::transport::{Outgoing, Transport};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::AbortHandle;

pub(super) struct Shared {
    pub(super) config: DispatcherConfig,
    pub(super) transport: Box<dyn Transport>,
    pub(super) state: Mutex<State>,
    pub(super) next_id: AtomicU64,
    /// The server's requests being answered, by the JSON text of their id.
    pub(super) server_requests: Mutex<HashMap<String, AbortHandle>>,
    /// One permit per request that may wait for its answer.
    pub(super) slots: Arc<Semaphore>,
    /// Replies owed to the server, for the writer task.
    pub(super) replies: mpsc::Sender<Owed>,
    /// One permit per byte of reply that may wait in `replies`.
    pub(super) reply_bytes: Arc<Semaphore>,
}

/// A reply waiting to be written, holding its share of the byte bound.
pub(super) struct Owed {
    pub(super) body: String,
    pub(super) _bytes: OwnedSemaphorePermit,
}

impl Shared {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks the connection over and fails every waiting request with `reason`.
    pub(super) fn shut(&self, reason: ClientError) {
        let pending = {
            let mut state = self.lock();
            if state.closed.is_none() {
                state.closed = Some(reason.clone());
            }
            let pending = std::mem::take(&mut state.pending);
            // A server closed on purpose may still answer them as it ends.
            for id in pending.keys() {
                state.abandon(*id);
            }
            pending
        };
        for (_, waiter) in pending {
            let _ = waiter.send(Err(reason.clone()));
        }
        for (_, task) in self
            .server_requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
        {
            task.abort();
        }
    }

    /// A send failed with `error`: if it means the connection is over (the
    /// process exited, the session expired), mark it so now, not only once
    /// the transport's own report comes through the inbox (the layer above
    /// would find it alive meanwhile). An HTTP `Disconnected` concerns that
    /// one request (a refused connect, a reset): the next may succeed.
    pub(super) fn lost(&self, error: &ClientError) {
        if matches!(
            error,
            ClientError::Exited { .. } | ClientError::SessionExpired | ClientError::Closed
        ) {
            self.shut(error.clone());
        }
    }

    /// Queues a reply to the server's request `id`. When the queue stays
    /// full for [`DispatcherConfig::unresponsive_after`], the server has
    /// stopped reading: the connection is ended.
    pub(super) async fn reply(&self, id: &RawValue, outcome: Result<&RawValue, &RpcError>) {
        self.owe(jsonrpc::response(id, outcome)).await;
    }

    /// Queues `body` (a reply, a cancellation) for the writer task, as
    /// [`reply`](Self::reply) does.
    pub(super) async fn owe(&self, body: String) {
        if self.lock().closed.is_some() {
            return;
        }
        // A reply larger than the whole bound waits for the queue to empty.
        let max = self
            .config
            .max_queued_reply_bytes
            .clamp(1, Semaphore::MAX_PERMITS)
            .min(u32::MAX as usize);
        let bytes = u32::try_from(body.len().clamp(1, max)).unwrap_or(u32::MAX);
        let queued = tokio::time::timeout(self.config.unresponsive_after, async {
            let permit = Arc::clone(&self.reply_bytes)
                .acquire_many_owned(bytes)
                .await
                .ok()?;
            self.replies
                .send(Owed {
                    body,
                    _bytes: permit,
                })
                .await
                .ok()
        })
        .await;
        if queued.is_err() {
            self.unresponsive();
        }
    }

    /// The server stopped reading: end the connection without waiting on it.
    pub(super) fn unresponsive(&self) {
        if self.lock().closed.is_some() {
            return;
        }
        let error = ClientError::Unresponsive {
            server: self.config.name.clone(),
            input: self.transport.input(),
            owed: self
                .config
                .max_queued_replies
                .saturating_sub(self.replies.capacity()),
        };
        tracing::warn!(server = %self.config.name, "{error}");
        self.shut(error);
        self.transport.terminate();
    }

    /// Sends `notifications/cancelled` for `id` in the background (a drop
    /// cannot wait).
    pub(super) fn cancel(
        self: &Arc<Self>,
        id: u64,
        method: &str,
        reason: &'static str,
        notify: bool,
    ) {
        self.transport.abandon(id);
        tracing::debug!(server = %self.config.name, id, method, reason, "request cancelled");
        if !notify || self.lock().closed.is_some() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let shared = Arc::clone(self);
        // Through the bounded queue of what the server is owed: a server
        // that stops reading cannot make cancellations pile up either.
        runtime.spawn(async move {
            shared.owe(jsonrpc::cancelled(id, reason)).await;
        });
    }
}

/// Writes the messages owed to the server, in order, one at a time: a server
/// that stops reading holds this task up, and the bounded queue before it
/// fills instead of memory.
pub(super) async fn write_replies(shared: Arc<Shared>, mut queue: mpsc::Receiver<Owed>) {
    while let Some(owed) = queue.recv().await {
        if shared.lock().closed.is_some() {
            // Ended (an unresponsive server among them): what is left is
            // dropped without a warning each.
            continue;
        }
        let message = Outgoing::new(owed.body, None);
        if let Err(error) = shared.transport.send(message).await {
            tracing::warn!(server = %shared.config.name, %error, "an answer to the server could not be sent");
        }
    }
}

/// Cancels a request that is dropped or times out before its answer.
pub(super) struct PendingGuard<'a> {
    pub(super) shared: &'a Arc<Shared>,
    pub(super) id: u64,
    pub(super) method: &'a str,
    pub(super) notify: bool,
    pub(super) armed: bool,
    pub(super) reason: &'static str,
}

impl PendingGuard<'_> {
    /// The request is over without a cancellation (answered, or never sent).
    pub(super) fn forget(&mut self) {
        self.armed = false;
        self.shared.lock().pending.remove(&self.id);
    }
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        // Still pending means unanswered: cancel it. Gone means the answer
        // won the race and there is nothing to cancel.
        let unanswered = {
            let mut state = self.shared.lock();
            let unanswered = state.pending.remove(&self.id).is_some();
            if unanswered {
                state.abandon(self.id);
            }
            unanswered
        };
        if unanswered {
            self.shared
                .cancel(self.id, self.method, self.reason, self.notify);
        }
    }
}
