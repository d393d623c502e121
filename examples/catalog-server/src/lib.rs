//! The tool catalog written by this crate's build script, for hosts and
//! gateways that want the schemas without running the server.

/// The MCP `tools/list` result (2025-11-25 shape), produced at build time.
pub const TOOLS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/tools.json"));

/// The Anthropic Messages API `tools` array, produced at build time.
pub const ANTHROPIC_TOOLS_JSON: &str =
    include_str!(concat!(env!("OUT_DIR"), "/tools.anthropic.json"));

/// The OpenAI `tools` array, produced at build time.
pub const OPENAI_TOOLS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/tools.openai.json"));
