//! The 2026-07-28 `input_required` rounds of one request: `tools/call` and
//! `prompts/get` alike ask again with the answers (`inputResponses`) and
//! the echoed `requestState`, at most
//! [`ClientOptions::max_input_rounds`](super::ClientOptions::max_input_rounds)
//! times, all within the request's one timeout. An `input_required` result
//! in a legacy session breaks the protocol.

use super::{Era, McpClient};
use crate::{ClientError, McpError};
use mcpfn_protocol::model::InputRequiredResult;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The rounds of one request, as they go.
pub(super) struct Rounds<'a> {
    client: &'a McpClient,
    era: Era,
    /// The method, for a timeout.
    method: &'static str,
    /// What asks, for an error line ("tool `add`", "prompt `greet`").
    what: String,
    /// The whole request's timeout, and when it passes.
    timeout: Duration,
    deadline: Instant,
    sent: usize,
    input_responses: Option<BTreeMap<String, Value>>,
    request_state: Option<String>,
}

/// What the next round sends, and the time it has.
pub(super) struct Round {
    /// The answers to the last round's questions.
    pub(super) input_responses: Option<BTreeMap<String, Value>>,
    /// The last round's `requestState`, echoed.
    pub(super) request_state: Option<String>,
    /// What is left of the request's timeout.
    pub(super) left: Duration,
}

impl<'a> Rounds<'a> {
    /// The rounds of a request of `method` about `what` in `era`, within
    /// `timeout` from `deadline - timeout`.
    pub(super) fn new(
        client: &'a McpClient,
        era: Era,
        method: &'static str,
        what: String,
        timeout: Duration,
        deadline: Instant,
    ) -> Rounds<'a> {
        Rounds {
            client,
            era,
            method,
            what,
            timeout,
            deadline,
            sent: 0,
            input_responses: None,
            request_state: None,
        }
    }

    /// The next round, or why there is none: the rounds are spent, or the
    /// request's time is up.
    pub(super) fn next(&mut self) -> Result<Round, McpError> {
        let max = self.client.inner.options.max_input_rounds;
        if self.sent > max {
            return Err(McpError::Protocol {
                server: self.client.inner.config.name.clone(),
                reason: format!("{} still asked for input after {max} rounds", self.what),
            });
        }
        self.sent += 1;
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.timed_out(McpError::Client(ClientError::Timeout {
                method: self.method.into(),
                after: self.timeout,
            })));
        }
        Ok(Round {
            input_responses: self.input_responses.take(),
            request_state: self.request_state.take(),
            left,
        })
    }

    /// A round's error, with a timeout reported as the request's own
    /// (not the round's remainder).
    pub(super) fn timed_out(&self, error: McpError) -> McpError {
        match error {
            McpError::Client(ClientError::Timeout { method, .. }) => {
                McpError::Client(ClientError::Timeout {
                    method,
                    after: self.timeout,
                })
            }
            other => other,
        }
    }

    /// Answers a round's questions through the client's handlers; the next
    /// round carries the answers and the echoed state.
    pub(super) async fn answer(&mut self, asked: InputRequiredResult) -> Result<(), McpError> {
        if self.era != Era::Modern {
            return Err(McpError::Protocol {
                server: self.client.inner.config.name.clone(),
                reason: "an input_required result in a legacy session".into(),
            });
        }
        let answers = self.client.answer_inputs(asked.input_requests).await?;
        self.input_responses = (!answers.is_empty()).then_some(answers);
        self.request_state = asked.request_state;
        Ok(())
    }
}
