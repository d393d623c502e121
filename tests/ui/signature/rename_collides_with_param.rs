use mcpfn_runtime::tool;

#[tool]
async fn add(a: i32, #[arg(rename = "a")] b: i32) -> i32 {
    a + b
}

fn main() {
    let _ = mcpfn_runtime::tools![add];
}
