//! Running one admitted tool call: spending its `requestState` (in the
//! server's store), the inline first poll or a task of its own, run slots,
//! timeout, cancellation, and sending the answer [`super::finish`] renders.
//! What every caller shares (the run slot, the timeout, panic catching) is
//! in [`super::run`]; what a call records about itself (its span and debug
//! line) is in [`super::call_span`].

use super::call_span::{CallSpan, Outcome};
use super::finish;
use super::run::{self, Admitted, Ending, Sink, run_tool};
use crate::conn::connection::{CancelSignal, Connection};
use crate::context::Context;
use crate::context::elicit::Interrupt;
use crate::context::seal::{
    ALREADY_USED, ArgumentsDigest, IssueRefusal, SpendRefusal, StateTicket, UNKNOWN_STATE,
};
use crate::outcome::ToolOutcome;
use crate::protocol::frame::Frame;
use crate::protocol::outgoing::{self, Reply};
use crate::protocol::{ProtocolVersion, RpcError};
use crate::session::tasks::TaskStarter;
use crate::shared::Shared;
use crate::store::StoreError;
use crate::tool::{Tool, ToolCall};
use crate::util::{human_duration, poll_now};
use serde_json::value::RawValue;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

/// A tool's future, boxed to be polled once inline and then moved to a task.
type ToolFuture = Pin<Box<dyn Future<Output = ToolOutcome> + Send>>;

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
    if let Poll::Ready(spent) = poll_now(spend.as_mut()) {
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
    let timeout = run::timeout(shared, &tool, task.is_some(), None);
    // A call with a timeout needs the timer of a task from the start, and
    // one that may become a task must first be stored.
    let inline = tool.def.first_poll_inline && timeout.is_none() && task.is_none();
    let mut future: ToolFuture = Box::pin(run_tool(Arc::clone(&tool), call));
    if inline && let Poll::Ready(outcome) = span.span().in_scope(|| poll_now(future.as_mut())) {
        context.finish();
        if finished(connection, &key, tracked) {
            span.close(&tool.name, id, Outcome::of(&outcome));
            connection.send(outcome_frame(shared, id, &tool, &outcome, version));
        } else {
            span.close(&tool.name, id, Outcome::Cancelled);
        }
        return;
    }
    if !tracked {
        connection.track_call(&key, &cancel);
    }
    let call = Admitted {
        tool,
        context,
        future,
        span,
        timeout,
    };
    let wire = Wire {
        shared: Arc::clone(shared),
        connection: Arc::clone(connection),
        key,
        arguments_digest,
        version,
        task,
    };
    spawn(call, wire);
}

/// Ends a call that was run (or refused) without waiting: `false` when it
/// was cancelled meanwhile, so its response must not be sent. A call that was
/// never tracked cannot have been.
fn finished(connection: &Connection, key: &str, tracked: bool) -> bool {
    !tracked || connection.finish_call(key)
}

/// The wire's [`Sink`]: call `key`'s response frame on `connection` (or
/// the task's record, once the call became a task).
struct Wire {
    shared: Arc<Shared>,
    connection: Arc<Connection>,
    key: Arc<str>,
    arguments_digest: ArgumentsDigest,
    version: ProtocolVersion,
    task: Option<Arc<TaskStarter>>,
}

impl Sink for Wire {
    /// The frame to send, once the span is closed (none when cancelled or
    /// a task).
    type Output = Option<Frame>;

    /// `tasks/cancel` fires the context's cancellation; a plain call's
    /// cancellation aborts its task instead.
    fn cancelled_by_context(&self) -> bool {
        crate::task::ENABLED && self.task.is_some()
    }

