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
//!   [`SLOWEST_TOKENS_PER_SECOND`](limits::SLOWEST_TOKENS_PER_SECOND)),
//!   or what [`ApiClient::deadline`] sets.
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
//! [`MAX_RETRY_WAIT`](retry::MAX_RETRY_WAIT), else 0.5 s, then 1 s
//! (doubling, at most 8 s), each
//! less a random quarter so that many hosts do not retry in step.
//!
//! **Responses** are bounded by what the request allows the model to write:
//! [`response_limit`] bytes for its `max_tokens`, and a parsed tree of at
//! most [`tree_limit`] bytes, checked on the bytes
//! ([`JsonBudget`](mcpfn_protocol::json_budget::JsonBudget)) before they
//! are parsed. A response of tiny JSON objects
//! costs about 90 bytes of memory per byte once parsed; the check refuses it
//! first. A response over either bound is [`ProviderError::TooLarge`] and is
//! not retried (the same request would get the same response).

mod attempt;
mod endpoint;
mod limits;
mod retry;

use super::error::is_context_overflow;
use super::stream::{Assembler, Delta, EventReader};
use super::{ProviderError, Reply};
use attempt::Streamed;
use bytes::Bytes;
pub use endpoint::{ApiEndpoint, from_env};
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
pub(crate) use limits::tree_limit;
use limits::{DEFAULT_STALL_TIMEOUT, parse, request_deadline, response_limit};
use mcpfn_client::http::{Connector, connector};
use retry::{MAX_ATTEMPTS, backoff, error_body, message_of, retry_wait, should_retry};
use serde_json::Value;
use std::fmt;
use std::time::{Duration, SystemTime};

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
    /// use mcpfn_host::provider::{Anthropic, ApiClient};
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
}
