//! Transports. A long-lived, message-framed connection is served by the
//! driver (`driver.rs`: the policy, over the `MessageTransport` trait) and
//! an adapter of it: newline-delimited framing over any async reader/writer
//! (`lines.rs`, with `codec.rs` and `writer.rs`), stdio's hardened pipes
//! (`stdio.rs`), in-memory message queues (`queues.rs`, the driver's
//! tests). Streamable HTTP (`http/`, feature `http`) answers each POST on a
//! connection of its own instead (`http/respond.rs`). With the `testing`
//! feature, an in-memory byte pipe pair for tests and doctests. Internal:
//! [`Server::serve`](crate::Server::serve) takes any `AsyncRead`/`AsyncWrite`.

mod codec;
pub(crate) mod driver;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod lines;
#[cfg(feature = "testing")]
mod memory;
#[cfg(test)]
pub(crate) mod queues;
pub(crate) mod signal;
pub(crate) mod stdio;
pub(crate) mod writer;

#[cfg(feature = "testing")]
pub use memory::{MemoryTransport, memory};
