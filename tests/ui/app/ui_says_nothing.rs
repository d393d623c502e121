use mcpfn_runtime::tool;

#[tool(ui())]
async fn chart() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::tools![chart];
}
