//! `.`, `-` and `_` are allowed in names.

use mcpfn_runtime::tool;

#[tool(name = "weather.lookup-v2_beta")]
async fn lookup(city: String) -> String {
    city
}

#[tool(name = "_.-")]
async fn punctuation() {}

fn main() {
    let tools = mcpfn_runtime::tools![lookup, punctuation];
    assert_eq!(tools[0].name(), "weather.lookup-v2_beta");
    assert_eq!(tools[1].name(), "_.-");
}
