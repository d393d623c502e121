//! The reserved `_meta` keys this server reads or writes, in one place, and
//! the one typed struct of a request's envelope ([`Envelope`]) that both the
//! server's parse of incoming params and a client's outgoing requests use.
//! (It is read by the constants here, in one pass; its serde attributes,
//! for writing, take literals only, and a test checks they match them.)

use crate::read::Text;
use serde::de::{Error as _, IgnoredAny, MapAccess, Visitor};
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
#[derive(Clone, Debug, Default, Serialize)]
pub struct Envelope<'a> {
    /// `io.modelcontextprotocol/protocolVersion`: a string.
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol_version: Option<Cow<'a, str>>,
    /// `io.modelcontextprotocol/clientCapabilities`: an object.
    #[serde(
        rename = "io.modelcontextprotocol/clientCapabilities",
        skip_serializing_if = "Option::is_none"
    )]
    pub client_capabilities: Option<Cow<'a, RawValue>>,
    /// `io.modelcontextprotocol/clientInfo`: an object.
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Cow<'a, RawValue>>,
    /// `io.modelcontextprotocol/logLevel`: a string.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<Cow<'a, str>>,
    /// `progressToken` (any revision), as sent: its length is checked where
    /// a call starts ([`oversized_progress_token`]).
    #[serde(rename = "progressToken", skip_serializing_if = "Option::is_none")]
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

/// Read as a JSON object (`_meta`): the reserved keys, the others skipped.
impl<'de: 'a, 'a> Deserialize<'de> for Envelope<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(Keys)
    }
}

/// Reads the members of a `_meta` object ([`read_envelope`]), the other
/// keys skipped.
struct Keys;

impl<'de> Visitor<'de> for Keys {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Envelope<'de>, A::Error> {
        read_envelope(map, "", None)
    }
}

/// The envelope of the `_meta` object whose members `map` reads, in one
/// pass: each reserved key of its type (a value of another type, `null`
/// included, is refused with a message that names the key after
/// `prefix`; a key sent twice is refused), each other key handed to
/// `other` as sent, or skipped without it. The server's parse of a
/// request's params reads `_meta` with it, keeping the other keys for the
/// call's context.
#[doc(hidden)]
pub fn read_envelope<'de, A: MapAccess<'de>>(
    mut map: A,
    prefix: &str,
    mut other: Option<&mut dyn FnMut(Cow<'de, str>, &'de RawValue)>,
) -> Result<Envelope<'de>, A::Error> {
    let mut envelope = Envelope::default();
    while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
        let key = key.unwrap_or_default();
        match &*key {
            PROTOCOL_VERSION => {
                let version = string(&mut map, prefix, PROTOCOL_VERSION)?;
                once(
                    &mut envelope.protocol_version,
                    version,
                    prefix,
                    PROTOCOL_VERSION,
                )?;
            }
            CLIENT_CAPABILITIES => {
                let capabilities = object(&mut map, prefix, CLIENT_CAPABILITIES)?;
                once(
                    &mut envelope.client_capabilities,
                    capabilities,
                    prefix,
                    CLIENT_CAPABILITIES,
                )?;
            }
            CLIENT_INFO => {
                let info = object(&mut map, prefix, CLIENT_INFO)?;
                once(&mut envelope.client_info, info, prefix, CLIENT_INFO)?;
            }
            LOG_LEVEL => {
                let level = string(&mut map, prefix, LOG_LEVEL)?;
                once(&mut envelope.log_level, level, prefix, LOG_LEVEL)?;
            }
            PROGRESS_TOKEN => {
                let token = Cow::Borrowed(map.next_value::<&'de RawValue>()?);
                once(&mut envelope.progress_token, token, prefix, PROGRESS_TOKEN)?;
            }
            _ => match other.as_mut() {
                Some(other) => other(key, map.next_value::<&'de RawValue>()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            },
        }
    }
    Ok(envelope)
}

// The readers of the keys: each refuses a value of the wrong type with a
// message that names the key (`["key"] must be …`, after the caller's
// prefix). A key sent as `null` is of the wrong type too.

/// Fills `slot` with `value`, or refuses the key sent a second time.
fn once<T, E: serde::de::Error>(
    slot: &mut Option<T>,
    value: T,
    prefix: &str,
    key: &'static str,
) -> Result<(), E> {
    if slot.is_some() {
        return Err(if prefix.is_empty() {
            E::duplicate_field(key)
        } else {
            E::custom(format!("{prefix}: duplicate field `{key}`"))
        });
    }
    *slot = Some(value);
    Ok(())
}

/// The next value, a string. Read directly, not captured first: what fails
/// here is a value of another type (the server's params were checked to
/// be JSON before they are read), so any failure is named as that.
fn string<'de, A: MapAccess<'de>>(
    map: &mut A,
    prefix: &str,
    key: &str,
) -> Result<Cow<'de, str>, A::Error> {
    match map.next_value::<Text<'de>>() {
        Ok(Text(Some(text))) => Ok(text),
        _ => Err(A::Error::custom(format!(
            "{prefix}[\"{key}\"] must be a string"
        ))),
    }
}

/// The next value, an object, as sent.
fn object<'de, A: MapAccess<'de>>(
    map: &mut A,
    prefix: &str,
    key: &str,
) -> Result<Cow<'de, RawValue>, A::Error> {
    let raw = map.next_value::<&'de RawValue>()?;
    if raw.get().starts_with('{') {
        Ok(Cow::Borrowed(raw))
    } else {
        Err(A::Error::custom(format!(
            "{prefix}[\"{key}\"] must be an object ({{}} when empty)"
        )))
    }
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
