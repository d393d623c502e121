//! Running one admitted tool call: spending its `requestState` (in the
//! server's store), the inline first poll or a task of its own, run slots,
//! timeout, panic catching, cancellation, and handing the outcome to
//! [`crate::protocol::outgoing`]. What a call records about itself (its
//! span and debug line) is in [`super::call_span`].

use super::call_span::{CallSpan, LOG_TARGET, Outcome};
use crate::conn::connection::{CancelSignal, Connection};
use crate::content::Content;
use crate::context::Context;
use crate::context::elicit::Interrupt;
use crate::context::seal::{
    ALREADY_USED, ArgumentsDigest, IssueRefusal, SpendRefusal, StateTicket, UNKNOWN_STATE,
};
use crate::limits::QueueTimeout;
use crate::outcome::ToolOutcome;
use crate::protocol::frame::Frame;
use crate::protocol::outgoing::{self, CallToolResultRef, Capabilities, ErrorData, Reply};
use crate::protocol::{ProtocolVersion, RpcError};
use crate::session::tasks::{Settled, TaskRun, TaskStarter};
use crate::session::typed_result::call_result;
use crate::shared::Shared;
use crate::store::StoreError;
use crate::tool::{Tool, ToolCall};
use crate::util::human_duration;
use serde_json::value::RawValue;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

/// A call ready to run.
pub(crate) struct PreparedCall {
    /// The canonical id, the key of the in-flight table.
    pub(crate) key: Arc<str>,
    /// The call's cancellation, which the in-flight table signals.
    pub(crate) cancel: CancelSignal,
    /// In the in-flight table: the call did not finish while it was
    /// dispatched ([`Connection::track_call`]).
    pub(crate) tracked: bool,
    pub(crate) tool: Arc<Tool>,
    pub(crate) call: ToolCall,
    /// Digest of the arguments, to seal `requestState` (2026-07-28).
    pub(crate) arguments_digest: ArgumentsDigest,
    /// The `requestState` whose answers the call uses, spent when it starts
    /// (2026-07-28; `None` without one, or for a replayable tool).
    pub(crate) ticket: Option<StateTicket>,
    /// The call's span, opened when it was admitted.
    pub(crate) span: CallSpan,
    /// How the call becomes a task, when it may (Tasks extension).
    pub(crate) task: Option<Arc<TaskStarter>>,
}

/// How a call ended.
enum Ending {
    Outcome(Ran),
    Interrupted(Interrupt),
    /// A task's `tasks/cancel` took effect.
    Cancelled,
}

/// What a tool's run returned, and whether that is its timeout's error.
pub(crate) struct Ran {
    pub(crate) outcome: ToolOutcome,
    timed_out: bool,
}

