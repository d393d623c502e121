//! The client suite's helpers: the shared harness ([`harness`]), and a
//! dispatcher over a stdio child or a shell script, raw params and results,
//! and a handler that records what the server sends.

#![allow(dead_code, unreachable_pub)]

mod harness;
pub use harness::*;

use mcpfn_client::{
    ClientError, Dispatcher, DispatcherConfig, Handler, NoHandler, RequestOptions, StdioConfig,
    StdioTransport,
};
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `value` as raw JSON params.
pub fn raw(value: Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(&value).unwrap()
}

/// A result's JSON.
pub fn parsed(result: &RawValue) -> Value {
    serde_json::from_str(result.get()).unwrap()
}

/// A dispatcher over a stdio child.
pub fn stdio(config: StdioConfig, handler: Arc<dyn Handler>) -> Dispatcher {
    let name = config.name.clone();
    let (transport, inbox) = StdioTransport::spawn(config).expect("the server starts");
    Dispatcher::new(
        Box::new(transport),
        inbox,
        handler,
        DispatcherConfig::new(name),
    )
}

/// A dispatcher over `sh -c script`.
pub fn script(script: &str) -> Dispatcher {
    stdio(
        StdioConfig::new("broken", "sh").args(["-c", script]),
        Arc::new(NoHandler),
    )
}

/// A request with `timeout`.
pub async fn call(
    client: &Dispatcher,
    method: &str,
    params: Value,
    timeout: Duration,
) -> Result<Value, ClientError> {
    client
        .request(method, Some(&raw(params)), RequestOptions::timeout(timeout))
        .await
        .map(|r| parsed(&r))
}

/// A handler that records every notification and answers `elicitation/create`
/// with `{"action":"accept","content":{"name":"Ada"}}`.
#[derive(Default)]
pub struct Recorder {
    pub notifications: Mutex<Vec<(String, Value)>>,
    pub requests: Mutex<Vec<(String, Value)>>,
    pub seen: tokio::sync::Notify,
}

impl Recorder {
    /// Waits for a notification of `method`; returns its params.
    pub async fn wait_for(&self, method: &str) -> Value {
        loop {
            let seen = self.seen.notified();
            if let Some((_, params)) = self
                .notifications
                .lock()
                .unwrap()
                .iter()
                .find(|(m, _)| m == method)
            {
                return params.clone();
            }
            seen.await;
        }
    }
}

impl Handler for Recorder {
    fn request(
        &self,
        request: mcpfn_client::ServerRequest,
    ) -> mcpfn_client::BoxFuture<'_, Result<Box<RawValue>, mcpfn_client::RpcError>> {
        Box::pin(async move {
            let params = request.params.as_deref().map(parsed).unwrap_or(Value::Null);
            self.requests
                .lock()
                .unwrap()
                .push((request.method.clone(), params));
            if request.method == "elicitation/create" {
                Ok(raw(
                    serde_json::json!({"action": "accept", "content": {"name": "Ada"}}),
                ))
            } else {
                Err(mcpfn_client::RpcError::method_not_found("Method not found"))
            }
        })
    }

    fn notification(
        &self,
        notification: mcpfn_client::ServerNotification,
    ) -> mcpfn_client::BoxFuture<'_, ()> {
        Box::pin(async move {
            let params = notification
                .params
                .as_deref()
                .map(parsed)
                .unwrap_or(Value::Null);
            self.notifications
                .lock()
                .unwrap()
                .push((notification.method, params));
            self.seen.notify_waiters();
        })
    }
}
