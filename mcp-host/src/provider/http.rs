//! The HTTP every model API shares: one pooled HTTPS client (rustls, the
//! Mozilla roots compiled in), a deadline per request, the retries the APIs
//! ask for, a bound on what a response may cost, and their errors mapped to
//! [`ProviderError`].
//!
//! **Time** is bounded three ways, so that an API that accepts the
//! connection and never answers, or sends its headers and then trickles
//! the body, cannot hold a request for long:
//! - a **deadline** per model request covers all its attempts and the
//!   waits between them: [`request_deadline`]`(max_tokens)` (60 s, longer
//!   when `max_tokens` allows a response that takes longer to write at
//!   [`SLOWEST_TOKENS_PER_SECOND`]), or what [`ApiClient::deadline`] sets.
//!   A retry whose wait would pass it is not made; an attempt it cuts ends
//!   the request with [`ProviderError::Timeout`].
//! - a **stall bound** ([`DEFAULT_STALL_TIMEOUT`], [`ApiClient::stall_timeout`])
//!   on each read of a response's body: an API that has sent its headers
//!   has written the response, so a body that stops for that long is a
//!   dead connection; the attempt ends ([`ProviderError::Stalled`]) and is
//!   retried within the deadline. Before the headers nothing is bounded
//!   but the deadline: a non-streaming response sends no byte until the
//!   model has written it all.
//! - a timeout per attempt ([`ApiClient::timeout`], 10 minutes as the SDKs
//!   have it), which matters only for a deadline longer than that.
//!
//! **Retries** are the official SDKs' (Anthropic's and OpenAI's
//! `_should_retry`): a response with `x-should-retry: true` or `false` is
//! retried or not as it says; otherwise 408 (request timeout), 409 (lock
//! timeout), 429 (rate limit) and every 5xx (529 is Anthropic's
//! "overloaded") are retried, and so are a connection that fails and an
//! attempt that times out. At most [`MAX_ATTEMPTS`] requests are made in
//! all; between them the host waits what the response's `retry-after-ms` or
//! `retry-after` (seconds, or an HTTP date) says, at most
//! [`MAX_RETRY_WAIT`], else 0.5 s, then 1 s (doubling, at most 8 s), each
//! less a random quarter so that many hosts do not retry in step.
//!
//! **Responses** are bounded by what the request allows the model to write:
//! [`response_limit`] bytes for its `max_tokens`, and a parsed tree of at
//! most [`tree_limit`] bytes, checked on the bytes
//! ([`JsonBudget`]) before they are parsed. A response of tiny JSON objects
//! costs about 90 bytes of memory per byte once parsed; the check refuses it
//! first. A response over either bound is [`ProviderError::TooLarge`] and is
//! not retried (the same request would get the same response).

use super::error::{error_message, is_context_overflow};
use super::stream::{Assembler, Delta, EventReader};
use super::{ProviderError, Reply};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use mcp_client::http::{Connector, chain, connector};
use mcp_client::text::excerpt;
use mcp_protocol::json_budget::JsonBudget;
use serde_json::Value;
use std::fmt;
use std::time::{Duration, SystemTime};

