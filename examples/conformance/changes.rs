//! Fixtures for what changes while a client is connected: the tool, prompt and
//! resource lists, a watched resource's updates, and a stream closed for the
//! client to resume.

use mcpfn_runtime::{Context, Tool, ToolBuilder, ToolError, ToolOutcome, tool};
use std::time::Duration;

/// SSE polling fixture (`server-sse-polling`, 2025-11-25 over HTTP): closes
/// the call's event stream first, so the client resumes it with
/// `Last-Event-ID` for the result (SEP-1699).
#[tool(read_only, open_world = false)]
pub(crate) async fn test_reconnection(ctx: Context) -> String {
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed".to_owned()
}

/// 2026-07-28 fixture (`server-stateless`, its list-change checks): changes
/// the tool list (adds `test_list_changed_marker`, or removes it when it is
/// there), so the open `subscriptions/listen` streams that asked get
/// `notifications/tools/list_changed`.
#[tool(open_world = false)]
pub(crate) async fn test_trigger_tool_change(ctx: Context) -> Result<String, ToolError> {
    let tools = ctx.tools();
    if tools.remove("test_list_changed_marker") {
        return Ok("removed test_list_changed_marker".to_owned());
    }
    tools
        .add(test_list_changed_marker())
        .map_err(|err| ToolError::new(format!("could not add the marker tool: {err}")))?;
    Ok("added test_list_changed_marker".to_owned())
}

/// The tool `test_trigger_tool_change` adds and removes.
pub(crate) fn test_list_changed_marker() -> Tool {
    ToolBuilder::new("test_list_changed_marker", |_| {
        Box::pin(async { ToolOutcome::text("a marker of a tool list change") })
    })
    .description("Added and removed by test_trigger_tool_change.")
    .build()
}

/// 2026-07-28 fixture (`server-stateless`, its list-change checks): tells
/// the open `subscriptions/listen` streams that asked that the prompt list
/// changed (when the server offers prompts).
#[tool(read_only, open_world = false)]
pub(crate) async fn test_trigger_prompt_change(ctx: Context) -> String {
    ctx.notifier().prompt_list_changed();
    "told the prompt list changed".to_owned()
}

/// Not a suite fixture: tells the subscribers of the resource `uri` (by
/// default `test://watched-resource`, the suite's `resources-subscribe`
/// resource) that it changed, or, with `list`, that the resource list
/// did. The tests of subscriptions use it, in both eras and across
/// replicas.
#[tool(read_only, open_world = false)]
pub(crate) async fn test_trigger_resource_update(
    ctx: Context,
    /// The resource that changed
    uri: Option<String>,
    /// Tell a resource list change instead
    list: Option<bool>,
) -> String {
    if list == Some(true) {
        ctx.notifier().resource_list_changed();
        return "told the resource list changed".to_owned();
    }
    let uri = uri.as_deref().unwrap_or(WATCHED_RESOURCE);
    ctx.notifier().resource_updated(uri);
    format!("told {uri} changed")
}

/// The resource the suite's `resources-subscribe` and
/// `resources-unsubscribe` scenarios subscribe to. Subscriptions are kept
/// by URI, so the scenarios need no resource declared for it.
pub(crate) const WATCHED_RESOURCE: &str = "test://watched-resource";
