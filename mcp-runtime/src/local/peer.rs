//! How what a tool sends or asks reaches the door's caller: the handle's
//! callbacks and a call's own ([`CallOptions`]), and [`LocalPeer`], the
//! door's side of the context's `Peer` seam that carries them.

use super::Door;
use crate::conn::peer::{Asked, LogMessage, Peer, Progress};
use crate::level::Level;
use crate::protocol::ProtocolVersion;
use crate::protocol::model::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult,
    LoggingMessageParams, ProgressParams, RpcError,
};
use crate::util::BoxFuture;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub(super) type ElicitFn =
    Arc<dyn Fn(ElicitParams) -> BoxFuture<Result<ElicitResult, RpcError>> + Send + Sync>;
pub(super) type SampleFn = Arc<
    dyn Fn(CreateMessageParams) -> BoxFuture<Result<CreateMessageResult, RpcError>> + Send + Sync,
>;
pub(super) type ProgressFn = Arc<dyn Fn(ProgressParams) + Send + Sync>;
pub(super) type LogFn = Arc<dyn Fn(LoggingMessageParams) + Send + Sync>;

/// How one call runs, besides its arguments ([`LocalClient::call_with`](super::LocalClient::call_with)).
#[derive(Clone, Default)]
#[must_use]
pub struct CallOptions {
    pub(super) progress: Option<ProgressFn>,
    pub(super) log: Option<LogFn>,
    pub(super) log_level: Option<Level>,
    pub(super) timeout: Option<Duration>,
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("log_level", &self.log_level)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl CallOptions {
    /// Options that change nothing (what [`LocalClient::call`](super::LocalClient::call) uses).
    pub fn new() -> CallOptions {
        CallOptions::default()
    }

    /// Receives the call's progress reports (`notifications/progress`),
    /// as if the call carried a `progressToken` (its token is the call's
    /// id).
    pub fn on_progress(
        mut self,
        callback: impl Fn(ProgressParams) + Send + Sync + 'static,
    ) -> CallOptions {
        self.progress = Some(Arc::new(callback));
        self
    }

    /// Receives the log messages the tool sends (`notifications/message`)
    /// at [`CallOptions::log_level`] and above (`debug` unless set).
    pub fn on_log(
        mut self,
        callback: impl Fn(LoggingMessageParams) + Send + Sync + 'static,
    ) -> CallOptions {
        self.log = Some(Arc::new(callback));
        self
    }

    /// The level from which log messages reach [`CallOptions::on_log`].
    pub fn log_level(mut self, level: Level) -> CallOptions {
        self.log_level = Some(level);
        self
    }

    /// Ends the call after `timeout` with the `isError` result a server
    /// timeout gives (the shorter of this and the tool's or server's
    /// timeout applies).
    pub fn timeout(mut self, timeout: Duration) -> CallOptions {
        self.timeout = Some(timeout);
        self
    }
}

/// The door's side of the [`Peer`] seam: the handle's callbacks, and the
/// call's own when it has some.
pub(super) struct LocalPeer {
    pub(super) elicit: Option<ElicitFn>,
    pub(super) sample: Option<SampleFn>,
    pub(super) progress: Option<(ProgressFn, Value)>,
    pub(super) log: Option<(LogFn, Level)>,
}

impl fmt::Debug for LocalPeer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalPeer").finish_non_exhaustive()
    }
}

/// The callbacks take the model's typed values; the call's progress
/// token and log level are the handle's, whatever the call presents.
impl Peer for LocalPeer {
    fn progress_token<'a>(&'a self, _: Option<&'a Value>) -> Option<&'a Value> {
        self.progress.as_ref().map(|(_, token)| token)
    }

    fn progress(&self, progress: Progress<'_>) {
        if let Some((callback, _)) = &self.progress {
            callback(progress.to_model());
        }
    }

    fn log_level(&self, _: ProtocolVersion, _: Option<Level>) -> Option<Level> {
        self.log.as_ref().map(|(_, level)| *level)
    }

    fn log(&self, message: LogMessage<'_>) {
        if let Some((callback, _)) = &self.log {
            callback(message.into_model());
        }
    }

    fn elicit(&self, params: ElicitParams) -> Asked<ElicitResult> {
        match &self.elicit {
            Some(callback) => Asked::Answer(callback(params)),
            None => Asked::Unable,
        }
    }

    fn sample(&self, params: CreateMessageParams) -> Asked<CreateMessageResult> {
        match &self.sample {
            Some(callback) => Asked::Answer(callback(params)),
            None => Asked::Unable,
        }
    }

    /// The door declares no roots: it stands for no client with a workspace.
    fn roots(&self) -> Asked<ListRootsResult> {
        Asked::Unable
    }
}

impl Door {
    /// The peer of a call with `options`: the shared one, unless the call
    /// has callbacks of its own.
    pub(super) fn peer_for(&self, options: &CallOptions, id: u64) -> Arc<dyn Peer> {
        if options.progress.is_none() && options.log.is_none() {
            return Arc::clone(&self.peer) as Arc<dyn Peer>;
        }
        Arc::new(LocalPeer {
            elicit: self.elicit.clone(),
            sample: self.sample.clone(),
            progress: options
                .progress
                .clone()
                .map(|callback| (callback, Value::from(id))),
            log: options
                .log
                .clone()
                .map(|callback| (callback, options.log_level.unwrap_or(Level::Debug))),
        })
    }
}
