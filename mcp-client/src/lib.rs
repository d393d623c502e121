//! An MCP client: a connection to one [Model Context
//! Protocol](https://modelcontextprotocol.io) server, over a child
//! process's stdio or Streamable HTTP, in either era of the protocol (the
//! `initialize` handshake of 2024-11-05 to 2025-11-25, or stateless
//! 2026-07-28). It knows nothing of model APIs: a host builds on it.
//!
//! # Connect to a stdio server
//!
//! [`McpClient::connect`] starts the program and makes the handshake
//! ([`Mode::Auto`]: 2026-07-28 when the server speaks it, else the legacy
//! one). The child gets only a few of this process's environment variables
//! ([`DEFAULT_INHERITED_ENV_VARS`]) plus what [`Endpoint::Stdio`] sets.
//!
//! ```no_run
//! use mcpfn_client::{McpClient, ServerConfig};
//!
//! # async fn run() -> Result<(), mcpfn_client::McpError> {
//! let server = ServerConfig::stdio("files", "npx", ["-y", "@modelcontextprotocol/server-filesystem", "."]);
//! let client = McpClient::connect(server).await?;
//! println!("speaking {}", client.protocol_version().await.as_str());
//! # Ok(()) }
//! ```
//!
//! # Connect to an HTTP server
//!
//! With the `http` feature (`https` for `https://` URLs; both default).
//! Headers such as `Authorization` go in [`Endpoint::Http`]; the options
//! ([`ClientOptions`]) choose the era, the timeouts, the answers to the
//! server's elicitation and sampling requests, and the caps on its tool
//! list.
//!
//! ```no_run
//! use mcpfn_client::{ClientOptions, Endpoint, McpClient, Mode, ServerConfig};
//!
//! # async fn run() -> Result<(), mcpfn_client::McpError> {
//! let mut server = ServerConfig::http("weather", "https://example.com/mcp");
//! if let Endpoint::Http { headers, .. } = &mut server.transport {
//!     headers.insert("Authorization".into(), "Bearer my-token".into());
//! }
//! let client = McpClient::connect_with(server, ClientOptions::mode(Mode::Modern)).await?;
//! # let _ = client;
//! # Ok(()) }
//! ```
//!
//! # List the tools
//!
//! [`McpClient::list_tools`] follows every page, within [`ListLimits`],
//! and keeps the list until its `ttlMs` passes or the server says it
//! changed.
//!
//! ```no_run
//! # async fn run(client: mcpfn_client::McpClient) -> Result<(), mcpfn_client::McpError> {
//! for tool in client.list_tools().await?.iter() {
//!     println!("{}: {}", tool.name, tool.description.as_deref().unwrap_or(""));
//! }
//! # Ok(()) }
//! ```
//!
//! # Call a tool
//!
//! A tool's own failure is an `isError` result; `Err` is a call that
//! produced none ([`McpError`]: the server is gone, the call timed out, it
//! answered a JSON-RPC error…). A call the server runs as a task (the
//! Tasks extension) is driven to its end inside
//! [`call_tool`](McpClient::call_tool).
//!
//! ```no_run
//! use mcpfn_client::CallOptions;
//! use std::time::Duration;
//!
//! # async fn run(client: mcpfn_client::McpClient) -> Result<(), mcpfn_client::McpError> {
//! let arguments = serde_json::json!({"city": "Paris"});
//! let result = client
//!     .call_tool(
//!         "get_weather",
//!         arguments.as_object().cloned(),
//!         CallOptions::timeout(Duration::from_secs(10)),
//!     )
//!     .await?;
//! println!("is_error: {}, {:?}", result.is_error, result.content);
//! client.close().await;
//! # Ok(()) }
//! ```
//!
//! # Prompts, resources, completions and Skills
//!
//! Each listing follows every page within the same [`ListLimits`], and is
//! empty for a server that does not declare the capability. A resource
//! read is bounded by the transport's message limit (a larger answer is
//! skipped unread: [`McpError::Limit`] names the server, the URI and the
//! size); a prompt of more than [`MAX_PROMPT_MESSAGES`] messages is
//! refused; completions are cut to 100 values. A skill's file is read only
//! when asked for, and checked against its manifest ([`McpError::Skill`]).
//! [`McpClient::changes`] tells list changes and resource updates.
//!
//! ```no_run
//! use mcpfn_protocol::model::{CompletionArgument, CompletionRef};
//! use std::collections::BTreeMap;
//!
//! # async fn run(client: mcpfn_client::McpClient) -> Result<(), mcpfn_client::McpError> {
//! for prompt in client.list_prompts().await? {
//!     println!("/{}", prompt.name);
//! }
//! let languages = client
//!     .complete(
//!         CompletionRef::Prompt { name: "translate".into(), title: None },
//!         CompletionArgument { name: "language".into(), value: "Fr".into() },
//!         None,
//!     )
//!     .await?;
//! let arguments = BTreeMap::from([
//!     ("language".to_owned(), languages.values[0].clone()),
//!     ("text".to_owned(), "Good morning".to_owned()),
//! ]);
//! let messages = client.get_prompt("translate", arguments).await?.messages;
//! let about = client.read_resource("everything://about").await?;
//! client.subscribe_resource("everything://about").await?;
//! let mut changes = client.changes();
//! # let _ = (messages, about, changes.recv().await);
//! for skill in client.list_skills().await? {
//!     let manifest = client.read_skill_file(&skill, &skill.uri).await?;
//!     println!("{}", manifest.text().unwrap_or(""));
//! }
//! # Ok(()) }
//! ```
//!
//! # Below the client: JSON-RPC over a transport
//!
//! [`McpClient`] stands on a [`Dispatcher`]: JSON-RPC over a [`Transport`]
//! ([`StdioTransport`], [`HttpTransport`]), knowing nothing of MCP's
//! methods. It matches answers to requests by id, cancels what times out or
//! is dropped, hands the server's own requests and notifications to a
//! [`Handler`], and reports every failure as one [`ClientError`]; a
//! [`Reconnector`] makes a lost connection again. Use it for a method the
//! typed client does not offer:
//!
//! ```no_run
//! # async fn run() -> Result<(), mcpfn_client::ClientError> {
//! use mcpfn_client::*;
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
//!
//! # Features
//!
//! - `http`: [`HttpTransport`], Streamable HTTP over `http://`;
//! - `https` (default, implies `http`): `https://` too, through rustls with
//!   the Mozilla roots compiled in;
//! - `oauth` (default, implies `http`): [`auth`], the OAuth 2.1 client of
//!   the MCP authorization spec;
//! - `output-schema` (default): a result's `structuredContent` checked
//!   against the tool's `outputSchema` ([`output`]).

