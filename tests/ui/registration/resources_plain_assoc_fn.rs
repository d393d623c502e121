// An associated fn without #[resource], listed through its type: one
// error, on its name.

use mcpfn_runtime::resources;

struct Files;

impl Files {
    async fn readme() -> String {
        String::new()
    }
}

fn main() {
    let _ = Files::readme();
    let _ = resources![Files::readme];
}
