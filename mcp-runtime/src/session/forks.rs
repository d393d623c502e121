//! One conversation spread over several connections: a legacy Streamable
//! HTTP session answers each POST on a fork of its handshake's connection
//! (`Connection::fork`), so a call, and the requests it makes to the client,
//! live on the fork of the POST that started it. The client's answers and
//! cancellations arrive on POSTs of their own; a [`Session`](super::Session)
//! made [`across`](super::Session::across) the forks takes them as it takes
//! them on stdio, over all of them.

use crate::conn::connection::Connection;
use crate::util::lock;
use std::sync::{Arc, Mutex, Weak};

/// The connections of one conversation's requests in flight.
#[derive(Debug, Default)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Forks(Mutex<Vec<Weak<Connection>>>);

#[cfg_attr(not(feature = "http"), allow(dead_code))]
impl Forks {
    /// Adds `connection` while it lives; those that ended are forgotten
    /// here, so the list stays as long as the requests in flight.
    pub(crate) fn add(&self, connection: &Arc<Connection>) {
        let mut forks = lock(&self.0);
        forks.retain(|c| c.strong_count() > 0);
        forks.push(Arc::downgrade(connection));
    }

    /// The connections still live.
    pub(crate) fn live(&self) -> Vec<Arc<Connection>> {
        let mut forks = lock(&self.0);
        forks.retain(|c| c.strong_count() > 0);
        forks.iter().filter_map(Weak::upgrade).collect()
    }
}
