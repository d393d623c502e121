// A private #[tool] fn listed from outside its module: rustc's one error,
// that the fn is private, and none of ours (it is a #[tool] fn).

use mcpfn_runtime::tools;

mod users {
    /// Look a user up.
    #[mcpfn_runtime::tool]
    fn lookup(id: u32) -> String {
        id.to_string()
    }
}

fn main() {
    let _ = tools![users::lookup];
}
