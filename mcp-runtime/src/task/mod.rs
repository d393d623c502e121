//! What a task of the Tasks extension (`io.modelcontextprotocol/tasks`)
//! is in the server's [`Store`]: one record per task, under
//! `task:<id>`, changed only by compare-and-set, so that replicas sharing
//! one store agree on it. The record holds everything `tasks/get`,
//! `tasks/update` and `tasks/cancel` need on any replica: the owner, the
//! status and its message, the outstanding input requests and the count
//! of keys ever issued (a key is never reused), the answers received until
//! the worker takes them, the cancel flag, the worker's lease, and the
//! terminal result or error. It lives for the task's TTL.
//!
//! The worker (the replica that runs the tool) renews its lease while the
//! tool runs. A record whose lease lapsed while it was not terminal has
//! lost its worker (the replica died or was killed): whoever reads it next
//! marks it failed, with a status message that says so, unless the tool
//! is resumable: then that reader takes the task over and runs the tool
//! again from the start (at most [`MAX_TASK_RESUMES`] times).

use crate::protocol::RpcError;
use crate::protocol::model::{Task, TaskStatus};
use crate::protocol::outgoing::TaskView;
use crate::store::{Store, StoreError};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Whether this build serves the Tasks extension (feature `tasks`). Off,
/// the doors into the task code (a call becoming a task, the `tasks/*`
/// entries, the extension in the capabilities, a subscription's task
/// watcher) are closed by this constant, so the optimiser drops what is
/// behind them (but for two awaiting paths in `session/calls.rs`, which
/// are `#[cfg]`: see there), and a stdio server without the feature is
/// smaller (BENCHMARKS.md).
pub(crate) const ENABLED: bool = cfg!(feature = "tasks");

/// How long a task is kept after it was made, by default.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(3600);
/// The polling interval suggested to clients.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(500);
/// How long a worker's lease lasts; it is renewed every third of it.
pub(crate) const LEASE: Duration = Duration::from_secs(10);
/// How many times a resumable task is started again after its worker was
/// lost, before it fails like any other.
pub const MAX_TASK_RESUMES: u32 = 3;
/// Tasks one client may have alive at once, by default.
pub(crate) const DEFAULT_TASKS_PER_CLIENT: usize = 100;

/// The record of one task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct TaskRecord {
    /// The principal that made it (`None`: a server without
    /// authorization, where the id alone is the credential).
    pub(crate) owner: Option<String>,
    /// The tool it runs.
    pub(crate) tool: String,
    pub(crate) status: TaskStatus,
    pub(crate) status_message: Option<String>,
    pub(crate) created_ms: u64,
    pub(crate) updated_ms: u64,
    pub(crate) ttl_ms: u64,
    pub(crate) poll_ms: u64,
    /// Until when its worker is known to be alive.
    pub(crate) lease_ms: u64,
    /// A resumable tool's run: its arguments and the client's
    /// capabilities, to start it again when its worker is lost; `None`
    /// for a tool that is not resumable.
    #[serde(default)]
    pub(crate) resume: Option<Resume>,
    /// How many times it was started again.
    #[serde(default)]
    pub(crate) resumes: u32,
    /// The outstanding input requests, by key.
    pub(crate) input_requests: BTreeMap<String, Value>,
    /// How many keys were ever issued (the next key is `input-<n+1>`).
    pub(crate) issued: u64,
    /// Answers received and not yet taken by the worker.
    pub(crate) responses: BTreeMap<String, Value>,
    pub(crate) cancel_requested: bool,
    pub(crate) result: Option<Value>,
    pub(crate) error: Option<RpcError>,
}

/// What a resumable task is started again with.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Resume {
    /// The `arguments` object as the client sent it (the one parse of the
    /// request checked it is one), kept as its text.
    pub(crate) arguments: Option<Box<serde_json::value::RawValue>>,
    pub(crate) capabilities: Value,
}

