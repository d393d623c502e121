use mcpfn_runtime::tool;

#[tool(resumable)]
async fn crawl() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::tools![crawl];
}
