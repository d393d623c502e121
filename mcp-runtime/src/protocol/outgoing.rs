//! Every message the server sends, as typed serde data: responses, errors,
//! requests and notifications, and the results of each method. Cached
//! pieces (tool definitions, list pages, structured content) are carried as
//! [`RawValue`], so nothing is parsed or copied again.
//!
//! The per-revision differences of results are decided here, from
//! [`ProtocolVersion::carries`]: a [`Reply`] knows the request's id and
//! revision and adds `resultType`, `_meta` and the cache hints where the
//! revision has them.

use super::frame::{self, Frame, Spliced};
use super::meta;
use super::{ErrorCode, ProtocolVersion};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;

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
    /// `-32021`: the capabilities the request must declare.
    MissingCapabilities {
        #[serde(rename = "requiredCapabilities")]
        required: Value,
    },
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

#[derive(Serialize)]
struct Request<'a, P> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    method: &'a str,
    params: P,
}

/// `notifications/progress`.
pub(crate) fn progress(
    token: &Value,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) -> Frame {
    #[derive(Serialize)]
    struct Progress<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<&'a str>,
        progress: f64,
        #[serde(rename = "progressToken")]
        token: &'a Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
    }
    notification(
        "notifications/progress",
        Progress {
            message,
            progress,
            token,
            total,
        },
    )
}

/// `notifications/message`: a log line for the client.
pub(crate) fn log_message(level: &str, logger: &str, data: &Value) -> Frame {
    #[derive(Serialize)]
    struct Log<'a> {
        data: &'a Value,
        level: &'a str,
        logger: &'a str,
    }
    notification(
        "notifications/message",
        Log {
            data,
            level,
            logger,
        },
    )
}

/// `notifications/cancelled` for a request of ours the client need not answer.
pub(crate) fn cancelled(request_id: &RawValue, reason: &str) -> Frame {
    #[derive(Serialize)]
    struct Cancelled<'a> {
        reason: &'a str,
        #[serde(rename = "requestId")]
        request_id: &'a RawValue,
    }
    notification("notifications/cancelled", Cancelled { reason, request_id })
}

/// `_meta` naming the subscription a message belongs to (2026-07-28).
struct SubscriptionMeta<'a>(&'a RawValue);

impl Serialize for SubscriptionMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(meta::SUBSCRIPTION_ID, self.0)?;
        map.end()
    }
}

/// `notifications/tools/list_changed`, tagged with a subscription's id in
/// the 2026-07-28 era.
pub(crate) fn tools_list_changed(subscription: Option<&RawValue>) -> Frame {
    #[derive(Serialize)]
    struct Changed<'a> {
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<SubscriptionMeta<'a>>,
    }
    notification(
        "notifications/tools/list_changed",
        Changed {
            meta: subscription.map(SubscriptionMeta),
        },
    )
}

/// `notifications/subscriptions/acknowledged`: the first message of a
/// `subscriptions/listen` stream, with the notifications it will carry.
pub(crate) fn subscription_acknowledged(id: &RawValue, tools_list_changed: bool) -> Frame {
    #[derive(Serialize)]
    struct Honoured {
        #[serde(rename = "toolsListChanged", skip_serializing_if = "is_false")]
        tools_list_changed: bool,
    }
    #[derive(Serialize)]
    struct Acknowledged<'a> {
        #[serde(rename = "_meta")]
        meta: SubscriptionMeta<'a>,
        notifications: Honoured,
    }
    notification(
        "notifications/subscriptions/acknowledged",
        Acknowledged {
            meta: SubscriptionMeta(id),
            notifications: Honoured { tools_list_changed },
        },
    )
}

fn is_false(value: &bool) -> bool {
    !value
}

/// The final response of a `subscriptions/listen` stream, at shutdown.
pub(crate) fn subscription_closed(id: &RawValue) -> Frame {
    #[derive(Serialize)]
    struct Closed<'a> {
        #[serde(rename = "_meta")]
        meta: SubscriptionMeta<'a>,
        #[serde(rename = "resultType")]
        result_type: &'static str,
    }
    frame::encode(
        &Response {
            jsonrpc: JSONRPC,
            id,
            result: Closed {
                meta: SubscriptionMeta(id),
                result_type: "complete",
            },
        },
        128,
    )
}

