//! Anthropic's Messages API: `POST {base}/v1/messages`.
//!
//! The system prompt is the top-level `system` field (the API has no
//! `system` role); tools are `{name, description, input_schema}`; a
//! response's `content` is a list of blocks (`text`, `tool_use`, and
//! others), kept verbatim in the history; the results of one response's
//! `tool_use` blocks go back as **one** user message of `tool_result`
//! blocks, in the same order (the API refuses a `tool_use` whose result is
//! not in the very next message).

use super::http::{ApiClient, ApiEndpoint};
use super::{Provider, ProviderError, Reply, Request, Stop, ToolCall, Usage};
use crate::catalog::Catalog;
use crate::convert;
use mcp_protocol::model::CallToolResult;
use mcp_client::BoxFuture;
use serde::Serialize;
use serde_json::{Value, json};

/// The API version this crate speaks (`anthropic-version`).
pub const API_VERSION: &str = "2023-06-01";
/// Where the API is when `ANTHROPIC_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The model used when none is named.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-6";
const KEY_VARIABLE: &str = "ANTHROPIC_API_KEY";

/// The Anthropic Messages API.
#[derive(Clone, Debug)]
pub struct Anthropic {
    http: ApiClient,
    endpoint: ApiEndpoint,
}

/// The request body, in the API's field names.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<&'a str>,
    messages: &'a [Value],
    #[serde(skip_serializing_if = "<[Value]>::is_empty")]
    tools: &'a [Value],
}

impl Anthropic {
    /// The API at `base_url` (`https://api.anthropic.com`, no `/v1`) with
    /// `api_key` (`None`: no `x-api-key` header, which the real API
    /// refuses with a 401 naming the variable).
    pub fn new(base_url: &str, api_key: Option<&str>) -> Result<Anthropic, ProviderError> {
        let url = format!("{}/v1/messages", base_url.trim_end_matches('/'));
        let mut endpoint = ApiEndpoint::new(&url, KEY_VARIABLE)?
            .named("the Anthropic API")
            .header("anthropic-version", API_VERSION, false)?;
        if let Some(key) = api_key {
            endpoint = endpoint.header("x-api-key", key, true)?;
        }
        Ok(Anthropic {
            http: ApiClient::new(),
            endpoint,
        })
    }

    /// The API the way the official SDKs find it: `ANTHROPIC_API_KEY`,
    /// and `ANTHROPIC_BASE_URL` (default [`DEFAULT_BASE_URL`]). A missing
    /// key is a warning here and a 401 at the first request.
    pub fn from_env() -> Result<Anthropic, ProviderError> {
        let (base, key) =
            super::http::from_env("ANTHROPIC_BASE_URL", DEFAULT_BASE_URL, KEY_VARIABLE);
        Anthropic::new(&base, key.as_deref())
    }

    /// Uses `http` (its deadline and timeouts, its pool) for the requests.
    pub fn with_client(mut self, http: ApiClient) -> Anthropic {
        self.http = http;
        self
    }
}

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
    let usage = Usage {
        input_tokens: body["usage"]["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: body["usage"]["output_tokens"].as_u64().unwrap_or(0),
    };
    Ok(Reply {
        message: json!({"role": "assistant", "content": content}),
        text,
        calls,
        stop,
        stop_reason,
        usage,
    })
}

impl Provider for Anthropic {
    fn default_model(&self) -> &str {
        DEFAULT_MODEL
    }

    fn tools(&self, catalog: &Catalog) -> Vec<Value> {
        catalog.claude_tools()
    }

    fn user_message(&self, text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    fn tool_results(&self, results: &[(&ToolCall, &CallToolResult)]) -> Vec<Value> {
        let blocks: Vec<Value> = results
            .iter()
            .map(|(call, result)| convert::claude_tool_result(&call.id, result))
            .collect();
        vec![json!({"role": "user", "content": blocks})]
    }

    fn send<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        Box::pin(async move {
            let body = Body {
                model: request.model,
                max_tokens: request.max_tokens,
                system: request.system,
                messages: request.messages,
                tools: request.tools,
            };
            read_response(
                self.http
                    .post(&self.endpoint, &body, request.max_tokens)
                    .await?,
            )
        })
    }
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
                output_tokens: 38
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

    #[test]
    fn the_body_has_system_at_the_top_and_no_empty_tools() {
        let messages = [json!({"role": "user", "content": "你好"})];
        let body = Body {
            model: DEFAULT_MODEL,
            max_tokens: 1024,
            system: Some("你是一个专业的天气助手"),
            messages: &messages,
            tools: &[],
        };
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({"model": "claude-sonnet-4-6", "max_tokens": 1024, "system": "你是一个专业的天气助手", "messages": messages})
        );
    }
}
