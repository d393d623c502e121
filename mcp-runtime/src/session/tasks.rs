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

use super::call_span::CallSpan;
use super::call_span::Outcome;
use super::finish;
use super::run::{self, Admitted, Ending, Sink, run_tool};
use crate::conn::client::ClientInfo;
use crate::conn::connection::{CancelSignal, Connection};
use crate::conn::peer::{Asked, LogMessage, Peer, Progress};
use crate::context::{Context, ContextParts, TaskBegun, TaskStart};
use crate::level::Level;
use crate::outcome::{ToolError, ToolOutcome};
use crate::protocol::model::TaskStatus;
use crate::protocol::model::method;
use crate::protocol::model::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult, RpcError,
};
use crate::protocol::outgoing::Reply;

use crate::protocol::{ErrorCode, ProtocolVersion};
use crate::shared::Shared;
use crate::task::{LEASE, Resume, TaskError, TaskRecord, Tasks, input_request, new_id, now_ms};
use crate::tool::Tool;
use crate::tool::ToolCall;
use crate::tool::call::Arguments;
use crate::util::{BoxFuture, human_duration, lock};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

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
    fn ask<T: DeserializeOwned + Send + 'static>(
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

/// Runs the tool of task `id` again from the start, on this replica, after
/// this replica took the task over from a lost worker (a resumable tool:
/// `TaskRecord::adopt_or_fail`). The run has no request: its id is the
/// task's, its client the capabilities the task was made with, no
/// principal (the token that made the task is gone with its request).
pub(crate) fn resume(shared: &Arc<Shared>, id: &str, record: &TaskRecord) {
    let Some(again) = record.resume.clone() else {
        return;
    };
    let shared = Arc::clone(shared);
    let (id, tool_name, owner) = (id.to_owned(), record.tool.clone(), record.owner.clone());
    tokio::spawn(async move {
        let cancel = CancelSignal::default();
        let run = TaskRun::new(&shared.tasks, &id, owner, cancel.clone());
        let Some((name, tool)) = shared.tools.lookup(&tool_name) else {
            run.settle(Settled::Failed(RpcError::internal_error(format!(
                "the task's tool '{tool_name}' is no longer served, so it could not be started again"
            ))))
            .await;
            return;
        };
        run.watch();
        tracing::info!(task = %id, tool = %name, "task taken over: its tool runs again");
        let request_id = serde_json::value::to_raw_value(&id)
            .unwrap_or_else(|_| unreachable!("a string is JSON"));
        let context = Context::new(ContextParts {
            request_id,
            tool: Arc::clone(&name),
            version: ProtocolVersion::V2026_07_28,
            client: Arc::new(ClientInfo {
                info: None,
                capabilities: again.capabilities,
            }),
            meta: None,
            request_log_level: None,
            cancel,
            // Nothing is written to it: the task's peer gets it all.
            connection: Arc::new(Connection::new(crate::conn::outbox::channel(0).0)),
            reach: Arc::clone(&shared.reach),
            answers: serde_json::Map::new(),
            peer: None,
        });
        context.resume_task(Arc::new(run.clone()));
        let arguments = again
            .arguments
            .map_or(Arguments::None, |raw| Arguments::Raw(Arc::from(raw.get())));
        let version = ProtocolVersion::V2026_07_28;
        // The span a call over the wire opens, with no caller's trace: the
        // request that carried one is gone.
        let span = CallSpan::open(&name, context.raw_request_id(), version, || None);
        let call = ToolCall {
            name,
            arguments,
            version,
            context: context.clone(),
        };
        let admitted = Admitted {
            timeout: run::timeout(&shared, &tool, true, None),
            future: run_tool(Arc::clone(&tool), call),
            tool,
            context,
            span,
        };
        // No principal: the limits count it as a client of its own.
        run::execute(&shared, None, admitted, Resumed { run, version }).await;
    });
}

/// The [`Sink`] of a task's tool run again after its worker was lost (see
/// [`resume`]): its end stored in the record; `tasks/cancel` ends it.
struct Resumed {
    run: TaskRun,
    version: ProtocolVersion,
}

impl Sink for Resumed {
    type Output = ();

    fn cancelled_by_context(&self) -> bool {
        true
    }

    async fn begin(&self, _: &Tool, _: &Context) -> Result<(), ToolOutcome> {
        Ok(())
    }

    async fn deliver(self, tool: &Tool, _: &Context, ending: Ending) -> (Outcome, ()) {
        let (outcome, settled) = task_end(tool, ending, self.version);
        self.run.settle(settled).await;
        (outcome, ())
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
