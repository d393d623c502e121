//! Content blocks a tool can return, and the conversion of plain return values
//! into them.

use crate::protocol::ProtocolVersion;
use serde_json::{Map, Value, json};

/// One content block of a tool result.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 of the image bytes.
        data: String,
        /// e.g. `image/png`.
        mime_type: String,
    },
    /// Audio, base64-encoded (2025-03-26 and later; older sessions get a text note).
    Audio {
        /// Base64 of the audio bytes.
        data: String,
        /// e.g. `audio/wav`.
        mime_type: String,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Content {
        Content::Text { text: text.into() }
    }

    /// An image block from base64 data.
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Content {
        Content::Image {
            data: base64.into(),
            mime_type: mime_type.into(),
        }
    }

    /// An audio block from base64 data.
    pub fn audio(base64: impl Into<String>, mime_type: impl Into<String>) -> Content {
        Content::Audio {
            data: base64.into(),
            mime_type: mime_type.into(),
        }
    }

    /// The block as a session of `version` can read it: kinds the revision
    /// lacks become a text block saying what was left out.
    pub(crate) fn to_json(&self, version: ProtocolVersion) -> Value {
        match self {
            Content::Text { text } => json!({"type": "text", "text": text}),
            Content::Image { data, mime_type } => {
                json!({"type": "image", "data": data, "mimeType": mime_type})
            }
            Content::Audio { data, mime_type } if version >= ProtocolVersion::V2025_03_26 => {
                json!({"type": "audio", "data": data, "mimeType": mime_type})
            }
            Content::Audio { data, mime_type } => {
                let mut map = Map::new();
                map.insert("type".into(), "text".into());
                map.insert(
                    "text".into(),
                    format!(
                        "[{mime_type} audio of {} base64 bytes omitted: this protocol version cannot carry audio]",
                        data.len()
                    )
                    .into(),
                );
                Value::Object(map)
            }
        }
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
