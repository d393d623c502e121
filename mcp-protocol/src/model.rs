//! The client direction of the wire model: owned, typed values of what a
//! client sends (requests, notifications, replies to server requests) and
//! what it receives (results, server requests, notifications), and the
//! JSON-RPC envelope of any message ([`Message`]).
//!
//! Every type is camelCase on the wire, ignores unknown fields on read
//! (forward compatible) and skips `None` fields on write. The `_meta`
//! envelope of a 2026-07-28 request is [`Envelope`], the one struct the
//! server's parse of incoming params reads too.

use crate::ProtocolVersion;
use crate::meta::{self, Envelope};
use crate::task::TASKS_EXTENSION;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::BTreeMap;

pub use crate::error::RpcError;
pub use crate::sampling::{Role, SamplingContent, SamplingMessage};

/// A JSON object.
pub type JsonObject = serde_json::Map<String, Value>;

/// The method names a client sends or receives, spelled once.
pub mod method {
    /// `initialize` (2024-11-05 to 2025-11-25).
    pub const INITIALIZE: &str = "initialize";
    /// `notifications/initialized` (after `initialize`).
    pub const INITIALIZED: &str = "notifications/initialized";
    /// `server/discover` (2026-07-28).
    pub const DISCOVER: &str = "server/discover";
    /// `ping`.
    pub const PING: &str = "ping";
    /// `tools/list`.
    pub const TOOLS_LIST: &str = "tools/list";
    /// `tools/call`.
    pub const TOOLS_CALL: &str = "tools/call";
    /// `subscriptions/listen` (2026-07-28).
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// `notifications/cancelled`.
    pub const CANCELLED: &str = "notifications/cancelled";
    /// `notifications/progress`.
    pub const PROGRESS: &str = "notifications/progress";
    /// `notifications/message` (a log message).
    pub const MESSAGE: &str = "notifications/message";
    /// `notifications/tools/list_changed`.
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// `notifications/subscriptions/acknowledged` (2026-07-28).
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    /// `elicitation/create` (a server request).
    pub const ELICIT: &str = "elicitation/create";
    /// `sampling/createMessage` (a server request).
    pub const CREATE_MESSAGE: &str = "sampling/createMessage";
    /// `roots/list` (a server request).
    pub const ROOTS_LIST: &str = "roots/list";
}

// ---------------------------------------------------------------- tools

/// A tool as `tools/list` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Its name, what `tools/call` names.
    pub name: String,
    /// A title for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of its arguments.
    pub input_schema: JsonObject,
    /// The JSON Schema of its structured output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons for display.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<ToolIcon>,
    /// `_meta` of the definition.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The behaviour hints of a tool; `None` leaves the client's default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A title for display (before tools had `title`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `readOnlyHint`: it changes nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// `destructiveHint`: it may destroy data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// `idempotentHint`: calling it twice does what once does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// `openWorldHint`: it reaches outside systems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// An icon of a tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolIcon {
    /// Its URI (`https:` or `data:`).
    pub src: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its sizes (`48x48`, `any`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// `light` or `dark`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

// -------------------------------------------------------------- content

/// A `{"type": ...}`-tagged content block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// `text`.
    Text(TextContent),
    /// `image`.
    Image(ImageContent),
    /// `audio`.
    Audio(AudioContent),
    /// `resource_link`.
    ResourceLink(ResourceLinkContent),
    /// `resource`: an embedded resource.
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// The block's `type` on the wire: `"text"`, `"image"`, `"audio"`,
    /// `"resource_link"` or `"resource"`.
    pub fn kind(&self) -> &'static str {
        match self {
            ContentBlock::Text(_) => "text",
            ContentBlock::Image(_) => "image",
            ContentBlock::Audio(_) => "audio",
            ContentBlock::ResourceLink(_) => "resource_link",
            ContentBlock::Resource(_) => "resource",
        }
    }
}

