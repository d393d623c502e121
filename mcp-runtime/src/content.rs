//! Content blocks a tool can return: building them, and the conversion of
//! plain return values into them. (The blocks' data and how each revision
//! reads them are in [`crate::protocol::content`].)

pub use crate::protocol::content::{Audience, Content};
use crate::protocol::content::{Block, EmbeddedBody, ResourceLink};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

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
    /// use mcp_runtime::Content;
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
    /// use mcp_runtime::Content;
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
