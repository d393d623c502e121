//! The reserved `_meta` keys this server reads or writes, in one place.
//! (The envelope decoder in `params.rs` must spell its keys in serde
//! attributes, which take literals only; a test there checks they match.)

/// The protocol version in a 2026-07-28 request envelope.
pub(crate) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The client capabilities in a 2026-07-28 request envelope.
pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The client's name and version in a 2026-07-28 request envelope.
pub(crate) const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The per-request log level (2026-07-28).
pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The server's identity on 2026-07-28 results.
pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Tags the messages of a `subscriptions/listen` stream (2026-07-28).
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// The progress token of a request (every revision).
pub(crate) const PROGRESS_TOKEN: &str = "progressToken";

/// The longest `progressToken` accepted, in bytes (a string's UTF-8, a
/// number's digits): 256. Every progress notification repeats the token, so
/// an unbounded one would let a single request multiply its size by the
/// number of notifications its call sends.
pub(crate) const MAX_PROGRESS_TOKEN_LEN: usize = 256;

/// The length of the `progressToken` in the request `_meta` `meta` when it
/// is over [`MAX_PROGRESS_TOKEN_LEN`]; `None` when there is none, or it is
/// within the limit, or `meta` is not an object (that is reported where
/// `_meta` is read).
pub(crate) fn oversized_progress_token(meta: &serde_json::value::RawValue) -> Option<usize> {
    #[derive(serde::Deserialize)]
    struct Token<'a> {
        #[serde(rename = "progressToken", default, borrow)]
        token: Option<&'a serde_json::value::RawValue>,
    }
    let raw = meta.get();
    // A token over the limit needs a `_meta` over it too, and its key is
    // spelled out or escaped: most requests are settled without parsing.
    if raw.len() <= MAX_PROGRESS_TOKEN_LEN || !(raw.contains(PROGRESS_TOKEN) || raw.contains('\\'))
    {
        return None;
    }
    let token = serde_json::from_str::<Token<'_>>(raw).ok()?.token?.get();
    let len = if token.starts_with('"') {
        serde_json::from_str::<std::borrow::Cow<'_, str>>(token).map_or(token.len(), |t| t.len())
    } else {
        token.len()
    };
    (len > MAX_PROGRESS_TOKEN_LEN).then_some(len)
}
/// The OAuth scopes a tool needs (`_meta` of a tool definition). This
/// crate's own prefix: `io.modelcontextprotocol/` is reserved for the
/// specification, and it defines no such key.
pub(crate) const TOOL_SCOPES: &str = "rs.mcp-runtime/scopes";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    fn oversized(meta: &str) -> Option<usize> {
        oversized_progress_token(&RawValue::from_string(meta.to_owned()).unwrap())
    }

    #[test]
    fn a_progress_token_over_the_limit_is_measured_however_it_is_spelled() {
        let long = "t".repeat(MAX_PROGRESS_TOKEN_LEN + 1);
        let at_limit = "t".repeat(MAX_PROGRESS_TOKEN_LEN);
        let pad = "p".repeat(300);
        assert_eq!(
            oversized(&format!(r#"{{"progressToken":"{long}"}}"#)),
            Some(257)
        );
        assert_eq!(
            oversized(&format!(r#"{{"progressToken":"{at_limit}","x":"{pad}"}}"#)),
            None
        );
        // An escaped key is the same key; escapes count as what they decode to.
        assert_eq!(
            oversized(&format!(r#"{{"progress\u0054oken":"{long}"}}"#)),
            Some(257)
        );
        let escaped = "\\u0074".repeat(MAX_PROGRESS_TOKEN_LEN);
        assert_eq!(
            oversized(&format!(r#"{{"progressToken":"{escaped}"}}"#)),
            None
        );
        let digits = "9".repeat(300);
        assert_eq!(
            oversized(&format!(r#"{{"progressToken":{digits}}}"#)),
            Some(300)
        );
        assert_eq!(oversized(&format!(r#"{{"other":"{long}"}}"#)), None);
        assert_eq!(
            oversized(&format!(r#"{{"progressToken":7,"other":"{long}"}}"#)),
            None
        );
    }
}
