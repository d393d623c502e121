//! `initialize`, `ping` and `server/discover`: opening a session, checking
//! it is alive, and describing the server.

use crate::conn::client::ClientInfo;
use crate::conn::lifecycle::Lifecycle;
use crate::protocol::ProtocolVersion;
use crate::protocol::outgoing::{DiscoverResult, InitializeResult};
use crate::session::era;
use crate::session::{Failure, Session, parse_params};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::borrow::Cow;

impl Session {
    pub(in crate::session) fn initialize(
        &mut self,
        id: &RawValue,
        params: Option<&RawValue>,
    ) -> Result<(), Failure> {
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
        );
        tracing::debug!(%version, %requested, "initialized a legacy session");
        self.connection
            .send(self.reply(id, version).initialize(&result));
        Ok(())
    }

    pub(in crate::session) fn ping(
        &mut self,
        id: &RawValue,
        version: ProtocolVersion,
    ) -> Result<(), Failure> {
        self.connection.send(self.reply(id, version).empty());
        Ok(())
    }

    pub(in crate::session) fn discover(
        &mut self,
        id: &RawValue,
        version: ProtocolVersion,
    ) -> Result<(), Failure> {
        let identity = &self.shared.identity;
        let result = DiscoverResult::new(
            identity.instructions.as_deref(),
            identity.list_ttl_ms,
            self.connection.lifecycle().supported_versions(),
        );
        self.connection
            .send(self.reply(id, version).discover(&result));
        Ok(())
    }
}
