//! `sampling/createMessage`: the message types a tool builds and reads and
//! the model preferences it sends; the request's params and the client's
//! result are `model::CreateMessageParams` and `model::CreateMessageResult`
//! (the same shapes in a legacy request and in a 2026-07-28 input request).
//! The builder is `mcpfn_runtime::SampleRequest`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who speaks a sampling message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (the server's prompt).
    User,
    /// The model.
    Assistant,
}

/// One content block of a sampling message or of the model's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum SamplingContent {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// A base64-encoded image.
    Image {
        /// The image bytes, base64.
        data: String,
        /// E.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Base64-encoded audio (from revision 2025-03-26).
    Audio {
        /// The audio bytes, base64.
        data: String,
        /// E.g. `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A block of another kind (e.g. `tool_use`), as the client sent it.
    #[serde(untagged)]
    Other(Value),
}

impl SamplingContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> SamplingContent {
        SamplingContent::Text { text: text.into() }
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingContent::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// The content of a sampling message or of the model's answer: one block,
/// or (2025-11-25 on) a list. Written as it was given, so one block stays
/// an object for the revisions that know no lists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MessageContent {
    // A list first: `SamplingContent::Other` would take a list as one block.
    /// A list of blocks.
    Many(Vec<SamplingContent>),
    /// One block.
    One(SamplingContent),
}

impl MessageContent {
    /// The blocks, one or many.
    pub fn blocks(&self) -> &[SamplingContent] {
        match self {
            MessageContent::Many(blocks) => blocks,
            MessageContent::One(block) => std::slice::from_ref(block),
        }
    }

    /// The text blocks joined, if there are any.
    pub fn text(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .blocks()
            .iter()
            .filter_map(SamplingContent::as_text)
            .collect();
        (!texts.is_empty()).then(|| texts.concat())
    }
}

impl From<SamplingContent> for MessageContent {
    fn from(block: SamplingContent) -> MessageContent {
        MessageContent::One(block)
    }
}

impl From<Vec<SamplingContent>> for MessageContent {
    fn from(blocks: Vec<SamplingContent>) -> MessageContent {
        MessageContent::Many(blocks)
    }
}

/// A message of the conversation the client's model continues.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said: one block or (2025-11-25 on) a list.
    pub content: MessageContent,
}

impl SamplingMessage {
    /// A user message of text.
    pub fn user(text: impl Into<String>) -> SamplingMessage {
        SamplingMessage {
            role: Role::User,
            content: SamplingContent::text(text).into(),
        }
    }

    /// An assistant message of text (an earlier turn of the model).
    pub fn assistant(text: impl Into<String>) -> SamplingMessage {
        SamplingMessage {
            role: Role::Assistant,
            content: SamplingContent::text(text).into(),
        }
    }
}

/// A model name hint (`modelPreferences.hints[]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A model name or part of one (the schema lets a hint go without).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `modelPreferences`: hints and priorities in `0..=1`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Models to prefer, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<ModelHint>,
    /// `costPriority`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// `speedPriority`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// `intelligencePriority`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CreateMessageParams, CreateMessageResult};
    use serde_json::json;

    #[test]
    fn params_carry_only_what_was_set() {
        let params = CreateMessageParams {
            messages: vec![SamplingMessage::user("hi")],
            max_tokens: 100,
            system_prompt: None,
            temperature: None,
            stop_sequences: Vec::new(),
            model_preferences: None,
            include_context: None,
            metadata: None,
            meta: None,
        };
        assert_eq!(
            serde_json::to_string(&params).unwrap(),
            r#"{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":100}"#
        );
        let preferences: ModelPreferences =
            serde_json::from_value(json!({"hints": [{}, {"name": "claude"}], "speedPriority": 1}))
                .unwrap();
        assert_eq!(preferences.hints[1].name.as_deref(), Some("claude"));
        assert_eq!(
            serde_json::to_string(&preferences).unwrap(),
            r#"{"hints":[{},{"name":"claude"}],"speedPriority":1.0}"#
        );
    }

    #[test]
    fn results_read_one_block_or_many_and_write_what_was_read() {
        let one_text = r#"{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m","stopReason":"endTurn"}"#;
        let one: CreateMessageResult = serde_json::from_str(one_text).unwrap();
        assert!(
            matches!(one.content, MessageContent::One(SamplingContent::Text { ref text }) if text == "ok")
        );
        assert_eq!(one.text().as_deref(), Some("ok"));
        assert_eq!(one.stop_reason.as_deref(), Some("endTurn"));
        assert_eq!(serde_json::to_string(&one).unwrap(), one_text);
        let many_text = r#"{"role":"assistant","content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"id":"1","input":{},"name":"t","type":"tool_use"}],"model":"m"}"#;
        let many: CreateMessageResult = serde_json::from_str(many_text).unwrap();
        let MessageContent::Many(blocks) = &many.content else {
            panic!("a list");
        };
        assert!(
            matches!(&blocks[0], SamplingContent::Image { mime_type, .. } if mime_type == "image/png")
        );
        assert!(matches!(&blocks[1], SamplingContent::Other(v) if v["type"] == "tool_use"));
        assert!(many.stop_reason.is_none());
        assert!(many.text().is_none());
        assert_eq!(serde_json::to_string(&many).unwrap(), many_text);
    }
}