    /// A task tool becomes a task before its first line, unless its body
    /// says where (after the questions it asks on the request).
    async fn begin(&self, tool: &Tool, context: &Context) -> Result<(), ToolOutcome> {
        // Without the `tasks` feature no call becomes a task, and the task
        // paths that await are compiled out: a constant `false` would not
        // do, because an async fn keeps the resume arm of every await it
        // contains, with all it calls (a measurable part of a stdio
        // server's binary: BENCHMARKS.md).
        #[cfg(feature = "tasks")]
        if self.task.is_some()
            && !tool.def.task_begins_in_body
            && let Err(refusal) = context.begin_task().await
        {
            return Err(ToolOutcome::Error(refusal.message().to_owned()));
        }
        #[cfg(not(feature = "tasks"))]
        let _ = (tool, context);
        Ok(())
    }

    async fn deliver(
        self,
        tool: &Tool,
        context: &Context,
        ending: Ending,
    ) -> (Outcome, Option<Frame>) {
        let Wire {
            shared,
            connection,
            key,
            arguments_digest,
            version,
            task,
        } = self;
        #[cfg(feature = "tasks")]
        if let Some(run) = task.as_ref().and_then(|starter| starter.run()) {
            let (outcome, settled) = crate::session::tasks::task_end(tool, ending, version);
            run.settle(settled).await;
            return (outcome, None);
        }
        #[cfg(not(feature = "tasks"))]
        let _ = task;
        if !connection.finish_call(&key) {
            return (Outcome::Cancelled, None); // nothing more is sent for this id
        }
        let id = context.raw_request_id();
        match ending {
            // Only a task is cancelled this way, and this call is not one.
            Ending::Cancelled => (Outcome::Cancelled, None),
            Ending::Outcome(ran) => (
                ran.outcome(),
                Some(outcome_frame(&shared, id, tool, &ran.outcome, version)),
            ),
            Ending::Interrupted(Interrupt::MissingCapability(required)) => (
                Outcome::Error,
                Some(outgoing::rpc_error(
                    Some(id),
                    &finish::missing_capability(required),
                )),
            ),
            Ending::Interrupted(Interrupt::InputRequired(round)) => {
                let keys: Vec<&str> = round.iter().map(|(key, _)| key.as_str()).collect();
                let issued = shared
                    .sealer
                    .issue(
                        &tool.sealed_name(),
                        &arguments_digest.get(),
                        &keys,
                        context.answers(),
                        connection.client_key(),
                        !tool.def.replayable_input,
                    )
                    .await;
                match issued {
                    Ok(state) => (
                        Outcome::InputRequired,
                        Some(
                            reply(&shared, id, version).input_required(
                                &round
                                    .iter()
                                    .map(|(key, question)| (key.as_str(), question.wire(version)))
                                    .collect::<Vec<_>>(),
                                &state,
                            ),
                        ),
                    ),
                    Err(refusal) => {
                        let outcome = ToolOutcome::Error(not_issued(&tool.name, &refusal));
                        (
                            Outcome::IsError,
                            Some(outcome_frame(&shared, id, tool, &outcome, version)),
                        )
                    }
                }
            }
        }
    }
}

/// Runs the rest of a call on a task of its own ([`run::execute`] with the
/// [`Wire`] sink), abortable through the in-flight table.
fn spawn(call: Admitted<ToolFuture>, wire: Wire) {
    let key = Arc::clone(&wire.key);
    let connection = Arc::clone(&wire.connection);
    let task = tokio::spawn(async move {
        let (shared, connection) = (Arc::clone(&wire.shared), Arc::clone(&wire.connection));
        if let Some(frame) = run::execute(&shared, connection.client_key(), call, wire).await {
            connection.send(frame);
        }
    });
    connection.attach_task(&key, task.abort_handle());
}

/// The response frame of a finished call (see [`finish::frame`]).
fn outcome_frame(
    shared: &Shared,
    id: &RawValue,
    tool: &Tool,
    outcome: &ToolOutcome,
    version: ProtocolVersion,
) -> Frame {
    finish::frame(reply(shared, id, version), id, tool, outcome, version)
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
