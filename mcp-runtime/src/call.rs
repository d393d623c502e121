//! Running one tool call: admission, a task of its own, timeout, panic
//! catching, cancellation, and the result shaped for the caller's revision.

use crate::connection::Connection;
use crate::context::{Context, Interrupt};
use crate::elicit::{ALREADY_USED, SpendRefusal, StateTicket};
use crate::limits::QueueTimeout;
use crate::protocol::{ErrorCode, ProtocolVersion, frame};
use crate::shared::Shared;
use crate::tool::{Tool, ToolCall, ToolOutcome};
use serde_json::{Value, json};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

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
    /// The `requestState` whose answers the call uses, spent when it starts
    /// (2026-07-28; `None` without one, or for a replayable tool).
    pub(crate) ticket: Option<StateTicket>,
}

/// How a call ended.
enum Ending {
    Outcome(ToolOutcome),
    Interrupted(Interrupt),
}

/// Starts a call. A tool that does not take a `Context` is first polled
/// right here: most tools finish without ever waiting, and then the response
/// goes out with no task, no wakeup and no extra allocation. A tool that
/// waits (or takes a `Context`, so that cancellation, progress and
/// elicitation work while it computes) continues on a task of its own, so a
/// slow tool never holds up the reader; responses go out in completion order.
pub(crate) fn start(shared: &Arc<Shared>, connection: &Arc<Connection>, prepared: PreparedCall) {
    let PreparedCall {
        id,
        key,
        tool,
        call,
        arguments_digest,
        ticket,
    } = prepared;
    let started = call_clock();
    let version = call.version;
    let context = call.context.clone();
    // Spent once admitted, right before the tool runs: a state refused by
    // the rate or pending limit stays usable for the client's next try.
    if let Some(ticket) = ticket {
        let refusal = match shared.sealer.spend(&ticket) {
            Ok(()) => None,
            Err(SpendRefusal::AlreadyUsed) => Some(frame::error(
                Some(&id),
                ErrorCode::INVALID_PARAMS,
                &format!("Invalid params: {ALREADY_USED}"),
                None,
            )),
            Err(SpendRefusal::Full(wait)) => {
                let busy = ToolOutcome::Error(format!(
                    "The server is busy (too many answered input requests are still \
                     unexpired); '{}' was not run. Retry in {}.",
                    tool.name,
                    human_duration(wait)
                ));
                Some(outcome_frame(shared, &id, &tool, &busy, version))
            }
        };
        if let Some(refusal) = refusal {
            context.finish();
            if connection.finish_call(&key) {
                connection.send(refusal);
            }
            return;
        }
    }
    let timeout = tool.def.timeout.or(shared.call_timeout);
    // A call with a timeout needs the timer of a task from the start.
    let inline = tool.def.first_poll_inline && timeout.is_none();
    let mut future: Pin<Box<dyn Future<Output = ToolOutcome> + Send>> = if inline {
        Box::pin(run_tool(Arc::clone(&tool), call))
    } else {
        Box::pin(run_with_timeout(Arc::clone(&tool), call, timeout))
    };
    if inline {
        let mut cx = TaskContext::from_waker(std::task::Waker::noop());
        if let Poll::Ready(outcome) = future.as_mut().poll(&mut cx) {
            context.finish();
            log_outcome(&tool, &id, started, &outcome);
            if connection.finish_call(&key) {
                connection.send(outcome_frame(shared, &id, &tool, &outcome, version));
            }
            return;
        }
    }
    let pending = Pending {
        id,
        key,
        tool,
        context,
        arguments_digest,
        version,
        started,
        future,
    };
    spawn(Arc::clone(shared), Arc::clone(connection), pending);
}

/// When the call started, read only when its debug line will be written.
fn call_clock() -> Option<Instant> {
    tracing::enabled!(tracing::Level::DEBUG).then(Instant::now)
}

/// The per-call debug line of a call that returned.
fn log_outcome(tool: &Tool, id: &str, started: Option<Instant>, outcome: &ToolOutcome) {
    if let Some(started) = started {
        tracing::debug!(
            tool = %tool.name,
            id = %id,
            duration = ?started.elapsed(),
            is_error = matches!(outcome, ToolOutcome::Error(_)),
            "tool call"
        );
    }
}

/// A call whose future still has to run.
struct Pending {
    id: String,
    key: String,
    tool: Arc<Tool>,
    context: Context,
    arguments_digest: String,
    version: ProtocolVersion,
    /// See [`call_clock`].
    started: Option<Instant>,
    future: Pin<Box<dyn Future<Output = ToolOutcome> + Send>>,
}