impl Ran {
    pub(crate) fn outcome(&self) -> Outcome {
        if self.timed_out {
            Outcome::Timeout
        } else {
            Outcome::of(&self.outcome)
        }
    }
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
    connection.track_call(&key, &prepared.cancel);
    prepared.tracked = true;
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
        key,
        tracked,
        tool,
        call,
        span,
        ..
    } = prepared;
    let id = call.context.raw_request_id();
    let (outcome, refusal) = match refused {
        SpendRefusal::AlreadyUsed => (
            Outcome::Error,
            outgoing::rpc_error(
                Some(id),
                &RpcError::invalid_params(format!("Invalid params: {ALREADY_USED}")),
            ),
        ),
        SpendRefusal::Unknown => (
            Outcome::Error,
            outgoing::rpc_error(
                Some(id),
                &RpcError::invalid_params(format!("Invalid params: {UNKNOWN_STATE}")),
            ),
        ),
        SpendRefusal::Store(StoreError::Full(wait)) => {
            let busy = ToolOutcome::Error(format!(
                "The server is busy (too many answered input requests are still \
                 unexpired); '{}' was not run. Retry in {}.",
                tool.name,
                human_duration(wait)
            ));
            (
                Outcome::IsError,
                outcome_frame(shared, id, &tool, &busy, call.version),
            )
        }
        // Never run on answers that could not be marked used: they could
        // be replayed.
        SpendRefusal::Store(err) => {
            let failed = ToolOutcome::Error(format!(
                "{err}; '{}' was not run, as its requestState could not be checked. \
                 Retry the call later.",
                tool.name
            ));
            (
                Outcome::IsError,
                outcome_frame(shared, id, &tool, &failed, call.version),
            )
        }
    };
    call.context.finish();
    if finished(connection, &key, tracked) {
        span.close(&tool.name, id, outcome);
        connection.send(refusal);
    } else {
        span.close(&tool.name, id, Outcome::Cancelled);
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
        cancel,
        tracked,
        tool,
        call,
        arguments_digest,
        ticket: _,
        span,
        task,
    } = prepared;
    let version = call.version;
    let context = call.context.clone();
    // The id as the client sent it, echoed in the response.
    let id = context.raw_request_id();
    // The server's call timeout bounds a request; a task outlives its
    // request, so only the tool's own timeout bounds it.
    let timeout = match task {
        Some(_) => tool.def.timeout,
        None => tool.def.timeout.or(shared.call_timeout),
    };
    // A call with a timeout needs the timer of a task from the start, and
    // one that may become a task must first be stored.
    let inline = tool.def.first_poll_inline && timeout.is_none() && task.is_none();
    let mut future: Pin<Box<dyn Future<Output = ToolOutcome> + Send>> =
        Box::pin(run_tool(Arc::clone(&tool), call));
    if inline {
        let mut cx = TaskContext::from_waker(std::task::Waker::noop());
        if let Poll::Ready(outcome) = span.span().in_scope(|| future.as_mut().poll(&mut cx)) {
            context.finish();
            if finished(connection, &key, tracked) {
                span.close(&tool.name, id, Outcome::of(&outcome));
                connection.send(outcome_frame(shared, id, &tool, &outcome, version));
            } else {
                span.close(&tool.name, id, Outcome::Cancelled);
            }
            return;
        }
    }
    if !tracked {
        connection.track_call(&key, &cancel);
    }
    let pending = Pending {
        key,
        tool,
        context,
        arguments_digest,
        version,
        span,
        timeout,
        future,
        task,
    };
    spawn(Arc::clone(shared), Arc::clone(connection), pending);
}

/// Ends a call that was run (or refused) without waiting: `false` when it
/// was cancelled meanwhile, so its response must not be sent. A call that was
/// never tracked cannot have been.
fn finished(connection: &Connection, key: &str, tracked: bool) -> bool {
    !tracked || connection.finish_call(key)
}

