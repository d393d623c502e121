//! The longest name the rule allows.

use mcpfn_runtime::tool;

#[tool(
    name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)]
async fn lookup(city: String) -> String {
    city
}

fn main() {
    let tools = mcpfn_runtime::tools![lookup];
    assert_eq!(tools[0].name().len(), 128);
    assert!(tools[0].name().chars().all(|c| c == 'a'));
}
