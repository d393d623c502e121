// A #[prompt] fn in resources![]: not a resource, one error, on its name.

use mcpfn_runtime::{prompt, resources};

/// Say hello.
#[prompt]
async fn hello() -> String {
    "Say hello.".to_owned()
}

fn main() {
    let _ = resources![hello];
}
