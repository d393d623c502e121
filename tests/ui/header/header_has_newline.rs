use mcpfn_runtime::tool;

#[tool]
async fn query(#[arg(header = "Region\r\nX-Injected")] region: String) -> String {
    region
}

fn main() {
    let _ = mcpfn_runtime::tools![query];
}
