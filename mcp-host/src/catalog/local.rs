//! The in-process door as a tool source (feature `local`): a
//! server of this process called without a transport.

use super::ToolSource;
use mcpfn_client::{BoxFuture, CallOptions, McpError};
use mcpfn_protocol::model::{CallToolResult, JsonObject, Tool};
use std::sync::Arc;

/// An in-process [`mcpfn_runtime::Server`] as a tool source: its `#[tool]` fns
/// called through the core's in-process door ([`mcpfn_runtime::LocalClient`]),
/// with no process and no JSON text. Trusted: it is the host's own code.
///
/// ```
/// use mcpfn_host::catalog::{Catalog, CatalogOptions, LocalSource, ToolSource};
/// use mcpfn_runtime::{Server, tool, tools};
/// use std::sync::Arc;
///
/// /// Add two numbers.
/// #[tool]
/// async fn add(a: f64, b: f64) -> f64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let local = Server::new("calc", "1.0.0").tools(tools![add]).local()?;
/// let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(LocalSource::new("calc", local))];
/// let catalog = Catalog::from_sources(sources, CatalogOptions::default()).await?;
/// let result = catalog.call("add", serde_json::json!({"a": 1, "b": 2})).await;
/// assert_eq!(result.structured_content, Some(serde_json::json!(3.0)));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct LocalSource {
    name: String,
    client: mcpfn_runtime::LocalClient,
}

impl LocalSource {
    /// The tools of `client`, under the source name `name`.
    pub fn new(name: impl Into<String>, client: mcpfn_runtime::LocalClient) -> LocalSource {
        LocalSource {
            name: name.into(),
            client,
        }
    }
}

impl ToolSource for LocalSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn trusted(&self) -> bool {
        true
    }

    fn in_process(&self) -> bool {
        true
    }

    fn list_tools(&self) -> BoxFuture<'_, Result<Arc<Vec<Tool>>, McpError>> {
        Box::pin(async move { Ok(Arc::new(self.client.tools())) })
    }

    fn call_tool<'a>(
        &'a self,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        Box::pin(async move {
            let mut local = mcpfn_runtime::CallOptions::new();
            if let Some(timeout) = options.timeout {
                local = local.timeout(timeout);
            }
            if let Some(progress) = options.progress {
                local = local.on_progress(move |p| progress(p));
            }
            self.client
                .call_with(tool, arguments.unwrap_or_default(), local)
                .await
                .map_err(|e| McpError::Client(mcpfn_client::ClientError::Rpc(e)))
        })
    }
}
