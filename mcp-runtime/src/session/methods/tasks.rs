//! `tasks/get`, `tasks/update` and `tasks/cancel` (Tasks extension,
//! 2026-07-28 only): read and change a task's record in the server's
//! store, on whichever replica the request reaches. Each checks, in this
//! order, that the request declares the extension (`-32021`, before any
//! lookup), its params, and that the task exists for this caller: a task
//! belongs to the principal that made it, and another principal's, an
//! expired one and one never made are all the same `-32602`.
//!
//! The handler checks what needs no store and answers from a task of its
//! own once the store has: a shared store is a network round trip.

use super::tools::{declares_tasks, tasks_required};
use crate::protocol::RpcError;
use crate::protocol::model::TaskStatus;
use crate::protocol::model::method::{CancelTask, GetTask, Request, UpdateTask};
use crate::protocol::params::Params;
use crate::session::Session;
use crate::session::era::RequestInfo;
use crate::task::{Orphan, TaskError, TaskRecord, now_ms};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Which of the three methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::session) enum TaskMethod {
    Get,
    Update,
    Cancel,
}

impl TaskMethod {
    pub(in crate::session) const fn name(self) -> &'static str {
        match self {
            TaskMethod::Get => GetTask::METHOD,
            TaskMethod::Update => UpdateTask::METHOD,
            TaskMethod::Cancel => CancelTask::METHOD,
        }
    }
}

/// The `-32602` of a task this caller cannot see.
fn unknown(method: TaskMethod, id: &str) -> RpcError {
    RpcError::invalid_params(format!(
        "Invalid params for {}: no task `{id}` (it never existed, expired, or belongs to another caller)",
        method.name()
    ))
}

fn failure(method: TaskMethod, id: &str, error: TaskError) -> RpcError {
    match error {
        TaskError::Unknown => unknown(method, id),
        TaskError::Store(e) => RpcError::internal_error(format!(
            "{e}; {} of task `{id}` could not be served. Retry later.",
            method.name()
        )),
    }
}

/// What every `tasks/*` makes of a record read: an orphan (its worker's
/// lease lapsed) is failed, or taken over when its tool is resumable;
/// `orphan` says which (the change may run again on a fresh read, so it
/// is set on each run). `true` when the record changed.
fn on_read(record: &mut TaskRecord, orphan: &mut Orphan) -> bool {
    *orphan = record.adopt_or_fail();
    *orphan != Orphan::No
}

/// What `tasks/update` makes of a record read: each answer to an
/// outstanding key moves it from `inputRequests` to the answers the worker
/// takes, and the task works again once nothing is outstanding. Answers to
/// keys not outstanding (never asked, answered already, or of an ended
/// task) are ignored, as the extension says. `answers` is only read: the
/// change runs again on a fresh read whenever another writer's
/// compare-and-set came first, and each run must see every answer.
fn take_answers(
    record: &mut TaskRecord,
    answers: &Map<String, Value>,
    orphan: &mut Orphan,
) -> bool {
    let mut changed = on_read(record, orphan);
    for (key, answer) in answers {
        if record.input_requests.remove(key).is_some() {
            record.responses.insert(key.clone(), answer.clone());
            changed = true;
        }
    }
    if changed && record.status == TaskStatus::InputRequired && record.input_requests.is_empty() {
        record.status = TaskStatus::Working;
        record.updated_ms = now_ms();
    }
    changed
}

