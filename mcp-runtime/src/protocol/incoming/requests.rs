//! The server's borrowed readings of the params of the methods it serves:
//! the concepts are [`crate::protocol::model`]'s
//! (`model::InitializeParams` is what [`InitializeParamsRef`] reads); these
//! are how the server reads them off the message without copying (a `…Ref`
//! borrows from it), and `subscriptions/listen` is read as
//! [`crate::protocol::model::ListenParams`] itself.
//!
//! The members every layer decides on (`name`, `arguments`, `_meta`,
//! `requestState`, `inputResponses`, `taskId`) are read once, by
//! [`crate::protocol::params::Params`], and are not repeated here: a type
//! below names only what its method alone reads, so no two parses of one
//! member exist.
//!
//! These are more lenient than the model's types where
//! clients in the wild are (an `initialize` without `capabilities` or
//! `clientInfo` opens a session all the same), and keep the client's
//! values as sent (capabilities and client info as JSON, not a struct that
//! would drop what it does not name).

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The params of `initialize` (2024-11-05 to 2025-11-25): only
/// `protocolVersion` is required.
#[derive(Debug, Deserialize)]
pub(crate) struct InitializeParamsRef<'a> {
    /// The revision the client asks for (the server counter-offers its own
    /// newest legacy revision when it does not speak this one).
    #[serde(rename = "protocolVersion", borrow)]
    pub protocol_version: Cow<'a, str>,
    /// What the client supports, as sent (`null` reads as absent).
    #[serde(default)]
    pub capabilities: Option<Value>,
    /// Who the client is, as sent (`null` reads as absent).
    #[serde(rename = "clientInfo", default)]
    pub client_info: Option<Value>,
}

/// The params of `tools/list`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ListToolsParamsRef<'a> {
    /// The `nextCursor` of an earlier page, if any (`null` reads as absent).
    #[serde(default, borrow)]
    pub cursor: Option<Cow<'a, str>>,
}

/// The params of `logging/setLevel` (legacy sessions).
#[derive(Debug, Deserialize)]
pub(crate) struct SetLevelParams<'a> {
    /// The lowest level to send, as sent (the server parses the name, so
    /// an unknown one gets a message listing the levels).
    #[serde(borrow)]
    pub level: Cow<'a, str>,
}

/// The params of `notifications/cancelled`, the one notification whose
/// params a server reads.
#[derive(Debug, Deserialize)]
pub(crate) struct CancelledParamsRef<'a> {
    /// The id of the request to cancel, as sent (a request id or a
    /// subscription's), for the server to compare in its canonical form.
    #[serde(rename = "requestId", borrow)]
    pub request_id: &'a RawValue,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initialize_borrows_its_version_and_takes_what_is_absent_or_null_as_absent() {
        let text =
            r#"{"protocolVersion":"2025-06-18","capabilities":null,"clientInfo":{"name":"c"}}"#;
        let params: InitializeParamsRef<'_> = serde_json::from_str(text).unwrap();
        assert!(matches!(
            params.protocol_version,
            Cow::Borrowed("2025-06-18")
        ));
        assert_eq!(params.capabilities, None);
        assert_eq!(params.client_info, Some(serde_json::json!({"name": "c"})));
        let bare: InitializeParamsRef<'_> =
            serde_json::from_str(r#"{"protocolVersion":"x"}"#).unwrap();
        assert_eq!((bare.capabilities, bare.client_info), (None, None));
        let missing = serde_json::from_str::<InitializeParamsRef<'_>>("{}").unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("missing field `protocolVersion`")
        );
    }

    #[test]
    fn the_small_ones_read_their_members() {
        let list: ListToolsParamsRef<'_> = serde_json::from_str(r#"{"cursor":null}"#).unwrap();
        assert_eq!(list.cursor, None);
        let list: ListToolsParamsRef<'_> = serde_json::from_str(r#"{"cursor":"p2"}"#).unwrap();
        assert_eq!(list.cursor.as_deref(), Some("p2"));
        let level: SetLevelParams<'_> = serde_json::from_str(r#"{"level":"info"}"#).unwrap();
        assert_eq!(level.level, "info");
        let cancelled: CancelledParamsRef<'_> =
            serde_json::from_str(r#"{"requestId": 7, "reason": "user"}"#).unwrap();
        assert_eq!(cancelled.request_id.get(), "7");
    }
}
