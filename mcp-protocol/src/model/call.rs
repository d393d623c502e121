//! What a `tools/call` answers with: a result, questions for the client,
//! or (the Tasks extension) a task to poll.

use super::input::InputRequiredResult;
use super::jsonrpc::JsonObject;
use super::task::CreateTaskResult;
use super::tools::CallToolResult;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// What a `tools/call` answers with, by `resultType` (2026-07-28; a result
/// without one, as every earlier revision sends, is `complete`).
#[derive(Clone, Debug, PartialEq)]
pub enum CallToolResponse {
    /// `complete`: the tool's result.
    Complete(CallToolResult),
    /// `input_required`: answer the questions and call again.
    InputRequired(InputRequiredResult),
    /// `task` (the Tasks extension): the call runs as a task to poll.
    Task(CreateTaskResult),
}

impl Serialize for CallToolResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (result_type, value) = match self {
            CallToolResponse::Complete(result) => ("complete", serde_json::to_value(result)),
            CallToolResponse::InputRequired(result) => {
                ("input_required", serde_json::to_value(result))
            }
            CallToolResponse::Task(result) => ("task", serde_json::to_value(result)),
        };
        let mut value = value.map_err(serde::ser::Error::custom)?;
        if let Value::Object(map) = &mut value {
            map.insert("resultType".into(), result_type.into());
        }
        value.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CallToolResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut map = JsonObject::deserialize(deserializer)?;
        let result_type = match map.remove("resultType") {
            None => "complete".to_owned(),
            Some(Value::String(kind)) => kind,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "resultType must be a string, not {other}"
                )));
            }
        };
        let value = Value::Object(map);
        match result_type.as_str() {
            "complete" => serde_json::from_value(value)
                .map(CallToolResponse::Complete)
                .map_err(D::Error::custom),
            "input_required" => serde_json::from_value(value)
                .map(CallToolResponse::InputRequired)
                .map_err(D::Error::custom),
            "task" => {
                let mut value = value;
                if let Value::Object(map) = &mut value {
                    map.insert("resultType".into(), "task".into());
                }
                serde_json::from_value(value)
                    .map(CallToolResponse::Task)
                    .map_err(D::Error::custom)
            }
            other => Err(D::Error::custom(format!("unknown resultType {other:?}"))),
        }
    }
}
