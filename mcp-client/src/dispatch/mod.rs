//! The dispatcher: requests and their answers over one transport.
//!
//! One routing task reads the inbox in order and never waits on a handler:
//! answers go to the caller waiting for them, server requests run as tasks
//! of their own (bounded), notifications go through a bounded queue to one
//! task that hands them to the handler in order (dropped, with a warning,
//! when the handler falls that far behind). So a slow handler cannot stop
//! the answers to our requests, and memory stays bounded whatever the
//! server sends.

use crate::error::ClientError;
use crate::jsonrpc;
use crate::log_limit::LogLimiter;
use crate::transport::{Inbox, Outgoing, Transport};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::task::AbortHandle;

mod config;
mod handler;
mod notifications;
mod pending;
mod router;
mod server_requests;
mod shared;

pub use config::{DEFAULT_JSON_BUDGET, DEFAULT_TIMEOUT, DispatcherConfig, RequestOptions};
pub use handler::{Handler, NoHandler, ServerNotification, ServerRequest};
use notifications::{NotificationQueue, deliver_notifications};
use pending::State;
use router::Router;
use shared::PendingGuard;
use shared::{Shared, write_replies};

/// Requests and their answers over one connection, and the server's own
/// messages handed to a [`Handler`].
///
/// Ids are unique per connection (1, 2, 3, …). Dropping the dispatcher
/// stops its tasks and drops the transport (which kills a stdio child).
pub struct Dispatcher {
    shared: Arc<Shared>,
    tasks: Vec<AbortHandle>,
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatcher")
            .field("server", &self.shared.config.name)
            .field("transport", &self.shared.transport)
            .field("closed", &self.closed_reason())
            .finish_non_exhaustive()
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        self.shared.shut(ClientError::Closed);
    }
}

impl Dispatcher {
    /// Starts routing the messages of `inbox`; `transport` sends. Must be
    /// called inside a tokio runtime.
    pub fn new(
        transport: Box<dyn Transport>,
        inbox: Inbox,
        handler: Arc<dyn Handler>,
        config: DispatcherConfig,
    ) -> Self {
        let (notifications, notify_rx, queued) = NotificationQueue::new(
            config.max_buffered_notifications,
            config.max_buffered_notification_bytes,
        );
        let (replies_tx, replies_rx) = mpsc::channel(config.max_queued_replies.max(1));
        let shared = Arc::new(Shared {
            slots: Arc::new(Semaphore::new(
                config.max_pending.clamp(1, Semaphore::MAX_PERMITS),
            )),
            reply_bytes: Arc::new(Semaphore::new(
                config
                    .max_queued_reply_bytes
                    .clamp(1, Semaphore::MAX_PERMITS)
                    .min(u32::MAX as usize),
            )),
            replies: replies_tx,
            config,
            transport,
            state: Mutex::new(State::default()),
            next_id: AtomicU64::new(1),
            server_requests: Mutex::new(HashMap::new()),
        });
        let router = Router {
            shared: Arc::clone(&shared),
            handler: Arc::clone(&handler),
            notifications,
            refused_frames: AtomicU64::new(0),
            warnings: Mutex::new(LogLimiter::new(shared.config.name.clone(), "warning")),
        };
        let router = tokio::spawn(router.run(inbox));
        let notifier = tokio::spawn(deliver_notifications(handler, notify_rx, queued));
        let writer = tokio::spawn(write_replies(Arc::clone(&shared), replies_rx));
        Dispatcher {
            shared,
            tasks: vec![
                router.abort_handle(),
                notifier.abort_handle(),
                writer.abort_handle(),
            ],
        }
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.shared.config.name
    }

    /// Sets the HTTP headers of every later request of this connection
    /// (requests, notifications, answers, cancellations, the GET stream,
    /// the DELETE), e.g. `MCP-Protocol-Version` once a legacy handshake
    /// chose it. See [`Transport::set_headers`].
    pub fn set_headers(&self, headers: &[(String, String)]) -> Result<(), ClientError> {
        self.shared.transport.set_headers(headers)
    }

