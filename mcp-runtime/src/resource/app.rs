//! MCP Apps resources (the extension `io.modelcontextprotocol/ui`): an HTML
//! document at a `ui://` URI, served as `text/html;profile=mcp-app`, with
//! its sandbox needs (`_meta.ui`) on its list entry and on what a read
//! returns. A tool names it with `ToolBuilder::ui` or `#[tool(ui(...))]`.

use super::{Described, ResourceBuilder};
use crate::protocol::model::{APP_MIME_TYPE, JsonObject, ResourceUi, UI_META_KEY, check_ui_uri};
use std::sync::Arc;

impl ResourceBuilder {
    /// An MCP App: the HTML document `html`, served at the `ui://` URI
    /// `uri` as `text/html;profile=mcp-app`. Its sandbox needs (the origins
    /// it may reach, the permissions it asks for) are [`ResourceBuilder::ui`];
    /// without them a host applies its most restrictive policy (no network,
    /// inline scripts and styles only).
    ///
    /// ```
    /// use mcpfn_runtime::{ResourceBuilder, ResourceUi};
    /// let app = ResourceBuilder::app("ui://weather/app.html", "weather_app", "<!DOCTYPE html><html>…</html>")
    ///     .description("The forecast as a chart.")
    ///     .ui(ResourceUi::default().prefers_border(true))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(app.mime_type(), Some("text/html;profile=mcp-app"));
    /// ```
    pub fn app(
        uri: impl Into<String>,
        name: impl Into<String>,
        html: impl Into<String>,
    ) -> ResourceBuilder {
        let html: Arc<str> = Arc::from(html.into());
        ResourceBuilder::new(uri, name, move |read| {
            let html = Arc::clone(&html);
            Box::pin(async move { Ok(vec![read.text(&*html)]) })
        })
        .mime_type(APP_MIME_TYPE)
    }

    /// An MCP App's `_meta.ui`: what its sandbox must allow (`csp`,
    /// `permissions`), a dedicated origin (`domain`) and whether it wants a
    /// border. Written on its `resources/list` entry and on each content a
    /// `resources/read` returns (from 2025-06-18). Only for apps: the
    /// resource's URI must be `ui://…` and its MIME type
    /// `text/html;profile=mcp-app` (as [`ResourceBuilder::app`] sets), or
    /// `build` refuses it.
    pub fn ui(mut self, ui: ResourceUi) -> ResourceBuilder {
        let value = serde_json::to_value(&ui)
            .unwrap_or_else(|_| unreachable!("a ResourceUi is plain data with string keys"));
        self.meta
            .meta
            .get_or_insert_with(JsonObject::new)
            .insert(UI_META_KEY.to_owned(), value);
        self
    }
}

/// Why a resource cannot be served as an app, when it is one (its MIME
/// type is the app's, or it has a `_meta.ui`): an app's URI is a `ui://`
/// URI and its MIME type `text/html;profile=mcp-app`, as the extension
/// requires, so a host finds and sandboxes it.
pub(super) fn refusal(uri: &str, described: &Described) -> Option<String> {
    let app_mime = described.mime_type.as_deref() == Some(APP_MIME_TYPE);
    let has_ui = described
        .meta
        .as_ref()
        .is_some_and(|meta| meta.contains_key(UI_META_KEY));
    if !app_mime && !has_ui {
        return None;
    }
    if let Err(reason) = check_ui_uri(uri) {
        return Some(format!("an MCP App's URI must be a `ui://` URI: {reason}"));
    }
    if !app_mime {
        return Some(format!(
            "an MCP App (it has `_meta.ui`) is served as `{APP_MIME_TYPE}`; use `ResourceBuilder::app`, or `.mime_type(\"{APP_MIME_TYPE}\")`"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ProtocolVersion;

    #[test]
    fn an_app_is_listed_with_its_mime_type_and_ui_from_2025_06_18() {
        let app = ResourceBuilder::app("ui://w/app.html", "w", "<p>")
            .ui(ResourceUi::default().connect_domains(["https://api.example.com"]))
            .build()
            .unwrap();
        assert_eq!(
            app.definition_json(ProtocolVersion::V2025_06_18).get(),
            r#"{"uri":"ui://w/app.html","name":"w","mimeType":"text/html;profile=mcp-app","_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com"]}}}}"#
        );
        assert_eq!(
            app.definition_json(ProtocolVersion::V2025_03_26).get(),
            r#"{"uri":"ui://w/app.html","name":"w","mimeType":"text/html;profile=mcp-app"}"#
        );
        // Without `ui`, no `_meta`: the host's restrictive default applies.
        let plain = ResourceBuilder::app("ui://w/app.html", "w", "<p>")
            .build()
            .unwrap();
        assert_eq!(plain.content_meta(), None);
    }

    #[test]
    fn an_app_needs_a_ui_uri_and_the_app_mime_type() {
        let refused = |builder: ResourceBuilder| builder.build().unwrap_err().to_string();
        assert_eq!(
            refused(ResourceBuilder::app("https://w/app.html", "w", "<p>")),
            "invalid resource \"https://w/app.html\": an MCP App's URI must be a `ui://` URI: `https://w/app.html` is not a `ui://` URI; an app resource's URI starts with `ui://`, e.g. `ui://server/app.html`"
        );
        let read = |_| -> crate::util::BoxFuture<_> { Box::pin(async { Ok(Vec::new()) }) };
        assert_eq!(
            refused(
                ResourceBuilder::new("ui://w/app.html", "w", read)
                    .mime_type("text/html")
                    .ui(ResourceUi::default())
            ),
            "invalid resource \"ui://w/app.html\": an MCP App (it has `_meta.ui`) is served as `text/html;profile=mcp-app`; use `ResourceBuilder::app`, or `.mime_type(\"text/html;profile=mcp-app\")`"
        );
        // A `ui://` URI alone does not make an app.
        assert!(
            ResourceBuilder::new("ui://w/notes.txt", "w", read)
                .build()
                .is_ok()
        );
    }
}
