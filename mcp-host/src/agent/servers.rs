//! The servers as a person sees them: each one's state (connected, failed
//! and why, waiting for a login, disabled in the config), whether it is
//! offered to the model, and its tools ([`Agent::servers`]); and the switch
//! that offers a connected server or not from the next request on
//! ([`Agent::set_offered`]) without disconnecting it; and a server left
//! out started again ([`Agent::start_again`], after a login).

use super::Agent;
use crate::catalog::SourceFailure;

/// Where a server stands.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerState {
    /// Started and listed: its tools can be offered.
    Connected,
    /// Left out: it failed to start or to list its tools.
    Failed {
        /// What happened.
        reason: String,
    },
    /// Left out until the user logs in (OAuth).
    NeedsLogin {
        /// What the server said.
        reason: String,
    },
    /// Not started: its entry says `"disabled": true`.
    Disabled,
}

/// One of the agent's tools as a person is shown it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerTool {
    /// Its MCP name, as the server lists it.
    pub name: String,
    /// The name the model calls it by.
    pub model_name: String,
    /// Its title, else its description's first line, else empty.
    pub summary: String,
}

/// One server of the agent, for a list of servers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerView {
    /// Its name in the config (or the in-process source's name).
    pub name: String,
    /// Where it stands.
    pub state: ServerState,
    /// Whether its tools are offered to the model: connected and not
    /// switched off.
    pub offered: bool,
    /// The tools it lists (less its config's `tools` filter), offered or
    /// not, in the catalog's order.
    pub tools: Vec<ServerTool>,
}

/// A switch named a server the agent has no connection to.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("no server `{0}` is connected: only a connected server can be offered or not")]
pub struct NotConnected(pub String);

impl Agent {
    /// Every server: the connected ones, then the failed and the disabled
    /// ones, each group in name order.
    pub fn servers(&self) -> Vec<ServerView> {
        let listed = self.tools.listed();
        let off = self.tools.off();
        let mut views: Vec<ServerView> = listed
            .sources()
            .map(|name| ServerView {
                name: name.to_owned(),
                state: ServerState::Connected,
                offered: !off.contains(name),
                tools: listed
                    .tools()
                    .iter()
                    .filter(|t| t.server == name)
                    .map(|t| ServerTool {
                        name: t.tool.name.clone(),
                        model_name: t.model_name.clone(),
                        summary: summary(&t.tool),
                    })
                    .collect(),
            })
            .collect();
        let mut failed: Vec<ServerView> = listed
            .failures()
            .iter()
            .map(|failure| ServerView {
                name: failure.server.clone(),
                state: if failure.needs_login {
                    ServerState::NeedsLogin {
                        reason: failure.reason.clone(),
                    }
                } else {
                    ServerState::Failed {
                        reason: failure.reason.clone(),
                    }
                },
                offered: false,
                tools: Vec::new(),
            })
            .collect();
        failed.sort_by(|a, b| a.name.cmp(&b.name));
        views.extend(failed);
        views.extend(listed.disabled().iter().map(|name| ServerView {
            name: name.clone(),
            state: ServerState::Disabled,
            offered: false,
            tools: Vec::new(),
        }));
        views
    }

    /// Offers the connected server `server`'s tools to the model
    /// (`offered`), or not, from the next request on. The server stays
    /// connected; a call the model makes to one of its tools meanwhile is
    /// refused as not offered, saying the user switched it off. A tool
    /// waiting for approval stays held back either way. Whether anything
    /// changed.
    pub async fn set_offered(&self, server: &str, offered: bool) -> Result<bool, NotConnected> {
        if !self.tools.listed().sources().any(|name| name == server) {
            return Err(NotConnected(server.to_owned()));
        }
        Ok(self
            .tools
            .set_offered(server, offered, &*self.provider)
            .await)
    }
}

impl Agent {
    /// Starts the configured server `server`, left out when the agent was
    /// built (it failed, or waits for a login the user has now given),
    /// again the way the agent started it, and offers its tools from the
    /// next request on. The failure when it is left out again.
    pub async fn start_again(&self, server: &str) -> Result<(), SourceFailure> {
        self.tools.start_again(server, &*self.provider).await
    }
}

/// The line a list shows for `tool`: its title, else its description's
/// first line (at most 200 characters).
fn summary(tool: &mcpfn_protocol::model::Tool) -> String {
    const MOST: usize = 200;
    let text = tool
        .title
        .as_deref()
        .or(tool.description.as_deref())
        .unwrap_or_default();
    text.lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(MOST)
        .collect()
}
