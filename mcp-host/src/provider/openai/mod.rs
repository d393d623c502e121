//! OpenAI's Chat Completions API, its whole dialect: the tools
//! ([`tool`], strict mode where the schema allows: [`Strict`]), the
//! results of tool calls ([`tool_message`], [`tool_messages`]), the
//! responses ([`read_response`]) and the client that sends the requests
//! ([`OpenAi`], feature `http`).
//!
//! The system prompt is the first message (`role: system`, made per
//! request, never stored in the history); tools are functions; a response's
//! calls are `choices[0].message.tool_calls`, whose `arguments` are a JSON
//! *string* ([`parse_arguments`]); each result goes back as its own
//! `role: tool` message with the call's `tool_call_id`, in the order of the
//! calls.
//!
//! A strict schema makes every optional argument required and nullable, so
//! the model sends `null` for "absent"; [`strip_absent_nulls`] takes those
//! out again before the call, since an MCP server need not accept `null`
//! for an optional argument.
//!
//! A `role: tool` message carries text only, so [`tool_message`] gives the
//! text (the notes and renderings of [`crate::call_result`], an embedded
//! text resource inline after its URI, `Error: ` before the text of an
//! `isError` result since the message has no error flag) and, for each
//! image, a note in the text plus an `image_url` part with a `data:` URL.
//! [`tool_messages`] assembles one turn: one `role: tool` message per call,
//! in order, then, if any call returned images, **one `role: user` message
//! right after the tool messages** carrying them (a user message may not
//! come between the tool messages of one assistant turn). PDFs are
//! described in text, not attached. [`OpenAi`]'s `tool_results` (what the
//! agent and the `mcp-host` program send) is [`tool_messages`];
//! [`tool_text_message`] is the text-only form of one call's message, each
//! image a note.

#[cfg(feature = "http")]
mod client;
mod messages;
mod response;
mod results;
#[cfg(feature = "http")]
pub(crate) mod stream;
#[cfg(test)]
mod tests;
mod tools;

#[cfg(feature = "http")]
pub use client::OpenAi;
pub use messages::content_message;
pub use response::{parse_arguments, read_response};
pub use results::{ToolOutput, tool_message, tool_messages, tool_text_message};
pub use tools::{Strict, strict_tool, strip_absent_nulls, tool, tools};

/// The most functions one request may carry: the Chat Completions
/// reference says of `tools` "A max of 128 functions are supported"
/// (<https://platform.openai.com/docs/api-reference/chat/create>).
pub const MAX_TOOLS: usize = 128;

/// Where the API is when `OPENAI_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The model used when none is named.
pub const DEFAULT_MODEL: &str = "gpt-4.1";
/// The variable the key is read from ([`OpenAi::from_env`]).
pub const KEY_VARIABLE: &str = "OPENAI_API_KEY";
/// The variable the endpoint is read from ([`OpenAi::from_env`]).
pub const BASE_URL_VARIABLE: &str = "OPENAI_BASE_URL";
