// A #[prompt] fn listed with generic arguments: one error, on them.

use mcpfn_runtime::{prompt, prompts};

/// Say hello.
#[prompt]
async fn hello() -> String {
    "Say hello.".to_owned()
}

fn main() {
    let _ = prompts![hello::<String>];
}
