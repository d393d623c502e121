use mcpfn_runtime::tool;

#[tool(ui(visibility = ["app", "app"]))]
async fn chart() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::tools![chart];
}
