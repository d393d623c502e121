use mcp_runtime::tool;

#[tool]
async fn lookup(#[arg(describe = "The city")] city: String) -> String {
    city
}

fn main() {
    let _ = mcp_runtime::tools![lookup];
}
