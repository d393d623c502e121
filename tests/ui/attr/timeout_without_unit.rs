use mcpfn_runtime::tool;

#[tool(timeout = "30")]
async fn wait() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::tools![wait];
}
