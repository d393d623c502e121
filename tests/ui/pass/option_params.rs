//! `Option` parameters are optional properties.

use mcpfn_runtime::tool;

#[tool]
async fn search(query: String, limit: Option<u32>, tags: Option<Vec<String>>) -> String {
    format!("{query} {limit:?} {tags:?}")
}

fn main() {
    let tools = mcpfn_runtime::tools![search];
    let schema = tools[0].input_schema();
    assert_eq!(schema["required"], serde_json::json!(["query"]));
    assert_eq!(schema["properties"]["limit"]["type"], "integer");
    assert_eq!(schema["properties"]["tags"]["type"], "array");
}
