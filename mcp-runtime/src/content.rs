//! Content blocks a tool can return, and the conversion of plain return values
//! into them.

use crate::protocol::ProtocolVersion;
use serde_json::{Map, Value, json};

/// One content block of a tool result, with optional annotations.
///
/// ```
/// use mcp_runtime::{Audience, Content};
/// let blocks = vec![
///     Content::text("Found 2 files"),
///     Content::resource_link("file:///src/main.rs", "main.rs").mime_type("text/x-rust"),
///     Content::embedded_text("file:///notes.md", "# Notes").audience(Audience::User).priority(0.3),
/// ];
/// assert_eq!(blocks.len(), 3);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Content {
    block: Block,
    audience: Vec<Audience>,
    priority: Option<f64>,
    last_modified: Option<String>,
}

/// Who a content block is meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    /// The human using the client.
    User,
    /// The model.
    Assistant,
}

#[derive(Clone, Debug, PartialEq)]
enum Block {
    Text(String),
    Image {
        data: String,
        mime_type: String,
    },
    Audio {
        data: String,
        mime_type: String,
    },
    ResourceLink(Box<ResourceLink>),
    Embedded {
        uri: String,
        mime_type: Option<String>,
        body: EmbeddedBody,
    },
}

#[derive(Clone, Debug, PartialEq)]
struct ResourceLink {
    uri: String,
    name: String,
    title: Option<String>,
    description: Option<String>,
    mime_type: Option<String>,
    size: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
enum EmbeddedBody {
    Text(String),
    Blob(String),
}

impl Content {
    fn of(block: Block) -> Content {
        Content {
            block,
            audience: Vec::new(),
            priority: None,
            last_modified: None,
        }
    }

    /// A text block.
    pub fn text(text: impl Into<String>) -> Content {
        Content::of(Block::Text(text.into()))
    }

    /// An image block from base64 data, e.g. `image/png`.
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Content {
        Content::of(Block::Image {
            data: base64.into(),
            mime_type: mime_type.into(),
        })
    }

    /// An audio block from base64 data, e.g. `audio/wav` (2025-03-26 and later;
    /// older sessions get a text block saying what was left out).
    pub fn audio(base64: impl Into<String>, mime_type: impl Into<String>) -> Content {
        Content::of(Block::Audio {
            data: base64.into(),
            mime_type: mime_type.into(),
        })
    }

    /// A link to a resource the client can fetch (2025-06-18 and later; older
    /// sessions get a text block with the URI).
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Content {
        Content::of(Block::ResourceLink(Box::new(ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
        })))
    }

    /// A resource embedded as text.
    pub fn embedded_text(uri: impl Into<String>, text: impl Into<String>) -> Content {
        Content::of(Block::Embedded {
            uri: uri.into(),
            mime_type: None,
            body: EmbeddedBody::Text(text.into()),
        })
    }

    /// A resource embedded as base64 binary data.
    pub fn embedded_blob(uri: impl Into<String>, base64: impl Into<String>) -> Content {
        Content::of(Block::Embedded {
            uri: uri.into(),
            mime_type: None,
            body: EmbeddedBody::Blob(base64.into()),
        })
    }

