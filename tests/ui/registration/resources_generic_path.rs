// A #[resource] fn listed with generic arguments: one error, on them.

use mcpfn_runtime::{resource, resources};

/// The readme.
#[resource("test://readme")]
async fn readme() -> String {
    String::new()
}

fn main() {
    let _ = resources![readme::<u8>];
}
