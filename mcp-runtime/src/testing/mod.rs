//! Helpers for users' tests, behind the `testing` feature (off by default,
//! so production binaries do not carry them). This module owns the re-exports;
//! each part lives in its own file:
//!
//! - [`Client`] (`client.rs`): the client for unit tests of tools, a thin
//!   layer over the in-process door ([`LocalClient`](crate::LocalClient)):
//!   list and call tools with JSON arguments, answer elicitations and
//!   sampling, collect progress and logs; typed results (`results.rs`).
//! - [`wire::Client`] (`wire.rs`): the client for tests of the protocol. It
//!   speaks JSON-RPC lines, in either era, to the server over an in-memory
//!   transport ([`memory`]), through the same main loop as stdio, and returns
//!   the wire's `result` objects and notifications.
//! - The golden gate (`snapshot.rs`):
//!   [`assert_tools_snapshot!`](crate::assert_tools_snapshot) fails with a
//!   unified line diff when the advertised tool surface changes, and rewrites
//!   the snapshot when `MCP_UPDATE_SNAPSHOTS=1` is set.

mod builder;
mod client;
mod results;
mod snapshot;
pub mod wire;

use serde_json::Value;

pub use crate::transport::{MemoryTransport, memory};
pub use builder::{ClientBuilder, Door, Wire};
pub use client::Client;
pub use results::{CallResult, RpcError};

/// Answers an `elicitation/create` request: gets its `params`, returns the
/// `ElicitResult` (e.g. `{"action":"accept","content":{…}}`).
pub type ElicitationHandler = Box<dyn FnMut(&Value) -> Value + Send>;

/// Answers a `sampling/createMessage` request: gets its `params`, returns the
/// `CreateMessageResult` (e.g. `{"role":"assistant","content":{"type":"text","text":"…"},"model":"m"}`).
pub type SamplingHandler = Box<dyn FnMut(&Value) -> Value + Send>;
pub use snapshot::{ToolSurface, UPDATE_SNAPSHOTS_ENV, assert_snapshot};

/// Checks that `store` behaves as every [`Store`](crate::store::Store) must
/// (absent keys, put, put-if-absent, compare-and-set, compare-and-delete,
/// delete, binary values, and a message published on a channel reaching
/// its listener and no other), on keys and channels starting `contract:`;
/// panics at the first wrong answer. It needs a Tokio runtime with time.
/// Run it in the tests of your own store:
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// mcpfn_runtime::testing::check_store(&mcpfn_runtime::store::MemoryStore::new()).await;
/// # });
/// ```
pub async fn check_store(store: &dyn crate::store::Store) {
    crate::store::contract::check(store).await;
}
