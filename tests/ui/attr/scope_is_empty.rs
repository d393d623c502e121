use mcp_runtime::tool;

#[tool(scopes("files:read", ""))]
async fn save() -> String {
    String::new()
}

fn main() {
    let _ = mcp_runtime::tools![save];
}
