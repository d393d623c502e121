use mcpfn_runtime::tool;

#[tool]
async fn tag(#[arg(header = "Tags")] tags: Vec<String>) -> String {
    tags.join(",")
}

fn main() {
    let _ = mcpfn_runtime::tools![tag];
}
