//! A tool may share its name with a module or a type in the same scope: the
//! macro's hidden items do not take the fn's name.

use mcpfn_runtime::{tool, tools};

#[allow(dead_code)]
mod search {
    pub(crate) const ROOT: &str = "/";
}

#[allow(dead_code, non_camel_case_types)]
struct lookup {
    id: u32,
}

/// Search.
#[tool]
async fn search(query: String) -> String {
    format!("{}{query}", search::ROOT)
}

/// Look up.
#[tool]
fn lookup(id: u32) -> u32 {
    lookup { id }.id
}

fn main() {
    let tools = tools![search, lookup,];
    assert_eq!(tools[0].name(), "search");
    assert_eq!(tools[1].name(), "lookup");
    assert_eq!(lookup(7), 7);
}
