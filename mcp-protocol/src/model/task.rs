//! The Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): a
//! `tools/call` answered with a task the client polls (`tasks/get`),
//! answers (`tasks/update`) and cancels (`tasks/cancel`), instead of a
//! result held on an open request.
//!
//! One model both ways: the server writes [`CreateTaskResult`] and
//! [`DetailedTask`] from it, a client reads them with it.

use super::input::InputRequest;
use super::jsonrpc::JsonObject;
use super::lifecycle::ServerCapabilities;
use super::tools::CallToolResult;
use crate::error::RpcError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The extension's identifier: the key under `capabilities.extensions`
/// (the server's, in `server/discover`; the client's, in each request's
/// `_meta` client capabilities).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Where a task is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for answers to its `inputRequests` (`tasks/update`).
    InputRequired,
    /// Done, with the request's result (an `isError` tool result too).
    Completed,
    /// Ended by a JSON-RPC error, which it carries.
    Failed,
    /// Cancelled before it completed.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task will not change any more.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The wire name (`working`, `input_required`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// What every task shape carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task's id: unguessable, what `tasks/*` name.
    pub task_id: String,
    /// Where it is.
    pub status: TaskStatus,
    /// A sentence about where it is (progress, why it failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was made (ISO 8601).
    pub created_at: String,
    /// When it last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long after `createdAt` the server may forget it, in
    /// milliseconds; `null` for never. Always sent.
    pub ttl_ms: Option<u64>,
    /// How often to poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// The answer to a `tools/call` that became a task (`resultType: "task"`,
/// flat: the task's fields beside it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskResult {
    /// Always `"task"`.
    pub result_type: String,
    /// The task as it starts.
    #[serde(flatten)]
    pub task: Task,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CreateTaskResult {
    /// The result announcing `task`.
    pub fn new(task: Task) -> CreateTaskResult {
        CreateTaskResult {
            result_type: "task".into(),
            task,
            meta: None,
        }
    }
}

/// A task with what its status carries: the `tasks/get` result
/// (`resultType: "complete"`) and the params of `notifications/tasks`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// `"complete"` in a `tasks/get` result; absent in a notification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// `input_required`: every outstanding request, by its key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<BTreeMap<String, InputRequest>>,
    /// `completed`: the request's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CallToolResult>,
    /// `failed`: the JSON-RPC error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

/// The params of `tasks/get` and `tasks/cancel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// Its `_meta` (the 2026-07-28 envelope).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// The params of `tasks/update`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// Answers to outstanding input requests, by their keys.
    #[serde(default)]
    pub input_responses: JsonObject,
    /// Its `_meta` (the 2026-07-28 envelope).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

impl ServerCapabilities {
    /// With `extensions: {"io.modelcontextprotocol/tasks": {}}` (the Tasks
    /// extension), beside the extensions already set.
    pub fn with_tasks_extension(self) -> ServerCapabilities {
        let mut extensions = self.extensions.unwrap_or_default();
        extensions.insert(TASKS_EXTENSION.to_owned(), Value::Object(JsonObject::new()));
        ServerCapabilities {
            extensions: Some(extensions),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(status: TaskStatus) -> Task {
        Task {
            task_id: "786512e2".into(),
            status,
            status_message: None,
            created_at: "2025-11-25T10:30:00Z".into(),
            last_updated_at: "2025-11-25T10:40:00Z".into(),
            ttl_ms: Some(60_000),
            poll_interval_ms: Some(5_000),
        }
    }

    #[test]
    fn a_created_task_is_flat_with_its_result_type() {
        let created =
            serde_json::to_value(CreateTaskResult::new(task(TaskStatus::Working))).unwrap();
        assert_eq!(
            created,
            json!({"resultType": "task", "taskId": "786512e2", "status": "working",
                   "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
                   "ttlMs": 60000, "pollIntervalMs": 5000})
        );
        let mut unlimited = task(TaskStatus::InputRequired);
        unlimited.ttl_ms = None;
        let value = serde_json::to_value(&unlimited).unwrap();
        assert_eq!(
            (value["ttlMs"].clone(), value["status"].clone()),
            (Value::Null, json!("input_required"))
        );
    }

    #[test]
    fn a_detailed_task_reads_back_with_its_payload() {
        let text = r#"{"resultType":"complete","taskId":"t","status":"completed","createdAt":"a","lastUpdatedAt":"b","ttlMs":null,
                       "result":{"content":[{"type":"text","text":"Hello, Luca!"}],"isError":false}}"#;
        let detailed: DetailedTask = serde_json::from_str(text).unwrap();
        assert_eq!(detailed.task.status, TaskStatus::Completed);
        assert_eq!(detailed.task.ttl_ms, None);
        assert_eq!(
            detailed.result.unwrap(),
            CallToolResult::text("Hello, Luca!")
        );
        assert!(TaskStatus::Cancelled.is_terminal() && !TaskStatus::InputRequired.is_terminal());
    }
}
