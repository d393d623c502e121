use mcp_runtime::tool;

#[tool(ui(resource = "https://example.com/app.html"))]
async fn chart() -> String {
    String::new()
}

fn main() {
    let _ = mcp_runtime::tools![chart];
}
