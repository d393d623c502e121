use mcp_runtime::tool;

#[tool(scopes())]
async fn save() -> String {
    String::new()
}

fn main() {
    let _ = mcp_runtime::tools![save];
}
