use mcpfn_runtime::tool;

#[tool(task = "always")]
async fn build_report() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::tools![build_report];
}
