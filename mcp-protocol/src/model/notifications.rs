//! Notifications both ways (cancellation, progress, log messages) and the
//! 2026-07-28 stream that carries them (`subscriptions/listen`).

use super::jsonrpc::RequestId;
use crate::meta::Envelope;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The params of `notifications/cancelled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// The request to cancel.
    pub request_id: RequestId,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Which notifications a `subscriptions/listen` stream asks for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// Resources whose updates to send.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_subscriptions: Vec<String>,
    /// The tasks whose `notifications/tasks` to send (Tasks extension).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub task_ids: Vec<String>,
}

/// The params of `subscriptions/listen` (2026-07-28).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ListenParams<'a> {
    /// What to send on the stream (required, even when empty).
    pub notifications: SubscriptionFilter,
    /// `_meta`: the envelope (read as empty when absent: the era rules
    /// decide on it before the method does).
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Envelope<'a>,
}

/// The params of `notifications/progress`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    /// The token of the request it reports on (a string or an integer).
    pub progress_token: Value,
    /// How far it is.
    pub progress: f64,
    /// Of how much, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// What it is doing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The params of `notifications/message`: a log message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageParams {
    /// Its level (`debug` … `emergency`).
    pub level: String,
    /// Who logged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// What it says.
    pub data: Value,
}

/// The params of `logging/setLevel` (2024-11-05 to 2025-11-25).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetLevelParams {
    /// The lowest level to send (`debug` … `emergency`).
    pub level: String,
}