/// Equal when the arguments are the same text (a raw value has no `==`).
impl PartialEq for Resume {
    fn eq(&self, other: &Resume) -> bool {
        self.arguments.as_ref().map(|raw| raw.get())
            == other.arguments.as_ref().map(|raw| raw.get())
            && self.capabilities == other.capabilities
    }
}

/// What reading a record found about its worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Orphan {
    /// The worker is alive, or the task ended.
    No,
    /// The worker was lost; the task failed.
    Failed,
    /// The worker was lost; the reader took the task over and must run
    /// the tool again.
    TakenOver,
}

/// Milliseconds since the epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn rfc3339(ms: u64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(ms)).to_string()
}

/// A new task id: 128 random bits, URL-safe (it goes in `Mcp-Name`).
pub(crate) fn new_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system provides randomness");
    URL_SAFE_NO_PAD.encode(bytes)
}

fn key(id: &str) -> String {
    format!("task:{id}")
}

impl TaskRecord {
    /// A working task of `tool`, made now.
    pub(crate) fn new(owner: Option<String>, tool: &str, ttl: Duration) -> TaskRecord {
        let now = now_ms();
        TaskRecord {
            owner,
            tool: tool.to_owned(),
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now,
            updated_ms: now,
            ttl_ms: ttl.as_millis() as u64,
            poll_ms: POLL_INTERVAL.as_millis() as u64,
            lease_ms: now + LEASE.as_millis() as u64,
            resume: None,
            resumes: 0,
            input_requests: BTreeMap::new(),
            issued: 0,
            responses: BTreeMap::new(),
            cancel_requested: false,
            result: None,
            error: None,
        }
    }

    /// The task's common fields.
    pub(crate) fn task(&self, id: &str) -> Task {
        Task {
            task_id: id.to_owned(),
            status: self.status,
            status_message: self.status_message.clone(),
            created_at: rfc3339(self.created_ms),
            last_updated_at: rfc3339(self.updated_ms),
            ttl_ms: Some(self.ttl_ms),
            poll_interval_ms: Some(self.poll_ms),
        }
    }

    /// What `tasks/get` answers (and `notifications/tasks` carries) of
    /// `task` (this record's [`task`](Self::task)): what its status
    /// carries, written from the stored JSON as it is.
    pub(crate) fn view<'a>(&'a self, task: &'a Task) -> TaskView<'a> {
        TaskView {
            task,
            input_requests: (self.status == TaskStatus::InputRequired)
                .then_some(&self.input_requests),
            result: self
                .result
                .as_ref()
                .filter(|_| self.status == TaskStatus::Completed),
            error: self
                .error
                .as_ref()
                .filter(|_| self.status == TaskStatus::Failed),
        }
    }

    /// Whether its worker's lease lapsed at `now` while it was not done.
    pub(crate) fn orphaned(&self, now: u64) -> bool {
        !self.status.is_terminal() && self.lease_ms < now
    }

    /// Ends it `status`, now.
    pub(crate) fn settle(&mut self, status: TaskStatus) {
        self.status = status;
        self.input_requests.clear();
        self.responses.clear();
        self.updated_ms = now_ms();
    }

    /// What the reader of an orphaned task does: take a resumable one over
    /// (a fresh lease, its questions gone: the new run asks anew) or fail
    /// it. `No` when the task is not orphaned.
    pub(crate) fn adopt_or_fail(&mut self) -> Orphan {
        let now = now_ms();
        if !self.orphaned(now) {
            return Orphan::No;
        }
        if self.resume.is_some() && self.resumes < MAX_TASK_RESUMES && !self.cancel_requested {
            self.resumes += 1;
            let lapsed = self.lease_ms;
            self.lease_ms = now + LEASE.as_millis() as u64;
            self.status = TaskStatus::Working;
            self.input_requests.clear();
            self.responses.clear();
            self.status_message = Some(format!(
                "The server running this task stopped (its lease lapsed at {}); the task was started again on another (attempt {} of {}).",
                rfc3339(lapsed),
                self.resumes + 1,
                MAX_TASK_RESUMES + 1
            ));
            self.updated_ms = now;
            return Orphan::TakenOver;
        }
        self.fail_orphaned();
        Orphan::Failed
    }

