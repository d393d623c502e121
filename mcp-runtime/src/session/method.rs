//! What a method is, apart from the table that lists it: the eras it
//! exists in ([`Eras`]), the capability its family implies
//! ([`Capability`]), and the traits a handler implements ([`Method`] for a
//! typed request and reply, [`Streaming`] for a stream). The method
//! families under `methods/` implement them and the table
//! ([`super::table`]) lists them; both import this file, neither the other.

use super::Session;
use super::era::RequestInfo;
use crate::protocol::ProtocolVersion;
use crate::protocol::RpcError;
use crate::protocol::frame::Frame;
use crate::protocol::outgoing::Reply;
use serde::Deserialize;
use serde_json::value::RawValue;

/// The eras a method exists in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Eras {
    /// Before any era: the handshake (`initialize`), which is what opens a
    /// legacy session, so the router runs it ahead of the era rules when it
    /// comes bare (without the 2026-07-28 envelope). Its handler negotiates
    /// the version itself; the router serves it as a legacy request
    /// ([`ProtocolVersion::LATEST_LEGACY`]: no legacy reply carries the
    /// envelope, so which legacy version does not change a byte). It is in
    /// no era: an enveloped request for it is a 2026-07-28 request, and that
    /// era has no such method (`-32601`).
    Handshake,
    /// Only in a legacy session (opened by `initialize`, 2024-11-05..2025-11-25).
    Legacy,
    /// Only in the stateless 2026-07-28 era.
    Modern,
    /// In both.
    Both,
}

impl Eras {
    /// Whether a request served under `version` may call the method.
    pub(super) fn include(self, version: ProtocolVersion) -> bool {
        match self {
            Eras::Handshake => false,
            Eras::Legacy => !version.is_modern(),
            Eras::Modern => version.is_modern(),
            Eras::Both => true,
        }
    }
}

/// What a method family tells the client the server offers, in the
/// `capabilities` of `initialize` and `server/discover`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Capability {
    /// `logging: {}`: the client may set the level (`logging/setLevel`).
    Logging,
    /// `tools: {"listChanged": true}`: the tool list can change while
    /// serving (`ToolSet`), and the session says so in both eras.
    Tools,
    /// `extensions: {"io.modelcontextprotocol/tasks": {}}`: tools may run
    /// as tasks, polled with `tasks/*` (when a tool does).
    Tasks,
}

/// A method with typed params and result: the router parses the params as
/// [`Method::Params`], calls [`Method::handle`] and replies with the result.
pub(super) trait Method {
    /// The JSON-RPC method name.
    const NAME: &'static str;
    /// The eras it exists in; outside them it is `-32601`.
    const ERAS: Eras;
    /// The capability its family implies, if any.
    const CAPABILITY: Option<Capability>;
    /// Its params, borrowed from the request where they can be.
    type Params<'p>: Deserialize<'p>;
    /// Its result, borrowed from the session where it can be.
    type Result<'s>: Respond;
    /// The result for `params`, or why there is none. `version` is the
    /// request's revision (for the handshake, see [`Eras::Handshake`]).
    fn handle<'s>(
        session: &'s Session,
        version: ProtocolVersion,
        params: Self::Params<'_>,
    ) -> Result<Self::Result<'s>, RpcError>;
}

/// How a result becomes its response frame, shaped for the request by `reply`.
pub(super) trait Respond {
    /// The response frame.
    fn respond(self, reply: Reply<'_>) -> Frame;
}

/// A method whose answer is a stream (`subscriptions/listen`): the router
/// parses the params as [`Streaming::Params`], [`Streaming::accept`]
/// checks them and says what the stream carries, the router writes that
/// acknowledgement (the stream's first message), then [`Streaming::start`]
/// starts the stream. Not a [`Method`]: the acknowledgement is a
/// notification tagged with the subscription, not the response, which
/// comes only when the stream ends (at shutdown; a cancelled stream gets
/// none). The split keeps the checks testable without an outbox and the
/// acknowledgement ahead of anything the stream sends.
pub(super) trait Streaming {
    /// The JSON-RPC method name.
    const NAME: &'static str;
    /// The eras it exists in; outside them it is `-32601`.
    const ERAS: Eras;
    /// The capability its family implies, if any.
    const CAPABILITY: Option<Capability>;
    /// Its params, borrowed from the request where they can be.
    type Params<'p>: Deserialize<'p>;
    /// What the stream was accepted for: written first, then started.
    type Ack: Acknowledge;
    /// The stream request `id` of `info`'s caller opens, or why it opens
    /// none.
    fn accept(
        session: &Session,
        id: &RawValue,
        info: &RequestInfo,
        params: Self::Params<'_>,
    ) -> Result<Self::Ack, RpcError>;
    /// Starts sending what `ack` accepted, after the router wrote it.
    fn start(session: &Session, ack: Self::Ack);
}

/// How an accepted stream's first message is written.
pub(super) trait Acknowledge {
    /// The acknowledgement frame.
    fn acknowledge(&self) -> Frame;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eras_include_their_versions() {
        let (legacy, modern) = (ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28);
        assert!(Eras::Legacy.include(legacy) && !Eras::Legacy.include(modern));
        assert!(!Eras::Modern.include(legacy) && Eras::Modern.include(modern));
        assert!(Eras::Both.include(legacy) && Eras::Both.include(modern));
        assert!(!Eras::Handshake.include(legacy) && !Eras::Handshake.include(modern));
        // Why the handshake may be replied to as any legacy request: no
        // legacy reply carries the envelope.
        assert!(!ProtocolVersion::LATEST_LEGACY.carries().envelope);
    }
}
