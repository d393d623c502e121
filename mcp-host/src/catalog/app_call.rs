//! An app's own `tools/call` (MCP Apps): allowed only for a tool its own
//! server lists now, that the config's filter keeps, and whose
//! visibility includes `"app"`, whether or not the model is offered it.
//! This is the catalog's half; the agent puts each call to the approver
//! first, as it does the model's
//! ([`Agent::call_from_app`](crate::agent::Agent::call_from_app)).

use super::Catalog;
use crate::apps;
use crate::call_result::CallFailure;
use mcpfn_client::CallOptions;
use mcpfn_protocol::model::{CallToolResult, Tool};
use serde_json::Value;

/// Why a call that needed a person was not run when no one could be asked:
/// the model reads "The call was not run: " and this; an app gets it in
/// [`AppCallRefused::Unasked`]. Re-exported as
/// `agent::approval::UNASKED_REASON`.
pub const UNASKED_REASON: &str = "it needs a person's approval and no one could be asked";

/// Why an app's call was refused before reaching its server; each names
/// the server and the tool.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AppCallRefused {
    /// The app's server is not in the catalog.
    #[error("the app's server `{server}` is not running")]
    UnknownServer {
        /// The server.
        server: String,
    },
    /// Its server does not list the tool (or the config leaves it out).
    #[error("server `{server}` offers no tool `{tool}`")]
    NotListed {
        /// The server.
        server: String,
        /// The tool's MCP name.
        tool: String,
    },
    /// The tool's visibility leaves out apps.
    #[error(
        "the tool `{tool}` of server `{server}` is not visible to apps (its `_meta.ui.visibility` leaves out \"app\")"
    )]
    NotForApps {
        /// The server.
        server: String,
        /// The tool's MCP name.
        tool: String,
    },
    /// The person (or the `--approve` policy) declined the call.
    #[error("the call of `{tool}` of server `{server}` was declined by the user")]
    Declined {
        /// The server.
        server: String,
        /// The tool's MCP name.
        tool: String,
    },
    /// The call needs a person's approval and no one could be asked.
    #[error(
        "the call of `{tool}` of server `{server}` was not run: {}",
        UNASKED_REASON
    )]
    Unasked {
        /// The server.
        server: String,
        /// The tool's MCP name.
        tool: String,
    },
    /// The tool's definition changed and awaits the user's approval
    /// ([`pins`](crate::agent::pins)): held back from the app as from the
    /// model.
    #[error(
        "the tool `{tool}` of server `{server}` is held back: its definition changed and awaits the user's approval"
    )]
    AwaitsApproval {
        /// The server.
        server: String,
        /// The tool's MCP name.
        tool: String,
    },
}

/// A tool an app may call, as its server lists it.
#[derive(Clone, Copy, Debug)]
pub struct AppTool<'a> {
    /// The tool.
    pub tool: &'a Tool,
    /// Whether its server's annotations are believed
    /// ([`ToolSource::trusted`](super::ToolSource::trusted)).
    pub trusted: bool,
}

impl Catalog {
    /// Calls `tool` (an MCP name) of `server` for that server's app, with
    /// `arguments` (an object, or `null` for none), or refuses it (see the
    /// module docs). A failure of the call itself is an `isError` result,
    /// as for the model's calls.
    pub async fn call_from_app(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        mut options: CallOptions,
    ) -> Result<CallToolResult, AppCallRefused> {
        self.app_tool(server, tool)?;
        let Some(source) = self.sources.get(server) else {
            return Err(AppCallRefused::UnknownServer {
                server: server.to_owned(),
            });
        };
        let arguments = match arguments {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return Ok(CallFailure::InvalidArguments {
                    reason: format!("the arguments must be a JSON object, not {other}"),
                }
                .to_result());
            }
        };
        if options.timeout.is_none() {
            options.timeout = self.call_timeout;
        }
        tracing::info!(server = %server, tool = %tool, "an app calls a tool");
        Ok(match source.call_tool(tool, arguments, options).await {
            Ok(result) => result,
            Err(e) => CallFailure::from_error(&e, server).to_result(),
        })
    }

    /// The tool `tool` (an MCP name) of `server` if that server's app may
    /// call it (see the module docs), else why not.
    pub fn app_tool(&self, server: &str, tool: &str) -> Result<AppTool<'_>, AppCallRefused> {
        let Some(source) = self.sources.get(server) else {
            return Err(AppCallRefused::UnknownServer {
                server: server.to_owned(),
            });
        };
        let listed = self
            .listed_tool(server, tool)
            .ok_or_else(|| AppCallRefused::NotListed {
                server: server.to_owned(),
                tool: tool.to_owned(),
            })?;
        if !apps::callable_by_app(listed) {
            return Err(AppCallRefused::NotForApps {
                server: server.to_owned(),
                tool: tool.to_owned(),
            });
        }
        Ok(AppTool {
            tool: listed,
            trusted: source.trusted(),
        })
    }

    /// The tool `tool` (an MCP name) of `server` as its server lists it
    /// now, whether or not the model is offered it (an app-only tool).
    pub fn listed_tool(&self, server: &str, tool: &str) -> Option<&Tool> {
        self.listed.get(server)?.iter().find(|t| t.name == tool)
    }
}
