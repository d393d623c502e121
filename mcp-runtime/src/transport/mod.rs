//! Byte transports: newline-delimited framing over any async reader/writer,
//! stdio, and (with the `testing` feature) an in-memory pipe pair for tests
//! and doctests. Internal: [`Server::serve`](crate::Server::serve) takes any
//! `AsyncRead`/`AsyncWrite`.

mod codec;
#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(feature = "testing")]
mod memory;
pub(crate) mod serve;
pub(crate) mod signal;
pub(crate) mod stdio;
pub(crate) mod writer;

pub(crate) use codec::{Line, LineReader};
#[cfg(feature = "testing")]
pub use memory::{MemoryTransport, memory};
