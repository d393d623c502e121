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
    /// How long a legacy `elicitation/create` waits for the user.
    pub(crate) elicitation_timeout: Duration,
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

    /// Closes a result object whose fields were written to `out` (at least
    /// one), adding the 2026-07-28 fields for modern sessions.
    pub(crate) fn close_into(
        &self,
        out: &mut Vec<u8>,
        version: ProtocolVersion,
        result_type: &str,
    ) {
        if version.is_modern() {
            out.extend_from_slice(b",\"resultType\":\"");
            out.extend_from_slice(result_type.as_bytes());
            out.extend_from_slice(b"\",");
            out.extend_from_slice(self.meta_field.as_bytes());
        }
        out.push(b'}');
    }
}
