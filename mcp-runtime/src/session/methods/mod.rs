//! One file per method family; each adds its handlers to
//! [`Session`](super::Session), called from its routing table.

pub(super) mod lifecycle;
pub(crate) mod listen;
pub(super) mod logging;
pub(super) mod tools;
