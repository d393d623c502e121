//! Our requests waiting for their answers, and the ones given up on.

use crate::error::ClientError;
use serde_json::value::RawValue;
use std::collections::{BTreeSet, HashMap};
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

/// Who an answer goes to, by [`State::settle`].
#[derive(Debug)]
pub(super) enum Settled {
    /// The caller still waiting for it.
    Waiting(oneshot::Sender<Answer>),
    /// No one: the request was given up on, so the answer is expected and
    /// dropped quietly.
    Abandoned,
    /// No one, and unexpected: worth a warning.
    Unknown,
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

    /// Takes the caller waiting for the answer to `id`, if any, and forgets
    /// `id` as given up on: a second answer to it is unknown.
    pub(super) fn settle(&mut self, id: u64) -> Settled {
        let waiter = self.pending.remove(&id);
        let abandoned = self.abandoned.remove(&id);
        match waiter {
            Some(waiter) => Settled::Waiting(waiter),
            None if abandoned => Settled::Abandoned,
            None => Settled::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_to_an_unknown_id_is_unknown() {
        let mut state = State::default();
        assert!(matches!(state.settle(99), Settled::Unknown));
    }

    #[test]
    fn an_answer_goes_to_its_waiter_once() {
        let mut state = State::default();
        let (tx, _rx) = oneshot::channel();
        state.pending.insert(1, tx);
        assert!(matches!(state.settle(1), Settled::Waiting(_)));
        assert!(matches!(state.settle(1), Settled::Unknown));
        assert!(state.pending.is_empty());
    }

    #[test]
    fn a_late_answer_is_quiet_once_and_a_second_one_is_unknown() {
        let mut state = State::default();
        state.abandon(7);
        assert!(matches!(state.settle(7), Settled::Abandoned));
        assert!(matches!(state.settle(7), Settled::Unknown));
    }

    #[test]
    fn the_late_answer_memory_forgets_the_oldest_past_its_bound() {
        let mut state = State::default();
        for id in 0..=MAX_ABANDONED as u64 {
            state.abandon(id);
        }
        assert_eq!(state.abandoned.len(), MAX_ABANDONED);
        assert!(matches!(state.settle(0), Settled::Unknown));
        assert!(matches!(state.settle(1), Settled::Abandoned));
        assert!(matches!(
            state.settle(MAX_ABANDONED as u64),
            Settled::Abandoned
        ));
    }
}
