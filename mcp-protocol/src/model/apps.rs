//! MCP Apps (the extension `io.modelcontextprotocol/ui`, stable
//! 2026-01-26): a tool names the `ui://` resource a host renders its
//! results with ([`ToolUi`], the tool's `_meta.ui`), and that resource is
//! an HTML document served as [`APP_MIME_TYPE`] with its sandbox needs
//! ([`ResourceUi`], the resource's and its contents' `_meta.ui`).
//!
//! One model both ways: the server writes these, a host reads them.

use super::jsonrpc::JsonObject;
use super::lifecycle::ServerCapabilities;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The extension's identifier: the key under `capabilities.extensions`.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML resource; the only one the 2026-01-26
/// revision of the extension defines.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme every app resource uses.
pub const UI_SCHEME: &str = "ui://";

/// The key of a tool's, a resource's or a content's `_meta` that carries
/// the extension's fields.
pub const UI_META_KEY: &str = "ui";

/// Who may see and call a tool (`_meta.ui.visibility`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The model: a host lists the tool to its agent.
    Model,
    /// The app: its HTML view may call the tool, through the host, on the
    /// same server connection only.
    App,
}

impl Visibility {
    /// The wire name (`model`, `app`).
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Model => "model",
            Visibility::App => "app",
        }
    }
}

/// A tool's `_meta.ui`: the app that renders its results and who may call
/// it.
///
/// ```
/// use mcpfn_protocol::model::{ToolUi, Visibility};
/// let ui = ToolUi::resource("ui://charts/app.html").visibility([Visibility::App]);
/// assert_eq!(
///     serde_json::to_string(&ui).unwrap(),
///     r#"{"resourceUri":"ui://charts/app.html","visibility":["app"]}"#
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUi {
    /// The `ui://` resource a host renders the tool's results with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may see and call the tool; absent means both the model and the
    /// app (the extension's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// Rendered by the app at `uri` (a `ui://` URI; registration checks it).
    pub fn resource(uri: impl Into<String>) -> ToolUi {
        ToolUi {
            resource_uri: Some(uri.into()),
            visibility: None,
        }
    }

    /// Visible to `who` only, as given (duplicates are dropped).
    pub fn visibility(mut self, who: impl IntoIterator<Item = Visibility>) -> ToolUi {
        let mut list = Vec::new();
        for one in who {
            if !list.contains(&one) {
                list.push(one);
            }
        }
        self.visibility = Some(list);
        self
    }

    /// Whether `who` may see and call the tool.
    pub fn visible_to(&self, who: Visibility) -> bool {
        self.visibility
            .as_ref()
            .is_none_or(|list| list.contains(&who))
    }

    /// The `_meta.ui` of a tool definition (its `_meta` as sent): `None`
    /// when it has none, an error when it has one that is not the
    /// extension's shape (a caller decides what a malformed one means,
    /// rather than reading it as absent).
    pub fn of_tool_meta(meta: &JsonObject) -> Result<Option<ToolUi>, serde_json::Error> {
        meta.get(UI_META_KEY)
            .map(|ui| serde_json::from_value(ui.clone()))
            .transpose()
    }
}

/// Why `uri` cannot name an app resource, if it cannot: it starts with
/// `ui://`, has something after it, and no whitespace or control
/// characters (a host compares it byte for byte with the resource's URI).
pub fn check_ui_uri(uri: &str) -> Result<(), String> {
    let Some(rest) = uri.strip_prefix(UI_SCHEME) else {
        return Err(format!(
            "`{uri}` is not a `ui://` URI; an app resource's URI starts with `ui://`, e.g. `ui://server/app.html`"
        ));
    };
    if rest.is_empty() {
        return Err(
            "`ui://` names no resource; add a path, e.g. `ui://server/app.html`".to_owned(),
        );
    }
    match uri.chars().find(|c| c.is_whitespace() || c.is_control()) {
        Some(bad) => Err(format!(
            "`{}` contains {bad:?}; a URI has no whitespace or control characters",
            uri.escape_debug()
        )),
        None => Ok(()),
    }
}

