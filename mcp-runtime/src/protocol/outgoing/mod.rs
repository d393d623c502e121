//! Every message the server sends, as typed serde data: responses, errors,
//! requests and notifications, and the results of each method. Cached
//! pieces (tool definitions, list pages, structured content) are carried as
//! [`RawValue`], so nothing is parsed or copied again.
//!
//! The per-revision differences of results are decided here, from
//! [`ProtocolVersion::carries`](crate::ProtocolVersion::carries): a [`Reply`] knows the request's id and
//! revision and adds `resultType`, `_meta` and the cache hints where the
//! revision has them.

mod call;
mod notify;
mod results;

pub(crate) use call::*;
pub(crate) use notify::*;
pub(crate) use results::*;

use super::ErrorCode;
use super::frame::{self, Frame};
use serde::Serialize;
use serde_json::value::RawValue;

const JSONRPC: &str = "2.0";

#[derive(Serialize)]
struct Response<'a, R> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: R,
}

#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RawValue>,
    error: ErrorBody<'a>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: i64,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a ErrorData>,
}

/// The `data` of an error response.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum ErrorData {
    /// `-32601`: the method that does not exist.
    Method { method: String },
    /// `-32602` from `tools/call`: the tool that does not exist.
    Tool { name: String },
    /// `-32022`: what was asked and what this connection accepts.
    UnsupportedVersion {
        requested: String,
        supported: Vec<&'static str>,
    },
    /// `-32021`: the client capability the request must declare (by name,
    /// e.g. `elicitation`).
    MissingCapability {
        #[serde(rename = "requiredCapabilities")]
        required: Capabilities,
    },
}

/// A set of client capabilities, each declared with no options
/// (`{"elicitation":{}}`).
#[derive(Debug)]
pub(crate) struct Capabilities(pub(crate) &'static [&'static str]);

impl Serialize for Capabilities {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        #[derive(Serialize)]
        struct NoOptions {}
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for name in self.0 {
            map.serialize_entry(name, &NoOptions {})?;
        }
        map.end()
    }
}

/// An error response; `id` is omitted when the request's id could not be read.
pub(crate) fn error(
    id: Option<&RawValue>,
    code: ErrorCode,
    message: &str,
    data: Option<&ErrorData>,
) -> Frame {
    let response = ErrorResponse {
        jsonrpc: JSONRPC,
        id,
        error: ErrorBody {
            code: code.code(),
            message,
            data,
        },
    };
    frame::encode(&response, 96 + message.len())
}

#[derive(Serialize)]
struct Notification<'a, P> {
    jsonrpc: &'static str,
    method: &'a str,
    params: P,
}

fn notification<P: Serialize>(method: &str, params: P) -> Frame {
    frame::encode(
        &Notification {
            jsonrpc: JSONRPC,
            method,
            params,
        },
        160,
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    pub(crate) fn text(frame: Frame) -> String {
        String::from_utf8(frame.into_bytes()).unwrap()
    }

    #[test]
    fn errors_omit_an_unknown_id_and_absent_data() {
        let frame = error(None, ErrorCode::PARSE_ERROR, "bad\nline", None);
        assert_eq!(
            text(frame),
            "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"bad\\nline\"}}\n"
        );
        let data = ErrorData::UnsupportedVersion {
            requested: "1999".into(),
            supported: vec!["2026-07-28"],
        };
        let missing = ErrorData::MissingCapability {
            required: Capabilities(&["elicitation"]),
        };
        assert_eq!(
            serde_json::to_string(&missing).unwrap(),
            "{\"requiredCapabilities\":{\"elicitation\":{}}}"
        );
        let frame = error(
            Some(&raw("\"x\"")),
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            "no",
            Some(&data),
        );
        assert_eq!(
            text(frame),
            "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-32022,\"message\":\"no\",\
             \"data\":{\"requested\":\"1999\",\"supported\":[\"2026-07-28\"]}}}\n"
        );
    }
}