/// The params of `elicitation/create` in form mode.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ElicitForm<'a> {
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'static str>,
    #[serde(rename = "requestedSchema")]
    requested_schema: &'a Value,
}

impl<'a> ElicitForm<'a> {
    /// The form as a session of `version` takes it.
    pub(crate) fn new(
        message: &'a str,
        requested_schema: &'a Value,
        version: ProtocolVersion,
    ) -> Self {
        ElicitForm {
            message,
            mode: version.carries().elicitation_mode.then_some("form"),
            requested_schema,
        }
    }
}

/// An `elicitation/create` request to the client (legacy sessions).
pub(crate) fn elicitation_request(id: &RawValue, form: &ElicitForm<'_>) -> Frame {
    frame::encode(
        &Request {
            jsonrpc: JSONRPC,
            id,
            method: "elicitation/create",
            params: form,
        },
        256,
    )
}

/// `Implementation`: a name, a version and (from 2025-06-18) a title.
#[derive(Debug, Serialize)]
pub(crate) struct Implementation<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    version: &'a str,
}

impl<'a> Implementation<'a> {
    /// The implementation as a session of `revision` sees it.
    pub(crate) fn new(
        name: &'a str,
        version: &'a str,
        title: Option<&'a str>,
        revision: ProtocolVersion,
    ) -> Self {
        Implementation {
            name,
            title: title.filter(|_| revision.carries().structured_output),
            version,
        }
    }
}

/// The `_meta` of 2026-07-28 results: the server's identity, serialized once.
pub(crate) fn server_meta(info: &Implementation<'_>) -> Box<RawValue> {
    struct ServerMeta<'a>(&'a Implementation<'a>);
    impl Serialize for ServerMeta<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(1))?;
            map.serialize_entry(meta::SERVER_INFO, self.0)?;
            map.end()
        }
    }
    serde_json::value::to_raw_value(&ServerMeta(info)).unwrap_or_else(|_| empty_object())
}

fn empty_object() -> Box<RawValue> {
    RawValue::from_string("{}".to_owned()).unwrap_or_else(|_| unreachable!("`{{}}` is JSON"))
}

#[derive(Serialize)]
struct ToolsCapability {
    #[serde(rename = "listChanged")]
    list_changed: bool,
}

#[derive(Serialize)]
struct Empty {}

/// The result of `initialize`.
#[derive(Serialize)]
pub(crate) struct InitializeResult<'a> {
    capabilities: LegacyCapabilities,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    #[serde(rename = "protocolVersion")]
    protocol_version: &'static str,
    #[serde(rename = "serverInfo")]
    server_info: Implementation<'a>,
}

#[derive(Serialize)]
struct LegacyCapabilities {
    logging: Empty,
    tools: ToolsCapability,
}

impl<'a> InitializeResult<'a> {
    /// The handshake result for the negotiated `version`.
    pub(crate) fn new(
        version: ProtocolVersion,
        server_info: Implementation<'a>,
        instructions: Option<&'a str>,
    ) -> Self {
        InitializeResult {
            capabilities: LegacyCapabilities {
                logging: Empty {},
                tools: ToolsCapability { list_changed: true },
            },
            instructions,
            protocol_version: version.as_str(),
            server_info,
        }
    }
}

/// The result of `server/discover` (2026-07-28).
#[derive(Serialize)]
pub(crate) struct DiscoverResult<'a> {
    #[serde(rename = "cacheScope")]
    cache_scope: &'static str,
    capabilities: ModernCapabilities,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    #[serde(rename = "supportedVersions")]
    supported_versions: [&'static str; 1],
    #[serde(rename = "ttlMs")]
    ttl_ms: u64,
}

#[derive(Serialize)]
struct ModernCapabilities {
    tools: ToolsCapability,
}

impl<'a> DiscoverResult<'a> {
    /// What this server offers, cacheable for `ttl_ms`.
    pub(crate) fn new(instructions: Option<&'a str>, ttl_ms: u64) -> Self {
        DiscoverResult {
            cache_scope: "public",
            capabilities: ModernCapabilities {
                tools: ToolsCapability { list_changed: true },
            },
            instructions,
            supported_versions: [ProtocolVersion::LATEST.as_str()],
            ttl_ms,
        }
    }
}

