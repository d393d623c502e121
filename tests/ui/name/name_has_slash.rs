use mcpfn_runtime::tool;

#[tool(name = "weather/lookup")]
async fn lookup(city: String) -> String {
    city
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
}
