use mcp_runtime::tool;

#[tool]
async fn lookup(city: String) -> String
where
    String: Clone,
{
    city
}

fn main() {
    let _ = mcp_runtime::tools![lookup];
}