/// The result of `tools/call`.
#[derive(Debug)]
pub(crate) enum CallToolResult<'a> {
    /// Structured output (`structuredContent` where the revision has it)
    /// and its text mirror; `wrap` puts it under `{"result": …}`.
    Structured { json: &'a RawValue, wrap: bool },
    /// Content blocks, already shaped for the revision.
    Content(Vec<Value>),
    /// An `isError` result with this text.
    Error(&'a str),
}

/// `{"result": …}`, the object root older revisions need around other roots.
#[derive(Serialize)]
struct Wrapped<'a> {
    result: &'a RawValue,
}

/// A text content block.
#[derive(Serialize)]
struct TextBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// The structured result of a call, ready to send: `text` compacted to one
/// line when needed; `Err` when it is not JSON.
pub(crate) fn structured_json(text: &str) -> Result<Cow<'_, RawValue>, serde_json::Error> {
    let raw: &RawValue = serde_json::from_str(text)?;
    // Hand-built outcomes may hold pretty JSON: a newline would split the frame.
    if !text.contains(['\n', '\r']) {
        return Ok(Cow::Borrowed(raw));
    }
    let value: Value = serde_json::from_str(text)?;
    Ok(Cow::Owned(serde_json::value::to_raw_value(&value)?))
}

/// [`CallToolResult`] for one revision.
struct CallToolBody<'a> {
    result: &'a CallToolResult<'a>,
    structured_output: bool,
}

impl Serialize for CallToolBody<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.result {
            CallToolResult::Structured { json, wrap } => {
                let wrapped;
                let text = if *wrap {
                    wrapped = serde_json::to_string(&Wrapped { result: json })
                        .map_err(serde::ser::Error::custom)?;
                    wrapped.as_str()
                } else {
                    json.get()
                };
                let mut body = serializer.serialize_struct("CallToolResult", 2)?;
                body.serialize_field("content", &[TextBlock { kind: "text", text }])?;
                if self.structured_output {
                    if *wrap {
                        body.serialize_field("structuredContent", &Wrapped { result: json })?;
                    } else {
                        body.serialize_field("structuredContent", json)?;
                    }
                }
                body.end()
            }
            CallToolResult::Content(blocks) => {
                let mut body = serializer.serialize_struct("CallToolResult", 1)?;
                body.serialize_field("content", blocks)?;
                body.end()
            }
            CallToolResult::Error(text) => {
                let mut body = serializer.serialize_struct("CallToolResult", 2)?;
                body.serialize_field("content", &[TextBlock { kind: "text", text }])?;
                body.serialize_field("isError", &true)?;
                body.end()
            }
        }
    }
}

/// The result of a 2026-07-28 call that needs the user's input first.
#[derive(Serialize)]
struct InputRequired<'a> {
    #[serde(rename = "inputRequests")]
    input_requests: InputRequests<'a>,
    #[serde(rename = "requestState")]
    request_state: &'a str,
}

struct InputRequests<'a> {
    key: &'a str,
    form: &'a ElicitForm<'a>,
}

impl Serialize for InputRequests<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct InputRequest<'a> {
            method: &'static str,
            params: &'a ElicitForm<'a>,
        }
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(
            self.key,
            &InputRequest {
                method: "elicitation/create",
                params: self.form,
            },
        )?;
        map.end()
    }
}

/// `ttlMs` and `cacheScope`, on cacheable 2026-07-28 results.
#[derive(Serialize)]
struct CacheHints {
    #[serde(rename = "ttlMs")]
    ttl_ms: u64,
    #[serde(rename = "cacheScope")]
    cache_scope: &'static str,
}

/// The fields every 2026-07-28 result ends with.
#[derive(Serialize)]
struct Trailer<'a> {
    #[serde(rename = "resultType")]
    result_type: &'static str,
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
}

/// A result body followed by the revision's closing fields.
#[derive(Serialize)]
struct Closed<'a, B> {
    #[serde(flatten)]
    body: B,
    #[serde(flatten)]
    trailer: Option<Trailer<'a>>,
}

