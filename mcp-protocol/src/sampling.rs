//! `sampling/createMessage`: the message types a tool builds and reads, the
//! `params` the server sends and the `CreateMessageResult` the client
//! answers with (the same shapes in a legacy request and in a 2026-07-28
//! input request). The builder is `mcpfn_runtime::SampleRequest`.

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

/// A message of the conversation the client's model continues.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: SamplingContent,
}

impl SamplingMessage {
    /// A user message of text.
    pub fn user(text: impl Into<String>) -> SamplingMessage {
        SamplingMessage {
            role: Role::User,
            content: SamplingContent::text(text),
        }
    }

    /// An assistant message of text (an earlier turn of the model).
    pub fn assistant(text: impl Into<String>) -> SamplingMessage {
        SamplingMessage {
            role: Role::Assistant,
            content: SamplingContent::text(text),
        }
    }
}

/// A model name hint (`modelPreferences.hints[]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelHint {
    /// A model name or part of one.
    pub name: String,
}

/// `modelPreferences`: hints and priorities in `0..=1`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ModelPreferences {
    /// Models to prefer, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<ModelHint>,
    /// `costPriority`.
    #[serde(rename = "costPriority", skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// `speedPriority`.
    #[serde(rename = "speedPriority", skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// `intelligencePriority`.
    #[serde(
        rename = "intelligencePriority",
        skip_serializing_if = "Option::is_none"
    )]
    pub intelligence_priority: Option<f64>,
}

impl ModelPreferences {
    /// Whether nothing is set (then it is not sent).
    pub fn is_empty(&self) -> bool {
        *self == ModelPreferences::default()
    }
}

#[doc(hidden)]
/// The server's borrowed rendering of the `params` of `sampling/createMessage`
/// ([`crate::model::CreateMessageParams`] is the concept): written from the
/// tool's request without copying its messages.
#[derive(Clone, Debug, Serialize)]
pub struct CreateMessageParamsRef<'a> {
    /// The conversation.
    pub messages: &'a [SamplingMessage],
    /// `maxTokens`.
    #[serde(rename = "maxTokens")]
    pub max_tokens: u32,
    /// `systemPrompt`.
    #[serde(rename = "systemPrompt", skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<&'a str>,
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// `stopSequences`.
    #[serde(rename = "stopSequences", skip_serializing_if = "<[_]>::is_empty")]
    pub stop_sequences: &'a [String],
    /// `modelPreferences`.
    #[serde(
        rename = "modelPreferences",
        skip_serializing_if = "ModelPreferences::is_empty"
    )]
    pub model_preferences: &'a ModelPreferences,
    /// Passed through to the model provider.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<&'a Value>,
}

#[doc(hidden)]
/// The content of a `CreateMessageResult`: one block or (2025-11-25 on) a list.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ResultContent {
    // A list first: `SamplingContent::Other` would take a list as one block.
    /// A list of blocks.
    Many(Vec<SamplingContent>),
    /// One block.
    One(SamplingContent),
}

#[doc(hidden)]
/// The server's reading of a client's `sampling/createMessage` result
/// ([`crate::model::CreateMessageResult`] is the concept): lenient where
/// clients are, one content block or (2025-11-25 on) a list.
#[derive(Debug, Deserialize)]
pub struct CreateMessageResultRef {
    /// Who produced the message.
    pub role: Role,
    /// What it said.
    pub content: ResultContent,
    /// The model that produced it.
    pub model: String,
    /// `stopReason`, e.g. `endTurn`.
    #[serde(rename = "stopReason", default)]
    pub stop_reason: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn params_carry_only_what_was_set() {
        let messages = [SamplingMessage::user("hi")];
        let preferences = ModelPreferences::default();
        let params = CreateMessageParamsRef {
            messages: &messages,
            max_tokens: 100,
            system_prompt: None,
            temperature: None,
            stop_sequences: &[],
            model_preferences: &preferences,
            metadata: None,
        };
        assert_eq!(
            serde_json::to_value(&params).unwrap(),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 100})
        );
    }

    #[test]
    fn results_read_one_block_or_many_and_keep_unknown_kinds() {
        let one: CreateMessageResultRef = serde_json::from_value(json!({
            "role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m", "stopReason": "endTurn"
        }))
        .unwrap();
        assert!(
            matches!(one.content, ResultContent::One(SamplingContent::Text { ref text }) if text == "ok")
        );
        assert_eq!(one.stop_reason.as_deref(), Some("endTurn"));
        let many: CreateMessageResultRef = serde_json::from_value(json!({
            "role": "assistant", "model": "m",
            "content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}, {"type": "tool_use", "id": "1", "name": "t", "input": {}}]
        }))
        .unwrap();
        let ResultContent::Many(blocks) = many.content else {
            panic!("a list");
        };
        assert!(
            matches!(&blocks[0], SamplingContent::Image { mime_type, .. } if mime_type == "image/png")
        );
        assert!(matches!(&blocks[1], SamplingContent::Other(v) if v["type"] == "tool_use"));
        assert!(many.stop_reason.is_none());
    }
}
