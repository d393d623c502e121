use mcp_runtime::tool;

#[tool(resumable)]
async fn crawl() -> String {
    String::new()
}

fn main() {
    let _ = mcp_runtime::tools![crawl];
}
