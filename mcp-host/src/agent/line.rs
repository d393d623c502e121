//! [`Line`], one user line on its way with its options: the one way a
//! line is sent ([`Agent::send`]), and the loop it runs: model requests,
//! the calls they ask for, and what a failure or an interrupt rolls back.

use super::calls::Run;
use super::events;
use super::history::History;
use super::interrupt::{self, INTERRUPTED, Interrupt};
use super::turn::Turn;
use super::{Agent, Answer, AnswerError, Conversation, MAX_TURNS, PROMPT_REPLY, on_demand};
use crate::provider::{Delta, ProviderError, Reply, Request, Stop, Usage};
use serde_json::Value;
use std::future::{Future, IntoFuture};
use std::pin::Pin;

/// One user line on its way, from [`Agent::send`]: its options are set
/// here, and `.await` runs it to an [`Answer`].
#[must_use = "a line is sent only once it is awaited"]
pub struct Line<'a> {
    pub(super) agent: &'a Agent,
    pub(super) conversation: &'a mut Conversation,
    pub(super) input: Input<'a>,
    pub(super) interrupt: Option<&'a Interrupt>,
    pub(super) events: Option<&'a events::EventSink>,
}

/// What a line puts into the history first.
#[derive(Clone, Copy, Debug)]
pub(super) enum Input<'a> {
    /// A line the user typed ([`Agent::send`]).
    Text(&'a str),
    /// A turn the host wrote ([`Agent::send_turn`]).
    Turn(&'a Turn),
}

impl<'a> Line<'a> {
    /// Cut short once `interrupt` is flipped (or its deadline passes): the
    /// model request under way is dropped and the calls still running are
    /// cancelled. The answer then stops with [`INTERRUPTED`] (or
    /// [`TIMED_OUT`](super::interrupt::TIMED_OUT)); its `tool_calls` are the calls that stay
    /// in the history, the ones cut short among them with an `isError`
    /// result saying so (see [`interrupt`](mod@interrupt) for what the history keeps).
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
            .field("input", &self.input)
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
                .run_line(self.conversation, self.input, interrupt, self.events)
                .await
        })
    }
}

impl Agent {
    /// Puts `input` into `history`: its first user message joined to the
    /// last message where the API wants it there, the rest appended.
    fn add_input(&self, history: &mut History, input: Input<'_>) -> LineEdits {
        let messages = match input {
            Input::Text(text) => {
                let joined = history.add_line(
                    |last| self.provider.join_user_line(last, text),
                    || self.provider.user_message(text),
                );
                return LineEdits {
                    added: usize::from(joined.is_none()),
                    kept: 0,
                    joined,
                };
            }
            Input::Turn(turn) => turn.provider_messages(&*self.provider, &self.result_budget),
        };
        let mut messages = messages.into_iter();
        let Some(first) = messages.next() else {
            return LineEdits {
                added: 0,
                kept: 0,
                joined: None,
            };
        };
        let joined = history.add_line(
            |last| self.provider.join_user_message(last, &first),
            || first.clone(),
        );
        let mut added = usize::from(joined.is_none());
        for message in messages {
            history.push(message);
            added += 1;
        }
        LineEdits {
            added,
            kept: 0,
            joined,
        }
    }

