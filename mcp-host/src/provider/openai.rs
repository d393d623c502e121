//! OpenAI's Chat Completions API: `POST {base}/chat/completions`.
//!
//! The system prompt is the first message (`role: system`, made per
//! request, never stored in the history); tools are functions; a response's
//! calls are `choices[0].message.tool_calls`, whose `arguments` are a JSON
//! *string*; each result goes back as its own `role: tool` message with the
//! call's `tool_call_id`, in the order of the calls, text only.

use super::http::{ApiClient, ApiEndpoint};
use super::{Provider, ProviderError, Reply, Request, Stop, ToolCall, Usage};
use crate::catalog::Catalog;
use crate::convert::{self, CallFailure, Strict};
use mcp_protocol::model::CallToolResult;
use mcp_client::BoxFuture;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// Where the API is when `OPENAI_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The model used when none is named.
pub const DEFAULT_MODEL: &str = "gpt-4.1";
const KEY_VARIABLE: &str = "OPENAI_API_KEY";

/// The OpenAI Chat Completions API.
#[derive(Clone, Debug)]
pub struct OpenAi {
    http: ApiClient,
    endpoint: ApiEndpoint,
    strict: Strict,
}

/// The request body, in the API's field names.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: Vec<&'a Value>,
    #[serde(skip_serializing_if = "<[Value]>::is_empty")]
    tools: &'a [Value],
    max_completion_tokens: u32,
}

impl OpenAi {
    /// The API at `base_url` (`https://api.openai.com/v1`) with `api_key`
    /// (`None`: no `Authorization` header, which the real API refuses with
    /// a 401).
    pub fn new(base_url: &str, api_key: Option<&str>) -> Result<OpenAi, ProviderError> {
        let url = format!("{}/chat/completions", base_url.trim_end_matches('/'));
        let mut endpoint = ApiEndpoint::new(&url, KEY_VARIABLE)?.named("the OpenAI API");
        if let Some(key) = api_key {
            endpoint = endpoint.header("authorization", &format!("Bearer {key}"), true)?;
        }
        Ok(OpenAi {
            http: ApiClient::new(),
            endpoint,
            strict: Strict::Off,
        })
    }

    /// The API the way the official SDKs find it: `OPENAI_API_KEY`, and
    /// `OPENAI_BASE_URL` (default [`DEFAULT_BASE_URL`]). A missing key is a
    /// warning here and a 401 at the first request.
    pub fn from_env() -> Result<OpenAi, ProviderError> {
        let (base, key) = super::http::from_env("OPENAI_BASE_URL", DEFAULT_BASE_URL, KEY_VARIABLE);
        OpenAi::new(&base, key.as_deref())
    }

    /// Uses `http` (its deadline and timeouts, its pool) for the requests.
    pub fn with_client(mut self, http: ApiClient) -> OpenAi {
        self.http = http;
        self
    }

    /// Offers tools in strict mode where their schemas allow (default off:
    /// strict mode rewrites optional arguments as required-and-nullable).
    pub fn strict(mut self, strict: Strict) -> OpenAi {
        self.strict = strict;
        self
    }
}

/// One `tool_calls` entry as a call.
fn read_call(call: &Value) -> ToolCall {
    let id = call["id"].as_str().unwrap_or_default().to_owned();
    let function = &call["function"];
    let name = function["name"].as_str().unwrap_or_default().to_owned();
    let input = match (call["type"].as_str(), function["arguments"].as_str()) {
        (Some("function") | None, Some(arguments)) => convert::parse_openai_arguments(arguments),
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
    let usage = Usage {
        input_tokens: body["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
        output_tokens: body["usage"]["completion_tokens"].as_u64().unwrap_or(0),
    };
    Ok(Reply {
        message: history_message(message),
        text,
        calls,
        stop,
        stop_reason,
        usage,
    })
}

impl Provider for OpenAi {
    fn default_model(&self) -> &str {
        DEFAULT_MODEL
    }

    fn tools(&self, catalog: &Catalog) -> Vec<Value> {
        catalog.openai_tools(self.strict)
    }

    fn user_message(&self, text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    fn tool_results(&self, results: &[(&ToolCall, &CallToolResult)]) -> Vec<Value> {
        results
            .iter()
            .map(|(call, result)| convert::openai_tool_text_message(&call.id, result))
            .collect()
    }

    fn send<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        Box::pin(async move {
            let system = request
                .system
                .map(|system| json!({"role": "system", "content": system}));
            let mut messages = Vec::with_capacity(request.messages.len() + 1);
            messages.extend(system.as_ref());
            messages.extend(request.messages);
            let body = Body {
                model: request.model,
                messages,
                tools: request.tools,
                max_completion_tokens: request.max_tokens,
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
                output_tokens: 17
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

    #[test]
    fn the_body_puts_system_first_and_names_max_completion_tokens() {
        let history = [json!({"role": "user", "content": "你好"})];
        let system = json!({"role": "system", "content": "简洁"});
        let body = Body {
            model: DEFAULT_MODEL,
            messages: vec![&system, &history[0]],
            tools: &[],
            max_completion_tokens: 1024,
        };
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({"model": "gpt-4.1", "messages": [system, history[0]], "max_completion_tokens": 1024})
        );
    }
}