/// Requests made in all for one model request whose failures are retried
/// (the SDKs' two retries).
pub(crate) const MAX_ATTEMPTS: u32 = 3;
/// The longest wait a `retry-after` is honoured for.
pub(crate) const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);
/// The first wait when the response names none; it doubles per retry.
const INITIAL_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait when the response names none.
const MAX_BACKOFF: Duration = Duration::from_secs(8);
/// The smallest response bound, whatever `max_tokens` says: an error body,
/// a few blocks and the envelope of a short answer fit many times over.
pub(crate) const MIN_RESPONSE_BYTES: usize = 1 << 20;
/// The response bytes allowed per token of `max_tokens`. A token is about
/// 4 bytes of text; JSON-escaped CJK text (`\uXXXX`) takes up to 6 bytes
/// per character, about one token; a `tool_use` input is counted in tokens
/// too but nests and quotes; and the envelope (ids, usage, citations) adds
/// a little. 64 is ten times the worst of these.
pub(crate) const RESPONSE_BYTES_PER_TOKEN: usize = 64;
/// The largest response bound, whatever `max_tokens` says (the Anthropic
/// API's own request limit).
pub(crate) const MAX_RESPONSE_BYTES: usize = 32 << 20;
/// The parsed tree allowed per byte of the bound: text blocks cost about
/// their bytes, `tool_use` inputs of small values a few times theirs.
const TREE_BYTES_PER_BYTE: usize = 4;
/// The smallest tree bound.
const MIN_TREE_BYTES: usize = 16 << 20;
/// How much of a non-JSON error body is quoted.
const ERROR_EXCERPT: usize = 300;
/// The shortest deadline of a model request, whatever its `max_tokens`.
pub(crate) const MIN_REQUEST_DEADLINE: Duration = Duration::from_secs(60);
/// The slowest rate at which a model is expected to write its response,
/// from which a request's deadline is derived; a response of `max_tokens`
/// tokens at this rate must fit in it.
pub(crate) const SLOWEST_TOKENS_PER_SECOND: u32 = 20;
/// The longest a response's body may go without a byte once its headers
/// have come.
pub(crate) const DEFAULT_STALL_TIMEOUT: Duration = Duration::from_secs(20);

/// The deadline of a model request with `max_tokens`, all its attempts and
/// retry waits together: the time to write `max_tokens` tokens at
/// [`SLOWEST_TOKENS_PER_SECOND`], in whole seconds rounded up, at least
/// [`MIN_REQUEST_DEADLINE`].
pub(crate) fn request_deadline(max_tokens: u32) -> Duration {
    Duration::from_secs(u64::from(max_tokens.div_ceil(SLOWEST_TOKENS_PER_SECOND)))
        .max(MIN_REQUEST_DEADLINE)
}

/// The most bytes a response to a request with `max_tokens` may have:
/// `max_tokens` × [`RESPONSE_BYTES_PER_TOKEN`], at least
/// [`MIN_RESPONSE_BYTES`] and at most [`MAX_RESPONSE_BYTES`].
pub(crate) fn response_limit(max_tokens: u32) -> usize {
    (max_tokens as usize)
        .saturating_mul(RESPONSE_BYTES_PER_TOKEN)
        .clamp(MIN_RESPONSE_BYTES, MAX_RESPONSE_BYTES)
}

/// The most memory the parsed tree of a response to a request with
/// `max_tokens` may take, as [`JsonBudget`] estimates it: 4 × its
/// [`response_limit`], at least 16 MiB.
pub(crate) fn tree_limit(max_tokens: u32) -> usize {
    response_limit(max_tokens)
        .saturating_mul(TREE_BYTES_PER_BYTE)
        .max(MIN_TREE_BYTES)
}

/// The base URL and key of an API the way the official SDKs read them:
/// `base_variable` (else `default_base`) and `key_variable` (`None`, with a
/// warning, when unset: the first request then gets the API's 401).
pub fn from_env(
    base_variable: &str,
    default_base: &str,
    key_variable: &str,
) -> (String, Option<String>) {
    let base = std::env::var(base_variable)
        .ok()
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| default_base.to_owned());
    let key = std::env::var(key_variable).ok().filter(|k| !k.is_empty());
    if key.is_none() {
        tracing::warn!("{key_variable} is not set: requests go without a key");
    }
    (base, key)
}

/// Where a provider's requests go and what they always carry.
#[derive(Clone)]
pub struct ApiEndpoint {
    uri: Uri,
    headers: HeaderMap,
    key_variable: String,
    api: String,
}

impl fmt::Debug for ApiEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The headers carry the key: their names only.
        f.debug_struct("ApiEndpoint")
            .field("uri", &self.uri)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("key_variable", &self.key_variable)
            .field("api", &self.api)
            .finish()
    }
}

