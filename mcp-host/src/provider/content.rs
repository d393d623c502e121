//! The MCP content of a message the host writes, not the model (a prompt's
//! messages, a resource attached to a user line: [`crate::agent::turn`]),
//! as the pieces both APIs take in a user or assistant message: text, and
//! images where the role takes them. Everything else becomes text naming
//! what it was, with the notes tool results use ([`crate::call_result`]):
//! a text resource is its text under its URI, a binary one an image when
//! it is one the APIs take, else a note naming its URI, type and size.

use crate::call_result::{
    FROM_SERVER, audio_note_from, blob_note_from, image_note_from, link_text, sendable_image,
};
use mcpfn_protocol::model::{ContentBlock, ResourceContents};

/// One piece of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// Text.
    Text(String),
    /// An image the APIs take: its media type and standard base64.
    Image {
        /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
        media_type: &'static str,
        /// The bytes, base64.
        data: String,
    },
}

/// Why an image is a note in a message of the assistant.
const ASSISTANT_TEXT_ONLY: &str = "an assistant message carries text only";

/// The parts of `content` (`images`: the role takes images; the user's
/// does, the assistant's does not). Empty text is left out.
pub(crate) fn parts(content: &[ContentBlock], images: bool) -> Vec<Part> {
    let image = |declared: &str, data: &str| match sendable_image(declared, data) {
        Ok((media_type, data)) if images => Part::Image {
            media_type,
            data: data.into_owned(),
        },
        Ok(_) => Part::Text(image_note_from(
            FROM_SERVER,
            declared,
            data,
            ASSISTANT_TEXT_ONLY,
        )),
        Err(why) => Part::Text(image_note_from(FROM_SERVER, declared, data, why)),
    };
    content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) if t.text.is_empty() => None,
            ContentBlock::Text(t) => Some(Part::Text(t.text.clone())),
            ContentBlock::Image(i) => Some(image(&i.mime_type, &i.data)),
            ContentBlock::Resource(embedded) => Some(match &embedded.resource {
                ResourceContents::Text { uri, text, .. } => {
                    Part::Text(format!("Resource <{uri}>:\n{text}"))
                }
                ResourceContents::Blob {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => match mime_type.as_deref() {
                    Some(declared) if declared.starts_with("image/") => {
                        match image(declared, blob) {
                            Part::Text(_) => Part::Text(blob_note_from(
                                FROM_SERVER,
                                uri,
                                mime_type.as_deref(),
                                blob,
                            )),
                            sent => sent,
                        }
                    }
                    _ => Part::Text(blob_note_from(FROM_SERVER, uri, mime_type.as_deref(), blob)),
                },
            }),
            ContentBlock::Audio(audio) => Some(Part::Text(audio_note_from(FROM_SERVER, audio))),
            ContentBlock::ResourceLink(link) => Some(Part::Text(link_text(link))),
        })
        .collect()
}

/// The text of `parts`, images as the note `[image]` (for a message that
/// must be one string).
pub(crate) fn joined_text(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|part| match part {
            Part::Text(text) => text.as_str(),
            Part::Image { .. } => "[image]",
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpfn_protocol::content::Content;

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

    #[test]
    fn text_images_and_resources_become_parts_by_role() {
        let content = [
            Content::text("Look:"),
            Content::text(""),
            Content::image_base64(PNG, "image/png"),
            Content::embedded_text("file:///a.rs", "fn main() {}"),
            Content::embedded_blob_base64("file:///a.bin", "AAAA")
                .mime_type("application/octet-stream"),
            Content::embedded_blob_base64("file:///p.png", PNG).mime_type("image/png"),
        ];
        let user = parts(&content, true);
        assert_eq!(user[0], Part::Text("Look:".into()));
        assert_eq!(
            user[1],
            Part::Image {
                media_type: "image/png",
                data: PNG.into()
            }
        );
        assert_eq!(
            user[2],
            Part::Text("Resource <file:///a.rs>:\nfn main() {}".into())
        );
        assert!(
            matches!(&user[3], Part::Text(t) if t.contains("file:///a.bin")),
            "{:?}",
            user[3]
        );
        assert!(matches!(&user[4], Part::Image { .. }));
        assert_eq!(user.len(), 5);

        let assistant = parts(&content, false);
        assert!(
            matches!(&assistant[1], Part::Text(t) if t.contains(ASSISTANT_TEXT_ONLY)),
            "{:?}",
            assistant[1]
        );
        assert!(
            matches!(&assistant[4], Part::Text(t) if t.contains("file:///p.png")),
            "{:?}",
            assistant[4]
        );
        assert_eq!(joined_text(&user[..2]), "Look:\n[image]");
    }
}