#[cfg(feature = "oauth")]
pub mod auth;
#[cfg(feature = "oauth")]
mod bearer;
mod config;
mod connection;
mod dispatch;
mod error;
mod jsonrpc;
mod limits;
pub(crate) mod log_limit;
#[cfg(feature = "output-schema")]
pub mod output;
mod restart;
pub mod text;
mod transport;

pub use config::{Endpoint, ServerConfig};

/// The bounded `text/event-stream` parser of the HTTP transport, for the
/// host's other streams of server-sent events (the model APIs' streamed
/// responses in mcp-host).
#[cfg(feature = "http")]
pub mod sse {
    pub use crate::transport::sse::{Event, SseParser};
}

/// The HTTP(S) client pieces a host shares with its other HTTP clients (the
/// model APIs' in mcp-host): one pooled connector with the same trust roots,
/// and error text with its causes.
#[cfg(feature = "http")]
pub mod http {
    pub use crate::transport::http::{Connector, chain, connector};
}
pub use connection::{
    CHANGES_CAPACITY, CallOptions, Change, ClientOptions, DEFAULT_CALL_TIMEOUT,
    DEFAULT_MAX_INPUT_ROUNDS, ElicitFn, HANDSHAKE_TIMEOUT, MAX_COMPLETION_VALUE_BYTES, MAX_PAGES,
    MAX_PROMPT_MESSAGES, MAX_UPDATED_URI_BYTES, McpClient, Mode, PROBE_TIMEOUT, ProgressFn,
    SampleFn, SkillFile,
};
pub use dispatch::{
    DEFAULT_JSON_BUDGET, DEFAULT_TIMEOUT, Dispatcher, DispatcherConfig, Handler, NoHandler,
    RequestOptions, ServerNotification, ServerRequest,
};
pub use error::{Cause, ClientError, McpError, RpcError};
pub use limits::{
    DEFAULT_MAX_LISTING_BYTES, DEFAULT_MAX_LISTING_TREE_BYTES, DEFAULT_MAX_PAGES,
    DEFAULT_MAX_TOOLS, ListLimits,
};
pub use log_limit::{LOG_BURST, LOG_LINE_BYTES, LOG_RATE};
pub use restart::{
    DEFAULT_MAX_RESTARTS, FIRST_RESTART_BACKOFF, MAX_RESTART_BACKOFF, Reconnector, RestartPolicy,
};
#[cfg(feature = "http")]
pub use transport::factory::HttpFactory;
pub use transport::factory::StdioFactory;
#[cfg(feature = "http")]
pub use transport::http::{HttpConfig, HttpTransport};
pub use transport::stdio::{
    DEFAULT_CLOSE_GRACE, DEFAULT_INHERITED_ENV_VARS, DEFAULT_MAX_MESSAGE_BYTES, StdioConfig,
    StdioTransport,
};
pub use transport::{BoxFuture, Transport, TransportFactory};

/// A Linux host that is its servers' subreaper: reaping the orphans it
/// adopts without taking its servers' exit statuses, and finding what of
/// them still runs.
#[cfg(target_os = "linux")]
pub mod orphans {
    pub use crate::transport::children::{live_children, reap_orphans};
}
// The plumbing between a transport and its dispatcher: public for a
// transport written outside this crate, not part of the guide.
#[doc(hidden)]
pub use transport::{Connection, DEFAULT_INBOX_BYTES, Inbox, InboxSender, Incoming, Outgoing};