impl ApiEndpoint {
    /// `POST url`, whose key comes from the environment variable
    /// `key_variable` (named in errors).
    pub fn new(url: &str, key_variable: &str) -> Result<ApiEndpoint, ProviderError> {
        let uri: Uri = url.parse().map_err(|e| ProviderError::Config {
            reason: format!("`{url}` is not a URL: {e}"),
        })?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") if cfg!(feature = "https") => {}
            _ => {
                return Err(ProviderError::Config {
                    reason: format!(
                        "`{url}` is not an http:// or https:// URL this build can reach"
                    ),
                });
            }
        }
        Ok(ApiEndpoint {
            uri,
            headers: HeaderMap::new(),
            key_variable: key_variable.to_owned(),
            api: "the model API".to_owned(),
        })
    }

    /// Names the API in errors (`"the Anthropic API"`; default
    /// `"the model API"`).
    pub fn named(mut self, api: &str) -> ApiEndpoint {
        self.api = api.to_owned();
        self
    }

    /// The API's name in errors.
    pub fn api(&self) -> &str {
        &self.api
    }

    /// Adds a header sent on every request; `secret` keeps it out of logs.
    pub fn header(
        mut self,
        name: &'static str,
        value: &str,
        secret: bool,
    ) -> Result<ApiEndpoint, ProviderError> {
        let mut value = HeaderValue::from_str(value).map_err(|_| ProviderError::Config {
            reason: format!(
                "the value of header `{name}` is not valid in HTTP (check {})",
                self.key_variable
            ),
        })?;
        value.set_sensitive(secret);
        self.headers.insert(HeaderName::from_static(name), value);
        Ok(self)
    }

    /// The variable the key is read from.
    pub fn key_variable(&self) -> &str {
        &self.key_variable
    }
}

/// The HTTP client of the model APIs; cheap to clone (one pool).
///
/// Each model request has a **deadline** for all its attempts and the
/// waits between them: the time to write its `max_tokens` at 20 tokens a
/// second, at least 60 s (1024 -> 60 s, 8192 -> 410 s), or what
/// [`ApiClient::deadline`] sets. A response's body that sends no byte for
/// 20 s once its headers have come ([`ApiClient::stall_timeout`]) ends the
/// attempt. What the official SDKs retry is retried (`x-should-retry`,
/// 408, 409, 429, 5xx, a failed connection, an attempt that timed out), 3
/// requests in all, after the wait `retry-after-ms` or `retry-after` asks
/// (at most 60 s) or a jittered backoff from 0.5 s. A response is read
/// only while it stays within what its `max_tokens` allows (64 bytes a
/// token, from 1 MiB to 32 MiB, and a parsed tree of 4 times that, at
/// least 16 MiB); a larger one is [`ProviderError::TooLarge`].
#[derive(Clone)]
pub struct ApiClient {
    client: Client<Connector, Full<Bytes>>,
    timeout: Duration,
    deadline: Option<Duration>,
    stall: Duration,
}

impl fmt::Debug for ApiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiClient")
            .field("timeout", &self.timeout)
            .field("deadline", &self.deadline)
            .field("stall", &self.stall)
            .finish_non_exhaustive()
    }
}

impl Default for ApiClient {
    fn default() -> Self {
        ApiClient::new()
    }
}

