//! Running one admitted tool call: spending its `requestState` (in the
//! server's store), the inline first poll or a task of its own, run slots,
//! timeout, panic catching, cancellation, and handing the outcome to
//! [`crate::protocol::outgoing`].

use crate::context::Context;
use crate::elicit::Interrupt;
use crate::elicit::seal::{ALREADY_USED, ArgumentsDigest, SpendRefusal, StateTicket};
use crate::limits::QueueTimeout;
use crate::protocol::frame::Frame;
use crate::protocol::outgoing::{self, CallToolResult, Capabilities, ErrorData, Reply};
use crate::protocol::{ErrorCode, ProtocolVersion};
use crate::session::connection::Connection;
use crate::shared::Shared;
use crate::store::StoreError;
use crate::tool::{Tool, ToolCall, ToolOutcome};
use crate::util::human_duration;
use serde_json::value::RawValue;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

/// The target of the per-call log lines, kept from before this module
/// moved: users filter on it (`MCP_LOG=mcp_runtime::call=debug`).
const LOG_TARGET: &str = "mcp_runtime::call";

/// A call ready to run.
pub(crate) struct PreparedCall {
    /// The canonical id, the key of the in-flight table.
    pub(crate) key: Arc<str>,
    pub(crate) tool: Arc<Tool>,
    pub(crate) call: ToolCall,
    /// Digest of the arguments, to seal `requestState` (2026-07-28).
    pub(crate) arguments_digest: ArgumentsDigest,
    /// The `requestState` whose answers the call uses, spent when it starts
    /// (2026-07-28; `None` without one, or for a replayable tool).
    pub(crate) ticket: Option<StateTicket>,
}

/// How a call ended.
enum Ending {
    Outcome(ToolOutcome),
    Interrupted(Interrupt),
}

/// Starts a call: spends its `requestState`, if any, then [`run`]s it.
pub(crate) fn start(
    shared: &Arc<Shared>,
    connection: &Arc<Connection>,
    mut prepared: PreparedCall,
) {
    // Spent once admitted, right before the tool runs: a state refused by
    // the rate or pending limit stays usable for the client's next try.
    let Some(ticket) = prepared.ticket.take() else {
        return run(shared, connection, prepared);
    };
    let mut spend = shared.sealer.spend(ticket);
    // The in-memory store answers at once; a shared one is waited for on a
    // task of the call's own, cancellable like the call.
    let mut cx = TaskContext::from_waker(std::task::Waker::noop());
    if let Poll::Ready(spent) = spend.as_mut().poll(&mut cx) {
        return after_spend(shared, connection, prepared, spent);
    }
    let key = prepared.key.clone();
    let (task_shared, task_connection) = (Arc::clone(shared), Arc::clone(connection));
    let task = tokio::spawn(async move {
        let spent = spend.await;
        after_spend(&task_shared, &task_connection, prepared, spent);
    });
    connection.attach_task(&key, task.abort_handle());
}

/// Runs the call whose state was spent, or answers why it could not be.
fn after_spend(
    shared: &Arc<Shared>,
    connection: &Arc<Connection>,
    prepared: PreparedCall,
    spent: Result<(), SpendRefusal>,
) {
    let refused = match spent {
        Ok(()) => return run(shared, connection, prepared),
        Err(refusal) => refusal,
    };
    let PreparedCall {
        key, tool, call, ..
    } = prepared;
    let id = call.context.raw_request_id();
    let refusal = match refused {
        SpendRefusal::AlreadyUsed => outgoing::error(
            Some(id),
            ErrorCode::INVALID_PARAMS,
            &format!("Invalid params: {ALREADY_USED}"),
            None,
        ),
        SpendRefusal::Store(StoreError::Full(wait)) => {
            let busy = ToolOutcome::Error(format!(
                "The server is busy (too many answered input requests are still \
                 unexpired); '{}' was not run. Retry in {}.",
                tool.name,
                human_duration(wait)
            ));
            outcome_frame(shared, id, &tool, &busy, call.version)
        }
        // Never run on answers that could not be marked used: they could
        // be replayed.
        SpendRefusal::Store(err) => {
            let failed = ToolOutcome::Error(format!(
                "{err}; '{}' was not run, as its requestState could not be checked. \
                 Retry the call later.",
                tool.name
            ));
            outcome_frame(shared, id, &tool, &failed, call.version)
        }
    };
    call.context.finish();
    if connection.finish_call(&key) {
        connection.send(refusal);
    }
}

