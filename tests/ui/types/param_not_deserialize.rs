use mcp_runtime::tool;

struct City {
    name: String,
}

#[tool]
async fn lookup(city: City) -> String {
    city.name
}

fn main() {
    let _ = mcp_runtime::tools![lookup];
}
