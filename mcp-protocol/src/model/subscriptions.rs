//! Resource subscriptions and change notifications: `resources/subscribe`
//! and `resources/unsubscribe` (2024-11-05 to 2025-11-25; 2026-07-28 asks
//! for updates in the `subscriptions/listen` filter instead,
//! [`SubscriptionFilter::resource_subscriptions`](super::SubscriptionFilter)),
//! `notifications/resources/updated`, and the resource and prompt list
//! changes (params-less, as `notifications/tools/list_changed`).

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The params of `resources/subscribe` and `resources/unsubscribe`: the
/// resource whose `notifications/resources/updated` to start or stop.
/// Borrowed where the request lets it be (a server reads many), owned with
/// `'static` (a client writes them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubscribeParams<'a> {
    /// The resource's URI, as the client has it (any scheme; the server
    /// interprets it).
    #[serde(borrow)]
    pub uri: Cow<'a, str>,
}

/// The params of `notifications/resources/updated`: a resource that
/// changed and may need to be read again (possibly a sub-resource of the
/// one subscribed to).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceUpdatedParams {
    /// The URI of the resource that changed.
    pub uri: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscribe_params_borrow_the_uri_and_read_back() {
        let text = r#"{"uri":"test://watched-resource","_meta":{"progressToken":1}}"#;
        let params: SubscribeParams<'_> = serde_json::from_str(text).unwrap();
        assert!(matches!(
            params.uri,
            Cow::Borrowed("test://watched-resource")
        ));
        assert_eq!(
            serde_json::to_string(&params).unwrap(),
            r#"{"uri":"test://watched-resource"}"#
        );
        // An escaped URI is unescaped into an owned string.
        let escaped: SubscribeParams<'_> = serde_json::from_str(r#"{"uri":"a\/b"}"#).unwrap();
        assert_eq!(escaped.uri, "a/b");
        assert!(
            serde_json::from_str::<SubscribeParams<'_>>("{}").is_err(),
            "uri is required"
        );
        let updated: ResourceUpdatedParams =
            serde_json::from_str(r#"{"uri":"file:///a.txt"}"#).unwrap();
        assert_eq!(updated.uri, "file:///a.txt");
    }
}
