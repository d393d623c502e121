use mcpfn_runtime::tool;

#[tool]
async fn scale(#[arg(header = "Factor")] factor: Option<f32>) -> String {
    format!("{factor:?}")
}

fn main() {
    let _ = mcpfn_runtime::tools![scale];
}
