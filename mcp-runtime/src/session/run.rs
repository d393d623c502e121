//! Running an admitted call's tool, the same for every way a call arrives
//! (the wire, the in-process door, a task run again): its run slot (or the
//! busy refusal), its timeout, the tool's future with a panic caught as an
//! error result, and how the run ended.

use super::call_span::{LOG_TARGET, Outcome};
use crate::context::elicit::Interrupt;
use crate::limits::{QueueTimeout, RunSlot};
use crate::outcome::ToolOutcome;
use crate::shared::Shared;
use crate::tool::{Tool, ToolCall};
use crate::util::human_duration;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
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
    pub(crate) fn outcome(&self) -> Outcome {
        if self.timed_out {
            Outcome::Timeout
        } else {
            Outcome::of(&self.outcome)
        }
    }
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
