// A method cannot be a tool: there is no value to call it on. One error on
// `self`, and registering it adds none.

use mcpfn_runtime::{tool, tools};

struct Repo {
    root: String,
}

impl Repo {
    /// Search the repository.
    #[tool]
    async fn search(&self, query: String) -> String {
        format!("{}/{query}", self.root)
    }
}

fn main() {
    let repo = Repo { root: String::new() };
    let _ = repo.search(String::new());
    let _ = tools![Repo::search];
}
