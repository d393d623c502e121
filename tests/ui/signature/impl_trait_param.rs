use mcpfn_runtime::tool;

#[tool]
async fn lookup(city: impl ToString) -> String {
    city.to_string()
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
}
