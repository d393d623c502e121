//! Anthropic's Messages API, its whole dialect: the tools
//! ([`tool`]), the results of tool calls ([`tool_result`]), the responses
//! ([`read_response`]) and the client that sends the requests
//! ([`Anthropic`], feature `http`).
//!
//! The system prompt is the top-level `system` field (the API has no
//! `system` role); tools are `{name, description, input_schema}`; a
//! response's `content` is a list of blocks (`text`, `tool_use`, and
//! others), kept verbatim in the history; the results of one response's
//! `tool_use` blocks go back as **one** user message of `tool_result`
//! blocks, in the same order (the API refuses a `tool_use` whose result is
//! not in the very next message).
//!
//! A call's result becomes one `tool_result` block:
//!
//! | MCP | Claude |
//! |---|---|
//! | one text block, nothing else | `"content": "<text>"` |
//! | text | `{"type":"text","text"}` (empty ones dropped) |
//! | image (JPEG, PNG, GIF, WebP) | `{"type":"image","source":{"type":"base64","media_type","data"}}` |
//! | image of another type | a text note saying what was left out |
//! | audio | a text note (the API takes no audio) |
//! | resource link | text: name, URI, type, size, description |
//! | embedded text resource | `{"type":"document","source":{"type":"text","media_type":"text/plain","data"},"title":<uri>}` |
//! | embedded PDF | `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data"},"title":<uri>}` |
//! | embedded image blob | as an image |
//! | other embedded blob | a text note |
//! | only `structuredContent` | its JSON as text |
//! | `isError: true` | `"is_error": true` |
//!
//! The image rules and the notes are the ones both dialects share
//! ([`crate::call_result`]).
//!
//! Prompt caching is on by default ([`Anthropic::caching`]): each request
//! carries `cache_control` breakpoints on the last tool, the system prompt,
//! the end of the previous request and the end of this one, added as the
//! body is written, never stored in the history.

#[cfg(feature = "http")]
mod cache;
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
pub use client::Anthropic;
pub use messages::{content_message, join_user_message};
pub use response::read_response;
pub use results::tool_result;
#[cfg(test)]
pub(crate) use results::tool_result_content;
pub use tools::{TOOL_SEARCH_NAME, TOOL_SEARCH_TYPE, deferred_tools, searched_tools, tool, tools};

/// The most tools one request may carry. The Messages API reference
/// documents no maximum for a plain `tools` list; its tool search tool's
/// page (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool>,
/// "Limits") gives 10,000 tools in a catalog, deferred ones included,
/// which is the bound this host keeps to in every mode.
pub const MAX_TOOLS: usize = 10_000;

/// The API version this crate speaks (`anthropic-version`).
pub const API_VERSION: &str = "2023-06-01";
/// Where the API is when `ANTHROPIC_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The model used when none is named.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-6";
/// The variable the key is read from ([`Anthropic::from_env`]).
pub const KEY_VARIABLE: &str = "ANTHROPIC_API_KEY";
/// The variable the endpoint is read from ([`Anthropic::from_env`]).
pub const BASE_URL_VARIABLE: &str = "ANTHROPIC_BASE_URL";
