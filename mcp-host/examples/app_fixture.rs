//! Run with: APP_HTML=app.html cargo run -p mcpfn-host --features local --example app_fixture
//!
//! An MCP server with one MCP App, for trying a host's sandbox: the app's
//! HTML is read from the file `APP_HTML`, and its `_meta.ui.csp` declares
//! the origins in `APP_CONNECT` (space-separated) for connections. `show`
//! and `slow_show` are rendered by the app; `app_only` is visible to the app only,
//! `model_only` to the model only; `record` (for the app only, not
//! read-only) counts its runs. Its resources, for the app to read: a note
//! at `APP_NOTE_URI` (default `fixture://note`) saying `APP_NOTE`, and
//! `fixture://big`, larger than a host's client reads (17 MiB).

use mcpfn_runtime::{Context, ResourceBuilder, ResourceUi, Server, tool, tools};
use std::sync::atomic::{AtomicU64, Ordering};

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

/// How many times `record` ran in this process.
static RECORDED: AtomicU64 = AtomicU64::new(0);

/// Records `text`, and says how many times it ran (for the app only; not
/// read-only, so a host asks before running it).
#[tool(ui(resource = "ui://fixture/app.html", visibility = "app"))]
async fn record(
    /// What to record
    text: String,
) -> String {
    let runs = RECORDED.fetch_add(1, Ordering::SeqCst) + 1;
    format!("record ran {runs} time(s): {text}")
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
    let note_uri = std::env::var("APP_NOTE_URI").unwrap_or_else(|_| "fixture://note".into());
    let note_text = std::env::var("APP_NOTE").unwrap_or_else(|_| "a note of the fixture".into());
    let note = ResourceBuilder::new(note_uri, "note", move |read| {
        let text = note_text.clone();
        Box::pin(async move { Ok(vec![read.text(text)]) })
    })
    .mime_type("text/plain")
    .build()?;
    let big = ResourceBuilder::new("fixture://big", "big", |read| {
        Box::pin(async move { Ok(vec![read.text("x".repeat(17 * 1024 * 1024))]) })
    })
    .mime_type("text/plain")
    .build()?;
    Server::new("app_fixture", "1.0.0")
        // `fixture://big` leaves; a host's bound stops it.
        .max_message_size(32 * 1024 * 1024)
        .tools(tools![show, slow_show, app_only, record, model_only])
        .resources([app, note, big])
        .serve_stdio()
        .await?;
    Ok(())
}
