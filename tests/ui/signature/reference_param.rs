use mcp_runtime::tool;

#[tool]
async fn lookup(city: &str) -> String {
    city.to_owned()
}

fn main() {
    let _ = mcp_runtime::tools![lookup];
}
