use mcp_runtime::tool;

#[tool]
async fn add((a, b): (i32, i32)) -> i32 {
    a + b
}

fn main() {
    let _ = mcp_runtime::tools![add];
}
