//! Content blocks: their data, and how a session of each revision reads
//! them (kinds a revision lacks become a text block saying what was left
//! out). The builders are in `crate::content`.

use super::ProtocolVersion;
use serde::Serialize;
use std::borrow::Cow;

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
    pub(crate) block: Block,
    pub(crate) audience: Vec<Audience>,
    pub(crate) priority: Option<f64>,
    pub(crate) last_modified: Option<String>,
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
pub(crate) enum Block {
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
pub(crate) struct ResourceLink {
    pub(crate) uri: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) size: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum EmbeddedBody {
    Text(String),
    Blob(String),
}

impl Content {
    /// The block as a session of `version` reads it, ready to serialize.
    pub(crate) fn wire(&self, version: ProtocolVersion) -> ContentWire<'_> {
        let carries = version.carries();
        let body = match &self.block {
            Block::Text(text) => BodyWire::text(Cow::Borrowed(text)),
            Block::Image { data, mime_type } => BodyWire::Media {
                data,
                mime_type,
                kind: "image",
            },
            Block::Audio { data, mime_type } if carries.audio => BodyWire::Media {
                data,
                mime_type,
                kind: "audio",
            },
            Block::Audio { data, mime_type } => BodyWire::text(Cow::Owned(format!(
                "[{mime_type} audio of {} base64 bytes omitted: this protocol version cannot carry audio]",
                data.len()
            ))),
            Block::ResourceLink(link) if carries.resource_links => BodyWire::ResourceLink {
                description: link.description.as_deref(),
                mime_type: link.mime_type.as_deref(),
                name: &link.name,
                size: link.size,
                title: link.title.as_deref(),
                kind: "resource_link",
                uri: &link.uri,
            },
            Block::ResourceLink(link) => BodyWire::text(Cow::Owned(format!(
                "[resource {}: {}]",
                link.name, link.uri
            ))),
            Block::Embedded {
                uri,
                mime_type,
                body,
            } => {
                let (blob, text) = match body {
                    EmbeddedBody::Text(text) => (None, Some(text.as_str())),
                    EmbeddedBody::Blob(blob) => (Some(blob.as_str()), None),
                };
                BodyWire::Resource {
                    resource: EmbeddedWire {
                        blob,
                        mime_type: mime_type.as_deref(),
                        text,
                        uri,
                    },
                    kind: "resource",
                }
            }
        };
        let annotations = AnnotationsWire {
            audience: self
                .audience
                .iter()
                .map(|a| match a {
                    Audience::User => "user",
                    Audience::Assistant => "assistant",
                })
                .collect(),
            last_modified: self
                .last_modified
                .as_deref()
                .filter(|_| carries.last_modified),
            priority: self.priority,
        };
        let empty = annotations.audience.is_empty()
            && annotations.last_modified.is_none()
            && annotations.priority.is_none();
        ContentWire {
            annotations: (!empty).then_some(annotations),
            body,
        }
    }
}

/// A content block on the wire (keys in the order they have always had).
#[derive(Debug, Serialize)]
pub(crate) struct ContentWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<AnnotationsWire<'a>>,
    #[serde(flatten)]
    body: BodyWire<'a>,
}

#[derive(Debug, Serialize)]
struct AnnotationsWire<'a> {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    audience: Vec<&'static str>,
    #[serde(rename = "lastModified", skip_serializing_if = "Option::is_none")]
    last_modified: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    priority: Option<f64>,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
enum BodyWire<'a> {
    Text {
        text: Cow<'a, str>,
        #[serde(rename = "type")]
        kind: &'static str,
    },
    Media {
        data: &'a str,
        #[serde(rename = "mimeType")]
        mime_type: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
    },
    ResourceLink {
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<&'a str>,
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<&'a str>,
        name: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<&'a str>,
        #[serde(rename = "type")]
        kind: &'static str,
        uri: &'a str,
    },
    Resource {
        resource: EmbeddedWire<'a>,
        #[serde(rename = "type")]
        kind: &'static str,
    },
}

impl<'a> BodyWire<'a> {
    fn text(text: Cow<'a, str>) -> Self {
        BodyWire::Text { text, kind: "text" }
    }
}

#[derive(Debug, Serialize)]
struct EmbeddedWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    blob: Option<&'a str>,
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    mime_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    uri: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn render(content: &Content, version: ProtocolVersion) -> Value {
        serde_json::to_value(content.wire(version)).unwrap()
    }

    fn text(content: &Content, version: ProtocolVersion) -> String {
        serde_json::to_string(&content.wire(version)).unwrap()
    }

    #[test]
    fn blocks_degrade_for_old_versions() {
        let link = Content::resource_link("file:///a.rs", "a.rs").mime_type("text/x-rust");
        assert_eq!(
            text(&link, ProtocolVersion::V2025_06_18),
            r#"{"mimeType":"text/x-rust","name":"a.rs","type":"resource_link","uri":"file:///a.rs"}"#
        );
        assert_eq!(
            render(&link, ProtocolVersion::V2025_03_26),
            json!({"type": "text", "text": "[resource a.rs: file:///a.rs]"})
        );
        let audio = Content::audio(&[0, 0, 0], "audio/wav");
        assert_eq!(
            render(&audio, ProtocolVersion::V2025_03_26)["type"],
            "audio"
        );
        assert_eq!(render(&audio, ProtocolVersion::V2024_11_05)["type"], "text");
        let note = Content::text("x")
            .last_modified("2026-01-01T00:00:00Z")
            .priority(2.0);
        assert_eq!(
            text(&note, ProtocolVersion::V2025_03_26),
            r#"{"annotations":{"priority":1.0},"text":"x","type":"text"}"#
        );
        assert_eq!(
            render(&note, ProtocolVersion::LATEST)["annotations"],
            json!({"priority": 1.0, "lastModified": "2026-01-01T00:00:00Z"})
        );
        let embedded =
            Content::embedded_blob("mem://x", &[1, 2, 3]).mime_type("application/octet-stream");
        assert_eq!(
            text(&embedded, ProtocolVersion::V2024_11_05),
            r#"{"resource":{"blob":"AQID","mimeType":"application/octet-stream","uri":"mem://x"},"type":"resource"}"#
        );
    }
}
