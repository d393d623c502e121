//! The rules of `ui(...)`: an app UI declaration says something, names a
//! `ui://` resource, and lists known visibilities once each.

use crate::app_ui::{UiAttr, VISIBILITIES};
use crate::ctxt::Ctxt;

/// Runs every rule of `ui(...)`.
pub(super) fn check(cx: &Ctxt, ui: &UiAttr) {
    cx.ok(ui_says_something(ui));
    cx.ok(ui_resource_uri(ui));
    ui_visibility(cx, ui);
}

/// `ui()` with neither field would give the tool an empty `_meta.ui`.
fn ui_says_something(ui: &UiAttr) -> syn::Result<()> {
    if ui.resource.is_some() || ui.visibility.is_some() {
        return Ok(());
    }
    Err(syn::Error::new(
        ui.key,
        "`ui()` says nothing; give `resource = \"ui://…\"` (the app that renders the results), `visibility = \"app\"` (only the app may call the tool), or both",
    ))
}

/// An app resource's URI starts with `ui://` and names something, with no
/// whitespace or control characters (MCP Apps 2026-01-26, "UI Resource
/// Format"); the runtime checks a built tool's the same way.
fn ui_resource_uri(ui: &UiAttr) -> syn::Result<()> {
    let Some(lit) = &ui.resource else {
        return Ok(());
    };
    let uri = lit.value();
    let problem = match uri.strip_prefix("ui://") {
        None => "is not a `ui://` URI; an app resource's URI starts with `ui://`".to_owned(),
        Some("") => "names no resource; add a path after `ui://`".to_owned(),
        Some(_) => match uri.chars().find(|c| c.is_whitespace() || c.is_control()) {
            Some(bad) => format!("contains {bad:?}; a URI has no whitespace or control characters"),
            None => return Ok(()),
        },
    };
    Err(syn::Error::new(
        lit.span(),
        format!(
            "`{}` {problem}, e.g. `ui(resource = \"ui://server/app.html\")`",
            uri.escape_debug()
        ),
    ))
}

/// Each visibility is `"model"` or `"app"`, named once, and a list names at
/// least one (an empty one would hide the tool from both).
fn ui_visibility(cx: &Ctxt, ui: &UiAttr) {
    let Some(visibility) = &ui.visibility else {
        return;
    };
    if visibility.lits.is_empty() {
        cx.error_at(
            visibility.span,
            "an empty visibility hides the tool from both the model and the app; write `visibility = \"app\"`, `\"model\"` or `[\"model\", \"app\"]`, or leave it out (both)",
        );
    }
    let mut seen: Vec<String> = Vec::new();
    for lit in &visibility.lits {
        let value = lit.value();
        if !VISIBILITIES.contains(&value.as_str()) {
            cx.error_at(
                lit.span(),
                format!(
                    "`{}` is not a visibility; write \"model\" (the model may call the tool) or \"app\" (its app may), or a list of both",
                    value.escape_debug()
                ),
            );
        } else if seen.contains(&value) {
            cx.error_at(
                lit.span(),
                format!("the visibility \"{value}\" is listed twice; keep one"),
            );
        }
        seen.push(value);
    }
}
