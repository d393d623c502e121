//! JSON-RPC and MCP error codes; no other module spells a number.

/// An error code of a JSON-RPC error response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorCode(i64);

impl ErrorCode {
    /// The line is not JSON.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// The JSON is not a valid JSON-RPC request.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// No such method (or one behind a capability the server lacks).
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// The params are not what the method takes.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// The server failed.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// 2024-11-05 to 2025-11-25: no resource at the URI `resources/read`
    /// names (2026-07-28 retires it for [`ErrorCode::INVALID_PARAMS`]).
    pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// The caller's token lacks a scope the tool needs (a server-defined
    /// code, in the range JSON-RPC leaves to implementations; on HTTP the
    /// response is `403` with the `insufficient_scope` challenge).
    pub const FORBIDDEN: ErrorCode = ErrorCode(-32003);
    /// 2026-07-28 over HTTP: a routing header disagrees with the body, is
    /// missing, or is malformed.
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// 2026-07-28: the request needs a client capability it did not declare.
    pub const MISSING_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// 2026-07-28: the request's protocol version is not served here.
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

    /// The code of a number read from the wire (any number: JSON-RPC
    /// leaves most of the range to implementations).
    pub const fn from_code(code: i64) -> ErrorCode {
        ErrorCode(code)
    }

    /// The number on the wire.
    pub const fn code(self) -> i64 {
        self.0
    }
}
