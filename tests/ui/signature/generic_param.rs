use mcpfn_runtime::tool;

#[tool]
async fn lookup<T: ToString>(city: T) -> String {
    city.to_string()
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
}
