//! A request's `params._meta` as its call keeps it for `Context::meta`:
//! read once with the params, in one pass, and not copied whole. A call
//! served in the 2026-07-28 era already holds the envelope's revision and
//! client (its version and `ClientInfo`), so only what they do not hold is
//! kept: the log level, the progress token and the keys of no envelope,
//! each as sent. The object is made again only for a tool that asks.

use crate::conn::client::ClientInfo;
use crate::protocol::ProtocolVersion;
use crate::protocol::meta::{
    CLIENT_CAPABILITIES, CLIENT_INFO, LOG_LEVEL, PROGRESS_TOKEN, PROTOCOL_VERSION,
};
use crate::protocol::params::Meta;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// What a call keeps of its request's `_meta`.
#[derive(Clone, Debug)]
pub(crate) struct SentMeta {
    /// Whether the envelope's revision and client are the call's own (a
    /// request served in the 2026-07-28 era), written back from them.
    enveloped: bool,
    /// The other keys as sent, in order (every reserved key too when the
    /// call is not `enveloped`).
    keys: Vec<(Box<str>, Box<RawValue>)>,
}

impl SentMeta {
    /// What a call served under `version` keeps of `meta`.
    pub(crate) fn of(meta: &Meta<'_>, version: ProtocolVersion) -> SentMeta {
        let enveloped = version.is_modern();
        let envelope = &meta.envelope;
        let mut keys: Vec<(Box<str>, Box<RawValue>)> = Vec::new();
        if !enveloped {
            keys.extend(text(PROTOCOL_VERSION, envelope.protocol_version.as_deref()));
            for (key, raw) in [
                (CLIENT_CAPABILITIES, &envelope.client_capabilities),
                (CLIENT_INFO, &envelope.client_info),
            ] {
                if let Some(raw) = raw {
                    keys.push((key.into(), (**raw).to_owned()));
                }
            }
        }
        keys.extend(text(LOG_LEVEL, envelope.log_level.as_deref()));
        if let Some(token) = &envelope.progress_token {
            keys.push((PROGRESS_TOKEN.into(), (**token).to_owned()));
        }
        keys.extend(
            meta.rest
                .iter()
                .map(|(key, value)| (Box::from(key.as_ref()), (*value).to_owned())),
        );
        SentMeta { enveloped, keys }
    }

    /// A `_meta` of only `progressToken` (a test context's).
    pub(crate) fn progress_token(token: Box<RawValue>) -> SentMeta {
        SentMeta {
            enveloped: false,
            keys: vec![(PROGRESS_TOKEN.into(), token)],
        }
    }

    /// The `_meta` object the request sent (a key sent twice: its last
    /// value, as a JSON object reads).
    pub(crate) fn to_value(&self, version: ProtocolVersion, client: &ClientInfo) -> Value {
        let mut map = Map::new();
        if self.enveloped {
            map.insert(PROTOCOL_VERSION.into(), version.as_str().into());
            map.insert(CLIENT_CAPABILITIES.into(), client.capabilities.clone());
            if let Some(info) = &client.info {
                map.insert(CLIENT_INFO.into(), info.clone());
            }
        }
        for (key, raw) in &self.keys {
            // Each was read as JSON with the request: it parses.
            if let Ok(value) = serde_json::from_str(raw.get()) {
                map.insert(key.to_string(), value);
            }
        }
        Value::Object(map)
    }
}

/// `key` with the string `value` as JSON, if there is one.
fn text(key: &str, value: Option<&str>) -> Option<(Box<str>, Box<RawValue>)> {
    // A string serde_json has read: writing it cannot fail.
    let raw = serde_json::value::to_raw_value(value?).ok()?;
    Some((key.into(), raw))
}
