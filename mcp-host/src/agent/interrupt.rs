//! A line cut short: interrupted by the user ([`Interrupt`],
//! [`Line::interrupt`]) or past its deadline
//! ([`Interrupt::with_deadline`], [`AgentBuilder::line_timeout`]). Both
//! take the one path below; only the stop reason ([`INTERRUPTED`],
//! [`TIMED_OUT`]) and what the calls cut short are told differ.
//!
//! What a line cut short leaves in the history is what is true, as for a
//! failed request: a model request under way is dropped (its response
//! never arrived) and what the line added after its last tool results is
//! rolled back (all of the line, its text included, when no tool round was
//! answered); a round of calls under way is kept, each call that had not
//! returned answered with an `isError` result saying why it was cut short
//! ([`CallFailure::Interrupted`], [`CallFailure::LineTimedOut`], or
//! [`CallFailure::NotRun`] for one not yet started), so no `tool_use` is
//! left without its result and the model sees which calls did run (their
//! side effects happened). The calls still running are dropped: their
//! servers get `notifications/cancelled` (over Streamable HTTP, as a POST
//! of that notification; the request's stream is abandoned).
//!
//! [`Line::interrupt`]: super::Line::interrupt
//! [`AgentBuilder::line_timeout`]: super::AgentBuilder::line_timeout
//! [`CallFailure::Interrupted`]: crate::call_result::CallFailure::Interrupted
//! [`CallFailure::LineTimedOut`]: crate::call_result::CallFailure::LineTimedOut
//! [`CallFailure::NotRun`]: crate::call_result::CallFailure::NotRun

use crate::call_result::CallFailure;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// The stop reason of an interrupted line ([`Answer::stop_reason`]).
///
/// [`Answer::stop_reason`]: super::Answer::stop_reason
pub const INTERRUPTED: &str = "interrupted";

/// The stop reason of a line cut short at its deadline
/// ([`Answer::stop_reason`]).
///
/// [`Answer::stop_reason`]: super::Answer::stop_reason
pub const TIMED_OUT: &str = "timed_out";

/// Why a line was cut short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// [`Interrupt::interrupt`] was called (the user's Ctrl-C).
    User,
    /// The deadline passed; it was this long after the line began.
    Deadline(Duration),
}

impl Cause {
    /// The stop reason of a line cut short for this cause.
    pub fn stop_reason(self) -> &'static str {
        match self {
            Cause::User => INTERRUPTED,
            Cause::Deadline(_) => TIMED_OUT,
        }
    }

    /// The result of a call that was running when the line was cut short.
    pub(super) fn call_failure(self) -> CallFailure {
        match self {
            Cause::User => CallFailure::Interrupted,
            Cause::Deadline(after) => CallFailure::LineTimedOut { after },
        }
    }

    /// Why a call was not started once the line was cut short.
    pub(super) fn not_started(self) -> CallFailure {
        let reason = match self {
            Cause::User => "the user interrupted the line before the call started".to_owned(),
            Cause::Deadline(after) => format!(
                "the line's time limit ({} s) passed before the call started",
                after.as_secs_f64()
            ),
        };
        CallFailure::NotRun { reason }
    }
}

/// A switch that cuts short the lines it is given to: flipped by the
/// caller ([`interrupt`](Self::interrupt)) or, with a deadline, by the
/// clock. Once flipped it stays so (a new line takes a new one); the first
/// cause wins. Clones share the switch and the deadline.
#[derive(Clone, Debug)]
pub struct Interrupt {
    switch: Arc<watch::Sender<Option<Cause>>>,
    /// When the clock flips the switch, and how long after the start that is.
    deadline: Option<(Instant, Duration)>,
}

impl Default for Interrupt {
    fn default() -> Interrupt {
        Interrupt::new()
    }
}

impl Interrupt {
    /// A switch not yet flipped, with no deadline.
    pub fn new() -> Interrupt {
        Interrupt {
            switch: Arc::new(watch::Sender::new(None)),
            deadline: None,
        }
    }

    /// The same switch, also flipped `after` from now (the earlier of this
    /// and a deadline it already had wins).
    pub fn with_deadline(mut self, after: Duration) -> Interrupt {
        let at = Instant::now().checked_add(after);
        match (self.deadline, at) {
            (Some((current, _)), Some(at)) if current <= at => {}
            (_, Some(at)) => self.deadline = Some((at, after)),
            // Too far to be told from never.
            (_, None) => {}
        }
        self
    }

    /// Interrupts the lines given this switch (again, or after the
    /// deadline: nothing more).
    pub fn interrupt(&self) {
        self.flip(Cause::User);
    }

    /// Whether the switch is flipped: [`interrupt`](Self::interrupt) was
    /// called or the deadline passed.
    pub fn is_interrupted(&self) -> bool {
        self.cause().is_some()
    }

    /// Why the switch is flipped; `None` while it is not.
    pub fn cause(&self) -> Option<Cause> {
        if let Some(cause) = *self.switch.borrow() {
            return Some(cause);
        }
        let (at, after) = self.deadline?;
        (Instant::now() >= at).then(|| self.flip(Cause::Deadline(after)))
    }

    /// Completes once the switch is flipped (at once if it is).
    pub async fn interrupted(&self) {
        let mut flipped = self.switch.subscribe();
        // The sender lives as long as `self`: `wait_for` cannot fail.
        let flipped = flipped.wait_for(Option::is_some);
        match self.deadline {
            None => {
                let _ = flipped.await;
            }
            Some((at, after)) => {
                tokio::select! {
                    _ = flipped => {}
                    () = tokio::time::sleep_until(at) => {
                        self.flip(Cause::Deadline(after));
                    }
                }
            }
        }
    }

    /// Flips the switch for `cause` unless it is flipped; the cause it
    /// holds after.
    fn flip(&self, cause: Cause) -> Cause {
        self.switch.send_if_modified(|held| {
            if held.is_none() {
                *held = Some(cause);
                true
            } else {
                false
            }
        });
        self.switch.borrow().unwrap_or(cause)
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
        assert_eq!(interrupt.cause(), Some(Cause::User));
        assert_eq!(interrupt.or_interrupted(async { 1 }).await, Some(1));
        assert_eq!(
            interrupt.or_interrupted(std::future::pending::<u8>()).await,
            None
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_deadline_flips_the_switch_and_the_first_cause_wins() {
        let limit = Duration::from_millis(200);
        let interrupt = Interrupt::new()
            .with_deadline(limit)
            .with_deadline(Duration::from_secs(600));
        let clone = interrupt.clone();
        let started = std::time::Instant::now();
        let waiting =
            tokio::spawn(async move { clone.or_interrupted(std::future::pending::<()>()).await });
        assert_eq!(interrupt.cause(), None);
        assert_eq!(waiting.await.unwrap(), None);
        assert!(started.elapsed() >= limit, "{:?}", started.elapsed());
        let cause = Cause::Deadline(limit);
        assert_eq!(interrupt.cause(), Some(cause));
        interrupt.interrupt();
        assert_eq!(interrupt.cause(), Some(cause));
        assert_eq!(cause.stop_reason(), TIMED_OUT);

        let user_first = Interrupt::new().with_deadline(Duration::from_millis(1));
        user_first.interrupt();
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert_eq!(user_first.cause(), Some(Cause::User));
    }
}
