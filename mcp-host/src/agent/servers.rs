//! The servers behind an agent, as a front end shows them (the terminal's
//! `/servers`, `/prompt` and `@server:URI`; the web page's panel): each
//! configured server with its state and offered tools ([`Agent::servers`]),
//! its MCP client ([`Agent::client`]) for the rest of its surface, and that
//! surface listed at once ([`ServerView::surface`]: prompts, resources,
//! resource templates, Skills).
//!
//! Nothing here is cached: a front end lists when it shows, and learns of
//! changes from [`McpClient::changes`].
//!
//! A prompt run as the next turn, then a line with a resource attached (the
//! host guide's example, `docs/host.md`):
//!
//! ```no_run
//! use mcpfn_host::agent::Agent;
//! use mcpfn_host::agent::turn::Turn;
//! use std::collections::BTreeMap;
//!
//! # async fn run(agent: Agent) -> Result<(), Box<dyn std::error::Error>> {
//! let client = agent.client("docs").expect("a ready server");
//! let arguments = BTreeMap::from([("file".to_owned(), "a.rs".to_owned())]);
//! let prompt = client.get_prompt("review", arguments).await?;
//! let mut chat = agent.conversation();
//! let answer = agent.send_turn(&mut chat, &Turn::prompt(prompt)).await?;
//! let notes = client.read_resource("file:///notes.md").await?;
//! let line = Turn::line("And these notes?").attach("docs", "file:///notes.md", notes);
//! let answer = agent.send_turn(&mut chat, &line).await?;
//! # let _ = answer;
//! # Ok(())
//! # }
//! ```

use super::Agent;
use mcpfn_client::{McpClient, McpError};
use mcpfn_protocol::model::{Prompt, Resource, ResourceTemplate, Skill};

/// Whether a configured server is there to use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerState {
    /// Started and listed: its tools are offered (as its filter allows).
    Ready,
    /// It failed to start or to list its tools; the reason.
    Failed(String),
    /// It waits for a login (OAuth) before it starts, left out until one
    /// runs (`Agent::start_again`); the reason.
    NeedsLogin(String),
    /// `"disabled": true` in `mcp.json`: not started.
    Disabled,
}

/// One server behind the agent.
#[derive(Clone, Debug)]
pub struct ServerView {
    /// Its config name.
    pub name: String,
    /// Whether it is there to use.
    pub state: ServerState,
    /// The model names of its tools offered now, in the catalog's order.
    pub tools: Vec<String>,
    /// Its MCP client when it is [`ServerState::Ready`] and an MCP server
    /// (the in-process door has none).
    pub client: Option<McpClient>,
}

/// What a server offers beyond tools, as listed now (each list empty when
/// the server does not declare its capability).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    /// Its prompts.
    pub prompts: Vec<Prompt>,
    /// Its resources at fixed URIs.
    pub resources: Vec<Resource>,
    /// Its resource templates.
    pub templates: Vec<ResourceTemplate>,
    /// Its skills (the Skills extension), their files not read.
    pub skills: Vec<Skill>,
}

impl ServerView {
    /// The server's prompts, resources, templates and skills, listed at
    /// once; the first listing that fails is the error (it names the
    /// server). A server without a client has none.
    pub async fn surface(&self) -> Result<Surface, McpError> {
        let Some(client) = &self.client else {
            return Ok(Surface::default());
        };
        let (prompts, resources, templates, skills) = tokio::try_join!(
            client.list_prompts(),
            client.list_resources(),
            client.list_resource_templates(),
            client.list_skills(),
        )?;
        Ok(Surface {
            prompts,
            resources,
            templates,
            skills,
        })
    }
}

impl Agent {
    /// Every configured server, ready ones first in the catalog's order,
    /// then those that failed or wait for a login, then the disabled ones.
    pub fn servers(&self) -> Vec<ServerView> {
        let catalog = self.catalog();
        let mut servers: Vec<ServerView> = catalog
            .servers()
            .map(|name| ServerView {
                name: name.to_owned(),
                state: ServerState::Ready,
                tools: catalog
                    .tools()
                    .iter()
                    .filter(|t| t.server == name)
                    .map(|t| t.model_name.clone())
                    .collect(),
                client: catalog.client(name),
            })
            .collect();
        servers.extend(catalog.failures().iter().map(|failure| ServerView {
            name: failure.server.clone(),
            state: if failure.needs_login {
                ServerState::NeedsLogin(failure.reason.clone())
            } else {
                ServerState::Failed(failure.reason.clone())
            },
            tools: Vec::new(),
            client: None,
        }));
        servers.extend(catalog.disabled().iter().map(|name| ServerView {
            name: name.clone(),
            state: ServerState::Disabled,
            tools: Vec::new(),
            client: None,
        }));
        servers
    }

    /// The MCP client of server `server`, when it is ready.
    pub fn client(&self, server: &str) -> Option<McpClient> {
        self.catalog().client(server)
    }
}
