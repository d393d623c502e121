use mcpfn_runtime::tool;

#[tool]
async fn lookup(city: String) -> String
where
    String: Clone,
{
    city
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
}
