//! The seam between a running call and a client that is not at the end of
//! a wire: what the call sends its client (progress, log messages) and asks
//! it (elicitation, sampling) as typed values of the client-direction model
//! ([`crate::protocol::model`]), not frames. The in-process door
//! (`local/`) implements it with its callbacks; a call that came over a
//! transport has no peer, and its context renders frames into the
//! connection's outbox as before (the wire's borrowed, allocation-free
//! rendering stays on its path).

use crate::level::Level;
use crate::protocol::model::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, LoggingMessageParams,
    ProgressParams, RpcError,
};
use crate::util::BoxFuture;
use serde_json::Value;
use std::fmt;

/// A client reached by calls rather than frames.
pub(crate) trait Peer: Send + Sync + fmt::Debug {
    /// The token progress is reported under; `None`: the client did not ask
    /// for progress, and none is reported.
    fn progress_token(&self) -> Option<&Value>;

    /// A `notifications/progress`.
    fn progress(&self, params: ProgressParams);

    /// The level at and above which log messages are sent, if any.
    fn log_level(&self) -> Option<Level>;

    /// A `notifications/message`.
    fn log(&self, params: LoggingMessageParams);

    /// An `elicitation/create`; `None` when the client cannot answer one
    /// (it declares no `elicitation` capability).
    fn elicit(&self, params: ElicitParams) -> Option<BoxFuture<Result<ElicitResult, RpcError>>>;

    /// A `sampling/createMessage`; `None` when the client cannot answer one
    /// (it declares no `sampling` capability).
    fn sample(
        &self,
        params: CreateMessageParams,
    ) -> Option<BoxFuture<Result<CreateMessageResult, RpcError>>>;
}
