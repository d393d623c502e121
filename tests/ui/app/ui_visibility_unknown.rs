use mcpfn_runtime::tool;

#[tool(ui(resource = "ui://charts/app.html", visibility = "user"))]
async fn chart() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::tools![chart];
}
