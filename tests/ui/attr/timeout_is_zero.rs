use mcpfn_runtime::tool;

#[tool(timeout = "0s")]
async fn wait() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::tools![wait];
}
