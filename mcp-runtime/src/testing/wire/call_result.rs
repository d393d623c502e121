//! A `tools/call` result as the wire client received it, with the
//! notifications that came during the call and accessors for tests.

use crate::protocol::model::method;
use serde_json::Value;

/// A `tools/call` result as the wire carried it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallResult {
    /// The whole `result` object.
    pub result: Value,
    /// Notifications that arrived while the call ran (progress, logs, …).
    pub notifications: Vec<Value>,
}

impl CallResult {
    /// Whether the result has `isError: true`.
    pub fn is_error(&self) -> bool {
        self.result["isError"] == true
    }

    /// The text of the first text block.
    pub fn text(&self) -> Option<&str> {
        self.result["content"]
            .as_array()?
            .iter()
            .find(|b| b["type"] == "text")?["text"]
            .as_str()
    }

    /// The `type` of each content block, in order (`"text"`, `"image"`, …).
    pub fn content_types(&self) -> Vec<&str> {
        self.result["content"]
            .as_array()
            .map(|blocks| blocks.iter().filter_map(|b| b["type"].as_str()).collect())
            .unwrap_or_default()
    }

    /// `structuredContent`, if any.
    pub fn structured(&self) -> Option<&Value> {
        self.result.get("structuredContent")
    }

    /// The `params` of the `notifications/progress` received during the call.
    pub fn progress(&self) -> Vec<&Value> {
        self.with_method(method::PROGRESS)
    }

    /// The `params` of the `notifications/message` (logs) received during the call.
    pub fn logs(&self) -> Vec<&Value> {
        self.with_method(method::MESSAGE)
    }

    fn with_method(&self, method: &str) -> Vec<&Value> {
        self.notifications
            .iter()
            .filter(|n| n["method"] == method)
            .map(|n| &n["params"])
            .collect()
    }
}
