//! Our requests waiting for their answers, and the ones given up on.

use super::shared::Shared;
use crate::error::ClientError;
use serde_json::value::RawValue;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use tokio::sync::oneshot;

pub(super) type Answer = Result<Box<RawValue>, ClientError>;

#[derive(Default)]
pub(super) struct State {
    pub(super) pending: HashMap<u64, oneshot::Sender<Answer>>,
    /// The latest requests given up on (cancelled, timed out, dropped at
    /// close) whose answers have not come: a server may still answer one
    /// (the cancellation crossed its answer, or a server that stops answers
    /// its open `subscriptions/listen` as it ends). Such an answer is
    /// expected and dropped quietly; any other answer no one waits for
    /// still warns. At most [`MAX_ABANDONED`], the oldest forgotten first.
    pub(super) abandoned: BTreeSet<u64>,
    /// Set once the connection is over; every later request fails with it.
    pub(super) closed: Option<ClientError>,
}

/// The most ids [`State::abandoned`] remembers.
pub(super) const MAX_ABANDONED: usize = 1024;

impl State {
    /// Remembers `id` as given up on.
    pub(super) fn abandon(&mut self, id: u64) {
        self.abandoned.insert(id);
        if self.abandoned.len() > MAX_ABANDONED {
            self.abandoned.pop_first();
        }
    }
}

/// Cancels a request that is dropped or times out before its answer.
pub(super) struct PendingGuard<'a> {
    pub(super) shared: &'a Arc<Shared>,
    pub(super) id: u64,
    pub(super) method: &'a str,
    pub(super) notify: bool,
    pub(super) armed: bool,
    pub(super) reason: &'static str,
}

impl PendingGuard<'_> {
    /// The request is over without a cancellation (answered, or never sent).
    pub(super) fn forget(&mut self) {
        self.armed = false;
        self.shared.lock().pending.remove(&self.id);
    }
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        // Still pending means unanswered: cancel it. Gone means the answer
        // won the race and there is nothing to cancel.
        let unanswered = {
            let mut state = self.shared.lock();
            let unanswered = state.pending.remove(&self.id).is_some();
            if unanswered {
                state.abandon(self.id);
            }
            unanswered
        };
        if unanswered {
            self.shared
                .cancel(self.id, self.method, self.reason, self.notify);
        }
    }
}
