//! JSON-RPC 2.0 as MCP uses it: ids, the envelopes of each kind of
//! message, and any message as a client receives it ([`Message`]).

use crate::error::RpcError;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A JSON object.
pub type JsonObject = serde_json::Map<String, Value>;

/// A JSON-RPC request id: a string or an integer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl From<i64> for RequestId {
    fn from(id: i64) -> RequestId {
        RequestId::Number(id)
    }
}

impl From<&str> for RequestId {
    fn from(id: &str) -> RequestId {
        RequestId::String(id.to_owned())
    }
}

/// A JSON-RPC request: `{"jsonrpc":"2.0","id","method","params"?}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JsonRpcRequest<P> {
    /// Always `2.0`.
    pub jsonrpc: JsonRpcVersion,
    /// Its id.
    pub id: RequestId,
    /// The method.
    pub method: String,
    /// The params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> JsonRpcRequest<P> {
    /// A request of `method` with `params`.
    pub fn new(id: impl Into<RequestId>, method: &str, params: Option<P>) -> JsonRpcRequest<P> {
        JsonRpcRequest {
            jsonrpc: JsonRpcVersion,
            id: id.into(),
            method: method.to_owned(),
            params,
        }
    }
}

/// A JSON-RPC notification: `{"jsonrpc":"2.0","method","params"?}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JsonRpcNotification<P> {
    /// Always `2.0`.
    pub jsonrpc: JsonRpcVersion,
    /// The method.
    pub method: String,
    /// The params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> JsonRpcNotification<P> {
    /// A notification of `method` with `params`.
    pub fn new(method: &str, params: Option<P>) -> JsonRpcNotification<P> {
        JsonRpcNotification {
            jsonrpc: JsonRpcVersion,
            method: method.to_owned(),
            params,
        }
    }
}

/// A JSON-RPC success response: `{"jsonrpc":"2.0","id","result"}`; a
/// client's answer to a server request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcResponse<R> {
    /// Always `2.0`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request it answers.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

impl<R> JsonRpcResponse<R> {
    /// The answer `result` to request `id`.
    pub fn new(id: RequestId, result: R) -> JsonRpcResponse<R> {
        JsonRpcResponse {
            jsonrpc: JsonRpcVersion,
            id,
            result,
        }
    }
}

/// A JSON-RPC error response: `{"jsonrpc":"2.0","id"?,"error"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorResponse {
    /// Always `2.0`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request it answers (absent when it could not be read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: RpcError,
}

impl ErrorResponse {
    /// The refusal `error` of request `id`.
    pub fn new(id: Option<RequestId>, error: RpcError) -> ErrorResponse {
        ErrorResponse {
            jsonrpc: JsonRpcVersion,
            id,
            error,
        }
    }
}

/// The `"jsonrpc": "2.0"` member; reading anything else is an error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let version = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        if version == "2.0" {
            Ok(JsonRpcVersion)
        } else {
            Err(D::Error::custom(format!(
                "jsonrpc must be \"2.0\", not {version:?}"
            )))
        }
    }
}

/// Any JSON-RPC message, as a client receives it: told apart by its members
/// (`method` and `id`: a request; `method` alone: a notification; `result`
/// or `error`: a response).
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request: answer it with a [`JsonRpcResponse`] or an [`ErrorResponse`].
    Request {
        /// Its id.
        id: RequestId,
        /// The method ([`ServerRequest::parse`](crate::model::ServerRequest::parse) types it).
        method: String,
        /// The params.
        params: Option<Value>,
    },
    /// A notification ([`ServerNotification::parse`](crate::model::ServerNotification::parse) types it).
    Notification {
        /// The method.
        method: String,
        /// The params.
        params: Option<Value>,
    },
    /// A success response to the request `id`.
    Response {
        /// The request's id.
        id: RequestId,
        /// The result (typed by what was asked: [`ListToolsResult`](crate::model::ListToolsResult), …).
        result: Value,
    },
    /// An error response (`id` absent when the server could not read it).
    Error {
        /// The request's id.
        id: Option<RequestId>,
        /// The error.
        error: RpcError,
    },
}

/// The members of any message, read once and told apart in
/// [`Message`]'s `Deserialize`.
#[derive(Deserialize)]
struct Members {
    #[allow(dead_code)] // read to check it is "2.0"
    jsonrpc: JsonRpcVersion,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default)]
    error: Option<RpcError>,
}

/// A member that is there, even as `null` (`"result": null` is a result).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let m = Members::deserialize(deserializer)?;
        let id = |id: Value| RequestId::deserialize(id).map_err(D::Error::custom);
        match (m.method, m.id, m.result, m.error) {
            (Some(method), Some(request), None, None) => Ok(Message::Request {
                id: id(request)?,
                method,
                params: m.params,
            }),
            (Some(method), None, None, None) => Ok(Message::Notification {
                method,
                params: m.params,
            }),
            (None, Some(response), Some(result), None) => Ok(Message::Response {
                id: id(response)?,
                result,
            }),
            (None, response, None, Some(error)) => Ok(Message::Error {
                id: match response {
                    None | Some(Value::Null) => None,
                    Some(response) => Some(id(response)?),
                },
                error,
            }),
            _ => Err(D::Error::custom(
                "not a JSON-RPC request, notification or response",
            )),
        }
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::Request { id, method, params } => JsonRpcRequest {
                jsonrpc: JsonRpcVersion,
                id: id.clone(),
                method: method.clone(),
                params: params.clone(),
            }
            .serialize(serializer),
            Message::Notification { method, params } => JsonRpcNotification {
                jsonrpc: JsonRpcVersion,
                method: method.clone(),
                params: params.clone(),
            }
            .serialize(serializer),
            Message::Response { id, result } => {
                JsonRpcResponse::new(id.clone(), result).serialize(serializer)
            }
            Message::Error { id, error } => {
                ErrorResponse::new(id.clone(), error.clone()).serialize(serializer)
            }
        }
    }
}
