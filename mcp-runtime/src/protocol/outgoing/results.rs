//! The results of each method (`tools/call`'s in `call.rs`), and
//! [`Reply`], which closes a result the way the request's revision needs
//! (`resultType`, `_meta`, cache hints).

use super::notify::InputRequestRef;
use super::{JSONRPC, Response};
use crate::protocol::ProtocolVersion;
use crate::protocol::frame::{self, Frame, FrameKind, Spliced};
use crate::protocol::meta;
use crate::protocol::model::{DiscoverResult, Implementation, InitializeResult};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::Arc;
use std::sync::OnceLock;

/// The `_meta` of 2026-07-28 results: the server's identity, serialized once.
pub(crate) fn server_meta(info: &Implementation) -> Box<RawValue> {
    struct ServerMeta<'a>(&'a Implementation);
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
struct Empty {}

/// The result of a 2026-07-28 call that needs the user's input first.
#[derive(Serialize)]
struct InputRequired<'a> {
    #[serde(rename = "inputRequests")]
    input_requests: InputRequests<'a>,
    #[serde(rename = "requestState")]
    request_state: &'a str,
}

/// The questions of one round, each under its key, in the order asked.
struct InputRequests<'a>(&'a [(&'a str, InputRequestRef<'a>)]);

impl Serialize for InputRequests<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, request) in self.0 {
            map.serialize_entry(key, request)?;
        }
        map.end()
    }
}

/// `ttlMs` and `cacheScope`, on cacheable 2026-07-28 results: `public`
/// (every client may share them) unless a `tools/list` is filtered for its
/// caller (`private`: only the same authorization context may reuse it).
#[derive(Debug, Serialize)]
pub(super) struct CacheHints {
    #[serde(rename = "ttlMs")]
    ttl_ms: u64,
    #[serde(rename = "cacheScope")]
    cache_scope: &'static str,
}

impl CacheHints {
    pub(super) fn public(ttl_ms: u64) -> CacheHints {
        CacheHints {
            ttl_ms,
            cache_scope: "public",
        }
    }

    pub(super) fn private(ttl_ms: u64) -> CacheHints {
        CacheHints {
            ttl_ms,
            cache_scope: "private",
        }
    }
}

/// The fields a `tools/list` result of `version` carries beside `tools`
/// (and `_meta`, which a dump leaves out: it names the serving process), for
/// tool dumps that stand in for a live `tools/list`.
pub(crate) fn list_result_fields(
    version: ProtocolVersion,
    ttl_ms: u64,
) -> serde_json::Map<String, Value> {
    #[derive(Serialize)]
    struct Fields {
        #[serde(flatten)]
        cache: CacheHints,
        #[serde(rename = "resultType")]
        result_type: &'static str,
    }
    if !version.carries().envelope {
        return serde_json::Map::new();
    }
    let fields = Fields {
        cache: CacheHints::public(ttl_ms),
        result_type: "complete",
    };
    match serde_json::to_value(fields) {
        Ok(Value::Object(map)) => map,
        _ => unreachable!("a struct of plain fields serializes to an object"),
    }
}

/// The fields every 2026-07-28 result ends with.
#[derive(Serialize)]
pub(super) struct Trailer<'a> {
    #[serde(rename = "resultType")]
    pub(super) result_type: &'static str,
    #[serde(rename = "_meta")]
    pub(super) meta: &'a RawValue,
}

/// A result body followed by the revision's closing fields.
#[derive(Serialize)]
pub(super) struct Closed<'a, B> {
    #[serde(flatten)]
    pub(super) body: B,
    #[serde(flatten)]
    pub(super) trailer: Option<Trailer<'a>>,
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

/// `prompts/list` result fields: the page itself is shared.
#[derive(Serialize)]
struct ListPrompts<'a> {
    prompts: Spliced,
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<&'a str>,
    #[serde(flatten)]
    cache: Option<CacheHints>,
}

/// A `prompts/get` result: the prompt's description, and its messages'
/// JSON array as the prompt's body serialized it once (copied into the
/// frame as it is, never parsed again).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PromptResultRef<'a> {
    /// The prompt's description.
    pub(crate) description: Option<&'a str>,
    /// The messages' JSON array.
    pub(crate) messages: &'a str,
}

