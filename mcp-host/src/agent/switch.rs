//! What a person changes about the servers while the agent runs: the
//! switch that offers a connected server to the model or not from the next
//! request on, without disconnecting it ([`Agent::set_offered`]), and a
//! server left out at the start started again ([`Agent::start_again`],
//! running the login it waits for first). [`Agent::listed`] is what the
//! servers list, switched off or not, for a list of servers to show.

use super::Agent;
use crate::catalog::{Catalog, SourceFailure};
use std::collections::BTreeSet;
use std::sync::Arc;

/// A switch named a server the agent has no connection to.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("no server `{0}` is connected: only a connected server can be offered or not")]
pub struct NotConnected(pub String);

impl Agent {
    /// Offers the connected server `server`'s tools to the model
    /// (`offered`), or not, from the next request on. The server stays
    /// connected; a call the model makes to one of its tools meanwhile is
    /// refused as not offered, saying the user switched it off. A tool
    /// waiting for approval stays held back either way. Whether anything
    /// changed.
    pub async fn set_offered(&self, server: &str, offered: bool) -> Result<bool, NotConnected> {
        if !self.tools.listed().servers().any(|name| name == server) {
            return Err(NotConnected(server.to_owned()));
        }
        Ok(self
            .tools
            .set_offered(server, offered, &*self.provider)
            .await)
    }

    /// The servers switched off ([`set_offered`](Self::set_offered)), by
    /// name.
    pub fn switched_off(&self) -> BTreeSet<String> {
        self.tools.off()
    }

    /// Everything the servers list now, offered or not (a server switched
    /// off keeps its tools here; a definition held back for approval is
    /// here too): what a list of servers shows. [`catalog`](Self::catalog)
    /// is what is offered.
    pub fn listed(&self) -> Arc<Catalog> {
        self.tools.listed()
    }

    /// Starts the configured server `server`, left out when the agent was
    /// built, again the way the agent started it, and offers its tools
    /// from the next request on. One left out for want of a login
    /// ([`SourceFailure::needs_login`]) runs that login first: its
    /// authorizer shows the URL, and the start waits for the redirect. The
    /// failure when it is left out again.
    pub async fn start_again(&self, server: &str) -> Result<(), SourceFailure> {
        self.tools.start_again(server, &*self.provider).await
    }
}
