//! What a line does as it happens ([`Event`]), for a host that shows it:
//! [`Line::events`](super::Line::events) streams the model's
//! responses and hands each event to an [`EventSink`] the moment it
//! happens, from whichever task it happens on (calls run at once, each on
//! a task of its own).
//!
//! The events serialize as one JSON object each, tagged by `event`
//! (`{"event":"text","text":"北京"}`): the `mcp-host` program's
//! `--events` lines.

use crate::provider::Usage;
use mcpfn_protocol::model::CallToolResult;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// The longest progress message an [`Event::CallProgress`] carries, in
/// bytes: a server's words, shown on a terminal line.
pub const PROGRESS_MESSAGE_BYTES: usize = 200;

/// Where a line's events go; called from any task, so it must not block
/// for long.
pub type EventSink = Arc<dyn Fn(&Event) + Send + Sync>;

/// One thing a line did.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// A piece of the answer's text, as the model writes it.
    Text {
        /// The piece.
        text: String,
    },
    /// The model asked for a call.
    CallRequested {
        /// The call's id (`tool_use.id`, `tool_calls[].id`).
        id: String,
        /// The tool's MCP name (the model's name when it names no tool).
        tool: String,
        /// The server's config name (`""` when the tool is unknown).
        server: String,
        /// Its arguments (`null` when they could not be read).
        input: Value,
    },
    /// The approver let the call run.
    CallApproved {
        /// The call's id.
        id: String,
    },
    /// The approver declined the call.
    CallDeclined {
        /// The call's id.
        id: String,
    },
    /// The call was not run, and why (an unknown tool, arguments that are
    /// not an object, a response cut off).
    CallNotRun {
        /// The call's id.
        id: String,
        /// Why, as the model is told.
        reason: String,
    },
    /// The call went to its server.
    CallStarted {
        /// The call's id.
        id: String,
    },
    /// The call's server reported progress (`notifications/progress` for
    /// the call's `progressToken`, which every call carries).
    CallProgress {
        /// The call's id.
        id: String,
        /// How far it is (the server's number, as it sent it).
        progress: f64,
        /// Of how much, if the server said.
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        /// What it is doing, in the server's words: at most
        /// [`PROGRESS_MESSAGE_BYTES`], control characters replaced.
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The call's result came (or its timeout, or its server's end).
    CallFinished {
        /// The call's id.
        id: String,
        /// How long it took, from its start, in milliseconds.
        duration_ms: u64,
        /// Whether its result is an error.
        is_error: bool,
    },
    /// The whole result of a call whose tool is rendered by an MCP App
    /// (its definition names a `ui://` resource), for that app
    /// (`ui/notifications/tool-result`); right after its
    /// [`CallFinished`](Event::CallFinished).
    AppResult {
        /// The call's id.
        id: String,
        /// The result as the server sent it (not cut to the model's
        /// budget).
        result: CallToolResult,
    },
    /// A response's cost, once it has come.
    Usage {
        /// Its tokens.
        usage: Usage,
    },
}