/// The origins an app may reach, by kind (`_meta.ui.csp`). Each list
/// empty or absent means none: the host's restrictive default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Csp {
    /// Origins for `fetch`, XHR and WebSocket (`connect-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    /// Origins for scripts, styles, images, fonts and media (`script-src`,
    /// `style-src`, `img-src`, `font-src`, `media-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    /// Origins for nested iframes (`frame-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    /// Allowed base URIs of the document (`base-uri`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
}

impl Csp {
    fn is_empty(&self) -> bool {
        *self == Csp::default()
    }
}

/// A browser permission an app asks for; `{}` on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requested {}

/// The browser permissions an app asks for (`_meta.ui.permissions`); a
/// host may grant them, so an app still checks for each feature.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Permissions {
    /// The camera.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<Requested>,
    /// The microphone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<Requested>,
    /// The device's location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Requested>,
    /// Writing to the clipboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<Requested>,
}

impl Permissions {
    fn is_empty(&self) -> bool {
        *self == Permissions::default()
    }
}

/// An app resource's `_meta.ui`: what its sandbox must allow and how it
/// prefers to be shown. Written on the resource in `resources/list` and on
/// its contents in `resources/read`.
///
/// ```
/// use mcpfn_protocol::model::ResourceUi;
/// let ui = ResourceUi::default()
///     .connect_domains(["https://api.example.com"])
///     .clipboard_write()
///     .prefers_border(true);
/// assert_eq!(
///     serde_json::to_string(&ui).unwrap(),
///     r#"{"csp":{"connectDomains":["https://api.example.com"]},"permissions":{"clipboardWrite":{}},"prefersBorder":true}"#
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUi {
    /// The origins the app may reach.
    #[serde(default, skip_serializing_if = "Csp::is_empty")]
    pub csp: Csp,
    /// The browser permissions it asks for.
    #[serde(default, skip_serializing_if = "Permissions::is_empty")]
    pub permissions: Permissions,
    /// A dedicated origin for the app's sandbox, in the host's own format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host should draw a border and background around it
    /// (absent: the host decides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

impl ResourceUi {
    /// Adds origins for `fetch`, XHR and WebSocket.
    pub fn connect_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.csp
            .connect_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Adds origins for scripts, styles, images, fonts and media.
    pub fn resource_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.csp
            .resource_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Adds origins for nested iframes.
    pub fn frame_domains<S: Into<String>>(mut self, origins: impl IntoIterator<Item = S>) -> Self {
        self.csp
            .frame_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Adds allowed base URIs.
    pub fn base_uri_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.csp
            .base_uri_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Asks for the camera.
    pub fn camera(mut self) -> Self {
        self.permissions.camera = Some(Requested {});
        self
    }

    /// Asks for the microphone.
    pub fn microphone(mut self) -> Self {
        self.permissions.microphone = Some(Requested {});
        self
    }

    /// Asks for the device's location.
    pub fn geolocation(mut self) -> Self {
        self.permissions.geolocation = Some(Requested {});
        self
    }

    /// Asks to write to the clipboard.
    pub fn clipboard_write(mut self) -> Self {
        self.permissions.clipboard_write = Some(Requested {});
        self
    }

    /// A dedicated sandbox origin, in the format the host documents.
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Whether the host should draw a border and background.
    pub fn prefers_border(mut self, border: bool) -> Self {
        self.prefers_border = Some(border);
        self
    }
}

/// Whether client capabilities (as sent: `initialize`'s, or a 2026-07-28
/// request's `_meta` ones) say the host renders apps: the extension with
/// [`APP_MIME_TYPE`] among its `mimeTypes`.
pub fn client_renders_apps(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(UI_EXTENSION))
        .and_then(|ui| ui.get("mimeTypes"))
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(APP_MIME_TYPE)))
}

/// The extension's settings, as server and client declare them:
/// `{"mimeTypes": ["text/html;profile=mcp-app"]}`.
fn ui_settings() -> Value {
    serde_json::json!({ "mimeTypes": [APP_MIME_TYPE] })
}

