//! What a client told us about itself: its `clientInfo` and capabilities,
//! from the legacy handshake or a 2026-07-28 request's envelope.

use crate::util::lock;
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::{Arc, Mutex};

/// What the client said about itself (`initialize`, or the 2026-07-28
/// envelope): its `clientInfo`, if any, and its capabilities.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClientInfo {
    pub(crate) info: Option<Value>,
    pub(crate) capabilities: Value,
}

/// The last 2026-07-28 client seen, by the text of its envelope's
/// `clientInfo` and `clientCapabilities`. A client repeats the same
/// envelope on every request, so its parsed form is shared, not rebuilt
/// (two JSON values and their allocations) per request; different clients
/// take turns in the one entry, each still getting exactly what it sent.
#[derive(Debug, Default)]
pub(crate) struct RecentClient(Mutex<Option<Recent>>);

#[derive(Debug)]
struct Recent {
    info: Option<Box<str>>,
    capabilities: Box<str>,
    client: Arc<ClientInfo>,
}

/// Envelopes longer than this are parsed every time, not kept.
const RECENT_CLIENT_MAX_TEXT: usize = 4096;

impl RecentClient {
    /// The client whose envelope carries `info` and `capabilities`.
    pub(crate) fn client(
        &self,
        info: Option<&RawValue>,
        capabilities: &RawValue,
    ) -> Result<Arc<ClientInfo>, serde_json::Error> {
        let info = info.map(RawValue::get);
        let capabilities = capabilities.get();
        if let Some(known) = lock(&self.0).as_ref()
            && known.info.as_deref() == info
            && *known.capabilities == *capabilities
        {
            return Ok(Arc::clone(&known.client));
        }
        // Parsed outside the lock: other clients' requests need not wait.
        // Both are JSON objects (the envelope's parse checked that), but
        // not how deep they nest: one past serde_json's depth limit is an
        // error for the request, never "no capabilities".
        let client = Arc::new(ClientInfo {
            info: info.map(serde_json::from_str).transpose()?,
            capabilities: serde_json::from_str(capabilities)?,
        });
        if info.map_or(0, str::len) + capabilities.len() <= RECENT_CLIENT_MAX_TEXT {
            *lock(&self.0) = Some(Recent {
                info: info.map(Box::from),
                capabilities: Box::from(capabilities),
                client: Arc::clone(&client),
            });
        }
        Ok(client)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_repeated_envelope_shares_its_client_and_a_different_one_does_not() {
        let raw = |text: &str| RawValue::from_string(text.to_owned()).unwrap();
        let recent = RecentClient::default();
        let (alice, bob) = (raw(r#"{"name":"alice"}"#), raw(r#"{"name":"bob"}"#));
        let (none, forms) = (raw("{}"), raw(r#"{"elicitation":{}}"#));
        let first = recent.client(Some(&alice), &none).unwrap();
        assert!(Arc::ptr_eq(
            &first,
            &recent.client(Some(&alice), &none).unwrap()
        ));
        let name = |client: &ClientInfo| client.info.as_ref().unwrap()["name"].clone();
        let other = recent.client(Some(&bob), &none).unwrap();
        assert_eq!(name(&other), "bob");
        let capable = recent.client(Some(&bob), &forms).unwrap();
        assert!(!Arc::ptr_eq(&other, &capable));
        assert_eq!(capable.capabilities, json!({"elicitation": {}}));
        assert_eq!(recent.client(None, &none).unwrap().info, None);
        assert_eq!(name(&recent.client(Some(&alice), &none).unwrap()), "alice");
        // Too long to keep: parsed each time, still right.
        let long = raw(&format!(
            r#"{{"name":"{}"}}"#,
            "x".repeat(RECENT_CLIENT_MAX_TEXT)
        ));
        let a = recent.client(Some(&long), &none).unwrap();
        let b = recent.client(Some(&long), &none).unwrap();
        assert!(!Arc::ptr_eq(&a, &b));
        assert_eq!(a.info, b.info);
    }

    #[test]
    fn capabilities_nested_past_the_depth_limit_are_an_error_not_none() {
        let deep = format!(
            "{}{}",
            r#"{"a":"#.repeat(200),
            "1".to_owned() + &"}".repeat(200)
        );
        let deep = RawValue::from_string(deep).unwrap();
        assert!(RecentClient::default().client(None, &deep).is_err());
    }
}
