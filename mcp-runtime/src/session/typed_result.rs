//! A tool's outcome as the typed model's `CallToolResult` (no JSON text):
//! what the in-process door returns and what a task stores as its result.

use crate::content::Content;
use crate::outcome::ToolOutcome;
use crate::protocol::ProtocolVersion;
use crate::protocol::content::{Audience, Block, EmbeddedBody};
use crate::protocol::model::{self, BlockAnnotations, CallToolResult, ContentBlock};
use crate::tool::Tool;
use serde_json::{Value, json};

/// The typed result of an outcome: structured output and its text mirror
/// (wrapped as `{"result": …}` where the revision's outputSchema is), or
/// the content blocks, or the error.
pub(crate) fn call_result(
    tool: &Tool,
    outcome: ToolOutcome,
    version: ProtocolVersion,
) -> CallToolResult {
    let structured = |json: String, content: Vec<Content>| {
        let value: Value = match serde_json::from_str(&json) {
            Ok(value) => value,
            Err(err) => {
                return CallToolResult::error(format!(
                    "The tool '{}' produced a structured result that is not JSON: {err}",
                    tool.name
                ));
            }
        };
        let (mirror, value) = if tool.wraps_output(version) {
            let wrapped = json!({ "result": value });
            (wrapped.to_string(), wrapped)
        } else if json.contains(['\n', '\r']) {
            (value.to_string(), value)
        } else {
            (json, value)
        };
        let mut blocks = Vec::with_capacity(1 + content.len());
        blocks.push(text_block(mirror));
        blocks.extend(content.into_iter().map(block));
        CallToolResult {
            content: blocks,
            structured_content: version.carries().structured_output.then_some(value),
            ..CallToolResult::default()
        }
    };
    match outcome {
        ToolOutcome::Structured(json) => structured(json, Vec::new()),
        ToolOutcome::StructuredWith { json, content } => structured(json, content),
        ToolOutcome::Content(blocks) => CallToolResult {
            content: blocks.into_iter().map(block).collect(),
            ..CallToolResult::default()
        },
        ToolOutcome::Error(message) => CallToolResult::error(message),
        // The door answers it as the `Err` of the call, before this.
        ToolOutcome::Protocol(error) => CallToolResult::error(error.message.to_string()),
    }
}

fn text_block(text: String) -> ContentBlock {
    ContentBlock::Text(model::TextContent {
        text,
        annotations: None,
        meta: None,
    })
}

/// A content block as the model holds it (every kind, as the latest
/// revision carries it).
fn block(content: Content) -> ContentBlock {
    let annotations = (!content.audience.is_empty()
        || content.priority.is_some()
        || content.last_modified.is_some())
    .then(|| BlockAnnotations {
        audience: content
            .audience
            .iter()
            .map(|audience| match audience {
                Audience::User => model::Role::User,
                Audience::Assistant => model::Role::Assistant,
            })
            .collect(),
        priority: content.priority,
        last_modified: content.last_modified,
    });
    match content.block {
        Block::Text(text) => ContentBlock::Text(model::TextContent {
            text,
            annotations,
            meta: None,
        }),
        Block::Image { data, mime_type } => ContentBlock::Image(model::ImageContent {
            data,
            mime_type,
            annotations,
            meta: None,
        }),
        Block::Audio { data, mime_type } => ContentBlock::Audio(model::AudioContent {
            data,
            mime_type,
            annotations,
            meta: None,
        }),
        Block::ResourceLink(link) => ContentBlock::ResourceLink(model::ResourceLinkContent {
            uri: link.uri,
            name: link.name,
            title: link.title,
            description: link.description,
            mime_type: link.mime_type,
            size: link.size,
            annotations,
            meta: None,
        }),
        Block::Embedded {
            uri,
            mime_type,
            body,
        } => ContentBlock::Resource(model::EmbeddedResource {
            resource: match body {
                EmbeddedBody::Text(text) => model::ResourceContents::Text {
                    uri,
                    mime_type,
                    text,
                },
                EmbeddedBody::Blob(blob) => model::ResourceContents::Blob {
                    uri,
                    mime_type,
                    blob,
                },
            },
            annotations,
            meta: None,
        }),
    }
}
