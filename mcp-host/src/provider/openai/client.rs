//! The client: `POST {base}/chat/completions` with the request body in
//! the API's field names.

use super::stream::ChunkAssembler;
use super::{
    BASE_URL_VARIABLE, DEFAULT_BASE_URL, DEFAULT_MODEL, KEY_VARIABLE, MAX_TOOLS, Strict,
    content_message, read_response, tool_messages, tools,
};
use crate::provider::http::{ApiClient, ApiEndpoint, tree_limit};
use crate::provider::{Delta, Provider, ProviderError, Reply, Request, ToolCall};
use crate::tool_offer::ToolOffer;
use mcpfn_client::BoxFuture;
use mcpfn_protocol::model::{CallToolResult, ContentBlock, Role};
use serde::Serialize;
use serde_json::{Value, json};

/// The OpenAI Chat Completions API.
#[derive(Clone, Debug)]
pub struct OpenAi {
    http: ApiClient,
    endpoint: ApiEndpoint,
    strict: Strict,
    prompt_cache_key: Option<String>,
}

/// The request body, in the API's field names.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: Vec<&'a Value>,
    #[serde(skip_serializing_if = "<[Value]>::is_empty")]
    tools: &'a [Value],
    max_completion_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_key: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    /// `{"include_usage": true}` when streaming: the usage comes in a last
    /// chunk of its own, else not at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<Value>,
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
            prompt_cache_key: None,
        })
    }

    /// The API the way the official SDKs find it: `OPENAI_API_KEY`, and
    /// `OPENAI_BASE_URL` (default [`DEFAULT_BASE_URL`]). A missing key is a
    /// warning here and a 401 at the first request.
    pub fn from_env() -> Result<OpenAi, ProviderError> {
        let (base, key) =
            crate::provider::http::from_env(BASE_URL_VARIABLE, DEFAULT_BASE_URL, KEY_VARIABLE);
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

    /// Sends `key` as each request's `prompt_cache_key` (default none).
    ///
    /// The API caches prompts of 1,024 tokens or more by their prefix, on
    /// its own; requests are routed to a cache by a hash of the prompt's
    /// start, and the key joins that hash, so requests that share a long
    /// prefix and a key (one conversation, one tenant) land on the same
    /// cache more often. The prefix itself is kept stable here whatever
    /// the key: the tools and the system prompt first and the same bytes
    /// on every request, the history only appended to. A key must not
    /// carry secrets or user data.
    pub fn prompt_cache_key(mut self, key: impl Into<String>) -> OpenAi {
        self.prompt_cache_key = Some(key.into());
        self
    }
}

impl Provider for OpenAi {
    fn default_model(&self) -> &str {
        DEFAULT_MODEL
    }

    fn tools(&self, offers: &[ToolOffer]) -> Vec<Value> {
        tools(offers, self.strict)
    }

    fn max_tools(&self) -> usize {
        MAX_TOOLS
    }

    fn user_message(&self, text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    fn content_message(&self, role: Role, content: &[ContentBlock]) -> Value {
        content_message(role, content)
    }

    fn tool_results(&self, results: &[(&ToolCall, &CallToolResult)]) -> Vec<Value> {
        tool_messages(
            results
                .iter()
                .map(|(call, result)| (call.id.as_str(), *result)),
        )
    }

    fn send<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        Box::pin(async move {
            let system = system_message(&request);
            let body = self.body(&request, system.as_ref(), false);
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
            let system = system_message(&request);
            let body = self.body(&request, system.as_ref(), true);
            let assembler = ChunkAssembler::new(tree_limit(request.max_tokens));
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

/// The system prompt as the API takes it: the first message.
fn system_message(request: &Request<'_>) -> Option<Value> {
    request
        .system
        .map(|system| json!({"role": "system", "content": system}))
}

impl OpenAi {
    /// The body of `request`, `system` its first message, `stream`ed or not.
    fn body<'a>(
        &'a self,
        request: &Request<'a>,
        system: Option<&'a Value>,
        stream: bool,
    ) -> Body<'a> {
        let mut messages = Vec::with_capacity(request.messages.len() + 1);
        messages.extend(system);
        messages.extend(request.messages);
        Body {
            model: request.model,
            messages,
            tools: request.tools,
            max_completion_tokens: request.max_tokens,
            prompt_cache_key: self.prompt_cache_key.as_deref(),
            stream,
            stream_options: stream.then(|| json!({"include_usage": true})),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_puts_system_first_and_names_max_completion_tokens() {
        let history = [json!({"role": "user", "content": "你好"})];
        let system = json!({"role": "system", "content": "简洁"});
        let body = Body {
            model: DEFAULT_MODEL,
            messages: vec![&system, &history[0]],
            tools: &[],
            max_completion_tokens: 1024,
            prompt_cache_key: None,
            stream: false,
            stream_options: None,
        };
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            json!({"model": "gpt-4.1", "messages": [system, history[0]], "max_completion_tokens": 1024})
        );
        let keyed = Body {
            prompt_cache_key: Some("conversation-7"),
            ..body
        };
        assert_eq!(
            serde_json::to_value(&keyed).unwrap()["prompt_cache_key"],
            "conversation-7"
        );
    }
}
