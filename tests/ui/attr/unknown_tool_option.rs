use mcpfn_runtime::tool;

#[tool(readonly)]
async fn lookup(city: String) -> String {
    city
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
}