/// Runs an admitted call whose state, if any, is spent. A tool that does
/// not take a `Context` is first polled right here: most tools finish
/// without ever waiting, and then the response goes out with no task, no
/// wakeup and no extra allocation. A tool that waits (or takes a `Context`,
/// so that cancellation, progress and elicitation work while it computes)
/// continues on a task of its own, so a slow tool never holds up the
/// reader; responses go out in completion order.
fn run(shared: &Arc<Shared>, connection: &Arc<Connection>, prepared: PreparedCall) {
    let PreparedCall {
        key,
        tool,
        call,
        arguments_digest,
        ticket: _,
    } = prepared;
    let started = call_clock();
    let version = call.version;
    let context = call.context.clone();
    // The id as the client sent it, echoed in the response.
    let id = context.raw_request_id();
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
            log_outcome(&tool, id, started, &outcome);
            if connection.finish_call(&key) {
                connection.send(outcome_frame(shared, id, &tool, &outcome, version));
            }
            return;
        }
    }
    let pending = Pending {
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
fn log_outcome(tool: &Tool, id: &RawValue, started: Option<Instant>, outcome: &ToolOutcome) {
    if let Some(started) = started {
        tracing::debug!(
            target: LOG_TARGET,
            tool = %tool.name,
            id = %id.get(),
            duration = ?started.elapsed(),
            is_error = matches!(outcome, ToolOutcome::Error(_)),
            "tool call"
        );
    }
}

/// A call whose future still has to run.
struct Pending {
    key: Arc<str>,
    tool: Arc<Tool>,
    context: Context,
    arguments_digest: ArgumentsDigest,
    version: ProtocolVersion,
    /// See [`call_clock`].
    started: Option<Instant>,
    future: Pin<Box<dyn Future<Output = ToolOutcome> + Send>>,
}

fn spawn(shared: Arc<Shared>, connection: Arc<Connection>, pending: Pending) {
    let key = Arc::clone(&pending.key);
    let task_connection = Arc::clone(&connection);
    let task = tokio::spawn(async move {
        let connection = task_connection;
        let Pending {
            key,
            tool,
            context,
            arguments_digest,
            version,
            started,
            future,
        } = pending;
        let id = context.raw_request_id();
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
                    connection.send(outcome_frame(&shared, id, &tool, &busy, version));
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
            (Ending::Outcome(outcome), _) => log_outcome(&tool, id, started, outcome),
            (Ending::Interrupted(interrupt), Some(started)) => tracing::debug!(
                target: LOG_TARGET,
                tool = %tool.name,
                id = %id.get(),
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
            Ending::Outcome(outcome) => outcome_frame(&shared, id, &tool, &outcome, version),
            Ending::Interrupted(Interrupt::MissingCapability(required)) => outgoing::error(
                Some(id),
                ErrorCode::MISSING_CLIENT_CAPABILITY,
                "Missing required client capability",
                Some(&ErrorData::MissingCapability {
                    required: Capabilities(required),
                }),
            ),
            Ending::Interrupted(Interrupt::InputRequired { key, request }) => {
                let state = shared.sealer.seal(
                    &tool.name,
                    &arguments_digest.get(),
                    &key,
                    context.answers(),
                );
                reply(&shared, id, version).input_required(&key, &request.wire(version), &state)
            }
        };
        connection.send(frame);
    });
    connection.attach_task(&key, task.abort_handle());
}

/// The reply to call `id` of a session or request of `version`.
fn reply<'a>(shared: &'a Shared, id: &'a RawValue, version: ProtocolVersion) -> Reply<'a> {
    Reply::new(id, version, shared.identity.server_meta())
}

/// The response frame of a finished call: the outcome as the revision
/// shows it (a structured result that is not JSON becomes an error).
fn outcome_frame(
    shared: &Shared,
    id: &RawValue,
    tool: &Tool,
    outcome: &ToolOutcome,
    version: ProtocolVersion,
) -> Frame {
    let reply = reply(shared, id, version);
    match outcome {
        ToolOutcome::Structured(text) => match outgoing::structured_json(text) {
            Ok(json) => reply.call_result(&CallToolResult::Structured {
                json: &json,
                wrap: tool.wraps_output(version),
            }),
            Err(err) => {
                let message = format!(
                    "The tool '{}' produced a structured result that is not JSON: {err}",
                    tool.name
                );
                reply.call_result(&CallToolResult::Error(&message))
            }
        },
        ToolOutcome::Content(blocks) => reply.call_result(&CallToolResult::Content(blocks)),
        ToolOutcome::Error(message) => reply.call_result(&CallToolResult::Error(message)),
    }
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
        tracing::error!(target: LOG_TARGET, tool = %tool.name, panic = %detail, "a tool panicked");
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