    /// Why the connection is over, once it is.
    pub fn closed_reason(&self) -> Option<ClientError> {
        self.shared.lock().closed.clone()
    }

    /// Whether the connection is over (the server exited, the session
    /// expired, [`close`](Self::close) was called).
    pub fn is_closed(&self) -> bool {
        self.shared.lock().closed.is_some()
    }

    /// How many requests wait for their answer.
    pub fn pending(&self) -> usize {
        self.shared.lock().pending.len()
    }

    /// Sends a request and waits for its result. A timeout, or dropping the
    /// returned future, cancels the request: the server is told (see
    /// [`RequestOptions::cancel_notification`]) and a late answer is
    /// dropped.
    pub async fn request(
        &self,
        method: &str,
        params: Option<&RawValue>,
        options: RequestOptions,
    ) -> Result<Box<RawValue>, ClientError> {
        let shared = &self.shared;
        let timeout = options.timeout.unwrap_or(shared.config.default_timeout);
        let started = tokio::time::Instant::now();
        if let Some(reason) = self.closed_reason() {
            return Err(reason);
        }
        // Past the bound a request waits for a slot rather than failing: a
        // model that asks for many calls at once gets them all run, as fast
        // as the server takes them, each within its own timeout.
        let slot = Arc::clone(&shared.slots).acquire_owned();
        let _slot = match tokio::time::timeout(timeout, slot).await {
            Ok(Ok(slot)) => slot,
            // The semaphore is never closed.
            Ok(Err(_)) => return Err(ClientError::Closed),
            Err(_) => {
                return Err(ClientError::TooManyPending {
                    server: shared.config.name.clone(),
                    limit: shared.config.max_pending,
                });
            }
        };
        let total = timeout;
        let timeout = timeout.saturating_sub(started.elapsed());
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let answer = {
            let mut state = shared.lock();
            if let Some(reason) = &state.closed {
                return Err(reason.clone());
            }
            let (tx, rx) = oneshot::channel();
            state.pending.insert(id, tx);
            rx
        };
        let mut guard = PendingGuard {
            shared,
            id,
            method,
            notify: options.cancel_notification,
            armed: true,
            reason: "the caller stopped waiting",
        };
        let message = Outgoing {
            body: jsonrpc::request(id, method, params),
            request_id: Some(id),
            headers: options.headers,
        };
        let exchange = async {
            shared
                .transport
                .send(message)
                .await
                .inspect_err(|e| shared.lost(e))?;
            // A dropped sender means the dispatcher was dropped.
            answer.await.unwrap_or(Err(ClientError::Closed))
        };
        match tokio::time::timeout(timeout, exchange).await {
            Ok(Ok(result)) => {
                guard.forget();
                Ok(result)
            }
            Ok(Err(error)) => {
                guard.forget();
                Err(error)
            }
            Err(_) => {
                guard.reason = "timeout";
                drop(guard);
                Err(ClientError::Timeout {
                    method: method.to_owned(),
                    after: total,
                })
            }
        }
    }

    /// Sends a notification.
    pub async fn notify(
        &self,
        method: &str,
        params: Option<&RawValue>,
        headers: &[(String, String)],
    ) -> Result<(), ClientError> {
        if let Some(reason) = self.closed_reason() {
            return Err(reason);
        }
        let message = Outgoing {
            body: jsonrpc::notification(method, params),
            request_id: None,
            headers: headers.to_vec(),
        };
        let sent = self.shared.transport.send(message).await;
        sent.inspect_err(|e| self.shared.lost(e))
    }

    /// Opens the transport's channel for unprompted server messages (the
    /// legacy HTTP GET stream); nothing on stdio.
    pub async fn listen(&self) -> Result<(), ClientError> {
        self.shared.transport.listen().await
    }

