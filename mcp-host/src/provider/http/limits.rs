//! What a model request may take and what its response may cost, both
//! from its `max_tokens`: the deadline of all its attempts, the bytes of
//! the response and the memory of its parsed tree ([`parse`]).

use super::ApiEndpoint;
use crate::provider::ProviderError;
use mcpfn_client::text::excerpt;
use mcpfn_protocol::json_budget::JsonBudget;
use serde_json::Value;
use std::time::Duration;

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
pub(super) const MIN_TREE_BYTES: usize = 16 << 20;
/// How much of a non-JSON error body is quoted.
pub(super) const ERROR_EXCERPT: usize = 300;
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

/// A 2xx body as JSON, refused unparsed when its tree would pass
/// [`tree_limit`].
pub(super) fn parse(
    endpoint: &ApiEndpoint,
    bytes: &[u8],
    max_tokens: u32,
) -> Result<Value, ProviderError> {
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
}
