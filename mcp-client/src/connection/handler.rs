//! What the client does with the server's own messages: elicitation and
//! sampling requests go to the user's async handlers, progress to the
//! callback of the call it reports on, `list_changed` marks the tool cache
//! stale, every list change and resource update is told to the client's
//! [`Change`] subscribers ([`McpClient::changes`](super::McpClient::changes)), log messages go to our log under the server's name (cut to
//! [`LOG_LINE_BYTES`](crate::LOG_LINE_BYTES) and rate-limited: see
//! [`LogLimiter`]).

use crate::log_limit::{LOG_LINE_BYTES, LogLimiter, cut_line};
use crate::text::excerpt;
use crate::{BoxFuture, Handler, RpcError, ServerNotification, ServerRequest};
use mcpfn_protocol::model::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult,
    InputRequest, JsonObject, ProgressParams, ResourceUpdatedParams, ServerCapabilities,
    ServerNotification as Notification, ServerRequest as Request, method,
};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Answers `elicitation/create` (a legacy server request, or a 2026-07-28
/// input request): typically asks the user.
pub type ElicitFn =
    Arc<dyn Fn(ElicitParams) -> BoxFuture<'static, Result<ElicitResult, RpcError>> + Send + Sync>;

/// Answers `sampling/createMessage`: typically asks a model.
pub type SampleFn = Arc<
    dyn Fn(CreateMessageParams) -> BoxFuture<'static, Result<CreateMessageResult, RpcError>>
        + Send
        + Sync,
>;

/// Receives the `notifications/progress` of one call.
pub type ProgressFn = Arc<dyn Fn(ProgressParams) + Send + Sync>;

/// Something the server said changed, as [`McpClient::changes`](super::McpClient::changes)
/// tells it: list again, or read again.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// `notifications/tools/list_changed` (the client's tool cache is
    /// already stale when this is told).
    ToolsListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/resources/updated`: the resource at this URI (one
    /// subscribed to, or below it) changed.
    ResourceUpdated(String),
}

/// How many [`Change`]s wait for a slow subscriber before the oldest are
/// dropped (it then learns it lagged, and lists everything again).
pub const CHANGES_CAPACITY: usize = 64;

/// The longest URI of a `notifications/resources/updated` passed on; a
/// longer one is dropped with a debug line (each waiting [`Change`] holds
/// its URI).
pub const MAX_UPDATED_URI_BYTES: usize = 8 * 1024;

pub(crate) struct HostHandler {
    pub(crate) server: String,
    pub(crate) elicit: Option<ElicitFn>,
    /// [`ClientOptions::elicitation_defaults`](super::ClientOptions::elicitation_defaults).
    pub(crate) elicitation_defaults: bool,
    pub(crate) sample: Option<SampleFn>,
    /// Progress callbacks by the JSON text of their token.
    pub(crate) progress: Mutex<HashMap<String, ProgressFn>>,
    /// Bumped by every `notifications/tools/list_changed`.
    pub(crate) tools_generation: AtomicU64,
    /// What the server declared in its handshake (which list changes a
    /// 2026-07-28 `subscriptions/listen` stream asks for; whether it has
    /// prompts, resources, Skills at all).
    pub(crate) server_capabilities: Mutex<ServerCapabilities>,
    /// Where list changes and resource updates are told.
    pub(crate) changes: tokio::sync::broadcast::Sender<Change>,
    /// Counts `notifications/subscriptions/acknowledged`: a stream opened
    /// for a subscription is waited on until it is counted.
    pub(crate) acknowledged: tokio::sync::watch::Sender<u64>,
    /// The bucket of its `notifications/message` lines.
    pub(crate) log: Mutex<LogLimiter>,
    /// The resources subscribed to (2026-07-28: named in the
    /// `subscriptions/listen` filter, so a change reopens the stream). An
    /// update of any other resource is not told: a stream let go may still
    /// carry one the server sent before it saw the stream close.
    pub(crate) subscriptions: Mutex<BTreeSet<String>>,
}

/// What is read of a `notifications/message`: `data` stays raw text, cut
/// before it is logged, never a tree.
#[derive(serde::Deserialize)]
struct LogParams<'a> {
    #[serde(default)]
    level: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    logger: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
}

impl HostHandler {
    /// Whether `uri` is a resource subscribed to, or below one (the spec
    /// lets a server name the sub-resource that changed): the subscribed
    /// URI followed by `/`, `?` or `#`, or one ending in `/`.
    fn is_subscribed(&self, uri: &str) -> bool {
        let subscribed = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
        subscribed
            .iter()
            .any(|s| match uri.strip_prefix(s.as_str()) {
                Some("") => true,
                Some(rest) => s.ends_with('/') || rest.starts_with(['/', '?', '#']),
                None => false,
            })
    }

    /// Logs a `notifications/message` if its server's bucket allows.
    fn log_message(&self, params: Option<&RawValue>) {
        if !self.log.lock().unwrap_or_else(|e| e.into_inner()).admit() {
            return;
        }
        let Some(params) = params else { return };
        let Ok(params) = serde_json::from_str::<LogParams<'_>>(params.get()) else {
            tracing::debug!(server = %self.server, "unreadable notifications/message");
            return;
        };
        let level = excerpt(params.level.as_deref().unwrap_or("info"), 16);
        let logger = excerpt(params.logger.as_deref().unwrap_or(""), 64);
        let data = cut_line(params.data.map_or("", |d| d.get()).as_bytes(), 0);
        debug_assert!(data.len() <= LOG_LINE_BYTES + 64);
        tracing::info!(server = %self.server, level = %level, logger = %logger, data = %data, "server log");
    }
}

