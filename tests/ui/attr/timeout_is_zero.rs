use mcp_runtime::tool;

#[tool(timeout = "0s")]
async fn wait() -> String {
    String::new()
}

fn main() {
    let _ = mcp_runtime::tools![wait];
}
