//! What both test clients are configured with before they connect: one
//! builder, [`ClientBuilder<Via>`], whose `Via` says which client its
//! `connect` makes: [`Door`] (the default) a [`Client`](super::Client) on
//! the in-process door, [`Wire`] a [`wire::Client`](super::wire::Client)
//! speaking JSON-RPC lines.

use super::{ElicitationHandler, SamplingHandler};
use crate::Server;
use crate::level::Level;
use crate::protocol::ProtocolVersion;
use serde_json::Value;
use std::fmt;
use std::marker::PhantomData;

/// `ClientBuilder<Door>` connects a [`Client`](super::Client), over the
/// in-process door.
#[derive(Debug)]
pub enum Door {}

/// `ClientBuilder<Wire>` connects a [`wire::Client`](super::wire::Client),
/// over the memory transport.
#[derive(Debug)]
pub enum Wire {}

/// Configures a test client before it connects.
#[must_use]
pub struct ClientBuilder<Via = Door> {
    pub(super) server: Server,
    pub(super) version: ProtocolVersion,
    pub(super) elicitation: Option<ElicitationHandler>,
    pub(super) sampling: Option<SamplingHandler>,
    pub(super) log_level: Option<Level>,
    via: PhantomData<Via>,
}

impl<Via> fmt::Debug for ClientBuilder<Via> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("version", &self.version)
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("log_level", &self.log_level)
            .finish_non_exhaustive()
    }
}

impl<Via> ClientBuilder<Via> {
    pub(super) fn new(server: Server) -> Self {
        ClientBuilder {
            server,
            version: ProtocolVersion::LATEST,
            elicitation: None,
            sampling: None,
            log_level: None,
            via: PhantomData,
        }
    }

    /// The protocol revision, the latest by default. On the door the tools
    /// see it ([`Context::protocol_version`](crate::Context::protocol_version));
    /// over the wire a legacy version does the `initialize` handshake and
    /// 2026-07-28 sends the `_meta` envelope on every request.
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.version = version;
        self
    }

    /// Declares the `elicitation` capability and answers the tools'
    /// elicitations with `handler`: it gets the request's params as JSON and
    /// returns the `ElicitResult` (e.g. `{"action":"accept","content":{…}}`).
    /// Over the wire they come as `elicitation/create` requests (legacy) or
    /// `input_required` results, retried with the answers (2026-07-28).
    pub fn on_elicitation(mut self, handler: impl FnMut(&Value) -> Value + Send + 'static) -> Self {
        self.elicitation = Some(Box::new(handler));
        self
    }

    /// Declares the `sampling` capability and answers the tools' sampling
    /// requests with `handler`: it gets the params as JSON and returns the
    /// `CreateMessageResult` (e.g.
    /// `{"role":"assistant","content":{"type":"text","text":"…"},"model":"m"}`),
    /// over the wire as [`ClientBuilder::on_elicitation`] says.
    pub fn on_sampling(mut self, handler: impl FnMut(&Value) -> Value + Send + 'static) -> Self {
        self.sampling = Some(Box::new(handler));
        self
    }

    /// Receives the log messages tools send at `level` and above (without
    /// it, none on the door); over the wire through `logging/setLevel`
    /// (legacy) or the per-request `logLevel` (2026-07-28).
    pub fn log_level(mut self, level: Level) -> Self {
        self.log_level = Some(level);
        self
    }
}