/// A text block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Its annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BlockAnnotations>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// An image block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// The image, base64.
    pub data: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Its annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BlockAnnotations>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// An audio block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// The clip, base64.
    pub data: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Its annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BlockAnnotations>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A link to a resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLinkContent {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A title for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Its annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BlockAnnotations>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// An embedded resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The resource's contents.
    pub resource: ResourceContents,
    /// Its annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BlockAnnotations>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The contents of an embedded resource: `text` or `blob`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text.
    Text {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary data.
    Blob {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The data, base64.
        blob: String,
    },
}

/// The annotations of a content block.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockAnnotations {
    /// Who it is for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub audience: Vec<Role>,
    /// Importance, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When it last changed, ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

// ---------------------------------------------------------- tools/call

/// The result of `tools/call` (in the 2026-07-28 era after unwrapping
/// `resultType: "complete"`, see [`CallToolResponse`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The content blocks.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// The structured output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed (the failure is in `content`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl CallToolResult {
    /// A result of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![ContentBlock::Text(TextContent {
                text: text.into(),
                annotations: None,
                meta: None,
            })],
            ..CallToolResult::default()
        }
    }

    /// A failed result of one text block (`isError: true`).
    pub fn error(text: impl Into<String>) -> Self {
        CallToolResult {
            is_error: true,
            ..CallToolResult::text(text)
        }
    }
}

/// What a `tools/call` answers with, by `resultType` (2026-07-28; a result
/// without one, as every earlier revision sends, is `complete`).
#[derive(Clone, Debug, PartialEq)]
pub enum CallToolResponse {
    /// `complete`: the tool's result.
    Complete(CallToolResult),
    /// `input_required`: answer the questions and call again.
    InputRequired(InputRequiredResult),
    /// `task` (the Tasks extension): the call runs as a task to poll.
    Task(crate::task::CreateTaskResult),
}

impl Serialize for CallToolResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (result_type, value) = match self {
            CallToolResponse::Complete(result) => ("complete", serde_json::to_value(result)),
            CallToolResponse::InputRequired(result) => {
                ("input_required", serde_json::to_value(result))
            }
            CallToolResponse::Task(result) => ("task", serde_json::to_value(result)),
        };
        let mut value = value.map_err(serde::ser::Error::custom)?;
        if let Value::Object(map) = &mut value {
            map.insert("resultType".into(), result_type.into());
        }
        value.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CallToolResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut map = JsonObject::deserialize(deserializer)?;
        let result_type = match map.remove("resultType") {
            None => "complete".to_owned(),
            Some(Value::String(kind)) => kind,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "resultType must be a string, not {other}"
                )));
            }
        };
        let value = Value::Object(map);
        match result_type.as_str() {
            "complete" => serde_json::from_value(value)
                .map(CallToolResponse::Complete)
                .map_err(D::Error::custom),
            "input_required" => serde_json::from_value(value)
                .map(CallToolResponse::InputRequired)
                .map_err(D::Error::custom),
            "task" => {
                let mut value = value;
                if let Value::Object(map) = &mut value {
                    map.insert("resultType".into(), "task".into());
                }
                serde_json::from_value(value)
                    .map(CallToolResponse::Task)
                    .map_err(D::Error::custom)
            }
            other => Err(D::Error::custom(format!("unknown resultType {other:?}"))),
        }
    }
}

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
    /// Model hints and priorities, as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
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

/// The result a client answers `sampling/createMessage` with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who produced the message (the model: `assistant`).
    pub role: Role,
    /// What it said.
    pub content: SamplingContent,
    /// The model that produced it.
    pub model: String,
    /// Why it stopped, e.g. `endTurn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
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

// ------------------------------------------------- requests a client sends

/// A JSON-RPC request id: a string or an integer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl From<i64> for RequestId {
    fn from(id: i64) -> RequestId {
        RequestId::Number(id)
    }
}

impl From<&str> for RequestId {
    fn from(id: &str) -> RequestId {
        RequestId::String(id.to_owned())
    }
}

/// The name and version of a client or server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Implementation {
    /// Its name.
    pub name: String,
    /// A title for display (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its version.
    pub version: String,
}

impl Implementation {
    /// `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Implementation {
        Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
        }
    }

    /// As a peer of `revision` reads it: without `title` before 2025-06-18,
    /// the revision that added it.
    pub fn as_of(self, revision: ProtocolVersion) -> Implementation {
        Implementation {
            title: self.title.filter(|_| revision.carries().structured_output),
            ..self
        }
    }
}

/// What a client supports; each present capability is an object of its
/// settings (`{}` when it has none).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientCapabilities {
    /// `elicitation` (`{}`, or `{"form":{},"url":{}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<JsonObject>,
    /// `sampling`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<JsonObject>,
    /// `roots`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<JsonObject>,
    /// `experimental`, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// `extensions`, by identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

