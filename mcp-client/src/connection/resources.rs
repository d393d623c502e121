//! Resources: the server's resources and templates listed (every page,
//! within the [`ListLimits`](crate::ListLimits)), a URI read, and updates
//! of a resource subscribed to (`resources/subscribe` in a legacy session;
//! the `subscriptions/listen` filter on 2026-07-28, see [`super::listen`]),
//! told as [`Change::ResourceUpdated`](super::Change::ResourceUpdated).
//!
//! A read is bounded as every answer is: a message over the transport's
//! limit ([`DEFAULT_MAX_MESSAGE_BYTES`](crate::DEFAULT_MAX_MESSAGE_BYTES),
//! 16 MiB) is skipped unread and its tree never built, and one whose parse
//! would pass the connection's JSON budget is dropped unparsed; either
//! fails the read with [`McpError::Limit`] naming the server, the URI and
//! the size.

use super::{Era, McpClient, request};
use crate::Dispatcher;
use crate::{ClientError, McpError};
use mcpfn_protocol::model::method::{
    ListResourceTemplates, ListResources, ReadResource, Request, Subscribe, Unsubscribe,
};
use mcpfn_protocol::model::{
    ReadResourceParams, ReadResourceResult, Resource, ResourceTemplate, SubscribeParams,
};
use std::borrow::Cow;
use std::sync::Arc;

impl McpClient {
    /// The server's resources at fixed URIs, every page (none when it does
    /// not declare `resources`).
    pub async fn list_resources(&self) -> Result<Vec<Resource>, McpError> {
        self.listed::<ListResources>(|c| c.resources.is_some())
            .await
    }

    /// The server's resource templates (RFC 6570 URI templates), every
    /// page (none when it does not declare `resources`).
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, McpError> {
        self.listed::<ListResourceTemplates>(|c| c.resources.is_some())
            .await
    }

    /// What `uri` holds: text or binary (base64 `blob`) contents, within
    /// the client's call timeout. A resource too large to hold is
    /// [`McpError::Limit`].
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, McpError> {
        let (dispatcher, era, _) = self.session().await?;
        let params = ReadResourceParams {
            uri: uri.to_owned(),
            meta: (era == Era::Modern).then(|| self.inner.envelope.clone()),
        };
        let options = self.request_options(
            era,
            ReadResource::METHOD,
            Some(uri),
            self.inner.options.call_timeout,
        );
        let server = &self.inner.config.name;
        request::<ReadResource>(&dispatcher, server, &params, options)
            .await
            .map_err(|e| match e {
                McpError::Client(
                    ClientError::TooLarge { .. } | ClientError::AnswerTooLarge { .. },
                ) => McpError::Limit {
                    server: server.clone(),
                    reason: format!("resource `{uri}` was not read: {e}"),
                },
                other => other,
            })
    }

    /// Asks the server to tell when `uri` changes
    /// ([`Change::ResourceUpdated`](super::Change::ResourceUpdated) on
    /// [`changes`](Self::changes)): `resources/subscribe` in a legacy
    /// session; on 2026-07-28 a `subscriptions/listen` stream naming it
    /// (and every other resource subscribed to), open once the server
    /// acknowledged it. A connection made again after its server exited
    /// keeps them: a legacy session asks for each again as it starts (one
    /// the server refuses then is dropped, with a warning); a 2026-07-28
    /// connection names them again when its stream reopens (on its next
    /// listing).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), McpError> {
        self.subscription(uri, true).await
    }

    /// Stops the updates of `uri`: `resources/unsubscribe` in a legacy
    /// session, a stream without it on 2026-07-28.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), McpError> {
        self.subscription(uri, false).await
    }

    /// Asks the new legacy session on `dispatcher` (the connection made
    /// again) for every subscription the last one had: a server keeps
    /// none across a restart. One refused is dropped, with a warning
    /// naming the server and the URI.
    pub(super) async fn subscribe_again(&self, dispatcher: &Arc<Dispatcher>, era: Era) {
        let uris: Vec<String> = self
            .inner
            .handler
            .subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect();
        let server = &self.inner.config.name;
        for uri in uris {
            let params = SubscribeParams {
                uri: Cow::Owned(uri.clone()),
            };
            let options = self.request_options(
                era,
                Subscribe::METHOD,
                None,
                self.inner.options.call_timeout,
            );
            if let Err(e) = request::<Subscribe>(dispatcher, server, &params, options).await {
                tracing::warn!(%server, %uri, error = %e, "a subscription was not made again after the restart; its updates stop");
                self.inner
                    .handler
                    .subscriptions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&uri);
            }
        }
    }

    async fn subscription(&self, uri: &str, on: bool) -> Result<(), McpError> {
        let (dispatcher, era, _) = self.session().await?;
        let set = |on: bool| {
            let mut subscribed = self
                .inner
                .handler
                .subscriptions
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if on {
                subscribed.insert(uri.to_owned())
            } else {
                subscribed.remove(uri)
            }
        };
        match era {
            Era::Legacy(_) => {
                let params = SubscribeParams {
                    uri: Cow::Owned(uri.to_owned()),
                };
                let timeout = self.inner.options.call_timeout;
                let server = &self.inner.config.name;
                // Set first: the server may send an update before its
                // answer is read, and one not subscribed to is not told.
                let changed = set(on);
                let answered = if on {
                    let options = self.request_options(era, Subscribe::METHOD, None, timeout);
                    request::<Subscribe>(&dispatcher, server, &params, options).await
                } else {
                    let options = self.request_options(era, Unsubscribe::METHOD, None, timeout);
                    request::<Unsubscribe>(&dispatcher, server, &params, options).await
                };
                if answered.is_err() && changed {
                    set(!on);
                }
                answered.map(drop)
            }
            Era::Modern => {
                if !set(on) {
                    return Ok(());
                }
                let reopened = self.relisten(&dispatcher).await;
                if reopened.is_err() {
                    set(!on);
                }
                reopened
            }
        }
    }
}
