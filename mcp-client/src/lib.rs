//! An MCP client: connects to one MCP server over a child process's stdio
//! or Streamable HTTP, speaks either era of the protocol, lists and calls
//! its tools ([`McpClient`]).
//!
//! Two layers:
//!
//! - [`McpClient`] (module `connection`): the typed client of one server
//!   ([`ServerConfig`]): era negotiation, tool lists (cached, bounded by
//!   [`ListLimits`]), calls with progress, elicitation and sampling, the
//!   Tasks extension, output-schema validation, one restart.
//! - [`Dispatcher`]: JSON-RPC over a [`Transport`], knowing nothing of
//!   MCP's methods: it sends requests and notifications, matches answers to
//!   requests by id, cancels what times out or is dropped, hands the
//!   server's own requests and notifications to a [`Handler`], and reports
//!   every failure as one [`ClientError`]. A lost connection is noticed; a
//!   [`Reconnector`] makes a new one when the layer above asks.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_client::ClientError> {
//! use mcp_client::*;
//! use std::sync::Arc;
//! let (transport, inbox) = StdioTransport::spawn(StdioConfig::new("demo", "my-server"))?;
//! let client = Dispatcher::new(Box::new(transport), inbox, Arc::new(NoHandler), DispatcherConfig::new("demo"));
//! let params = serde_json::value::to_raw_value(&serde_json::json!({
//!     "protocolVersion": "2025-11-25", "capabilities": {},
//!     "clientInfo": {"name": "demo", "version": "1"}})).unwrap();
//! let result = client.request("initialize", Some(&params), RequestOptions::default()).await?;
//! println!("{}", result.get());
//! # Ok(()) }
//! ```

mod config;
mod connection;
mod dispatch;
pub mod error;
mod headers;
mod jsonrpc;
mod limits;
pub(crate) mod log_limit;
#[cfg(feature = "output-schema")]
pub mod output;
mod restart;
pub mod text;
pub mod transport;

pub use config::{Endpoint, ServerConfig};
pub use connection::{
    CallOptions, ClientOptions, DEFAULT_CALL_TIMEOUT, DEFAULT_MAX_INPUT_ROUNDS, ElicitFn,
    HANDSHAKE_TIMEOUT, MAX_PAGES, McpClient, McpError, Mode, PROBE_TIMEOUT, ProgressFn, SampleFn,
};
pub use dispatch::{
    DEFAULT_JSON_BUDGET, DEFAULT_TIMEOUT, Dispatcher, DispatcherConfig, Handler, NoHandler,
    RequestOptions, ServerNotification, ServerRequest,
};
pub use error::{ClientError, RpcError};
pub use limits::{
    DEFAULT_MAX_LISTING_BYTES, DEFAULT_MAX_LISTING_TREE_BYTES, DEFAULT_MAX_PAGES,
    DEFAULT_MAX_TOOLS, ListLimits,
};
pub use log_limit::{LOG_BURST, LOG_LINE_BYTES, LOG_RATE};
pub use restart::Reconnector;
#[cfg(feature = "http")]
pub use transport::factory::HttpFactory;
pub use transport::factory::StdioFactory;
#[cfg(feature = "http")]
pub use transport::http::{HttpConfig, HttpTransport};
pub use transport::stdio::{
    DEFAULT_CLOSE_GRACE, DEFAULT_INHERITED_ENV_VARS, DEFAULT_MAX_MESSAGE_BYTES, StdioConfig,
    StdioTransport,
};
pub use transport::{
    BoxFuture, Connection, DEFAULT_INBOX_BYTES, Inbox, InboxSender, Incoming, Outgoing, Transport,
    TransportFactory,
};
