//! The client: `POST {base}/v1/messages` with the request body in the
//! API's field names.

use super::cache::{Messages, System, Tools};
use super::stream::MessageAssembler;
use super::{
    API_VERSION, BASE_URL_VARIABLE, DEFAULT_BASE_URL, DEFAULT_MODEL, KEY_VARIABLE, MAX_TOOLS,
    content_message, deferred_tools, join_user_message, read_response, searched_tools, tool_result,
    tools,
};
use crate::provider::http::{ApiClient, ApiEndpoint, tree_limit};
use crate::provider::{Delta, Provider, ProviderError, Reply, Request, ToolCall};
use crate::tool_offer::ToolOffer;
use mcpfn_client::BoxFuture;
use mcpfn_protocol::model::{CallToolResult, ContentBlock, Role};
use serde::Serialize;
use serde_json::{Value, json};

/// The Anthropic Messages API.
#[derive(Clone, Debug)]
pub struct Anthropic {
    http: ApiClient,
    endpoint: ApiEndpoint,
    caching: bool,
}

/// The request body, in the API's field names; the cache breakpoints are
/// applied as it is written ([`super::cache`]).
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<System<'a>>,
    messages: Messages<'a>,
    #[serde(skip_serializing_if = "Tools::is_empty")]
    tools: Tools<'a>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
}

impl<'a> Body<'a> {
    /// The body of `request`, with cache breakpoints when `caching`.
    fn new(request: &Request<'a>, caching: bool) -> Body<'a> {
        Body {
            model: request.model,
            max_tokens: request.max_tokens,
            system: request.system.map(|text| System::new(text, caching)),
            messages: Messages::new(request.messages, caching),
            tools: Tools::new(request.tools, caching),
            stream: false,
        }
    }
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
            caching: true,
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

    /// Whether requests carry prompt-caching breakpoints (default on): the
    /// last tool, the system prompt, the previous request's end and this
    /// one's end, at most four, each the 5-minute `{"type": "ephemeral"}`.
    /// Off, the request is the history's bytes as they are.
    pub fn caching(mut self, on: bool) -> Anthropic {
        self.caching = on;
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

    fn searched_tools(&self, message: &Value) -> Vec<String> {
        searched_tools(message)
    }

    fn user_message(&self, text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    fn content_message(&self, role: Role, content: &[ContentBlock]) -> Value {
        content_message(role, content)
    }

    fn join_user_message(&self, last: &mut Value, message: &Value) -> bool {
        join_user_message(last, message)
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
            let body = Body::new(&request, self.caching);
            read_response(
                self.http
                    .post(&self.endpoint, &body, request.max_tokens)
                    .await?,
            )
        })
    }

    fn send_streamed<'a>(
        &'a self,
        request: Request<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        Box::pin(async move {
            let body = Body {
                stream: true,
                ..Body::new(&request, self.caching)
            };
            let assembler = MessageAssembler::new(tree_limit(request.max_tokens));
            self.http
                .post_streamed(
                    &self.endpoint,
                    &body,
                    request.max_tokens,
                    Box::new(assembler),
                    on_delta,
                )
                .await
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

    fn request<'a>(messages: &'a [Value], tools: &'a [Value]) -> Request<'a> {
        Request {
            model: DEFAULT_MODEL,
            max_tokens: 1024,
            system: Some("你是一个专业的天气助手"),
            messages,
            tools,
        }
    }

    #[test]
    fn the_body_has_system_at_the_top_and_no_empty_tools() {
        let messages = [json!({"role": "user", "content": "你好"})];
        let body = Body::new(&request(&messages, &[]), false);
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({"model": "claude-sonnet-4-6", "max_tokens": 1024, "system": "你是一个专业的天气助手", "messages": messages})
        );
    }

    #[test]
    fn a_cached_body_has_four_breakpoints_in_the_prompts_order() {
        let messages = [
            json!({"role": "user", "content": "北京今天天气怎么样"}),
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "北京"}}
            ]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "晴"}
            ]}),
        ];
        let tools = [json!({"name": "a"}), json!({"name": "get_weather"})];
        let text = serde_json::to_string(&Body::new(&request(&messages, &tools), true)).unwrap();
        assert_eq!(text.matches("cache_control").count(), 4, "{text}");
        let body: Value = serde_json::from_str(&text).unwrap();
        let mark = json!({"type": "ephemeral"});
        assert_eq!(body["tools"][1]["cache_control"], mark);
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(
            body["system"],
            json!([{"type": "text", "text": "你是一个专业的天气助手", "cache_control": mark}])
        );
        assert_eq!(body["messages"][0]["content"][0]["cache_control"], mark);
        assert!(
            body["messages"][1]["content"][0]
                .get("cache_control")
                .is_none()
        );
        assert_eq!(body["messages"][2]["content"][0]["cache_control"], mark);
    }
}
