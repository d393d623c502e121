//! How a call becomes a task (Tasks extension): the session's
//! [`TaskStart`] seam and the context's side of it.

use super::Context;
use crate::conn::peer::Peer;
use crate::outcome::ToolError;
use std::sync::Arc;

/// What [`TaskStart::begin`] returns: the peer of the task, once stored.
pub(crate) type TaskBegun<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Arc<dyn Peer>, ToolError>> + Send + 'a>,
>;

/// How a call becomes a task: implemented by the session, which stores
/// the task, answers the request with it, and gives back the peer the rest
/// of the call talks to.
pub(crate) trait TaskStart: Send + Sync {
    /// Makes the call of `ctx` a task.
    fn begin<'a>(&'a self, ctx: &'a Context) -> TaskBegun<'a>;
}

impl Context {
    /// Lets the call become a task (the session decided it may).
    pub(crate) fn allow_task(&self, start: Arc<dyn TaskStart>) {
        let _ = self.inner.task_start.set(start);
    }

    /// Makes a run that is a task from its start (a resumed one) talk to
    /// the task's `peer`.
    pub(crate) fn resume_task(&self, peer: Arc<dyn Peer>) {
        let _ = self.inner.task.set(peer);
    }

    /// Whether the call runs as a task (Tasks extension): the request was
    /// answered with the task, and the client polls it for the result.
    pub fn is_task(&self) -> bool {
        self.inner.task.get().is_some()
    }

    /// Makes the call a task from here on, when it may be one (a tool with
    /// `task = "optional" | "required"`, a client that declares the
    /// extension): the request is answered with the task, and the rest of
    /// the tool runs after it, its progress becoming the task's
    /// `statusMessage` and its questions the task's `input_required`
    /// rounds. What the tool asked before (`ctx.elicit`, `ctx.sample`) was
    /// asked on the request itself, in 2026-07-28 rounds, before any task
    /// existed. Without a call here a task tool becomes a task before its
    /// first line. Does nothing when the call cannot be a task, or already
    /// is one; fails when the task cannot be stored.
    pub async fn begin_task(&self) -> Result<(), ToolError> {
        let Some(start) = self.inner.task_start.get() else {
            return Ok(());
        };
        self.inner
            .task
            .get_or_try_init(|| start.begin(self))
            .await
            .map(|_| ())
    }
}
