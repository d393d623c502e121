//! The client side of the Tasks extension (`io.modelcontextprotocol/tasks`,
//! 2026-07-28): a `tools/call` the server answered with a task
//! (`resultType: "task"`) is driven here to its end, so the caller of
//! [`McpClient::call_tool`] sees an ordinary result, as the extension's
//! "Backwards Compatibility" note suggests.
//!
//! - **Polling**: `tasks/get {taskId}` every `pollIntervalMs` of the latest
//!   answer ([`DEFAULT_POLL_INTERVAL`] when absent, clamped to
//!   [`MIN_POLL_INTERVAL`]..[`MAX_POLL_INTERVAL`] so a server can neither
//!   make us spin nor stall).
//! - **Progress**: a changed `statusMessage` of a live task goes to the
//!   call's progress callback, as the `message` of a progress report
//!   (`progress` counts the messages, so it only grows).
//! - **Input**: every key of `inputRequests` not answered before is answered
//!   by the same handlers as a `input_required` round of a call, and sent in
//!   one `tasks/update`; a key is never answered twice (a poll may show a
//!   request again before the server took our answer in).
//! - **The end**: `completed` is the result (checked against the tool's
//!   `outputSchema` like a direct one); `failed` is its JSON-RPC error, as a
//!   direct answer would have been; `cancelled`, or a `tasks/get` answered
//!   `-32602` (the server no longer knows the task), is
//!   [`McpError::TaskEnded`].
//! - **Cancelling**: the call's timeout covers the whole task; when it
//!   passes, `tasks/cancel` is sent (and awaited for at most
//!   [`CANCEL_WAIT`]) before the usual timeout error. A call whose future is
//!   dropped, or that fails on our side (a handler error, a lost
//!   connection), sends `tasks/cancel` from a spawned task. The task's own
//!   requests never send `notifications/cancelled`: the extension cancels
//!   with `tasks/cancel` only.
//! - **Routing**: every `tasks/*` request carries the envelope (which
//!   declares the extension, as the server requires) and, over Streamable
//!   HTTP, `Mcp-Method` and `Mcp-Name: <taskId>`.

use super::handler::ProgressFn;
use super::{Era, McpClient, raw_params};
use crate::McpError;
use crate::{ClientError, Dispatcher, RequestOptions};
use mcpfn_protocol::model::method::{CallTool, CancelTask, GetTask, Request, UpdateTask};
use mcpfn_protocol::model::{
    CallToolResult, DetailedTask, ProgressParams, Task, TaskIdParams, TaskStatus, UpdateTaskParams,
};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often a task is polled when the server suggests nothing.
pub(super) const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// The shortest poll interval honoured.
pub(super) const MIN_POLL_INTERVAL: Duration = Duration::from_millis(50);

/// The longest poll interval honoured.
pub(super) const MAX_POLL_INTERVAL: Duration = Duration::from_secs(30);

/// How long a call that timed out waits for the server's answer to its
/// `tasks/cancel` before returning (and how long a spawned cancel waits).
pub(super) const CANCEL_WAIT: Duration = Duration::from_secs(2);

/// The server's `pollIntervalMs`, as the client honours it.
fn poll_interval(ms: Option<u64>) -> Duration {
    ms.map_or(DEFAULT_POLL_INTERVAL, |ms| {
        Duration::from_millis(ms).clamp(MIN_POLL_INTERVAL, MAX_POLL_INTERVAL)
    })
}

/// What driving a task needs from the call it came from.
pub(super) struct Driven<'a> {
    /// The connection the task was created on (its state lives there).
    pub(super) dispatcher: &'a Arc<Dispatcher>,
    /// The task as the `tools/call` result announced it.
    pub(super) created: Task,
    /// When the call's timeout passes.
    pub(super) deadline: Instant,
    /// The call's timeout, for its error.
    pub(super) timeout: Duration,
    /// The call's progress callback and its token.
    pub(super) progress: Option<(ProgressFn, Value)>,
}

/// Why polling stopped without a result.
enum Stop {
    /// The task is over (or gone): nothing to cancel.
    Over(McpError),
    /// We gave up on a live task: it is to be cancelled.
    Abandon(McpError),
}

/// Passes a changed `statusMessage` to the call's progress callback.
struct Reporter {
    progress: Option<(ProgressFn, Value)>,
    last: Option<String>,
    count: u64,
}

impl Reporter {
    fn report(&mut self, message: Option<&str>) {
        let (Some((callback, token)), Some(message)) = (&self.progress, message) else {
            return;
        };
        if self.last.as_deref() == Some(message) {
            return;
        }
        self.last = Some(message.to_owned());
        self.count += 1;
        callback(ProgressParams {
            progress_token: token.clone(),
            progress: self.count as f64,
            total: None,
            message: Some(message.to_owned()),
        });
    }
}

