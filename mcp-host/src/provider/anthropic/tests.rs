//! Each conversion against the exact JSON the Messages API defines.

use super::*;
use crate::provider::tests::{PNG, result, weather};
use crate::tool_offer::ToolOffer;
use serde_json::json;

#[test]
fn a_tool_becomes_a_claude_tool() {
    assert_eq!(
        tool(&ToolOffer::new("get_weather", &weather())),
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
fn a_single_text_result_is_a_plain_string() {
    let r = result(
        json!({"content": [{"type": "text", "text": "北京今天晴，25°C"}], "isError": false}),
    );
    assert_eq!(
        tool_result("toolu_01AbC", &r),
        json!({"type": "tool_result", "tool_use_id": "toolu_01AbC", "content": "北京今天晴，25°C"})
    );
}

#[test]
fn an_error_result_carries_is_error() {
    let r =
        result(json!({"content": [{"type": "text", "text": "找不到城市：北进"}], "isError": true}));
    assert_eq!(
        tool_result("toolu_01AbC", &r),
        json!({"type": "tool_result", "tool_use_id": "toolu_01AbC", "content": "找不到城市：北进", "is_error": true})
    );
    let silent = result(json!({"content": [], "isError": true}));
    let block = tool_result("t", &silent);
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
        tool_result("t", &r)["content"],
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
        let content = tool_result_content(&r).unwrap();
        assert_eq!(content[0]["source"]["media_type"], expected, "{mime}");
    }
    let svg = result(
        json!({"content": [{"type": "image", "data": "PHN2Zy8+", "mimeType": "image/svg+xml"}]}),
    );
    let note = tool_result_content(&svg).unwrap();
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
    let content = tool_result_content(&r).unwrap();
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
    let content = tool_result_content(&r).unwrap();
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
        tool_result("t", &r)["content"],
        json!(r#"{"city":"北京","temp":25}"#)
    );
    // With content too, the content is what the model gets.
    let both = result(
        json!({"content": [{"type": "text", "text": "25°C"}], "structuredContent": {"temp": 25}}),
    );
    assert_eq!(tool_result("t", &both)["content"], "25°C");
}

#[test]
fn an_empty_result_has_no_content_and_empty_texts_are_dropped() {
    let empty = result(json!({"content": []}));
    assert_eq!(
        tool_result("t", &empty),
        json!({"type": "tool_result", "tool_use_id": "t"})
    );
    let r = result(
        json!({"content": [{"type": "text", "text": ""}, {"type": "image", "data": PNG, "mimeType": "image/png"}]}),
    );
    assert_eq!(
        tool_result_content(&r).unwrap().as_array().unwrap().len(),
        1
    );
}

#[test]
fn an_empty_text_resource_is_a_note_not_an_empty_document() {
    let r = result(
        json!({"content": [{"type": "resource", "resource": {"uri": "file:///e", "text": ""}}]}),
    );
    let content = tool_result_content(&r).unwrap();
    assert!(
        content
            .as_str()
            .unwrap()
            .contains("<file:///e>, which is empty"),
        "{content}"
    );
}
