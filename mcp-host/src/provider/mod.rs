//! The model APIs a host drives: what one request and one response of a
//! tool-use conversation are, whatever the API ([`Provider`]), and the two
//! the program speaks, Anthropic's Messages ([`anthropic`]) and OpenAI's
//! Chat Completions ([`openai`]).
//!
//! Both APIs are stateless and differ in every field name, so the history
//! stays in the provider's own message form ([`Value`]s the provider made):
//! an assistant message goes back into the history exactly as the API
//! returned it (text blocks, `tool_use` blocks, and block kinds this crate
//! does not know, such as `thinking` with its signature), which no
//! translation to a neutral form and back can promise.
//!
//! Each API's module holds its whole dialect: the tools (from the neutral
//! [`ToolOffer`]s the catalog hands out), the results of tool calls (from
//! the neutral [`CallToolResult`]), the responses, and the client. Adding
//! an API (Gemini, a local model server) is one module: an implementation
//! of [`Provider`]'s five methods, with [`ApiClient`] for the HTTP, the
//! retries and the error mapping (and one line in the `mcp-host` program's
//! table of APIs).

pub mod anthropic;
pub(crate) mod content;
mod error;
#[cfg(feature = "http")]
mod http;
pub mod openai;
#[cfg(feature = "http")]
pub mod stream;
#[cfg(all(test, feature = "http"))]
mod stream_tests;
#[cfg(test)]
mod tests;

#[cfg(feature = "http")]
pub use anthropic::Anthropic;
pub use error::ProviderError;
#[cfg(feature = "http")]
pub use http::{ApiClient, ApiEndpoint, from_env};
#[cfg(feature = "http")]
pub use openai::OpenAi;

use crate::call_result::CallFailure;
use crate::tool_offer::ToolOffer;
use mcpfn_client::BoxFuture;
use mcpfn_protocol::model::{CallToolResult, ContentBlock, Role};
use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// One request to the model: the whole history, every time (the APIs keep
/// nothing between requests).
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The model's name.
    pub model: &'a str,
    /// The most tokens the response may have.
    pub max_tokens: u32,
    /// The system prompt, if any.
    pub system: Option<&'a str>,
    /// The conversation so far, in the provider's message form.
    pub messages: &'a [Value],
    /// The tools offered, in the provider's form ([`Provider::tools`]).
    pub tools: &'a [Value],
}

/// Why the model stopped, as far as the loop is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// It asked for tools: run them, send the results, ask again.
    ToolUse,
    /// It paused a long turn (Anthropic `pause_turn`): send the history as
    /// it is now, with no new user message, and it goes on.
    Pause,
    /// The turn is over (`end_turn`, `stop`, `max_tokens`, `refusal`, …).
    End,
}

/// A call the model asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The id its result must carry back (`tool_use.id`, `tool_calls[].id`).
    pub id: String,
    /// The tool's name as offered to the model.
    pub name: String,
    /// Its arguments, or why they cannot be used (OpenAI sends them as a
    /// JSON string, which may not parse).
    pub input: Result<Value, CallFailure>,
}

/// Tokens, as the API reports them, in one meaning for both APIs.
///
/// `input_tokens` is the whole prompt, cached or not. The APIs differ
/// here: OpenAI's `prompt_tokens` is the whole prompt already (its
/// `prompt_tokens_details.cached_tokens` are part of it), while Anthropic's
/// `input_tokens` counts only what was neither read from nor written to
/// the cache, so ours is Anthropic's `input_tokens +
/// cache_creation_input_tokens + cache_read_input_tokens`. So a
/// conversation's `input_tokens` grows with its history whether or not
/// the cache serves it, and the tokens billed at the base input price are
/// `input_tokens - cache_creation_input_tokens - cache_read_input_tokens`.
///
/// The cache fields are left out of the JSON when they are 0, so that an
/// API that reports no caching gives the same JSON as before they existed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Every token of the prompt, those served from or written to the
    /// cache included.
    pub input_tokens: u64,
    /// Tokens written (OpenAI `completion_tokens`).
    pub output_tokens: u64,
    /// Of `input_tokens`, those written to the cache (Anthropic
    /// `cache_creation_input_tokens`, billed at 1.25× the base input price
    /// for the default 5-minute cache; OpenAI `cache_write_tokens` where
    /// the model reports them).
    #[serde(skip_serializing_if = "is_zero")]
    pub cache_creation_input_tokens: u64,
    /// Of `input_tokens`, those read from the cache (Anthropic
    /// `cache_read_input_tokens`, OpenAI
    /// `prompt_tokens_details.cached_tokens`; billed at 0.1× the base
    /// input price by Anthropic).
    #[serde(skip_serializing_if = "is_zero")]
    pub cache_read_input_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
    }
}

