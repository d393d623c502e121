use mcp_runtime::tool;

#[tool]
async fn query(#[arg(header = "Region:")] region: String) -> String {
    region
}

fn main() {
    let _ = mcp_runtime::tools![query];
}
