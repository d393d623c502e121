//! The responses: the assistant message kept verbatim, its text and
//! `tool_use` blocks read, `stop_reason` mapped to the loop's [`Stop`].

use crate::provider::{ProviderError, Reply, Stop, ToolCall, Usage};
use serde_json::{Value, json};

/// The `tool_use` blocks of `content` as calls, and its text.
fn read_content(content: &[Value]) -> (String, Vec<ToolCall>) {
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in content {
        match block["type"].as_str() {
            Some("text") => text.push_str(block["text"].as_str().unwrap_or_default()),
            Some("tool_use") => calls.push(ToolCall {
                id: block["id"].as_str().unwrap_or_default().to_owned(),
                name: block["name"].as_str().unwrap_or_default().to_owned(),
                input: Ok(block.get("input").cloned().unwrap_or_else(|| json!({}))),
            }),
            _ => {}
        }
    }
    (text, calls)
}

/// The response's `usage` in [`Usage`]'s one meaning: the API's
/// `input_tokens` counts only the tokens after the last cache breakpoint
/// that were neither read nor written, so the whole prompt is the sum of
/// the three.
fn read_usage(usage: &Value) -> Usage {
    let count = |name: &str| usage[name].as_u64().unwrap_or(0);
    let (written, read) = (
        count("cache_creation_input_tokens"),
        count("cache_read_input_tokens"),
    );
    Usage {
        input_tokens: count("input_tokens")
            .saturating_add(written)
            .saturating_add(read),
        output_tokens: count("output_tokens"),
        cache_creation_input_tokens: written,
        cache_read_input_tokens: read,
    }
}

/// A response body of this API as a [`Reply`] (for a provider that
/// reaches the API its own way: a proxy, a recorded session).
pub fn read_response(mut body: Value) -> Result<Reply, ProviderError> {
    let Some(Value::Array(content)) = body.get_mut("content").map(Value::take) else {
        return Err(ProviderError::InvalidResponse {
            api: "the Anthropic API".into(),
            reason: "no `content` array".into(),
        });
    };
    let stop_reason = body["stop_reason"].as_str().unwrap_or_default().to_owned();
    let (text, calls) = read_content(&content);
    let stop = match stop_reason.as_str() {
        "tool_use" => Stop::ToolUse,
        "pause_turn" => Stop::Pause,
        _ => Stop::End,
    };
    let usage = read_usage(&body["usage"]);
    Ok(Reply {
        message: json!({"role": "assistant", "content": content}),
        text,
        calls,
        stop,
        stop_reason,
        usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_with_text_and_tool_use_is_kept_verbatim_and_read() {
        let body = json!({
            "id": "msg_01Xyz", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [
                {"type": "text", "text": "我需要查一下北京的天气。"},
                {"type": "thinking", "thinking": "…", "signature": "sig"},
                {"type": "tool_use", "id": "toolu_01AbC", "name": "get_weather", "input": {"city": "北京"}}
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 512, "output_tokens": 38}
        });
        let reply = read_response(body.clone()).unwrap();
        assert_eq!(
            reply.message,
            json!({"role": "assistant", "content": body["content"]})
        );
        assert_eq!(reply.text, "我需要查一下北京的天气。");
        assert_eq!(reply.stop, Stop::ToolUse);
        assert_eq!(reply.stop_reason, "tool_use");
        assert_eq!(
            reply.usage,
            Usage {
                input_tokens: 512,
                output_tokens: 38,
                ..Usage::default()
            }
        );
        assert_eq!(
            reply.calls,
            vec![ToolCall {
                id: "toolu_01AbC".into(),
                name: "get_weather".into(),
                input: Ok(json!({"city": "北京"})),
            }]
        );
    }

    #[test]
    fn cache_reads_and_writes_are_part_of_the_input() {
        let body = json!({
            "content": [{"type": "text", "text": "晴"}], "stop_reason": "end_turn",
            "usage": {
                "input_tokens": 50, "output_tokens": 12,
                "cache_creation_input_tokens": 2048, "cache_read_input_tokens": 100000,
                "cache_creation": {"ephemeral_5m_input_tokens": 2048, "ephemeral_1h_input_tokens": 0}
            }
        });
        assert_eq!(
            read_response(body).unwrap().usage,
            Usage {
                input_tokens: 102_098,
                output_tokens: 12,
                cache_creation_input_tokens: 2048,
                cache_read_input_tokens: 100_000,
            }
        );
    }

    #[test]
    fn pause_and_other_reasons_map_to_the_loops_stops() {
        for (reason, stop) in [
            ("pause_turn", Stop::Pause),
            ("end_turn", Stop::End),
            ("max_tokens", Stop::End),
            ("refusal", Stop::End),
        ] {
            let reply = read_response(json!({"content": [], "stop_reason": reason})).unwrap();
            assert_eq!((reply.stop, reply.stop_reason.as_str()), (stop, reason));
        }
        assert!(read_response(json!({"stop_reason": "end_turn"})).is_err());
    }
}
