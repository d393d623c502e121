//! Prompts: the server's prompts listed (every page, within the
//! [`ListLimits`](crate::ListLimits)), and one got with its arguments,
//! through the same 2026-07-28 `input_required` rounds as a tool call
//! ([`super::rounds`]), within the client's call timeout.
//!
//! A prompt's messages are counted on the answer's text before any of them
//! is parsed: past [`MAX_PROMPT_MESSAGES`] the prompt is refused with
//! [`McpError::Limit`] naming the server, the prompt and the count.

use super::rounds::Rounds;
use super::{Era, McpClient, parse, raw_params};
use crate::McpError;
use mcpfn_protocol::model::method::{GetPrompt, ListPrompts, Request};
use mcpfn_protocol::model::{GetPromptParams, GetPromptResponse, GetPromptResult, Prompt};
use std::collections::BTreeMap;
use std::time::Instant;

/// The most messages one `prompts/get` result may hold. A prompt is the
/// start of a conversation a person chose to run: real ones hold a handful
/// of messages (the reference servers' at most a few dozen), and every
/// message becomes part of each later model request, so 1,000 admits any
/// real prompt while a server answering 10,000 is refused, not half-used.
pub const MAX_PROMPT_MESSAGES: usize = 1_000;

/// What is read of a `prompts/get` answer before it is parsed: how many
/// messages it holds (each skipped unparsed).
#[derive(serde::Deserialize)]
struct Counted {
    #[serde(default, deserialize_with = "crate::limits::count")]
    messages: usize,
}

impl McpClient {
    /// The server's prompts, every page (none when it does not declare
    /// `prompts`).
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, McpError> {
        self.listed::<ListPrompts>(|c| c.prompts.is_some()).await
    }

    /// Prompt `name` filled in with `arguments` (none sent when empty): its
    /// messages, in order. On 2026-07-28 a server may ask for input first
    /// (`input_required`): the questions go to the client's elicitation
    /// and sampling handlers, as in [`call_tool`](Self::call_tool).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, McpError> {
        let timeout = self.inner.options.call_timeout;
        let deadline = Instant::now() + timeout;
        let (dispatcher, era, _) = self.session().await?;
        let server = &self.inner.config.name;
        let arguments = (!arguments.is_empty()).then_some(arguments);
        let meta = (era == Era::Modern).then(|| self.inner.envelope.clone());
        let mut rounds = Rounds::new(
            self,
            era,
            GetPrompt::METHOD,
            format!("prompt `{name}`"),
            timeout,
            deadline,
        );
        loop {
            let round = rounds.next()?;
            let params = GetPromptParams {
                name: name.to_owned(),
                arguments: arguments.clone(),
                input_responses: round.input_responses,
                request_state: round.request_state,
                meta: meta.clone(),
            };
            let options = self.request_options(era, GetPrompt::METHOD, Some(name), round.left);
            let text = dispatcher
                .request(GetPrompt::METHOD, Some(&raw_params(&params)), options)
                .await
                .map_err(|e| rounds.timed_out(e.into()))?;
            let counted: Counted =
                serde_json::from_str(text.get()).map_err(|e| McpError::Protocol {
                    server: server.clone(),
                    reason: format!("its {} result does not parse: {e}", GetPrompt::METHOD),
                })?;
            if counted.messages > MAX_PROMPT_MESSAGES {
                return Err(McpError::Limit {
                    server: server.clone(),
                    reason: format!(
                        "prompt `{name}` returned {} messages, more than the {} a prompt may hold; it was refused",
                        crate::text::grouped(counted.messages),
                        crate::text::grouped(MAX_PROMPT_MESSAGES),
                    ),
                });
            }
            match parse::<GetPrompt>(server, &text)? {
                GetPromptResponse::Complete(result) => return Ok(result),
                GetPromptResponse::InputRequired(asked) => rounds.answer(asked).await?,
            }
        }
    }
}
