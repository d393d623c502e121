use mcpfn_runtime::tool;

#[tool]
async fn add((a, b): (i32, i32)) -> i32 {
    a + b
}

fn main() {
    let _ = mcpfn_runtime::tools![add];
}
