//! Run with: APP_HTML=app.html cargo run -p mcpfn-host --features local --example app_fixture
//!
//! An MCP server with one MCP App, for trying a host's sandbox: the app's
//! HTML is read from the file `APP_HTML`, and its `_meta.ui.csp` declares
//! the origins in `APP_CONNECT` (space-separated) for connections. `show`
//! and `slow_show` are rendered by the app; `app_only` is visible to the app only,
//! `model_only` to the model only.

use mcpfn_runtime::{Context, ResourceBuilder, ResourceUi, Server, tool, tools};

/// The app's URI.
const APP: &str = "ui://fixture/app.html";

/// Shows `text` in the app; the result says whether the host declared
/// that it renders apps.
#[tool(read_only, ui(resource = "ui://fixture/app.html"))]
async fn show(
    ctx: Context,
    /// What to show
    text: String,
) -> String {
    format!(
        "shown: {text} (host renders apps: {})",
        ctx.client_renders_apps()
    )
}

/// Shows `text` in the app after `ms` milliseconds.
#[tool(read_only, ui(resource = "ui://fixture/app.html"))]
async fn slow_show(
    /// What to show
    text: String,
    /// How long to take
    ms: u64,
) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    format!("shown: {text}")
}

/// Answers the app; the model is never offered it.
#[tool(read_only, ui(resource = "ui://fixture/app.html", visibility = "app"))]
async fn app_only(
    /// What to echo
    text: String,
) -> String {
    format!("app_only: {text}")
}

/// For the model only; the app may not call it.
#[tool(read_only, ui(visibility = "model"))]
async fn model_only() -> String {
    "model_only ran".to_owned()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::var("APP_HTML").map_err(|_| "set APP_HTML to the app's HTML file")?;
    let html = std::fs::read_to_string(&path).map_err(|e| format!("reading {path}: {e}"))?;
    let connect = std::env::var("APP_CONNECT").unwrap_or_default();
    let app = ResourceBuilder::app(APP, "fixture_app", html)
        .ui(ResourceUi::default().connect_domains(connect.split_whitespace()))
        .build()?;
    Server::new("app_fixture", "1.0.0")
        .tools(tools![show, slow_show, app_only, model_only])
        .resources([app])
        .serve_stdio()
        .await?;
    Ok(())
}
