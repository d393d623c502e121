//! The host half of MCP: the servers of an `mcp.json` ([`config`]), the
//! names a model API accepts for the tools of many servers ([`names`]), the
//! conversions between MCP tools and results and the Anthropic Messages and
//! OpenAI Chat Completions tool-use formats ([`convert`]), all pure (but
//! [`config::McpConfig::load`], which reads a file), and the message-level
//! MCP client over stdio and Streamable HTTP ([`client`]). The catalog
//! builds on them: an MCP client of one server in either era
//! ([`mcp_client`]) and a catalog of many servers' tools ([`catalog`]).
//!
//! The README's "Host side" example (kept identical to it by a test):
//!
//! ```no_run
//! use mcp_host::catalog::{Catalog, CatalogOptions};
//! use mcp_host::config::McpConfig;
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let config = McpConfig::parse(
//!         r#"{"mcpServers": {"everything": {"command": "target/release/examples/everything"}}}"#,
//!     )?;
//!     let catalog = Catalog::build(&config, Vec::new(), CatalogOptions::default()).await?;
//!     for failure in catalog.failures() {
//!         eprintln!("left out: {}: {}", failure.server, failure.reason);
//!     }
//!     println!("{}", serde_json::to_string_pretty(&catalog.claude_tools())?);
//!     let result = catalog.call("add", serde_json::json!({"a": 2, "b": 3})).await;
//!     println!("{}", mcp_host::convert::claude_tool_result("toolu_01", &result));
//!     Ok(())
//! }
//! ```

pub mod agent;
pub mod catalog;
pub mod client;
pub mod config;
pub mod convert;
pub mod mcp_client;
pub mod names;
pub mod provider;
mod text;