fn spawn(shared: Arc<Shared>, connection: Arc<Connection>, pending: Pending) {
    let key = pending.key.clone();
    let task_connection = Arc::clone(&connection);
    let task = tokio::spawn(async move {
        let connection = task_connection;
        let Pending {
            id,
            key,
            tool,
            context,
            arguments_digest,
            version,
            started,
            future,
        } = pending;
        let _slot = match shared.limits.run_slot().await {
            Ok(slot) => slot,
            Err(QueueTimeout { waited }) => {
                context.finish();
                if connection.finish_call(&key) {
                    let busy = ToolOutcome::Error(format!(
                        "The server was busy for {} (every run slot taken by other calls), \
                         so '{}' was not run. Retry the call later.",
                        human_duration(waited),
                        tool.name
                    ));
                    connection.send(outcome_frame(&shared, &id, &tool, &busy, version));
                }
                return;
            }
        };
        let ending = tokio::select! {
            biased;
            interrupt = context.interrupted() => Ending::Interrupted(interrupt),
            outcome = future => Ending::Outcome(outcome),
        };
        context.finish();
        match (&ending, started) {
            (Ending::Outcome(outcome), _) => log_outcome(&tool, &id, started, outcome),
            (Ending::Interrupted(interrupt), Some(started)) => tracing::debug!(
                tool = %tool.name,
                id = %id,
                duration = ?started.elapsed(),
                interrupted = match interrupt {
                    Interrupt::InputRequired { .. } => "input required",
                    Interrupt::MissingCapability(_) => "missing client capability",
                },
                "tool call"
            ),
            (Ending::Interrupted(_), None) => {}
        }
        if !connection.finish_call(&key) {
            return; // cancelled: nothing more is sent for this id
        }
        let frame = match ending {
            Ending::Outcome(outcome) => outcome_frame(&shared, &id, &tool, &outcome, version),
            Ending::Interrupted(Interrupt::MissingCapability(required)) => frame::error(
                Some(&id),
                ErrorCode::MISSING_CLIENT_CAPABILITY,
                "Missing required client capability",
                Some(&json!({"requiredCapabilities": required})),
            ),
            Ending::Interrupted(Interrupt::InputRequired { key, request }) => {
                let state =
                    shared
                        .sealer
                        .seal(&tool.name, &arguments_digest, &key, context.answers());
                let mut input_requests = serde_json::Map::new();
                input_requests.insert(
                    key,
                    json!({"method": "elicitation/create", "params": request.params(version)}),
                );
                let mut body =
                    json!({"inputRequests": input_requests, "requestState": state}).to_string();
                body.pop();
                let mut out = frame::start_result(&id, body.len() + 160);
                out.extend_from_slice(body.as_bytes());
                shared
                    .identity
                    .close_into(&mut out, version, "input_required");
                frame::end_result(&mut out);
                out
            }
        };
        connection.send(frame);
    });
    connection.attach_task(&key, task.abort_handle());
}

/// The response frame of a finished call.
fn outcome_frame(
    shared: &Shared,
    id: &str,
    tool: &Tool,
    outcome: &ToolOutcome,
    version: ProtocolVersion,
) -> Vec<u8> {
    let mut out = frame::start_result(id, 160);
    render_result(&mut out, tool, outcome, version);
    shared.identity.close_into(&mut out, version, "complete");
    frame::end_result(&mut out);
    out
}

async fn run_with_timeout(
    tool: Arc<Tool>,
    call: ToolCall,
    timeout: Option<Duration>,
) -> ToolOutcome {
    match timeout {
        None => run_tool(Arc::clone(&tool), call).await,
        Some(limit) => match tokio::time::timeout(limit, run_tool(Arc::clone(&tool), call)).await {
            Ok(outcome) => outcome,
            Err(_) => ToolOutcome::Error(format!(
                "The tool '{}' timed out after {}.",
                tool.name,
                human_duration(limit)
            )),
        },
    }
}

/// `d` for people: whole seconds as `30s`, anything else as `300ms`.
pub(crate) fn human_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Runs a tool, turning a panic into an error result: the server keeps serving.
async fn run_tool(tool: Arc<Tool>, call: ToolCall) -> ToolOutcome {
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

/// Appends the `CallToolResult` for `outcome` to `out`, as an open object
/// (see [`crate::shared::Identity::close_into`]).
pub(crate) fn render_result(
    out: &mut Vec<u8>,
    tool: &Tool,
    outcome: &ToolOutcome,
    version: ProtocolVersion,
) {
    match outcome {
        ToolOutcome::Structured(json) => {
            // Hand-built outcomes may hold pretty or broken JSON: a newline
            // would split the frame, and broken text would corrupt it.
            let compact;
            let json: &str = match serde_json::from_str::<&serde_json::value::RawValue>(json) {
                Ok(_) if !json.contains(['\n', '\r']) => json,
                Ok(_) => match serde_json::from_str::<Value>(json) {
                    Ok(value) => {
                        compact = value.to_string();
                        &compact
                    }
                    Err(_) => json,
                },
                Err(err) => {
                    let message = format!(
                        "The tool '{}' produced a structured result that is not JSON: {err}",
                        tool.name
                    );
                    return render_result(out, tool, &ToolOutcome::Error(message), version);
                }
            };
            let wrap = tool.wraps_output(version);
            out.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":");
            if wrap {
                frame::push_json_string(out, &format!("{{\"result\":{json}}}"));
            } else {
                frame::push_json_string(out, json);
            }
            out.extend_from_slice(b"}]");
            if version.has_structured_output() {
                out.extend_from_slice(b",\"structuredContent\":");
                if wrap {
                    out.extend_from_slice(b"{\"result\":");
                    out.extend_from_slice(json.as_bytes());
                    out.push(b'}');
                } else {
                    out.extend_from_slice(json.as_bytes());
                }
            }
        }
        ToolOutcome::Content(blocks) => {
            out.extend_from_slice(b"{\"content\":");
            let blocks: Vec<Value> = blocks.iter().map(|b| b.to_json(version)).collect();
            frame::push_json(out, &Value::Array(blocks));
        }
        ToolOutcome::Error(message) => {
            out.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":");
            frame::push_json_string(out, message);
            out.extend_from_slice(b"}],\"isError\":true");
        }
    }
}
