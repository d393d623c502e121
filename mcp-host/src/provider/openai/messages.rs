//! The messages the host writes itself (a prompt's messages, a user line
//! with resources attached), from MCP content
//! ([`crate::provider::content`]): a user message of text is a string,
//! one with images an array of `text` and `image_url` parts; an
//! assistant message is text only.

use crate::provider::content::{Part, joined_text, parts};
use mcpfn_protocol::model::{ContentBlock, Role};
use serde_json::{Value, json};

/// The message of `role` saying `content`.
pub fn content_message(role: Role, content: &[ContentBlock]) -> Value {
    let parts = parts(content, role == Role::User);
    let images = parts.iter().any(|p| matches!(p, Part::Image { .. }));
    match role {
        Role::User if images => {
            let parts: Vec<Value> = parts
                .into_iter()
                .map(|part| match part {
                    Part::Text(text) => json!({"type": "text", "text": text}),
                    Part::Image { media_type, data } => json!({
                        "type": "image_url",
                        "image_url": {"url": format!("data:{media_type};base64,{data}")},
                    }),
                })
                .collect();
            json!({"role": "user", "content": parts})
        }
        Role::User => json!({"role": "user", "content": joined_text(&parts)}),
        Role::Assistant => json!({"role": "assistant", "content": joined_text(&parts)}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpfn_protocol::content::Content;

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

    #[test]
    fn text_is_a_string_and_images_make_parts_for_the_user_only() {
        let text = [
            Content::text("Review:"),
            Content::embedded_text("file:///a.rs", "fn main() {}"),
        ];
        assert_eq!(
            content_message(Role::User, &text),
            json!({"role": "user", "content": "Review:\nResource <file:///a.rs>:\nfn main() {}"})
        );
        let image = [
            Content::text("Look:"),
            Content::image_base64(PNG, "image/png"),
        ];
        assert_eq!(
            content_message(Role::User, &image),
            json!({"role": "user", "content": [
                {"type": "text", "text": "Look:"},
                {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}}
            ]})
        );
        let said = content_message(Role::Assistant, &image);
        assert_eq!(said["role"], "assistant");
        assert!(
            said["content"]
                .as_str()
                .unwrap()
                .starts_with("Look:\n[The server sent an image (image/png, 70 bytes)"),
            "{said}"
        );
    }
}
