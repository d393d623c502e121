//! The client: `POST {base}/v1/messages` with the request body in the
//! API's field names.

use super::{
    API_VERSION, BASE_URL_VARIABLE, DEFAULT_BASE_URL, DEFAULT_MODEL, KEY_VARIABLE, MAX_TOOLS,
    deferred_tools, read_response, tool_result, tools,
};
use crate::offer::ToolOffer;
use crate::provider::http::{ApiClient, ApiEndpoint};
use crate::provider::{Provider, ProviderError, Reply, Request, ToolCall};
use mcp_client::BoxFuture;
use mcp_protocol::model::CallToolResult;
use serde::Serialize;
use serde_json::{Value, json};

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
            crate::provider::http::from_env(BASE_URL_VARIABLE, DEFAULT_BASE_URL, KEY_VARIABLE);
        Anthropic::new(&base, key.as_deref())
    }

    /// Uses `http` (its deadline and timeouts, its pool) for the requests.
    pub fn with_client(mut self, http: ApiClient) -> Anthropic {
        self.http = http;
        self
    }
}

impl Provider for Anthropic {
    fn default_model(&self) -> &str {
        DEFAULT_MODEL
    }

    fn tools(&self, offers: &[ToolOffer]) -> Vec<Value> {
        tools(offers)
    }

    fn max_tools(&self) -> usize {
        MAX_TOOLS
    }

    fn deferred_tools(&self, loaded: &[ToolOffer], deferred: &[ToolOffer]) -> Option<Vec<Value>> {
        Some(deferred_tools(loaded, deferred))
    }

    fn user_message(&self, text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    fn join_user_line(&self, last: &mut Value, text: &str) -> bool {
        // Only a message of tool results: a user message of text (a line
        // whose request failed before any tool ran is rolled back, so there
        // is none) keeps its own.
        if last["role"] != "user" {
            return false;
        }
        let Some(blocks) = last.get_mut("content").and_then(Value::as_array_mut) else {
            return false;
        };
        if !blocks.iter().any(|block| block["type"] == "tool_result") {
            return false;
        }
        // After the results: the API wants `tool_result` blocks first.
        blocks.push(json!({"type": "text", "text": text}));
        true
    }

    fn tool_results(&self, results: &[(&ToolCall, &CallToolResult)]) -> Vec<Value> {
        let blocks: Vec<Value> = results
            .iter()
            .map(|(call, result)| tool_result(&call.id, result))
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
    fn a_line_after_tool_results_joins_their_message_as_a_text_block_after_them() {
        let claude = Anthropic::new("http://127.0.0.1:9", None).unwrap();
        let result = json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"});
        let mut results = json!({"role": "user", "content": [result]});
        assert!(claude.join_user_line(&mut results, "那上海呢"));
        assert_eq!(
            results,
            json!({"role": "user", "content": [result, {"type": "text", "text": "那上海呢"}]})
        );
        for mut other in [
            json!({"role": "assistant", "content": [{"type": "text", "text": "好"}]}),
            json!({"role": "user", "content": "你好"}),
            json!({"role": "user", "content": [{"type": "text", "text": "你好"}]}),
        ] {
            let before = other.clone();
            assert!(!claude.join_user_line(&mut other, "那上海呢"));
            assert_eq!(other, before);
        }
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
