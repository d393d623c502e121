//! [`Line`], one user line on its way with its options: the one way a
//! line is sent ([`Agent::send`]).

use super::events;
use super::interrupt::Interrupt;
use super::{Agent, Answer, AnswerError, Conversation};
use std::future::{Future, IntoFuture};
use std::pin::Pin;

/// One user line on its way, from [`Agent::send`]: its options are set
/// here, and `.await` runs it to an [`Answer`].
#[must_use = "a line is sent only once it is awaited"]
pub struct Line<'a> {
    pub(super) agent: &'a Agent,
    pub(super) conversation: &'a mut Conversation,
    pub(super) text: &'a str,
    pub(super) interrupt: Option<&'a Interrupt>,
    pub(super) events: Option<&'a events::EventSink>,
}

impl<'a> Line<'a> {
    /// Cut short once `interrupt` is flipped (or its deadline passes): the
    /// model request under way is dropped and the calls still running are
    /// cancelled. The answer then stops with [`INTERRUPTED`](super::interrupt::INTERRUPTED) (or
    /// [`TIMED_OUT`](super::interrupt::TIMED_OUT)); its `tool_calls` are the calls that stay
    /// in the history, the ones cut short among them with an `isError`
    /// result saying so (see [`interrupt`](super::interrupt) for what the history keeps).
    pub fn interrupt(mut self, interrupt: &'a Interrupt) -> Line<'a> {
        self.interrupt = Some(interrupt);
        self
    }

    /// The model's responses streamed, each [`Event`](events::Event) of the
    /// line handed to `events` as it happens (with `None`, not streamed).
    /// The history and the answer are the ones an unstreamed line gives.
    pub fn events(mut self, events: impl Into<Option<&'a events::EventSink>>) -> Line<'a> {
        self.events = events.into();
        self
    }
}

impl std::fmt::Debug for Line<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Line")
            .field("text", &self.text)
            .field("interrupt", &self.interrupt)
            .field("streamed", &self.events.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a> IntoFuture for Line<'a> {
    type Output = Result<Answer, AnswerError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let none = Interrupt::new();
            let interrupt = self.interrupt.unwrap_or(&none);
            self.agent
                .run_line(self.conversation, self.text, interrupt, self.events)
                .await
        })
    }
}
