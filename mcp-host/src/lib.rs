//! The host half of MCP: the servers of an `mcp.json` ([`config`]), the
//! names a model API accepts for the tools of many servers ([`names`]), the
//! conversions between MCP tools and results and the Anthropic Messages and
//! OpenAI Chat Completions tool-use formats ([`convert`]), all pure (but
//! [`config::McpConfig::load`], which reads a file), and the message-level
//! MCP client over stdio and Streamable HTTP ([`client`]). The catalog
//! builds on them.

pub mod catalog;
pub mod client;
pub mod config;
pub mod convert;
pub mod mcp_client;
pub mod names;
pub mod wire;
