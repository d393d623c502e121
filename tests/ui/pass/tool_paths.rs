//! Every way to reach a #[tool] fn: declared before or after the list, in
//! the fn body before or after it, by a relative, `crate::`, `self::` or
//! `super::` path, through a glob re-export; and the fn stays callable.

use mcpfn_runtime::{tool, tools};

/// Declared before `main`.
#[tool]
async fn before(a: f64, b: f64) -> f64 {
    a + b
}

mod outer {
    pub mod inner {
        /// In a nested module.
        #[mcpfn_runtime::tool]
        pub fn deep(x: u32) -> u32 {
            x
        }
    }

    /// Reaches its sibling through `super::`.
    pub fn list() -> Vec<mcpfn_runtime::Tool> {
        mcpfn_runtime::tools![super::after, self::inner::deep]
    }
}

mod reexport {
    pub use crate::outer::inner::*;
}

/// A module named like a tool in it does not get in the way.
mod lookup {
    /// Named like its module.
    #[mcpfn_runtime::tool]
    pub fn lookup(id: u32) -> u32 {
        id
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = tools![before, after, outer::inner::deep, lookup::lookup];
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["before", "after", "deep", "lookup"]);

    let names: Vec<String> = outer::list().iter().map(|t| t.name().to_owned()).collect();
    assert_eq!(names, ["after", "deep"]);
    assert_eq!(tools![reexport::deep][0].name(), "deep");
    assert_eq!(tools![crate::outer::inner::deep][0].name(), "deep");

    /// Declared in the fn body, before the list.
    #[tool]
    fn local_before(x: u32) -> u32 {
        x + 1
    }
    let tools = tools![local_before, local_after];
    assert_eq!(tools[0].name(), "local_before");
    assert_eq!(tools[1].name(), "local_after");
    /// Declared in the fn body, after the list.
    #[tool]
    fn local_after(x: u32) -> u32 {
        x + 2
    }

    // Still plain fns, called directly.
    assert_eq!(before(1.0, 2.0).await, 3.0);
    assert_eq!(after(2.0).await, 4.0);
    assert_eq!(local_before(1), 2);
    assert_eq!(local_after(1), 3);
    assert_eq!(lookup::lookup(5), 5);
}

/// Declared after `main`.
#[tool]
async fn after(x: f64) -> f64 {
    x * 2.0
}
