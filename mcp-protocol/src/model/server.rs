//! What a client receives unasked: a server's notifications and (before
//! 2026-07-28) its requests, typed by method.

use super::input::{CreateMessageParams, ElicitParams};
use super::method;
use super::notifications::{CancelledParams, LoggingMessageParams, ProgressParams};
use serde_json::Value;

/// A notification a server sends, by method.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerNotification {
    /// `notifications/progress`.
    Progress(ProgressParams),
    /// `notifications/message`.
    Message(LoggingMessageParams),
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/cancelled`.
    Cancelled(CancelledParams),
    /// Any other method, as sent.
    Other {
        /// The method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
}

impl ServerNotification {
    /// The notification `method` with `params` (from [`Message::Notification`](crate::model::Message::Notification)).
    pub fn parse(method: &str, params: Option<Value>) -> Result<Self, serde_json::Error> {
        let params_of = |params: Option<Value>| params.unwrap_or(Value::Null);
        Ok(match method {
            method::PROGRESS => {
                ServerNotification::Progress(serde_json::from_value(params_of(params))?)
            }
            method::MESSAGE => {
                ServerNotification::Message(serde_json::from_value(params_of(params))?)
            }
            method::TOOLS_LIST_CHANGED => ServerNotification::ToolsListChanged,
            method::CANCELLED => {
                ServerNotification::Cancelled(serde_json::from_value(params_of(params))?)
            }
            _ => ServerNotification::Other {
                method: method.to_owned(),
                params,
            },
        })
    }
}

/// A request a server sends (2024-11-05 to 2025-11-25), by method.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerRequest {
    /// `elicitation/create`.
    Elicit(ElicitParams),
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageParams),
    /// `roots/list`.
    ListRoots,
    /// `ping`.
    Ping,
    /// Any other method, as sent.
    Other {
        /// The method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
}

impl ServerRequest {
    /// The request `method` with `params` (from [`Message::Request`](crate::model::Message::Request)).
    pub fn parse(method: &str, params: Option<Value>) -> Result<Self, serde_json::Error> {
        let params_of = |params: Option<Value>| params.unwrap_or(Value::Null);
        Ok(match method {
            method::ELICIT => ServerRequest::Elicit(serde_json::from_value(params_of(params))?),
            method::CREATE_MESSAGE => {
                ServerRequest::CreateMessage(serde_json::from_value(params_of(params))?)
            }
            method::ROOTS_LIST => ServerRequest::ListRoots,
            method::PING => ServerRequest::Ping,
            _ => ServerRequest::Other {
                method: method.to_owned(),
                params,
            },
        })
    }
}
