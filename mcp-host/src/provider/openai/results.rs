//! The results of tool calls: a `role: tool` message each, text only,
//! and the images of a turn in one `role: user` message after them.

use crate::call_result::{
    audio_note, blob_note, fallback_text, image_note, link_text, sendable_image,
};
use mcpfn_protocol::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Value, json};

/// One call's result in OpenAI's shape: the `role: tool` message, and the
/// images that must travel in a `role: user` message after the turn's tool
/// messages.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput {
    /// `{"role":"tool","tool_call_id","content":<text>}`.
    pub message: Value,
    /// `{"type":"image_url","image_url":{"url":"data:…"}}` parts, in the
    /// order the result gave them.
    pub images: Vec<Value>,
}

/// The `role: tool` message answering the tool call `tool_call_id`, and its
/// images (see the module docs of [`super`]). `first_image` numbers the
/// images (the notes say "image 3"), so that a turn's images have distinct
/// numbers.
pub fn tool_message(tool_call_id: &str, result: &CallToolResult, first_image: usize) -> ToolOutput {
    tool_output(tool_call_id, result, Some(first_image))
}

/// The `role: tool` message answering the tool call `tool_call_id`, text
/// only: each image is a note saying what it was (a tool message carries
/// text only), for a caller that cannot send a user message after the tool
/// messages.
pub fn tool_text_message(tool_call_id: &str, result: &CallToolResult) -> Value {
    tool_output(tool_call_id, result, None).message
}

/// [`tool_message`] when `first_image` is `Some`; images as notes
/// only when `None`.
fn tool_output(
    tool_call_id: &str,
    result: &CallToolResult,
    first_image: Option<usize>,
) -> ToolOutput {
    let mut parts: Vec<String> = Vec::new();
    let mut images = Vec::new();
    if let Some(fallback) = fallback_text(result) {
        parts.push(fallback);
    }
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => parts.push(t.text.clone()),
            ContentBlock::Image(image) => match sendable_image(&image.mime_type, &image.data) {
                Ok(_) if first_image.is_none() => parts.push(image_note(
                    &image.mime_type,
                    &image.data,
                    "a tool message carries text only",
                )),
                Ok((media_type, data)) => {
                    let first_image = first_image.unwrap_or(1);
                    let number = first_image + images.len();
                    parts.push(format!(
                        "[Image {number} ({media_type}) is in the user message after the tool results.]"
                    ));
                    images.push(json!({
                        "type": "image_url",
                        "image_url": {"url": format!("data:{media_type};base64,{data}")},
                    }));
                }
                Err(why) => parts.push(image_note(&image.mime_type, &image.data, why)),
            },
            ContentBlock::Resource(embedded) => parts.push(match &embedded.resource {
                ResourceContents::Text { uri, text, .. } => format!("Resource <{uri}>:\n{text}"),
                ResourceContents::Blob {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => blob_note(uri, mime_type.as_deref(), blob),
            }),
            ContentBlock::Audio(audio) => parts.push(audio_note(audio)),
            ContentBlock::ResourceLink(link) => parts.push(link_text(link)),
        }
    }
    let mut content = parts.join("\n");
    if result.is_error {
        content.insert_str(0, "Error: ");
    }
    ToolOutput {
        message: json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}),
        images,
    }
}

/// One turn's results in OpenAI's shape, `(tool_call_id, result)` in the
/// order of the assistant's `tool_calls`: a `role: tool` message each, then
/// one `role: user` message with every image, if there are any, each after
/// a text part naming its number and the call it came from (`Image 2, from
/// tool call call_abc:`), the number its tool message's note gives.
pub fn tool_messages<'a>(
    results: impl IntoIterator<Item = (&'a str, &'a CallToolResult)>,
) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut content = Vec::new();
    let mut count = 0;
    for (id, result) in results {
        let output = tool_message(id, result, count + 1);
        messages.push(output.message);
        for image in output.images {
            count += 1;
            content.push(json!({
                "type": "text",
                "text": format!("Image {count}, from tool call {id}:"),
            }));
            content.push(image);
        }
    }
    if !content.is_empty() {
        content.insert(
            0,
            json!({
                "type": "text",
                "text": "The images returned by the tool calls above, in order:",
            }),
        );
        messages.push(json!({"role": "user", "content": content}));
    }
    messages
}
