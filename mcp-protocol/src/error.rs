//! The one JSON-RPC error object, both directions: what the server's session
//! and transports refuse with, and what a client reads from an error
//! response.

use crate::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;

/// A JSON-RPC error object: `{"code", "message", "data"?}`.
///
/// The constructors are the codes of [`ErrorCode`], one each; a transport
/// maps the code to its own status (HTTP: mcp-runtime's
/// `transport::http::status_of`), nothing else decides it.
///
/// ```
/// use mcpfn_protocol::RpcError;
/// let error = RpcError::method_not_found("Method not found: x");
/// assert_eq!(error.code, -32601);
/// assert_eq!(
///     serde_json::to_string(&error).unwrap(),
///     r#"{"code":-32601,"message":"Method not found: x"}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// The error code.
    pub code: i64,
    /// What went wrong, for a person.
    pub message: String,
    /// More about it, for a program (its shape depends on the code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error of `code` with no data.
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError {
            code: code.code(),
            message: message.into().into_owned(),
            data: None,
        }
    }

    /// The same error with `data`.
    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    /// Its code as an [`ErrorCode`].
    pub fn error_code(&self) -> ErrorCode {
        ErrorCode::from_code(self.code)
    }

    /// `-32700`: the message is not JSON.
    pub fn parse_error(message: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError::new(ErrorCode::PARSE_ERROR, message)
    }

    /// `-32600`: the JSON is not a valid JSON-RPC request.
    pub fn invalid_request(message: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError::new(ErrorCode::INVALID_REQUEST, message)
    }

    /// `-32601`: no such method.
    pub fn method_not_found(message: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError::new(ErrorCode::METHOD_NOT_FOUND, message)
    }

    /// `-32602`: the params are not what the method takes.
    pub fn invalid_params(message: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// `-32603`: the server failed.
    pub fn internal_error(message: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError::new(ErrorCode::INTERNAL_ERROR, message)
    }

    /// `-32003`: the caller lacks a scope the request needs.
    pub fn forbidden(message: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError::new(ErrorCode::FORBIDDEN, message)
    }

    /// `-32020`: a 2026-07-28 routing header disagrees with the body, is
    /// missing or malformed.
    pub fn header_mismatch(message: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError::new(ErrorCode::HEADER_MISMATCH, message)
    }

    /// `-32021`: the request needs a client capability it did not declare.
    pub fn missing_client_capability(message: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError::new(ErrorCode::MISSING_CLIENT_CAPABILITY, message)
    }

    /// `-32022`: the request's protocol version is not served here.
    pub fn unsupported_protocol_version(message: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, message)
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for RpcError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_constructor_carries_its_code() {
        type Make = fn(&'static str) -> RpcError;
        let cases: [(Make, ErrorCode); 9] = [
            (RpcError::parse_error, ErrorCode::PARSE_ERROR),
            (RpcError::invalid_request, ErrorCode::INVALID_REQUEST),
            (RpcError::method_not_found, ErrorCode::METHOD_NOT_FOUND),
            (RpcError::invalid_params, ErrorCode::INVALID_PARAMS),
            (RpcError::internal_error, ErrorCode::INTERNAL_ERROR),
            (RpcError::forbidden, ErrorCode::FORBIDDEN),
            (RpcError::header_mismatch, ErrorCode::HEADER_MISMATCH),
            (
                RpcError::missing_client_capability,
                ErrorCode::MISSING_CLIENT_CAPABILITY,
            ),
            (
                RpcError::unsupported_protocol_version,
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            ),
        ];
        for (make, code) in cases {
            let error = make("m");
            assert_eq!((error.code, error.error_code()), (code.code(), code));
        }
    }

    #[test]
    fn it_round_trips_and_skips_absent_data() {
        let error = RpcError::invalid_params("bad").with_data(json!({"name": "t"}));
        let wire = json!({"code": -32602, "message": "bad", "data": {"name": "t"}});
        assert_eq!(serde_json::to_value(&error).unwrap(), wire);
        assert_eq!(serde_json::from_value::<RpcError>(wire).unwrap(), error);
        let bare: RpcError =
            serde_json::from_value(json!({"code": 1, "message": "x", "extra": 0})).unwrap();
        assert_eq!(bare.data, None);
        assert_eq!(bare.to_string(), "JSON-RPC error 1: x");
    }
}
