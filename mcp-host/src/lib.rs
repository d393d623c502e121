//! The host half of MCP, its pure parts: the servers of an `mcp.json`
//! ([`config`]), the names a model API accepts for the tools of many
//! servers ([`names`]), and the conversions between MCP tools and results and
//! the Anthropic Messages and OpenAI Chat Completions tool-use formats
//! ([`convert`]). None of them does I/O (but [`config::McpConfig::load`],
//! which reads a file); the MCP client and the catalog build on them.

pub mod config;
pub mod convert;
pub mod names;
pub mod wire;