impl ApiClient {
    /// A client whose requests each have the deadline their `max_tokens`
    /// gives for all their attempts, with a 20 s stall bound on the body,
    /// a 10-minute timeout per attempt (the official SDKs' default) and a
    /// 10 s connect timeout.
    pub fn new() -> ApiClient {
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(90))
            .build(connector(Duration::from_secs(10)));
        ApiClient {
            client,
            timeout: Duration::from_secs(600),
            deadline: None,
            stall: DEFAULT_STALL_TIMEOUT,
        }
    }

    /// Sets the timeout of each attempt (it is retried, within the
    /// request's deadline).
    pub fn timeout(mut self, timeout: Duration) -> ApiClient {
        self.timeout = timeout;
        self
    }

    /// Sets the deadline of every request, all its attempts and the waits
    /// between them together, instead of the one its `max_tokens` gives
    /// (the `mcp-host` program's `--api-timeout`).
    ///
    /// ```
    /// use mcp_host::provider::{Anthropic, ApiClient};
    /// use std::time::Duration;
    ///
    /// let claude = Anthropic::new("https://api.anthropic.com", Some("sk-ant-…"))
    ///     .unwrap()
    ///     .with_client(ApiClient::new().deadline(Duration::from_secs(120)));
    /// # drop(claude);
    /// ```
    pub fn deadline(mut self, deadline: Duration) -> ApiClient {
        self.deadline = Some(deadline);
        self
    }

    /// Sets how long a response's body may go without a byte once its
    /// headers have come before the attempt ends (it is retried, within
    /// the request's deadline).
    pub fn stall_timeout(mut self, stall: Duration) -> ApiClient {
        self.stall = stall;
        self
    }

    /// POSTs `body` as JSON to `endpoint` and returns the parsed 2xx
    /// response, retrying what the SDKs retry within the request's deadline;
    /// a response larger than `max_tokens` allows is refused unparsed (see
    /// [`ApiClient`]).
    pub async fn post<B: serde::Serialize + ?Sized>(
        &self,
        endpoint: &ApiEndpoint,
        body: &B,
        max_tokens: u32,
    ) -> Result<Value, ProviderError> {
        let bytes = self.exchange(endpoint, body, max_tokens, None).await?;
        parse(endpoint, &bytes, max_tokens)
    }

    /// POSTs `body` (which asks for a stream) as JSON to `endpoint` and
    /// feeds the 2xx response's server-sent events to `assembler` as they
    /// come, text pieces to `on_delta`; returns the assembled reply.
    /// Failures before the response's headers are retried as
    /// [`post`](Self::post)'s are; once events have come, a broken stream
    /// ends the request (a retry would replay what was shown). The body is
    /// bounded as a whole response is, each event by
    /// [`EVENT_LIMIT`](super::stream::EVENT_LIMIT).
    pub async fn post_streamed<B: serde::Serialize + ?Sized>(
        &self,
        endpoint: &ApiEndpoint,
        body: &B,
        max_tokens: u32,
        mut assembler: Box<dyn Assembler>,
        on_delta: &mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Result<Reply, ProviderError> {
        let mut stream = Streamed {
            reader: EventReader::new(&endpoint.api),
            assembler: assembler.as_mut(),
            on_delta,
            began: false,
        };
        self.exchange(endpoint, body, max_tokens, Some(&mut stream))
            .await?;
        assembler.finish()
    }

    /// One model request, its attempts and retries: the 2xx body, or
    /// nothing when `stream` took it.
    async fn exchange<B: serde::Serialize + ?Sized>(
        &self,
        endpoint: &ApiEndpoint,
        body: &B,
        max_tokens: u32,
        mut stream: Option<&mut Streamed<'_>>,
    ) -> Result<Bytes, ProviderError> {
        let body = serde_json::to_vec(body).map_err(|e| ProviderError::Config {
            reason: format!("the request could not be written: {e}"),
        })?;
        let body = Bytes::from(body);
        let limit = response_limit(max_tokens);
        let budget = self
            .deadline
            .unwrap_or_else(|| request_deadline(max_tokens));
        let deadline = tokio::time::Instant::now() + budget;
        let mut attempt = 1;
        loop {
            let exchange = self.attempt(endpoint, body.clone(), limit, stream.as_deref_mut());
            let outcome = tokio::time::timeout_at(deadline, exchange).await;
            if stream.as_ref().is_some_and(|stream| stream.began) {
                // Events have been shown: no retry replays them.
                return match outcome {
                    Ok(Ok(_)) => Ok(Bytes::new()),
                    Ok(Err(error)) => Err(error),
                    Err(_) => Err(ProviderError::Timeout {
                        api: endpoint.api.clone(),
                        after: budget,
                        attempts: attempt,
                    }),
                };
            }
            let Ok(outcome) = outcome else {
                return Err(ProviderError::Timeout {
                    api: endpoint.api.clone(),
                    after: budget,
                    attempts: attempt,
                });
            };
            let (error, asked) = match outcome {
                Ok((status, _, bytes)) if status.is_success() => return Ok(bytes),
                Ok((status, headers, bytes)) => {
                    let body = error_body(&bytes);
                    let message = message_of(status, body.as_ref(), &bytes);
                    let retry = should_retry(status, &headers);
                    let overflow = body
                        .as_ref()
                        .is_some_and(|body| is_context_overflow(status.as_u16(), body));
                    let error = match status.as_u16() {
                        401 | 403 => ProviderError::Auth {
                            status: status.as_u16(),
                            key_variable: endpoint.key_variable.clone(),
                            message,
                        },
                        code if overflow => ProviderError::ContextOverflow {
                            api: endpoint.api.clone(),
                            status: code,
                            message,
                        },
                        code => ProviderError::Api {
                            api: endpoint.api.clone(),
                            status: code,
                            message,
                            attempts: attempt,
                        },
                    };
                    let asked = retry.then(|| retry_wait(&headers, SystemTime::now()));
                    (error, asked)
                }
                Err(ProviderError::Network { reason, .. }) => (
                    ProviderError::Network {
                        api: endpoint.api.clone(),
                        reason,
                        attempts: attempt,
                    },
                    Some(None),
                ),
                Err(ProviderError::Timeout { after, .. }) => (
                    ProviderError::Timeout {
                        api: endpoint.api.clone(),
                        after,
                        attempts: attempt,
                    },
                    Some(None),
                ),
                Err(ProviderError::Stalled { after, .. }) => (
                    ProviderError::Stalled {
                        api: endpoint.api.clone(),
                        after,
                        attempts: attempt,
                    },
                    Some(None),
                ),
                Err(other) => return Err(other),
            };
            let Some(asked) = asked.filter(|_| attempt < MAX_ATTEMPTS) else {
                return Err(error);
            };
            let wait = asked.unwrap_or_else(|| backoff(attempt, fastrand::f64()));
            // A retry that could only start after the deadline is not made:
            // the error the host has is the one it reports.
            if tokio::time::Instant::now() + wait >= deadline {
                return Err(error);
            }
            tracing::warn!(
                api = %endpoint.api,
                attempt,
                wait_ms = wait.as_millis() as u64,
                %error,
                "retrying the model request"
            );
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    async fn attempt(
        &self,
        endpoint: &ApiEndpoint,
        body: Bytes,
        limit: usize,
        mut stream: Option<&mut Streamed<'_>>,
    ) -> Result<(StatusCode, HeaderMap, Bytes), ProviderError> {
        let mut request = hyper::Request::builder()
            .method(Method::POST)
            .uri(endpoint.uri.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(body))
            .map_err(|e| ProviderError::Config {
                reason: format!("the request could not be made: {e}"),
            })?;
        for (name, value) in &endpoint.headers {
            request.headers_mut().insert(name, value.clone());
        }
        let network = |reason: String| ProviderError::Network {
            api: endpoint.api.clone(),
            reason,
            attempts: 1,
        };
        let too_large = || ProviderError::TooLarge {
            api: endpoint.api.clone(),
            reason: format!(
                "was larger than {limit} bytes, the bound for this request's max_tokens; it was not read"
            ),
        };
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| network(chain(&e)))?;
            let (parts, body) = response.into_parts();
            // Refused before a byte of the body is read when it says its
            // size; the connection is dropped, not drained.
            let declared = parts
                .headers
                .get(CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            if declared.is_some_and(|length| length > limit as u64) {
                return Err(too_large());
            }
            let mut body = Limited::new(body, limit);
            // A stream's events go to its assembler as they come; an error
            // response is read whole, as always.
            let mut stream = stream.take().filter(|_| parts.status.is_success());
            if let Some(stream) = stream.as_deref_mut() {
                stream.began = true;
            }
            let mut bytes = Vec::with_capacity(declared.map_or(0, |length| length as usize));
            loop {
                let frame = tokio::time::timeout(self.stall, body.frame())
                    .await
                    .map_err(|_| ProviderError::Stalled {
                        api: endpoint.api.clone(),
                        after: self.stall,
                        attempts: 1,
                    })?;
                match frame {
                    None => break,
                    Some(Ok(frame)) => {
                        if let Some(data) = frame.data_ref() {
                            match stream.as_deref_mut() {
                                Some(stream) => stream.feed(data)?,
                                None => bytes.extend_from_slice(data),
                            }
                        }
                    }
                    Some(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
                        return Err(too_large());
                    }
                    Some(Err(e)) => {
                        return Err(network(format!("the response broke off: {}", chain(&*e))));
                    }
                }
            }
            Ok((parts.status, parts.headers, Bytes::from(bytes)))
        };
        tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| ProviderError::Timeout {
                api: endpoint.api.clone(),
                after: self.timeout,
                attempts: 1,
            })?
    }
}

