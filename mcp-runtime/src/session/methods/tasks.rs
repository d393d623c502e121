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
use crate::protocol::params::Params;
use crate::protocol::task::TaskStatus;
use crate::session::Session;
use crate::session::era::RequestInfo;
use crate::task::{TaskError, TaskRecord, now_ms};
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
    pub(in crate::session) fn name(self) -> &'static str {
        match self {
            TaskMethod::Get => "tasks/get",
            TaskMethod::Update => "tasks/update",
            TaskMethod::Cancel => "tasks/cancel",
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

/// What the changes of `tasks/get` make of a record read: an orphan (its
/// worker's lease lapsed) becomes failed.
fn on_read(record: &mut TaskRecord) -> bool {
    if record.orphaned(now_ms()) {
        record.fail_orphaned();
        return true;
    }
    false
}

/// What `tasks/update` makes of a record read: `responses` taken for the
/// keys outstanding (answers to others, never asked, answered already or
/// of an ended task, are ignored, as the extension says), the task back to
/// `working` once none is. It must leave `responses` whole: the change is
/// made again on a fresh read whenever another writer (the worker renewing
/// its lease or writing progress) changed the record first.
fn on_update(record: &mut TaskRecord, responses: &Map<String, Value>) -> bool {
    let mut changed = on_read(record);
    for (key, answer) in responses {
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
                        crate::protocol::incoming::without_position(&e)
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
            let frame = match method {
                TaskMethod::Get => tasks.update(&task_id, owner, on_read).await.map(|record| {
                    let mut detailed = record.detailed(&task_id);
                    // The reply writes `resultType`.
                    detailed.result_type = None;
                    reply.task(&detailed)
                }),
                TaskMethod::Update => {
                    let responses = responses.unwrap_or_default();
                    tasks
                        .update(&task_id, owner, |record| on_update(record, &responses))
                        .await
                        .map(|_| reply.empty())
                }
                TaskMethod::Cancel => tasks
                    .update(&task_id, owner, |record| {
                        if record.status.is_terminal() || record.cancel_requested {
                            return on_read(record);
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
                    .map(|_| reply.empty()),
            };
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
    use crate::task::DEFAULT_TTL;
    use serde_json::json;

    /// A task that asked `input-1` and `input-2`.
    fn asking() -> TaskRecord {
        let mut record = TaskRecord::new(None, "build", DEFAULT_TTL);
        for key in ["input-1", "input-2"] {
            record.input_requests.insert(key.into(), json!({}));
        }
        record.issued = 2;
        record.status = TaskStatus::InputRequired;
        record
    }

    #[test]
    fn an_update_made_again_after_a_lost_compare_and_set_still_carries_its_answers() {
        let answers = json!({"input-1": {"action": "accept"}, "input-2": {"action": "decline"}, "input-9": {}});
        let answers = answers.as_object().unwrap().clone();
        // The first try's compare-and-set lost: the change is made again,
        // on a fresh read of the record.
        let mut lost = asking();
        assert!(on_update(&mut lost, &answers));
        let mut again = asking();
        assert!(on_update(&mut again, &answers));
        assert_eq!(again.responses.len(), 2, "{again:?}");
        assert_eq!(again.responses["input-2"], json!({"action": "decline"}));
        assert!(again.input_requests.is_empty());
        assert_eq!(again.status, TaskStatus::Working);
        // Sent once more, the answers find nothing outstanding.
        assert!(!on_update(&mut again, &answers));
    }

    #[test]
    fn a_partial_update_leaves_the_task_asking() {
        let answers = json!({"input-2": {"action": "accept"}});
        let mut record = asking();
        assert!(on_update(&mut record, answers.as_object().unwrap()));
        assert_eq!(record.status, TaskStatus::InputRequired);
        assert_eq!(
            record.input_requests.keys().collect::<Vec<_>>(),
            ["input-1"]
        );
    }
}
