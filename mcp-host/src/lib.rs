//! The host side of MCP: a client that connects to MCP servers over stdio or
//! Streamable HTTP.

pub mod client;