/// A streamed response being read.
struct Streamed<'a> {
    reader: EventReader,
    assembler: &'a mut dyn Assembler,
    on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    /// Its 2xx headers have come: no retry from here.
    began: bool,
}

impl Streamed<'_> {
    fn feed(&mut self, bytes: &[u8]) -> Result<(), ProviderError> {
        self.reader.feed(bytes, self.assembler, self.on_delta)
    }
}

/// A 2xx body as JSON, refused unparsed when its tree would pass
/// [`tree_limit`].
fn parse(endpoint: &ApiEndpoint, bytes: &[u8], max_tokens: u32) -> Result<Value, ProviderError> {
    JsonBudget::new(tree_limit(max_tokens))
        .check(bytes)
        .map_err(|over| ProviderError::TooLarge {
            api: endpoint.api.clone(),
            reason: format!("was refused unparsed ({} bytes): {over}", bytes.len()),
        })?;
    serde_json::from_slice(bytes).map_err(|e| ProviderError::InvalidResponse {
        api: endpoint.api.clone(),
        reason: format!(
            "not JSON ({e}): {}",
            excerpt(&String::from_utf8_lossy(bytes), ERROR_EXCERPT)
        ),
    })
}

/// Whether the SDKs retry a response of `status`: as `x-should-retry`
/// says, else 408, 409, 429 and 5xx.
fn should_retry(status: StatusCode, headers: &HeaderMap) -> bool {
    match headers
        .get("x-should-retry")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
    {
        Some(v) if v.eq_ignore_ascii_case("true") => true,
        Some(v) if v.eq_ignore_ascii_case("false") => false,
        _ => matches!(status.as_u16(), 408 | 409 | 429) || status.is_server_error(),
    }
}

