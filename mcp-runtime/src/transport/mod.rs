//! Byte transports: newline-delimited framing over any async reader/writer,
//! stdio, and an in-memory pipe pair for tests and doctests.

mod codec;
mod memory;
pub(crate) mod serve;
pub(crate) mod signal;
pub(crate) mod stdio;
pub(crate) mod writer;

pub use codec::{Line, LineReader};
pub use memory::{MemoryTransport, memory};
