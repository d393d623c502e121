//! What a server asks the client: a form for the user, a model's
//! completion, the roots; as a 2026-07-28 `input_required` result's
//! questions or a legacy server request's params, and the client's answers.

use super::jsonrpc::JsonObject;
use crate::sampling::{MessageContent, ModelPreferences, Role, SamplingMessage};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// `resultType: "input_required"` (2026-07-28): questions for the client,
/// and an opaque state to send back, byte for byte, with the answers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// The questions, by a key the answer is sent under.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub input_requests: BTreeMap<String, InputRequest>,
    /// The state to echo in the next call's `requestState`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One question of an [`InputRequiredResult`], or the params of a server
/// request of the earlier revisions: `{"method", "params"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", content = "params")]
pub enum InputRequest {
    /// `elicitation/create`.
    #[serde(rename = "elicitation/create")]
    Elicit(ElicitParams),
    /// `sampling/createMessage`.
    #[serde(rename = "sampling/createMessage")]
    CreateMessage(CreateMessageParams),
    /// `roots/list`.
    #[serde(rename = "roots/list")]
    ListRoots(Option<JsonObject>),
}

/// The params of `elicitation/create`: a form, or (2025-11-25 on) a URL.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitParams {
    /// `form` or `url` (absent: `form`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// What to ask the user.
    pub message: String,
    /// The form's schema (`form` mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<JsonObject>,
    /// The page to open (`url` mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The id of a `url` elicitation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The params of `sampling/createMessage`, as a client reads them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens to sample.
    pub max_tokens: u32,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Where to stop.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// Model hints and priorities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// Which servers' context to include (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Passed through to the model provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The user's answer to `elicitation/create`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted the form.
    Accept,
    /// The user said no.
    Decline,
    /// The user dismissed it.
    Cancel,
}

/// The result a client answers `elicitation/create` with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The form's values (`accept` of a form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
}

impl ElicitResult {
    /// Whether the user submitted the form.
    pub fn is_accepted(&self) -> bool {
        self.action == ElicitAction::Accept
    }

    /// The submitted fields as `T`; an error when the user did not accept or
    /// the fields do not fit.
    ///
    /// ```
    /// use mcpfn_protocol::model::{ElicitAction, ElicitResult};
    /// let answer: ElicitResult =
    ///     serde_json::from_str(r#"{"action":"accept","content":{"n":3}}"#).unwrap();
    /// assert!(answer.is_accepted());
    /// let fields: serde_json::Value = answer.content_as().unwrap();
    /// assert_eq!(fields["n"], 3);
    /// let declined = ElicitResult { action: ElicitAction::Decline, content: None };
    /// assert!(declined.content_as::<serde_json::Value>().is_err());
    /// ```
    pub fn content_as<T: DeserializeOwned>(&self) -> Result<T, ElicitContentError> {
        match (self.action, &self.content) {
            (ElicitAction::Accept, Some(content)) => {
                // `T` reads from a `Value`; a borrowed map has no deserializer.
                serde_json::from_value(Value::Object(content.clone()))
                    .map_err(ElicitContentError::DoesNotFit)
            }
            (ElicitAction::Accept, None) => Err(ElicitContentError::NoFields),
            (action, _) => Err(ElicitContentError::NotAccepted(action)),
        }
    }
}

/// Why [`ElicitResult::content_as`] has no fields to give.
#[derive(Debug)]
pub enum ElicitContentError {
    /// The user declined or cancelled.
    NotAccepted(ElicitAction),
    /// The user accepted, but the client sent no `content`.
    NoFields,
    /// The fields do not deserialize as the type asked for.
    DoesNotFit(serde_json::Error),
}

impl std::fmt::Display for ElicitContentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ElicitContentError::NotAccepted(ElicitAction::Decline) => {
                f.write_str("the user did not fill in the form (declined)")
            }
            ElicitContentError::NotAccepted(_) => {
                f.write_str("the user did not fill in the form (cancelled)")
            }
            ElicitContentError::NoFields => f.write_str("the user accepted but sent no fields"),
            ElicitContentError::DoesNotFit(err) => {
                write!(f, "the user's answer does not fit the form: {err}")
            }
        }
    }
}

impl std::error::Error for ElicitContentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ElicitContentError::DoesNotFit(err) => Some(err),
            _ => None,
        }
    }
}

/// The result a client answers `sampling/createMessage` with: the model's
/// message, one content block or (2025-11-25 on) a list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who produced the message (the model: `assistant`).
    pub role: Role,
    /// What it said.
    pub content: MessageContent,
    /// The model that produced it.
    pub model: String,
    /// Why it stopped (`endTurn`, `stopSequence`, `maxTokens`, …), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// The text of the message (its text blocks joined), if it has any.
    pub fn text(&self) -> Option<String> {
        self.content.text()
    }
}

/// A root the client exposes (`roots/list`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// Its URI (`file://…`).
    pub uri: String,
    /// A name for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The result a client answers `roots/list` with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
}
