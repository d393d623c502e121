//! The reserved `_meta` keys this server reads or writes, in one place, and
//! the one typed struct of a request's envelope ([`Envelope`]) that both the
//! server's parse of incoming params and a client's outgoing requests use.
//! (Its serde attributes take literals only; a test checks they match the
//! constants here.)

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;

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
#[doc(hidden)]
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

/// The reserved keys of a request's `params._meta`, each of its type: the
/// 2026-07-28 envelope and the progress token of any revision.
///
/// One struct both ways: the server reads incoming params into it (in
/// `mcp-runtime`'s one parse of a request's params, strictly: a key of the
/// wrong type is refused with a message naming it, a repeated key is
/// refused), and a client serializes its outgoing requests' `_meta` from
/// it. Two decoders of the envelope that disagreed once let a forged
/// `_meta` past a scope check; there is no second one. Borrowed from the
/// message on the server; a client fills it with owned values.
///
/// ```
/// use mcpfn_protocol::meta::Envelope;
/// let envelope = Envelope::new("2026-07-28", "{}", r#"{"name":"c","version":"1"}"#).unwrap();
/// let json = serde_json::to_string(&envelope).unwrap();
/// assert!(json.contains(r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#));
/// ```
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Envelope<'a> {
    /// `io.modelcontextprotocol/protocolVersion`: a string.
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        default,
        borrow,
        deserialize_with = "protocol_version",
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol_version: Option<Cow<'a, str>>,
    /// `io.modelcontextprotocol/clientCapabilities`: an object.
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        default,
        borrow,
        deserialize_with = "client_capabilities",
        skip_serializing_if = "Option::is_none"
    )]
    pub client_capabilities: Option<Cow<'a, RawValue>>,
    /// `io.modelcontextprotocol/clientInfo`: an object.
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        borrow,
        deserialize_with = "client_info",
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Cow<'a, RawValue>>,
    /// `io.modelcontextprotocol/logLevel`: a string.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        borrow,
        deserialize_with = "log_level",
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<Cow<'a, str>>,
    /// `progressToken` (any revision), as sent: its length is checked where
    /// a call starts ([`oversized_progress_token`]).
    #[serde(
        rename = "progressToken",
        default,
        borrow,
        deserialize_with = "progress_token",
        skip_serializing_if = "Option::is_none"
    )]
    pub progress_token: Option<Cow<'a, RawValue>>,
}

/// A value of an [`Envelope`] that cannot be made: JSON that does not parse
/// or is not of the key's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvelopeError(pub String);

impl std::fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EnvelopeError {}

impl Envelope<'static> {
    /// The envelope a 2026-07-28 client sends on every request: the
    /// revision, its capabilities and its identity (both JSON objects, as
    /// text, e.g. `serde_json::to_string(&capabilities)`).
    pub fn new(
        protocol_version: impl Into<String>,
        client_capabilities: &str,
        client_info: &str,
    ) -> Result<Envelope<'static>, EnvelopeError> {
        Ok(Envelope {
            protocol_version: Some(Cow::Owned(protocol_version.into())),
            client_capabilities: Some(Cow::Owned(owned_object(
                client_capabilities,
                CLIENT_CAPABILITIES,
            )?)),
            client_info: Some(Cow::Owned(owned_object(client_info, CLIENT_INFO)?)),
            log_level: None,
            progress_token: None,
        })
    }
}

impl Envelope<'_> {
    /// The same envelope with a progress token: a JSON string or integer,
    /// as text (`"\"p1\""`, `7`).
    pub fn with_progress_token(mut self, token: &str) -> Result<Self, EnvelopeError> {
        let raw = RawValue::from_string(token.to_owned())
            .map_err(|err| EnvelopeError(format!("{PROGRESS_TOKEN}: {err}")))?;
        self.progress_token = Some(Cow::Owned(raw));
        Ok(self)
    }

    /// Whether it carries the 2026-07-28 envelope (either of its required
    /// keys): such a request belongs to that era.
    pub fn enveloped(&self) -> bool {
        self.protocol_version.is_some() || self.client_capabilities.is_some()
    }
}

fn owned_object(text: &str, key: &str) -> Result<Box<RawValue>, EnvelopeError> {
    let raw = RawValue::from_string(text.trim().to_owned())
        .map_err(|err| EnvelopeError(format!("{key}: {err}")))?;
    if raw.get().starts_with('{') {
        Ok(raw)
    } else {
        Err(EnvelopeError(format!("{key} must be a JSON object")))
    }
}

// The readers of the keys: each refuses a value of the wrong type with a
// message that names the key (`["key"] must be …`; the params parse puts
// `params._meta` before it). A key sent as `null` is of the wrong type too.

fn string<'de, D: Deserializer<'de>>(
    deserializer: D,
    key: &str,
) -> Result<Option<Cow<'de, str>>, D::Error> {
    let raw = <&'de RawValue>::deserialize(deserializer)?;
    serde_json::from_str::<crate::read::Text<'de>>(raw.get())
        .map(|text| text.0)
        .map_err(|_| D::Error::custom(format!("[\"{key}\"] must be a string")))
}

fn object<'de, D: Deserializer<'de>>(
    deserializer: D,
    key: &str,
) -> Result<Option<Cow<'de, RawValue>>, D::Error> {
    let raw = <&'de RawValue>::deserialize(deserializer)?;
    if raw.get().starts_with('{') {
        Ok(Some(Cow::Borrowed(raw)))
    } else {
        Err(D::Error::custom(format!(
            "[\"{key}\"] must be an object ({{}} when empty)"
        )))
    }
}

fn protocol_version<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    string(d, PROTOCOL_VERSION)
}

fn log_level<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    string(d, LOG_LEVEL)
}

fn client_capabilities<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Cow<'de, RawValue>>, D::Error> {
    object(d, CLIENT_CAPABILITIES)
}

fn client_info<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, RawValue>>, D::Error> {
    object(d, CLIENT_INFO)
}

fn progress_token<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, RawValue>>, D::Error> {
    <&'de RawValue>::deserialize(d).map(|raw| Some(Cow::Borrowed(raw)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oversized length of the token in `_meta` text `meta`, read into
    /// the [`Envelope`] as the server's parse of params reads it (that parse
    /// itself is `mcp-runtime`'s and tested there).
    fn oversized(meta: &str) -> Option<usize> {
        let envelope: Envelope<'_> = serde_json::from_str(meta).unwrap();
        envelope
            .progress_token
            .as_deref()
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