    /// Ends an orphaned task `failed`, saying why.
    pub(crate) fn fail_orphaned(&mut self) {
        let message = format!(
            "The server running this task stopped before it finished (its lease lapsed at {}); the task did not complete. Call the tool again to retry.",
            rfc3339(self.lease_ms)
        );
        self.error = Some(RpcError::internal_error(message.clone()));
        self.status_message = Some(message);
        self.settle(TaskStatus::Failed);
    }

    /// Time left to live, for the store's expiry (at least a second).
    fn remaining(&self, now: u64) -> Duration {
        let end = self.created_ms.saturating_add(self.ttl_ms);
        Duration::from_millis(end.saturating_sub(now).max(1_000))
    }
}

/// Why a task could not be read as asked.
#[derive(Debug)]
pub(crate) enum TaskError {
    /// No such task for this caller (never made, expired, or another's).
    Unknown,
    /// The store failed.
    Store(StoreError),
}

impl From<StoreError> for TaskError {
    fn from(error: StoreError) -> TaskError {
        TaskError::Store(error)
    }
}

/// The tasks of a server, in its store.
#[derive(Debug, Clone)]
pub(crate) struct Tasks {
    store: Arc<dyn Store>,
    pub(crate) ttl: Duration,
}

/// How many times a compare-and-set is retried before giving up (another
/// writer winning this often means something is very wrong).
const CAS_TRIES: usize = 64;

impl Tasks {
    pub(crate) fn new(store: Arc<dyn Store>, ttl: Duration) -> Tasks {
        Tasks { store, ttl }
    }

    /// Stores a new task; `false` if the id was taken (never, with 128
    /// random bits, but a store answers that, not us).
    pub(crate) async fn create(&self, id: &str, record: &TaskRecord) -> Result<bool, StoreError> {
        let bytes = serde_json::to_vec(record).map_err(StoreError::unavailable)?;
        self.store
            .put_if_absent(&key(id), bytes, record.remaining(now_ms()))
            .await
    }

    /// The task `id` as the store holds it, for `owner` (another's is
    /// unknown).
    pub(crate) async fn load(
        &self,
        id: &str,
        owner: Option<&str>,
    ) -> Result<(Vec<u8>, TaskRecord), TaskError> {
        let Some(bytes) = self.store.get(&key(id)).await? else {
            return Err(TaskError::Unknown);
        };
        let record: TaskRecord = serde_json::from_slice(&bytes).map_err(|e| {
            TaskError::Store(StoreError::unavailable(format!(
                "task record unreadable: {e}"
            )))
        })?;
        // A task made with a principal is that principal's; one made
        // without (no authorization) is anyone's who holds the id.
        if record.owner.is_some() && record.owner.as_deref() != owner {
            return Err(TaskError::Unknown);
        }
        Ok((bytes, record))
    }

    /// Changes task `id` with `change` (compare-and-set, retried when
    /// another writer came first); `change` returns `false` to leave it as
    /// it is. The record as it is afterwards.
    pub(crate) async fn update(
        &self,
        id: &str,
        owner: Option<&str>,
        mut change: impl FnMut(&mut TaskRecord) -> bool,
    ) -> Result<TaskRecord, TaskError> {
        for _ in 0..CAS_TRIES {
            let (bytes, mut record) = self.load(id, owner).await?;
            if !change(&mut record) {
                return Ok(record);
            }
            let new = serde_json::to_vec(&record).map_err(StoreError::unavailable)?;
            let ttl = record.remaining(now_ms());
            if self
                .store
                .compare_and_set(&key(id), &bytes, new, ttl)
                .await?
            {
                return Ok(record);
            }
        }
        Err(TaskError::Store(StoreError::unavailable(
            "the task record kept changing under this update",
        )))
    }
}

