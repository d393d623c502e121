//! A response that is not a success: what it says ([`message_of`]),
//! whether the official SDKs retry it ([`should_retry`]), and the wait
//! before the retry ([`retry_wait`], else [`backoff`]).

use super::limits::{ERROR_EXCERPT, MIN_TREE_BYTES};
use crate::provider::error::error_message;
use hyper::StatusCode;
use hyper::header::HeaderMap;
use mcpfn_client::text::excerpt;
use mcpfn_protocol::json_budget::JsonBudget;
use serde_json::Value;
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

/// Whether the SDKs retry a response of `status`: as `x-should-retry`
/// says, else 408, 409, 429 and 5xx.
pub(super) fn should_retry(status: StatusCode, headers: &HeaderMap) -> bool {
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
pub(super) fn backoff(attempt: u32, jitter: f64) -> Duration {
    let doubled = INITIAL_BACKOFF.saturating_mul(1 << (attempt - 1).min(16));
    doubled
        .min(MAX_BACKOFF)
        .mul_f64(1.0 - 0.25 * jitter.clamp(0.0, 1.0))
}

/// An error response's body as JSON, when it is JSON and small enough to
/// parse for nothing: an error body is a few hundred bytes, and a hostile
/// one is quoted, cut, instead.
pub(super) fn error_body(body: &[u8]) -> Option<Value> {
    JsonBudget::new(MIN_TREE_BYTES >> 4)
        .check(body)
        .ok()
        .and_then(|_| serde_json::from_slice(body).ok())
}

/// The API's message for an error response (`parsed` its [`error_body`]),
/// else an excerpt of its body.
pub(super) fn message_of(status: StatusCode, parsed: Option<&Value>, body: &[u8]) -> String {
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
pub(super) fn retry_wait(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
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
    use hyper::header::HeaderValue;

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
