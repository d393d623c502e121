use mcp_runtime::resource;

#[resource("page://x{#section}")]
async fn page(section: String) -> String {
    section
}

fn main() {
    let _ = mcp_runtime::resources![page];
}
