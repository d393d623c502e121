//! The server's rendering of a stored task:
//! [`crate::protocol::model::DetailedTask`] written from the JSON it was
//! kept as.

use crate::protocol::RpcError;
use crate::protocol::model::Task;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A [`DetailedTask`](crate::protocol::model::DetailedTask) as a server
/// writes it from what it stored: the result, the error and the questions
/// as the JSON they were kept as, serialized without a typed parse (the
/// same fields, the same bytes).
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskView<'a> {
    /// The task.
    #[serde(flatten)]
    pub task: &'a Task,
    /// `input_required`: every outstanding request, by its key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<&'a BTreeMap<String, Value>>,
    /// `completed`: the request's result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<&'a Value>,
    /// `failed`: the JSON-RPC error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a RpcError>,
}