/// The wait before retry `attempt` (1 for the first) when the response
/// names none: 0.5 s doubling, at most 8 s, less `jitter` (in `[0, 1)`) of
/// a quarter.
fn backoff(attempt: u32, jitter: f64) -> Duration {
    let doubled = INITIAL_BACKOFF.saturating_mul(1 << (attempt - 1).min(16));
    doubled
        .min(MAX_BACKOFF)
        .mul_f64(1.0 - 0.25 * jitter.clamp(0.0, 1.0))
}

/// An error response's body as JSON, when it is JSON and small enough to
/// parse for nothing: an error body is a few hundred bytes, and a hostile
/// one is quoted, cut, instead.
fn error_body(body: &[u8]) -> Option<Value> {
    JsonBudget::new(MIN_TREE_BYTES >> 4)
        .check(body)
        .ok()
        .and_then(|_| serde_json::from_slice(body).ok())
}

/// The API's message for an error response (`parsed` its [`error_body`]),
/// else an excerpt of its body.
fn message_of(status: StatusCode, parsed: Option<&Value>, body: &[u8]) -> String {
    if let Some(message) = parsed.and_then(error_message) {
        return excerpt(message, 4 * ERROR_EXCERPT);
    }
    let text = excerpt(&String::from_utf8_lossy(body), ERROR_EXCERPT);
    if text.is_empty() {
        status.canonical_reason().unwrap_or("no message").to_owned()
    } else {
        text
    }
}

