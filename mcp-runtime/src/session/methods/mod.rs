//! One file per method family: its typed methods (`impl Method` on the
//! protocol's marker, and `impl Streaming` for `subscriptions/listen`,
//! listed in
//! [`METHODS`](super::table::METHODS)), and the handlers of the entries
//! that write their own frames (`tools/call`) or answer from the store
//! (`tasks/*`).

pub(super) mod lifecycle;
pub(crate) mod listen;
pub(super) mod logging;
pub(super) mod resources;
pub(super) mod tasks;
pub(super) mod tools;