impl Session {
    /// Serves `method`: the checks that need no store here, the rest on a
    /// task of its own.
    pub(in crate::session) fn task_request(
        &self,
        id: &RawValue,
        method: TaskMethod,
        info: RequestInfo,
        params: &Params<'_>,
    ) -> Result<(), RpcError> {
        if !declares_tasks(&info.client.capabilities) {
            return Err(tasks_required(method.name()));
        }
        // The one parse read `taskId` (a string) and `inputResponses` (an
        // object): the values the HTTP `Mcp-Name` check saw.
        let Some(task_id) = params.task_id.as_deref().map(str::to_owned) else {
            return Err(RpcError::invalid_params(format!(
                "Invalid params for {}: missing field `taskId`",
                method.name()
            )));
        };
        let responses: Option<Map<String, Value>> = match method {
            TaskMethod::Update => Some(match params.input_responses {
                None => serde_json::Map::new(),
                Some(raw) => serde_json::from_str(raw.get()).map_err(|e| {
                    RpcError::invalid_params(format!(
                        "Invalid params for tasks/update: \"inputResponses\": {}",
                        crate::protocol::read::without_position(&e)
                    ))
                })?,
            }),
            TaskMethod::Get | TaskMethod::Cancel => None,
        };
        let shared = std::sync::Arc::clone(&self.shared);
        let connection = std::sync::Arc::clone(&self.connection);
        let owner = connection
            .principal()
            .map(|principal| principal.subject().to_owned());
        let request_id = id.to_owned();
        let version = info.version;
        tokio::spawn(async move {
            let tasks = &shared.tasks;
            let owner = owner.as_deref();
            let reply = crate::protocol::outgoing::Reply::new(
                &request_id,
                version,
                shared.identity.server_meta(),
            );
            let mut orphan = Orphan::No;
            let updated = match method {
                TaskMethod::Get => {
                    tasks
                        .update(&task_id, owner, |record| on_read(record, &mut orphan))
                        .await
                }
                TaskMethod::Update => {
                    let responses = responses.unwrap_or_default();
                    tasks
                        .update(&task_id, owner, |record| {
                            take_answers(record, &responses, &mut orphan)
                        })
                        .await
                }
                TaskMethod::Cancel => {
                    tasks
                        .update(&task_id, owner, |record| {
                            if record.status.is_terminal() || record.cancel_requested {
                                return on_read(record, &mut orphan);
                            }
                            // Cooperative: the worker sees the flag, cancels the
                            // tool, and settles the task `cancelled`.
                            record.cancel_requested = true;
                            if record.orphaned(now_ms()) {
                                record.status_message = Some("Cancelled by the client.".into());
                                record.settle(TaskStatus::Cancelled);
                            }
                            true
                        })
                        .await
                }
            };
            // This replica took a lost worker's task over: it runs the
            // tool again.
            if let (Ok(record), Orphan::TakenOver) = (&updated, orphan) {
                crate::session::tasks::resume(&shared, &task_id, record);
            }
            let frame = updated.map(|record| match method {
                TaskMethod::Get => reply.task(&record.view(&record.task(&task_id))),
                TaskMethod::Update | TaskMethod::Cancel => reply.empty(),
            });
            let frame = frame.unwrap_or_else(|error| {
                crate::protocol::outgoing::rpc_error(
                    Some(&request_id),
                    &failure(method, &task_id, error),
                )
            });
            connection.send(frame);
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{MemoryStore, Store, StoreFuture};
    use crate::task::{Tasks, input_request, new_id};
    use serde_json::json;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    /// A memory store where another writer (the worker renewing its lease,
    /// say) changes the record just before the first compare-and-set, so
    /// that one loses and the update runs again.
    #[derive(Debug, Default)]
    struct Raced {
        inner: MemoryStore,
        raced: AtomicBool,
    }

    impl Store for Raced {
        fn put<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
            self.inner.put(key, value, ttl)
        }
        fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
            self.inner.get(key)
        }
        fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, bool> {
            self.inner.delete(key)
        }
        fn put_if_absent<'a>(
            &'a self,
            key: &'a str,
            value: Vec<u8>,
            ttl: Duration,
        ) -> StoreFuture<'a, bool> {
            self.inner.put_if_absent(key, value, ttl)
        }
        fn compare_and_set<'a>(
            &'a self,
            key: &'a str,
            expected: &'a [u8],
            new: Vec<u8>,
            ttl: Duration,
        ) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                if !self.raced.swap(true, Ordering::SeqCst) {
                    let mut record: TaskRecord = serde_json::from_slice(expected).unwrap();
                    record.lease_ms += 1;
                    let renewed = serde_json::to_vec(&record).unwrap();
                    assert!(
                        self.inner
                            .compare_and_set(key, expected, renewed, ttl)
                            .await?
                    );
                }
                self.inner.compare_and_set(key, expected, new, ttl).await
            })
        }
        fn compare_and_delete<'a>(
            &'a self,
            key: &'a str,
            expected: &'a [u8],
        ) -> StoreFuture<'a, bool> {
            self.inner.compare_and_delete(key, expected)
        }
        fn publish<'a>(&'a self, channel: &'a str, message: Vec<u8>) -> StoreFuture<'a, ()> {
            self.inner.publish(channel, message)
        }
        fn listen<'a>(
            &'a self,
            channel: &'a str,
            to: tokio::sync::mpsc::Sender<Vec<u8>>,
        ) -> StoreFuture<'a, ()> {
            self.inner.listen(channel, to)
        }
    }

    #[tokio::test]
    async fn answers_survive_an_update_that_lost_a_compare_and_set() {
        let store = Arc::new(Raced::default());
        let tasks = Tasks::new(store.clone(), Duration::from_secs(60));
        let id = new_id();
        let mut record = TaskRecord::new(None, "ask", Duration::from_secs(60));
        record.issued = 1;
        record.input_requests.insert(
            "input-1".into(),
            input_request("elicitation/create", json!({"message": "?"})),
        );
        record.status = TaskStatus::InputRequired;
        assert!(tasks.create(&id, &record).await.unwrap());
        let answers: Map<String, Value> =
            serde_json::from_value(json!({"input-1": {"action": "accept", "content": {}}}))
                .unwrap();
        let after = tasks
            .update(&id, None, |record| {
                take_answers(record, &answers, &mut Orphan::No)
            })
            .await
            .unwrap();
        assert!(store.raced.load(Ordering::SeqCst), "the race happened");
        assert!(after.input_requests.is_empty(), "{after:?}");
        assert_eq!(after.status, TaskStatus::Working);
        assert_eq!(
            after.responses.get("input-1"),
            Some(&json!({"action": "accept", "content": {}}))
        );
        let (_, stored) = tasks.load(&id, None).await.unwrap();
        assert_eq!(stored, after, "what the update returned is what is stored");
    }

    #[test]
    fn a_partial_update_leaves_the_task_asking_and_a_repeat_changes_nothing() {
        let mut record = TaskRecord::new(None, "build", Duration::from_secs(60));
        for key in ["input-1", "input-2"] {
            record.input_requests.insert(key.into(), json!({}));
        }
        record.issued = 2;
        record.status = TaskStatus::InputRequired;
        let answers = json!({"input-2": {"action": "accept"}, "input-9": {}});
        let answers = answers.as_object().unwrap();
        assert!(take_answers(&mut record, answers, &mut Orphan::No));
        assert_eq!(record.status, TaskStatus::InputRequired);
        assert_eq!(
            record.input_requests.keys().collect::<Vec<_>>(),
            ["input-1"]
        );
        assert_eq!(record.responses.keys().collect::<Vec<_>>(), ["input-2"]);
        assert!(
            !take_answers(&mut record, answers, &mut Orphan::No),
            "nothing outstanding matches"
        );
    }
}
