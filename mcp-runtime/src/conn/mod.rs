//! Per-connection state, below both the session (which reads and changes it
//! per message) and the context (which a running call reaches it through):
//! the [`connection::Connection`] with its outbox, the era it speaks
//! ([`lifecycle::Lifecycle`]) and what the client said about itself
//! ([`client::ClientInfo`]). Nothing here knows what a method means.

pub(crate) mod client;
pub(crate) mod connection;
pub(crate) mod lifecycle;
pub(crate) mod outbox;
pub(crate) mod peer;
pub(crate) mod stream_close;
pub(crate) mod watched;