impl ServerCapabilities {
    /// With `extensions: {"io.modelcontextprotocol/ui": {"mimeTypes":
    /// ["text/html;profile=mcp-app"]}}` (MCP Apps), beside the extensions
    /// already set.
    pub fn with_apps_extension(self) -> ServerCapabilities {
        let mut extensions = self.extensions.unwrap_or_default();
        extensions.insert(UI_EXTENSION.to_owned(), ui_settings());
        ServerCapabilities {
            extensions: Some(extensions),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_ui_is_the_spec_shape_both_ways() {
        let ui = ToolUi::resource("ui://weather-server/dashboard-template").visibility([
            Visibility::Model,
            Visibility::App,
            Visibility::Model,
        ]);
        let wire = json!({"resourceUri": "ui://weather-server/dashboard-template",
                          "visibility": ["model", "app"]});
        assert_eq!(serde_json::to_value(&ui).unwrap(), wire);
        assert_eq!(serde_json::from_value::<ToolUi>(wire).unwrap(), ui);
        let app_only = ToolUi::default().visibility([Visibility::App]);
        assert_eq!(
            serde_json::to_value(&app_only).unwrap(),
            json!({"visibility": ["app"]})
        );
        assert!(app_only.visible_to(Visibility::App) && !app_only.visible_to(Visibility::Model));
        // Absent visibility is both.
        let both = ToolUi::resource("ui://a");
        assert!(both.visible_to(Visibility::Model) && both.visible_to(Visibility::App));
        // Read from a definition's `_meta`, beside other keys.
        let meta: JsonObject =
            serde_json::from_value(json!({"k": 1, "ui": {"visibility": ["app"], "future": 1}}))
                .unwrap();
        assert_eq!(ToolUi::of_tool_meta(&meta).unwrap(), Some(app_only));
        assert_eq!(ToolUi::of_tool_meta(&JsonObject::new()).unwrap(), None);
    }

    #[test]
    fn a_resource_ui_writes_only_what_was_said() {
        assert_eq!(serde_json::to_string(&ResourceUi::default()).unwrap(), "{}");
        let ui = ResourceUi::default()
            .connect_domains(["https://api.example.com"])
            .resource_domains(["https://cdn.example.com"])
            .frame_domains(["https://www.youtube.com"])
            .base_uri_domains(["https://base.example.com"])
            .camera()
            .microphone()
            .geolocation()
            .clipboard_write()
            .domain("abc.example-host.com")
            .prefers_border(false);
        let wire = json!({
            "csp": {"connectDomains": ["https://api.example.com"],
                    "resourceDomains": ["https://cdn.example.com"],
                    "frameDomains": ["https://www.youtube.com"],
                    "baseUriDomains": ["https://base.example.com"]},
            "permissions": {"camera": {}, "microphone": {}, "geolocation": {}, "clipboardWrite": {}},
            "domain": "abc.example-host.com",
            "prefersBorder": false,
        });
        assert_eq!(serde_json::to_value(&ui).unwrap(), wire);
        assert_eq!(serde_json::from_value::<ResourceUi>(wire).unwrap(), ui);
    }

    #[test]
    fn ui_uris_start_with_the_scheme_and_name_something() {
        assert_eq!(check_ui_uri("ui://charts/app.html"), Ok(()));
        for (uri, says) in [
            ("https://x/app.html", "is not a `ui://` URI"),
            ("UI://x", "is not a `ui://` URI"),
            ("ui://", "names no resource"),
            ("ui://a b", "contains ' '"),
            ("ui://a\n", "contains '\\n'"),
        ] {
            let err = check_ui_uri(uri).unwrap_err();
            assert!(err.contains(says), "{uri}: {err}");
        }
    }

    #[test]
    fn the_extension_is_declared_and_recognised() {
        let capabilities = ServerCapabilities::default()
            .with_tasks_extension()
            .with_apps_extension();
        assert_eq!(
            serde_json::to_value(&capabilities).unwrap(),
            json!({"extensions": {"io.modelcontextprotocol/tasks": {},
                   "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
        );
        let host =
            json!({"extensions": {UI_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}});
        assert!(client_renders_apps(&host));
        for other in [
            json!({}),
            json!({"extensions": {UI_EXTENSION: {}}}),
            json!({"extensions": {UI_EXTENSION: {"mimeTypes": ["text/html"]}}}),
        ] {
            assert!(!client_renders_apps(&other), "{other}");
        }
    }
}
