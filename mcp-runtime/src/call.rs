//! Running one tool call: admission, a task of its own, timeout, panic
//! catching, cancellation, and the result shaped for the caller's revision.

use crate::connection::Connection;
use crate::context::Interrupt;
use crate::protocol::{ErrorCode, ProtocolVersion, frame};
use crate::shared::Shared;
use crate::tool::{Tool, ToolCall, ToolOutcome};
use serde_json::{Value, json};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

/// A call ready to run.
pub(crate) struct PreparedCall {
    /// The request id as the client sent it (echoed in the response).
    pub(crate) id: String,
    /// The canonical id, the key of the in-flight table.
    pub(crate) key: String,
    pub(crate) tool: Arc<Tool>,
    pub(crate) call: ToolCall,
    /// Digest of the arguments, to seal `requestState` (2026-07-28).
    pub(crate) arguments_digest: String,
}

/// How a call ended.
enum Ending {
    Outcome(ToolOutcome),
    Interrupted(Interrupt),
}

/// Runs the call on its own task: a slow tool never holds up the reader, and
/// responses go out in completion order.
pub(crate) fn spawn(shared: Arc<Shared>, connection: Arc<Connection>, prepared: PreparedCall) {
    let key = prepared.key.clone();
    let task_connection = Arc::clone(&connection);
    let task = tokio::spawn(async move {
        let connection = task_connection;
        let PreparedCall {
            id,
            key,
            tool,
            call,
            arguments_digest,
        } = prepared;
        let version = call.version;
        let context = call.context.clone();
        let _slot = shared.limits.run_slot().await;
        let timeout = tool.timeout.or(shared.call_timeout);
        let ending = tokio::select! {
            biased;
            interrupt = context.interrupted() => Ending::Interrupted(interrupt),
            outcome = run_with_timeout(&tool, call, timeout) => Ending::Outcome(outcome),
        };
        context.finish();
        if !connection.finish_call(&key) {
            return; // cancelled: nothing more is sent for this id
        }
        let frame = match ending {
            Ending::Outcome(outcome) => {
                let body = render_result(&tool, &outcome, version);
                frame::result(&id, &shared.identity.close(body, version))
            }
            Ending::Interrupted(Interrupt::MissingCapability(required)) => frame::error(
                Some(&id),
                ErrorCode::MISSING_CLIENT_CAPABILITY,
                "Missing required client capability",
                Some(&json!({"requiredCapabilities": required})),
            ),
            Ending::Interrupted(Interrupt::InputRequired { key, request }) => {
                let mut input_requests = serde_json::Map::new();
                input_requests.insert(
                    key,
                    json!({"method": "elicitation/create", "params": request.params(version)}),
                );
                let state = shared
                    .sealer
                    .seal(&tool.name, &arguments_digest, context.answers());
                let mut body =
                    json!({"inputRequests": input_requests, "requestState": state}).to_string();
                body.pop();
                frame::result(
                    &id,
                    &shared.identity.close_as(body, version, "input_required"),
                )
            }
        };
        connection.send(frame);
    });
    connection.attach_task(&key, task.abort_handle());
}

async fn run_with_timeout(tool: &Tool, call: ToolCall, timeout: Option<Duration>) -> ToolOutcome {
    match timeout {
        None => run_tool(tool, call).await,
        Some(limit) => match tokio::time::timeout(limit, run_tool(tool, call)).await {
            Ok(outcome) => outcome,
            Err(_) => ToolOutcome::Error(format!(
                "The tool '{}' timed out after {}.",
                tool.name,
                human_duration(limit)
            )),
        },
    }
}

fn human_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Runs a tool, turning a panic into an error result: the server keeps serving.
async fn run_tool(tool: &Tool, call: ToolCall) -> ToolOutcome {
    let started = std::panic::catch_unwind(AssertUnwindSafe(|| tool.call(call)));
    let result = match started {
        Ok(future) => CatchUnwind(future).await,
        Err(payload) => Err(payload),
    };
    result.unwrap_or_else(|payload| {
        let detail = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".to_owned());
        tracing::error!(tool = %tool.name, panic = %detail, "a tool panicked");
        ToolOutcome::Error(format!(
            "The tool '{}' failed with an internal error; the details are in the server's log. \
             Retrying the same call is unlikely to help.",
            tool.name
        ))
    })
}

/// Polls a future, catching a panic as `Err` instead of unwinding the task.
struct CatchUnwind(crate::tool::BoxFuture<ToolOutcome>);

impl Future for CatchUnwind {
    type Output = Result<ToolOutcome, Box<dyn std::any::Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let future = &mut self.0;
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(outcome)) => Poll::Ready(Ok(outcome)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

/// The `CallToolResult` for `outcome`, as an open object (see
/// [`crate::shared::Identity::close`]).
pub(crate) fn render_result(
    tool: &Tool,
    outcome: &ToolOutcome,
    version: ProtocolVersion,
) -> String {
    let mut body = Vec::with_capacity(128);
    match outcome {
        ToolOutcome::Structured(json) => {
            let wrapped;
            let value: &str = if tool.wraps_output(version) {
                wrapped = format!("{{\"result\":{json}}}");
                &wrapped
            } else {
                json
            };
            body.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":");
            frame::push_json_string(&mut body, value);
            body.extend_from_slice(b"}]");
            if version.has_structured_output() {
                body.extend_from_slice(b",\"structuredContent\":");
                body.extend_from_slice(value.as_bytes());
            }
        }
        ToolOutcome::Content(blocks) => {
            body.extend_from_slice(b"{\"content\":");
            let blocks: Vec<Value> = blocks.iter().map(|b| b.to_json(version)).collect();
            frame::push_json(&mut body, &Value::Array(blocks));
        }
        ToolOutcome::Error(message) => {
            body.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":");
            frame::push_json_string(&mut body, message);
            body.extend_from_slice(b"}],\"isError\":true");
        }
    }
    // Every piece above is valid UTF-8 JSON text.
    String::from_utf8(body).unwrap_or_default()
}
