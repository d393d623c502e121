//! MCP Apps on the host's side (the extension `io.modelcontextprotocol/ui`,
//! stable 2026-01-26): a tool whose definition names a `ui://` resource is
//! rendered by that resource's HTML, which a web host shows in a sandboxed
//! frame of another origin and talks to over `postMessage` JSON-RPC.
//!
//! What this module decides, for any front end:
//! - who sees a tool ([`offered_to_model`], [`callable_by_app`]): a tool
//!   whose `_meta.ui.visibility` leaves out `"model"` is never offered to
//!   the model (the catalog gives it no name), and an app's `tools/call`
//!   reaches only tools of its own server that include `"app"`
//!   ([`Catalog::call_from_app`](crate::catalog::Catalog::call_from_app));
//! - the sandbox ([`csp`]): the `Content-Security-Policy` from the origins
//!   the resource declares over the extension's restrictive default, never
//!   loosened;
//! - the document ([`document`]): the HTML a `resources/read` returned,
//!   bounded;
//! - what an app says for the model ([`context`]), carried with the next
//!   user line, and the bound on how much an app may send ([`flood`]).
//!
//! The host declares the extension when its front end renders apps
//! ([`ClientOptions::apps`](mcpfn_client::ClientOptions::apps)).

pub mod context;
pub mod csp;
pub mod document;
pub mod flood;

use mcpfn_protocol::model::{Tool, ToolUi, Visibility, check_ui_uri};

/// The deprecated flat key a tool's `_meta` may name its app with
/// (`_meta["ui/resourceUri"]`), still written by the official SDK beside
/// `_meta.ui.resourceUri`.
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// The revision of the app protocol the host speaks (`ui/initialize`).
pub const APP_PROTOCOL_VERSION: &str = "2026-01-26";

/// The tool's `_meta.ui`, with a resource URI from the deprecated flat
/// key when `ui` names none; `None` when it has neither.
pub fn tool_ui(tool: &Tool) -> Option<ToolUi> {
    let meta = tool.meta.as_ref()?;
    let Ok(mut ui) = ToolUi::of_tool_meta(meta) else {
        // A `_meta.ui` that does not parse: no app, and visible to the
        // model only (the narrowest reading that keeps the tool usable).
        return Some(ToolUi::default().visibility([Visibility::Model]));
    };
    if ui.as_ref().is_none_or(|ui| ui.resource_uri.is_none())
        && let Some(uri) = meta.get(LEGACY_RESOURCE_URI_KEY).and_then(|v| v.as_str())
    {
        ui.get_or_insert_with(ToolUi::default).resource_uri = Some(uri.to_owned());
    }
    ui
}

/// The `ui://` resource that renders the tool's results, if it names one
/// that is a `ui://` URI.
pub fn app_resource(tool: &Tool) -> Option<String> {
    tool_ui(tool)?
        .resource_uri
        .filter(|uri| check_ui_uri(uri).is_ok())
}

/// Whether the tool is offered to the model: its visibility includes
/// `"model"` (the default when it says none).
pub fn offered_to_model(tool: &Tool) -> bool {
    tool_ui(tool).is_none_or(|ui| ui.visible_to(Visibility::Model))
}

/// Whether an app of the tool's server may call it: its visibility
/// includes `"app"` (the default when it says none).
pub fn callable_by_app(tool: &Tool) -> bool {
    tool_ui(tool).is_none_or(|ui| ui.visible_to(Visibility::App))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(meta: serde_json::Value) -> Tool {
        serde_json::from_value(
            json!({"name": "t", "inputSchema": {"type": "object"}, "_meta": meta}),
        )
        .unwrap()
    }

    #[test]
    fn visibility_decides_who_sees_a_tool() {
        let cases = [
            (json!({}), true, true),
            (json!({"ui": {"resourceUri": "ui://a/b"}}), true, true),
            (json!({"ui": {"visibility": ["model", "app"]}}), true, true),
            (json!({"ui": {"visibility": ["app"]}}), false, true),
            (json!({"ui": {"visibility": ["model"]}}), true, false),
            (json!({"ui": {"visibility": []}}), false, false),
            // Unparsable: the model only.
            (json!({"ui": {"visibility": ["everyone"]}}), true, false),
        ];
        for (meta, model, app) in cases {
            let t = tool(meta.clone());
            assert_eq!(offered_to_model(&t), model, "{meta}");
            assert_eq!(callable_by_app(&t), app, "{meta}");
        }
        let plain: Tool =
            serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}}))
                .unwrap();
        assert!(offered_to_model(&plain) && callable_by_app(&plain));
    }

    #[test]
    fn the_resource_comes_from_ui_or_the_deprecated_key() {
        assert_eq!(
            app_resource(&tool(
                json!({"ui": {"resourceUri": "ui://get-time/mcp-app.html"},
                                       "ui/resourceUri": "ui://get-time/mcp-app.html"})
            )),
            Some("ui://get-time/mcp-app.html".to_owned())
        );
        assert_eq!(
            app_resource(&tool(json!({"ui/resourceUri": "ui://old/app.html"}))),
            Some("ui://old/app.html".to_owned())
        );
        assert_eq!(
            app_resource(&tool(
                json!({"ui": {"visibility": ["app"]}, "ui/resourceUri": "ui://x"})
            )),
            Some("ui://x".to_owned())
        );
        assert_eq!(
            app_resource(&tool(json!({"ui": {"resourceUri": "https://x/app"}}))),
            None
        );
        assert_eq!(app_resource(&tool(json!({}))), None);
    }
}
