//! The resource fixtures: a static text, a static binary and a template.

use super::RED_PIXEL_PNG;
use mcpfn_runtime::resource;
use serde_json::json;

/// A static text resource (`resources-read-text`).
#[resource(
    "test://static-text",
    name = "Static Text Resource",
    mime_type = "text/plain"
)]
pub(crate) async fn static_text() -> String {
    "This is the content of the static text resource.".to_owned()
}

/// A static binary resource, a 1x1 PNG (`resources-read-binary`).
#[resource(
    "test://static-binary",
    name = "Static Binary Resource",
    mime_type = "image/png"
)]
pub(crate) async fn static_binary() -> mcpfn_runtime::ResourceContents {
    mcpfn_runtime::ResourceContents::Blob {
        uri: "test://static-binary".to_owned(),
        mime_type: Some("image/png".to_owned()),
        blob: RED_PIXEL_PNG.to_owned(),
        meta: None,
    }
}

/// A resource template with parameter substitution (`resources-templates-read`).
#[resource(
    "test://template/{id}/data",
    name = "Resource Template",
    mime_type = "application/json"
)]
pub(crate) async fn template_data(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

// ---- Prompts (`prompts-*`, `completion-complete`,
// `input-required-result-non-tool-request`) ----
