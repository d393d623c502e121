//! Who the peers are and what they support: `initialize` (2024-11-05 to
//! 2025-11-25) and `server/discover` (2026-07-28), their params, results and
//! capabilities.

use super::jsonrpc::JsonObject;
use crate::ProtocolVersion;
use crate::meta::{self, Envelope};
use serde::de::Error as _;
use serde::{Deserialize, Serialize};

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

    /// With `resources: {}` (the members `subscribe` and `listChanged`
    /// are left to the server's subscriptions).
    pub fn with_resources(self) -> ServerCapabilities {
        ServerCapabilities {
            resources: Some(self.resources.unwrap_or_default()),
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
