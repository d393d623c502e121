// A fn without #[tool], listed by its path: one error, on its name.

use mcpfn_runtime::{tool, tools};

mod users {
    use super::tool;

    /// Look a user up.
    #[tool]
    pub async fn lookup(id: u32) -> String {
        id.to_string()
    }

    pub fn plain(id: u32) -> String {
        id.to_string()
    }
}

fn main() {
    let _ = tools![users::lookup, crate::users::plain];
}
