//! Where a catalog's tools come from: [`ToolSource`], the one trait a
//! catalog lists and calls through, for an MCP server ([`McpClient`]) and
//! the in-process door (`LocalSource`, feature `local`) alike.

use mcpfn_client::{BoxFuture, CallOptions, McpClient, McpError};
use mcpfn_protocol::model::{CallToolResult, JsonObject, Tool};
use std::fmt;
use std::sync::Arc;

/// Where tools come from: an MCP server through [`McpClient`], or anything
/// else that lists and calls tools (an in-process server).
pub trait ToolSource: Send + Sync + fmt::Debug + 'static {
    /// The source's name: the config name of a server, the prefix of its
    /// tools' model names on collision.
    fn name(&self) -> &str;

    /// Whether its annotations are believed.
    fn trusted(&self) -> bool;

    /// Whether its tools are the host's own code (an in-process server):
    /// two of them meeting under one model name, or one listed twice,
    /// refuse the catalog ([`CatalogError::Collisions`](super::CatalogError::Collisions)) so that the
    /// developer renames one, instead of being told apart by a hash or left
    /// out as a server's are. Default `false`.
    fn in_process(&self) -> bool {
        false
    }

    /// Its tools, in its own order.
    fn list_tools(&self) -> BoxFuture<'_, Result<Arc<Vec<Tool>>, McpError>>;

    /// The tools it listed last while they are known to be current,
    /// without asking anyone: `Some` is compared with the list the catalog
    /// holds (the same `Arc`: nothing changed), `None` makes the catalog
    /// list again ([`list_tools`](Self::list_tools)) before the next model
    /// request. The default is `None`: a source that cannot tell is listed
    /// before every model request (an in-process server: no I/O).
    fn current_tools(&self) -> Option<Arc<Vec<Tool>>> {
        None
    }

    /// Calls its tool `tool` (an MCP name).
    fn call_tool<'a>(
        &'a self,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>>;

    /// Ends the source's connection (a stdio server: stdin closed, a grace
    /// to exit, SIGTERM, SIGKILL). The default does nothing.
    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// The MCP client behind the source, for the rest of the server's
    /// surface (prompts, resources, completions, Skills): `None` (the
    /// default) for a source that only lists and calls tools.
    fn client(&self) -> Option<&McpClient> {
        None
    }
}

impl ToolSource for McpClient {
    fn name(&self) -> &str {
        McpClient::name(self)
    }

    fn trusted(&self) -> bool {
        McpClient::trusted(self)
    }

    fn list_tools(&self) -> BoxFuture<'_, Result<Arc<Vec<Tool>>, McpError>> {
        Box::pin(McpClient::list_tools(self))
    }

    fn current_tools(&self) -> Option<Arc<Vec<Tool>>> {
        // The client's cache: current until `list_changed` or `ttlMs`.
        McpClient::cached_tools(self)
    }

    fn call_tool<'a>(
        &'a self,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        Box::pin(McpClient::call_tool(self, tool, arguments, options))
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(McpClient::close(self))
    }

    fn client(&self) -> Option<&McpClient> {
        Some(self)
    }
}
