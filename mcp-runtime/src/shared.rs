//! What every request handler and call task reads: the tools, the server's
//! identity, registered state, the state store, limits and the request-state
//! sealer.

use crate::changes::Notifier;
use crate::complete::Completer;
use crate::conn::client::RecentClient;
use crate::context::Reach;
use crate::context::seal::StateSealer;
use crate::limits::Limits;
use crate::protocol::model::{CompletionRef, Implementation};
use crate::protocol::outgoing;
use crate::protocol::{ProtocolVersion, RpcError};
use crate::tool::toolset::ToolSet;
use serde_json::value::RawValue;
use std::sync::Arc;
use std::time::Duration;

/// Server-wide, read-only while serving (the tool set changes through its
/// own lock; `recent_client` is a cache).
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) tools: ToolSet,
    /// The resources and templates (`resources/*`).
    pub(crate) resources: crate::resource::registry::ResourceRegistry,
    /// The largest message this server sends or reads: a resource's
    /// contents over it are answered with an error naming the size.
    pub(crate) max_message_size: usize,
    /// The prompts (`prompts/*`, and their arguments' completions).
    pub(crate) prompts: crate::prompt::registry::Prompts,
    pub(crate) identity: Identity,
    /// What each call's `Context` reaches: the states, the store (spent
    /// request states and `Handles` entries), the tool set (the same handle
    /// as `tools`), the elicitation timeout.
    pub(crate) reach: Arc<Reach>,
    pub(crate) sealer: StateSealer,
    pub(crate) limits: Limits,
    pub(crate) call_timeout: Option<Duration>,
    /// The Tasks extension's records, in the store, and each client's quota
    /// of live tasks.
    pub(crate) tasks: crate::task::Tasks,
    pub(crate) task_quota: Arc<crate::quota::WindowQuota>,
    /// `tools/list` leaves out the tools a verified caller lacks scopes for
    /// (`Auth::hide_unauthorized_tools`).
    pub(crate) hide_unauthorized_tools: bool,
    /// What changed, for the connections that listen.
    pub(crate) notifier: Notifier,
    /// Resources a legacy session or a listen stream may subscribe to.
    pub(crate) max_resource_subscriptions: usize,
    /// The last 2026-07-28 client's parsed envelope (a cache; the one part
    /// that changes while serving).
    pub(crate) recent_client: RecentClient,
    /// Unwritten output past which a byte-stream connection stops reading
    /// and drops notifications (`Server::max_unwritten_output`).
    pub(crate) max_unwritten_output: usize,
    /// The skills served (the Skills extension), if any.
    #[cfg(feature = "skills")]
    pub(crate) skills: Option<Arc<crate::skills::Skills>>,
    /// Unread messages past which an SSE stream drops notifications
    /// (`Server::max_sse_unwritten`).
    #[cfg(feature = "http")]
    pub(crate) max_sse_unwritten: usize,
}

impl Shared {
    /// Whether `completion/complete` has anything to complete: prompts
    /// (their arguments), or a template variable with a completer.
    pub(crate) fn completes(&self) -> bool {
        !self.prompts.is_empty() || self.resources.completes()
    }

    /// The completer `completion/complete` runs for `argument` of
    /// `reference`, on the wire and through the door: a prompt's argument
    /// or a resource template's variable. `None` when it has none (an empty
    /// completion); `-32602` naming a prompt or template that does not
    /// exist.
    pub(crate) fn completer(
        &self,
        reference: &CompletionRef,
        argument: &str,
    ) -> Result<Option<Completer>, RpcError> {
        match reference {
            CompletionRef::Prompt { name, .. } => self.prompts.completer(name, argument),
            CompletionRef::Resource { uri } => self.resources.completer(uri, argument),
        }
    }
}

/// The server's identity and advertised settings, with the `_meta` of
/// 2026-07-28 results serialized once.
#[derive(Debug)]
pub(crate) struct Identity {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) instructions: Option<String>,
    pub(crate) list_ttl_ms: u64,
    /// `{"io.modelcontextprotocol/serverInfo":{…}}`, for 2026-07-28 results.
    server_meta: Box<RawValue>,
}

impl Identity {
    pub(crate) fn new(
        name: String,
        version: String,
        title: Option<String>,
        instructions: Option<String>,
        list_ttl_ms: u64,
    ) -> Identity {
        let server_meta = outgoing::server_meta(&Implementation {
            name: name.clone(),
            title: title.clone(),
            version: version.clone(),
        });
        Identity {
            name,
            version,
            title,
            instructions,
            list_ttl_ms,
            server_meta,
        }
    }

    /// `Implementation` as `version` defines it (`title` from 2025-06-18).
    pub(crate) fn server_info(&self, version: ProtocolVersion) -> Implementation {
        Implementation {
            name: self.name.clone(),
            title: self.title.clone(),
            version: self.version.clone(),
        }
        .as_of(version)
    }

    /// The `_meta` every 2026-07-28 result carries.
    pub(crate) fn server_meta(&self) -> &RawValue {
        &self.server_meta
    }
}
