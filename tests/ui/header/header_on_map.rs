use mcpfn_runtime::tool;
use std::collections::HashMap;

#[tool]
async fn label(#[arg(header = "Labels")] labels: HashMap<String, String>) -> String {
    labels.len().to_string()
}

fn main() {
    let _ = mcpfn_runtime::tools![label];
}