/// One response of the model.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The assistant message, to be appended to the history as it is.
    pub message: Value,
    /// Its text, the text blocks concatenated with no separator.
    pub text: String,
    /// The calls it asks for, in its order.
    pub calls: Vec<ToolCall>,
    /// What the loop does next.
    pub stop: Stop,
    /// The API's own reason (`end_turn`, `tool_use`, `stop`, `length`, …).
    pub stop_reason: String,
    /// What this response cost.
    pub usage: Usage,
}

/// What a streamed response passes on while it comes
/// ([`Provider::send_streamed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delta<'a> {
    /// A piece of the answer's text.
    Text(&'a str),
}

/// A model API.
pub trait Provider: Send + Sync + fmt::Debug + 'static {
    /// The model used when the host names none.
    fn default_model(&self) -> &str;

    /// The offered tools ([`Catalog::offers`](crate::catalog::Catalog::offers))
    /// in this API's form; made once per catalog, so that every request
    /// offers the same bytes (prompt caches hold).
    fn tools(&self, offers: &[ToolOffer]) -> Vec<Value>;

    /// The most tools one request may carry, as the API documents it. The
    /// agent never offers more: past it, tools are offered on demand
    /// ([`crate::agent::on_demand`]). Default: no limit.
    fn max_tools(&self) -> usize {
        usize::MAX
    }

    /// The API's own tool search, where it has one: the request's tools
    /// with `loaded` offered as usual and `deferred` loaded only when the
    /// model's search finds them, the search tool included. `None` (the
    /// default): the API has none, and the agent offers a search tool of
    /// its own instead.
    fn deferred_tools(&self, loaded: &[ToolOffer], deferred: &[ToolOffer]) -> Option<Vec<Value>> {
        let _ = (loaded, deferred);
        None
    }

    /// The tools the API's own tool search found in `message`, a response's
    /// message as the history keeps it (names as offered): a deferred tool
    /// may be called once a search of the conversation found it. Default:
    /// none (the API has no search of its own).
    fn searched_tools(&self, message: &Value) -> Vec<String> {
        let _ = message;
        Vec::new()
    }

    /// The history entry of a user's message.
    fn user_message(&self, text: &str) -> Value;

    /// The history entry of a message the host writes for `role` from MCP
    /// content (a prompt's messages, a user line with resources attached:
    /// [`crate::agent::turn`]): text as text, images as images where the
    /// API takes them in that role, a text resource as its text under its
    /// URI, anything else a note naming what it was.
    fn content_message(&self, role: Role, content: &[ContentBlock]) -> Value;

    /// Puts user `message` (one this provider made) into `last`, the
    /// history's last message, when the API wants it there rather than in
    /// a message of its own; returns whether it did. The default never
    /// does, right for an API that takes any sequence of roles (OpenAI:
    /// `role: tool` messages, then `role: user`).
    ///
    /// A history ends with the results of tool calls when a line failed
    /// after its tools ran or was stopped by the guard on requests;
    /// Anthropic's roles alternate, so the next user message joins the
    /// message of `tool_result` blocks, its blocks after them.
    fn join_user_message(&self, last: &mut Value, message: &Value) -> bool {
        let _ = (last, message);
        false
    }

    /// Puts the user's line `text` into `last`, the history's last message,
    /// as [`join_user_message`](Self::join_user_message) says; returns
    /// whether it did. When it does not, the line goes in a new message
    /// ([`user_message`](Self::user_message)).
    fn join_user_line(&self, last: &mut Value, text: &str) -> bool {
        self.join_user_message(last, &self.user_message(text))
    }

    /// The history entries answering one response's calls, `(call, result)`
    /// in the order of the calls (Anthropic: one user message of
    /// `tool_result` blocks; OpenAI: one `role: tool` message each).
    fn tool_results(&self, results: &[(&ToolCall, &CallToolResult)]) -> Vec<Value>;

    /// Sends `request`; retries what the API asks to be retried.
    fn send<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>>;

    /// Sends `request` asking the API to stream its response, passing the
    /// pieces to `on_delta` as they come; the reply is exactly the one
    /// [`send`](Self::send) would have given (the same message, calls,
    /// stop and usage). Default, for an API that cannot stream: `send`,
    /// then its whole text as one piece.
    fn send_streamed<'a>(
        &'a self,
        request: Request<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        Box::pin(async move {
            let reply = self.send(request).await?;
            if !reply.text.is_empty() {
                on_delta(Delta::Text(&reply.text));
            }
            Ok(reply)
        })
    }
}
