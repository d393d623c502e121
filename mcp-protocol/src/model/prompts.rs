//! Prompts: how `prompts/list` describes one, the messages `prompts/get`
//! answers with, and the params and results of both methods.

use super::input::InputRequiredResult;
use super::jsonrpc::JsonObject;
use super::lifecycle::CacheScope;
use super::tools::{ContentBlock, Icon};
use crate::meta::Envelope;
use crate::sampling::Role;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::BTreeMap;

/// A prompt as `prompts/list` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Its name, what `prompts/get` names.
    pub name: String,
    /// A title for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it gives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it is filled in with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
    /// Icons for display.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// `_meta` of the definition.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// One argument of a prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// Its name, the key in `prompts/get`'s `arguments`.
    pub name: String,
    /// A title for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` must give it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

/// One message of a prompt: who says it and what.
///
/// ```
/// use mcpfn_protocol::content::Content;
/// use mcpfn_protocol::model::{PromptMessage, Role};
/// let messages = [
///     PromptMessage::user("Review this file:"),
///     PromptMessage::user(Content::embedded_text("file:///a.rs", "fn main() {}").mime_type("text/x-rust")),
///     PromptMessage::assistant("I will look for bugs first."),
/// ];
/// assert_eq!(messages[2].role, Role::Assistant);
/// assert_eq!(messages[1].content.kind(), "resource");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said: text, an image, audio, a resource link or an
    /// embedded resource.
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A message of `role` with `content`.
    pub fn new(role: Role, content: impl Into<ContentBlock>) -> PromptMessage {
        PromptMessage {
            role,
            content: content.into(),
        }
    }

    /// A message from the user (text, or any [`ContentBlock`]).
    pub fn user(content: impl Into<ContentBlock>) -> PromptMessage {
        PromptMessage::new(Role::User, content)
    }

    /// A message from the model (text, or any [`ContentBlock`]).
    pub fn assistant(content: impl Into<ContentBlock>) -> PromptMessage {
        PromptMessage::new(Role::Assistant, content)
    }
}

/// The params of `prompts/list`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ListPromptsParams<'a> {
    /// Where the previous page ended (its `nextCursor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// `_meta` (2026-07-28: the envelope).
    #[serde(
        rename = "_meta",
        default,
        borrow,
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<Envelope<'a>>,
}

/// The result of `prompts/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// The prompts of this page.
    pub prompts: Vec<Prompt>,
    /// Where the next page starts; absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// How long the list stays fresh, in ms (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache it (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The params of `prompts/get`, including a 2026-07-28 retry's answers
/// (`inputResponses`) and echoed `requestState`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptParams<'a> {
    /// The prompt's name.
    pub name: String,
    /// Its arguments, each a string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// The answers to an `input_required` result, by its keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<BTreeMap<String, Value>>,
    /// The `requestState` of an `input_required` result, echoed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `_meta`: the envelope.
    #[serde(
        rename = "_meta",
        default,
        borrow,
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<Envelope<'a>>,
}

/// The result of `prompts/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// What the prompt is, for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// What a `prompts/get` answers with, by `resultType` (2026-07-28; a
/// result without one, as every earlier revision sends, is `complete`).
#[derive(Clone, Debug, PartialEq)]
pub enum GetPromptResponse {
    /// `complete`: the prompt's messages.
    Complete(GetPromptResult),
    /// `input_required`: answer the questions and get it again.
    InputRequired(InputRequiredResult),
}

impl Serialize for GetPromptResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (result_type, value) = match self {
            GetPromptResponse::Complete(result) => ("complete", serde_json::to_value(result)),
            GetPromptResponse::InputRequired(result) => {
                ("input_required", serde_json::to_value(result))
            }
        };
        let mut value = value.map_err(serde::ser::Error::custom)?;
        if let Value::Object(map) = &mut value {
            map.insert("resultType".into(), result_type.into());
        }
        value.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for GetPromptResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut map = JsonObject::deserialize(deserializer)?;
        let result_type = map.remove("resultType");
        let value = Value::Object(map);
        match result_type.as_ref().map(Value::as_str) {
            None | Some(Some("complete")) => serde_json::from_value(value)
                .map(GetPromptResponse::Complete)
                .map_err(D::Error::custom),
            Some(Some("input_required")) => serde_json::from_value(value)
                .map(GetPromptResponse::InputRequired)
                .map_err(D::Error::custom),
            Some(other) => Err(D::Error::custom(format!(
                "unknown resultType {}",
                other.map_or_else(|| "(not a string)".to_owned(), |kind| format!("{kind:?}"))
            ))),
        }
    }
}
