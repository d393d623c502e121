//! Elicitation: asking the user for input in the middle of a tool call.
//!
//! The same `ctx.elicit(key, request)` works in both eras. In a legacy session
//! it sends a real `elicitation/create` request to the client and awaits the
//! reply. In the 2026-07-28 era servers may not send requests, so the call
//! ends with an `input_required` result carrying the request and a sealed
//! `requestState`; the client retries the call with the answer, the tool runs
//! again from the start, and this time `ctx.elicit` returns the answer.
//! Write tools so that the steps before an `elicit` can run twice.

use crate::ToolError;
use crate::protocol::ProtocolVersion;
use crate::sha256::{constant_time_eq, hmac_sha256, sha256};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A form the client shows the user (`elicitation/create`, form mode).
#[derive(Clone, Debug, PartialEq)]
pub struct ElicitRequest {
    message: String,
    requested_schema: Value,
}

impl ElicitRequest {
    /// A form with `message` and a flat object schema of primitive properties.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> ElicitRequest {
        ElicitRequest {
            message: message.into(),
            requested_schema,
        }
    }

    /// A form whose fields are those of `T` (a struct of primitive fields).
    pub fn for_type<T: schemars::JsonSchema>(message: impl Into<String>) -> ElicitRequest {
        let mut schema = crate::schema::for_deserialize::<T>();
        if let Some(map) = schema.as_object_mut() {
            // Clients take a restricted schema: only type, properties, required.
            map.retain(|k, _| matches!(k.as_str(), "type" | "properties" | "required"));
        }
        ElicitRequest::form(message, schema)
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `params` of `elicitation/create` for a session of `version`.
    pub(crate) fn params(&self, version: ProtocolVersion) -> Value {
        let mut params = json!({"message": self.message, "requestedSchema": self.requested_schema});
        if version >= ProtocolVersion::V2025_11_25 {
            params["mode"] = "form".into();
        }
        params
    }
}

/// What the user did with the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElicitAction {
    /// The user submitted the form.
    Accept,
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the form without choosing.
    Cancel,
}

/// The user's answer to an [`ElicitRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct Elicitation {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted fields (with [`ElicitAction::Accept`]).
    pub content: Option<Map<String, Value>>,
}

impl Elicitation {
    /// Reads an `ElicitResult` from the client.
    pub(crate) fn from_result(value: &Value) -> Result<Elicitation, ToolError> {
        let action = match value.get("action").and_then(Value::as_str) {
            Some("accept") => ElicitAction::Accept,
            Some("decline") => ElicitAction::Decline,
            Some("cancel") => ElicitAction::Cancel,
            _ => {
                return Err(ToolError::new(
                    "the client's elicitation answer has no valid \"action\" (accept, decline or cancel)",
                ));
            }
        };
        let content = value.get("content").and_then(Value::as_object).cloned();
        Ok(Elicitation { action, content })
    }

    /// Whether the user submitted the form.
    pub fn is_accepted(&self) -> bool {
        self.action == ElicitAction::Accept
    }

    /// The submitted fields as `T`; an error when the user did not accept or
    /// the fields do not fit.
    pub fn content_as<T: DeserializeOwned>(&self) -> Result<T, ToolError> {
        match (&self.action, &self.content) {
            (ElicitAction::Accept, Some(content)) => {
                serde_json::from_value(Value::Object(content.clone())).map_err(|err| {
                    ToolError::new(format!("the user's answer does not fit the form: {err}"))
                })
            }
            (ElicitAction::Accept, None) => {
                Err(ToolError::new("the user accepted but sent no fields"))
            }
            (action, _) => Err(ToolError::new(format!(
                "the user did not fill in the form ({})",
                match action {
                    ElicitAction::Decline => "declined",
                    _ => "cancelled",
                }
            ))),
        }
    }
}

/// Seals and opens `requestState`: HMAC-SHA256 over the tool's name, a digest
/// of its arguments, an expiry and the answers gathered so far. The client
/// holds it between rounds and cannot forge, replay it onto other arguments,
/// or keep it past its expiry.
#[derive(Clone)]
pub(crate) struct StateSealer {
    key: [u8; 32],
    ttl: Duration,
}

