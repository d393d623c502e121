//! The owned rendering of a `tools/call` result: what the server's fast
//! path (`mcp-runtime`) writes straight as a frame, built as the canonical
//! [`model::CallToolResult`] instead (what an in-process client gets and a
//! task stores), from the parts the tool produced, moved rather than
//! copied. Both renderings
//! share the rules of the shape: the `{"result": …}` wrapping ([`Wrapped`],
//! which the fast path writes with too) and the text mirror of structured
//! output.

use crate::ProtocolVersion;
use crate::model::{self, ContentBlock};
use serde::Serialize;
use serde_json::Value;

/// `{"result": …}`, the object root older revisions need around other roots.
#[derive(Debug, Serialize)]
pub struct Wrapped<T> {
    /// The output that is not an object.
    pub result: T,
}

impl model::CallToolResult {
    /// Structured output `json` (JSON text) for a client of `version`: the
    /// output (as `structuredContent` where the revision has it, under
    /// `{"result": …}` when `wrap`) behind its one-line text mirror, then
    /// `content`. `Err` when `json` is not JSON.
    pub fn structured(
        json: String,
        wrap: bool,
        content: Vec<ContentBlock>,
        version: ProtocolVersion,
    ) -> Result<model::CallToolResult, serde_json::Error> {
        let value: Value = serde_json::from_str(&json)?;
        let (mirror, value) = if wrap {
            let wrapped = serde_json::to_value(Wrapped { result: value })?;
            (wrapped.to_string(), wrapped)
        } else if json.contains(['\n', '\r']) {
            // Hand-built outcomes may hold pretty JSON: the mirror is one
            // line, as on the wire.
            (value.to_string(), value)
        } else {
            (json, value)
        };
        let mut blocks = Vec::with_capacity(1 + content.len());
        blocks.push(ContentBlock::Text(model::TextContent {
            text: mirror,
            annotations: None,
            meta: None,
        }));
        blocks.extend(content);
        Ok(model::CallToolResult {
            content: blocks,
            structured_content: version.carries().structured_output.then_some(value),
            ..model::CallToolResult::default()
        })
    }

    /// A result of content blocks, every kind as the latest revision
    /// carries it (a typed client reads every kind).
    pub fn blocks(content: Vec<ContentBlock>) -> model::CallToolResult {
        model::CallToolResult {
            content,
            ..model::CallToolResult::default()
        }
    }
}
