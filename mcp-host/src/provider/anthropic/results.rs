//! The results of tool calls: one `tool_result` block per call, all of a
//! response's in one `role: user` message (the table in the module docs
//! of [`super`]).

use crate::call_result::{
    audio_note, blob_note, canonical_base64, fallback_text, image_note, link_text,
    normalized_media_type, sendable_image,
};
use mcpfn_protocol::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Map, Value, json};

/// The `content` of a Claude `tool_result` for `result`: a plain string for
/// a single text, else an array of blocks; `None` when there is nothing to
/// send (a successful call with no output).
pub(crate) fn tool_result_content(result: &CallToolResult) -> Option<Value> {
    let text = |text: String| json!({"type": "text", "text": text});
    let mut blocks = Vec::new();
    if let Some(fallback) = fallback_text(result) {
        blocks.push(text(fallback));
    }
    for block in &result.content {
        match block {
            // The API refuses empty text blocks inside an array.
            ContentBlock::Text(t) if t.text.is_empty() => {}
            ContentBlock::Text(t) => blocks.push(text(t.text.clone())),
            ContentBlock::Image(image) => {
                blocks.push(match sendable_image(&image.mime_type, &image.data) {
                    Ok((media_type, data)) => image_block(media_type, &data),
                    Err(why) => text(image_note(&image.mime_type, &image.data, why)),
                });
            }
            ContentBlock::Resource(embedded) => blocks.push(match &embedded.resource {
                // The API refuses an empty document.
                ResourceContents::Text { uri, text: body, .. } if body.is_empty() => {
                    text(format!("[The tool returned the resource <{uri}>, which is empty.]"))
                }
                ResourceContents::Text { uri, text, .. } => json!({
                    "type": "document",
                    "source": {"type": "text", "media_type": "text/plain", "data": text},
                    "title": uri,
                }),
                ResourceContents::Blob {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => {
                    let declared = mime_type.as_deref().unwrap_or("");
                    let pdf = normalized_media_type(declared) == "application/pdf";
                    match canonical_base64(blob) {
                        Some(data) if pdf => json!({
                            "type": "document",
                            "source": {"type": "base64", "media_type": "application/pdf", "data": data},
                            "title": uri,
                        }),
                        _ => match sendable_image(declared, blob) {
                            Ok((media_type, data)) => image_block(media_type, &data),
                            Err(_) => text(blob_note(uri, mime_type.as_deref(), blob)),
                        },
                    }
                }
            }),
            ContentBlock::Audio(audio) => blocks.push(text(audio_note(audio))),
            ContentBlock::ResourceLink(link) => blocks.push(text(link_text(link))),
        }
    }
    match blocks.len() {
        0 => None,
        1 if blocks[0]["type"] == "text" => Some(blocks.swap_remove(0)["text"].take()),
        _ => Some(Value::Array(blocks)),
    }
}

/// An `image` block of base64 `data`.
pub(super) fn image_block(media_type: &str, data: &str) -> Value {
    json!({
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": data},
    })
}

/// The Claude `tool_result` block answering the `tool_use` whose `id` is
/// `tool_use_id`: `{"type":"tool_result","tool_use_id","content"[,"is_error":true]}`.
pub fn tool_result(tool_use_id: &str, result: &CallToolResult) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), "tool_result".into());
    block.insert("tool_use_id".into(), tool_use_id.into());
    if let Some(content) = tool_result_content(result) {
        block.insert("content".into(), content);
    }
    if result.is_error {
        block.insert("is_error".into(), true.into());
    }
    Value::Object(block)
}
