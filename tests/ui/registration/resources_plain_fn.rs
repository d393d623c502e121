// A fn without #[resource] in the list: one error, on its name.

use mcpfn_runtime::{resource, resources};

/// The readme.
#[resource("test://readme")]
async fn readme() -> String {
    String::new()
}

async fn plain() -> String {
    String::new()
}

fn main() {
    let _ = resources![readme, plain];
}
