//! The messages the host writes itself (a prompt's messages, a user line
//! with resources attached): `{"role", "content": [blocks]}` of `text` and
//! (the user's only) `image` blocks, from MCP content
//! ([`crate::provider::content`]); and a user message joined to a
//! message of tool results, as the API's alternating roles want.

use super::results::image_block;
use crate::provider::content::{Part, parts};
use mcpfn_protocol::model::{ContentBlock, Role};
use serde_json::{Value, json};

/// The message of `role` saying `content`.
pub fn content_message(role: Role, content: &[ContentBlock]) -> Value {
    let mut blocks: Vec<Value> = parts(content, role == Role::User)
        .into_iter()
        .map(|part| match part {
            Part::Text(text) => json!({"type": "text", "text": text}),
            Part::Image { media_type, data } => image_block(media_type, &data),
        })
        .collect();
    if blocks.is_empty() {
        // The API refuses an empty message.
        blocks.push(json!({"type": "text", "text": "(empty)"}));
    }
    let role = match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    json!({"role": role, "content": blocks})
}

/// Puts user `message` into `last` when `last` is a message of tool
/// results (after them: the API wants `tool_result` blocks first); whether
/// it did. A user message of text keeps its own (a line whose request
/// failed before any tool ran is rolled back, so there is none).
pub fn join_user_message(last: &mut Value, message: &Value) -> bool {
    if last["role"] != "user" || message["role"] != "user" {
        return false;
    }
    let Some(blocks) = last.get_mut("content").and_then(Value::as_array_mut) else {
        return false;
    };
    if !blocks.iter().any(|block| block["type"] == "tool_result") {
        return false;
    }
    match &message["content"] {
        Value::String(text) => blocks.push(json!({"type": "text", "text": text})),
        Value::Array(more) => blocks.extend(more.iter().cloned()),
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpfn_protocol::content::Content;

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

    #[test]
    fn a_message_of_each_role_is_text_and_the_users_images() {
        let content = [
            Content::image_base64(PNG, "image/png"),
            Content::text("What is this?"),
        ];
        assert_eq!(
            content_message(Role::User, &content),
            json!({"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                {"type": "text", "text": "What is this?"}
            ]})
        );
        let said = content_message(Role::Assistant, &content);
        assert_eq!(said["role"], "assistant");
        assert!(
            said["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("[The server sent an image (image/png, 70 bytes) that is not shown: an assistant message carries text only.]"),
            "{said}"
        );
        assert_eq!(
            content_message(Role::User, &[]),
            json!({"role": "user", "content": [{"type": "text", "text": "(empty)"}]})
        );
    }

    #[test]
    fn a_user_message_joins_tool_results_after_them_and_nothing_else() {
        let result = json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"});
        let mut results = json!({"role": "user", "content": [result]});
        let message = content_message(Role::User, &[Content::text("Next")]);
        assert!(join_user_message(&mut results, &message));
        assert_eq!(
            results,
            json!({"role": "user", "content": [result, {"type": "text", "text": "Next"}]})
        );
        let mut text = json!({"role": "user", "content": "hi"});
        assert!(!join_user_message(&mut text, &message));
        let mut results = json!({"role": "user", "content": [result]});
        let assistant = content_message(Role::Assistant, &[Content::text("x")]);
        assert!(!join_user_message(&mut results, &assistant));
    }
}
