// A #[tool] fn listed with generic arguments: one error, on them.

use mcpfn_runtime::{tool, tools};

/// Look a user up.
#[tool]
async fn lookup(id: u32) -> String {
    id.to_string()
}

fn main() {
    let _ = tools![lookup::<u32>];
}
