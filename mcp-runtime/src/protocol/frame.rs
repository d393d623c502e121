//! Writers of outgoing frames: one compact JSON-RPC message and a newline.
//!
//! Results are assembled from pre-serialized pieces (the id as the client sent
//! it, cached tool lists), so a response is one allocation and no `Value` tree.

use super::ErrorCode;
use serde_json::Value;
use std::sync::Arc;

const RESULT_HEAD: &str = "{\"jsonrpc\":\"2.0\",\"id\":";

/// An outgoing frame. Large cached bodies (tool lists) are shared, not
/// copied: the writer sends head, body and tail in one vectored write.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A whole frame, newline included.
    Owned(Vec<u8>),
    /// `head` + `body` + `tail` make the frame (the tail has the newline).
    Shared {
        head: Vec<u8>,
        body: Arc<str>,
        tail: Vec<u8>,
    },
}

impl From<Vec<u8>> for Frame {
    fn from(bytes: Vec<u8>) -> Frame {
        Frame::Owned(bytes)
    }
}

/// Starts a result frame, `{"jsonrpc":"2.0","id":<id>,"result":`; the caller
/// appends the result object and then [`end_result`].
pub(crate) fn start_result(id: &str, capacity: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(RESULT_HEAD.len() + id.len() + 12 + capacity);
    out.extend_from_slice(RESULT_HEAD.as_bytes());
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b",\"result\":");
    out
}

/// Ends a frame begun with [`start_result`].
pub(crate) fn end_result(out: &mut Vec<u8>) {
    out.extend_from_slice(b"}\n");
}

/// `{"jsonrpc":"2.0","id":<id>,"result":<result>}\n`; `result` is JSON text.
pub(crate) fn result(id: &str, result: &str) -> Vec<u8> {
    let mut out = start_result(id, result.len());
    out.extend_from_slice(result.as_bytes());
    end_result(&mut out);
    out
}

/// An error response; `id` is omitted when the request's id could not be read.
pub(crate) fn error(
    id: Option<&str>,
    code: ErrorCode,
    message: &str,
    data: Option<&Value>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(96 + message.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",");
    if let Some(id) = id {
        out.extend_from_slice(b"\"id\":");
        out.extend_from_slice(id.as_bytes());
        out.push(b',');
    }
    out.extend_from_slice(b"\"error\":{\"code\":");
    out.extend_from_slice(code.code().to_string().as_bytes());
    out.extend_from_slice(b",\"message\":");
    push_json_string(&mut out, message);
    if let Some(data) = data {
        out.extend_from_slice(b",\"data\":");
        push_json(&mut out, data);
    }
    out.extend_from_slice(b"}}\n");
    out
}

/// A request frame (server to client); `id` is JSON text.
pub(crate) fn request(id: &str, method: &str, params: &Value) -> Vec<u8> {
    let mut head = Vec::with_capacity(RESULT_HEAD.len() + id.len() + 1);
    head.extend_from_slice(RESULT_HEAD.as_bytes());
    head.extend_from_slice(id.as_bytes());
    head.push(b',');
    with_method(head, method, params)
}

/// A notification frame.
pub(crate) fn notification(method: &str, params: &Value) -> Vec<u8> {
    with_method(b"{\"jsonrpc\":\"2.0\",".to_vec(), method, params)
}

/// Completes a frame begun with `head` with its method and params.
fn with_method(mut out: Vec<u8>, method: &str, params: &Value) -> Vec<u8> {
    out.extend_from_slice(b"\"method\":");
    push_json_string(&mut out, method);
    out.extend_from_slice(b",\"params\":");
    push_json(&mut out, params);
    out.extend_from_slice(b"}\n");
    out
}

/// Appends `text` as a JSON string literal.
pub(crate) fn push_json_string(out: &mut Vec<u8>, text: &str) {
    // Writing into a Vec cannot fail, and a str always serializes.
    serde_json::to_writer(&mut *out, text).unwrap_or_default();
}

/// Appends `value` as compact JSON.
pub(crate) fn push_json(out: &mut Vec<u8>, value: &Value) {
    // A Value always serializes; writing into a Vec cannot fail.
    serde_json::to_writer(&mut *out, value).unwrap_or_default();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_single_lines_of_json_rpc() {
        let ok = result("7", "{}");
        assert_eq!(ok, b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n");
        let err = error(None, ErrorCode::PARSE_ERROR, "bad\nline", None);
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"bad\\nline\"}}\n"
        );
        let with_data = error(
            Some("\"x\""),
            ErrorCode::METHOD_NOT_FOUND,
            "Method not found",
            Some(&serde_json::json!({"method": "nope"})),
        );
        let parsed: Value = serde_json::from_slice(&with_data).unwrap();
        assert_eq!(parsed["id"], "x");
        assert_eq!(parsed["error"]["data"]["method"], "nope");
    }
}
