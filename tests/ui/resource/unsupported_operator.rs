use mcpfn_runtime::resource;

#[resource("page://x{#section}")]
async fn page(section: String) -> String {
    section
}

fn main() {
    let _ = mcpfn_runtime::resources![page];
}
