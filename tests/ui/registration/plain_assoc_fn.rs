// An associated fn without #[tool], listed through its type: one error, on
// its name.

use mcpfn_runtime::tools;

struct Repo;

impl Repo {
    async fn search(query: String) -> String {
        query
    }
}

fn main() {
    let _ = Repo::search(String::new());
    let _ = tools![Repo::search];
}
