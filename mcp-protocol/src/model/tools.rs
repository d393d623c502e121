//! Tools: how `tools/list` describes one, the content blocks a result
//! carries, the result of `tools/call`, and the params of both methods.

use super::jsonrpc::JsonObject;
use super::lifecycle::CacheScope;
use crate::meta::Envelope;
use crate::sampling::Role;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

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
    pub icons: Vec<Icon>,
    /// `execution` (2025-11-25 only; 2026-07-28 has none): how a call of
    /// it may be made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// `_meta` of the definition.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// How a tool may be called (2025-11-25 `execution`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// `taskSupport`: whether a `tools/call` of it may (`"optional"`),
    /// must (`"required"`) or must not (`"forbidden"`, the default when
    /// absent) be augmented with a `task`. Kept as the server wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<String>,
}

impl ToolExecution {
    /// The `taskSupport` that makes a call without a `task` fail (-32601).
    pub const TASK_REQUIRED: &'static str = "required";
}

impl Tool {
    /// Whether the server accepts a call of it only as a 2025-11-25 task
    /// (`execution.taskSupport: "required"`).
    pub fn requires_task(&self) -> bool {
        self.execution
            .as_ref()
            .and_then(|e| e.task_support.as_deref())
            == Some(ToolExecution::TASK_REQUIRED)
    }
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

/// An icon a client may show for a tool, prompt, resource or template
/// (2025-11-25 on). The fields are in key order, so a definition the
/// server writes field by field and one written from this type are the
/// same bytes.
///
/// ```
/// use mcpfn_protocol::model::Icon;
/// let icon = Icon::new("https://x/i.png").mime_type("image/png").sizes("48x48 any");
/// assert_eq!(
///     serde_json::to_string(&icon).unwrap(),
///     r#"{"mimeType":"image/png","sizes":["48x48","any"],"src":"https://x/i.png"}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its sizes (`48x48`, `any`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// Its URI (`https:` or `data:`).
    pub src: String,
    /// `light` or `dark`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

impl Icon {
    /// An icon at `src`, an `https:` or `data:` URI.
    pub fn new(src: impl Into<String>) -> Icon {
        Icon {
            mime_type: None,
            sizes: Vec::new(),
            src: src.into(),
            theme: None,
        }
    }

    /// The image's MIME type, e.g. `image/png`.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Icon {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Space-separated sizes, e.g. `"48x48 96x96"` or `"any"`.
    pub fn sizes(mut self, sizes: &str) -> Icon {
        self.sizes = sizes.split_whitespace().map(str::to_owned).collect();
        self
    }

    /// `light` or `dark`: the background the icon is drawn for.
    pub fn theme(mut self, theme: impl Into<String>) -> Icon {
        self.theme = Some(theme.into());
        self
    }
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
        /// Its `_meta`: an MCP App's `ui` (its CSP and permissions), say.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
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
        /// Its `_meta`: an MCP App's `ui` (its CSP and permissions), say.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
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
/// `resultType: "complete"`, see [`CallToolResponse`](crate::model::CallToolResponse)).
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
