use mcpfn_runtime::tool;

#[tool]
async fn query(#[arg(header = "Data Region")] region: String) -> String {
    region
}

fn main() {
    let _ = mcpfn_runtime::tools![query];
}
