//! The client direction of `mcpfn_protocol::model` against the real server:
//! every request a client builds with it is valid against the official
//! schema of its revision, goes to the `everything` example over stdio, and
//! what comes back (results, server requests, notifications) parses into
//! the typed model.

use crate::common;

use common::{Peer, assert_valid};
use mcpfn_protocol::meta::Envelope;
use mcpfn_protocol::model::*;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

fn client() -> Implementation {
    Implementation::new("model-test", "1.0.0")
}

fn envelope() -> Envelope<'static> {
    ClientCapabilities {
        elicitation: Some(JsonObject::new()),
        ..ClientCapabilities::default()
    }
    .envelope(MODERN, &client())
    .unwrap()
}

/// `message` as JSON, checked against definition `def` of `version`'s schema.
fn checked(version: &str, def: &str, message: &impl Serialize) -> Value {
    let value = serde_json::to_value(message).unwrap();
    assert_valid(version, def, &value);
    value
}

/// The next line, as the typed envelope of any message.
fn next(peer: &mut Peer) -> Message {
    serde_json::from_value(peer.recv()).unwrap()
}

/// The result of the response to `id`, typed; notifications before it are
/// collected into `seen`.
fn result_of<T: serde::de::DeserializeOwned>(
    peer: &mut Peer,
    id: i64,
    seen: &mut Vec<ServerNotification>,
) -> T {
    loop {
        match next(peer) {
            Message::Response { id: got, result } => {
                assert_eq!(got, RequestId::Number(id));
                return serde_json::from_value(result).unwrap();
            }
            Message::Notification { method, params } => {
                seen.push(ServerNotification::parse(&method, params).unwrap())
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

fn call<'a>(name: &str, arguments: Value, meta: Option<Envelope<'a>>) -> CallToolParams<'a> {
    CallToolParams {
        name: name.to_owned(),
        arguments: Some(serde_json::from_value(arguments).unwrap()),
        meta,
        ..CallToolParams::default()
    }
}

#[test]
fn a_legacy_client_session_typed_end_to_end() {
    let mut peer = Peer::everything();
    peer.version = LEGACY.into();
    let mut seen = Vec::new();

    let init = JsonRpcRequest::new(
        0,
        method::INITIALIZE,
        Some(InitializeParams {
            protocol_version: LEGACY.into(),
            capabilities: ClientCapabilities {
                elicitation: Some(JsonObject::new()),
                ..ClientCapabilities::default()
            },
            client_info: client(),
        }),
    );
    peer.send(&checked(LEGACY, "InitializeRequest", &init));
    let result: InitializeResult = result_of(&mut peer, 0, &mut seen);
    assert_eq!(result.protocol_version, LEGACY);
    assert_eq!(result.server_info.name, "everything");
    assert!(result.capabilities.tools.is_some());
    let initialized = JsonRpcNotification::<Value>::new(method::INITIALIZED, None);
    peer.send(&checked(LEGACY, "InitializedNotification", &initialized));

    let list = JsonRpcRequest::new(1, method::TOOLS_LIST, Some(ListToolsParams::default()));
    peer.send(&checked(LEGACY, "ListToolsRequest", &list));
    let tools: ListToolsResult = result_of(&mut peer, 1, &mut seen);
    let add = tools.tools.iter().find(|t| t.name == "add").unwrap();
    assert_eq!(add.input_schema["type"], "object");
    assert_eq!(add.annotations.as_ref().unwrap().read_only_hint, Some(true));
    assert!(add.output_schema.is_some());
    assert_eq!(tools.ttl_ms, None);

    let sum = JsonRpcRequest::new(
        2,
        method::TOOLS_CALL,
        Some(call("add", json!({"a": 1, "b": 2}), None)),
    );
    peer.send(&checked(LEGACY, "CallToolRequest", &sum));
    let CallToolResponse::Complete(result) = result_of(&mut peer, 2, &mut seen) else {
        panic!("not complete")
    };
    assert_eq!(result.structured_content, Some(json!({"sum": 3.0})));
    assert!(!result.is_error);

    // Every kind of block parses.
    let blocks = JsonRpcRequest::new(
        3,
        method::TOOLS_CALL,
        Some(call("sample_content", json!({}), None)),
    );
    peer.send(&checked(LEGACY, "CallToolRequest", &blocks));
    let CallToolResponse::Complete(result) = result_of(&mut peer, 3, &mut seen) else {
        panic!("not complete")
    };
    let kinds: Vec<&str> = result.content.iter().map(ContentBlock::kind).collect();
    for kind in ["text", "image", "resource_link", "resource"] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }

    // The `_meta` envelope's progress token: progress and log notifications.
    let level = JsonRpcRequest::new(7, "logging/setLevel", Some(json!({"level": "info"})));
    peer.send(&checked(LEGACY, "SetLevelRequest", &level));
    let _: JsonObject = result_of(&mut peer, 7, &mut seen);
    let meta = Envelope::default().with_progress_token("\"p1\"").unwrap();
    let slow = JsonRpcRequest::new(
        4,
        method::TOOLS_CALL,
        Some(call("slow", json!({"ms": 20, "steps": 2}), Some(meta))),
    );
    peer.send(&checked(LEGACY, "CallToolRequest", &slow));
    let _: CallToolResponse = result_of(&mut peer, 4, &mut seen);
    let progress: Vec<&ProgressParams> = seen
        .iter()
        .filter_map(|n| match n {
            ServerNotification::Progress(p) => Some(p),
            _ => None,
        })
        .collect();
    assert_eq!(progress.len(), 2, "{seen:?}");
    assert_eq!(progress[1].progress_token, json!("p1"));
    assert_eq!(progress[1].total, Some(2.0));
    assert!(
        seen.iter()
            .any(|n| matches!(n, ServerNotification::Message(m) if m.level == "info")),
        "{seen:?}"
    );

    // A server request, answered with a typed response.
    let book = JsonRpcRequest::new(
        5,
        method::TOOLS_CALL,
        Some(call("book_table", json!({"party": 2}), None)),
    );
    peer.send(&checked(LEGACY, "CallToolRequest", &book));
    let Message::Request { id, method, params } = next(&mut peer) else {
        panic!("expected elicitation/create")
    };
    let ServerRequest::Elicit(elicit) = ServerRequest::parse(&method, params).unwrap() else {
        panic!("expected elicitation/create")
    };
    assert!(elicit.message.contains("table for 2"));
    assert!(elicit.requested_schema.is_some());
    let answer = JsonRpcResponse::new(
        id,
        ElicitResult {
            action: ElicitAction::Accept,
            content: Some(serde_json::from_value(json!({"name": "Ada"})).unwrap()),
        },
    );
    peer.send(&checked(LEGACY, "JSONRPCResponse", &answer));
    assert_valid(
        LEGACY,
        "ElicitResult",
        &serde_json::to_value(&answer.result).unwrap(),
    );
    let CallToolResponse::Complete(booked) = result_of(&mut peer, 5, &mut seen) else {
        panic!("not complete")
    };
    assert_eq!(booked.structured_content.unwrap()["name"], "Ada");

    // An error response parses into the one error type.
    let missing = JsonRpcRequest::new(
        6,
        method::TOOLS_CALL,
        Some(call("no_such_tool", json!({}), None)),
    );
    peer.send(&checked(LEGACY, "CallToolRequest", &missing));
    let Message::Error { id, error } = next(&mut peer) else {
        panic!("expected an error")
    };
    assert_eq!(id, Some(RequestId::Number(6)));
    assert_eq!(error.code, -32602);
    assert_eq!(error.data, Some(json!({"name": "no_such_tool"})));
}

#[test]
fn a_modern_client_session_typed_end_to_end() {
    let mut peer = Peer::modern();
    let mut seen = Vec::new();

    let discover = JsonRpcRequest::new(1, method::DISCOVER, Some(MetaParams { meta: envelope() }));
    peer.send(&checked(MODERN, "DiscoverRequest", &discover));
    let result: DiscoverResult = result_of(&mut peer, 1, &mut seen);
    assert!(result.supported_versions.iter().any(|v| v == MODERN));
    assert_eq!(result.server_info().unwrap().name, "everything");
    assert!(result.ttl_ms.is_some() && result.cache_scope.is_some());

    let list = JsonRpcRequest::new(
        2,
        method::TOOLS_LIST,
        Some(ListToolsParams {
            cursor: None,
            meta: Some(envelope()),
        }),
    );
    peer.send(&checked(MODERN, "ListToolsRequest", &list));
    let tools: ListToolsResult = result_of(&mut peer, 2, &mut seen);
    assert!(tools.ttl_ms.is_some());
    assert_eq!(tools.cache_scope, Some(CacheScope::Public));
    assert!(tools.tools.iter().any(|t| t.name == "book_table"));

    // input_required, answered by a retry with inputResponses and the
    // requestState echoed.
    let book = JsonRpcRequest::new(
        3,
        method::TOOLS_CALL,
        Some(call("book_table", json!({"party": 2}), Some(envelope()))),
    );
    peer.send(&checked(MODERN, "CallToolRequest", &book));
    let CallToolResponse::InputRequired(asked) = result_of(&mut peer, 3, &mut seen) else {
        panic!("expected input_required")
    };
    let (key, InputRequest::Elicit(form)) = asked.input_requests.iter().next().unwrap() else {
        panic!("expected an elicitation")
    };
    assert!(form.message.contains("table for 2"));
    let answer = ElicitResult {
        action: ElicitAction::Accept,
        content: Some(serde_json::from_value(json!({"name": "Grace"})).unwrap()),
    };
    let retry = JsonRpcRequest::new(
        4,
        method::TOOLS_CALL,
        Some(CallToolParams {
            input_responses: Some(BTreeMap::from([(
                key.clone(),
                serde_json::to_value(&answer).unwrap(),
            )])),
            request_state: asked.request_state.clone(),
            ..call("book_table", json!({"party": 2}), Some(envelope()))
        }),
    );
    peer.send(&checked(MODERN, "CallToolRequest", &retry));
    let CallToolResponse::Complete(booked) = result_of(&mut peer, 4, &mut seen) else {
        panic!("expected complete")
    };
    assert_eq!(booked.structured_content.unwrap()["name"], "Grace");
}

#[test]
fn the_other_client_messages_are_valid() {
    let cancel = JsonRpcNotification::new(
        method::CANCELLED,
        Some(CancelledParams {
            request_id: RequestId::from("r-1"),
            reason: Some("user".into()),
        }),
    );
    checked(MODERN, "CancelledNotification", &cancel);
    checked(LEGACY, "CancelledNotification", &cancel);
    let listen = JsonRpcRequest::new(
        9,
        method::SUBSCRIPTIONS_LISTEN,
        Some(ListenParams {
            notifications: SubscriptionFilter {
                tools_list_changed: Some(true),
                ..SubscriptionFilter::default()
            },
            meta: envelope(),
        }),
    );
    checked(MODERN, "SubscriptionsListenRequest", &listen);
    let sampled = JsonRpcResponse::new(
        RequestId::Number(3),
        CreateMessageResult {
            role: Role::Assistant,
            content: SamplingContent::text("hi").into(),
            model: "m".into(),
            stop_reason: Some("endTurn".into()),
        },
    );
    checked(LEGACY, "JSONRPCResponse", &sampled);
    assert_valid(
        LEGACY,
        "CreateMessageResult",
        &serde_json::to_value(&sampled.result).unwrap(),
    );
    let refused = ErrorResponse::new(Some(RequestId::Number(4)), RpcError::internal_error("no"));
    checked(LEGACY, "JSONRPCErrorResponse", &refused);
}
