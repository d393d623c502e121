//! A plain (non-async) fn is a tool too, and stays callable as a fn.

use mcpfn_runtime::tool;

/// Add two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    assert_eq!(add(1, 2), 3);
    let tools = mcpfn_runtime::tools![add];
    assert_eq!(tools[0].name(), "add");
    let schema = tools[0].input_schema();
    assert_eq!(schema["properties"]["a"]["type"], "integer");
    assert_eq!(schema["required"], serde_json::json!(["a", "b"]));
    assert_eq!(tools[0].output_schema().unwrap()["type"], "integer");
}
