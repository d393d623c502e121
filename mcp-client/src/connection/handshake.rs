//! The handshake of each era: `server/discover` (2026-07-28) and the
//! legacy `initialize`, and when a failed probe means "legacy server".

use super::{Era, McpClient, handler::HostHandler, raw_params, request};
use crate::{ClientError, Dispatcher, McpError, RequestOptions, RpcError};
use mcpfn_protocol::ProtocolVersion;
use mcpfn_protocol::http;
use mcpfn_protocol::meta::Envelope;
use mcpfn_protocol::model::method::{Discover, Initialize, Initialized, Notification, Request};
use mcpfn_protocol::model::{
    ClientCapabilities, DiscoverResult, Implementation, InitializeParams, MetaParams,
};
use std::time::Duration;

impl McpClient {
    /// What a handshake needs, borrowed from the client.
    pub(super) fn parts(&self) -> Parts<'_> {
        Parts {
            server: &self.inner.config.name,
            handler: &self.inner.handler,
            http: self.inner.http,
            envelope: &self.inner.envelope,
            capabilities: &self.inner.capabilities,
            client_info: &self.inner.options.client_info,
            handshake_timeout: self.inner.options.handshake_timeout,
        }
    }
}

/// Whether a failed `server/discover` probe means "legacy server": every
/// JSON-RPC error but a `-32022` naming only modern revisions, an HTTP 4xx,
/// a timeout, a malformed answer (the Python SDK's denylist).
pub(super) fn falls_back(error: &ClientError) -> bool {
    match error {
        ClientError::Rpc(e) if e.code == UNSUPPORTED_VERSION => match supported_versions(e) {
            Some(list) => list
                .iter()
                .any(|v| ProtocolVersion::parse(v).is_some_and(|v| !v.is_modern())),
            None => true,
        },
        ClientError::Rpc(_) | ClientError::Timeout { .. } | ClientError::Malformed { .. } => true,
        ClientError::Http { status, .. } => (400..500).contains(status),
        _ => false,
    }
}

/// The JSON-RPC code of "unsupported protocol version" (HTTP 400), whose
/// `data.supported` lists the revisions the server speaks.
const UNSUPPORTED_VERSION: i64 = -32022;

/// The `supported` list of an unsupported-version error, if it has one.
fn supported_versions(error: &RpcError) -> Option<Vec<String>> {
    error
        .data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(|s| serde_json::from_value(s.clone()).ok())
}

/// What a handshake needs, borrowed from the client (also before it exists).
pub(super) struct Parts<'a> {
    pub(super) server: &'a str,
    pub(super) handler: &'a HostHandler,
    pub(super) http: bool,
    pub(super) envelope: &'a Envelope<'static>,
    pub(super) capabilities: &'a ClientCapabilities,
    pub(super) client_info: &'a Implementation,
    pub(super) handshake_timeout: Duration,
}

impl Parts<'_> {
    fn handshake_options(&self, timeout: Duration) -> RequestOptions {
        let mut options = RequestOptions::timeout(timeout);
        // Neither `initialize` nor `server/discover` is cancellable.
        options.cancel_notification = false;
        options
    }

    /// `server/discover`: `Some(Modern)` when the server speaks 2026-07-28,
    /// `None` when its answer names only legacy revisions.
    pub(super) async fn discover(
        &self,
        dispatcher: &Dispatcher,
        timeout: Duration,
    ) -> Result<Option<Era>, McpError> {
        let params = MetaParams {
            meta: self.envelope.clone(),
        };
        let version = ProtocolVersion::V2026_07_28.as_str();
        let options = self
            .handshake_options(timeout)
            .header(http::PROTOCOL_VERSION, version)
            .header(http::METHOD, Discover::METHOD);
        let params = raw_params(&params);
        let result = match dispatcher
            .request(Discover::METHOD, Some(&params), options.clone())
            .await
        {
            // Refused as unsupported while naming the revision asked for
            // as supported (a server that rejects a client's first choice
            // to see it retry): the spec's "retry with a listed version",
            // once, with the one modern revision this client speaks.
            Err(ClientError::Rpc(e))
                if e.code == UNSUPPORTED_VERSION
                    && supported_versions(&e)
                        .is_some_and(|list| list.iter().any(|v| v == version)) =>
            {
                tracing::debug!(server = %self.server, error = %e, "server/discover refused the version it lists; asked again");
                dispatcher
                    .request(Discover::METHOD, Some(&params), options)
                    .await?
            }
            other => other?,
        };
        let Ok(result) = serde_json::from_str::<DiscoverResult>(result.get()) else {
            return Ok(None);
        };
        if !result.supported_versions.iter().any(|v| v == version) {
            return Ok(None);
        }
        if self.http {
            dispatcher.set_headers(&[(http::PROTOCOL_VERSION.to_owned(), version.to_owned())])?;
        }
        *self
            .handler
            .server_capabilities
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = result.capabilities;
        tracing::debug!(server = %self.server, "speaking 2026-07-28");
        Ok(Some(Era::Modern))
    }

    /// The legacy handshake after a `server/discover` probe that failed in
    /// a way that means "legacy server". A refusal of `initialize` as
    /// unsupported that names only modern revisions means the probe was
    /// answered after all, late (a modern server slower to start than the
    /// probe's wait), and the connection now speaks 2026-07-28: the probe
    /// is sent again, within the handshake's own timeout.
    pub(super) async fn initialize_after_probe(
        &self,
        dispatcher: &Dispatcher,
    ) -> Result<Era, McpError> {
        match self.initialize(dispatcher).await {
            Err(McpError::Client(refusal))
                if matches!(&refusal, ClientError::Rpc(e) if e.code == UNSUPPORTED_VERSION)
                    && !falls_back(&refusal) =>
            {
                tracing::debug!(server = %self.server, error = %refusal, "initialize refused for 2026-07-28; server/discover again");
                match self.discover(dispatcher, self.handshake_timeout).await? {
                    Some(era) => Ok(era),
                    None => Err(McpError::Client(refusal)),
                }
            }
            other => other,
        }
    }

    /// The legacy handshake.
    pub(super) async fn initialize(&self, dispatcher: &Dispatcher) -> Result<Era, McpError> {
        let params = InitializeParams {
            protocol_version: ProtocolVersion::LATEST_LEGACY.as_str().to_owned(),
            capabilities: self.capabilities.clone(),
            client_info: self.client_info.clone(),
        };
        let options = self.handshake_options(self.handshake_timeout);
        let result = request::<Initialize>(dispatcher, self.server, &params, options).await?;
        let version = match ProtocolVersion::parse(&result.protocol_version) {
            Some(v) if !v.is_modern() => v,
            _ => {
                return Err(McpError::UnsupportedVersion {
                    server: self.server.to_owned(),
                    version: result.protocol_version,
                });
            }
        };
        *self
            .handler
            .server_capabilities
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = result.capabilities;
        dispatcher.notify(Initialized::METHOD, None, &[]).await?;
        if self.http {
            dispatcher.set_headers(&[(
                http::PROTOCOL_VERSION.to_owned(),
                version.as_str().to_owned(),
            )])?;
            // The GET stream carries `list_changed`; a server without one
            // (405) is fine.
            if let Err(e) = dispatcher.listen().await {
                tracing::debug!(server = %self.server, error = %e, "no GET stream");
            }
        }
        tracing::debug!(server = %self.server, version = %version, "speaking the legacy handshake");
        Ok(Era::Legacy(version))
    }
}
