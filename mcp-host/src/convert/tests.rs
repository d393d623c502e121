//! Each conversion against the exact JSON the APIs define.

use super::*;
use serde_json::json;

/// A tool from its `tools/list` JSON, as a client receives it.
fn tool(value: Value) -> Tool {
    serde_json::from_value(value).unwrap()
}

/// A result from its `tools/call` JSON.
fn result(value: Value) -> CallToolResult {
    serde_json::from_value(value).unwrap()
}

fn weather() -> Tool {
    tool(json!({
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
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[test]
fn a_tool_becomes_a_claude_tool() {
    assert_eq!(
        claude_tool("get_weather", &weather()),
        json!({
            "name": "get_weather",
            "description": "根据城市名查询实时天气",
            "input_schema": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "城市名"}},
                "required": ["city"]
            }
        })
    );
}

#[test]
fn the_model_name_is_used_and_a_missing_description_falls_back_to_the_title() {
    let t = tool(json!({"name": "a.b", "title": "A B", "inputSchema": {"type": "object"}}));
    let entry = claude_tool("a_b", &t);
    assert_eq!(entry["name"], "a_b");
    assert_eq!(entry["description"], "A B");
    let bare = tool(json!({"name": "x", "inputSchema": {}}));
    assert_eq!(claude_tool("x", &bare)["description"], "");
    // A schema without `type` still gets the object root both APIs require.
    assert_eq!(
        claude_tool("x", &bare)["input_schema"],
        json!({"type": "object"})
    );
}

#[test]
fn a_tool_becomes_an_openai_function() {
    assert_eq!(
        openai_tool("get_weather", &weather(), Strict::Off),
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
    let optional = tool(json!({
        "name": "search",
        "description": "Search.",
        "inputSchema": {
            "type": "object",
            "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["q"]
        }
    }));
    assert_eq!(
        openai_tool("search", &optional, Strict::WhereExpressible),
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
    let map = tool(json!({
        "name": "tag",
        "inputSchema": {
            "type": "object",
            "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}
        }
    }));
    let entry = openai_tool("tag", &map, Strict::WhereExpressible);
    assert!(entry["function"].get("strict").is_none(), "{entry}");
    let problems = openai_strict_tool("tag", &map).unwrap_err();
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
fn a_single_text_result_is_a_plain_string() {
    let r = result(
        json!({"content": [{"type": "text", "text": "北京今天晴，25°C"}], "isError": false}),
    );
    assert_eq!(
        claude_tool_result("toolu_01AbC", &r),
        json!({"type": "tool_result", "tool_use_id": "toolu_01AbC", "content": "北京今天晴，25°C"})
    );
}

#[test]
fn an_error_result_carries_is_error() {
    let r =
        result(json!({"content": [{"type": "text", "text": "找不到城市：北进"}], "isError": true}));
    assert_eq!(
        claude_tool_result("toolu_01AbC", &r),
        json!({"type": "tool_result", "tool_use_id": "toolu_01AbC", "content": "找不到城市：北进", "is_error": true})
    );
    let silent = result(json!({"content": [], "isError": true}));
    let block = claude_tool_result("t", &silent);
    assert_eq!(block["is_error"], true);
    assert!(block["content"].as_str().unwrap().contains("no details"));
}

#[test]
fn text_and_a_png_become_blocks() {
    let r = result(json!({"content": [
        {"type": "text", "text": "这是查询到的图表"},
        {"type": "image", "data": PNG, "mimeType": "image/png"}
    ]}));
    assert_eq!(
        claude_tool_result("t", &r)["content"],
        json!([
            {"type": "text", "text": "这是查询到的图表"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
        ])
    );
}

#[test]
fn every_image_type_claude_accepts_passes_and_others_become_a_note() {
    for (mime, expected) in [
        ("image/jpeg", "image/jpeg"),
        ("image/jpg", "image/jpeg"),
        ("IMAGE/PNG", "image/png"),
        ("image/gif", "image/gif"),
        ("image/webp; q=1", "image/webp"),
    ] {
        // Bytes that show no type: the declared one is used.
        let r = result(json!({"content": [{"type": "image", "data": "AAAA", "mimeType": mime}]}));
        let content = claude_tool_result_content(&r).unwrap();
        assert_eq!(content[0]["source"]["media_type"], expected, "{mime}");
    }
    let svg = result(
        json!({"content": [{"type": "image", "data": "PHN2Zy8+", "mimeType": "image/svg+xml"}]}),
    );
    let note = claude_tool_result_content(&svg).unwrap();
    let note = note.as_str().unwrap();
    assert!(
        note.contains("image/svg+xml") && note.contains("6 bytes"),
        "{note}"
    );
}

#[test]
fn audio_and_resource_links_become_text() {
    let r = result(json!({"content": [
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///r.csv", "name": "r.csv", "mimeType": "text/csv", "size": 120, "description": "The report."}
    ]}));
    let content = claude_tool_result_content(&r).unwrap();
    assert_eq!(content.as_array().unwrap().len(), 2);
    let audio = content[0]["text"].as_str().unwrap();
    assert!(
        audio.contains("audio/wav") && audio.contains("4 bytes"),
        "{audio}"
    );
    assert_eq!(
        content[1],
        json!({"type": "text", "text": "Resource link: r.csv <file:///r.csv> (text/csv, 120 bytes)\nThe report."})
    );
}

#[test]
fn embedded_resources_become_documents_images_or_notes() {
    let r = result(json!({"content": [
        {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}},
        {"type": "resource", "resource": {"uri": "file:///a.pdf", "mimeType": "application/pdf", "blob": "JVBERi0="}},
        {"type": "resource", "resource": {"uri": "file:///a.png", "mimeType": "image/png", "blob": PNG}},
        {"type": "resource", "resource": {"uri": "file:///a.zip", "mimeType": "application/zip", "blob": "UEsDBA=="}}
    ]}));
    let content = claude_tool_result_content(&r).unwrap();
    assert_eq!(
        content[0],
        json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "hello"}, "title": "file:///a.txt"})
    );
    assert_eq!(
        content[1],
        json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}, "title": "file:///a.pdf"})
    );
    assert_eq!(content[2]["type"], "image");
    let zip = content[3]["text"].as_str().unwrap();
    assert!(
        zip.contains("file:///a.zip") && zip.contains("application/zip"),
        "{zip}"
    );
}

