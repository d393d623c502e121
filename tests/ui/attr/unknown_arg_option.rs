use mcpfn_runtime::tool;

#[tool]
async fn lookup(#[arg(describe = "The city")] city: String) -> String {
    city
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
}
