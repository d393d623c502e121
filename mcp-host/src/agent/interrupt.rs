//! A line the user interrupts ([`Interrupt`], [`Agent::send_interruptible`]).
//!
//! What an interrupted line leaves in the history is what is true, as for a
//! failed request: a model request under way is dropped (its response
//! never arrived) and what the line added after its last tool results is
//! rolled back (all of the line, its text included, when no tool round was
//! answered); a round of calls under way is kept, each call that had not
//! returned answered with an `isError` result saying the user interrupted
//! it ([`CallFailure::Interrupted`], or [`CallFailure::NotRun`] for one
//! not yet started), so no `tool_use` is left without its result and the
//! model sees which calls did run (their side effects happened). The calls
//! still running are dropped: their servers get `notifications/cancelled`
//! (over Streamable HTTP, as a POST of that notification; the request's
//! stream is abandoned).
//!
//! [`Agent::send_interruptible`]: super::Agent::send_interruptible
//! [`CallFailure::Interrupted`]: crate::call_result::CallFailure::Interrupted
//! [`CallFailure::NotRun`]: crate::call_result::CallFailure::NotRun

use std::sync::Arc;
use tokio::sync::watch;

/// The stop reason of an interrupted line ([`Answer::stop_reason`]).
///
/// [`Answer::stop_reason`]: super::Answer::stop_reason
pub const INTERRUPTED: &str = "interrupted";

/// A switch the caller flips to interrupt the lines it was given to; once
/// flipped it stays so (a new line takes a new one). Clones share it.
#[derive(Clone, Debug)]
pub struct Interrupt(Arc<watch::Sender<bool>>);

impl Default for Interrupt {
    fn default() -> Interrupt {
        Interrupt::new()
    }
}

impl Interrupt {
    /// A switch not yet flipped.
    pub fn new() -> Interrupt {
        Interrupt(Arc::new(watch::Sender::new(false)))
    }

    /// Interrupts the lines given this switch (again: nothing more).
    pub fn interrupt(&self) {
        self.0.send_replace(true);
    }

    /// Whether [`interrupt`](Self::interrupt) was called.
    pub fn is_interrupted(&self) -> bool {
        *self.0.borrow()
    }

    /// Completes once [`interrupt`](Self::interrupt) is called (at once if
    /// it was).
    pub async fn interrupted(&self) {
        // The sender lives as long as `self`: `wait_for` cannot fail.
        let _ = self.0.subscribe().wait_for(|flipped| *flipped).await;
    }

    /// `future`'s output, or `None` when the switch is flipped first (then
    /// `future` is dropped).
    pub(super) async fn or_interrupted<F: Future>(&self, future: F) -> Option<F::Output> {
        tokio::select! {
            biased;
            output = future => Some(output),
            () = self.interrupted() => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn a_flipped_switch_stops_what_waits_on_it_and_stays_flipped() {
        let interrupt = Interrupt::new();
        assert!(!interrupt.is_interrupted());
        let clone = interrupt.clone();
        let waiting =
            tokio::spawn(async move { clone.or_interrupted(std::future::pending::<()>()).await });
        tokio::task::yield_now().await;
        interrupt.interrupt();
        assert_eq!(waiting.await.unwrap(), None);
        assert!(interrupt.is_interrupted());
        assert_eq!(interrupt.or_interrupted(async { 1 }).await, Some(1));
        assert_eq!(
            interrupt.or_interrupted(std::future::pending::<u8>()).await,
            None
        );
    }
}
