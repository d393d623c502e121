//! Running an admitted call's tool, the same for every way a call arrives
//! (the wire, the in-process door, a task run again): [`execute`] takes its
//! run slot (or the busy refusal), lets the caller's [`Sink`] begin it (a
//! task), runs the tool's future in the call's span under its timeout with
//! a panic caught as an error result, and hands how the run ended to the
//! sink, the one thing the three differ in: where the answer goes.

use super::call_span::{CallSpan, LOG_TARGET, Outcome};
use crate::context::Context;
use crate::context::elicit::Interrupt;
use crate::limits::{QueueTimeout, RunSlot};
use crate::outcome::ToolOutcome;
use crate::shared::Shared;
use crate::tool::{Tool, ToolCall};
use crate::util::human_duration;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

/// How a call ended.
pub(crate) enum Ending {
    /// The tool returned (or timed out).
    Outcome(Ran),
    /// 2026-07-28: the tool stopped to wait for input, or for a capability.
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
    /// An outcome the tool did not return: a refusal before it ran.
    fn refused(outcome: ToolOutcome) -> Ran {
        Ran {
            outcome,
            timed_out: false,
        }
    }

    pub(crate) fn outcome(&self) -> Outcome {
        if self.timed_out {
            Outcome::Timeout
        } else {
            Outcome::of(&self.outcome)
        }
    }
}

/// An admitted call, ready to run: its tool, its context, the tool's
/// future (made from the call, maybe polled once already), the span opened
/// when it was admitted and its timeout.
pub(crate) struct Admitted<F> {
    pub(crate) tool: Arc<Tool>,
    pub(crate) context: Context,
    pub(crate) future: F,
    pub(crate) span: CallSpan,
    pub(crate) timeout: Option<Duration>,
}

/// Where a call's answer goes: the wire's response frame, the in-process
/// door's returned model, a task's record.
pub(crate) trait Sink {
    /// What [`execute`] returns to its caller.
    type Output;

    /// Whether the context's cancellation ends the run (a task's
    /// `tasks/cancel`); a plain call is cancelled by dropping its future.
    fn cancelled_by_context(&self) -> bool {
        false
    }

    /// Whether the tool may stop to wait for input or a capability (a
    /// question on the wire's connection in the 2026-07-28 era), so the
    /// run is raced with the context's interrupt. A sink whose peer answers
    /// every question itself, and is not cancelled by its context, runs the
    /// bare future: racing costs a registration per call (the door's share
    /// of it was a fifth of its cost, BENCHMARKS.md).
    fn interruptible(&self) -> bool {
        true
    }

    /// Runs with the slot taken, before the tool's first line: a call that
    /// runs as a task becomes one here. `Err` answers the call with that
    /// refusal instead of running it. Nothing, unless the sink says so.
    fn begin(
        &self,
        _tool: &Tool,
        _context: &Context,
    ) -> impl Future<Output = Result<(), ToolOutcome>> + Send {
        std::future::ready(Ok(()))
    }

    /// Takes the call's `ending`; gives back how the call's span records
    /// it, and the output.
    fn deliver(
        self,
        tool: &Tool,
        context: &Context,
        ending: Ending,
    ) -> impl Future<Output = (Outcome, Self::Output)> + Send;
}

/// Runs an admitted call, the one sequence for every way a call arrives:
/// a run slot counted against `client` (or the busy refusal), the sink's
/// beginning, then the tool's future entered in the call's span under its
/// timeout, raced with the interrupts of its context (and its
/// cancellation, for a task); the context finished, the ending delivered
/// to `sink`, the span closed with what the sink made of it.
pub(crate) async fn execute<F, S>(
    shared: &Shared,
    client: Option<&str>,
    call: Admitted<F>,
    sink: S,
) -> S::Output
where
    F: Future<Output = ToolOutcome> + Send,
    S: Sink,
{
    let Admitted {
        tool,
        context,
        future,
        span,
        timeout,
    } = call;
    let ending = match slot(shared, client, &tool.name).await {
        Err(busy) => Ending::Outcome(Ran::refused(busy)),
        Ok(_slot) => match sink.begin(&tool, &context).await {
            Err(refused) => Ending::Outcome(Ran::refused(refused)),
            Ok(()) => {
                // The span is entered while the tool's future is polled, so
                // what the tool logs or traces is inside it.
                let future = tracing::Instrument::instrument(future, span.span().clone());
                let ran = with_timeout(&tool, future, timeout);
                if sink.interruptible() || sink.cancelled_by_context() {
                    let cancelled = async {
                        if sink.cancelled_by_context() {
                            context.cancelled().await;
                        } else {
                            std::future::pending::<()>().await;
                        }
                    };
                    tokio::select! {
                        biased;
                        () = cancelled => Ending::Cancelled,
                        interrupt = context.interrupted() => Ending::Interrupted(interrupt),
                        ran = ran => Ending::Outcome(ran),
                    }
                } else {
                    Ending::Outcome(ran.await)
                }
            }
        },
    };
    context.finish();
    let (outcome, output) = sink.deliver(&tool, &context, ending).await;
    span.close(&tool.name, context.raw_request_id(), outcome);
    output
}

/// The timeout of a call of `tool`: the tool's own, else the server's for
/// a request (a task outlives its request: only the tool's own bounds it),
/// and the shorter of that and the `caller`'s, if it set one.
pub(crate) fn timeout(
    shared: &Shared,
    tool: &Tool,
    as_task: bool,
    caller: Option<Duration>,
) -> Option<Duration> {
    let own = if as_task {
        tool.def.timeout
    } else {
        tool.def.timeout.or(shared.call_timeout)
    };
    match (own, caller) {
        (Some(own), Some(caller)) => Some(own.min(caller)),
        (own, caller) => own.or(caller),
    }
}

/// A run slot for a call of `tool` by `client`, or, when none came free in
/// time, the busy result the call is answered with instead.
pub(crate) async fn slot<'s>(
    shared: &'s Shared,
    client: Option<&str>,
    tool: &str,
) -> Result<RunSlot<'s>, ToolOutcome> {
    shared
        .limits
        .run_slot(client)
        .await
        .map_err(|QueueTimeout { waited }| {
            ToolOutcome::Error(format!(
                "The server was busy for {} (every run slot taken by other calls), \
                 so '{tool}' was not run. Retry the call later.",
                human_duration(waited)
            ))
        })
}

/// Runs `tool`'s future under its timeout, if it has one (the timer starts
/// at the first poll, once the call has a run slot).
pub(crate) async fn with_timeout(
    tool: &Tool,
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
                    "The {} '{}' timed out after {}.",
                    tool.noun(),
                    tool.name,
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
        Ok(future) => crate::util::CatchUnwind(future).await,
        Err(payload) => Err(payload),
    };
    result.unwrap_or_else(|payload| {
        let detail = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".to_owned());
        tracing::error!(target: LOG_TARGET, tool = %tool.name, panic = %detail, "a tool panicked");
        let request = if tool.def.prompt.is_some() {
            "request"
        } else {
            "call"
        };
        ToolOutcome::Error(format!(
            "The {} '{}' failed with an internal error; the details are in the server's log. \
             Retrying the same {request} is unlikely to help.",
            tool.noun(),
            tool.name
        ))
    })
}