#[test]
fn a_structured_only_result_is_its_json_as_text() {
    let r = result(json!({"content": [], "structuredContent": {"temp": 25, "city": "北京"}}));
    assert_eq!(
        claude_tool_result("t", &r)["content"],
        json!(r#"{"city":"北京","temp":25}"#)
    );
    // With content too, the content is what the model gets.
    let both = result(
        json!({"content": [{"type": "text", "text": "25°C"}], "structuredContent": {"temp": 25}}),
    );
    assert_eq!(claude_tool_result("t", &both)["content"], "25°C");
}

#[test]
fn an_empty_result_has_no_content_and_empty_texts_are_dropped() {
    let empty = result(json!({"content": []}));
    assert_eq!(
        claude_tool_result("t", &empty),
        json!({"type": "tool_result", "tool_use_id": "t"})
    );
    let r = result(
        json!({"content": [{"type": "text", "text": ""}, {"type": "image", "data": PNG, "mimeType": "image/png"}]}),
    );
    assert_eq!(
        claude_tool_result_content(&r)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_text_result_becomes_an_openai_tool_message() {
    let r =
        result(json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}));
    let output = openai_tool_message("call_1", &r, 1);
    assert_eq!(
        output.message,
        json!({"role": "tool", "tool_call_id": "call_1", "content": "a\nb"})
    );
    assert!(output.images.is_empty());
    let error =
        result(json!({"content": [{"type": "text", "text": "no such city"}], "isError": true}));
    assert_eq!(
        openai_tool_message("call_2", &error, 1).message["content"],
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
    let messages = openai_tool_messages([("c1", &first), ("c2", &plain), ("c3", &second)]);
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
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}}
        ]})
    );
    // No images, no user message.
    assert_eq!(openai_tool_messages([("c2", &plain)]).len(), 1);
}

