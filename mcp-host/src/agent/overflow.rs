//! What the agent does when a request does not fit the model's context
//! window: [`Overflow`], and the trim or summary that makes room before the
//! request is sent once more.

use super::history::Trim;
use super::{Agent, Answer, Conversation, summary};

/// What the agent does when a request does not fit the model's context
/// window
/// ([`ProviderError::ContextOverflow`](crate::provider::ProviderError::ContextOverflow)),
/// before sending it again once: with the turns of
/// [`History::overflow_turns`](super::history::History::overflow_turns),
/// about half of those before the current one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Overflow {
    /// Drops them, the first user message kept (the default).
    #[default]
    Trim,
    /// Replaces them with one user message holding a summary of them that
    /// the model writes in one extra request (no tools, a fixed
    /// instruction); when that request fails, drops them.
    Summarize,
}

impl Agent {
    /// Drops or summarizes the turns of
    /// [`History::overflow_turns`](super::history::History::overflow_turns) as
    /// [`Overflow`] says; `None` when there are none.
    pub(super) async fn make_room(
        &self,
        conversation: &mut Conversation,
        answer: &mut Answer,
    ) -> Option<Trim> {
        let history = &mut conversation.history;
        let range = history.overflow_turns()?;
        let turns = range.len();
        if self.overflow == Overflow::Summarize {
            let removed: usize = range.clone().map(|turn| history.turn(turn).len()).sum();
            match summary::write(
                &*self.provider,
                &self.model,
                self.max_tokens,
                history,
                range.clone(),
            )
            .await
            {
                Ok((message, usage)) => {
                    answer.usage += usage;
                    history.replace_turns(range, vec![message]);
                    return Some(Trim {
                        turns,
                        messages: removed - 1,
                        summarized: true,
                    });
                }
                Err(error) => {
                    tracing::warn!(%error, "the summary of the oldest turns failed: dropping them");
                }
            }
        }
        let messages = history.drop_turns(range);
        Some(Trim {
            turns,
            messages,
            summarized: false,
        })
    }
}
