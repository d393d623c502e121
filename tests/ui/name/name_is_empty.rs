use mcp_runtime::tool;

#[tool(name = "")]
async fn lookup(city: String) -> String {
    city
}

fn main() {
    let _ = mcp_runtime::tools![lookup];
}
