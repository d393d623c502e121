//! Each conversion against the exact JSON the Chat Completions API
//! defines.

use super::*;
use crate::provider::tests::{PNG, mcp_tool, result, weather};
use crate::tool_offer::ToolOffer;
use serde_json::json;

#[test]
fn a_tool_becomes_an_openai_function() {
    assert_eq!(
        tool(&ToolOffer::new("get_weather", &weather()), Strict::Off),
        json!({
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "根据城市名查询实时天气",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "城市名"}},
                    "required": ["city"]
                }
            }
        })
    );
}

#[test]
fn strict_is_used_where_the_schema_allows_it() {
    let optional = mcp_tool(json!({
        "name": "search",
        "description": "Search.",
        "inputSchema": {
            "type": "object",
            "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["q"]
        }
    }));
    assert_eq!(
        tool(
            &ToolOffer::new("search", &optional),
            Strict::WhereExpressible
        ),
        json!({
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search.",
                "parameters": {
                    "type": "object",
                    "properties": {"q": {"type": "string"}, "limit": {"type": ["integer", "null"]}},
                    "required": ["limit", "q"],
                    "additionalProperties": false
                },
                "strict": true
            }
        })
    );
    // A map cannot be strict: the tool is offered without `strict`.
    let map = mcp_tool(json!({
        "name": "tag",
        "inputSchema": {
            "type": "object",
            "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}
        }
    }));
    let entry = tool(&ToolOffer::new("tag", &map), Strict::WhereExpressible);
    assert!(entry["function"].get("strict").is_none(), "{entry}");
    let problems = strict_tool(&ToolOffer::new("tag", &map)).unwrap_err();
    assert!(problems[0].contains("/properties/tags"), "{problems:?}");
}

#[test]
fn nulls_a_strict_model_sends_for_absent_arguments_are_removed() {
    let schema = json!({
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "limit": {"type": "integer"},
            "cursor": {"type": ["string", "null"]},
            "filter": {"$ref": "#/$defs/Filter"},
            "items": {"type": "array", "items": {"$ref": "#/$defs/Filter"}}
        },
        "required": ["q"],
        "$defs": {"Filter": {"type": "object", "properties": {"lang": {"type": "string"}, "any": {}}}}
    });
    let schema = schema.as_object().unwrap().clone();
    let mut arguments = json!({
        "q": "rust",
        "limit": null,
        "cursor": null,
        "filter": {"lang": null, "any": null},
        "items": [{"lang": null}, {"lang": "en"}]
    });
    strip_absent_nulls(&mut arguments, &schema);
    assert_eq!(
        arguments,
        json!({
            "q": "rust",
            // The tool's own schema takes `null` here: a value, kept.
            "cursor": null,
            "filter": {"any": null},
            "items": [{}, {"lang": "en"}]
        })
    );
    // A required argument's `null` is the model's mistake to hear about
    // from the server, not ours to hide.
    let mut required = json!({"q": null});
    strip_absent_nulls(&mut required, &schema);
    assert_eq!(required, json!({"q": null}));
}

#[test]
fn a_text_result_becomes_an_tool_message() {
    let r =
        result(json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}));
    let output = tool_message("call_1", &r, 1);
    assert_eq!(
        output.message,
        json!({"role": "tool", "tool_call_id": "call_1", "content": "a\nb"})
    );
    assert!(output.images.is_empty());
    let error =
        result(json!({"content": [{"type": "text", "text": "no such city"}], "isError": true}));
    assert_eq!(
        tool_message("call_2", &error, 1).message["content"],
        "Error: no such city"
    );
}

#[test]
fn openai_images_travel_in_one_user_message_after_the_tool_messages() {
    let first = result(
        json!({"content": [{"type": "text", "text": "chart:"}, {"type": "image", "data": PNG, "mimeType": "image/png"}]}),
    );
    let second =
        result(json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/jpeg"}]}));
    let plain = result(json!({"content": [{"type": "text", "text": "ok"}]}));
    let messages = tool_messages([("c1", &first), ("c2", &plain), ("c3", &second)]);
    assert_eq!(messages.len(), 4);
    assert_eq!(
        messages[0],
        json!({"role": "tool", "tool_call_id": "c1", "content": "chart:\n[Image 1 (image/png) is in the user message after the tool results.]"})
    );
    assert_eq!(
        messages[1],
        json!({"role": "tool", "tool_call_id": "c2", "content": "ok"})
    );
    assert!(
        messages[2]["content"]
            .as_str()
            .unwrap()
            .contains("Image 2 (image/jpeg)")
    );
    assert_eq!(
        messages[3],
        json!({"role": "user", "content": [
            {"type": "text", "text": "The images returned by the tool calls above, in order:"},
            {"type": "text", "text": "Image 1, from tool call c1:"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}},
            {"type": "text", "text": "Image 2, from tool call c3:"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}}
        ]})
    );
    // No images, no user message.
    assert_eq!(tool_messages([("c2", &plain)]).len(), 1);
}

#[test]
fn other_blocks_become_text_in_tool_messages() {
    let r = result(json!({"content": [
        {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hello"}},
        {"type": "resource", "resource": {"uri": "file:///a.pdf", "mimeType": "application/pdf", "blob": "JVBERi0="}},
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "https://x/y", "name": "y"},
        {"type": "image", "data": "PHN2Zy8+", "mimeType": "image/svg+xml"}
    ]}));
    let output = tool_message("c", &r, 1);
    assert!(output.images.is_empty());
    let text = output.message["content"].as_str().unwrap();
    for expected in [
        "Resource <file:///a.txt>:\nhello",
        "<file:///a.pdf> (application/pdf, 5 bytes of binary data)",
        "audio (audio/wav, 4 bytes)",
        "Resource link: y <https://x/y>",
        "image (image/svg+xml, 6 bytes)",
    ] {
        assert!(text.contains(expected), "{expected:?} in {text}");
    }
    let structured = result(json!({"structuredContent": [1, 2]}));
    assert_eq!(
        tool_message("c", &structured, 1).message["content"],
        "[1,2]"
    );
}

#[test]
fn openai_arguments_are_parsed_from_their_json_string() {
    assert_eq!(
        parse_arguments(r#"{"city":"北京"}"#).unwrap(),
        json!({"city": "北京"})
    );
    assert_eq!(parse_arguments("").unwrap(), json!({}));
    let not_object = parse_arguments("[1]").unwrap_err();
    assert!(
        not_object.to_string().contains("must be a JSON object"),
        "{not_object}"
    );
    let garbage = parse_arguments("{\"city\":").unwrap_err();
    assert!(garbage.to_string().contains("not valid JSON"), "{garbage}");
}
