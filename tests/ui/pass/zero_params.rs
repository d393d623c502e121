//! A tool without parameters takes an empty object.

use mcpfn_runtime::tool;

#[tool]
async fn now() -> String {
    "noon".to_owned()
}

fn main() {
    let tools = mcpfn_runtime::tools![now];
    assert_eq!(tools[0].name(), "now");
    let schema = tools[0].input_schema();
    assert_eq!(schema["type"], "object");
    assert!(schema.get("required").is_none());
    assert!(tools[0].output_schema().is_none());
}
