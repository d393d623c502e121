// A plain fn listed by its path, named like a #[tool] fn beside the list:
// that tool is not taken for it; one error, on its name.

use mcpfn_runtime::{tool, tools};

mod users {
    pub fn lookup(id: u32) -> String {
        id.to_string()
    }
}

/// Look a user up.
#[tool]
fn lookup(id: u32) -> String {
    id.to_string()
}

fn main() {
    let _ = tools![lookup, users::lookup];
}
