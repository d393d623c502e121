//! A call that became a task (Tasks extension): storing it and answering
//! the request with it ([`TaskStarter`]), the task's side of the peer seam
//! while the tool runs ([`TaskRun`]: progress becomes `statusMessage`, a
//! question becomes an `input_required` round answered by `tasks/update`),
//! the watcher that renews the worker's lease and turns `tasks/cancel`
//! into the call's cancellation, and the task's end ([`TaskRun::settle`]).
//!
//! The worker is the replica that runs the tool; everything else (the
//! polls, the answers, the cancel) may come to any replica, which reads
//! and writes the record in the shared store. The worker watches the
//! record every [`WATCH`] for a cancel and renews its lease every third of
//! [`LEASE`]; when the worker dies, its lease lapses and the next reader
//! fails the task (`TaskRecord::fail_orphaned`).

use super::call_span::Outcome;
use super::finish;
use super::run::Ending;
use crate::conn::connection::{CancelSignal, Connection};
use crate::conn::peer::Peer;
use crate::context::{Context, TaskBegun, TaskStart};
use crate::outcome::ToolError;
use crate::protocol::model::RpcError;
use crate::protocol::model::TaskStatus;
use crate::protocol::outgoing::Reply;

use crate::protocol::ProtocolVersion;
use crate::shared::Shared;
use crate::task::{LEASE, Resume, TaskError, TaskRecord, Tasks, new_id, now_ms};
use crate::tool::Tool;
use crate::util::{human_duration, lock};
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

mod peer;
mod resume;
pub(crate) use resume::resume;

/// How often the worker reads its record (for a cancel) and a question
/// waits for its answer between reads.
const WATCH: Duration = Duration::from_millis(200);

/// The progress token tasks report under: progress goes to the record,
/// not to a client, so it needs none of its own.
static TASK_PROGRESS: Value = Value::Null;

/// What a task's end stores.
#[derive(Debug)]
pub(crate) enum Settled {
    /// The `CallToolResult` (an `isError` one too).
    Completed(Value),
    /// A JSON-RPC error.
    Failed(RpcError),
    /// Cancelled by `tasks/cancel`.
    Cancelled,
}

/// Makes a call a task when it begins one ([`Context::begin_task`]).
pub(crate) struct TaskStarter {
    shared: Arc<Shared>,
    connection: Arc<Connection>,
    /// The call's key in the connection's in-flight table.
    key: Arc<str>,
    /// The request's id, which the answer echoes.
    id: Box<RawValue>,
    version: ProtocolVersion,
    tool: Arc<Tool>,
    cancel: CancelSignal,
    /// A resumable tool's arguments and client capabilities.
    resume: Option<Resume>,
    run: OnceLock<TaskRun>,
}

impl TaskStarter {
    pub(crate) fn new(
        shared: &Arc<Shared>,
        connection: &Arc<Connection>,
        key: Arc<str>,
        id: &RawValue,
        version: ProtocolVersion,
        tool: &Arc<Tool>,
        cancel: CancelSignal,
    ) -> TaskStarter {
        TaskStarter {
            shared: Arc::clone(shared),
            connection: Arc::clone(connection),
            key,
            id: id.to_owned(),
            version,
            tool: Arc::clone(tool),
            cancel,
            resume: None,
            run: OnceLock::new(),
        }
    }

    /// Keeps what a resumable tool is started again with.
    pub(crate) fn with_resume(mut self, resume: Option<Resume>) -> TaskStarter {
        self.resume = resume;
        self
    }

    /// The task, once the call became one (read only where a call's end is
    /// stored, which the `tasks` feature compiles in).
    #[cfg(feature = "tasks")]
    pub(crate) fn run(&self) -> Option<&TaskRun> {
        self.run.get()
    }

