use mcp_runtime::tool;

#[tool(ui())]
async fn chart() -> String {
    String::new()
}

fn main() {
    let _ = mcp_runtime::tools![chart];
}