impl HostHandler {
    pub(crate) async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, RpcError> {
        let Some(elicit) = &self.elicit else {
            return Err(RpcError::method_not_found(
                "this client has no elicitation handler",
            ));
        };
        let schema = self
            .elicitation_defaults
            .then(|| params.requested_schema.clone())
            .flatten();
        let mut result = elicit(params).await?;
        if let Some(schema) = schema {
            fill_defaults(&schema, &mut result);
        }
        Ok(result)
    }

    pub(crate) async fn sample(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, RpcError> {
        match &self.sample {
            Some(sample) => sample(params).await,
            None => Err(RpcError::method_not_found(
                "this client has no sampling handler",
            )),
        }
    }

    /// The answer to one 2026-07-28 input request (an `input_required`
    /// round of a call, or a task's `inputRequests`), as the JSON its
    /// `inputResponses` entry carries: the same handlers, and so the same
    /// trust, as a standalone server request.
    pub(crate) async fn answer(&self, request: InputRequest) -> Result<Value, RpcError> {
        fn json<T: serde::Serialize>(value: T) -> Result<Value, RpcError> {
            serde_json::to_value(value).map_err(|e| RpcError::internal_error(e.to_string()))
        }
        match request {
            InputRequest::Elicit(params) => json(self.elicit(params).await?),
            InputRequest::CreateMessage(params) => json(self.sample(params).await?),
            InputRequest::ListRoots(_) => Ok(serde_json::json!({"roots": []})),
        }
    }

    pub(crate) fn generation(&self) -> u64 {
        self.tools_generation.load(Ordering::Acquire)
    }
}

/// Gives each property of a form's `requestedSchema` that an accepted
/// answer leaves out the schema's `default` for it (SEP-1034: the form was
/// pre-filled with the defaults, and a field the user did not touch keeps
/// its default). What the answer gives is kept; a declined or cancelled
/// answer carries no content and gets none.
fn fill_defaults(schema: &JsonObject, result: &mut ElicitResult) {
    if result.action != ElicitAction::Accept {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let content = result.content.get_or_insert_with(JsonObject::new);
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), default.clone());
        }
    }
}

/// The params as a tree. They are JSON already (the dispatcher's envelope
/// parse), but may nest past serde_json's depth limit: that is an error for
/// the message, not "no params".
fn parsed(params: Option<Box<RawValue>>) -> Result<Option<serde_json::Value>, serde_json::Error> {
    params.map(|p| serde_json::from_str(p.get())).transpose()
}

fn raw<T: serde::Serialize>(value: &T) -> Result<Box<RawValue>, RpcError> {
    serde_json::value::to_raw_value(value).map_err(|e| RpcError::internal_error(e.to_string()))
}

impl Handler for HostHandler {
    /// Only what the client declared: sampling and elicitation when their
    /// handlers are set (roots are never declared). Anything else is
    /// refused by the dispatcher before its params are read.
    fn handles(&self, method: &str) -> bool {
        match method {
            method::CREATE_MESSAGE => self.sample.is_some(),
            method::ELICIT => self.elicit.is_some(),
            method::PING => true,
            _ => false,
        }
    }

