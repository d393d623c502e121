//! The task's side of the peer seam while the tool runs: progress becomes
//! the record's `statusMessage` (bursts coalesced into one write at a
//! time), a question an `input_required` round that `tasks/update`
//! answers.

use super::{TASK_PROGRESS, TaskRun, WATCH};
use crate::conn::peer::{Asked, LogMessage, Peer, Progress};
use crate::level::Level;
use crate::protocol::model::TaskStatus;
use crate::protocol::model::method;
use crate::protocol::model::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult, RpcError,
};
use crate::protocol::{ErrorCode, ProtocolVersion};
use crate::task::{TaskError, input_request, now_ms};
use crate::util::{BoxFuture, lock};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::sync::Arc;

impl TaskRun {
    /// Writes `message` as the status message, coalescing bursts: one
    /// write at a time, each of the latest message.
    fn report(&self, message: String) {
        {
            let mut progress = lock(&self.0.progress);
            progress.last = Some(message.clone());
            progress.latest = Some(message);
            if progress.writing {
                return;
            }
            progress.writing = true;
        }
        let inner = Arc::clone(&self.0);
        tokio::spawn(async move {
            loop {
                let Some(message) = lock(&inner.progress).latest.take() else {
                    lock(&inner.progress).writing = false;
                    return;
                };
                let written = inner
                    .tasks
                    .update(&inner.id, inner.owner.as_deref(), |record| {
                        // A later message was reported meanwhile, and a
                        // question or the end may have stored it already:
                        // this one would turn the status message back.
                        if record.status.is_terminal()
                            || lock(&inner.progress).last.as_ref() != Some(&message)
                        {
                            return false;
                        }
                        record.status_message = Some(message.clone());
                        record.updated_ms = now_ms();
                        true
                    })
                    .await;
                if let Err(TaskError::Store(e)) = written {
                    tracing::warn!(task = %inner.id, error = %e, "could not store the task's progress");
                }
            }
        });
    }

    /// Asks the client `method` with `params` through the record: a new
    /// key (never used before in this task) in `inputRequests`, the task
    /// `input_required`, then the answer `tasks/update` leaves for it.
    pub(super) fn ask<T: DeserializeOwned + Send + 'static>(
        &self,
        method: &'static str,
        params: Result<Value, serde_json::Error>,
    ) -> BoxFuture<Result<T, RpcError>> {
        let inner = Arc::clone(&self.0);
        Box::pin(async move {
            let params = params.map_err(|e| RpcError::internal_error(e.to_string()))?;
            let unavailable = |e: TaskError| match e {
                TaskError::Unknown => RpcError::internal_error("the task expired"),
                TaskError::Store(e) => RpcError::internal_error(e.to_string()),
            };
            let mut key = String::new();
            let mut ended = false;
            // The progress reported just before the question may still be
            // on its way (a write of its own): the task asks with it as its
            // status message, as it ends with it (see `settle`).
            let last = lock(&inner.progress).last.clone();
            inner
                .tasks
                .update(&inner.id, inner.owner.as_deref(), |record| {
                    // A task that ended (failed by a reader when its lease
                    // lapsed while this worker stalled, say) stays ended:
                    // asking would make it `input_required` again.
                    ended = record.status.is_terminal();
                    if ended {
                        return false;
                    }
                    record.issued += 1;
                    key = format!("input-{}", record.issued);
                    record
                        .input_requests
                        .insert(key.clone(), input_request(method, params.clone()));
                    record.status = TaskStatus::InputRequired;
                    if last.is_some() {
                        record.status_message.clone_from(&last);
                    }
                    record.updated_ms = now_ms();
                    true
                })
                .await
                .map_err(unavailable)?;
            if ended {
                return Err(RpcError::internal_error(
                    "the task ended before the question was asked",
                ));
            }
            loop {
                tokio::time::sleep(WATCH).await;
                let mut answer = None;
                let record = inner
                    .tasks
                    .update(&inner.id, inner.owner.as_deref(), |record| {
                        answer = record.responses.remove(&key);
                        answer.is_some()
                    })
                    .await
                    .map_err(unavailable)?;
                if let Some(answer) = answer {
                    return serde_json::from_value(answer).map_err(|e| {
                        RpcError::new(
                            ErrorCode::INVALID_PARAMS,
                            format!("the answer to `{key}` is not a {method} result: {e}"),
                        )
                    });
                }
                if record.cancel_requested && !record.status.is_terminal() {
                    // `tasks/cancel` came while the tool waits here: the
                    // task must end `cancelled`, as the watcher would end
                    // it. Failing the question instead would let the tool
                    // turn that into its own result (an `isError` one,
                    // say) and the task would end `completed`, whichever of
                    // this loop and the watcher read the flag first. The
                    // call's cancellation ends the tool, dropping this.
                    inner.cancel.cancel();
                    return std::future::pending().await;
                }
                if record.status.is_terminal() {
                    return Err(RpcError::internal_error(
                        "the task ended before the answer came",
                    ));
                }
            }
        })
    }
}

/// Progress becomes the record's `statusMessage` (under a token of the
/// task's own, whatever the request carried); questions become its
/// `input_required` rounds.
impl Peer for TaskRun {
    fn progress_token<'a>(&'a self, _: Option<&'a Value>) -> Option<&'a Value> {
        Some(&TASK_PROGRESS)
    }

    fn progress(&self, progress: Progress<'_>) {
        let message = match (progress.message, progress.total) {
            (Some(message), _) => message.to_owned(),
            (None, Some(total)) => format!("{} of {total}", progress.progress),
            (None, None) => format!("{} done", progress.progress),
        };
        self.report(message);
    }

    /// No log messages for tasks: the extension carries none.
    fn log_level(&self, _: ProtocolVersion, _: Option<Level>) -> Option<Level> {
        None
    }

    fn log(&self, _: LogMessage<'_>) {}

    fn elicit(&self, params: ElicitParams) -> Asked<ElicitResult> {
        Asked::Answer(self.ask(method::ELICIT, serde_json::to_value(params)))
    }

    fn sample(&self, params: CreateMessageParams) -> Asked<CreateMessageResult> {
        Asked::Answer(self.ask(method::CREATE_MESSAGE, serde_json::to_value(params)))
    }

    fn roots(&self) -> Asked<ListRootsResult> {
        Asked::Answer(self.ask(method::ROOTS_LIST, Ok(Value::Object(Map::new()))))
    }
}
