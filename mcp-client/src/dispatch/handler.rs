//! What the layer above does with the server's own requests and notifications.

use crate::error::RpcError;
use crate::transport::BoxFuture;
use serde_json::value::RawValue;

/// A request the server makes of us.
#[derive(Debug)]
pub struct ServerRequest {
    /// Its method (`sampling/createMessage`, `elicitation/create`, `roots/list`).
    pub method: String,
    /// Its params, unparsed.
    pub params: Option<Box<RawValue>>,
}

/// A notification from the server.
#[derive(Debug)]
pub struct ServerNotification {
    /// Its method (`notifications/progress`, `notifications/message`, …).
    pub method: String,
    /// Its params, unparsed.
    pub params: Option<Box<RawValue>>,
}

/// What the layer above does with what the server sends unasked.
///
/// `ping` is answered by the dispatcher itself.
pub trait Handler: Send + Sync + 'static {
    /// Answers a server request; the default refuses every method with
    /// `-32601`.
    fn request(&self, request: ServerRequest) -> BoxFuture<'_, Result<Box<RawValue>, RpcError>> {
        Box::pin(async move {
            Err(RpcError::method_not_found("Method not found")
                .with_data(serde_json::json!({"method": request.method})))
        })
    }

    /// Whether this handler answers `method` at all (the client declared
    /// the capability behind it); the default says yes. A request for a
    /// method it does not handle is refused with `-32601` by the dispatcher
    /// without its params being read or a task started for it.
    fn handles(&self, method: &str) -> bool {
        let _ = method;
        true
    }

    /// Sees a notification the moment it is read, on the routing task,
    /// before any message read after it is routed (so before a response
    /// that follows it reaches its caller); the default does nothing. For
    /// cheap bookkeeping only (a flag, a counter: it holds up every other
    /// message), such as a tool list marked stale by its `list_changed`
    /// ahead of the call result the server sent after it. The notification
    /// then goes to [`Handler::notification`] as any other.
    fn noticed(&self, notification: &ServerNotification) {
        let _ = notification;
    }

    /// Takes a notification; the default ignores it. Called in arrival
    /// order, one at a time.
    fn notification(&self, notification: ServerNotification) -> BoxFuture<'_, ()> {
        let _ = notification;
        Box::pin(async {})
    }
}

/// A [`Handler`] that refuses every request and ignores every notification.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHandler;

impl Handler for NoHandler {
    fn handles(&self, _method: &str) -> bool {
        false
    }
}
