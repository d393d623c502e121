//! What the test client returns: a call's typed result with the progress
//! and log messages that came during it, and the JSON-RPC errors the server
//! answered with.

use crate::protocol::model::{CallToolResult, ContentBlock, LoggingMessageParams, ProgressParams};
use serde_json::Value;

/// A JSON-RPC error the server answered with: the one error object of
/// the wire model.
pub use mcpfn_protocol::RpcError;

/// A `tools/call` result, typed, with what the tool reported while it ran.
#[derive(Clone, Debug, PartialEq)]
pub struct CallResult {
    /// The result, as a client reads it.
    pub result: CallToolResult,
    pub(super) progress: Vec<ProgressParams>,
    pub(super) logs: Vec<LoggingMessageParams>,
}

impl CallResult {
    /// Whether the result has `isError: true`.
    pub fn is_error(&self) -> bool {
        self.result.is_error
    }

    /// The text of the first text block.
    pub fn text(&self) -> Option<&str> {
        self.result.content.iter().find_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
    }

    /// The `type` of each content block, in order (`"text"`, `"image"`, …).
    pub fn content_types(&self) -> Vec<&'static str> {
        self.result.content.iter().map(ContentBlock::kind).collect()
    }

    /// `structuredContent`, if any.
    pub fn structured(&self) -> Option<&Value> {
        self.result.structured_content.as_ref()
    }

    /// The progress the tool reported (only in a call made with
    /// [`Client::call_with_progress`](super::Client::call_with_progress)).
    pub fn progress(&self) -> &[ProgressParams] {
        &self.progress
    }

    /// The log messages the tool sent at the client's
    /// [`log_level`](super::ClientBuilder::log_level) and above (none
    /// without one).
    pub fn logs(&self) -> &[LoggingMessageParams] {
        &self.logs
    }
}