impl ClientCapabilities {
    /// The 2026-07-28 envelope that declares these capabilities and
    /// `client` at `protocol_version`, for [`Envelope`]-carrying params.
    pub fn envelope(
        &self,
        protocol_version: &str,
        client: &Implementation,
    ) -> Result<Envelope<'static>, serde_json::Error> {
        let capabilities = serde_json::to_string(self)?;
        let info = serde_json::to_string(client)?;
        Envelope::new(protocol_version, &capabilities, &info).map_err(serde_json::Error::custom)
    }
}

/// The params of `initialize` (2024-11-05 to 2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// The revision the client asks for.
    pub protocol_version: String,
    /// What it supports.
    pub capabilities: ClientCapabilities,
    /// Who it is.
    pub client_info: Implementation,
}

/// Params that are only the `_meta` envelope (`server/discover`, and the
/// 2026-07-28 form of any request without params of its own).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MetaParams<'a> {
    /// `_meta`.
    #[serde(rename = "_meta", borrow)]
    pub meta: Envelope<'a>,
}

/// The params of `tools/list`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ListToolsParams<'a> {
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

/// The params of `tools/call`, including a 2026-07-28 retry's answers
/// (`inputResponses`) and echoed `requestState`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolParams<'a> {
    /// The tool's name.
    pub name: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// The answers to an `input_required` result, by its keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<BTreeMap<String, Value>>,
    /// The `requestState` of an `input_required` result, echoed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `_meta`: the envelope, the progress token.
    #[serde(
        rename = "_meta",
        default,
        borrow,
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<Envelope<'a>>,
}

/// The params of `notifications/cancelled`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// The request to cancel.
    pub request_id: RequestId,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Which notifications a `subscriptions/listen` stream asks for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// Resources whose updates to send.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_subscriptions: Vec<String>,
    /// The tasks whose `notifications/tasks` to send (Tasks extension).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub task_ids: Vec<String>,
}

/// The params of `subscriptions/listen` (2026-07-28).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ListenParams<'a> {
    /// What to send on the stream (required, even when empty).
    pub notifications: SubscriptionFilter,
    /// `_meta`: the envelope (read as empty when absent: the era rules
    /// decide on it before the method does).
    #[serde(rename = "_meta", default, borrow)]
    pub meta: Envelope<'a>,
}

/// A JSON-RPC request: `{"jsonrpc":"2.0","id","method","params"?}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Request<P> {
    /// Always `2.0`.
    pub jsonrpc: JsonRpcVersion,
    /// Its id.
    pub id: RequestId,
    /// The method.
    pub method: String,
    /// The params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> Request<P> {
    /// A request of `method` with `params`.
    pub fn new(id: impl Into<RequestId>, method: &str, params: Option<P>) -> Request<P> {
        Request {
            jsonrpc: JsonRpcVersion,
            id: id.into(),
            method: method.to_owned(),
            params,
        }
    }
}

/// A JSON-RPC notification: `{"jsonrpc":"2.0","method","params"?}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Notification<P> {
    /// Always `2.0`.
    pub jsonrpc: JsonRpcVersion,
    /// The method.
    pub method: String,
    /// The params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> Notification<P> {
    /// A notification of `method` with `params`.
    pub fn new(method: &str, params: Option<P>) -> Notification<P> {
        Notification {
            jsonrpc: JsonRpcVersion,
            method: method.to_owned(),
            params,
        }
    }
}

/// A JSON-RPC success response: `{"jsonrpc":"2.0","id","result"}`; a
/// client's answer to a server request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Response<R> {
    /// Always `2.0`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request it answers.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

impl<R> Response<R> {
    /// The answer `result` to request `id`.
    pub fn new(id: RequestId, result: R) -> Response<R> {
        Response {
            jsonrpc: JsonRpcVersion,
            id,
            result,
        }
    }
}

/// A JSON-RPC error response: `{"jsonrpc":"2.0","id"?,"error"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorResponse {
    /// Always `2.0`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request it answers (absent when it could not be read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: RpcError,
}

impl ErrorResponse {
    /// The refusal `error` of request `id`.
    pub fn new(id: Option<RequestId>, error: RpcError) -> ErrorResponse {
        ErrorResponse {
            jsonrpc: JsonRpcVersion,
            id,
            error,
        }
    }
}

