//! The seam between a running call and its client: what the call sends its
//! client (progress, log messages) and asks it (elicitation, sampling,
//! roots).
//! Every call has one peer, and the context asks it rather than knowing
//! which kind it has: the connection the call came on (the wire, rendering
//! frames into its outbox, borrowed and allocation-free as before), the
//! in-process door's callbacks (`local/`, typed values of
//! [`crate::protocol::model`]), or a task's record once the call became a
//! task (`session/tasks.rs`).

use super::connection::Connection;
use crate::level::Level;
use crate::protocol::model::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult,
    LoggingMessageParams, ProgressParams, RpcError,
};
use crate::protocol::{ProtocolVersion, outgoing};
use crate::util::BoxFuture;
use serde_json::Value;
use std::fmt;

pub(crate) use crate::protocol::outgoing::{LogMessage, Progress};

impl Progress<'_> {
    /// As the model's params (for a peer that takes typed values).
    pub(crate) fn to_model(&self) -> ProgressParams {
        ProgressParams {
            progress_token: self.token.clone(),
            progress: self.progress,
            total: self.total,
            message: self.message.map(str::to_owned),
        }
    }
}

impl LogMessage<'_> {
    /// As the model's params (for a peer that takes typed values).
    pub(crate) fn into_model(self) -> LoggingMessageParams {
        LoggingMessageParams {
            level: self.level.as_str().to_owned(),
            logger: Some(self.logger.to_owned()),
            data: self.data,
        }
    }
}

/// How a peer takes a question (an elicitation, a sampling request).
pub(crate) enum Asked<T> {
    /// The peer answers it: the future of its answer.
    Answer(BoxFuture<Result<T, RpcError>>),
    /// The peer cannot answer one (its client declares no such capability).
    Unable,
    /// The call asks it on the wire itself: a request to the client in a
    /// legacy session, an `input_required` round in the 2026-07-28 era.
    /// Only the call knows the round's answers and where its result goes,
    /// so the connection hands the question back.
    OnTheWire,
}

/// A call's client, however it is reached.
pub(crate) trait Peer: Send + Sync + fmt::Debug {
    /// The token progress is reported under, given the one the request
    /// carried; `None`: no progress is reported.
    fn progress_token<'a>(&'a self, requested: Option<&'a Value>) -> Option<&'a Value>;

    /// A `notifications/progress`.
    fn progress(&self, progress: Progress<'_>);

    /// The level at and above which log messages are sent, if any, for a
    /// call under `version` whose request set `requested` (2026-07-28).
    fn log_level(&self, version: ProtocolVersion, requested: Option<Level>) -> Option<Level>;

    /// A `notifications/message`.
    fn log(&self, message: LogMessage<'_>);

    /// An `elicitation/create`.
    fn elicit(&self, params: ElicitParams) -> Asked<ElicitResult>;

    /// A `sampling/createMessage`.
    fn sample(&self, params: CreateMessageParams) -> Asked<CreateMessageResult>;

    /// A `roots/list`.
    fn roots(&self) -> Asked<ListRootsResult>;
}

/// The wire: notifications become frames in the connection's outbox
/// (dropped while the client leaves too much output unread), and questions
/// are asked by the call itself ([`Asked::OnTheWire`]).
impl Peer for Connection {
    fn progress_token<'a>(&'a self, requested: Option<&'a Value>) -> Option<&'a Value> {
        requested
    }

    fn progress(&self, progress: Progress<'_>) {
        self.notify(outgoing::progress(&progress));
    }

    /// The request's `logLevel` (2026-07-28) or the session's
    /// `logging/setLevel` (legacy).
    fn log_level(&self, version: ProtocolVersion, requested: Option<Level>) -> Option<Level> {
        if version.is_modern() {
            requested
        } else {
            Connection::log_level(self)
        }
    }

    fn log(&self, message: LogMessage<'_>) {
        self.notify(outgoing::log_message(&message));
    }

    fn elicit(&self, _: ElicitParams) -> Asked<ElicitResult> {
        Asked::OnTheWire
    }

    fn sample(&self, _: CreateMessageParams) -> Asked<CreateMessageResult> {
        Asked::OnTheWire
    }

    fn roots(&self) -> Asked<ListRootsResult> {
        Asked::OnTheWire
    }
}
