//! The [Model Context Protocol](https://modelcontextprotocol.io) as Rust
//! types: what each message of MCP means, one type per concept, shared by
//! the server runtime (`mcp-runtime`), the client in `mcp-host` and any
//! program that speaks MCP itself. No I/O happens here: a transport moves
//! the bytes, this crate says what they are.
//!
//! # The model
//!
//! [`model`] holds the messages both ways, as owned serde types:
//!
//! - each method as a type ([`model::method`]): [`Request`](model::method::Request)
//!   names its `METHOD`, the `Params` it is sent with, the `Result` it is
//!   answered with and the revisions it exists in; a notification is a
//!   [`Notification`](model::method::Notification);
//! - the params and results themselves: tools ([`model::Tool`],
//!   [`model::CallToolResult`], [`model::ContentBlock`]), the handshake and
//!   discovery ([`model::InitializeParams`], [`model::DiscoverResult`]),
//!   what a server asks of the client ([`model::InputRequest`]), the Tasks
//!   extension ([`model::DetailedTask`]);
//! - the JSON-RPC envelopes ([`model::JsonRpcRequest`], …) and any message
//!   as it arrives ([`model::Message`]).
//!
//! Every type is camelCase on the wire, ignores unknown fields on read and
//! skips absent ones on write. [`ProtocolVersion`] names the revisions and
//! what each one carries; [`RpcError`] and [`ErrorCode`] are the JSON-RPC
//! errors; [`meta`] the reserved `_meta` keys and the 2026-07-28 envelope
//! every request carries; [`model_name`] the names model APIs accept for
//! MCP tools.
//!
//! # A call, both ways
//!
//! ```
//! use mcpfn_protocol::model::method::{CallTool, Request};
//! use mcpfn_protocol::model::{
//!     CallToolParams, CallToolResponse, ContentBlock, JsonRpcRequest, Message,
//! };
//!
//! // What a client writes: `tools/call` with its typed params.
//! let params: <CallTool as Request>::Params = CallToolParams {
//!     name: "add".into(),
//!     arguments: serde_json::json!({"a": 1, "b": 2}).as_object().cloned(),
//!     ..CallToolParams::default()
//! };
//! let request = JsonRpcRequest::new(1, CallTool::METHOD, Some(params));
//! assert_eq!(
//!     serde_json::to_string(&request).unwrap(),
//!     r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#
//! );
//!
//! // What it reads back: a message, then the result its method names.
//! let line = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"3"}]}}"#;
//! let Message::Response { result, .. } = serde_json::from_str(line).unwrap() else {
//!     panic!("a response");
//! };
//! let result: <CallTool as Request>::Result = serde_json::from_value(result).unwrap();
//! let CallToolResponse::Complete(result) = result else {
//!     panic!("a complete result");
//! };
//! assert!(matches!(&result.content[0], ContentBlock::Text(t) if t.text == "3"));
//! ```
//!
//! # What is not here
//!
//! The server's zero-copy machinery (the one-pass reader of incoming
//! messages, the writers of its results, the framing) is a private part of
//! `mcp-runtime`: it renders and reads the types of [`model`] byte for byte,
//! faster, and is no second model. What is here and hidden from these docs
//! are the rules both ends share (size bounds, request ids, line framing).

#![forbid(unsafe_code)]

pub mod content;
mod error;
mod error_code;
pub mod meta;
pub mod model;
pub mod model_name;
pub mod model_schema;
pub mod sampling;
mod version;

// Below the model, the rules both ends share: public for `mcp-runtime` and
// the client (bounds, ids, framing, canonical JSON), not part of what a
// user of the model reads.

// The model's `tools/call` result built from content blocks; public for
// its `{"result": …}` wrapper, which the runtime's fast path writes too.
#[doc(hidden)]
pub mod call_model;
#[doc(hidden)]
pub mod canonical;
#[doc(hidden)]
pub mod id_scan;
#[doc(hidden)]
pub mod json_budget;
// `meta` reads its keys with these readers, and so does the server's
// reader of a whole message (`mcp-runtime`): one spelling of "a string".
#[doc(hidden)]
pub mod read;

pub use error::RpcError;
pub use error_code::ErrorCode;
pub use version::ProtocolVersion;
pub mod http;
#[doc(hidden)]
pub mod lines;