#[test]
fn other_blocks_become_text_in_openai_tool_messages() {
    let r = result(json!({"content": [
        {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hello"}},
        {"type": "resource", "resource": {"uri": "file:///a.pdf", "mimeType": "application/pdf", "blob": "JVBERi0="}},
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "https://x/y", "name": "y"},
        {"type": "image", "data": "PHN2Zy8+", "mimeType": "image/svg+xml"}
    ]}));
    let output = openai_tool_message("c", &r, 1);
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
        openai_tool_message("c", &structured, 1).message["content"],
        "[1,2]"
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
        let block = claude_tool_result("t", &r);
        assert_eq!(block["is_error"], true);
        let text = block["content"].as_str().unwrap();
        assert!(text.contains(expected), "{expected:?} in {text:?}");
        let message = openai_tool_message("c", &r, 1).message;
        assert!(message["content"].as_str().unwrap().starts_with("Error: "));
    }
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
fn openai_arguments_are_parsed_from_their_json_string() {
    assert_eq!(
        parse_openai_arguments(r#"{"city":"北京"}"#).unwrap(),
        json!({"city": "北京"})
    );
    assert_eq!(parse_openai_arguments("").unwrap(), json!({}));
    let not_object = parse_openai_arguments("[1]").unwrap_err();
    assert!(
        not_object.to_string().contains("must be a JSON object"),
        "{not_object}"
    );
    let garbage = parse_openai_arguments("{\"city\":").unwrap_err();
    assert!(garbage.to_string().contains("not valid JSON"), "{garbage}");
}

#[test]
fn an_image_is_sent_with_the_type_its_bytes_show() {
    // PNG bytes labelled JPEG: the API would refuse the label, so the bytes win.
    let mislabelled =
        result(json!({"content": [{"type": "image", "data": PNG, "mimeType": "image/jpeg"}]}));
    assert_eq!(
        claude_tool_result_content(&mislabelled).unwrap()[0]["source"]["media_type"],
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
            claude_tool_result_content(&r).unwrap()[0]["source"]["media_type"],
            expected,
            "{data}"
        );
        let output = openai_tool_message("c", &r, 1);
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
    let note = claude_tool_result_content(&garbage).unwrap();
    assert!(
        note.as_str().unwrap().contains("not valid base64"),
        "{note}"
    );
    assert!(openai_tool_message("c", &garbage, 1).images.is_empty());
    let empty =
        result(json!({"content": [{"type": "image", "data": "", "mimeType": "image/png"}]}));
    assert!(claude_tool_result_content(&empty).unwrap().is_string());
    // Line breaks, the URL-safe alphabet and missing padding are fixed.
    let wrapped = format!("{}\n{}", &PNG[..40], &PNG[40..]);
    let r =
        result(json!({"content": [{"type": "image", "data": wrapped, "mimeType": "image/png"}]}));
    assert_eq!(
        claude_tool_result_content(&r).unwrap()[0]["source"]["data"],
        PNG
    );
    let r =
        result(json!({"content": [{"type": "image", "data": "ab-_", "mimeType": "image/png"}]}));
    assert_eq!(
        claude_tool_result_content(&r).unwrap()[0]["source"]["data"],
        "ab+/"
    );
    let r = result(json!({"content": [{"type": "image", "data": "abc", "mimeType": "image/png"}]}));
    assert_eq!(
        claude_tool_result_content(&r).unwrap()[0]["source"]["data"],
        "abc="
    );
}

#[test]
fn an_empty_text_resource_is_a_note_not_an_empty_document() {
    let r = result(
        json!({"content": [{"type": "resource", "resource": {"uri": "file:///e", "text": ""}}]}),
    );
    let content = claude_tool_result_content(&r).unwrap();
    assert!(
        content
            .as_str()
            .unwrap()
            .contains("<file:///e>, which is empty"),
        "{content}"
    );
}

#[test]
fn a_root_choice_is_flattened_because_the_apis_refuse_it() {
    // Exactly one of `id` and `full_path` (zod's union of two objects).
    let union = tool(json!({
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
    let claude = claude_tool("get_resource", &union);
    assert_eq!(claude["input_schema"], expected_schema);
    assert_eq!(claude["description"], expected_description);
    let openai = openai_tool("get_resource", &union, Strict::Off);
    assert_eq!(openai["function"]["parameters"], expected_schema);
    assert_eq!(openai["function"]["description"], expected_description);
    // Strict: the flattened schema, every argument required and nullable
    // (`strip_absent_nulls` removes the `null`s of the set not chosen).
    let strict = openai_tool("get_resource", &union, Strict::WhereExpressible);
    assert_eq!(strict["function"]["strict"], true);
    assert_eq!(strict["function"]["description"], expected_description);
    let parameters = &strict["function"]["parameters"];
    assert!(parameters.get("anyOf").is_none() && parameters.get("oneOf").is_none());
    assert_eq!(parameters["required"], json!(["full_path", "id", "ref"]));

    // `allOf`: every branch's required arguments stay required; `not` and
    // `enum` at the root go.
    let all = tool(json!({
        "name": "x",
        "inputSchema": {
            "allOf": [
                {"properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "integer"}}, "required": ["b"]}
            ],
            "not": {"required": ["c"]}
        }
    }));
    let claude = claude_tool("x", &all);
    assert_eq!(
        claude["input_schema"],
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"]})
    );
    assert_eq!(claude["description"], "");
}
