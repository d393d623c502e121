//! The message-level MCP client: JSON-RPC over a [`Transport`] (a child
//! process's stdio, or Streamable HTTP), routed by a [`Dispatcher`].
//!
//! This layer knows nothing of MCP's methods: it sends requests and
//! notifications, matches answers to requests by id, cancels what times out
//! or is dropped, hands the server's own requests and notifications to a
//! [`Handler`], and reports every failure as one [`ClientError`]. A lost
//! connection is noticed; a [`Reconnector`] makes a new one when the layer
//! above asks.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_host::client::ClientError> {
//! use mcp_host::client::*;
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

mod dispatch;
pub(crate) mod error;
mod factory;
mod framing;
#[cfg(feature = "http")]
pub(crate) mod http;
mod jsonrpc;
pub(crate) mod log_limit;
mod restart;
#[cfg(feature = "http")]
mod sse;
mod stdio;
mod transport;

pub use dispatch::{
    DEFAULT_JSON_BUDGET, DEFAULT_TIMEOUT, Dispatcher, DispatcherConfig, Handler, NoHandler,
    RequestOptions, ServerNotification, ServerRequest,
};
pub use error::{ClientError, RpcError};
#[cfg(feature = "http")]
pub use factory::HttpFactory;
pub use factory::StdioFactory;
#[cfg(feature = "http")]
pub use http::{HttpConfig, HttpTransport};
pub use log_limit::{LOG_BURST, LOG_LINE_BYTES, LOG_RATE};
pub use restart::Reconnector;
pub use stdio::{
    DEFAULT_CLOSE_GRACE, DEFAULT_INHERITED_ENV_VARS, DEFAULT_MAX_MESSAGE_BYTES, StdioConfig,
    StdioTransport,
};
pub use transport::{
    BoxFuture, Connection, DEFAULT_INBOX_BYTES, Inbox, InboxSender, Incoming, Outgoing, Transport,
    TransportFactory,
};
