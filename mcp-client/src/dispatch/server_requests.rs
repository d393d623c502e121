//! The server's requests of us: run as tasks of their own, bounded, and
//! stopped when the server cancels them.

use super::handler::ServerRequest;
use super::router::{Router, method_not_found};
use crate::error::RpcError;
use crate::jsonrpc::ServerRequestId;
use mcpfn_protocol::model::{CancelledParams, RequestId, method};
use serde_json::value::RawValue;
use std::sync::Arc;

/// The key a cancelled request is looked up under: its id written as JSON,
/// the text a server request's id is kept under (`server_requests`).
pub(super) fn request_key(id: &RequestId) -> String {
    match id {
        RequestId::Number(number) => number.to_string(),
        RequestId::String(text) => serde_json::Value::String(text.clone()).to_string(),
    }
}

impl Router {
    /// The server gave up on one of its requests: stop answering it.
    pub(super) fn server_cancelled(&self, params: Option<&RawValue>) {
        // A notification gets no answer: one that names no request is
        // logged and dropped, and no request is cancelled by it.
        let parsed = params.map(|p| serde_json::from_str::<CancelledParams>(p.get()));
        let params = match parsed {
            Some(Ok(params)) => params,
            Some(Err(err)) => {
                tracing::debug!(server = %self.shared.config.name, error = %err, "ignored a notifications/cancelled with unreadable params");
                return;
            }
            None => {
                tracing::debug!(server = %self.shared.config.name, "ignored a notifications/cancelled without params");
                return;
            }
        };
        let task = self
            .shared
            .server_requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&request_key(&params.request_id));
        if let Some(task) = task {
            task.abort();
        }
    }

    pub(super) async fn server_request(
        &self,
        id: ServerRequestId,
        method: String,
        params: Option<Box<RawValue>>,
    ) {
        if !self.acceptable_id(&id) {
            return;
        }
        let shared = Arc::clone(&self.shared);
        if method == method::PING {
            shared.reply(&id, Ok(&empty_object())).await;
            return;
        }
        if !self.handler.handles(&method) {
            // Refused unread: a capability this client did not declare.
            drop(params);
            shared.reply(&id, Err(&method_not_found(&method))).await;
            return;
        }
        let refusal = {
            let running = self
                .shared
                .server_requests
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let key = id.get();
            if running.contains_key(key) {
                Some(RpcError::invalid_request(
                    "Invalid request: this id is already in use by a request in progress",
                ))
            } else if running.len() >= self.shared.config.max_server_requests {
                Some(RpcError::internal_error(format!(
                    "Internal error: the client is already answering {} requests",
                    running.len()
                )))
            } else {
                None
            }
        };
        if let Some(error) = refusal {
            shared.reply(&id, Err(&error)).await;
            return;
        }
        let mut running = self
            .shared
            .server_requests
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let key = id.get().to_owned();
        let handler = Arc::clone(&self.handler);
        let task_key = key.clone();
        let task = tokio::spawn(async move {
            let outcome = handler.request(ServerRequest { method, params }).await;
            // Answer only if not cancelled meanwhile.
            let still = shared
                .server_requests
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&task_key)
                .is_some();
            if still {
                shared.reply(&id, outcome.as_deref()).await;
            }
        });
        running.insert(key, task.abort_handle());
    }
}

/// `{}`, the result of `ping`.
fn empty_object() -> Box<RawValue> {
    // Serializing an empty map cannot fail; `null` would do no harm anyway.
    serde_json::value::to_raw_value(&serde_json::Map::new()).unwrap_or_default()
}
