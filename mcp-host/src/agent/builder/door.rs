//! The in-process door on the builder (feature `local`, the one place the
//! agent names it): `#[tool]` fns and whole [`mcpfn_runtime::Server`]s of
//! this process, served at `build` as [`LocalSource`]s, tool sources like
//! the catalog's MCP servers.

use super::{AgentBuilder, AgentError};
use crate::catalog::{LocalSource, ToolSource};
use std::sync::Arc;

impl AgentBuilder {
    /// In-process `#[tool]` fns (`tools![a, b]`), offered as the tools of a
    /// source called `local`. Feature `local`.
    pub fn tools(mut self, tools: impl IntoIterator<Item = mcpfn_runtime::Tool>) -> AgentBuilder {
        self.door.tools.extend(tools);
        self
    }

    /// A value the in-process tools given with [`tools`](Self::tools) take
    /// as a `State<T>` parameter (one value per type; a second of one type
    /// replaces the first). Feature `local`.
    ///
    /// ```no_run
    /// use mcpfn_host::agent::Agent;
    /// use mcpfn_host::provider::Anthropic;
    /// use mcpfn_runtime::{State, tool, tools};
    /// use std::sync::Mutex;
    ///
    /// /// Keep a note.
    /// #[tool]
    /// async fn note(notes: State<Mutex<Vec<String>>>, text: String) -> String {
    ///     let mut notes = notes.lock().unwrap();
    ///     notes.push(text);
    ///     format!("{} notes", notes.len())
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let agent = Agent::new(Anthropic::from_env()?)
    ///     .tools(tools![note])
    ///     .state(Mutex::new(Vec::<String>::new()))
    ///     .build()
    ///     .await?;
    /// # let _ = agent;
    /// # Ok(())
    /// # }
    /// ```
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> AgentBuilder {
        let server = std::mem::replace(&mut self.door.server, local_server());
        self.door.server = server.state(value);
        self
    }

    /// A whole in-process server, as the source `name`. Feature `local`.
    pub fn server(
        mut self,
        name: impl Into<String>,
        server: mcpfn_runtime::Server,
    ) -> AgentBuilder {
        self.door.servers.push((name.into(), server));
        self
    }
}

/// What the builder was given for the door, until `build`.
#[derive(Debug)]
pub(super) struct Door {
    tools: Vec<mcpfn_runtime::Tool>,
    /// The server the in-process tools are served by, holding the states
    /// given with [`AgentBuilder::state`] until they are added at `build`.
    server: mcpfn_runtime::Server,
    servers: Vec<(String, mcpfn_runtime::Server)>,
}

impl Door {
    /// Nothing given yet.
    pub(super) fn new() -> Door {
        Door {
            tools: Vec::new(),
            server: local_server(),
            servers: Vec::new(),
        }
    }

    /// The in-process tools and servers served as [`LocalSource`]s: the
    /// tools as the source `local`, then each server under its name.
    pub(super) fn sources(self) -> Result<Vec<Arc<dyn ToolSource>>, AgentError> {
        let mut sources: Vec<Arc<dyn ToolSource>> = Vec::new();
        if !self.tools.is_empty() {
            // The runtime's own message names `Server::state`, a server the
            // caller never made; here the fix is the builder's.
            let client = self.server.tools(self.tools).local().map_err(|e| match e {
                mcpfn_runtime::Error::MissingState { tool, type_name } => {
                    AgentError::MissingState { tool, type_name }
                }
                other => AgentError::Local(other),
            })?;
            sources.push(Arc::new(LocalSource::new("local", client)));
        }
        for (name, server) in self.servers {
            let client = server.local().map_err(AgentError::Local)?;
            sources.push(Arc::new(LocalSource::new(name, client)));
        }
        Ok(sources)
    }
}

/// The server of the in-process tools, the source called `local`.
fn local_server() -> mcpfn_runtime::Server {
    mcpfn_runtime::Server::new("local", env!("CARGO_PKG_VERSION"))
}
