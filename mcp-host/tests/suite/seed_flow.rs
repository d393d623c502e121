//! The weather flow of a host driving Claude with MCP tools, on the real
//! JSON of each step: `tools/list` → the request's `tools`, `tools/call`
//! results (success, `isError`, an image, a JSON-RPC error) → the
//! `tool_result` blocks of the next request, and the same for OpenAI.

use mcpfn_host::call_result::CallFailure;
use mcpfn_host::names::NameMap;
use mcpfn_host::provider::anthropic;
use mcpfn_host::provider::openai::{self, Strict};
use mcpfn_host::tool_offer::ToolOffer;
use mcpfn_protocol::model::{CallToolResult, RpcError, Tool};
use serde_json::{Value, json};

/// The `tools/list` response a weather server sends.
const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_weather","description":"根据城市名查询实时天气","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],"nextCursor":"eyJvZmZzZXQiOjEwMH0"}}"#;

fn tools() -> Vec<Tool> {
    let response: Value = serde_json::from_str(TOOLS_LIST).unwrap();
    serde_json::from_value(response["result"]["tools"].clone()).unwrap()
}

fn call_result(response: &str) -> CallToolResult {
    let response: Value = serde_json::from_str(response).unwrap();
    serde_json::from_value(response["result"].clone()).unwrap()
}

#[test]
fn the_listed_tool_becomes_the_requests_tools_for_both_apis() {
    let tools = tools();
    let names = NameMap::build(tools.iter().map(|t| ("weather", t.name.as_str()))).unwrap();
    let claude: Vec<Value> = tools
        .iter()
        .map(|t| {
            anthropic::tool(&ToolOffer::new(
                names.model_name("weather", &t.name).unwrap(),
                t,
            ))
        })
        .collect();
    assert_eq!(
        Value::Array(claude),
        json!([{
            "name": "get_weather",
            "description": "根据城市名查询实时天气",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        }])
    );
    assert_eq!(
        openai::tool(
            &ToolOffer::new("get_weather", &tools[0]),
            Strict::WhereExpressible
        ),
        json!({"type": "function", "function": {
            "name": "get_weather",
            "description": "根据城市名查询实时天气",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false},
            "strict": true
        }})
    );
    // The model's `tool_use` name leads back to the server and MCP name.
    let target = names.resolve("get_weather").unwrap();
    assert_eq!(
        (target.server.as_str(), target.tool.as_str()),
        ("weather", "get_weather")
    );
}

#[test]
fn each_call_result_becomes_the_tool_result_the_next_request_carries() {
    let ok = call_result(
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"北京今天晴，25°C"}],"isError":false}}"#,
    );
    assert_eq!(
        anthropic::tool_result("toolu_01AbC", &ok),
        json!({"type": "tool_result", "tool_use_id": "toolu_01AbC", "content": "北京今天晴，25°C"})
    );

    let failed = call_result(
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"找不到城市：北进，是否想输入北京？"}],"isError":true}}"#,
    );
    assert_eq!(
        anthropic::tool_result("toolu_01AbC", &failed),
        json!({"type": "tool_result", "tool_use_id": "toolu_01AbC", "content": "找不到城市：北进，是否想输入北京？", "is_error": true})
    );

    let chart = call_result(
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"这是查询到的图表"},{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==","mimeType":"image/png"}]}}"#,
    );
    assert_eq!(
        anthropic::tool_result("toolu_01AbC", &chart)["content"],
        json!([
            {"type": "text", "text": "这是查询到的图表"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}}
        ])
    );

    // A JSON-RPC error is no result: the model still gets one, saying why.
    let response: Value = serde_json::from_str(
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params"}}"#,
    )
    .unwrap();
    let error: RpcError = serde_json::from_value(response["error"].clone()).unwrap();
    let block = anthropic::tool_result("toolu_01AbC", &CallFailure::Rpc(error).to_result());
    assert_eq!(block["is_error"], true);
    assert_eq!(
        block["content"],
        "The server rejected the call's arguments (JSON-RPC error -32602): Invalid params"
    );

    // OpenAI: one `role: tool` message per call, then the image in a user message.
    let messages = openai::tool_messages([("call_1", &ok), ("call_2", &chart)]);
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[0],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "北京今天晴，25°C"})
    );
    assert_eq!(messages[1]["role"], "tool");
    assert_eq!(messages[2]["role"], "user");
    assert_eq!(
        messages[2]["content"][1],
        json!({"type": "text", "text": "Image 1, from tool call call_2:"})
    );
    assert_eq!(messages[2]["content"][2]["type"], "image_url");
}
