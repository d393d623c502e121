use mcpfn_runtime::tool;

#[tool]
async fn add(a: i32, a: i32) -> i32 {
    a
}

fn main() {
    let _ = mcpfn_runtime::tools![add];
}
