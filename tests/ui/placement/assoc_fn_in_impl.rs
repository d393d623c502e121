// An associated fn without `self` is still not a free fn: one error on it,
// and registering it adds none.

use mcpfn_runtime::{tool, tools};

struct Repo;

impl Repo {
    /// Search the repository.
    #[tool]
    async fn search(query: String) -> String {
        query
    }
}

fn main() {
    let _ = Repo::search(String::new());
    let _ = tools![Repo::search];
}