impl std::fmt::Debug for StateSealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateSealer")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl StateSealer {
    /// A sealer with `key`, or a fresh random key for this process.
    pub(crate) fn new(key: Option<[u8; 32]>, ttl: Duration) -> StateSealer {
        let key = key.unwrap_or_else(|| {
            let mut key = [0u8; 32];
            // Without OS randomness the state could be forged; refuse to run that way.
            getrandom::fill(&mut key).expect("the operating system provides randomness");
            key
        });
        StateSealer { key, ttl }
    }

    fn mac(&self, payload: &[u8]) -> [u8; 32] {
        hmac_sha256(&self.key, payload)
    }

    /// The sealed state for a call of `tool` with arguments digest `digest`.
    pub(crate) fn seal(&self, tool: &str, digest: &str, answers: &Map<String, Value>) -> String {
        let expires =
            now_ms().saturating_add(u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX));
        let payload =
            json!({"v": 1, "t": tool, "a": digest, "e": expires, "r": answers}).to_string();
        let tag = self.mac(payload.as_bytes());
        format!("{}.{}", base64url(payload.as_bytes()), base64url(&tag))
    }

    /// The answers sealed in `state`, if it is ours, unexpired, and for this
    /// tool and these arguments.
    pub(crate) fn open(
        &self,
        state: &str,
        tool: &str,
        digest: &str,
    ) -> Result<Map<String, Value>, &'static str> {
        let invalid = "requestState is not one this server issued";
        let (payload, tag) = state.split_once('.').ok_or(invalid)?;
        let payload = unbase64url(payload).ok_or(invalid)?;
        let tag = unbase64url(tag).ok_or(invalid)?;
        if !constant_time_eq(&self.mac(&payload), &tag) {
            return Err(invalid);
        }
        let payload: Value = serde_json::from_slice(&payload).map_err(|_| invalid)?;
        if payload["e"]
            .as_u64()
            .is_none_or(|expires| expires < now_ms())
        {
            return Err("requestState has expired; call the tool again without it");
        }
        if payload["t"] != tool || payload["a"] != digest {
            return Err("requestState belongs to a different tool call");
        }
        Ok(payload["r"].as_object().cloned().unwrap_or_default())
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// SHA-256 of the arguments in canonical form (keys sorted), so a client that
/// re-serializes the same arguments still matches.
pub(crate) fn arguments_digest(arguments: Option<&str>) -> String {
    let value: Value = arguments
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_else(|| json!({}));
    let mut canonical = String::new();
    write_canonical(&value, &mut canonical);
    sha256(canonical.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Unpadded base64url.
pub(crate) fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn unbase64url(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let values: Option<Vec<u32>> = text
        .bytes()
        .map(|c| ALPHABET.iter().position(|a| *a == c).map(|p| p as u32))
        .collect();
    for chunk in values?.chunks(4) {
        if chunk.len() == 1 {
            return None;
        }
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, v)| n | (v << (18 - 6 * i)));
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips() {
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "\u{1F600}"] {
            assert_eq!(
                unbase64url(&base64url(text.as_bytes())).unwrap(),
                text.as_bytes()
            );
        }
        assert_eq!(base64url(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64url(b"fo"), "Zm8");
    }

    #[test]
    fn sealed_state_opens_only_untampered_and_bound() {
        let sealer = StateSealer::new(None, Duration::from_secs(60));
        let digest = arguments_digest(Some(r#"{"b":1,"a":[1,{"y":2,"x":1}]}"#));
        assert_eq!(
            digest,
            arguments_digest(Some(r#"{ "a":[1,{"x":1,"y":2}], "b":1 }"#))
        );
        let mut answers = Map::new();
        answers.insert("name".into(), json!({"action": "accept"}));
        let state = sealer.seal("greet", &digest, &answers);
        assert_eq!(sealer.open(&state, "greet", &digest).unwrap(), answers);
        assert!(sealer.open(&state, "other", &digest).is_err());
        assert!(sealer.open(&state, "greet", "00").is_err());
        let mut tampered = state.clone();
        tampered.insert(3, 'x');
        assert!(sealer.open(&tampered, "greet", &digest).is_err());
        let other_key = StateSealer::new(None, Duration::from_secs(60));
        assert!(other_key.open(&state, "greet", &digest).is_err());
        let expired = StateSealer {
            ttl: Duration::ZERO,
            ..sealer.clone()
        };
        let old = expired.seal("greet", &digest, &answers);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(
            sealer.open(&old, "greet", &digest).unwrap_err(),
            "requestState has expired; call the tool again without it"
        );
    }
}