/// The input request of an `elicitation/create` or `sampling/createMessage`.
pub(crate) fn input_request(method: &str, params: Value) -> Value {
    let mut request = Map::new();
    request.insert("method".into(), method.into());
    request.insert("params".into(), params);
    Value::Object(request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    #[tokio::test]
    async fn a_task_is_created_read_by_its_owner_only_and_changed_by_compare_and_set() {
        let tasks = Tasks::new(Arc::new(MemoryStore::new()), DEFAULT_TTL);
        let id = new_id();
        assert_eq!(id.len(), 22);
        let record = TaskRecord::new(Some("ada".into()), "build", DEFAULT_TTL);
        assert!(tasks.create(&id, &record).await.unwrap());
        assert!(!tasks.create(&id, &record).await.unwrap(), "once only");
        assert!(matches!(
            tasks.load(&id, Some("eve")).await,
            Err(TaskError::Unknown)
        ));
        assert!(matches!(
            tasks.load(&id, None).await,
            Err(TaskError::Unknown)
        ));
        let changed = tasks
            .update(&id, Some("ada"), |r| {
                r.status_message = Some("half way".into());
                true
            })
            .await
            .unwrap();
        assert_eq!(changed.status_message.as_deref(), Some("half way"));
        let (_, read) = tasks.load(&id, Some("ada")).await.unwrap();
        assert_eq!(read, changed);
        let task = read.task(&id);
        let detailed = serde_json::to_value(read.view(&task)).unwrap();
        assert_eq!(detailed["status"], "working");
        assert!(detailed["createdAt"].as_str().unwrap().ends_with('Z'));
        assert_eq!(detailed["ttlMs"], 3_600_000);
    }

    #[test]
    fn a_resumable_orphan_is_taken_over_a_bounded_number_of_times() {
        let mut record = TaskRecord::new(None, "crawl", DEFAULT_TTL);
        record.resume = Some(Resume {
            arguments: None,
            capabilities: serde_json::json!({}),
        });
        record.input_requests.insert("input-1".into(), Value::Null);
        record.status = TaskStatus::InputRequired;
        assert_eq!(record.adopt_or_fail(), Orphan::No, "its worker is alive");
        for attempt in 1..=MAX_TASK_RESUMES {
            record.lease_ms = 0;
            assert_eq!(record.adopt_or_fail(), Orphan::TakenOver);
            assert_eq!(
                (record.resumes, record.status),
                (attempt, TaskStatus::Working)
            );
            assert!(record.input_requests.is_empty(), "the new run asks anew");
            assert!(record.lease_ms > now_ms());
        }
        record.lease_ms = 0;
        assert_eq!(record.adopt_or_fail(), Orphan::Failed, "resumed enough");
        assert_eq!(record.status, TaskStatus::Failed);
        let mut cancelled = TaskRecord::new(None, "crawl", DEFAULT_TTL);
        cancelled.resume = record.resume.clone();
        cancelled.cancel_requested = true;
        cancelled.lease_ms = 0;
        assert_eq!(
            cancelled.adopt_or_fail(),
            Orphan::Failed,
            "a cancelled one is not run again"
        );
    }

    #[test]
    fn an_orphaned_task_fails_saying_its_worker_is_gone() {
        let mut record = TaskRecord::new(None, "build", DEFAULT_TTL);
        assert!(!record.orphaned(now_ms()));
        assert!(record.orphaned(record.lease_ms + 1));
        record.fail_orphaned();
        assert_eq!(record.status, TaskStatus::Failed);
        assert!(
            record
                .status_message
                .as_deref()
                .unwrap()
                .contains("lease lapsed")
        );
        assert_eq!(record.error.as_ref().unwrap().code, -32603);
        assert!(!record.orphaned(u64::MAX));
    }
}
