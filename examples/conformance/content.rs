//! Content fixtures: text, image, audio, embedded resources and mixed results,
//! logs and progress along a call, errors, custom headers and a 2020-12 JSON
//! Schema.

use super::{EMPTY_WAV, RED_PIXEL_PNG, STEP};
use mcpfn_runtime::{Content, Context, Level, Tool, ToolBuilder, ToolError, ToolOutcome, tool};
use serde_json::json;

/// Returns a simple text response.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Returns a 1x1 red PNG image.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn test_image_content() -> Vec<Content> {
    vec![Content::image_base64(RED_PIXEL_PNG, "image/png")]
}

/// Returns a short WAV audio clip.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn test_audio_content() -> Vec<Content> {
    vec![Content::audio_base64(EMPTY_WAV, "audio/wav")]
}

/// Returns an embedded text resource.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn test_embedded_resource() -> Vec<Content> {
    vec![
        Content::embedded_text(
            "test://embedded-resource",
            "This is an embedded resource content.",
        )
        .mime_type("text/plain"),
    ]
}

/// Returns text, an image and an embedded resource.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::image_base64(RED_PIXEL_PNG, "image/png"),
        Content::embedded_text(
            "test://mixed-content-resource",
            json!({"test": "data", "value": 123}).to_string(),
        )
        .mime_type("application/json"),
    ]
}

/// Sends three info log messages while it runs.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn test_tool_with_logging(ctx: Context) -> String {
    ctx.log(Level::Info, "Tool execution started");
    tokio::time::sleep(STEP).await;
    ctx.log(Level::Info, "Tool processing data");
    tokio::time::sleep(STEP).await;
    ctx.log(Level::Info, "Tool execution completed");
    "Tool with logging executed successfully".to_owned()
}

/// Reports progress 0, 50 and 100 of 100 while it runs.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn test_tool_with_progress(ctx: Context) -> Result<String, ToolError> {
    ctx.progress(0.0, Some(100.0), None)?;
    tokio::time::sleep(STEP).await;
    ctx.progress(50.0, Some(100.0), None)?;
    tokio::time::sleep(STEP).await;
    ctx.progress(100.0, Some(100.0), None)?;
    Ok("Tool with progress executed successfully".to_owned())
}

/// Always fails with a tool error.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// 2026-07-28 fixture (`server-stateless`): logs while it runs. A request
/// that names no `logLevel` in its envelope gets no `notifications/message`.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn test_logging_tool(ctx: Context) -> String {
    ctx.log(Level::Info, "test_logging_tool ran");
    "Logged one message (when the request set a log level)".to_owned()
}

/// Echoes a value the client also sends as the `Mcp-Param-Greeting` HTTP
/// header (2026-07-28 `x-mcp-header`; the suite checks the server compares
/// the two).
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn test_custom_headers(
    /// A greeting, mirrored in the `Mcp-Param-Greeting` header
    #[arg(header = "Greeting")]
    greeting: String,
) -> String {
    format!("greeting: {greeting}")
}

/// `json_schema_2020_12_tool`: a hand-written inputSchema with 2020-12
/// keywords (`$schema`, `$defs`, `$ref`, `additionalProperties`; SEP-1613)
/// and the wider vocabulary of SEP-2106 (`$anchor` inside `$defs`,
/// `allOf`/`anyOf`, `if`/`then`/`else`), which the listing must carry
/// unchanged in every revision.
pub(crate) fn json_schema_2020_12_tool() -> Tool {
    ToolBuilder::new("json_schema_2020_12_tool", |_| {
        Box::pin(async { ToolOutcome::text("JSON Schema 2020-12 tool called") })
    })
    .description("Tool with JSON Schema 2020-12 features")
    .input_schema(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    }))
    .read_only_hint(true)
    .build()
}