/// The frames of one kind of answer whose envelope is the same every time
/// (a prompt's, with its description; any `resources/read`'s), one
/// template per envelope (legacy, 2026-07-28), each with the server
/// identity it was made with: the envelope is serialized once, and each
/// answer fills in its id and its body.
#[derive(Debug, Default)]
pub(crate) struct AnswerTemplates([OnceLock<(Box<str>, frame::Template)>; 2]);

/// The `prompts/get` result's fields; the messages are filled in
/// ([`frame::Template`]).
#[derive(Serialize)]
struct PromptBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    messages: Spliced,
}

/// The response to one request: its id and revision decide every
/// per-version field of the result.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reply<'a> {
    pub(super) id: &'a RawValue,
    pub(super) version: ProtocolVersion,
    /// The server's identity as 2026-07-28 results carry it in `_meta`.
    pub(super) server_meta: &'a RawValue,
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

    /// The bytes a result of this reply writes besides its body: the
    /// envelope, the id and, in an era whose results carry it, the
    /// `resultType` and the server's `_meta` (which alone can outgrow a
    /// fixed allowance: a server's title and version are its own). Frames
    /// are allocated at body estimate plus this, so a result is written
    /// without growing its buffer.
    pub(super) fn overhead(&self) -> usize {
        let trailer = if self.version.carries().envelope {
            // `,"resultType":"complete","_meta":` and the object.
            40 + self.server_meta.get().len()
        } else {
            0
        };
        160 + self.id.get().len() + trailer
    }

    pub(super) fn trailer(&self, result_type: &'static str) -> Option<Trailer<'a>> {
        self.version.carries().envelope.then_some(Trailer {
            result_type,
            meta: self.server_meta,
        })
    }

    pub(super) fn send<B: Serialize>(
        &self,
        body: B,
        result_type: &'static str,
        capacity: usize,
    ) -> Frame {
        self.respond(
            Closed {
                body,
                trailer: self.trailer(result_type),
            },
            capacity,
        )
    }

    /// The response whose `result` is `result`, closed as this reply's
    /// revision wants, in a frame of its body estimate `capacity` plus the
    /// envelope's [`overhead`](Self::overhead).
    pub(super) fn respond<R: Serialize>(&self, result: R, capacity: usize) -> Frame {
        frame::encode(
            &Response {
                jsonrpc: JSONRPC,
                id: self.id,
                result,
            },
            capacity + self.overhead(),
            FrameKind::Result,
        )
    }

    /// A list page whose one [`Spliced`] field stands for `items`, its
    /// cached JSON array (shared, not copied), with the closing fields.
    pub(super) fn send_shared<B: Serialize>(&self, body: B, items: Arc<str>) -> Frame {
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
            items,
        )
    }

    /// The cache hints of a result every caller may share, where the
    /// revision has them.
    pub(super) fn public_cache(&self, ttl_ms: u64) -> Option<CacheHints> {
        self.version
            .carries()
            .envelope
            .then(|| CacheHints::public(ttl_ms))
    }

    /// An empty result, `{}` (legacy `ping` and `logging/setLevel`).
    pub(crate) fn empty(&self) -> Frame {
        self.send(Empty {}, "complete", 0)
    }

    /// The `initialize` result.
    pub(crate) fn initialize(&self, result: &InitializeResult) -> Frame {
        self.send(result, "complete", 256)
    }

    /// A `tools/call` answered with a task (Tasks extension): the task's
    /// fields, flat, with `resultType: "task"`.
    pub(crate) fn task_created(&self, task: &crate::protocol::model::Task) -> Frame {
        self.send(task, "task", 256)
    }

    /// The `tasks/get` result: the task with what its status carries (the
    /// reply adds `resultType: "complete"`).
    pub(crate) fn task(&self, task: &super::task_view::TaskView<'_>) -> Frame {
        self.send(task, "complete", 512)
    }

    /// The `server/discover` result (its `_meta` is the reply's).
    pub(crate) fn discover(&self, result: &DiscoverResult) -> Frame {
        self.send(result, "complete", 256)
    }

    /// A `tools/list` page: `tools` is the page's JSON array, shared.
    pub(crate) fn tools_page(
        &self,
        tools: Arc<str>,
        next_cursor: Option<&str>,
        ttl_ms: u64,
        per_caller: bool,
    ) -> Frame {
        let body = ListTools {
            tools: Spliced,
            next_cursor,
            cache: self.version.carries().envelope.then(|| {
                if per_caller {
                    CacheHints::private(ttl_ms)
                } else {
                    CacheHints::public(ttl_ms)
                }
            }),
        };
        self.send_shared(body, tools)
    }

    /// A `prompts/list` page: `prompts` is the page's JSON array, shared;
    /// a 2026-07-28 page carries the cache hints (public: every caller
    /// sees the same prompts).
    pub(crate) fn prompts_page(
        &self,
        prompts: Arc<str>,
        next_cursor: Option<&str>,
        ttl_ms: u64,
    ) -> Frame {
        let body = ListPrompts {
            prompts: Spliced,
            next_cursor,
            cache: self.public_cache(ttl_ms),
        };
        self.send_shared(body, prompts)
    }

    /// A `prompts/get` result: `frames`' template for this revision and
    /// server (made on the prompt's first answer), its holes filled with
    /// the id and the messages.
    pub(crate) fn prompt(&self, result: PromptResultRef<'_>, frames: &AnswerTemplates) -> Frame {
        let make = || {
            frame::Template::new(&Response {
                jsonrpc: JSONRPC,
                id: frame::hole(),
                result: Closed {
                    body: PromptBody {
                        description: result.description,
                        messages: Spliced,
                    },
                    trailer: self.trailer("complete"),
                },
            })
        };
        let fills = [self.id.get().as_bytes(), result.messages.as_bytes()];
        self.templated(frames, make, |template| {
            template.fill(&fills, FrameKind::Result)
        })
    }

    /// `fill` on `templates`' template for this revision and server, which
    /// `make` makes the first time. A definition (a prompt's) may be shared
    /// by the servers that list it, and the 2026-07-28 envelope names the
    /// server, so another server's is made anew.
    pub(super) fn templated(
        &self,
        templates: &AnswerTemplates,
        make: impl Fn() -> frame::Template,
        fill: impl FnOnce(&frame::Template) -> Frame,
    ) -> Frame {
        let slot = &templates.0[usize::from(self.version.carries().envelope)];
        let made = slot.get_or_init(|| (self.server_meta.get().into(), make()));
        if made.0.as_ref() == self.server_meta.get() {
            fill(&made.1)
        } else {
            fill(&make())
        }
    }

    /// A `completion/complete` result.
    pub(crate) fn completion(&self, result: &crate::protocol::model::CompleteResult) -> Frame {
        self.send(result, "complete", 256)
    }

    /// A 2026-07-28 `input_required` result: the round's questions, each
    /// under its key (distinct keys: the caller's), and the sealed state.
    pub(crate) fn input_required(
        &self,
        requests: &[(&str, InputRequestRef<'_>)],
        request_state: &str,
    ) -> Frame {
        let body = InputRequired {
            input_requests: InputRequests(requests),
            request_state,
        };
        let size = 256 * requests.len().max(1) + request_state.len();
        self.send(body, "input_required", size)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::protocol::model::{CacheScope, ServerCapabilities};
    use crate::protocol::outgoing::CallToolResultRef;
    use crate::protocol::outgoing::tests::{raw, text};

    fn identity() -> Implementation {
        Implementation {
            title: Some("S".to_owned()),
            ..Implementation::new("s", "1")
        }
    }

    pub(crate) fn meta() -> Box<RawValue> {
        server_meta(&identity().as_of(ProtocolVersion::LATEST))
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
            text(modern.call_result(&CallToolResultRef::Error("no"))),
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"no\"}],\
             \"isError\":true,\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":\
             {\"name\":\"s\",\"title\":\"S\",\"version\":\"1\"}}}}\n"
        );
    }

    #[test]
    fn discovery_and_handshake_results() {
        let id = raw("1");
        let meta = meta();
        let modern = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        let discover: Value = serde_json::from_slice(
            &modern
                .discover(&DiscoverResult {
                    capabilities: ServerCapabilities::default().with_tools(true),
                    instructions: Some("hi".to_owned()),
                    supported_versions: vec!["2026-07-28".to_owned()],
                    ttl_ms: Some(9),
                    cache_scope: Some(CacheScope::Public),
                    meta: None,
                })
                .into_bytes(),
        )
        .unwrap();
        let result = &discover["result"];
        assert_eq!(
            result["supportedVersions"],
            serde_json::json!(["2026-07-28"])
        );
        assert_eq!(
            (result["ttlMs"].as_u64(), result["cacheScope"].as_str()),
            (Some(9), Some("public"))
        );
        assert_eq!(result["resultType"], "complete");
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"]["title"],
            "S"
        );
        let v = ProtocolVersion::V2024_11_05;
        let legacy = Reply::new(&id, v, &meta);
        assert_eq!(
            text(
                legacy.initialize(&InitializeResult {
                    capabilities: ServerCapabilities::default()
                        .with_logging()
                        .with_tools(true),
                    instructions: None,
                    protocol_version: v.as_str().to_owned(),
                    server_info: identity().as_of(v),
                    meta: None,
                })
            ),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"capabilities\":{\"logging\":{},\"tools\":{\"listChanged\":true}},\
             \"protocolVersion\":\"2024-11-05\",\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n"
        );
    }

    #[test]
    fn only_modern_lists_carry_cache_hints() {
        let id = raw("1");
        let meta = meta();
        let legacy = Reply::new(&id, ProtocolVersion::V2025_06_18, &meta);
        assert_eq!(
            text(legacy.tools_page(Arc::from("[{\"name\":\"a\"}]"), Some("c"), 5, false)),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"a\"}],\"nextCursor\":\"c\"}}\n"
        );
        let modern = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        let page = text(modern.tools_page(Arc::from("[]"), None, 5, false));
        assert!(
            page.starts_with("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[],\"ttlMs\":5,\"cacheScope\":\"public\",\"resultType\":\"complete\",\"_meta\":{"),
            "{page}"
        );
        let private = text(modern.tools_page(Arc::from("[]"), None, 5, true));
        assert!(private.contains("\"cacheScope\":\"private\""), "{private}");
    }

    #[test]
    fn input_required_carries_the_questions_in_order_and_the_state() {
        let id = raw("2");
        let meta = meta();
        let schema = serde_json::json!({});
        let form = InputRequestRef::Elicit(super::super::ElicitForm::new(
            "q",
            &schema,
            ProtocolVersion::V2026_07_28,
        ));
        let roots = InputRequestRef::ListRoots(super::super::NoParams {});
        let reply = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        let frame = text(reply.input_required(&[("k", form), ("a", roots)], "s.t"));
        assert!(
            frame.starts_with(
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"inputRequests\":{\
                 \"k\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"q\",\"mode\":\"form\",\"requestedSchema\":{}}},\
                 \"a\":{\"method\":\"roots/list\",\"params\":{}}},\
                 \"requestState\":\"s.t\",\"resultType\":\"input_required\""
            ),
            "{frame}"
        );
    }

    #[test]
    fn a_prompts_frames_are_made_once_per_envelope_and_server() {
        let frames = AnswerTemplates::default();
        let result = PromptResultRef {
            description: Some("Say \"hi\""),
            messages: "[1]",
        };
        let meta = meta();
        let other = server_meta(&Implementation::new("other", "2").as_of(ProtocolVersion::LATEST));
        let answer = |id: &str, version, meta: &RawValue| {
            let id = raw(id);
            text(Reply::new(&id, version, meta).prompt(result, &frames))
        };
        let legacy = "{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":{\"description\":\"Say \\\"hi\\\"\",\"messages\":[1]}}\n";
        for id in ["1", "\"b\"", "1", "22"] {
            assert_eq!(
                answer(id, ProtocolVersion::V2025_11_25, &meta),
                legacy.replace("ID", id)
            );
        }
        let modern = |id: &str, name: &str, rest: &str| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"description\":\"Say \\\"hi\\\"\",\"messages\":[1],\
                 \"resultType\":\"complete\",\"_meta\":{{\"io.modelcontextprotocol/serverInfo\":\
                 {{\"name\":\"{name}\",{rest}}}}}}}}}\n"
            )
        };
        for _ in 0..2 {
            assert_eq!(
                answer("3", ProtocolVersion::V2026_07_28, &meta),
                modern("3", "s", "\"title\":\"S\",\"version\":\"1\"")
            );
            // Another server listing the same prompt names itself.
            assert_eq!(
                answer("4", ProtocolVersion::V2026_07_28, &other),
                modern("4", "other", "\"version\":\"2\"")
            );
        }
    }
}
