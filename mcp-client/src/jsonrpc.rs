//! The JSON-RPC 2.0 envelope: the one place messages are parsed and written.
//!
//! Payloads (`params`, `result`) stay unparsed JSON text (`RawValue`): this
//! layer routes messages and never needs to know what they say.

use crate::error::RpcError;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// An id the server chose for a request of its own, kept as its JSON text so
/// that the answer echoes it exactly (a string stays a string).
pub(crate) type ServerRequestId = Box<RawValue>;

/// One message from the server.
#[derive(Debug)]
pub(crate) enum Message {
    /// A request the server makes of us (legacy era: sampling, elicitation,
    /// roots, ping).
    Request {
        id: ServerRequestId,
        method: String,
        params: Option<Box<RawValue>>,
    },
    /// A notification (progress, log, list changed, cancelled).
    Notification {
        method: String,
        params: Option<Box<RawValue>>,
    },
    /// The answer to one of our requests. `id` is `None` when it is not one
    /// of the numbers this client hands out (so cannot be ours).
    Response {
        id: Option<u64>,
        raw_id: Option<Box<RawValue>>,
        outcome: Result<Box<RawValue>, RpcError>,
    },
}

#[derive(Deserialize)]
struct Envelope {
    jsonrpc: Option<String>,
    #[serde(default)]
    id: Option<Box<RawValue>>,
    method: Option<String>,
    #[serde(default)]
    params: Option<Box<RawValue>>,
    #[serde(default)]
    result: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<RpcError>,
}

/// Parses one message; the error says what is wrong, for the log.
pub(crate) fn parse(text: &str) -> Result<Message, String> {
    if !text.trim_start().starts_with('{') {
        // serde's message for a struct read from an array or a number
        // ("invalid type: integer") would not say what is wrong.
        return Err("not a JSON object".into());
    }
    let envelope: Envelope = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if envelope.jsonrpc.as_deref() != Some("2.0") {
        return Err("`jsonrpc` is not \"2.0\"".into());
    }
    // `"id": null` reads as no id here; on a response it means the server
    // could not read the id of what it answers.
    let id = envelope.id.filter(|id| id.get() != "null");
    match (envelope.method, id, envelope.result, envelope.error) {
        (Some(method), Some(id), None, None) => Ok(Message::Request {
            id,
            method,
            params: envelope.params,
        }),
        (Some(method), None, None, None) => Ok(Message::Notification {
            method,
            params: envelope.params,
        }),
        (None, id, Some(result), None) => Ok(Message::Response {
            id: id.as_deref().and_then(|id| our_id(id.get())),
            raw_id: id,
            outcome: Ok(result),
        }),
        (None, id, None, Some(error)) => Ok(Message::Response {
            id: id.as_deref().and_then(|id| our_id(id.get())),
            raw_id: id,
            outcome: Err(error),
        }),
        (None, _, Some(_), Some(_)) => Err("a response with both `result` and `error`".into()),
        (None, _, None, None) => Err("neither a request, a notification nor a response".into()),
        (Some(_), ..) => Err("a request with `result` or `error`".into()),
    }
}

/// The ids this client hands out are JSON integers; anything else (`text`
/// is an id's JSON text) is not ours.
pub(crate) fn our_id(text: &str) -> Option<u64> {
    if text.bytes().all(|b| b.is_ascii_digit()) {
        text.parse().ok()
    } else {
        None
    }
}

#[derive(Serialize)]
struct OutRequest<'a> {
    jsonrpc: &'static str,
    id: u64,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct OutNotification<'a> {
    jsonrpc: &'static str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct OutResponse<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a RpcError>,
}

fn to_text<T: Serialize>(value: &T) -> String {
    // Serializing these structs of strings and already-valid JSON text
    // cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

/// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}`.
pub(crate) fn request(id: u64, method: &str, params: Option<&RawValue>) -> String {
    to_text(&OutRequest {
        jsonrpc: "2.0",
        id,
        method,
        params,
    })
}

/// `{"jsonrpc":"2.0","method":…,"params":…}`.
pub(crate) fn notification(method: &str, params: Option<&RawValue>) -> String {
    to_text(&OutNotification {
        jsonrpc: "2.0",
        method,
        params,
    })
}

/// The answer to a server's request.
pub(crate) fn response(id: &RawValue, outcome: Result<&RawValue, &RpcError>) -> String {
    let (result, error) = match outcome {
        Ok(result) => (Some(result), None),
        Err(error) => (None, Some(error)),
    };
    to_text(&OutResponse {
        jsonrpc: "2.0",
        id,
        result,
        error,
    })
}

/// `notifications/cancelled` for our request `id`.
pub(crate) fn cancelled(id: u64, reason: &str) -> String {
    let params = serde_json::json!({"requestId": id, "reason": reason});
    to_text(&serde_json::json!({
        "jsonrpc": "2.0",
        "method": mcpfn_protocol::model::method::CANCELLED,
        "params": params,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_told_apart() {
        let m = parse(r#"{"jsonrpc":"2.0","id":7,"result":{"a":1}}"#).unwrap();
        assert!(
            matches!(m, Message::Response { id: Some(7), outcome: Ok(ref r), .. } if r.get() == r#"{"a":1}"#)
        );
        let m = parse(r#"{"jsonrpc":"2.0","id":"7","result":{}}"#).unwrap();
        assert!(
            matches!(m, Message::Response { id: None, .. }),
            "a string id is not ours"
        );
        let m =
            parse(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope"}}"#).unwrap();
        assert!(
            matches!(m, Message::Response { id: Some(3), outcome: Err(ref e), .. } if e.code == -32601)
        );
        let m = parse(r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#).unwrap();
        assert!(matches!(m, Message::Request { ref id, .. } if id.get() == r#""s1""#));
        let m =
            parse(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#).unwrap();
        assert!(matches!(m, Message::Notification { .. }));
        assert!(parse("not json").is_err());
        assert!(parse(r#"{"id":1,"result":{}}"#).is_err());
        assert!(
            parse(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#)
                .is_err()
        );
        assert!(parse(r#"{"jsonrpc":"2.0","id":1}"#).is_err());
    }

    #[test]
    fn messages_are_written_compactly() {
        let params = RawValue::from_string(r#"{"name":"add"}"#.into()).unwrap();
        assert_eq!(
            request(1, "tools/call", Some(&params)),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#
        );
        assert_eq!(
            notification("notifications/initialized", None),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        );
        let id = RawValue::from_string(r#""a""#.into()).unwrap();
        assert_eq!(
            response(&id, Err(&RpcError::method_not_found("no"))),
            r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}"#
        );
        assert_eq!(
            cancelled(4, "timeout"),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"timeout","requestId":4}}"#
        );
    }
}
