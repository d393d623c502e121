use mcpfn_runtime::tool;

#[tool(timeout = "500us")]
async fn wait() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::tools![wait];
}