    async fn start(&self) -> Result<TaskRun, ToolError> {
        let tasks = &self.shared.tasks;
        let owner = self
            .connection
            .principal()
            .map(|principal| principal.subject().to_owned());
        // Stdio serves one client, which no per-client quota counts.
        let place = match self.connection.client_key() {
            None => None,
            Some(client) => match self.shared.task_quota.admit(client, tasks.ttl) {
                Ok(place) => Some(place),
                Err(wait) => {
                    return Err(ToolError::new(format!(
                        "'{}' was not started: this client has as many live tasks as the server allows; retry in {}",
                        self.tool.name,
                        human_duration(wait)
                    )));
                }
            },
        };
        let mut record = TaskRecord::new(owner.clone(), &self.tool.name, tasks.ttl);
        record.resume = self.resume.clone();
        let id = new_id();
        let refusal = match tasks.create(&id, &record).await {
            Ok(true) => None,
            Ok(false) => Some(ToolError::new(
                "a task id was drawn twice; call the tool again",
            )),
            Err(e) => Some(ToolError::new(format!(
                "{e}; '{}' was not started as a task. Retry the call later.",
                self.tool.name
            ))),
        };
        if let Some(refusal) = refusal {
            // No task was made: it takes no place in the client's quota
            // (else every store outage would use the quota up).
            if let Some(place) = place {
                place.release();
            }
            return Err(refusal);
        }
        let run = TaskRun::new(tasks, &id, owner, self.cancel.clone());
        run.watch();
        // The request is over: the task answers it. Taken out of the
        // in-flight table first, so a late `notifications/cancelled` for
        // the request id no longer reaches the call (tasks/cancel does).
        if self.connection.finish_call(&self.key) {
            let reply = Reply::new(&self.id, self.version, self.shared.identity.server_meta());
            self.connection.send(reply.task_created(&record.task(&id)));
        } else {
            // Cancelled before the task was announced: nobody knows its id.
            run.settle(Settled::Cancelled).await;
            return Err(ToolError::new("the call was cancelled"));
        }
        tracing::info!(task = %id, tool = %self.tool.name, "task created");
        Ok(run)
    }
}

impl TaskStart for TaskStarter {
    fn begin<'a>(&'a self, _ctx: &'a Context) -> TaskBegun<'a> {
        Box::pin(async move {
            let run = self.start().await?;
            let peer: Arc<dyn Peer> = Arc::new(run.clone());
            let _ = self.run.set(run);
            Ok(peer)
        })
    }
}

/// A status message waiting to be written, whether a write is under way,
/// and the last message reported (written or not).
#[derive(Debug, Default)]
struct ProgressWrite {
    latest: Option<String>,
    writing: bool,
    last: Option<String>,
}

/// A running task: the worker's handle on its record.
#[derive(Clone, Debug)]
pub(crate) struct TaskRun(Arc<RunInner>);

#[derive(Debug)]
struct RunInner {
    tasks: Tasks,
    id: String,
    owner: Option<String>,
    /// The call's cancellation, fired when the record says `tasks/cancel`.
    cancel: CancelSignal,
    progress: Mutex<ProgressWrite>,
    watcher: Mutex<Option<tokio::task::AbortHandle>>,
}

impl TaskRun {
    fn new(tasks: &Tasks, id: &str, owner: Option<String>, cancel: CancelSignal) -> TaskRun {
        TaskRun(Arc::new(RunInner {
            tasks: tasks.clone(),
            id: id.to_owned(),
            owner,
            cancel,
            progress: Mutex::new(ProgressWrite::default()),
            watcher: Mutex::new(None),
        }))
    }

    /// Starts the watcher: reads the record every [`WATCH`], cancels the
    /// call when the record asks, renews the lease when a third of it is
    /// gone.
    fn watch(&self) {
        let inner = Arc::clone(&self.0);
        let watcher = tokio::spawn(async move {
            let renew_after = LEASE.as_millis() as u64 / 3;
            let mut renewed = now_ms();
            loop {
                tokio::time::sleep(WATCH).await;
                let now = now_ms();
                let renew = now.saturating_sub(renewed) >= renew_after;
                let read = inner
                    .tasks
                    .update(&inner.id, inner.owner.as_deref(), |record| {
                        if record.cancel_requested {
                            return false;
                        }
                        if renew && !record.status.is_terminal() {
                            record.lease_ms = now + LEASE.as_millis() as u64;
                            return true;
                        }
                        false
                    })
                    .await;
                match read {
                    Ok(record) if record.cancel_requested => {
                        inner.cancel.cancel();
                        return;
                    }
                    // Ended by another (a reader failed it when its lease
                    // lapsed while this worker stalled, or cancelled it
                    // then): its end is written, so the tool's would be
                    // dropped; stop it instead of letting it run on.
                    Ok(record) if record.status.is_terminal() => {
                        inner.cancel.cancel();
                        return;
                    }
                    Ok(_) => {
                        if renew {
                            renewed = now;
                        }
                    }
                    // Expired or gone: nothing left to run for.
                    Err(TaskError::Unknown) => {
                        inner.cancel.cancel();
                        return;
                    }
                    Err(TaskError::Store(e)) => {
                        tracing::warn!(task = %inner.id, error = %e, "could not read the task's record");
                    }
                }
            }
        });
        *lock(&self.0.watcher) = Some(watcher.abort_handle());
    }