    /// Sets the MIME type of a resource link or embedded resource.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Content {
        match &mut self.block {
            Block::ResourceLink(link) => link.mime_type = Some(mime_type.into()),
            Block::Embedded { mime_type: m, .. } => *m = Some(mime_type.into()),
            Block::Image { mime_type: m, .. } | Block::Audio { mime_type: m, .. } => {
                *m = mime_type.into()
            }
            Block::Text(_) => {}
        }
        self
    }

    /// Sets a resource link's title, description and size in bytes.
    pub fn link_details(
        mut self,
        title: Option<&str>,
        description: Option<&str>,
        size: Option<u64>,
    ) -> Content {
        if let Block::ResourceLink(link) = &mut self.block {
            link.title = title.map(str::to_owned);
            link.description = description.map(str::to_owned);
            link.size = size;
        }
        self
    }

    /// Adds an intended audience (annotation).
    pub fn audience(mut self, audience: Audience) -> Content {
        if !self.audience.contains(&audience) {
            self.audience.push(audience);
        }
        self
    }

    /// Sets the importance, 0 (optional) to 1 (required), clamped (annotation).
    pub fn priority(mut self, priority: f64) -> Content {
        self.priority = Some(priority.clamp(0.0, 1.0));
        self
    }

    /// Sets when the content last changed, an ISO 8601 timestamp (annotation;
    /// sent from 2025-06-18).
    pub fn last_modified(mut self, timestamp: impl Into<String>) -> Content {
        self.last_modified = Some(timestamp.into());
        self
    }

    /// The block as a session of `version` can read it: kinds the revision
    /// lacks become a text block saying what was left out.
    pub(crate) fn to_json(&self, version: ProtocolVersion) -> Value {
        let mut block = match &self.block {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::Image { data, mime_type } => {
                json!({"type": "image", "data": data, "mimeType": mime_type})
            }
            Block::Audio { data, mime_type } if version >= ProtocolVersion::V2025_03_26 => {
                json!({"type": "audio", "data": data, "mimeType": mime_type})
            }
            Block::Audio { data, mime_type } => json!({"type": "text", "text": format!(
                "[{mime_type} audio of {} base64 bytes omitted: this protocol version cannot carry audio]",
                data.len()
            )}),
            Block::ResourceLink(link) if version >= ProtocolVersion::V2025_06_18 => {
                let mut map = Map::new();
                map.insert("type".into(), "resource_link".into());
                map.insert("uri".into(), link.uri.clone().into());
                map.insert("name".into(), link.name.clone().into());
                for (key, value) in [
                    ("title", &link.title),
                    ("description", &link.description),
                    ("mimeType", &link.mime_type),
                ] {
                    if let Some(value) = value {
                        map.insert(key.into(), value.clone().into());
                    }
                }
                if let Some(size) = link.size {
                    map.insert("size".into(), size.into());
                }
                Value::Object(map)
            }
            Block::ResourceLink(link) => {
                json!({"type": "text", "text": format!("[resource {}: {}]", link.name, link.uri)})
            }
            Block::Embedded {
                uri,
                mime_type,
                body,
            } => {
                let mut resource = Map::new();
                resource.insert("uri".into(), uri.clone().into());
                if let Some(mime_type) = mime_type {
                    resource.insert("mimeType".into(), mime_type.clone().into());
                }
                match body {
                    EmbeddedBody::Text(text) => resource.insert("text".into(), text.clone().into()),
                    EmbeddedBody::Blob(blob) => resource.insert("blob".into(), blob.clone().into()),
                };
                json!({"type": "resource", "resource": resource})
            }
        };
        if let Some(annotations) = self.annotations(version) {
            block["annotations"] = annotations;
        }
        block
    }

    fn annotations(&self, version: ProtocolVersion) -> Option<Value> {
        let mut map = Map::new();
        if !self.audience.is_empty() {
            let audience: Vec<&str> = self
                .audience
                .iter()
                .map(|a| match a {
                    Audience::User => "user",
                    Audience::Assistant => "assistant",
                })
                .collect();
            map.insert("audience".into(), audience.into());
        }
        if let Some(priority) = self.priority {
            map.insert("priority".into(), priority.into());
        }
        if version >= ProtocolVersion::V2025_06_18
            && let Some(timestamp) = &self.last_modified
        {
            map.insert("lastModified".into(), timestamp.clone().into());
        }
        (!map.is_empty()).then_some(Value::Object(map))
    }
}

/// Return values a tool renders as content blocks rather than structured output.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool] as content",
    label = "return a String, (), Content, Vec<Content>, or a type implementing Serialize + JsonSchema"
)]
pub trait IntoContent {
    /// The blocks.
    fn into_content(self) -> Vec<Content>;
}

impl IntoContent for String {
    fn into_content(self) -> Vec<Content> {
        vec![Content::text(self)]
    }
}

impl IntoContent for &str {
    fn into_content(self) -> Vec<Content> {
        vec![Content::text(self)]
    }
}

impl IntoContent for () {
    fn into_content(self) -> Vec<Content> {
        Vec::new()
    }
}

impl IntoContent for Content {
    fn into_content(self) -> Vec<Content> {
        vec![self]
    }
}

impl IntoContent for Vec<Content> {
    fn into_content(self) -> Vec<Content> {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_degrade_for_old_versions() {
        let link = Content::resource_link("file:///a.rs", "a.rs").mime_type("text/x-rust");
        assert_eq!(
            link.to_json(ProtocolVersion::V2025_06_18),
            json!({"type": "resource_link", "uri": "file:///a.rs", "name": "a.rs", "mimeType": "text/x-rust"})
        );
        assert_eq!(
            link.to_json(ProtocolVersion::V2025_03_26),
            json!({"type": "text", "text": "[resource a.rs: file:///a.rs]"})
        );
        let audio = Content::audio("AAAA", "audio/wav");
        assert_eq!(audio.to_json(ProtocolVersion::V2025_03_26)["type"], "audio");
        assert_eq!(audio.to_json(ProtocolVersion::V2024_11_05)["type"], "text");
        let note = Content::text("x")
            .last_modified("2026-01-01T00:00:00Z")
            .priority(2.0);
        assert_eq!(
            note.to_json(ProtocolVersion::V2025_03_26)["annotations"],
            json!({"priority": 1.0})
        );
        assert_eq!(
            note.to_json(ProtocolVersion::LATEST)["annotations"],
            json!({"priority": 1.0, "lastModified": "2026-01-01T00:00:00Z"})
        );
        let embedded =
            Content::embedded_blob("mem://x", "AQID").mime_type("application/octet-stream");
        assert_eq!(
            embedded.to_json(ProtocolVersion::V2024_11_05),
            json!({"type": "resource", "resource": {"uri": "mem://x", "mimeType": "application/octet-stream", "blob": "AQID"}})
        );
    }
}
