//! `Result<T, ToolError>`: the `Ok` type decides the output schema.

use mcpfn_runtime::{ToolError, tool};

#[tool]
async fn divide(a: f64, b: f64) -> Result<f64, ToolError> {
    if b == 0.0 {
        return Err(ToolError::new("b must not be zero"));
    }
    Ok(a / b)
}

#[tool]
async fn greet(name: String) -> Result<String, ToolError> {
    Ok(format!("Hello, {name}!"))
}

fn main() {
    let tools = mcpfn_runtime::tools![divide, greet];
    assert_eq!(tools[0].name(), "divide");
    assert_eq!(tools[0].output_schema().unwrap()["type"], "number");
    assert!(tools[1].output_schema().is_none());
}
