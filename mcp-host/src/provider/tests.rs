//! What both dialects share, checked through both: the tool offer (names,
//! descriptions, the flattened root), the failures said to the model, and
//! the image rules. Also the fixtures of the dialects' own tests.

use super::{anthropic, openai};
use crate::call_result::CallFailure;
use crate::tool_offer::ToolOffer;
use mcpfn_protocol::model::{CallToolResult, RpcError, Tool};
use openai::Strict;
use serde_json::{Value, json};
use std::time::Duration;

/// A tool from its `tools/list` JSON, as a client receives it.
pub(crate) fn mcp_tool(value: Value) -> Tool {
    serde_json::from_value(value).unwrap()
}

/// A result from its `tools/call` JSON.
pub(crate) fn result(value: Value) -> CallToolResult {
    serde_json::from_value(value).unwrap()
}

pub(crate) fn weather() -> Tool {
    mcp_tool(json!({
        "name": "get_weather",
        "description": "根据城市名查询实时天气",
        "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "城市名", "x-mcp-header": "City"}},
            "required": ["city"]
        },
        "annotations": {"readOnlyHint": true}
    }))
}

/// A 1x1 PNG.
pub(crate) const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[test]
fn the_model_name_is_used_and_a_missing_description_falls_back_to_the_title() {
    let t = mcp_tool(json!({"name": "a.b", "title": "A B", "inputSchema": {"type": "object"}}));
    let entry = anthropic::tool(&ToolOffer::new("a_b", &t));
    assert_eq!(entry["name"], "a_b");
    assert_eq!(entry["description"], "A B");
    let bare = mcp_tool(json!({"name": "x", "inputSchema": {}}));
    assert_eq!(
        anthropic::tool(&ToolOffer::new("x", &bare))["description"],
        ""
    );
    // A schema without `type` still gets the object root both APIs require.
    assert_eq!(
        anthropic::tool(&ToolOffer::new("x", &bare))["input_schema"],
        json!({"type": "object"})
    );
}

#[test]
fn failures_become_error_results_that_say_why() {
    let cases = [
        (
            CallFailure::Rpc(RpcError {
                code: -32602,
                message: "Invalid params".into(),
                data: Some(json!({"field": "city"})),
            }),
            "rejected the call's arguments (JSON-RPC error -32602): Invalid params ({\"field\":\"city\"})",
        ),
        (
            CallFailure::Rpc(RpcError {
                code: -32603,
                message: "boom".into(),
                data: None,
            }),
            "JSON-RPC error -32603: boom",
        ),
        (
            CallFailure::UnknownTool {
                name: "get_wether".into(),
            },
            "no tool named `get_wether`",
        ),
        (
            CallFailure::Timeout {
                after: Duration::from_secs(60),
            },
            "within 60 s; the call was cancelled",
        ),
        (
            CallFailure::ServerGone {
                server: "weather".into(),
                reason: "exited with status 1".into(),
            },
            "`weather` that provides this tool is not available (exited with status 1)",
        ),
        (
            CallFailure::TaskEnded {
                reason: "task `t1` was cancelled by the server".into(),
            },
            "as a task that ended without a result: task `t1` was cancelled by the server.",
        ),
        (CallFailure::Declined, "The user declined"),
        (
            CallFailure::NotRun {
                reason: "the turn limit was reached".into(),
            },
            "not run: the turn limit was reached",
        ),
    ];
    for (failure, expected) in cases {
        let r = failure.to_result();
        assert!(r.is_error);
        let block = anthropic::tool_result("t", &r);
        assert_eq!(block["is_error"], true);
        let text = block["content"].as_str().unwrap();
        assert!(text.contains(expected), "{expected:?} in {text:?}");
        let message = openai::tool_message("c", &r, 1).message;
        assert!(message["content"].as_str().unwrap().starts_with("Error: "));
    }
}

#[test]
fn a_json_rpc_error_is_the_cause_of_its_failure() {
    let error = RpcError {
        code: -32602,
        message: "Invalid params".into(),
        data: None,
    };
    let failure = CallFailure::Rpc(error.clone());
    let cause = std::error::Error::source(&failure).unwrap();
    assert_eq!(cause.to_string(), error.to_string());
    assert!(std::error::Error::source(&CallFailure::Declined).is_none());
}

/// What the model sees of the client's errors of a call run as a task
/// (a failed task is its JSON-RPC error; a cancelled or forgotten one ends
/// naming it): mcp-client's suite checks the client gives these.
#[test]
fn a_tasks_errors_become_what_the_model_sees() {
    use mcpfn_client::{ClientError, McpError};
    let failed = McpError::Client(ClientError::Rpc(RpcError {
        code: -32603,
        message: "API rate limit exceeded".into(),
        data: Some(json!({"retryAfter": 30})),
    }));
    let failure = CallFailure::from_error(&failed, "tasks");
    assert!(matches!(failure, CallFailure::Rpc(_)));
    let shown = failure.to_string();
    assert!(
        shown.contains("JSON-RPC error -32603: API rate limit exceeded"),
        "{shown}"
    );
    let ended = McpError::TaskEnded {
        server: "tasks".into(),
        task_id: "task-cancelled-1".into(),
        reason: "was cancelled by the server: an operator stopped it".into(),
    };
    assert_eq!(
        CallFailure::from_error(&ended, "tasks").to_string(),
        "The server ran the call as a task that ended without a result: task `task-cancelled-1` was cancelled by the server: an operator stopped it."
    );
}

