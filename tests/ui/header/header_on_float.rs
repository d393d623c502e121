use mcpfn_runtime::tool;

#[tool]
async fn scale(#[arg(header = "Factor")] factor: f64) -> String {
    factor.to_string()
}

fn main() {
    let _ = mcpfn_runtime::tools![scale];
}
