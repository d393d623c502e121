use mcpfn_runtime::tool;

#[tool(ui(resource = "https://example.com/app.html"))]
async fn chart() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::tools![chart];
}
