//! An app's own `tools/call` (MCP Apps) through the gate the model's calls
//! pass: the catalog's checks first (its own server's tools visible to
//! apps: [`Catalog::app_tool`](crate::catalog::Catalog::app_tool)), then
//! a tool held back for a changed definition ([`pins`](super::pins)) is
//! refused, then the agent's [`Approver`](super::approval::Approver)
//! decides, as it does each call the model asks for (`--approve ask`
//! asks the person, an "always" answer covers the app's calls too).
//! The extension lets a host "subject [an app's messages] to further user
//! approval"; an app is the server's code running on the person's page,
//! so what it may run without asking is what the model may.

use super::Agent;
use super::approval::{ApprovalRequest, Caller, Decision};
use crate::catalog::AppCallRefused;
use mcpfn_client::CallOptions;
use mcpfn_protocol::model::CallToolResult;
use serde_json::Value;

impl Agent {
    /// Calls `tool` (an MCP name) of `server` for that server's app, with
    /// `arguments` (an object, or `null` for none), once the approver
    /// approves it; else why not (see the module docs). A failure of the
    /// call itself is an `isError` result, as for the model's calls.
    pub async fn call_from_app(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        options: CallOptions,
    ) -> Result<CallToolResult, AppCallRefused> {
        let offered = self.tools.offered();
        let catalog = &offered.catalog;
        let checked = catalog.app_tool(server, tool)?;
        let refused = |refusal: fn(String, String) -> AppCallRefused| {
            Err(refusal(server.to_owned(), tool.to_owned()))
        };
        // Its model name, if it has one: the name held back and the name
        // an approval shows.
        let listed = self.tools.listed();
        let model_name = listed.names().model_name(server, tool).unwrap_or(tool);
        if offered.is_held(model_name) {
            return refused(|server, tool| AppCallRefused::AwaitsApproval { server, tool });
        }
        // Arguments that are not an object are answered without asking.
        if arguments.is_object() || arguments.is_null() {
            let request = ApprovalRequest {
                model_name,
                caller: Caller::App,
                tool: checked.tool,
                server,
                trusted: checked.trusted,
                input: &arguments,
                listed: catalog.tools(),
            };
            match self.approver.decide(&request).await {
                Decision::Run => {}
                Decision::Decline => {
                    tracing::info!(server = %server, tool = %tool, "an app's call declined");
                    return refused(|server, tool| AppCallRefused::Declined { server, tool });
                }
                Decision::Unasked => {
                    return refused(|server, tool| AppCallRefused::Unasked { server, tool });
                }
            }
        }
        catalog
            .call_from_app(server, tool, arguments, options)
            .await
    }
}
