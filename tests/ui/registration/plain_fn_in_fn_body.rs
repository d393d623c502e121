// A fn without #[tool] declared in the same fn body as the list, beside a
// tool declared there: one error, on its name.

use mcpfn_runtime::{tool, tools};

fn main() {
    /// Look a user up.
    #[tool]
    fn lookup(id: u32) -> String {
        id.to_string()
    }

    fn plain(id: u32) -> String {
        id.to_string()
    }

    let _ = tools![lookup, plain];
}
