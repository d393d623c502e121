//! Every message the server sends, as typed serde data: responses, errors,
//! requests and notifications, and the results of each method. Cached
//! pieces (tool definitions, list pages, structured content) are carried as
//! [`RawValue`], so nothing is parsed or copied again.
//!
//! The per-revision differences of results are decided here, from
//! [`ProtocolVersion::carries`](crate::protocol::ProtocolVersion::carries):
//! a [`Reply`] knows the request's id and revision and adds `resultType`,
//! `_meta` and the cache hints where the revision has them.

mod call;
mod notify;
mod resources;
mod results;
// The Skills extension's writers, only where it is served.
#[cfg(feature = "skills")]
mod skills;
mod task_view;

pub(crate) use call::*;
pub(crate) use notify::*;
pub(crate) use resources::ResourceList;
pub(crate) use results::*;
pub(crate) use task_view::*;

use super::RpcError;
use super::frame::{self, Frame, FrameKind};
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
    // The model's error object, written as it is: `{"code", "message", "data"?}`.
    error: &'a RpcError,
}

/// The `data` of an error response.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ErrorData {
    /// `-32601`: the method that does not exist.
    /// The method name.
    Method {
        /// The method name.
        method: String,
    },
    /// `-32602` from `tools/call`: the tool that does not exist.
    /// The tool name.
    Tool {
        /// The tool name.
        name: String,
    },
    /// `-32022`: what was asked and what this connection accepts.
    UnsupportedVersion {
        /// The version asked for.
        requested: String,
        /// The versions this connection accepts.
        supported: Vec<&'static str>,
    },
    /// `-32021`: the client capability the request must declare (by name,
    /// e.g. `elicitation`).
    MissingCapability {
        /// The capabilities, by name.
        #[serde(rename = "requiredCapabilities")]
        required: Capabilities,
    },
}

/// A set of client capabilities, each declared with no options
/// (`{"elicitation":{}}`).
#[derive(Debug)]
pub struct Capabilities(pub Vec<&'static str>);

impl Serialize for Capabilities {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        #[derive(Serialize)]
        struct NoOptions {}
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for name in &self.0 {
            map.serialize_entry(name, &NoOptions {})?;
        }
        map.end()
    }
}

/// The response refusing request `id` with `error` (`id` omitted when the
/// request's id could not be read): the one way an error frame is written.
pub(crate) fn rpc_error(id: Option<&RawValue>, error: &RpcError) -> Frame {
    let response = ErrorResponse {
        jsonrpc: JSONRPC,
        id,
        error,
    };
    frame::encode(
        &response,
        96 + error.message.len(),
        FrameKind::Error(error.error_code()),
    )
}

impl From<ErrorData> for serde_json::Value {
    fn from(data: ErrorData) -> serde_json::Value {
        // Plain strings and maps: serializing them cannot fail.
        serde_json::to_value(data).unwrap_or_default()
    }
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
        FrameKind::Message,
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

    /// What a frame's bytes say it is: a message (it has a `method`), an
    /// error (its code), else a result; as `(message, error code)`.
    fn kind_read_back(frame: &Frame) -> (bool, Option<i64>) {
        let bytes = match frame {
            Frame::Owned(bytes, _) => bytes.clone(),
            Frame::Shared { .. } => return (false, None),
        };
        let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        if value.get("method").is_some() {
            return (true, None);
        }
        let code = value.pointer("/error/code").and_then(|c| c.as_i64());
        assert!(code.is_some() || value.get("result").is_some(), "{value}");
        (false, code)
    }

    fn kind_as_told(frame: &Frame) -> (bool, Option<i64>) {
        match frame.kind() {
            FrameKind::Message => (true, None),
            FrameKind::Result => (false, None),
            FrameKind::Error(code) => (false, Some(code.code())),
        }
    }

    #[test]
    fn every_frame_knows_what_it_carries() {
        use super::notify::{self, ElicitForm, InputRequestRef};
        use crate::protocol::ProtocolVersion;
        use crate::protocol::outgoing::results::tests::meta;
        let id = raw("7");
        let meta = meta();
        let schema = serde_json::json!({"type": "object"});
        let json = raw("{\"sum\":1}");
        let mut frames = vec![
            rpc_error(None, &RpcError::parse_error("bad")),
            rpc_error(Some(&id), &RpcError::method_not_found("no")),
            notify::progress(&notify::Progress {
                message: None,
                progress: 1.0,
                token: &serde_json::json!("t"),
                total: None,
            }),
            notify::log_message(&notify::LogMessage {
                data: serde_json::json!("m"),
                level: crate::level::Level::Info,
                logger: "x",
            }),
            notify::cancelled(&id, "why"),
            notify::tools_list_changed(None),
            notify::subscription_acknowledged(&id, &notify::tests::tools_only()),
            notify::resource_updated("test://a", Some(&id)),
            notify::resources_list_changed(None),
            notify::prompts_list_changed(Some(&id)),
            notify::subscription_closed(&id),
            notify::client_request(
                &raw("\"s1\""),
                &InputRequestRef::Elicit(ElicitForm::new("?", &schema, ProtocolVersion::LATEST)),
            ),
        ];
        for version in ProtocolVersion::ALL {
            let reply = Reply::new(&id, version, &meta);
            frames.push(reply.empty());
            frames.push(reply.tools_page(std::sync::Arc::from("[]"), None, 1000, false));
            frames.push(reply.call_result(&CallToolResultRef::Structured {
                json: &json,
                wrap: false,
                content: &[],
            }));
            frames.push(reply.call_result(&CallToolResultRef::Error("failed")));
        }
        for frame in frames {
            assert_eq!(
                kind_as_told(&frame),
                kind_read_back(&frame),
                "{}",
                text(frame)
            );
        }
    }

    #[test]
    fn errors_omit_an_unknown_id_and_absent_data() {
        let frame = rpc_error(None, &RpcError::parse_error("bad\nline"));
        assert_eq!(
            text(frame),
            "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"bad\\nline\"}}\n"
        );
        let data = ErrorData::UnsupportedVersion {
            requested: "1999".into(),
            supported: vec!["2026-07-28"],
        };
        let missing = ErrorData::MissingCapability {
            required: Capabilities(vec!["elicitation"]),
        };
        assert_eq!(
            serde_json::to_string(&missing).unwrap(),
            "{\"requiredCapabilities\":{\"elicitation\":{}}}"
        );
        let frame = rpc_error(
            Some(&raw("\"x\"")),
            &RpcError::unsupported_protocol_version("no").with_data(data.into()),
        );
        assert_eq!(
            text(frame),
            "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-32022,\"message\":\"no\",\
             \"data\":{\"requested\":\"1999\",\"supported\":[\"2026-07-28\"]}}}\n"
        );
    }
}
