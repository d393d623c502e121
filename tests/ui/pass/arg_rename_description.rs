//! `#[arg(rename, description)]` set the property's wire name and description.

use mcpfn_runtime::tool;

#[tool]
async fn lookup(
    #[arg(rename = "cityName", description = "The city to look up")] city: String,
    #[arg(rename = "type")] kind: Option<String>,
) -> String {
    format!("{city} {kind:?}")
}

fn main() {
    let tools = mcpfn_runtime::tools![lookup];
    let schema = tools[0].input_schema();
    let props = schema["properties"].as_object().unwrap();
    assert_eq!(props.keys().collect::<Vec<_>>(), ["cityName", "type"]);
    assert_eq!(props["cityName"]["description"], "The city to look up");
    assert_eq!(schema["required"], serde_json::json!(["cityName"]));
}