/// A `tasks/cancel`, ready to send.
struct CancelRequest {
    dispatcher: Arc<Dispatcher>,
    params: Box<RawValue>,
    options: RequestOptions,
    server: String,
    task_id: String,
}

impl CancelRequest {
    async fn send(self) {
        match self
            .dispatcher
            .request(CancelTask::METHOD, Some(&self.params), self.options)
            .await
        {
            Ok(_) => {
                tracing::debug!(server = %self.server, task = %self.task_id, "task cancelled")
            }
            Err(e) => {
                tracing::debug!(server = %self.server, task = %self.task_id, error = %e, "tasks/cancel failed")
            }
        }
    }
}

/// Cancels the task when the call ends without it having ended, however
/// the call ends (a dropped future included).
struct CancelOnDrop(Option<CancelRequest>);

impl CancelOnDrop {
    /// The task ended: nothing to cancel.
    fn disarm(&mut self) {
        self.0 = None;
    }

    /// Cancels now and waits for the answer (bounded by [`CANCEL_WAIT`]).
    async fn cancel_now(&mut self) {
        if let Some(request) = self.0.take() {
            request.send().await;
        }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(request) = self.0.take() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(request.send());
            }
            Err(_) => {
                tracing::debug!(server = %request.server, task = %request.task_id, "no runtime left to send tasks/cancel")
            }
        }
    }
}

impl McpClient {
    /// Drives the task a `tools/call` became to its result.
    pub(super) async fn drive_task(&self, driven: Driven<'_>) -> Result<CallToolResult, McpError> {
        let Driven {
            dispatcher,
            created,
            deadline,
            timeout,
            progress,
        } = driven;
        let task_id = created.task_id.clone();
        tracing::debug!(server = %self.inner.config.name, task = %task_id, status = created.status.as_str(), "the call became a task");
        let meta = self.task_meta()?;
        let cancel = TaskIdParams {
            task_id: task_id.clone(),
            meta: meta.clone(),
        };
        let mut guard = CancelOnDrop(Some(CancelRequest {
            dispatcher: Arc::clone(dispatcher),
            params: raw_params(&cancel),
            options: self.task_options(CancelTask::METHOD, &task_id, CANCEL_WAIT),
            server: self.inner.config.name.clone(),
            task_id: task_id.clone(),
        }));
        let polled = tokio::time::timeout_at(
            tokio::time::Instant::from_std(deadline),
            self.poll_task(dispatcher, created, meta, progress),
        )
        .await;
        match polled {
            Ok(Ok(result)) => {
                guard.disarm();
                Ok(result)
            }
            Ok(Err(Stop::Over(error))) => {
                guard.disarm();
                Err(error)
            }
            // The guard cancels as it drops.
            Ok(Err(Stop::Abandon(error))) => Err(error),
            Err(_) => {
                tracing::debug!(server = %self.inner.config.name, task = %task_id, "the call timed out; cancelling its task");
                guard.cancel_now().await;
                Err(McpError::Client(ClientError::Timeout {
                    method: CallTool::METHOD.into(),
                    after: timeout,
                }))
            }
        }
    }

