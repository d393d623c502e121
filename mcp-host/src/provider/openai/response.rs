//! The responses: `choices[0].message` kept for the history without its
//! response-only fields, its `tool_calls` read with their JSON-string
//! arguments, and the loop's [`Stop`] from the calls themselves.

use crate::call_result::CallFailure;
use crate::provider::{ProviderError, Reply, Stop, ToolCall, Usage};
use serde_json::{Map, Value, json};

/// The arguments of an OpenAI tool call (`function.arguments`, a JSON
/// *string*) as the object `tools/call` takes; an empty string is `{}`.
pub fn parse_arguments(arguments: &str) -> Result<Value, CallFailure> {
    if arguments.trim().is_empty() {
        return Ok(json!({}));
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(object @ Value::Object(_)) => Ok(object),
        Ok(other) => Err(CallFailure::InvalidArguments {
            reason: format!("the arguments must be a JSON object, not `{other}`"),
        }),
        Err(error) => Err(CallFailure::InvalidArguments {
            reason: format!("the arguments are not valid JSON ({error})"),
        }),
    }
}

/// One `tool_calls` entry as a call.
fn read_call(call: &Value) -> ToolCall {
    let id = call["id"].as_str().unwrap_or_default().to_owned();
    let function = &call["function"];
    let name = function["name"].as_str().unwrap_or_default().to_owned();
    let input = match (call["type"].as_str(), function["arguments"].as_str()) {
        (Some("function") | None, Some(arguments)) => parse_arguments(arguments),
        (Some("function") | None, None) => Ok(json!({})),
        (Some(other), _) => Err(CallFailure::NotRun {
            reason: format!("this host runs function calls only, not `{other}` calls"),
        }),
    };
    ToolCall { id, name, input }
}

/// The assistant message as the next request takes it back: its role,
/// content (a string or `null`), `tool_calls` and `refusal`. Response-only
/// fields (`annotations`, `audio` data) are left out, since the request
/// schema has no place for them.
fn history_message(message: &Map<String, Value>) -> Value {
    let mut kept = Map::new();
    kept.insert("role".into(), "assistant".into());
    kept.insert(
        "content".into(),
        message.get("content").cloned().unwrap_or(Value::Null),
    );
    if let Some(calls @ Value::Array(list)) = message.get("tool_calls")
        && !list.is_empty()
    {
        kept.insert("tool_calls".into(), calls.clone());
    }
    if let Some(refusal @ Value::String(_)) = message.get("refusal") {
        kept.insert("refusal".into(), refusal.clone());
    }
    Value::Object(kept)
}

/// The response's `usage`: `prompt_tokens` is the whole prompt already,
/// its `prompt_tokens_details.cached_tokens` (and, on the models that
/// report them, `cache_write_tokens`) a part of it.
fn read_usage(usage: &Value) -> Usage {
    let details = &usage["prompt_tokens_details"];
    Usage {
        input_tokens: usage["prompt_tokens"].as_u64().unwrap_or(0),
        output_tokens: usage["completion_tokens"].as_u64().unwrap_or(0),
        cache_creation_input_tokens: details["cache_write_tokens"].as_u64().unwrap_or(0),
        cache_read_input_tokens: details["cached_tokens"].as_u64().unwrap_or(0),
    }
}

/// A response body of this API as a [`Reply`] (for a provider that
/// reaches the API its own way: a proxy, a recorded session).
pub fn read_response(body: Value) -> Result<Reply, ProviderError> {
    let choice = &body["choices"][0];
    let Some(message) = choice["message"].as_object() else {
        return Err(ProviderError::InvalidResponse {
            api: "the OpenAI API".into(),
            reason: "no `choices[0].message` object".into(),
        });
    };
    let calls: Vec<ToolCall> = match message.get("tool_calls") {
        Some(Value::Array(list)) => list.iter().map(read_call).collect(),
        _ => Vec::new(),
    };
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let stop_reason = choice["finish_reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    // Calls are answered whatever the finish reason says (a forced
    // `tool_choice` finishes with `stop`): the next request is refused
    // while an assistant's `tool_calls` lack their `role: tool` messages.
    let stop = if calls.is_empty() {
        Stop::End
    } else {
        Stop::ToolUse
    };
    let usage = read_usage(&body["usage"]);
    Ok(Reply {
        message: history_message(message),
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
    fn tool_calls_are_read_with_their_string_arguments() {
        let body = json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null, "refusal": null, "annotations": [],
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"北京\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":"}}
                ]
            }}],
            "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}
        });
        let reply = read_response(body.clone()).unwrap();
        assert_eq!(reply.stop, Stop::ToolUse);
        assert_eq!(reply.stop_reason, "tool_calls");
        assert_eq!(
            reply.usage,
            Usage {
                input_tokens: 82,
                output_tokens: 17,
                ..Usage::default()
            }
        );
        assert_eq!(reply.calls[0].input, Ok(json!({"city": "北京"})));
        assert!(matches!(
            reply.calls[1].input,
            Err(CallFailure::InvalidArguments { .. })
        ));
        assert_eq!(
            reply.message,
            json!({"role": "assistant", "content": null, "tool_calls": body["choices"][0]["message"]["tool_calls"]})
        );
    }

    #[test]
    fn cached_tokens_are_read_as_cache_reads_within_the_prompt() {
        let reply = read_response(json!({
            "choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "晴"}}],
            "usage": {"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
                      "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0}}
        }))
        .unwrap();
        assert_eq!(
            reply.usage,
            Usage {
                input_tokens: 2006,
                output_tokens: 300,
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: 1920,
            }
        );
    }

    #[test]
    fn a_plain_answer_ends_the_turn_with_its_finish_reason() {
        let reply = read_response(json!({
            "choices": [{"finish_reason": "length", "message": {"role": "assistant", "content": "北京今天晴"}}]
        }))
        .unwrap();
        assert_eq!(
            (reply.stop, reply.stop_reason.as_str(), reply.text.as_str()),
            (Stop::End, "length", "北京今天晴")
        );
        assert!(read_response(json!({"choices": []})).is_err());
    }
}
