//! Any `Display` error type works, such as `std::io::Error`.

use mcpfn_runtime::tool;

#[tool]
fn read_config(path: String) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

#[tool]
fn config_size(path: String) -> std::io::Result<u64> {
    Ok(std::fs::metadata(path)?.len())
}

fn main() {
    let tools = mcpfn_runtime::tools![read_config, config_size];
    assert_eq!(tools[0].name(), "read_config");
    assert!(tools[0].output_schema().is_none());
    assert_eq!(tools[1].output_schema().unwrap()["type"], "integer");
    assert!(read_config("/nonexistent/mcp-ui-test".to_owned()).is_err());
}
