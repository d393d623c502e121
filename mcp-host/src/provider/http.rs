//! The HTTP every model API shares: one pooled HTTPS client (rustls, the
//! Mozilla roots compiled in), a timeout per attempt, the retries the APIs
//! ask for, and their errors mapped to [`ProviderError`].
//!
//! Retried: 429 (rate limit), 503 (unavailable) and 529 (Anthropic's
//! "overloaded"), at most [`MAX_ATTEMPTS`] requests in all, waiting what
//! the response's `retry-after-ms` or `retry-after` (seconds, or an HTTP
//! date) says, at most [`MAX_RETRY_WAIT`], else 0.5 s and then 1 s: the
//! official SDKs' schedule. Nothing else is retried: a 401/403 will not
//! heal, another 4xx is the request's fault, and a network failure or a
//! timeout after the request was sent may have been a response already
//! paid for.

use super::{ProviderError, error_message};
use crate::client::error::excerpt;
use crate::client::http::{Connector, chain, connector};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::fmt;
use std::time::{Duration, SystemTime};

/// Requests made in all for one model request that keeps getting 429, 503
/// or 529.
pub const MAX_ATTEMPTS: u32 = 3;
/// The longest wait a `retry-after` is honoured for.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);
/// The waits when the response names none.
const BACKOFF: [Duration; 2] = [Duration::from_millis(500), Duration::from_secs(1)];
/// The statuses retried.
const RETRIED: [u16; 3] = [429, 503, 529];
/// The largest response read (a response is a few KiB to a few MiB).
const MAX_RESPONSE_BYTES: usize = 64 << 20;
/// How much of a non-JSON error body is quoted.
const ERROR_EXCERPT: usize = 300;

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
}

impl fmt::Debug for ApiEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The headers carry the key: their names only.
        f.debug_struct("ApiEndpoint")
            .field("uri", &self.uri)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("key_variable", &self.key_variable)
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
        })
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
#[derive(Clone)]
pub struct ApiClient {
    client: Client<Connector, Full<Bytes>>,
    timeout: Duration,
}

impl fmt::Debug for ApiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiClient")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Default for ApiClient {
    fn default() -> Self {
        ApiClient::new()
    }
}

impl ApiClient {
    /// A client with a 10-minute timeout per attempt (the official SDKs'
    /// default: a long response is slow) and a 10 s connect timeout.
    pub fn new() -> ApiClient {
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(90))
            .build(connector(Duration::from_secs(10)));
        ApiClient {
            client,
            timeout: Duration::from_secs(600),
        }
    }

    /// Sets the timeout of each attempt.
    pub fn timeout(mut self, timeout: Duration) -> ApiClient {
        self.timeout = timeout;
        self
    }

    /// POSTs `body` as JSON to `endpoint` and returns the parsed 2xx
    /// response, retrying 429/503/529 (see the module docs).
    pub async fn post<B: serde::Serialize + ?Sized>(
        &self,
        endpoint: &ApiEndpoint,
        body: &B,
    ) -> Result<Value, ProviderError> {
        let body = serde_json::to_vec(body).map_err(|e| ProviderError::Config {
            reason: format!("the request could not be written: {e}"),
        })?;
        let body = Bytes::from(body);
        let mut attempt = 1;
        loop {
            let (status, headers, bytes) = self.attempt(endpoint, body.clone()).await?;
            if status.is_success() {
                return serde_json::from_slice(&bytes).map_err(|e| {
                    ProviderError::InvalidResponse {
                        reason: format!(
                            "not JSON ({e}): {}",
                            excerpt(&String::from_utf8_lossy(&bytes), ERROR_EXCERPT)
                        ),
                    }
                });
            }
            let message = message_of(status, &bytes);
            match status.as_u16() {
                401 | 403 => {
                    return Err(ProviderError::Auth {
                        status: status.as_u16(),
                        key_variable: endpoint.key_variable.clone(),
                        message,
                    });
                }
                code if RETRIED.contains(&code) && attempt < MAX_ATTEMPTS => {
                    let wait = retry_wait(&headers, SystemTime::now())
                        .unwrap_or(BACKOFF[attempt as usize - 1]);
                    tracing::warn!(
                        status = code,
                        attempt,
                        wait_ms = wait.as_millis() as u64,
                        %message,
                        "the model API asks to retry"
                    );
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                code => {
                    return Err(ProviderError::Api {
                        status: code,
                        message,
                        attempts: attempt,
                    });
                }
            }
        }
    }

    async fn attempt(
        &self,
        endpoint: &ApiEndpoint,
        body: Bytes,
    ) -> Result<(StatusCode, HeaderMap, Bytes), ProviderError> {
        let mut request = hyper::Request::builder()
            .method(Method::POST)
            .uri(endpoint.uri.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(body))
            .map_err(|e| ProviderError::Network {
                reason: e.to_string(),
            })?;
        for (name, value) in &endpoint.headers {
            request.headers_mut().insert(name, value.clone());
        }
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| ProviderError::Network { reason: chain(&e) })?;
            let (parts, body) = response.into_parts();
            let bytes = Limited::new(body, MAX_RESPONSE_BYTES)
                .collect()
                .await
                .map_err(|e| ProviderError::Network {
                    reason: format!("the response broke off: {}", chain(&*e)),
                })?
                .to_bytes();
            Ok((parts.status, parts.headers, bytes))
        };
        tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| ProviderError::Timeout {
                after: self.timeout,
            })?
    }
}

/// The API's message for an error response, else an excerpt of its body.
fn message_of(status: StatusCode, body: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    if let Some(message) = parsed.as_ref().and_then(error_message) {
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
    fn error_messages_come_from_either_apis_body_or_the_body_itself() {
        let anthropic = br#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}"#;
        assert_eq!(
            message_of(StatusCode::BAD_REQUEST, anthropic),
            "max_tokens: Field required"
        );
        let openai = br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(
            message_of(StatusCode::UNAUTHORIZED, openai),
            "Incorrect API key provided"
        );
        assert_eq!(
            message_of(StatusCode::BAD_GATEWAY, b"<html>bad gateway</html>"),
            "<html>bad gateway</html>"
        );
        assert_eq!(message_of(StatusCode::BAD_GATEWAY, b""), "Bad Gateway");
    }
}
