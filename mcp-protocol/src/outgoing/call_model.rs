//! The owned rendering of a `tools/call` result: the same [`CallToolResult`]
//! the fast path writes as a frame, as the canonical
//! [`model::CallToolResult`] (what an in-process client gets and a task
//! stores). Both renderings read one value and share the rules of its
//! shape: the `{"result": …}` wrapping ([`Wrapped`]) and the text mirror of
//! structured output.

use super::call::{CallToolResult, Wrapped};
use crate::ProtocolVersion;
use crate::content::{Audience, Block, Content, EmbeddedBody};
use crate::model::{self, BlockAnnotations, ContentBlock};
use serde_json::Value;

impl CallToolResult<'_> {
    /// This result as the owned model, for a client of `version`: the
    /// structured output (as `structuredContent` where the revision has it)
    /// behind its text mirror, and every content block as the latest
    /// revision carries it (a typed client reads every kind).
    pub fn to_model(&self, version: ProtocolVersion) -> model::CallToolResult {
        match *self {
            CallToolResult::Structured {
                json,
                wrap,
                content,
            } => {
                // `json` is JSON already (a `RawValue`): reading it, or
                // the wrapper around it, as a `Value` cannot fail.
                let (mirror, value) = if wrap {
                    let wrapped = Wrapped { result: json };
                    (
                        serde_json::to_string(&wrapped).unwrap_or_default(),
                        serde_json::to_value(&wrapped).unwrap_or_default(),
                    )
                } else {
                    (
                        json.get().to_owned(),
                        serde_json::from_str(json.get()).unwrap_or_default(),
                    )
                };
                let mut blocks = Vec::with_capacity(1 + content.len());
                blocks.push(text_block(mirror));
                blocks.extend(content.iter().map(Content::to_model));
                model::CallToolResult {
                    content: blocks,
                    structured_content: version
                        .carries()
                        .structured_output
                        .then_some::<Value>(value),
                    ..model::CallToolResult::default()
                }
            }
            CallToolResult::Content(blocks) => model::CallToolResult {
                content: blocks.iter().map(Content::to_model).collect(),
                ..model::CallToolResult::default()
            },
            CallToolResult::Error(message) => model::CallToolResult::error(message),
        }
    }
}

fn text_block(text: String) -> ContentBlock {
    ContentBlock::Text(model::TextContent {
        text,
        annotations: None,
        meta: None,
    })
}

impl Content {
    /// The block as the owned model holds it (every kind, as the latest
    /// revision carries it).
    pub fn to_model(&self) -> ContentBlock {
        let annotations =
            (!self.audience.is_empty() || self.priority.is_some() || self.last_modified.is_some())
                .then(|| BlockAnnotations {
                    audience: self
                        .audience
                        .iter()
                        .map(|audience| match audience {
                            Audience::User => model::Role::User,
                            Audience::Assistant => model::Role::Assistant,
                        })
                        .collect(),
                    priority: self.priority,
                    last_modified: self.last_modified.clone(),
                });
        match &self.block {
            Block::Text(text) => ContentBlock::Text(model::TextContent {
                text: text.clone(),
                annotations,
                meta: None,
            }),
            Block::Image { data, mime_type } => ContentBlock::Image(model::ImageContent {
                data: data.clone(),
                mime_type: mime_type.clone(),
                annotations,
                meta: None,
            }),
            Block::Audio { data, mime_type } => ContentBlock::Audio(model::AudioContent {
                data: data.clone(),
                mime_type: mime_type.clone(),
                annotations,
                meta: None,
            }),
            Block::ResourceLink(link) => ContentBlock::ResourceLink(model::ResourceLinkContent {
                uri: link.uri.clone(),
                name: link.name.clone(),
                title: link.title.clone(),
                description: link.description.clone(),
                mime_type: link.mime_type.clone(),
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
                        uri: uri.clone(),
                        mime_type: mime_type.clone(),
                        text: text.clone(),
                    },
                    EmbeddedBody::Blob(blob) => model::ResourceContents::Blob {
                        uri: uri.clone(),
                        mime_type: mime_type.clone(),
                        blob: blob.clone(),
                    },
                },
                annotations,
                meta: None,
            }),
        }
    }
}
