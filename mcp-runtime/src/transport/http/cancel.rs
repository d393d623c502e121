//! The guard that cancels a request's calls when its response body is
//! dropped before the end (hyper drops the body when the client goes away),
//! held by the body that streams them or by a stream its call closed
//! (`resume.rs`).

use crate::conn::connection::Connection;
use std::sync::Weak;

/// Cancels every call of a request's connection when dropped; calls that
/// have finished are gone from it, so this is a no-op after a normal end.
#[derive(Debug)]
pub(crate) struct CancelOnDrop(pub(crate) Weak<Connection>);

impl CancelOnDrop {
    /// The connection, without cancelling it (its guard moves on).
    pub(crate) fn disarm(mut self) -> Weak<Connection> {
        std::mem::take(&mut self.0)
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(connection) = self.0.upgrade() {
            connection.fail_server_requests();
            let cancelled = connection.cancel_all();
            if !cancelled.is_empty() {
                tracing::debug!(
                    calls = cancelled.len(),
                    "the client went away; cancelled its calls"
                );
            }
        }
    }
}
