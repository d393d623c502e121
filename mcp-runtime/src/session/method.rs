//! What a handler is: the traits a method family implements on the
//! protocol's markers (`mcpfn_protocol::model::method`, which declare each
//! method's name, revisions and capability once), [`Method`] for a typed
//! request and reply, [`Streaming`] for a stream. The method families
//! under `methods/` implement them and the table ([`super::table`]) lists
//! them; both import this file, neither the other.

use super::Session;
use super::era::RequestInfo;
use crate::protocol::ProtocolVersion;
use crate::protocol::RpcError;
use crate::protocol::frame::Frame;
use crate::protocol::model::method::Request;
use crate::protocol::outgoing::Reply;
use serde::Deserialize;
use serde_json::value::RawValue;

/// A method with typed params and result, served on the protocol's marker
/// (`impl Method for method::Ping`): its name, revisions and capability
/// are the marker's ([`Request`]); the router parses the params as
/// [`Method::ParamsRef`], calls [`Method::handle`] and replies with the
/// result.
pub(super) trait Method: Request {
    /// Whether it is the handshake (`initialize`), which is what opens a
    /// legacy session, so the router runs it ahead of the era rules when
    /// it comes bare (without the 2026-07-28 envelope). Its handler
    /// negotiates the version itself; the router serves it as a legacy
    /// request ([`ProtocolVersion::LATEST_LEGACY`]: no legacy reply
    /// carries the envelope, so which legacy version does not change a
    /// byte). An enveloped one goes through the era rules to `-32601`.
    const HANDSHAKE: bool = false;
    /// Its params as the server reads them, borrowed from the request
    /// where they can be.
    type ParamsRef<'p>: Deserialize<'p>;
    /// Its result, borrowed from the session where it can be.
    type Answer<'s>: Respond;
    /// The result for `params`, or why there is none. `version` is the
    /// request's revision (for the handshake, see [`Method::HANDSHAKE`]).
    fn handle<'s>(
        session: &'s Session,
        version: ProtocolVersion,
        params: Self::ParamsRef<'_>,
    ) -> Result<Self::Answer<'s>, RpcError>;
}

/// How a result becomes its response frame, shaped for the request by `reply`.
pub(super) trait Respond {
    /// The response frame.
    fn respond(self, reply: Reply<'_>) -> Frame;
}

/// A method whose answer is a stream (`subscriptions/listen`): the router
/// parses the params as [`Streaming::ParamsRef`], [`Streaming::accept`]
/// checks them and says what the stream carries, the router writes that
/// acknowledgement (the stream's first message), then [`Streaming::start`]
/// starts the stream. Not a [`Method`]: the acknowledgement is a
/// notification tagged with the subscription, not the response, which
/// comes only when the stream ends (at shutdown; a cancelled stream gets
/// none). The split keeps the checks testable without an outbox and the
/// acknowledgement ahead of anything the stream sends.
pub(super) trait Streaming: Request {
    /// Its params as the server reads them, borrowed from the request
    /// where they can be.
    type ParamsRef<'p>: Deserialize<'p>;
    /// What the stream was accepted for: written first, then started.
    type Ack: Acknowledge;
    /// The stream request `id` of `info`'s caller opens, or why it opens
    /// none.
    fn accept(
        session: &Session,
        id: &RawValue,
        info: &RequestInfo,
        params: Self::ParamsRef<'_>,
    ) -> Result<Self::Ack, RpcError>;
    /// Starts sending what `ack` accepted, after the router wrote it.
    fn start(session: &Session, ack: Self::Ack);
}

/// How an accepted stream's first message is written.
pub(super) trait Acknowledge {
    /// The acknowledgement frame.
    fn acknowledge(&self) -> Frame;
}
