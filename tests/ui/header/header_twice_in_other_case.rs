use mcpfn_runtime::tool;

#[tool]
async fn query(
    #[arg(header = "Region")] region: String,
    #[arg(header = "REGION")] fallback_region: String,
) -> String {
    format!("{region} {fallback_region}")
}

fn main() {
    let _ = mcpfn_runtime::tools![query];
}
