//! `initialize`, `ping` and `server/discover`: opening a session, checking
//! it is alive, and describing the server.

use crate::conn::client::ClientInfo;
use crate::conn::lifecycle::Lifecycle;
use crate::protocol::frame::Frame;
use crate::protocol::outgoing::{DiscoverResult, InitializeResult, Reply};
use crate::protocol::{ProtocolVersion, RpcError};
use crate::session::era;
use crate::session::table::{self, Eras, Method, Respond};
use crate::session::{Session, parse_params};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::borrow::Cow;

impl Session {
    pub(in crate::session) fn initialize(
        &mut self,
        id: &RawValue,
        params: Option<&RawValue>,
    ) -> Result<(), RpcError> {
        #[derive(Deserialize)]
        struct InitializeParams<'a> {
            #[serde(rename = "protocolVersion", borrow)]
            protocol_version: Cow<'a, str>,
            #[serde(default)]
            capabilities: Option<Value>,
            #[serde(rename = "clientInfo", default)]
            client_info: Option<Value>,
        }
        let params: InitializeParams<'_> = parse_params(params, "initialize")?;
        let requested = params.protocol_version;
        let version = era::initialize_version(&self.connection, &requested)?;
        self.connection.set_lifecycle(Lifecycle::Legacy { version });
        self.connection.set_client_info(ClientInfo {
            info: params.client_info,
            capabilities: params
                .capabilities
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({})),
        });
        let identity = &self.shared.identity;
        let result = InitializeResult::new(
            version,
            identity.server_info(version),
            identity.instructions.as_deref(),
            table::capabilities(version, false),
        );
        tracing::debug!(%version, %requested, "initialized a legacy session");
        self.connection
            .send(self.reply(id, version).initialize(&result));
        Ok(())
    }
}

/// The empty result, `{}`.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::session) struct Empty;

impl Respond for Empty {
    fn respond(self, reply: Reply<'_>) -> Frame {
        reply.empty()
    }
}

/// `ping` (legacy): the session is alive. Its params, if any, are ignored.
#[derive(Debug)]
pub(in crate::session) struct Ping;

impl Method for Ping {
    const NAME: &'static str = "ping";
    const ERAS: Eras = Eras::Legacy;
    const CAPABILITY: Option<table::Capability> = None;
    type Params<'p> = IgnoredAny;
    type Result<'s> = Empty;

    fn handle(_: &Session, _: ProtocolVersion, _: IgnoredAny) -> Result<Empty, RpcError> {
        Ok(Empty)
    }
}

impl Respond for DiscoverResult<'_> {
    fn respond(self, reply: Reply<'_>) -> Frame {
        reply.discover(&self)
    }
}

/// `server/discover` (2026-07-28): what this server offers, cacheable. Its
/// params, beyond the envelope the era rules read, are ignored.
#[derive(Debug)]
pub(in crate::session) struct Discover;

impl Method for Discover {
    const NAME: &'static str = "server/discover";
    const ERAS: Eras = Eras::Modern;
    const CAPABILITY: Option<table::Capability> = None;
    type Params<'p> = IgnoredAny;
    type Result<'s> = DiscoverResult<'s>;

    fn handle<'s>(
        session: &'s Session,
        version: ProtocolVersion,
        _: IgnoredAny,
    ) -> Result<DiscoverResult<'s>, RpcError> {
        let identity = &session.shared.identity;
        Ok(DiscoverResult::new(
            identity.instructions.as_deref(),
            identity.list_ttl_ms,
            session.connection.lifecycle().supported_versions(),
            table::capabilities(version, session.shared.tools.registry().has_task_tools()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::Server;
    use crate::session::test_session;

    #[test]
    fn ping_answers_empty() {
        let (session, mut frames) = test_session(Server::new("t", "0"));
        let result = Ping::handle(&session, ProtocolVersion::V2025_11_25, IgnoredAny);
        assert_eq!(result.ok(), Some(Empty));
        assert!(frames.try_recv().is_none());
    }

    #[test]
    fn discover_describes_the_server_with_the_tables_capabilities() {
        let server = Server::new("t", "0")
            .instructions("Be brief.")
            .list_ttl(std::time::Duration::from_secs(7));
        let (session, mut frames) = test_session(server);
        let version = ProtocolVersion::V2026_07_28;
        let result = Discover::handle(&session, version, IgnoredAny).expect("a result");
        let id = RawValue::from_string("3".to_owned()).unwrap();
        let frame = result.respond(session.reply(&id, version));
        let response: Value = serde_json::from_slice(&frame.into_bytes()).unwrap();
        let result = &response["result"];
        assert_eq!(
            result["capabilities"],
            json!({"tools": {"listChanged": true}})
        );
        assert_eq!(result["instructions"], "Be brief.");
        assert_eq!(result["ttlMs"], 7000);
        // A fresh connection may still open a legacy session: every version.
        assert_eq!(
            result["supportedVersions"].as_array().map(Vec::len),
            Some(ProtocolVersion::ALL.len())
        );
        assert!(frames.try_recv().is_none());
    }
}