/// The wait a response asks for: `retry-after-ms`, else `retry-after` in
/// seconds or as an HTTP date (relative to `now`), at most
/// [`MAX_RETRY_WAIT`].
fn retry_wait(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
    let wait = if let Some(ms) = value("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        Duration::try_from_secs_f64(ms / 1000.0).ok()?
    } else {
        let after = value("retry-after")?;
        match after.parse::<f64>() {
            Ok(seconds) => Duration::try_from_secs_f64(seconds).ok()?,
            Err(_) => {
                let date = httpdate::parse_http_date(after).ok()?;
                date.duration_since(now).unwrap_or(Duration::ZERO)
            }
        }
    };
    Some(wait.min(MAX_RETRY_WAIT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_and_the_response_bound_follow_max_tokens() {
        assert_eq!(request_deadline(1024), Duration::from_secs(60));
        assert_eq!(request_deadline(8192), Duration::from_secs(410));
        assert_eq!(response_limit(1024), MIN_RESPONSE_BYTES);
        assert_eq!(response_limit(64_000), 64_000 * 64);
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_is_read_in_seconds_milliseconds_and_dates_and_capped() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            retry_wait(&headers(&[("retry-after", "2")]), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_wait(&headers(&[("retry-after", "0.25")]), now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_wait(
                &headers(&[("retry-after-ms", "150"), ("retry-after", "9")]),
                now
            ),
            Some(Duration::from_millis(150))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(5));
        assert_eq!(
            retry_wait(&headers(&[("retry-after", &date)]), now),
            Some(Duration::from_secs(5))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(5));
        assert_eq!(
            retry_wait(&headers(&[("retry-after", &past)]), now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            retry_wait(&headers(&[("retry-after", "3600")]), now),
            Some(MAX_RETRY_WAIT)
        );
        assert_eq!(retry_wait(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_wait(&headers(&[("retry-after", "-1")]), now), None);
        assert_eq!(retry_wait(&HeaderMap::new(), now), None);
    }

    #[test]
    fn the_sdks_statuses_are_retried_unless_the_api_says_otherwise() {
        for code in [408, 409, 429, 500, 502, 503, 504, 529] {
            let status = StatusCode::from_u16(code).unwrap();
            assert!(should_retry(status, &HeaderMap::new()), "{code}");
            assert!(
                !should_retry(status, &headers(&[("x-should-retry", "false")])),
                "{code}"
            );
        }
        for code in [400, 401, 403, 404, 413, 422] {
            let status = StatusCode::from_u16(code).unwrap();
            assert!(!should_retry(status, &HeaderMap::new()), "{code}");
            assert!(
                should_retry(status, &headers(&[("x-should-retry", "True")])),
                "{code}"
            );
        }
    }

    #[test]
    fn backoff_doubles_to_eight_seconds_less_a_random_quarter() {
        assert_eq!(backoff(1, 0.0), Duration::from_millis(500));
        assert_eq!(backoff(2, 0.0), Duration::from_secs(1));
        assert_eq!(backoff(5, 0.0), Duration::from_secs(8));
        assert_eq!(backoff(40, 0.0), Duration::from_secs(8));
        assert_eq!(backoff(1, 1.0), Duration::from_millis(375));
        assert_eq!(backoff(2, 0.5), Duration::from_millis(875));
    }

    #[test]
    fn the_response_bound_follows_max_tokens_between_its_floor_and_ceiling() {
        assert_eq!(response_limit(1), MIN_RESPONSE_BYTES);
        assert_eq!(response_limit(1024), MIN_RESPONSE_BYTES);
        assert_eq!(response_limit(128_000), 128_000 * 64);
        assert_eq!(response_limit(u32::MAX), MAX_RESPONSE_BYTES);
        assert_eq!(tree_limit(1024), 16 << 20);
        assert_eq!(tree_limit(128_000), 4 * 128_000 * 64);
    }

    #[test]
    fn the_deadline_is_max_tokens_at_twenty_tokens_a_second_and_at_least_a_minute() {
        let secs = |max_tokens| request_deadline(max_tokens).as_secs();
        assert_eq!(secs(1), 60);
        assert_eq!(secs(1024), 60);
        assert_eq!(secs(1200), 60);
        assert_eq!(secs(1201), 61);
        assert_eq!(secs(8192), 410);
        assert_eq!(secs(64_000), 3200);
        assert_eq!(secs(u32::MAX), u64::from(u32::MAX.div_ceil(20)));
    }

    #[test]
    fn error_messages_come_from_either_apis_body_or_the_body_itself() {
        let anthropic = br#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}"#;
        assert_eq!(
            message_of(
                StatusCode::BAD_REQUEST,
                error_body(anthropic).as_ref(),
                anthropic
            ),
            "max_tokens: Field required"
        );
        let openai = br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(
            message_of(
                StatusCode::UNAUTHORIZED,
                error_body(openai).as_ref(),
                openai
            ),
            "Incorrect API key provided"
        );
        assert_eq!(
            message_of(
                StatusCode::BAD_GATEWAY,
                error_body(b"<html>bad gateway</html>").as_ref(),
                b"<html>bad gateway</html>"
            ),
            "<html>bad gateway</html>"
        );
        assert_eq!(
            message_of(StatusCode::BAD_GATEWAY, error_body(b"").as_ref(), b""),
            "Bad Gateway"
        );
    }
}
