//! The 2026-07-28 `subscriptions/listen` stream: one per connection, asking
//! for the list changes the server declared (`tools`, `prompts`,
//! `resources` with `listChanged`) and the updates of the resources
//! subscribed to. Its notifications reach the handler like any other
//! ([`Change`](super::Change)). A stream's filter is fixed when it opens,
//! so a subscription or an unsubscription opens a new one (and waits for
//! its `notifications/subscriptions/acknowledged`) before the old one is
//! let go; a change the server sends in between may be told twice, never
//! lost.

use super::{Era, McpClient, raw_params};
use crate::{ClientError, Dispatcher, McpError};
use mcpfn_protocol::model::method::{Listen, Request};
use mcpfn_protocol::model::{ListenParams, SubscriptionFilter};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

impl McpClient {
    /// What a stream asks for now: the list changes the server declared,
    /// and the resources subscribed to.
    fn filter(&self) -> SubscriptionFilter {
        let capabilities = self
            .inner
            .handler
            .server_capabilities
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let asked = |declared: bool| declared.then_some(true);
        SubscriptionFilter {
            tools_list_changed: asked(capabilities.tools.is_some_and(|t| t.list_changed)),
            prompts_list_changed: asked(capabilities.prompts.is_some_and(|p| p.list_changed)),
            resources_list_changed: asked(capabilities.resources.is_some_and(|r| r.list_changed)),
            resource_subscriptions: self
                .inner
                .handler
                .subscriptions
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .cloned()
                .collect(),
            ..SubscriptionFilter::default()
        }
    }

    /// Opens the stream on a 2026-07-28 connection, once per connection,
    /// when there is anything to ask for. It stays open for the
    /// connection's life.
    pub(super) async fn ensure_listening(&self, dispatcher: &Arc<Dispatcher>, number: u64) {
        let mut conn = self.inner.conn.lock().await;
        if conn.listen.is_some() || conn.number != number {
            return;
        }
        let filter = self.filter();
        if filter == SubscriptionFilter::default() {
            return;
        }
        conn.listen = Some(self.open_stream(dispatcher, filter).abort_handle());
    }

    /// Opens a stream with the filter as it is now, waits until the server
    /// acknowledges it (within the handshake timeout), then lets the
    /// previous one go. The server's refusal, or no acknowledgement in
    /// time, is the error; the previous stream then stays.
    pub(super) async fn relisten(&self, dispatcher: &Arc<Dispatcher>) -> Result<(), McpError> {
        let mut acknowledged = self.inner.handler.acknowledged.subscribe();
        let seen = *acknowledged.borrow_and_update();
        let filter = self.filter();
        if filter == SubscriptionFilter::default() {
            if let Some(old) = self.inner.conn.lock().await.listen.take() {
                old.abort();
            }
            return Ok(());
        }
        let mut stream = self.open_stream(dispatcher, filter);
        let timeout = self.inner.options.handshake_timeout;
        let outcome = tokio::select! {
            waited = tokio::time::timeout(timeout, acknowledged.wait_for(|n| *n > seen)) => match waited {
                Ok(_) => Ok(()),
                Err(_) => Err(McpError::Client(ClientError::Timeout {
                    method: Listen::METHOD.to_owned(),
                    after: timeout,
                })),
            },
            ended = &mut stream => Err(match ended {
                Ok(Err(e)) => e,
                _ => McpError::Protocol {
                    server: self.inner.config.name.clone(),
                    reason: format!("its {} stream ended at once", Listen::METHOD),
                },
            }),
        };
        if outcome.is_err() {
            stream.abort();
            return outcome;
        }
        let old = self
            .inner
            .conn
            .lock()
            .await
            .listen
            .replace(stream.abort_handle());
        if let Some(old) = old {
            old.abort();
        }
        Ok(())
    }

    /// A `subscriptions/listen` request with `filter`, held open on a task
    /// of its own until it is aborted (its cancellation) or ends.
    fn open_stream(
        &self,
        dispatcher: &Arc<Dispatcher>,
        filter: SubscriptionFilter,
    ) -> JoinHandle<Result<(), McpError>> {
        let params = raw_params(&ListenParams {
            notifications: filter,
            meta: self.inner.envelope.clone(),
        });
        let mut options = self.request_options(Era::Modern, Listen::METHOD, None, Duration::MAX);
        // Ending the stream is the cancellation on HTTP; stdio sends it.
        options.cancel_notification = !self.inner.http;
        let dispatcher = Arc::clone(dispatcher);
        let server = self.inner.config.name.clone();
        tokio::spawn(async move {
            let ended = dispatcher
                .request(Listen::METHOD, Some(&params), options)
                .await;
            if let Err(e) = &ended {
                tracing::debug!(%server, error = %e, "subscriptions/listen ended");
            }
            ended.map(|_| ()).map_err(McpError::from)
        })
    }
}
