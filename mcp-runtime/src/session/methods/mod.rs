//! One file per method family: its typed methods (`impl Method`, listed in
//! [`METHODS`](super::table::METHODS)) and the handlers of the entries that
//! write their own frames (`tools/call`, `subscriptions/listen`).

pub(super) mod lifecycle;
pub(crate) mod listen;
pub(super) mod logging;
pub(super) mod tasks;
pub(super) mod tools;
