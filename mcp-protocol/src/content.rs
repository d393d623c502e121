//! Content blocks as a server's tools and prompts make them: the builders
//! of the model's one content type ([`ContentBlock`], here also named
//! [`Content`]), and how a session of each revision reads a block (kinds a
//! revision lacks become a text block saying what was left out).

use super::ProtocolVersion;
use crate::model::{
    AudioContent, BlockAnnotations, ContentBlock, EmbeddedResource, ImageContent, JsonObject,
    ResourceContents, ResourceLinkContent, TextContent,
};
use crate::sampling::Role;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;
use std::borrow::Cow;

/// One content block of a tool result or a prompt message, with optional
/// annotations: the model's [`ContentBlock`], by the name a server's code
/// knows it by.
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
pub type Content = ContentBlock;

/// Who a content block is meant for (`annotations.audience`): the model's
/// [`Role`].
pub type Audience = Role;

/// Text is a text block (a prompt message's most common content).
impl From<String> for ContentBlock {
    fn from(text: String) -> ContentBlock {
        ContentBlock::text(text)
    }
}

/// Text is a text block.
impl From<&str> for ContentBlock {
    fn from(text: &str) -> ContentBlock {
        ContentBlock::text(text)
    }
}

impl ContentBlock {
    /// The block's annotations and `_meta`, whatever its kind.
    fn extras(&self) -> (Option<&BlockAnnotations>, Option<&JsonObject>) {
        match self {
            ContentBlock::Text(b) => (b.annotations.as_ref(), b.meta.as_ref()),
            ContentBlock::Image(b) => (b.annotations.as_ref(), b.meta.as_ref()),
            ContentBlock::Audio(b) => (b.annotations.as_ref(), b.meta.as_ref()),
            ContentBlock::ResourceLink(b) => (b.annotations.as_ref(), b.meta.as_ref()),
            ContentBlock::Resource(b) => (b.annotations.as_ref(), b.meta.as_ref()),
        }
    }

    /// The block's annotations, made empty if it had none.
    fn annotations_mut(&mut self) -> &mut BlockAnnotations {
        let annotations = match self {
            ContentBlock::Text(b) => &mut b.annotations,
            ContentBlock::Image(b) => &mut b.annotations,
            ContentBlock::Audio(b) => &mut b.annotations,
            ContentBlock::ResourceLink(b) => &mut b.annotations,
            ContentBlock::Resource(b) => &mut b.annotations,
        };
        annotations.get_or_insert_with(BlockAnnotations::default)
    }

    /// The block as a session of `version` reads it, ready to serialize.
    pub fn wire(&self, version: ProtocolVersion) -> ContentWire<'_> {
        let carries = version.carries();
        let body = match self {
            ContentBlock::Text(block) => BodyWire::text(Cow::Borrowed(&block.text)),
            ContentBlock::Image(block) => BodyWire::Media {
                data: &block.data,
                mime_type: &block.mime_type,
                kind: "image",
            },
            ContentBlock::Audio(block) if carries.audio => BodyWire::Media {
                data: &block.data,
                mime_type: &block.mime_type,
                kind: "audio",
            },
            ContentBlock::Audio(block) => BodyWire::text(Cow::Owned(format!(
                "[{} audio of {} base64 bytes omitted: this protocol version cannot carry audio]",
                block.mime_type,
                block.data.len()
            ))),
            ContentBlock::ResourceLink(link) if carries.resource_links => BodyWire::ResourceLink {
                description: link.description.as_deref(),
                mime_type: link.mime_type.as_deref(),
                name: &link.name,
                size: link.size,
                title: link.title.as_deref(),
                kind: "resource_link",
                uri: &link.uri,
            },
            ContentBlock::ResourceLink(link) => BodyWire::text(Cow::Owned(format!(
                "[resource {}: {}]",
                link.name, link.uri
            ))),
            ContentBlock::Resource(embedded) => {
                let (uri, mime_type, blob, text) = match &embedded.resource {
                    ResourceContents::Text {
                        uri,
                        mime_type,
                        text,
                        ..
                    } => (uri, mime_type, None, Some(text.as_str())),
                    ResourceContents::Blob {
                        uri,
                        mime_type,
                        blob,
                        ..
                    } => (uri, mime_type, Some(blob.as_str()), None),
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
        let (annotations, meta) = self.extras();
        let annotations = annotations
            .map(|annotations| AnnotationsWire {
                audience: annotations
                    .audience
                    .iter()
                    .map(|role| match role {
                        Role::User => "user",
                        Role::Assistant => "assistant",
                    })
                    .collect(),
                last_modified: annotations
                    .last_modified
                    .as_deref()
                    .filter(|_| carries.last_modified),
                priority: annotations.priority,
            })
            .filter(|annotations| {
                !annotations.audience.is_empty()
                    || annotations.last_modified.is_some()
                    || annotations.priority.is_some()
            });
        ContentWire {
            annotations,
            body,
            meta: meta.filter(|_| carries.structured_output),
        }
    }
}

/// The server's rendering of a content block on the wire (keys in the
/// order they have always had, a block's `_meta` from 2025-06-18).
#[doc(hidden)]
#[derive(Debug, Serialize)]
pub struct ContentWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<AnnotationsWire<'a>>,
    #[serde(flatten)]
    body: BodyWire<'a>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a JsonObject>,
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

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> ContentBlock {
        ContentBlock::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
        })
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
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> ContentBlock {
        ContentBlock::image_base64(STANDARD.encode(bytes), mime_type)
    }