    /// Polls (and answers) the task until it ends. Its requests wait as
    /// long as the connection lasts: the call's deadline around this bounds
    /// them all.
    async fn poll_task(
        &self,
        dispatcher: &Dispatcher,
        created: Task,
        meta: Option<Value>,
        progress: Option<(ProgressFn, Value)>,
    ) -> Result<CallToolResult, Stop> {
        let task_id = created.task_id;
        let mut reporter = Reporter {
            progress,
            last: None,
            count: 0,
        };
        if !created.status.is_terminal() {
            reporter.report(created.status_message.as_deref());
        }
        let mut interval = poll_interval(created.poll_interval_ms);
        // Only a `tasks/get` carries what a status needs (inputRequests,
        // result, error): a seed other than `working` is asked at once.
        let mut wait = created.status == TaskStatus::Working;
        let mut answered: HashSet<String> = HashSet::new();
        loop {
            if wait {
                tokio::time::sleep(interval).await;
            }
            wait = true;
            let get = TaskIdParams {
                task_id: task_id.clone(),
                meta: meta.clone(),
            };
            let detailed: DetailedTask = match self
                .task_request::<GetTask>(dispatcher, &get, &task_id)
                .await
            {
                Ok(detailed) => detailed,
                Err(McpError::Client(ClientError::Rpc(e))) if e.code == -32602 => {
                    return Err(Stop::Over(McpError::TaskEnded {
                        server: self.inner.config.name.clone(),
                        task_id,
                        reason: format!(
                            "is unknown to the server (tasks/get answered -32602: {})",
                            e.message
                        ),
                    }));
                }
                Err(e) => return Err(Stop::Abandon(e)),
            };
            if detailed.task.task_id != task_id {
                return Err(Stop::Abandon(self.task_protocol(format!(
                    "tasks/get for task `{task_id}` answered task `{}`",
                    detailed.task.task_id
                ))));
            }
            interval = poll_interval(detailed.task.poll_interval_ms);
            let status = detailed.task.status;
            if !status.is_terminal() {
                reporter.report(detailed.task.status_message.as_deref());
            }
            match status {
                TaskStatus::Working => {}
                TaskStatus::InputRequired => {
                    let fresh: Vec<_> = detailed
                        .input_requests
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|(key, _)| !answered.contains(key))
                        .collect();
                    if fresh.is_empty() {
                        continue;
                    }
                    let answers = self.answer_inputs(fresh).await.map_err(Stop::Abandon)?;
                    answered.extend(answers.keys().cloned());
                    let update = UpdateTaskParams {
                        task_id: task_id.clone(),
                        input_responses: answers.into_iter().collect(),
                        meta: meta.clone(),
                    };
                    self.task_request::<UpdateTask>(dispatcher, &update, &task_id)
                        .await
                        .map_err(Stop::Abandon)?;
                }
                TaskStatus::Completed => {
                    return detailed.result.ok_or_else(|| {
                        Stop::Over(
                            self.task_protocol(format!(
                                "completed task `{task_id}` carries no result"
                            )),
                        )
                    });
                }
                TaskStatus::Failed => {
                    return Err(Stop::Over(match detailed.error {
                        Some(error) => McpError::Client(ClientError::Rpc(error)),
                        None => self.task_protocol(format!(
                            "failed task `{task_id}` carries no error{}",
                            detailed
                                .task
                                .status_message
                                .map(|m| format!(" (its status message: {m})"))
                                .unwrap_or_default()
                        )),
                    }));
                }
                TaskStatus::Cancelled => {
                    return Err(Stop::Over(McpError::TaskEnded {
                        server: self.inner.config.name.clone(),
                        task_id,
                        reason: match detailed.task.status_message {
                            Some(message) => format!("was cancelled by the server: {message}"),
                            None => "was cancelled by the server".into(),
                        },
                    }));
                }
            }
        }
    }

    /// The `_meta` of a `tasks/*` request: the 2026-07-28 envelope, which
    /// declares the extension.
    fn task_meta(&self) -> Result<Option<Value>, McpError> {
        serde_json::to_value(&self.inner.envelope)
            .map(Some)
            .map_err(|e| self.task_protocol(e.to_string()))
    }

    /// The options of a `tasks/*` request: `Mcp-Method` and
    /// `Mcp-Name: <taskId>` on HTTP, and no `notifications/cancelled`.
    fn task_options(&self, method: &str, task_id: &str, timeout: Duration) -> RequestOptions {
        let mut options = self.request_options(Era::Modern, method, Some(task_id), timeout);
        options.cancel_notification = false;
        options
    }

    async fn task_request<M: Request>(
        &self,
        dispatcher: &Dispatcher,
        params: &M::Params,
        task_id: &str,
    ) -> Result<M::Result, McpError> {
        let options = self.task_options(M::METHOD, task_id, Duration::MAX);
        super::request::<M>(dispatcher, &self.inner.config.name, params, options).await
    }

    fn task_protocol(&self, reason: String) -> McpError {
        McpError::Protocol {
            server: self.inner.config.name.clone(),
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_poll_interval_is_the_servers_within_bounds() {
        assert_eq!(poll_interval(None), DEFAULT_POLL_INTERVAL);
        assert_eq!(poll_interval(Some(0)), MIN_POLL_INTERVAL);
        assert_eq!(poll_interval(Some(120)), Duration::from_millis(120));
        assert_eq!(poll_interval(Some(u64::MAX)), MAX_POLL_INTERVAL);
    }

    #[test]
    fn only_a_changed_status_message_is_reported() {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let callback: ProgressFn = Arc::new(move |p: ProgressParams| {
            sink.lock()
                .unwrap()
                .push((p.progress, p.message, p.progress_token));
        });
        let mut reporter = Reporter {
            progress: Some((callback, Value::from("t"))),
            last: None,
            count: 0,
        };
        for message in [Some("a"), Some("a"), None, Some("b"), Some("a")] {
            reporter.report(message);
        }
        let seen = seen.lock().unwrap().clone();
        let messages: Vec<(f64, Option<String>)> =
            seen.iter().map(|(p, m, _)| (*p, m.clone())).collect();
        assert_eq!(
            messages,
            [
                (1.0, Some("a".into())),
                (2.0, Some("b".into())),
                (3.0, Some("a".into()))
            ]
        );
        assert!(seen.iter().all(|(_, _, token)| token == "t"));
    }
}