/// The `"jsonrpc": "2.0"` member; reading anything else is an error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let version = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        if version == "2.0" {
            Ok(JsonRpcVersion)
        } else {
            Err(D::Error::custom(format!(
                "jsonrpc must be \"2.0\", not {version:?}"
            )))
        }
    }
}

// ---------------------------------------------- what a client receives

/// What a server supports; each present capability is an object of its
/// settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerCapabilities {
    /// `logging`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// `tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// `prompts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<JsonObject>,
    /// `resources`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<JsonObject>,
    /// `completions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// `experimental`, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// `extensions`, by identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
}

impl ServerCapabilities {
    /// With `logging: {}`.
    pub fn with_logging(self) -> ServerCapabilities {
        ServerCapabilities {
            logging: Some(JsonObject::new()),
            ..self
        }
    }

    /// With `tools: {"listChanged": list_changed}`.
    pub fn with_tools(self, list_changed: bool) -> ServerCapabilities {
        ServerCapabilities {
            tools: Some(ToolsCapability { list_changed }),
            ..self
        }
    }

    /// With `extensions: {"io.modelcontextprotocol/tasks": {}}` (the Tasks
    /// extension), beside the extensions already set.
    pub fn with_tasks_extension(self) -> ServerCapabilities {
        let mut extensions = self.extensions.unwrap_or_default();
        extensions.insert(TASKS_EXTENSION.to_owned(), Value::Object(JsonObject::new()));
        ServerCapabilities {
            extensions: Some(extensions),
            ..self
        }
    }
}

/// The `tools` capability of a server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsCapability {
    /// Whether it sends `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub list_changed: bool,
}

/// The result of `initialize`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// What it supports.
    pub capabilities: ServerCapabilities,
    /// How to use it, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The revision the server chose.
    pub protocol_version: String,
    /// Who it is.
    pub server_info: Implementation,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `cacheScope` of a 2026-07-28 result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any cache may keep it.
    Public,
    /// Only within the same authorization.
    Private,
}

/// The result of `server/discover` (2026-07-28).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// What it supports.
    pub capabilities: ServerCapabilities,
    /// How to use it, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The revisions the server speaks.
    pub supported_versions: Vec<String>,
    /// How long the result stays fresh, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Its `_meta` (the server's identity, [`DiscoverResult::server_info`]).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl DiscoverResult {
    /// The server's identity (`_meta["io.modelcontextprotocol/serverInfo"]`).
    pub fn server_info(&self) -> Option<Implementation> {
        let info = self.meta.as_ref()?.get(meta::SERVER_INFO)?;
        Implementation::deserialize(info).ok()
    }
}

/// The result of `tools/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// The tools of this page.
    pub tools: Vec<Tool>,
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

/// The params of `notifications/progress`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    /// The token of the request it reports on (a string or an integer).
    pub progress_token: Value,
    /// How far it is.
    pub progress: f64,
    /// Of how much, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// What it is doing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The params of `notifications/message`: a log message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageParams {
    /// Its level (`debug` … `emergency`).
    pub level: String,
    /// Who logged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// What it says.
    pub data: Value,
}

