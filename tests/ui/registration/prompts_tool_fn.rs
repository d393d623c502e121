// A #[tool] fn in prompts![]: not a prompt, one error, on its name.

use mcpfn_runtime::{prompts, tool};

/// Look a user up.
#[tool]
async fn lookup(id: u32) -> String {
    id.to_string()
}

fn main() {
    let _ = prompts![lookup];
}
