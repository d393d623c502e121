//! Why a model request produced no response, whatever the API
//! ([`ProviderError`]), where both APIs put their error's message, and
//! which of their refusals mean "the conversation does not fit the model's
//! context window" ([`is_context_overflow`]).

use serde_json::Value;
use std::time::Duration;

/// Why a model request produced no response.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// 401 or 403: the key is missing, wrong, or not allowed this model.
    /// Retrying cannot help; a program should stop.
    #[error("the API refused the key (HTTP {status}): {message}; check {key_variable}")]
    Auth {
        /// The HTTP status.
        status: u16,
        /// The variable the key is read from (`ANTHROPIC_API_KEY`).
        key_variable: String,
        /// The API's `error.message`.
        message: String,
    },
    /// Any other error status (after the retries, for the statuses
    /// retried): the API refused the request.
    #[error("{api} refused the request (HTTP {status}{}): {message}", after_attempts(*.attempts))]
    Api {
        /// The API (`the Anthropic API`).
        api: String,
        /// The HTTP status.
        status: u16,
        /// The API's `error.message`, or an excerpt of the body.
        message: String,
        /// How many requests were made.
        attempts: u32,
    },
    /// The request does not fit the model's context window: the history,
    /// the system prompt and the tools, with room for `max_tokens`, are
    /// more tokens than the model reads (Anthropic: 400 `prompt is too
    /// long: N tokens > M maximum`; OpenAI: 400 `context_length_exceeded`).
    /// Only a shorter history helps; the agent trims and retries once.
    #[error(
        "{api} refused the request: the conversation does not fit the model's context window (HTTP {status}): {message}"
    )]
    ContextOverflow {
        /// The API (`the Anthropic API`).
        api: String,
        /// The HTTP status (400).
        status: u16,
        /// The API's `error.message`.
        message: String,
    },
    /// The API could not be reached, or the connection broke (after the
    /// retries).
    #[error("{api} could not be reached: {reason}{}", attempts_note(*.attempts))]
    Network {
        /// The API (`the Anthropic API`).
        api: String,
        /// What happened.
        reason: String,
        /// How many requests were made.
        attempts: u32,
    },
    /// No response in time: the request's deadline passed (all attempts
    /// together), or each attempt's timeout did.
    #[error("{api} did not answer within {} s{}", .after.as_secs_f64(), attempts_note(*.attempts))]
    Timeout {
        /// The API (`the Anthropic API`).
        api: String,
        /// The deadline of the request, or of each attempt when that ran
        /// out first.
        after: Duration,
        /// How many requests were made.
        attempts: u32,
    },
    /// The response's body stopped: no byte for `after` once its headers
    /// had come (after the retries the deadline allowed).
    #[error("{api} stopped sending its response: no bytes for {} s{}", .after.as_secs_f64(), attempts_note(*.attempts))]
    Stalled {
        /// The API (`the Anthropic API`).
        api: String,
        /// The stall bound.
        after: Duration,
        /// How many requests were made.
        attempts: u32,
    },
    /// The response was larger than the request's `max_tokens` allows;
    /// it was not parsed.
    #[error("{api}'s response {reason}")]
    TooLarge {
        /// The API (`the Anthropic API`).
        api: String,
        /// What was too large, after "the API's response".
        reason: String,
    },
    /// The provider cannot be set up (a base URL that is not one, a key
    /// that cannot go in a header).
    #[error("{reason}")]
    Config {
        /// What is wrong.
        reason: String,
    },
    /// A 2xx response that is not the API's response shape.
    #[error("{api}'s response could not be read: {reason}")]
    InvalidResponse {
        /// The API (`the Anthropic API`).
        api: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl ProviderError {
    /// Whether this is a 401/403 (the key), after which nothing will work.
    pub fn is_auth(&self) -> bool {
        matches!(self, ProviderError::Auth { .. })
    }

    /// Whether the request did not fit the model's context window
    /// ([`ProviderError::ContextOverflow`]): a shorter history may pass.
    pub fn is_context_overflow(&self) -> bool {
        matches!(self, ProviderError::ContextOverflow { .. })
    }
}

/// What Anthropic's 400s say when the input does not fit: `prompt is too
/// long: 208310 tokens > 200000 maximum`, and, from newer models, `input
/// length and `max_tokens` exceed context limit: …`.
const ANTHROPIC_OVERFLOW: [&str; 2] = ["prompt is too long", "exceed context limit"];

/// OpenAI's `error.code` when the input does not fit (`This model's
/// maximum context length is 8192 tokens. However, your messages resulted
/// in 8227 tokens…`).
const OPENAI_OVERFLOW_CODE: &str = "context_length_exceeded";

/// Whether an error response of `status` with `body` says that the request
/// does not fit the model's context window: a 400 whose `error.code` is
/// OpenAI's `context_length_exceeded`, or whose `error.type` is
/// `invalid_request_error` and `error.message` says so the way Anthropic
/// does. Any other 400 (a malformed request) is not: trimming the history
/// would not help it.
pub(crate) fn is_context_overflow(status: u16, body: &Value) -> bool {
    if status != 400 {
        return false;
    }
    let Some(error) = body.get("error") else {
        return false;
    };
    if error.get("code").and_then(Value::as_str) == Some(OPENAI_OVERFLOW_CODE) {
        return true;
    }
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    error.get("type").and_then(Value::as_str) == Some("invalid_request_error")
        && ANTHROPIC_OVERFLOW
            .iter()
            .any(|phrase| message.to_ascii_lowercase().contains(phrase))
}

/// `, after N attempts` when there was more than one.
fn after_attempts(attempts: u32) -> String {
    if attempts > 1 {
        format!(", after {attempts} attempts")
    } else {
        String::new()
    }
}

/// ` (N attempts)` when there was more than one.
fn attempts_note(attempts: u32) -> String {
    if attempts > 1 {
        format!(" ({attempts} attempts)")
    } else {
        String::new()
    }
}

/// The API's `error.message` (both APIs put it there:
/// `{"type":"error","error":{"type","message"}}`,
/// `{"error":{"message","type","code"}}`).
pub(crate) fn error_message(body: &Value) -> Option<&str> {
    body.get("error")?.get("message")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_message_says_the_api_and_the_attempts_beyond_the_first() {
        let api = || "the Anthropic API".to_owned();
        let cases = [
            (
                ProviderError::Auth {
                    status: 401,
                    key_variable: "ANTHROPIC_API_KEY".into(),
                    message: "invalid x-api-key".into(),
                },
                "the API refused the key (HTTP 401): invalid x-api-key; check ANTHROPIC_API_KEY",
            ),
            (
                ProviderError::Api {
                    api: api(),
                    status: 400,
                    message: "bad".into(),
                    attempts: 1,
                },
                "the Anthropic API refused the request (HTTP 400): bad",
            ),
            (
                ProviderError::Api {
                    api: api(),
                    status: 529,
                    message: "Overloaded".into(),
                    attempts: 3,
                },
                "the Anthropic API refused the request (HTTP 529, after 3 attempts): Overloaded",
            ),
            (
                ProviderError::ContextOverflow {
                    api: api(),
                    status: 400,
                    message: "prompt is too long: 7612 tokens > 7500 maximum".into(),
                },
                "the Anthropic API refused the request: the conversation does not fit the model's context window (HTTP 400): prompt is too long: 7612 tokens > 7500 maximum",
            ),
            (
                ProviderError::Network {
                    api: api(),
                    reason: "connection refused".into(),
                    attempts: 2,
                },
                "the Anthropic API could not be reached: connection refused (2 attempts)",
            ),
            (
                ProviderError::Timeout {
                    api: api(),
                    after: Duration::from_millis(1500),
                    attempts: 1,
                },
                "the Anthropic API did not answer within 1.5 s",
            ),
            (
                ProviderError::Stalled {
                    api: api(),
                    after: Duration::from_secs(20),
                    attempts: 3,
                },
                "the Anthropic API stopped sending its response: no bytes for 20 s (3 attempts)",
            ),
            (
                ProviderError::TooLarge {
                    api: api(),
                    reason: "is larger than 5 MB".into(),
                },
                "the Anthropic API's response is larger than 5 MB",
            ),
            (
                ProviderError::Config {
                    reason: "not a URL".into(),
                },
                "not a URL",
            ),
            (
                ProviderError::InvalidResponse {
                    api: api(),
                    reason: "no `content` array".into(),
                },
                "the Anthropic API's response could not be read: no `content` array",
            ),
        ];
        for (error, expected) in cases {
            assert_eq!(error.to_string(), expected);
        }
    }

    #[test]
    fn both_apis_context_overflows_are_told_from_other_400s() {
        use serde_json::json;
        let claude = |kind: &str, message: &str| json!({"type": "error", "error": {"type": kind, "message": message}});
        let openai = |code: Value, message: &str| json!({"error": {"message": message, "type": "invalid_request_error", "param": "messages", "code": code}});
        let overflows = [
            claude(
                "invalid_request_error",
                "prompt is too long: 208310 tokens > 200000 maximum",
            ),
            claude(
                "invalid_request_error",
                "input length and `max_tokens` exceed context limit: 197845 + 8192 > 200000",
            ),
            openai(
                json!("context_length_exceeded"),
                "This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens.",
            ),
        ];
        for body in &overflows {
            assert!(is_context_overflow(400, body), "{body}");
            assert!(!is_context_overflow(500, body), "{body}");
        }
        let others = [
            claude(
                "invalid_request_error",
                "messages: roles must alternate between \"user\" and \"assistant\"",
            ),
            claude("overloaded_error", "prompt is too long"),
            openai(Value::Null, "Invalid 'messages[2].tool_call_id'"),
            json!({"message": "prompt is too long"}),
        ];
        for body in &others {
            assert!(!is_context_overflow(400, body), "{body}");
        }
    }
}