    /// Stores the task's end (unless it already ended: an orphan failed by
    /// a reader, say) and stops the watcher.
    pub(crate) async fn settle(&self, settled: Settled) {
        if let Some(watcher) = lock(&self.0.watcher).take() {
            watcher.abort();
        }
        let inner = &self.0;
        // The progress reported just before the end may still be on its way
        // (a write of its own, which finds the task ended and gives up): a
        // completed task keeps it as its status message.
        let last = lock(&inner.progress).last.clone();
        let status = match &settled {
            Settled::Completed(_) => TaskStatus::Completed,
            Settled::Failed(_) => TaskStatus::Failed,
            Settled::Cancelled => TaskStatus::Cancelled,
        };
        let written = inner
            .tasks
            .update(&inner.id, inner.owner.as_deref(), |record| {
                if record.status.is_terminal() {
                    return false;
                }
                match &settled {
                    Settled::Completed(result) => {
                        record.result = Some(result.clone());
                        if last.is_some() {
                            record.status_message.clone_from(&last);
                        }
                    }
                    Settled::Failed(error) => {
                        record.status_message = Some(format!("The tool failed: {}", error.message));
                        record.error = Some(error.clone());
                    }
                    Settled::Cancelled => {
                        record.status_message = Some("Cancelled by the client.".into());
                    }
                }
                record.settle(status);
                true
            })
            .await;
        match written {
            Ok(record) if record.status != status => tracing::info!(
                task = %inner.id,
                status = record.status.as_str(),
                "task had ended already"
            ),
            Ok(_) => tracing::info!(task = %inner.id, status = status.as_str(), "task ended"),
            Err(TaskError::Unknown) => {
                tracing::warn!(task = %inner.id, "the task expired before it ended");
            }
            Err(TaskError::Store(e)) => {
                tracing::error!(task = %inner.id, error = %e, "could not store the task's end");
            }
        }
    }
}