/// A call whose future still has to run.
struct Pending {
    key: Arc<str>,
    tool: Arc<Tool>,
    context: Context,
    arguments_digest: ArgumentsDigest,
    version: ProtocolVersion,
    span: CallSpan,
    timeout: Option<Duration>,
    future: Pin<Box<dyn Future<Output = ToolOutcome> + Send>>,
    task: Option<Arc<TaskStarter>>,
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
            span,
            timeout,
            future,
            task,
        } = pending;
        // Without the `tasks` feature no call becomes a task, and the two
        // task paths below that await are compiled out: a constant `false`
        // would not do, because an async fn keeps the resume arm of every
        // await it contains, with all it calls. With the guard in
        // `task_cancelled`, 78 KB of the stdio `everything`.
        let id = context.raw_request_id();
        let _slot = match shared.limits.run_slot(connection.client_key()).await {
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
                    span.close(&tool.name, id, Outcome::IsError);
                    connection.send(outcome_frame(&shared, id, &tool, &busy, version));
                } else {
                    span.close(&tool.name, id, Outcome::Cancelled);
                }
                return;
            }
        };
        // A task tool becomes a task before its first line, unless its body
        // says where (after the questions it asks on the request).
        #[cfg(feature = "tasks")]
        if task.is_some()
            && !tool.def.task_begins_in_body
            && let Err(refusal) = context.begin_task().await
        {
            context.finish();
            if connection.finish_call(&key) {
                span.close(&tool.name, id, Outcome::IsError);
                let refused = ToolOutcome::Error(refusal.message().to_owned());
                connection.send(outcome_frame(&shared, id, &tool, &refused, version));
            } else {
                span.close(&tool.name, id, Outcome::Cancelled);
            }
            return;
        }
        // `tasks/cancel` fires the context's cancellation; a plain call's
        // cancellation aborts this task instead.
        let task_cancelled = async {
            match &task {
                Some(_) if crate::task::ENABLED => context.cancelled().await,
                _ => std::future::pending().await,
            }
        };
        // The span is entered while the tool's future is polled, so what
        // the tool logs or traces is inside it.
        let ending = tokio::select! {
            biased;
            () = task_cancelled => Ending::Cancelled,
            interrupt = context.interrupted() => Ending::Interrupted(interrupt),
            ran = with_timeout(tool.name.as_ref(), tracing::Instrument::instrument(future, span.span().clone()), timeout) => Ending::Outcome(ran),
        };
        context.finish();
        #[cfg(feature = "tasks")]
        if let Some(run) = task.as_ref().and_then(|starter| starter.run()) {
            let (outcome, settled) = task_end(&tool, ending, version);
            run.settle(settled).await;
            span.close(&tool.name, id, outcome);
            return;
        }
        if !connection.finish_call(&key) {
            span.close(&tool.name, id, Outcome::Cancelled);
            return; // cancelled: nothing more is sent for this id
        }
        let (outcome, frame) = match ending {
            // Only a task is cancelled this way, and this call is not one.
            Ending::Cancelled => {
                span.close(&tool.name, id, Outcome::Cancelled);
                return;
            }
            Ending::Outcome(ran) => (
                ran.outcome(),
                outcome_frame(&shared, id, &tool, &ran.outcome, version),
            ),
            Ending::Interrupted(Interrupt::MissingCapability(required)) => (
                Outcome::Error,
                outgoing::rpc_error(
                    Some(id),
                    &RpcError::missing_client_capability("Missing required client capability")
                        .with_data(
                            ErrorData::MissingCapability {
                                required: Capabilities(required),
                            }
                            .into(),
                        ),
                ),
            ),
            Ending::Interrupted(Interrupt::InputRequired { key, request }) => {
                let issued = shared
                    .sealer
                    .issue(
                        &tool.name,
                        &arguments_digest.get(),
                        &key,
                        context.answers(),
                        connection.client_key(),
                        !tool.def.replayable_input,
                    )
                    .await;
                match issued {
                    Ok(state) => (
                        Outcome::InputRequired,
                        reply(&shared, id, version).input_required(
                            &key,
                            &request.wire(version),
                            &state,
                        ),
                    ),
                    Err(refusal) => {
                        let outcome = ToolOutcome::Error(not_issued(&tool.name, &refusal));
                        (
                            Outcome::IsError,
                            outcome_frame(&shared, id, &tool, &outcome, version),
                        )
                    }
                }
            }
        };
        span.close(&tool.name, id, outcome);
        connection.send(frame);
    });
    connection.attach_task(&key, task.abort_handle());
}