    /// Ends the connection (DELETE of an HTTP session; stdin closed, then
    /// the child killed if it lingers). Waiting requests fail with
    /// [`ClientError::Closed`].
    pub async fn close(&self) {
        self.shared.shut(ClientError::Closed);
        self.shared.transport.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{BoxFuture, Incoming};

    /// A transport that takes every message and closes at once.
    #[derive(Debug)]
    struct Accepting;

    impl Transport for Accepting {
        fn send(&self, _message: Outgoing) -> BoxFuture<'_, Result<(), ClientError>> {
            Box::pin(async { Ok(()) })
        }
        fn close(&self) -> BoxFuture<'_, ()> {
            Box::pin(async {})
        }
    }

    fn dispatcher() -> (Dispatcher, crate::transport::InboxSender) {
        let (sender, inbox) = Inbox::channel(16);
        let dispatcher = Dispatcher::new(
            Box::new(Accepting),
            inbox,
            Arc::new(crate::NoHandler),
            DispatcherConfig::new("fake"),
        );
        (dispatcher, sender)
    }

    #[tokio::test]
    async fn close_fails_every_waiting_request_with_closed() {
        let (dispatcher, _sender) = dispatcher();
        let dispatcher = Arc::new(dispatcher);
        let waiting: Vec<_> = (0..3)
            .map(|_| {
                let dispatcher = Arc::clone(&dispatcher);
                tokio::spawn(async move {
                    dispatcher
                        .request("tools/list", None, RequestOptions::default())
                        .await
                })
            })
            .collect();
        while dispatcher.pending() < 3 {
            tokio::task::yield_now().await;
        }
        dispatcher.close().await;
        for request in waiting {
            assert_eq!(request.await.unwrap().unwrap_err(), ClientError::Closed);
        }
        assert_eq!(dispatcher.pending(), 0);
        assert_eq!(dispatcher.closed_reason(), Some(ClientError::Closed));
        let later = dispatcher.request("ping", None, RequestOptions::default());
        assert_eq!(later.await.unwrap_err(), ClientError::Closed);
    }

    #[tokio::test]
    async fn an_answer_to_an_unknown_id_leaves_the_waiting_request_alone() {
        let (dispatcher, sender) = dispatcher();
        let request = dispatcher.request("tools/list", None, RequestOptions::default());
        let answers = async {
            while dispatcher.pending() < 1 {
                tokio::task::yield_now().await;
            }
            for body in [
                r#"{"jsonrpc":"2.0","id":99,"result":{"wrong":true}}"#,
                r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
            ] {
                assert!(sender.send(Incoming::Message(body.into())).await);
            }
        };
        let (answer, ()) = tokio::join!(request, answers);
        assert_eq!(answer.unwrap().get(), r#"{"tools":[]}"#);
    }

    /// Counts the notifications it has noticed; its queued handling never
    /// ends, as a handler that fell behind.
    #[derive(Debug, Default)]
    struct Noticing(std::sync::atomic::AtomicUsize);

    impl Handler for Noticing {
        fn noticed(&self, _notification: &ServerNotification) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        fn notification(&self, _notification: ServerNotification) -> BoxFuture<'_, ()> {
            Box::pin(std::future::pending())
        }
    }

    #[tokio::test]
    async fn a_notification_is_noticed_before_the_answer_read_after_it_arrives() {
        let (sender, inbox) = Inbox::channel(16);
        let handler = Arc::new(Noticing::default());
        let dispatcher = Dispatcher::new(
            Box::new(Accepting),
            inbox,
            Arc::clone(&handler) as Arc<dyn Handler>,
            DispatcherConfig::new("fake"),
        );
        let request = dispatcher.request("tools/call", None, RequestOptions::default());
        let answers = async {
            while dispatcher.pending() < 1 {
                tokio::task::yield_now().await;
            }
            for body in [
                r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
            ] {
                assert!(sender.send(Incoming::Message(body.into())).await);
            }
        };
        let (answer, ()) = tokio::join!(request, answers);
        assert_eq!(answer.unwrap().get(), r#"{"content":[]}"#);
        // Seen when the answer arrived, though the queued handling of the
        // notification never ran.
        assert_eq!(handler.0.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
