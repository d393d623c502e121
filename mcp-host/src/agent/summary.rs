//! The summary of old turns that the model writes when a request does not
//! fit its context window and the agent is set to summarize
//! ([`Overflow::Summarize`](super::Overflow::Summarize)).
//!
//! One extra request, with no tools and a fixed instruction as its system
//! prompt: the turns go in as a transcript, one JSON message per line, in
//! a single user message. A transcript rather than the messages
//! themselves: the turns may end on tool results or hold `tool_use` blocks
//! for tools the request does not offer, which the APIs refuse as
//! messages, and the transcript reads the same for every API.

use super::history::History;
use crate::provider::{Provider, ProviderError, Request, Usage};
use serde_json::Value;
use std::ops::Range;

/// The system prompt of the summary request.
pub const SUMMARY_INSTRUCTION: &str = "You summarize the earlier part of a conversation between a user and an assistant that calls tools, so that the assistant can go on without it. Keep what the user asked for and wants, the facts the tools returned that may matter later (names, numbers, paths, identifiers), the actions already taken through tools (files written, messages sent, changes made) so that they are not repeated, decisions made and questions still open. Write in the language of the conversation, as short as these allow. Reply with the summary only.";

/// What opens the transcript in the summary request's user message.
pub const TRANSCRIPT_HEADING: &str =
    "The conversation to summarize, one message per line, as JSON:";

/// What opens the summary in the history.
pub const SUMMARY_HEADING: &str =
    "[Summary of the earlier conversation, written when it no longer fit the context window]";

/// Asks the model for a summary of the turns `range` of `history`; the
/// user message that replaces them, and what the request cost.
pub(super) async fn write(
    provider: &dyn Provider,
    model: &str,
    max_tokens: u32,
    history: &History,
    range: Range<usize>,
) -> Result<(Value, Usage), ProviderError> {
    let mut transcript = String::from(TRANSCRIPT_HEADING);
    for turn in range {
        for message in history.turn(turn) {
            transcript.push('\n');
            transcript.push_str(&message.to_string());
        }
    }
    let messages = [provider.user_message(&transcript)];
    let reply = provider
        .send(Request {
            model,
            max_tokens,
            system: Some(SUMMARY_INSTRUCTION),
            messages: &messages,
            tools: &[],
        })
        .await?;
    let summary = format!("{SUMMARY_HEADING}\n{}", reply.text.trim());
    Ok((provider.user_message(&summary), reply.usage))
}
