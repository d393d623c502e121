use mcpfn_runtime::tool;

#[tool]
async fn lookup(city: &str) -> String {
    city.to_owned()
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
}