/// Runs a task's tool again after its worker was lost (see
/// `session::tasks::resume`): a run slot, the tool's own timeout,
/// `tasks/cancel`, and the end stored in the record.
pub(crate) async fn run_resumed(shared: &Shared, tool: Arc<Tool>, call: ToolCall, run: TaskRun) {
    let context = call.context.clone();
    let version = call.version;
    let _slot = match shared.limits.run_slot(None).await {
        Ok(slot) => slot,
        Err(QueueTimeout { waited }) => {
            run.settle(Settled::Failed(RpcError::internal_error(format!(
                "the server was busy for {} (every run slot taken), so the task could not be started again",
                human_duration(waited)
            ))))
            .await;
            return;
        }
    };
    let future = run_tool(Arc::clone(&tool), call);
    let ending = tokio::select! {
        biased;
        () = context.cancelled() => Ending::Cancelled,
        interrupt = context.interrupted() => Ending::Interrupted(interrupt),
        ran = with_timeout(tool.name.as_ref(), future, tool.def.timeout) => Ending::Outcome(ran),
    };
    context.finish();
    let (_, settled) = task_end(&tool, ending, version);
    run.settle(settled).await;
}

/// What a task's end stores, from how its call ended.
fn task_end(tool: &Tool, ending: Ending, version: ProtocolVersion) -> (Outcome, Settled) {
    match ending {
        Ending::Cancelled => (Outcome::Cancelled, Settled::Cancelled),
        Ending::Outcome(ran) => {
            let outcome = ran.outcome();
            match ran.outcome {
                ToolOutcome::Protocol(error) => (outcome, Settled::Failed(error)),
                done => {
                    let result = call_result(tool, done, version);
                    match serde_json::to_value(result) {
                        Ok(result) => (outcome, Settled::Completed(result)),
                        Err(e) => (
                            Outcome::Error,
                            Settled::Failed(RpcError::internal_error(e.to_string())),
                        ),
                    }
                }
            }
        }
        Ending::Interrupted(Interrupt::MissingCapability(required)) => (
            Outcome::Error,
            Settled::Failed(
                RpcError::missing_client_capability("Missing required client capability")
                    .with_data(
                        ErrorData::MissingCapability {
                            required: Capabilities(required),
                        }
                        .into(),
                    ),
            ),
        ),
        // A task's questions go to its record, never into a round of the
        // request, which is over.
        Ending::Interrupted(Interrupt::InputRequired { key, .. }) => (
            Outcome::Error,
            Settled::Failed(RpcError::internal_error(format!(
                "the tool asked `{key}` on the request after its task began"
            ))),
        ),
    }
}

/// Why a tool that asked for input could not be given a new round: the
/// store keeps room for the answers of rounds already issued rather than
/// issue more than it can take answers for.
fn not_issued(tool: &str, refusal: &IssueRefusal) -> String {
    match refusal {
        IssueRefusal::Quota(wait) => format!(
            "'{tool}' needs input, but this client has as many unanswered input requests open as \
             the server allows; answer or abandon those first, or retry in {}.",
            human_duration(*wait)
        ),
        IssueRefusal::Store(StoreError::Full(wait)) => format!(
            "'{tool}' needs input, but the server cannot take more input requests now (its state \
             store is full of unexpired ones); retry in {}.",
            human_duration(*wait)
        ),
        IssueRefusal::Store(err) => format!(
            "{err}; '{tool}' needs input, but its input request could not be recorded. Retry the \
             call later."
        ),
    }
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
    let structured = |text: &str, content: &[Content]| match outgoing::structured_json(text) {
        Ok(json) => reply.call_result(&CallToolResultRef::Structured {
            json: &json,
            wrap: tool.wraps_output(version),
            content,
        }),
        Err(err) => {
            let message = format!(
                "The tool '{}' produced a structured result that is not JSON: {err}",
                tool.name
            );
            reply.call_result(&CallToolResultRef::Error(&message))
        }
    };
    match outcome {
        ToolOutcome::Structured(text) => structured(text, &[]),
        ToolOutcome::StructuredWith { json, content } => structured(json, content),
        ToolOutcome::Content(blocks) => reply.call_result(&CallToolResultRef::Content(blocks)),
        ToolOutcome::Error(message) => reply.call_result(&CallToolResultRef::Error(message)),
        ToolOutcome::Protocol(error) => outgoing::rpc_error(Some(id), error),
    }
}