/// A notification a server sends, by method.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerNotification {
    /// `notifications/progress`.
    Progress(ProgressParams),
    /// `notifications/message`.
    Message(LoggingMessageParams),
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/cancelled`.
    Cancelled(CancelledParams),
    /// Any other method, as sent.
    Other {
        /// The method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
}

impl ServerNotification {
    /// The notification `method` with `params` (from [`Message::Notification`]).
    pub fn parse(method: &str, params: Option<Value>) -> Result<Self, serde_json::Error> {
        let params_of = |params: Option<Value>| params.unwrap_or(Value::Null);
        Ok(match method {
            method::PROGRESS => {
                ServerNotification::Progress(serde_json::from_value(params_of(params))?)
            }
            method::MESSAGE => {
                ServerNotification::Message(serde_json::from_value(params_of(params))?)
            }
            method::TOOLS_LIST_CHANGED => ServerNotification::ToolsListChanged,
            method::CANCELLED => {
                ServerNotification::Cancelled(serde_json::from_value(params_of(params))?)
            }
            _ => ServerNotification::Other {
                method: method.to_owned(),
                params,
            },
        })
    }
}

/// A request a server sends (2024-11-05 to 2025-11-25), by method.
#[derive(Clone, Debug, PartialEq)]
pub enum ServerRequest {
    /// `elicitation/create`.
    Elicit(ElicitParams),
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageParams),
    /// `roots/list`.
    ListRoots,
    /// `ping`.
    Ping,
    /// Any other method, as sent.
    Other {
        /// The method.
        method: String,
        /// Its params.
        params: Option<Value>,
    },
}

impl ServerRequest {
    /// The request `method` with `params` (from [`Message::Request`]).
    pub fn parse(method: &str, params: Option<Value>) -> Result<Self, serde_json::Error> {
        let params_of = |params: Option<Value>| params.unwrap_or(Value::Null);
        Ok(match method {
            method::ELICIT => ServerRequest::Elicit(serde_json::from_value(params_of(params))?),
            method::CREATE_MESSAGE => {
                ServerRequest::CreateMessage(serde_json::from_value(params_of(params))?)
            }
            method::ROOTS_LIST => ServerRequest::ListRoots,
            method::PING => ServerRequest::Ping,
            _ => ServerRequest::Other {
                method: method.to_owned(),
                params,
            },
        })
    }
}

/// Any JSON-RPC message, as a client receives it: told apart by its members
/// (`method` and `id`: a request; `method` alone: a notification; `result`
/// or `error`: a response).
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request: answer it with a [`Response`] or an [`ErrorResponse`].
    Request {
        /// Its id.
        id: RequestId,
        /// The method ([`ServerRequest::parse`] types it).
        method: String,
        /// The params.
        params: Option<Value>,
    },
    /// A notification ([`ServerNotification::parse`] types it).
    Notification {
        /// The method.
        method: String,
        /// The params.
        params: Option<Value>,
    },
    /// A success response to the request `id`.
    Response {
        /// The request's id.
        id: RequestId,
        /// The result (typed by what was asked: [`ListToolsResult`], …).
        result: Value,
    },
    /// An error response (`id` absent when the server could not read it).
    Error {
        /// The request's id.
        id: Option<RequestId>,
        /// The error.
        error: RpcError,
    },
}

/// The members of any message, read once and told apart in
/// [`Message`]'s `Deserialize`.
#[derive(Deserialize)]
struct Members {
    #[allow(dead_code)] // read to check it is "2.0"
    jsonrpc: JsonRpcVersion,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default)]
    error: Option<RpcError>,
}

/// A member that is there, even as `null` (`"result": null` is a result).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let m = Members::deserialize(deserializer)?;
        let id = |id: Value| RequestId::deserialize(id).map_err(D::Error::custom);
        match (m.method, m.id, m.result, m.error) {
            (Some(method), Some(request), None, None) => Ok(Message::Request {
                id: id(request)?,
                method,
                params: m.params,
            }),
            (Some(method), None, None, None) => Ok(Message::Notification {
                method,
                params: m.params,
            }),
            (None, Some(response), Some(result), None) => Ok(Message::Response {
                id: id(response)?,
                result,
            }),
            (None, response, None, Some(error)) => Ok(Message::Error {
                id: match response {
                    None | Some(Value::Null) => None,
                    Some(response) => Some(id(response)?),
                },
                error,
            }),
            _ => Err(D::Error::custom(
                "not a JSON-RPC request, notification or response",
            )),
        }
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Request { id, method, params } => Request {
                jsonrpc: JsonRpcVersion,
                id: id.clone(),
                method: method.clone(),
                params: params.clone(),
            }
            .serialize(serializer),
            Message::Notification { method, params } => Notification {
                jsonrpc: JsonRpcVersion,
                method: method.clone(),
                params: params.clone(),
            }
            .serialize(serializer),
            Message::Response { id, result } => {
                Response::new(id.clone(), result).serialize(serializer)
            }
            Message::Error { id, error } => {
                ErrorResponse::new(id.clone(), error.clone()).serialize(serializer)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;
    use serde_json::json;

    fn round_trip<T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
        value: &T,
        wire: Value,
    ) {
        assert_eq!(serde_json::to_value(value).unwrap(), wire);
        assert_eq!(&serde_json::from_value::<T>(wire).unwrap(), value);
    }

    #[test]
    fn call_results_have_the_contract_shapes() {
        round_trip(
            &CallToolResult::text("hi"),
            json!({"content": [{"type": "text", "text": "hi"}]}),
        );
        round_trip(
            &CallToolResult::error("no"),
            json!({"content": [{"type": "text", "text": "no"}], "isError": true}),
        );
        // Unknown fields are ignored; absent content is empty.
        let read: CallToolResult =
            serde_json::from_value(json!({"structuredContent": {"a": 1}, "future": 1})).unwrap();
        assert!(read.content.is_empty() && read.structured_content == Some(json!({"a": 1})));
    }

    #[test]
    fn blocks_are_tagged_and_resources_untagged() {
        let blocks = vec![
            ContentBlock::Image(ImageContent {
                data: "AA==".into(),
                mime_type: "image/png".into(),
                annotations: Some(BlockAnnotations {
                    audience: vec![Role::User],
                    priority: Some(0.5),
                    last_modified: None,
                }),
                meta: None,
            }),
            ContentBlock::ResourceLink(ResourceLinkContent {
                uri: "file:///a".into(),
                name: "a".into(),
                title: None,
                description: None,
                mime_type: Some("text/plain".into()),
                size: Some(3),
                annotations: None,
                meta: None,
            }),
            ContentBlock::Resource(EmbeddedResource {
                resource: ResourceContents::Blob {
                    uri: "file:///b".into(),
                    mime_type: None,
                    blob: "AA==".into(),
                },
                annotations: None,
                meta: None,
            }),
        ];
        round_trip(
            &blocks,
            json!([
                {"type": "image", "data": "AA==", "mimeType": "image/png",
                 "annotations": {"audience": ["user"], "priority": 0.5}},
                {"type": "resource_link", "uri": "file:///a", "name": "a",
                 "mimeType": "text/plain", "size": 3},
                {"type": "resource", "resource": {"uri": "file:///b", "blob": "AA=="}},
            ]),
        );
        // `kind` is the tag each block is written with.
        let audio = ContentBlock::Audio(AudioContent {
            data: "AA==".into(),
            mime_type: "audio/wav".into(),
            annotations: None,
            meta: None,
        });
        let text = ContentBlock::Text(TextContent {
            text: "t".into(),
            annotations: None,
            meta: None,
        });
        for block in blocks.iter().chain([&audio, &text]) {
            assert_eq!(serde_json::to_value(block).unwrap()["type"], block.kind());
        }
    }

    #[test]
    fn a_tool_skips_what_it_lacks() {
        let tool = Tool {
            name: "t".into(),
            title: None,
            description: None,
            input_schema: serde_json::from_value(json!({"type": "object"})).unwrap(),
            output_schema: None,
            annotations: Some(ToolAnnotations {
                read_only_hint: Some(true),
                ..ToolAnnotations::default()
            }),
            icons: Vec::new(),
            meta: None,
        };
        round_trip(
            &tool,
            json!({"name": "t", "inputSchema": {"type": "object"},
                   "annotations": {"readOnlyHint": true}}),
        );
    }

    #[test]
    fn result_types_are_told_apart() {
        let legacy: CallToolResponse =
            serde_json::from_value(json!({"content": [], "isError": true})).unwrap();
        assert!(matches!(legacy, CallToolResponse::Complete(r) if r.is_error));
        let wire = json!({
            "resultType": "input_required",
            "inputRequests": {"guest": {"method": "elicitation/create",
                "params": {"mode": "form", "message": "who?",
                           "requestedSchema": {"type": "object", "properties": {}}}}},
            "requestState": "s1",
        });
        let asked: CallToolResponse = serde_json::from_value(wire.clone()).unwrap();
        let CallToolResponse::InputRequired(result) = &asked else {
            panic!("{asked:?}")
        };
        assert_eq!(result.request_state.as_deref(), Some("s1"));
        assert!(
            matches!(&result.input_requests["guest"], InputRequest::Elicit(e) if e.message == "who?")
        );
        assert_eq!(serde_json::to_value(&asked).unwrap(), wire);
        let task = json!({"resultType": "task", "taskId": "t1", "status": "working",
            "createdAt": "2026-12-02T00:00:00Z", "lastUpdatedAt": "2026-12-02T00:00:00Z", "ttlMs": null});
        let created: CallToolResponse = serde_json::from_value(task.clone()).unwrap();
        assert!(matches!(&created, CallToolResponse::Task(t) if t.task.task_id == "t1"));
        assert_eq!(
            serde_json::to_value(&created).unwrap(),
            task,
            "one resultType, the task's fields flat"
        );
        let unknown = serde_json::from_value::<CallToolResponse>(json!({"resultType": "later"}));
        assert!(
            unknown
                .unwrap_err()
                .to_string()
                .contains("unknown resultType")
        );
    }

    #[test]
    fn messages_are_told_apart_by_their_members() {
        let parse = |text: &str| serde_json::from_str::<Message>(text);
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap(),
            Message::Request {
                id: RequestId::String(_),
                ..
            }
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#).unwrap(),
            Message::Notification { .. }
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":1,"result":null}"#).unwrap(),
            Message::Response {
                result: Value::Null,
                ..
            }
        ));
        let error =
            parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#).unwrap();
        assert_eq!(
            error,
            Message::Error {
                id: None,
                error: RpcError::parse_error("x")
            }
        );
        assert!(parse(r#"{"jsonrpc":"1.0","id":1,"result":{}}"#).is_err());
        assert!(parse(r#"{"jsonrpc":"2.0","id":1}"#).is_err());
        assert!(
            parse(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#)
                .is_err()
        );
        for text in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"c"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"m","data":{"method":"x"}}}"#,
        ] {
            let message = parse(text).unwrap();
            assert_eq!(serde_json::to_string(&message).unwrap(), text);
        }
    }

    /// The envelope a client writes is the envelope the server reads: one
    /// struct both ways.
    #[test]
    fn the_envelope_a_client_writes_is_the_one_the_server_reads() {
        let envelope = ClientCapabilities::default()
            .envelope("2026-07-28", &Implementation::new("c", "1"))
            .unwrap()
            .with_progress_token("7")
            .unwrap();
        let params = CallToolParams {
            name: "add".into(),
            arguments: Some(JsonObject::new()),
            request_state: Some("s".into()),
            meta: Some(envelope),
            ..CallToolParams::default()
        };
        let text = serde_json::to_string(&params).unwrap();
        let raw: &serde_json::value::RawValue = serde_json::from_str(&text).unwrap();
        let read = Params::parse(Some(raw)).unwrap();
        assert_eq!(read.envelope_version(), Some("2026-07-28"));
        let meta = read.meta.unwrap();
        assert_eq!(meta.client_capabilities.as_deref().unwrap().get(), "{}");
        assert_eq!(
            meta.client_info.as_deref().unwrap().get(),
            r#"{"name":"c","version":"1"}"#
        );
        assert_eq!(meta.progress_token.as_deref().unwrap().get(), "7");
        assert_eq!(read.request_state.as_deref(), Some("s"));
        // And a client reads it back with the same struct.
        let again: CallToolParams<'_> = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&again).unwrap(), text);
        assert!(Envelope::new("v", "[]", "{}").is_err());
    }

    #[test]
    fn server_notifications_and_requests_are_typed_by_method() {
        let progress = ServerNotification::parse(
            method::PROGRESS,
            Some(json!({"progressToken": 1, "progress": 0.5})),
        )
        .unwrap();
        assert!(matches!(progress, ServerNotification::Progress(p) if p.progress == 0.5));
        let cancelled = ServerNotification::parse(
            method::CANCELLED,
            Some(json!({"requestId": 3, "reason": "r"})),
        )
        .unwrap();
        assert!(
            matches!(cancelled, ServerNotification::Cancelled(c) if c.request_id == RequestId::Number(3))
        );
        let sample = ServerRequest::parse(
            method::CREATE_MESSAGE,
            Some(
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": "q"}}],
                        "maxTokens": 10}),
            ),
        )
        .unwrap();
        assert!(matches!(sample, ServerRequest::CreateMessage(p) if p.max_tokens == 10));
        assert!(ServerRequest::parse(method::ELICIT, None).is_err());
    }

    #[test]
    fn listen_needs_its_filter_and_defaults_its_members() {
        let params: ListenParams<'_> =
            serde_json::from_str(r#"{"notifications":{},"_meta":{}}"#).unwrap();
        assert_eq!(params.notifications, SubscriptionFilter::default());
        let params: ListenParams<'_> = serde_json::from_str(
            r#"{"notifications":{"toolsListChanged":true,"taskIds":["a"],"promptsListChanged":true}}"#,
        )
        .unwrap();
        assert_eq!(params.notifications.tools_list_changed, Some(true));
        assert_eq!(params.notifications.task_ids, ["a"]);
        let missing = serde_json::from_str::<ListenParams<'_>>("{}").unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("missing field `notifications`")
        );
    }
}