    fn request(&self, request: ServerRequest) -> BoxFuture<'_, Result<Box<RawValue>, RpcError>> {
        Box::pin(async move {
            if !self.handles(&request.method) {
                return Err(RpcError::method_not_found(format!(
                    "Method not found: {}",
                    request.method
                )));
            }
            let params =
                parsed(request.params).map_err(|e| RpcError::invalid_params(e.to_string()))?;
            let parsed = Request::parse(&request.method, params)
                .map_err(|e| RpcError::invalid_params(e.to_string()))?;
            match parsed {
                Request::Elicit(params) => raw(&self.elicit(params).await?),
                Request::CreateMessage(params) => raw(&self.sample(params).await?),
                Request::ListRoots => raw(&serde_json::json!({"roots": []})),
                Request::Ping => raw(&serde_json::json!({})),
                Request::Other { method, .. } => Err(RpcError::method_not_found(format!(
                    "Method not found: {method}"
                ))),
            }
        })
    }

    /// A tool list's `list_changed` marks the cache stale here, on the
    /// routing task: a call result the server sends after it must not reach
    /// the caller while the cache still vouches for the old list (a host
    /// would offer the model the old tools on its next request).
    ///
    /// List changes and resource updates are told to the [`Change`]
    /// subscribers here too, in the order the server sent them.
    fn noticed(&self, notification: &ServerNotification) {
        let change = match notification.method.as_str() {
            method::TOOLS_LIST_CHANGED => {
                self.tools_generation.fetch_add(1, Ordering::AcqRel);
                tracing::debug!(server = %self.server, "tools/list changed");
                Change::ToolsListChanged
            }
            method::PROMPTS_LIST_CHANGED => Change::PromptsListChanged,
            method::RESOURCES_LIST_CHANGED => Change::ResourcesListChanged,
            method::RESOURCES_UPDATED => {
                let uri = notification
                    .params
                    .as_deref()
                    .and_then(|p| serde_json::from_str::<ResourceUpdatedParams>(p.get()).ok())
                    .map(|p| p.uri);
                match uri {
                    Some(uri) if uri.len() <= MAX_UPDATED_URI_BYTES => {
                        if !self.is_subscribed(&uri) {
                            tracing::debug!(server = %self.server, uri = %excerpt(&uri, 256), "an update of a resource not subscribed to was dropped");
                            return;
                        }
                        Change::ResourceUpdated(uri)
                    }
                    _ => {
                        tracing::debug!(server = %self.server, "a resources/updated without a usable uri was dropped");
                        return;
                    }
                }
            }
            method::SUBSCRIPTIONS_ACKNOWLEDGED => {
                self.acknowledged.send_modify(|n| *n += 1);
                return;
            }
            _ => return,
        };
        // No subscriber is no error: nobody is watching.
        let _ = self.changes.send(change);
    }

    fn notification(&self, notification: ServerNotification) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // Read raw, and only if it will be logged: a flood costs no tree.
            if notification.method == method::MESSAGE {
                self.log_message(notification.params.as_deref());
                return;
            }
            let Ok(parsed) = parsed(notification.params)
                .and_then(|params| Notification::parse(&notification.method, params))
            else {
                tracing::debug!(server = %self.server, method = %notification.method, "unreadable notification");
                return;
            };
            match parsed {
                Notification::Progress(progress) => {
                    let key = progress.progress_token.to_string();
                    let callback = self
                        .progress
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get(&key)
                        .cloned();
                    if let Some(callback) = callback {
                        callback(progress);
                    }
                }
                // Counted when it was read (`noticed`).
                Notification::ToolsListChanged
                | Notification::Message(_)
                | Notification::Cancelled(_)
                | Notification::Other { .. } => {}
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> JsonObject {
        json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "status": {"type": "string", "enum": ["active", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true},
            "note": {"type": "string"}
        }})
        .as_object()
        .cloned()
        .unwrap()
    }

    fn answer(action: ElicitAction, content: Option<Value>) -> ElicitResult {
        ElicitResult {
            action,
            content: content.and_then(|c| c.as_object().cloned()),
        }
    }

    #[test]
    fn an_accepted_form_gets_the_defaults_of_the_fields_it_leaves_out() {
        let mut result = answer(
            ElicitAction::Accept,
            Some(json!({"name": "Ada", "age": 41})),
        );
        fill_defaults(&schema(), &mut result);
        assert_eq!(
            Value::Object(result.content.unwrap()),
            json!({"name": "Ada", "age": 41, "status": "active", "verified": true})
        );

        let mut result = answer(ElicitAction::Accept, None);
        fill_defaults(&schema(), &mut result);
        assert_eq!(
            Value::Object(result.content.unwrap()),
            json!({"name": "John Doe", "age": 30, "status": "active", "verified": true})
        );
    }

    #[test]
    fn a_declined_or_cancelled_form_gets_no_content() {
        for action in [ElicitAction::Decline, ElicitAction::Cancel] {
            let mut result = answer(action, None);
            fill_defaults(&schema(), &mut result);
            assert_eq!(result.content, None);
        }
    }
}
