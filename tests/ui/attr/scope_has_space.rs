use mcpfn_runtime::tool;

#[tool(scopes("files:read files:write"))]
async fn save() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::tools![save];
}
