//! `ui(...)`: the tool's MCP Apps `_meta.ui`, in each form the option takes.

use mcpfn_runtime::{ToolUi, Visibility, tool};

/// Show a chart.
#[tool(ui(resource = "ui://charts/app.html"))]
async fn chart() -> String {
    String::new()
}

/// Refresh the chart's data; for the app only.
#[tool(read_only, ui(resource = "ui://charts/app.html", visibility = "app"))]
async fn refresh() -> String {
    String::new()
}

/// Both, said explicitly, with no app of its own.
#[tool(ui(visibility = ["model", "app"],))]
async fn both() -> String {
    String::new()
}

fn main() {
    let tools = mcpfn_runtime::tools![chart, refresh, both];
    assert_eq!(tools[0].ui(), Some(ToolUi::resource("ui://charts/app.html")));
    assert_eq!(
        tools[1].ui(),
        Some(ToolUi::resource("ui://charts/app.html").visibility([Visibility::App]))
    );
    assert_eq!(
        tools[2].ui(),
        Some(ToolUi::default().visibility([Visibility::Model, Visibility::App]))
    );
}
