// A fn without #[tool] in the list: one error, on its name.

use mcpfn_runtime::{tool, tools};

/// Look a user up.
#[tool]
async fn lookup(id: u32) -> String {
    id.to_string()
}

async fn plain(id: u32) -> String {
    id.to_string()
}

fn main() {
    let _ = tools![lookup, plain];
}
