//! Content blocks a tool can return: building them, and the conversion of
//! plain return values into them. (The blocks' data and how each revision
//! reads them are in [`crate::protocol::content`].)

pub use crate::protocol::content::{Audience, Content};
use crate::protocol::content::{Block, EmbeddedBody, ResourceLink};

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