/// What a task's end stores, from how its call ended.
pub(super) fn task_end(
    tool: &Tool,
    ending: Ending,
    version: ProtocolVersion,
) -> (Outcome, Settled) {
    let settled = match finish::ended(tool, ending, version) {
        (outcome, None) => return (outcome, Settled::Cancelled),
        (outcome, Some(Err(error))) => return (outcome, Settled::Failed(error)),
        (outcome, Some(Ok(result))) => (outcome, serde_json::to_value(result)),
    };
    match settled {
        (outcome, Ok(result)) => (outcome, Settled::Completed(result)),
        (_, Err(e)) => (
            Outcome::Error,
            Settled::Failed(RpcError::internal_error(e.to_string())),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::ToolOutcome;
    use crate::session::run;
    use crate::store::MemoryStore;
    use crate::task::DEFAULT_TTL;
    use serde_json::json;

    /// A task stored in a fresh store, and its worker's handle (no watcher
    /// yet).
    async fn running() -> (Tasks, TaskRun) {
        let tasks = Tasks::new(Arc::new(MemoryStore::new()), DEFAULT_TTL);
        let id = new_id();
        let record = TaskRecord::new(None, "build", DEFAULT_TTL);
        assert!(tasks.create(&id, &record).await.unwrap());
        let run = TaskRun(Arc::new(RunInner {
            tasks: tasks.clone(),
            id,
            owner: None,
            cancel: CancelSignal::default(),
            progress: Mutex::default(),
            watcher: Mutex::new(None),
        }));
        (tasks, run)
    }

    /// What a reader does to a task whose lease lapsed.
    async fn fail_orphaned(tasks: &Tasks, run: &TaskRun) {
        tasks
            .update(&run.0.id, None, |record| {
                record.fail_orphaned();
                true
            })
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_task_that_ended_asks_nothing_more() {
        let (tasks, run) = running().await;
        fail_orphaned(&tasks, &run).await;
        let asked = run
            .ask::<Value>("elicitation/create", Ok(json!({"message": "?"})))
            .await;
        assert!(asked.is_err(), "{asked:?}");
        let (_, record) = tasks.load(&run.0.id, None).await.unwrap();
        assert_eq!(record.status, TaskStatus::Failed);
        assert!(record.input_requests.is_empty());
        assert_eq!(record.issued, 0);
    }

    /// Records the `outcome` of every call span that closes.
    #[derive(Clone, Default)]
    struct Spans(Arc<Mutex<Vec<String>>>);

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Spans {
        fn on_record(
            &self,
            _: &tracing::span::Id,
            values: &tracing::span::Record<'_>,
            _: tracing_subscriber::layer::Context<'_, S>,
        ) {
            struct Visitor<'a>(&'a Mutex<Vec<String>>);
            impl tracing::field::Visit for Visitor<'_> {
                fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                    if field.name() == "outcome" {
                        lock(self.0).push(value.to_owned());
                    }
                }
                fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
            }
            values.record(&mut Visitor(&self.0));
        }
    }

    /// A task's tool run again on a server whose every run slot is taken is
    /// refused as a call over the wire is, in the same words (its record
    /// ends with that `isError` result), and its run has a call span,
    /// closed `isError` like a wire call's.
    #[tokio::test]
    async fn a_resumed_task_is_refused_when_busy_as_a_wire_call_is() {
        use tracing_subscriber::layer::SubscriberExt;
        let spans = Spans::default();
        let _guard =
            tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
        let tool = crate::tool::ToolBuilder::new("build", |_| {
            Box::pin(async { crate::outcome::ToolOutcome::text("built") })
        })
        .task(crate::tool::TaskSupport::Optional)
        .resumable(true)
        .build();
        let (shared, _, _) = crate::server::Server::new("t", "1")
            .tool(tool)
            .max_concurrent_calls(1)
            .queue_timeout(Duration::from_millis(20))
            .into_shared(false)
            .unwrap();
        let id = new_id();
        let mut record = TaskRecord::new(None, "build", DEFAULT_TTL);
        record.resume = Some(Resume {
            arguments: None,
            capabilities: json!({}),
        });
        assert!(shared.tasks.create(&id, &record).await.unwrap());
        // Every slot taken: what a wire call is answered with now.
        let held = shared.limits.run_slot(None).await.unwrap();
        let Err(ToolOutcome::Error(busy)) = run::slot(&shared, None, "build").await else {
            panic!("the only slot is held");
        };
        assert_eq!(
            busy,
            "The server was busy for 20ms (every run slot taken by other calls), so 'build' was not run. Retry the call later."
        );
        resume(&shared, &id, &record);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let ended = loop {
            let (_, record) = shared.tasks.load(&id, None).await.unwrap();
            if record.status.is_terminal() {
                break record;
            }
            assert!(std::time::Instant::now() < deadline, "the task never ended");
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        drop(held);
        assert_eq!(ended.status, TaskStatus::Completed);
        assert_eq!(
            ended.result,
            Some(json!({"content": [{"type": "text", "text": busy}], "isError": true}))
        );
        assert_eq!(*lock(&spans.0), ["isError"]);
    }

    #[tokio::test]
    async fn the_worker_stops_the_tool_of_a_task_another_ended() {
        let (tasks, run) = running().await;
        run.watch();
        fail_orphaned(&tasks, &run).await;
        tokio::time::timeout(Duration::from_secs(2), run.0.cancel.cancelled())
            .await
            .expect("the watcher cancels the call within a few reads");
    }
}
