//! What every request handler and call task reads: the tools, the server's
//! identity, registered state, limits and the request-state sealer.

use crate::elicit::StateSealer;
use crate::limits::Limits;
use crate::protocol::{META_SERVER_INFO, ProtocolVersion};
use crate::state::StateMap;
use crate::toolset::ToolSet;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// Server-wide, read-only while serving (the tool set changes through its own lock).
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) tools: ToolSet,
    pub(crate) identity: Identity,
    pub(crate) states: Arc<StateMap>,
    pub(crate) sealer: StateSealer,
    pub(crate) limits: Limits,
    pub(crate) call_timeout: Option<Duration>,
}

/// The server's identity and advertised settings, with their JSON prepared.
#[derive(Debug)]
pub(crate) struct Identity {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) instructions: Option<String>,
    pub(crate) list_ttl_ms: u64,
    /// `"_meta":{"io.modelcontextprotocol/serverInfo":{…}}`, for 2026-07-28 results.
    meta_field: String,
}

impl Identity {
    pub(crate) fn new(
        name: String,
        version: String,
        title: Option<String>,
        instructions: Option<String>,
        list_ttl_ms: u64,
    ) -> Identity {
        let mut identity = Identity {
            name,
            version,
            title,
            instructions,
            list_ttl_ms,
            meta_field: String::new(),
        };
        let info = identity.server_info(ProtocolVersion::LATEST);
        identity.meta_field = format!("\"_meta\":{}", json!({ META_SERVER_INFO: info }));
        identity
    }

    /// `Implementation` as `version` defines it (`title` from 2025-06-18).
    pub(crate) fn server_info(&self, version: ProtocolVersion) -> Value {
        let mut info = json!({"name": self.name, "version": self.version});
        if version.has_structured_output()
            && let Some(title) = &self.title
        {
            info["title"] = title.clone().into();
        }
        info
    }

    /// Closes a result object opened by the caller, adding what 2026-07-28
    /// requires on every result: `resultType` and the server's identity.
    pub(crate) fn close(&self, body: String, version: ProtocolVersion) -> String {
        self.close_as(body, version, "complete")
    }

    /// [`Identity::close`] with another `resultType`.
    pub(crate) fn close_as(
        &self,
        mut body: String,
        version: ProtocolVersion,
        result_type: &str,
    ) -> String {
        if version.is_modern() {
            if !body.ends_with('{') {
                body.push(',');
            }
            body.push_str("\"resultType\":\"");
            body.push_str(result_type);
            body.push_str("\",");
            body.push_str(&self.meta_field);
        }
        body.push('}');
        body
    }
}
