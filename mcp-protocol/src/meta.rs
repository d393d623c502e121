//! The reserved `_meta` keys this server reads or writes, in one place.
//! (The envelope decoder in `params.rs` must spell its keys in serde
//! attributes, which take literals only; a test there checks they match.)

/// The protocol version in a 2026-07-28 request envelope.
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The client capabilities in a 2026-07-28 request envelope.
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The client's name and version in a 2026-07-28 request envelope.
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The per-request log level (2026-07-28).
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The server's identity on 2026-07-28 results.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Tags the messages of a `subscriptions/listen` stream (2026-07-28).
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// The progress token of a request (every revision).
pub const PROGRESS_TOKEN: &str = "progressToken";

/// The longest `progressToken` accepted, in bytes (a string's UTF-8, a
/// number's digits): 256. Every progress notification repeats the token, so
/// an unbounded one would let a single request multiply its size by the
/// number of notifications its call sends.
pub const MAX_PROGRESS_TOKEN_LEN: usize = 256;

/// The length of a request's `progressToken` (as sent, read by the one
/// parse of its params) when it is over [`MAX_PROGRESS_TOKEN_LEN`]: a
/// string's decoded UTF-8, any other value's text.
pub fn oversized_progress_token(token: &serde_json::value::RawValue) -> Option<usize> {
    let token = token.get();
    if token.len() <= MAX_PROGRESS_TOKEN_LEN {
        // Escapes only make a string longer than what it decodes to.
        return None;
    }
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
pub const TOOL_SCOPES: &str = "rs.mcp-runtime/scopes";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;
    use serde_json::value::RawValue;

    /// The oversized length of the token in `_meta` text `meta`, read as
    /// a request's params are.
    fn oversized(meta: &str) -> Option<usize> {
        let params = RawValue::from_string(format!(r#"{{"_meta":{meta}}}"#)).unwrap();
        let params = Params::parse(Some(&params)).unwrap();
        params
            .meta?
            .progress_token
            .and_then(oversized_progress_token)
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
