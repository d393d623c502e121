//! Content blocks: their data, and how a session of each revision reads
//! them (kinds a revision lacks become a text block saying what was left
//! out), and the builders of a block.

use super::ProtocolVersion;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;
use std::borrow::Cow;

/// One content block of a tool result, with optional annotations.
///
/// ```
/// use mcpfn_protocol::content::{Audience, Content};
/// let blocks = vec![
///     Content::text("Found 2 files"),
///     Content::resource_link("file:///src/main.rs", "main.rs").mime_type("text/x-rust"),
///     Content::embedded_text("file:///notes.md", "# Notes").audience(Audience::User).priority(0.3),
/// ];
/// assert_eq!(blocks.len(), 3);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Content {
    /// The block itself.
    pub block: Block,
    /// Who the block is for (`annotations.audience`); empty sends none.
    pub audience: Vec<Audience>,
    /// Importance, 0 to 1 (`annotations.priority`).
    pub priority: Option<f64>,
    /// When the content last changed, ISO 8601 (`annotations.lastModified`).
    pub last_modified: Option<String>,
}

/// Who a content block is meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    /// The human using the client.
    User,
    /// The model.
    Assistant,
}

/// What a block is, apart from its annotations.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// Plain text.
    Text(String),
    /// An image, base64.
    Image {
        /// The base64 data.
        data: String,
        /// Its MIME type.
        mime_type: String,
    },
    /// An audio clip, base64 (2025-03-26 on).
    Audio {
        /// The base64 data.
        data: String,
        /// Its MIME type.
        mime_type: String,
    },
    /// A link to a resource (2025-06-18 on).
    ResourceLink(Box<ResourceLink>),
    /// An embedded resource.
    Embedded {
        /// The resource's URI.
        uri: String,
        /// Its MIME type, if known.
        mime_type: Option<String>,
        /// Its text or base64 blob.
        body: EmbeddedBody,
    },
}

/// A `resource_link` block's fields.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A title for display.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its size in bytes.
    pub size: Option<u64>,
}

/// The body of an embedded resource.
#[derive(Clone, Debug, PartialEq)]
pub enum EmbeddedBody {
    /// `text`.
    Text(String),
    /// `blob`, base64.
    Blob(String),
}

/// Text is a text block (a prompt message's most common content).
impl From<String> for Content {
    fn from(text: String) -> Content {
        Content::text(text)
    }
}

/// Text is a text block.
impl From<&str> for Content {
    fn from(text: &str) -> Content {
        Content::text(text)
    }
}

impl Content {
    /// The block as a session of `version` reads it, ready to serialize.
    pub fn wire(&self, version: ProtocolVersion) -> ContentWire<'_> {
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

/// The server's rendering of a content block on the wire (keys in the
/// order they have always had): [`crate::model::ContentBlock`] is the
/// concept a client reads.
#[doc(hidden)]
#[derive(Debug, Serialize)]
pub struct ContentWire<'a> {
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

    /// An image block from the image's bytes, e.g. a PNG file's contents
    /// with `image/png`; the bytes are base64-encoded for the wire (a `&str`
    /// of base64 does not compile here: it goes to [`Content::image_base64`]).
    ///
    /// ```
    /// use mcpfn_protocol::content::Content;
    /// // The bytes of a file, of a buffer an image was rendered into, …
    /// let gif: Vec<u8> = b"GIF89a".to_vec();
    /// let image = Content::image(&gif, "image/gif");
    /// assert_eq!(image, Content::image_base64("R0lGODlh", "image/gif"));
    /// ```
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Content {
        Content::image_base64(STANDARD.encode(bytes), mime_type)
    }

    /// An image block from data that is already base64-encoded (standard
    /// alphabet, padded), sent as it is; [`Content::image`] takes bytes.
    pub fn image_base64(base64: impl Into<String>, mime_type: impl Into<String>) -> Content {
        Content::of(Block::Image {
            data: base64.into(),
            mime_type: mime_type.into(),
        })
    }

    /// An audio block from the clip's bytes, e.g. a WAV file's contents with
    /// `audio/wav`; the bytes are base64-encoded for the wire. Audio blocks
    /// exist from 2025-03-26; older sessions get a text block saying what
    /// was left out.
    ///
    /// ```
    /// use mcpfn_protocol::content::Content;
    /// let wav: &[u8] = b"RIFF\x24\0\0\0WAVE";
    /// assert_eq!(Content::audio(wav, "audio/wav"), Content::audio_base64("UklGRiQAAABXQVZF", "audio/wav"));
    /// ```
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Content {
        Content::audio_base64(STANDARD.encode(bytes), mime_type)
    }

    /// An audio block from data that is already base64-encoded (standard
    /// alphabet, padded), sent as it is; [`Content::audio`] takes bytes.
    pub fn audio_base64(base64: impl Into<String>, mime_type: impl Into<String>) -> Content {
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

    /// A resource embedded as binary data, from its bytes (base64-encoded
    /// for the wire); set its type with [`Content::mime_type`].
    pub fn embedded_blob(uri: impl Into<String>, bytes: &[u8]) -> Content {
        Content::embedded_blob_base64(uri, STANDARD.encode(bytes))
    }

    /// A resource embedded as binary data that is already base64-encoded
    /// (standard alphabet, padded), sent as it is.
    pub fn embedded_blob_base64(uri: impl Into<String>, base64: impl Into<String>) -> Content {
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
