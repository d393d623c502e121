//! One response's tool calls: each is resolved to its server, put to the
//! approver (one at a time, in order, so a person is asked in the order the
//! model asked), then every approved call runs at once, at most
//! `in_flight` at a time across the host, and the results come back in the
//! order of the calls.
//!
//! Every call gets a result, whatever happens to it: a name never offered,
//! arguments that are not an object, a declined call, a call the loop does
//! not run, a timeout, a dead server or an interruption by the user each
//! become an `isError` result saying why ([`CallFailure`]). The APIs refuse a history where a
//! `tool_use` has no `tool_result`, and the model can act on the reason.

use super::approval::{ApprovalRequest, Approver, Caller, Decision, UNASKED_REASON};
use super::budget::{Kept, ResultBudget};
use super::events::{Event, EventSink, PROGRESS_MESSAGE_BYTES};
use super::interrupt::Interrupt;
use crate::call_result::CallFailure;
use crate::catalog::Catalog;
use crate::provider::ToolCall;
use mcpfn_client::text::excerpt;
use mcpfn_client::{CallOptions, ProgressFn};
use mcpfn_protocol::model::{CallToolResult, ProgressParams};
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

/// What happened to one call the model asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallRecord {
    /// The tool's MCP name (the model's name when it names no offered tool).
    pub name: String,
    /// The server's config name (`""` for a name never offered).
    pub server: String,
    /// Whether its result is an error (including declined and not run).
    pub is_error: bool,
}

/// Whether the loop runs a response's calls.
#[derive(Clone, Debug)]
pub(super) enum Run {
    /// It does, each through the approver.
    Yes,
    /// It does not (the response was cut off): each gets this reason.
    No(String),
}

/// A call's result, or the task making it (and cutting its result to the
/// budget as soon as it arrives: a response's many large results are never
/// all held whole at once).
enum Slot {
    Settled(CallToolResult),
    Running(JoinHandle<Kept>),
}

/// Aborts the calls still running when the line is dropped (the caller
/// went away): their servers see `notifications/cancelled`.
struct Slots(Vec<Slot>);

impl Drop for Slots {
    fn drop(&mut self) {
        for slot in &self.0 {
            if let Slot::Running(handle) = slot {
                handle.abort();
            }
        }
    }
}

/// The progress callback of call `id`: every call gets one (so every
/// `tools/call` carries a `progressToken`); its reports become
/// [`Event::CallProgress`] when there is a sink, debug log lines otherwise,
/// until `finished` is set.
fn progress_to(events: Option<EventSink>, id: String, finished: Arc<Mutex<bool>>) -> ProgressFn {
    Arc::new(move |report: ProgressParams| {
        let finished = finished.lock().unwrap_or_else(|e| e.into_inner());
        if *finished {
            return;
        }
        let message = report
            .message
            .as_deref()
            .map(|m| excerpt(m, PROGRESS_MESSAGE_BYTES));
        match &events {
            Some(sink) => sink(&Event::CallProgress {
                id: id.clone(),
                progress: report.progress,
                total: report.total,
                message,
            }),
            None => {
                tracing::debug!(call = %id, progress = report.progress, total = ?report.total, message = ?message, "progress")
            }
        }
    })
}

/// Runs `calls` (see the module docs); the results in the calls' order,
/// each cut to `budget`'s bound on one result. Once `interrupt` is flipped
/// nothing more is asked or started, and the calls still running are
/// cancelled (dropped: their servers get `notifications/cancelled`); every
/// Who watches a line's calls: the switch that interrupts them, and the
/// sink their events go to, if any.
#[derive(Clone, Copy)]
pub(super) struct LineWatch<'a> {
    pub(super) interrupt: &'a Interrupt,
    pub(super) events: Option<&'a EventSink>,
}