    /// The line of a [`Line`]: cut short once `interrupt` is flipped or its
    /// deadline (or [`AgentBuilder::line_timeout`](super::AgentBuilder::line_timeout)) passes, and streamed
    /// with its events handed to `events` when there is a sink.
    pub(super) async fn run_line(
        &self,
        conversation: &mut Conversation,
        input: Input<'_>,
        interrupt: &Interrupt,
        events: Option<&events::EventSink>,
    ) -> Result<Answer, AnswerError> {
        let limited;
        let interrupt = match self.line_timeout {
            Some(timeout) => {
                limited = interrupt.clone().with_deadline(timeout);
                &limited
            }
            None => interrupt,
        };
        let mut line = self.add_input(&mut conversation.history, input);
        let mut answer = Answer::default();
        if let Input::Turn(turn) = input
            && let Some(reply) = turn.closing_reply()
        {
            // A request ending with the assistant's message would be a
            // prefill: Claude refuses one since its 4.6 models, and other
            // APIs answer it anew rather than go on from it. The prompt
            // has said the assistant's part; the model is asked when the
            // person answers it.
            if let Some(sink) = events {
                sink(&events::Event::Text {
                    text: reply.clone(),
                });
            }
            answer.text = reply;
            answer.stop_reason = PROMPT_REPLY.into();
            self.history.after_turn(&mut conversation.history);
            return Ok(answer);
        }
        loop {
            if interrupt.is_interrupted() {
                return Ok(self.interrupted(conversation, line, answer, interrupt));
            }
            // Lists changed since the last request are listed again first.
            let offered = self.tools.refresh(&*self.provider).await;
            let tools = on_demand::request_tools(&offered.tools, &conversation.found, &|name| {
                offered.catalog.tool(name).is_some()
            });
            let request = Request {
                model: &self.model,
                max_tokens: self.max_tokens,
                system: self.system.as_deref(),
                messages: conversation.history.messages(),
                tools: &tools,
            };
            let sent = request.messages.len();
            let result = match events {
                None => interrupt.or_interrupted(self.provider.send(request)).await,
                Some(sink) => {
                    let mut on_delta = |delta: Delta<'_>| match delta {
                        Delta::Text(text) => sink(&events::Event::Text {
                            text: text.to_owned(),
                        }),
                    };
                    interrupt
                        .or_interrupted(self.provider.send_streamed(request, &mut on_delta))
                        .await
                }
            };
            drop(tools);
            let Some(result) = result else {
                return Ok(self.interrupted(conversation, line, answer, interrupt));
            };
            let reply = match result {
                Ok(reply) => reply,
                Err(error) if error.is_context_overflow() && answer.trimmed.is_none() => {
                    let made = interrupt
                        .or_interrupted(self.make_room(conversation, &mut answer))
                        .await;
                    match made {
                        Some(Some(trim)) => {
                            answer.trimmed = Some(trim);
                            continue;
                        }
                        Some(None) => return Err(self.fail(conversation, line, answer, error)),
                        None => return Ok(self.interrupted(conversation, line, answer, interrupt)),
                    }
                }
                Err(error) => return Err(self.fail(conversation, line, answer, error)),
            };
            answer.responses += 1;
            answer.usage += reply.usage;
            if let Some(sink) = events {
                sink(&events::Event::Usage { usage: reply.usage });
            }
            conversation
                .history
                .count_tokens(sent, prompt_tokens(&reply.usage));
            let Reply {
                message,
                text,
                calls,
                stop,
                stop_reason,
                ..
            } = reply;
            // What the API's own search found may be called from now on.
            conversation
                .found
                .add_searched(&*self.provider, &message, &|name| {
                    offered.catalog.tool(name).is_some()
                });
            conversation.history.push(message);
            line.added += 1;
            answer.text = text;
            answer.stop_reason = stop_reason;
            let run = match stop {
                Stop::ToolUse => Run::Yes,
                _ => Run::No(format!(
                    "the response stopped ({}) before the call was complete",
                    answer.stop_reason
                )),
            };
            if !calls.is_empty() {
                line.added += self
                    .answer_calls(conversation, &mut answer, &calls, run, interrupt, events)
                    .await;
                line.kept = line.added;
            }
            if interrupt.is_interrupted() {
                return Ok(self.interrupted(conversation, line, answer, interrupt));
            }
            let more = matches!(stop, Stop::ToolUse | Stop::Pause);
            if !more {
                break;
            }
            if answer.responses >= self.max_turns {
                answer.stop_reason = MAX_TURNS.into();
                break;
            }
        }
        conversation.usage += answer.usage;
        self.history.after_turn(&mut conversation.history);
        Ok(answer)
    }

    /// Ends a line on `error`: rolls back what the model never saw (see
    /// the module docs) and says what stays.
    fn fail(
        &self,
        conversation: &mut Conversation,
        line: LineEdits,
        mut answer: Answer,
        error: ProviderError,
    ) -> AnswerError {
        let calls_kept = if roll_back(&mut conversation.history, line) {
            answer.tool_calls.len()
        } else {
            0
        };
        conversation.usage += answer.usage;
        answer.text.clear();
        answer.stop_reason = "error".into();
        AnswerError {
            partial: answer,
            calls_kept,
            error,
        }
    }

    /// Ends a line cut short by `interrupt`: rolls back what the model
    /// never saw, as [`fail`](Self::fail) does (a round of calls cut short
    /// is answered, so it stays).
    fn interrupted(
        &self,
        conversation: &mut Conversation,
        line: LineEdits,
        mut answer: Answer,
        interrupt: &Interrupt,
    ) -> Answer {
        if !roll_back(&mut conversation.history, line) {
            answer.text.clear();
        }
        conversation.usage += answer.usage;
        answer.stop_reason = interrupt
            .cause()
            .map_or(INTERRUPTED, interrupt::Cause::stop_reason)
            .into();
        answer
    }
}

/// What a line changed in the history, to roll back on a failure.
struct LineEdits {
    /// Messages it appended, counted from the end (a trim of older turns in
    /// between moves nothing).
    added: usize,
    /// Of those, the ones up to its last tool results: they stay.
    kept: usize,
    /// The last message as it was before the line's text joined it.
    joined: Option<Value>,
}

/// Rolls back what `line` added after its last tool results (all of it,
/// the joined message restored, when it has none); whether its answered
/// rounds stay.
fn roll_back(history: &mut History, line: LineEdits) -> bool {
    if line.kept > 0 {
        history.drop_last(line.added - line.kept);
        true
    } else {
        history.drop_last(line.added);
        if let Some(message) = line.joined {
            history.restore_last(message);
        }
        false
    }
}

/// The input tokens a response says its request cost, for the history's
/// estimate of the next one.
fn prompt_tokens(usage: &Usage) -> u64 {
    usage.input_tokens
}
