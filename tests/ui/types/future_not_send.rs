use mcpfn_runtime::{tool, tools};
use std::rc::Rc;

/// Holds an `Rc` across an `.await`, so its future is not `Send`.
#[tool]
async fn count(n: u32) -> u32 {
    let shared = Rc::new(n);
    std::future::ready(()).await;
    *shared
}

fn main() {
    let _ = tools![count];
}
