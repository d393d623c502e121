//! The host half of MCP: the servers of an `mcp.json` ([`config`]) and
//! which of their tools are offered ([`filter`]), the
//! names a model API accepts for the tools of many servers ([`names`]), a
//! tool as every model API is offered it ([`tool_offer`]) and what a call gives
//! the model ([`call_result`]), the model APIs, each with its whole
//! dialect ([`provider::anthropic`], [`provider::openai`]), and MCP Apps'
//! rules for a host that renders them ([`apps`]). The catalog of
//! many servers' tools ([`catalog`]) builds on them and on the MCP client
//! of one server in either era ([`mcpfn_client`], its own crate).
//!
//! The host guide's example (`docs/host.md`; kept identical to it by a test):
//!
//! ```no_run
//! use mcpfn_host::catalog::{Catalog, CatalogOptions};
//! use mcpfn_host::config::McpConfig;
//! use mcpfn_host::provider::anthropic;
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
//!     println!("{}", serde_json::to_string_pretty(&anthropic::tools(&catalog.offers()))?);
//!     let result = catalog.call("add", serde_json::json!({"a": 2, "b": 3})).await;
//!     println!("{}", anthropic::tool_result("toolu_01", &result));
//!     Ok(())
//! }
//! ```

pub mod agent;
pub mod apps;
pub mod call_result;
pub mod catalog;
pub mod config;
pub mod filter;
pub mod names;
#[cfg(feature = "oauth")]
pub mod oauth;
pub mod provider;
pub mod tool_offer;

/// The MCP client each server is reached with (its options, errors and
/// tool lists appear in this crate's API), re-exported so a host needs no
/// second dependency to name them.
pub use mcpfn_client;