/// Runs `tool`'s future under its timeout, if it has one (the timer starts
/// at the first poll, once the call has a run slot).
pub(crate) async fn with_timeout(
    tool: &str,
    future: impl Future<Output = ToolOutcome>,
    timeout: Option<Duration>,
) -> Ran {
    let returned = |outcome| Ran {
        outcome,
        timed_out: false,
    };
    match timeout {
        None => returned(future.await),
        Some(limit) => match tokio::time::timeout(limit, future).await {
            Ok(outcome) => returned(outcome),
            Err(_) => Ran {
                outcome: ToolOutcome::Error(format!(
                    "The tool '{tool}' timed out after {}.",
                    human_duration(limit)
                )),
                timed_out: true,
            },
        },
    }
}

/// Runs a tool, turning a panic into an error result: the server keeps serving.
pub(crate) async fn run_tool(tool: Arc<Tool>, call: ToolCall) -> ToolOutcome {
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
struct CatchUnwind(crate::util::BoxFuture<ToolOutcome>);

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

#[cfg(test)]
mod tests {
    use crate::Server;
    use crate::outcome::ToolOutcome;
    use crate::tool::ToolBuilder;
    use crate::transport::memory;
    use serde_json::{Value, json};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};
    use tracing::field::{Field, Visit};
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::{Context, SubscriberExt};

    /// Records the `outcome` each call span is given, in order.
    #[derive(Clone, Default)]
    struct Outcomes(Arc<Mutex<Vec<String>>>);

    impl<S: tracing::Subscriber> Layer<S> for Outcomes {
        fn on_record(
            &self,
            _: &tracing::span::Id,
            values: &tracing::span::Record<'_>,
            _: Context<'_, S>,
        ) {
            struct Visitor<'a>(&'a Mutex<Vec<String>>);
            impl Visit for Visitor<'_> {
                fn record_str(&mut self, field: &Field, value: &str) {
                    if field.name() == "outcome" {
                        self.0.lock().unwrap().push(value.to_owned());
                    }
                }
                fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
            }
            values.record(&mut Visitor(&self.0));
        }
    }

    /// A tool that answers after `wait`.
    fn sleeper(name: &str, wait: Duration) -> ToolBuilder {
        ToolBuilder::new(name, move |_| {
            Box::pin(async move {
                tokio::time::sleep(wait).await;
                ToolOutcome::text("done")
            })
        })
    }

    #[tokio::test]
    async fn the_span_records_timeout_and_cancelled_outcomes() {
        let outcomes = Outcomes::default();
        let _guard =
            tracing::subscriber::set_default(tracing_subscriber::registry().with(outcomes.clone()));
        let server = Server::new("spans", "1")
            .tool(
                sleeper("sleepy", Duration::from_secs(30))
                    .timeout(Duration::from_millis(10))
                    .build(),
            )
            .tool(sleeper("waits", Duration::from_secs(30)).build())
            .tool(sleeper("quick", Duration::ZERO).build());
        let (mut client, io) = memory();
        let (input, output) = tokio::io::split(io);
        let served = tokio::spawn(server.serve(input, output));
        let mut send = async |message: Value| client.send(&message.to_string()).await.unwrap();
        send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .await;
        let call = |id: u64, name: &str| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": name, "arguments": {}}})
        };
        send(call(2, "sleepy")).await;
        send(call(3, "waits")).await;
        send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 3}}),
        )
        .await;
        send(call(4, "quick")).await;
        let deadline = Instant::now() + Duration::from_secs(10);
        while outcomes.0.lock().unwrap().len() < 3 {
            assert!(Instant::now() < deadline, "{:?}", outcomes.0);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let mut seen = outcomes.0.lock().unwrap().clone();
        seen.sort();
        assert_eq!(seen, ["cancelled", "ok", "timeout"]);
        client.close().await.unwrap();
        served.await.unwrap().unwrap();
    }
}
