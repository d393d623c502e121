//! What the bytes of the [Model Context Protocol](https://modelcontextprotocol.io)
//! mean, and the only place that writes them: revisions and what each
//! carries ([`ProtocolVersion`]), incoming message shapes and the params
//! of each method a server serves ([`incoming`], [`incoming::requests`]),
//! the one parse of the members of a request's params every layer decides
//! on ([`params`]), the typed outgoing
//! messages ([`outgoing`], [`tool_def`], [`content`]) and their framing
//! ([`frame`]), error codes and the reserved `_meta` keys ([`meta`]), W3C
//! trace context ([`trace_context`]); the bound on what a JSON tree
//! built from a peer's bytes costs ([`json_budget`]); the client direction: typed requests
//! a client sends and the results, server requests and notifications it
//! reads ([`model`]), and the one JSON-RPC error object ([`RpcError`]);
//! the names model APIs accept for MCP tools ([`model_name`]), one mapping
//! for host catalogs and server dumps.
//!
//! No I/O happens here: the server runtime (`mcp-runtime`) reads and writes
//! the bytes, this crate says what they are.

#![forbid(unsafe_code)]

pub mod content;
mod error;
mod error_code;
pub mod form;
pub mod frame;
pub mod id_scan;
pub mod incoming;
pub mod json_budget;
pub mod meta;
pub mod model;
pub mod model_name;
pub mod outgoing;
pub mod params;
pub mod sampling;
pub mod task;
pub mod tool_def;
pub mod trace_context;
mod version;

pub use content::{Audience, Content};
pub use error::RpcError;
pub use error_code::ErrorCode;
pub use sampling::{Role, SamplingContent, SamplingMessage};
pub use version::ProtocolVersion;
// The client direction, at the root as well (its `Role`, `SamplingContent`,
// `SamplingMessage` and `RpcError` are the ones above).
pub use model::*;
pub mod http;
#[doc(hidden)]
pub mod lines;
