// A `State<T>` whose `T` cannot be shared between the calls that run at once.

use mcpfn_runtime::{State, tool, tools};
use std::cell::RefCell;

/// Count a visit.
#[tool]
async fn visit(hits: State<RefCell<u32>>) -> String {
    *hits.borrow_mut() += 1;
    hits.borrow().to_string()
}

fn main() {
    let _ = tools![visit];
}