    /// An image block from data that is already base64-encoded (standard
    /// alphabet, padded), sent as it is; [`Content::image`] takes bytes.
    pub fn image_base64(base64: impl Into<String>, mime_type: impl Into<String>) -> ContentBlock {
        ContentBlock::Image(ImageContent {
            data: base64.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
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
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> ContentBlock {
        ContentBlock::audio_base64(STANDARD.encode(bytes), mime_type)
    }

    /// An audio block from data that is already base64-encoded (standard
    /// alphabet, padded), sent as it is; [`Content::audio`] takes bytes.
    pub fn audio_base64(base64: impl Into<String>, mime_type: impl Into<String>) -> ContentBlock {
        ContentBlock::Audio(AudioContent {
            data: base64.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// A link to a resource the client can fetch (2025-06-18 and later; older
    /// sessions get a text block with the URI).
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> ContentBlock {
        ContentBlock::ResourceLink(ResourceLinkContent {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            meta: None,
        })
    }

    /// A resource embedded as text.
    pub fn embedded_text(uri: impl Into<String>, text: impl Into<String>) -> ContentBlock {
        ContentBlock::embedded(ResourceContents::Text {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
            meta: None,
        })
    }

    /// A resource embedded as binary data, from its bytes (base64-encoded
    /// for the wire); set its type with [`Content::mime_type`].
    pub fn embedded_blob(uri: impl Into<String>, bytes: &[u8]) -> ContentBlock {
        ContentBlock::embedded_blob_base64(uri, STANDARD.encode(bytes))
    }

    /// A resource embedded as binary data that is already base64-encoded
    /// (standard alphabet, padded), sent as it is.
    pub fn embedded_blob_base64(uri: impl Into<String>, base64: impl Into<String>) -> ContentBlock {
        ContentBlock::embedded(ResourceContents::Blob {
            uri: uri.into(),
            mime_type: None,
            blob: base64.into(),
            meta: None,
        })
    }

    /// `resource` embedded.
    fn embedded(resource: ResourceContents) -> ContentBlock {
        ContentBlock::Resource(EmbeddedResource {
            resource,
            annotations: None,
            meta: None,
        })
    }

    /// Sets the MIME type of a resource link, an embedded resource, an
    /// image or an audio clip (a text block has none).
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> ContentBlock {
        match &mut self {
            ContentBlock::ResourceLink(link) => link.mime_type = Some(mime_type.into()),
            ContentBlock::Resource(EmbeddedResource {
                resource:
                    ResourceContents::Text { mime_type: m, .. }
                    | ResourceContents::Blob { mime_type: m, .. },
                ..
            }) => *m = Some(mime_type.into()),
            ContentBlock::Image(ImageContent { mime_type: m, .. })
            | ContentBlock::Audio(AudioContent { mime_type: m, .. }) => *m = mime_type.into(),
            ContentBlock::Text(_) => {}
        }
        self
    }

    /// Sets a resource link's title, description and size in bytes.
    pub fn link_details(
        mut self,
        title: Option<&str>,
        description: Option<&str>,
        size: Option<u64>,
    ) -> ContentBlock {
        if let ContentBlock::ResourceLink(link) = &mut self {
            link.title = title.map(str::to_owned);
            link.description = description.map(str::to_owned);
            link.size = size;
        }
        self
    }

    /// Adds an intended audience (annotation).
    pub fn audience(mut self, audience: Audience) -> ContentBlock {
        let annotations = self.annotations_mut();
        if !annotations.audience.contains(&audience) {
            annotations.audience.push(audience);
        }
        self
    }

    /// Sets the importance, 0 (optional) to 1 (required), clamped (annotation).
    pub fn priority(mut self, priority: f64) -> ContentBlock {
        self.annotations_mut().priority = Some(priority.clamp(0.0, 1.0));
        self
    }

    /// Sets when the content last changed, an ISO 8601 timestamp (annotation;
    /// sent from 2025-06-18).
    pub fn last_modified(mut self, timestamp: impl Into<String>) -> ContentBlock {
        self.annotations_mut().last_modified = Some(timestamp.into());
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

    #[test]
    fn a_blocks_meta_is_sent_from_2025_06_18() {
        let mut block = Content::text("x").audience(Audience::User);
        if let ContentBlock::Text(text) = &mut block {
            text.meta = Some(serde_json::Map::from_iter([("k".to_owned(), json!(1))]));
        }
        assert_eq!(
            text(&block, ProtocolVersion::V2025_06_18),
            r#"{"annotations":{"audience":["user"]},"text":"x","type":"text","_meta":{"k":1}}"#
        );
        assert_eq!(
            text(&block, ProtocolVersion::V2025_03_26),
            r#"{"annotations":{"audience":["user"]},"text":"x","type":"text"}"#
        );
        // Annotations emptied of what a revision carries are left out.
        let dated = Content::text("y").last_modified("2026-01-01T00:00:00Z");
        assert_eq!(
            text(&dated, ProtocolVersion::V2025_03_26),
            r#"{"text":"y","type":"text"}"#
        );
    }
}