#[test]
fn long_error_data_is_cut() {
    let failure = CallFailure::Rpc(RpcError {
        code: 1,
        message: "m".into(),
        data: Some(json!("é".repeat(2000))),
    });
    let text = failure.to_string();
    assert!(text.len() < 1_200 && text.ends_with("…)"), "{}", text.len());
}

#[test]
fn an_image_is_sent_with_the_type_its_bytes_show() {
    // PNG bytes labelled JPEG: the API would refuse the label, so the bytes win.
    let mislabelled =
        result(json!({"content": [{"type": "image", "data": PNG, "mimeType": "image/jpeg"}]}));
    assert_eq!(
        anthropic::tool_result_content(&mislabelled).unwrap()[0]["source"]["media_type"],
        "image/png"
    );
    for (data, expected) in [
        ("/9j/4AAQSkZJRg==", "image/jpeg"),
        ("R0lGODlhAQABAAAAACw=", "image/gif"),
        ("UklGRiQAAABXRUJQVlA4IA==", "image/webp"),
    ] {
        let r = result(
            json!({"content": [{"type": "image", "data": data, "mimeType": "application/octet-stream"}]}),
        );
        assert_eq!(
            anthropic::tool_result_content(&r).unwrap()[0]["source"]["media_type"],
            expected,
            "{data}"
        );
        let output = openai::tool_message("c", &r, 1);
        assert_eq!(
            output.images[0]["image_url"]["url"],
            format!("data:{expected};base64,{data}")
        );
    }
}

#[test]
fn image_data_that_is_not_base64_becomes_a_note_and_near_misses_are_repaired() {
    // One bad image would make the API refuse the whole request.
    let garbage = result(
        json!({"content": [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]}),
    );
    let note = anthropic::tool_result_content(&garbage).unwrap();
    assert!(
        note.as_str().unwrap().contains("not valid base64"),
        "{note}"
    );
    assert!(openai::tool_message("c", &garbage, 1).images.is_empty());
    let empty =
        result(json!({"content": [{"type": "image", "data": "", "mimeType": "image/png"}]}));
    assert!(anthropic::tool_result_content(&empty).unwrap().is_string());
    // Line breaks, the URL-safe alphabet and missing padding are fixed.
    let wrapped = format!("{}\n{}", &PNG[..40], &PNG[40..]);
    let r =
        result(json!({"content": [{"type": "image", "data": wrapped, "mimeType": "image/png"}]}));
    assert_eq!(
        anthropic::tool_result_content(&r).unwrap()[0]["source"]["data"],
        PNG
    );
    let r =
        result(json!({"content": [{"type": "image", "data": "ab-_", "mimeType": "image/png"}]}));
    assert_eq!(
        anthropic::tool_result_content(&r).unwrap()[0]["source"]["data"],
        "ab+/"
    );
    let r = result(json!({"content": [{"type": "image", "data": "abc", "mimeType": "image/png"}]}));
    assert_eq!(
        anthropic::tool_result_content(&r).unwrap()[0]["source"]["data"],
        "abc="
    );
}

#[test]
fn a_root_choice_is_flattened_because_the_apis_refuse_it() {
    // Exactly one of `id` and `full_path` (zod's union of two objects).
    let union = mcp_tool(json!({
        "name": "get_resource",
        "description": "Get a resource.",
        "inputSchema": {
            "type": "object",
            "properties": {"ref": {"type": "string"}},
            "oneOf": [
                {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"], "additionalProperties": false},
                {"type": "object", "properties": {"full_path": {"type": "string"}}, "required": ["full_path"]}
            ]
        }
    }));
    let expected_schema = json!({
        "type": "object",
        "properties": {"ref": {"type": "string"}, "id": {"type": "string"}, "full_path": {"type": "string"}}
    });
    let expected_description = "Get a resource.\n\nThe arguments must match exactly one of these sets of required arguments: `id`; `full_path`.";
    let claude = anthropic::tool(&ToolOffer::new("get_resource", &union));
    assert_eq!(claude["input_schema"], expected_schema);
    assert_eq!(claude["description"], expected_description);
    let openai = openai::tool(&ToolOffer::new("get_resource", &union), Strict::Off);
    assert_eq!(openai["function"]["parameters"], expected_schema);
    assert_eq!(openai["function"]["description"], expected_description);
    // Strict: the flattened schema, every argument required and nullable
    // (`strip_absent_nulls` removes the `null`s of the set not chosen).
    let strict = openai::tool(
        &ToolOffer::new("get_resource", &union),
        Strict::WhereExpressible,
    );
    assert_eq!(strict["function"]["strict"], true);
    assert_eq!(strict["function"]["description"], expected_description);
    let parameters = &strict["function"]["parameters"];
    assert!(parameters.get("anyOf").is_none() && parameters.get("oneOf").is_none());
    assert_eq!(parameters["required"], json!(["full_path", "id", "ref"]));

    // `allOf`: every branch's required arguments stay required; `not` and
    // `enum` at the root go.
    let all = mcp_tool(json!({
        "name": "x",
        "inputSchema": {
            "allOf": [
                {"properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "integer"}}, "required": ["b"]}
            ],
            "not": {"required": ["c"]}
        }
    }));
    let claude = anthropic::tool(&ToolOffer::new("x", &all));
    assert_eq!(
        claude["input_schema"],
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"]})
    );
    assert_eq!(claude["description"], "");
}