/// `tools/list` result fields: the page itself is shared.
#[derive(Serialize)]
struct ListTools<'a> {
    tools: Spliced,
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<&'a str>,
    #[serde(flatten)]
    cache: Option<CacheHints>,
}

/// The response to one request: its id and revision decide every
/// per-version field of the result.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reply<'a> {
    id: &'a RawValue,
    version: ProtocolVersion,
    /// The server's identity as 2026-07-28 results carry it in `_meta`.
    server_meta: &'a RawValue,
}

impl<'a> Reply<'a> {
    /// A reply to request `id` of a session or request of `version`.
    pub(crate) fn new(
        id: &'a RawValue,
        version: ProtocolVersion,
        server_meta: &'a RawValue,
    ) -> Self {
        Reply {
            id,
            version,
            server_meta,
        }
    }

    fn trailer(&self, result_type: &'static str) -> Option<Trailer<'a>> {
        self.version.carries().envelope.then_some(Trailer {
            result_type,
            meta: self.server_meta,
        })
    }

    fn send<B: Serialize>(&self, body: B, result_type: &'static str, capacity: usize) -> Frame {
        let result = Closed {
            body,
            trailer: self.trailer(result_type),
        };
        frame::encode(
            &Response {
                jsonrpc: JSONRPC,
                id: self.id,
                result,
            },
            capacity + self.id.get().len() + 160,
        )
    }

    /// An empty result, `{}` (legacy `ping` and `logging/setLevel`).
    pub(crate) fn empty(&self) -> Frame {
        self.send(Empty {}, "complete", 0)
    }

    /// The `initialize` result.
    pub(crate) fn initialize(&self, result: &InitializeResult<'_>) -> Frame {
        self.send(result, "complete", 256)
    }

    /// The `server/discover` result.
    pub(crate) fn discover(&self, result: &DiscoverResult<'_>) -> Frame {
        self.send(result, "complete", 256)
    }

    /// A `tools/list` page: `tools` is the page's JSON array, shared.
    pub(crate) fn tools_page(
        &self,
        tools: Arc<str>,
        next_cursor: Option<&str>,
        ttl_ms: u64,
    ) -> Frame {
        let body = ListTools {
            tools: Spliced,
            next_cursor,
            cache: self.version.carries().envelope.then_some(CacheHints {
                ttl_ms,
                cache_scope: "public",
            }),
        };
        let result = Closed {
            body,
            trailer: self.trailer("complete"),
        };
        frame::encode_shared(
            &Response {
                jsonrpc: JSONRPC,
                id: self.id,
                result,
            },
            tools,
        )
    }

    /// A `tools/call` result.
    pub(crate) fn call_result(&self, result: &CallToolResult<'_>) -> Frame {
        let capacity = match result {
            CallToolResult::Structured { json, .. } => 2 * json.get().len() + 64,
            CallToolResult::Error(text) => text.len() + 64,
            CallToolResult::Content(_) => 256,
        };
        let body = CallToolBody {
            result,
            structured_output: self.version.carries().structured_output,
        };
        self.send(body, "complete", capacity)
    }

    /// A 2026-07-28 `input_required` result: the question and the sealed state.
    pub(crate) fn input_required(
        &self,
        key: &str,
        form: &ElicitForm<'_>,
        request_state: &str,
    ) -> Frame {
        let body = InputRequired {
            input_requests: InputRequests { key, form },
            request_state,
        };
        self.send(body, "input_required", 256 + request_state.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    fn text(frame: Frame) -> String {
        String::from_utf8(frame.into_bytes()).unwrap()
    }

    fn meta() -> Box<RawValue> {
        server_meta(&Implementation::new(
            "s",
            "1",
            Some("S"),
            ProtocolVersion::LATEST,
        ))
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

    #[test]
    fn only_modern_results_carry_result_type_and_server_meta() {
        let id = raw("7");
        let meta = meta();
        let legacy = Reply::new(&id, ProtocolVersion::V2025_11_25, &meta);
        assert_eq!(
            text(legacy.empty()),
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n"
        );
        let modern = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        assert_eq!(
            text(modern.call_result(&CallToolResult::Error("no"))),
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"no\"}],\
             \"isError\":true,\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":\
             {\"name\":\"s\",\"title\":\"S\",\"version\":\"1\"}}}}\n"
        );
    }

    #[test]
    fn only_modern_lists_carry_cache_hints() {
        let id = raw("1");
        let meta = meta();
        let legacy = Reply::new(&id, ProtocolVersion::V2025_06_18, &meta);
        assert_eq!(
            text(legacy.tools_page(Arc::from("[{\"name\":\"a\"}]"), Some("c"), 5)),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"a\"}],\"nextCursor\":\"c\"}}\n"
        );
        let modern = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        let page = text(modern.tools_page(Arc::from("[]"), None, 5));
        assert!(
            page.starts_with("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[],\"ttlMs\":5,\"cacheScope\":\"public\",\"resultType\":\"complete\",\"_meta\":{"),
            "{page}"
        );
    }

    #[test]
    fn structured_output_is_wrapped_and_mirrored_per_revision() {
        let id = raw("1");
        let meta = meta();
        let json = raw("3.0");
        let wrapped = CallToolResult::Structured {
            json: &json,
            wrap: true,
        };
        let v0618 = Reply::new(&id, ProtocolVersion::V2025_06_18, &meta);
        assert_eq!(
            text(v0618.call_result(&wrapped)),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"result\\\":3.0}\"}],\
             \"structuredContent\":{\"result\":3.0}}}\n"
        );
        let plain = CallToolResult::Structured {
            json: &json,
            wrap: false,
        };
        let v0326 = Reply::new(&id, ProtocolVersion::V2025_03_26, &meta);
        assert_eq!(
            text(v0326.call_result(&plain)),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"3.0\"}]}}\n"
        );
    }

    #[test]
    fn pretty_structured_json_is_compacted_and_broken_json_refused() {
        assert_eq!(structured_json("{\"a\":1}").unwrap().get(), "{\"a\":1}");
        assert_eq!(
            structured_json("{\n \"a\": 1\n}").unwrap().get(),
            "{\"a\":1}"
        );
        assert!(structured_json("{").is_err());
    }

    #[test]
    fn elicitation_gains_a_mode_in_2025_11_25() {
        let schema = serde_json::json!({"type": "object"});
        let old = ElicitForm::new("q", &schema, ProtocolVersion::V2025_06_18);
        let new = ElicitForm::new("q", &schema, ProtocolVersion::V2025_11_25);
        assert_eq!(
            serde_json::to_string(&old).unwrap(),
            "{\"message\":\"q\",\"requestedSchema\":{\"type\":\"object\"}}"
        );
        assert_eq!(
            serde_json::to_string(&new).unwrap(),
            "{\"message\":\"q\",\"mode\":\"form\",\"requestedSchema\":{\"type\":\"object\"}}"
        );
    }

    #[test]
    fn input_required_carries_the_question_and_the_state() {
        let id = raw("2");
        let meta = meta();
        let schema = serde_json::json!({});
        let form = ElicitForm::new("q", &schema, ProtocolVersion::V2026_07_28);
        let reply = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        let frame: Value =
            serde_json::from_slice(&reply.input_required("k", &form, "s.t").into_bytes()).unwrap();
        assert_eq!(
            frame["result"]["inputRequests"]["k"]["method"],
            "elicitation/create"
        );
        assert_eq!(frame["result"]["requestState"], "s.t");
        assert_eq!(frame["result"]["resultType"], "input_required");
    }

    #[test]
    fn notifications_are_typed() {
        let id = raw("3");
        assert_eq!(
            text(tools_list_changed(None)),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{}}\n"
        );
        assert_eq!(
            text(subscription_acknowledged(&id, true)),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":\
             {\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":3},\"notifications\":{\"toolsListChanged\":true}}}\n"
        );
        assert_eq!(
            text(subscription_closed(&id)),
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":3},\"resultType\":\"complete\"}}\n"
        );
        assert_eq!(
            text(progress(&Value::from("t"), 1.0, Some(2.0), None)),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1.0,\"progressToken\":\"t\",\"total\":2.0}}\n"
        );
    }
}