/// call still gets its result.
pub(super) async fn run(
    catalog: &Arc<Catalog>,
    approver: &dyn Approver,
    in_flight: &Arc<Semaphore>,
    calls: &[ToolCall],
    run: Run,
    budget: ResultBudget,
    line: LineWatch<'_>,
) -> Vec<(Kept, CallRecord)> {
    let LineWatch { interrupt, events } = line;
    let emit = |event: Event| {
        if let Some(sink) = events {
            sink(&event);
        }
    };
    let mut records = Vec::with_capacity(calls.len());
    let mut slots = Slots(Vec::with_capacity(calls.len()));
    for call in calls {
        let entry = catalog.tool(&call.name);
        records.push(CallRecord {
            name: entry.map_or_else(|| call.name.clone(), |e| e.tool.name.clone()),
            server: entry.map(|e| e.server.clone()).unwrap_or_default(),
            is_error: false,
        });
        emit(Event::CallRequested {
            id: call.id.clone(),
            tool: entry.map_or_else(|| call.name.clone(), |e| e.tool.name.clone()),
            server: entry.map(|e| e.server.clone()).unwrap_or_default(),
            input: call.input.clone().unwrap_or(serde_json::Value::Null),
        });
        let failure = match (entry, &call.input, &run) {
            (None, _, _) => Some(match catalog.withdrawn(&call.name) {
                Some(reason) => CallFailure::NotRun { reason },
                None => CallFailure::UnknownTool {
                    name: call.name.clone(),
                },
            }),
            (_, Err(failure), _) => Some(failure.clone()),
            (_, _, Run::No(reason)) => Some(CallFailure::NotRun {
                reason: reason.clone(),
            }),
            (Some(_), Ok(_), Run::Yes) if interrupt.is_interrupted() => {
                interrupt.cause().map(|cause| cause.not_started())
            }
            (Some(entry), Ok(input), Run::Yes) => {
                let request = ApprovalRequest {
                    model_name: &call.name,
                    caller: Caller::Model,
                    tool: &entry.tool,
                    server: &entry.server,
                    trusted: entry.trusted,
                    input,
                    listed: catalog.tools(),
                };
                // A question on the terminal is abandoned on an interrupt.
                match interrupt.or_interrupted(approver.decide(&request)).await {
                    Some(Decision::Run) => {
                        emit(Event::CallApproved {
                            id: call.id.clone(),
                        });
                        None
                    }
                    Some(Decision::Decline) => {
                        emit(Event::CallDeclined {
                            id: call.id.clone(),
                        });
                        Some(CallFailure::Declined)
                    }
                    Some(Decision::Unasked) => Some(CallFailure::NotRun {
                        reason: UNASKED_REASON.to_owned(),
                    }),
                    None => Some(
                        interrupt
                            .cause()
                            .map_or(CallFailure::Interrupted, |cause| cause.not_started()),
                    ),
                }
            }
        };
        match failure {
            Some(failure) => {
                tracing::info!(tool = %call.name, reason = %failure, "call not run");
                if failure != CallFailure::Declined {
                    emit(Event::CallNotRun {
                        id: call.id.clone(),
                        reason: failure.to_string(),
                    });
                }
                slots.0.push(Slot::Settled(failure.to_result()));
            }
            None => {
                let catalog = Arc::clone(catalog);
                let in_flight = Arc::clone(in_flight);
                let name = call.name.clone();
                let input = call.input.clone().unwrap_or_default();
                let id = call.id.clone();
                let events = events.cloned();
                slots.0.push(Slot::Running(tokio::spawn(async move {
                    // The semaphore is never closed.
                    let _permit = in_flight.acquire_owned().await;
                    let started = Instant::now();
                    tracing::info!(tool = %name, "calling");
                    if let Some(sink) = &events {
                        sink(&Event::CallStarted { id: id.clone() });
                    }
                    let finished = Arc::new(Mutex::new(false));
                    let options = CallOptions {
                        progress: Some(progress_to(
                            events.clone(),
                            id.clone(),
                            Arc::clone(&finished),
                        )),
                        ..CallOptions::default()
                    };
                    let result = catalog.call_with(&name, input, options).await;
                    // Under the lock the progress reports take: none comes
                    // after the call's end (they travel beside its result).
                    let mut finished = finished.lock().unwrap_or_else(|e| e.into_inner());
                    *finished = true;
                    if let Some(sink) = &events {
                        sink(&Event::CallFinished {
                            id: id.clone(),
                            duration_ms: started.elapsed().as_millis() as u64,
                            is_error: result.is_error,
                        });
                        let rendered = catalog
                            .tool(&name)
                            .is_some_and(|t| crate::apps::app_resource(&t.tool).is_some());
                        if rendered {
                            sink(&Event::AppResult {
                                id,
                                result: result.clone(),
                            });
                        }
                    }
                    drop(finished);
                    tracing::info!(
                        tool = %name,
                        is_error = result.is_error,
                        ms = started.elapsed().as_millis() as u64,
                        "call done"
                    );
                    budget.keep(result)
                })));
            }
        }
    }
    let mut results = Vec::with_capacity(calls.len());
    for (slot, mut record) in slots.0.iter_mut().zip(records) {
        let kept = match slot {
            Slot::Settled(result) => budget.keep(result.clone()),
            // `biased`: a call that returned before the interrupt keeps its
            // result.
            Slot::Running(handle) => match interrupt.or_interrupted(&mut *handle).await {
                Some(joined) => joined.unwrap_or_else(|e| {
                    budget.keep(
                        CallFailure::NotRun {
                            reason: format!("the call's task ended abnormally ({e})"),
                        }
                        .to_result(),
                    )
                }),
                None => {
                    handle.abort();
                    let failure = interrupt
                        .cause()
                        .map_or(CallFailure::Interrupted, |cause| cause.call_failure());
                    budget.keep(failure.to_result())
                }
            },
        };
        record.is_error = kept.is_error();
        results.push((kept, record));
    }
    results
}
