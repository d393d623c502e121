//! Helpers for users' tests, behind the `testing` feature (off by default,
//! so production binaries do not carry them). This module owns the re-exports;
//! each part lives in its own file:
//!
//! - [`Client`] (`client.rs`): an in-process MCP client for unit tests of
//!   tools, in either era: list and call tools, answer elicitations, collect
//!   progress and logs. No process and no pipes: it talks to the server
//!   through an in-memory transport ([`memory`]), through the same main loop
//!   as stdio; what it returns is in `results.rs`.
//! - The golden gate (`snapshot.rs`):
//!   [`assert_tools_snapshot!`](crate::assert_tools_snapshot) fails with a
//!   unified line diff when the advertised tool surface changes, and rewrites
//!   the snapshot when `MCP_UPDATE_SNAPSHOTS=1` is set.

mod client;
mod results;
mod snapshot;

pub use crate::transport::{MemoryTransport, memory};
pub use client::{Client, ClientBuilder, ElicitationHandler, SamplingHandler};
pub use results::{CallResult, RpcError};
pub use snapshot::{ToolSurface, UPDATE_SNAPSHOTS_ENV, assert_snapshot};

/// Checks that `store` behaves as every [`Store`](crate::store::Store) must
/// (absent keys, put, put-if-absent, compare-and-set, compare-and-delete,
/// delete, binary values), on keys starting `contract:`; panics at the first
/// wrong answer. Run it in the tests of your own store:
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// mcp_runtime::testing::check_store(&mcp_runtime::store::MemoryStore::new()).await;
/// # });
/// ```
pub async fn check_store(store: &dyn crate::store::Store) {
    crate::store::contract::check(store).await;
}
