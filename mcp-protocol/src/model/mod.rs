//! The wire model, both directions: one owned, typed value per MCP concept,
//! what a client sends (requests, notifications, replies to server
//! requests) and what it receives (results, server requests,
//! notifications), the JSON-RPC envelope of any message ([`Message`]), and
//! each method as a type ([`method`]). The server writes its results and
//! reads its params as these types too, through faster renderings held to
//! them byte for byte.
//!
//! Every type is camelCase on the wire, ignores unknown fields on read
//! (forward compatible) and skips `None` fields on write; fields are in the
//! order the server writes them. The `_meta` envelope of a 2026-07-28
//! request is [`crate::meta::Envelope`], the one struct the server's parse
//! of incoming params reads too.
//!
//! The types are grouped by concept in private modules below (each uses
//! only those before it: `jsonrpc`, `tools`, `input`, `lifecycle`,
//! `resources`, `notifications`, `task`, `call`, `prompts`, `completion`,
//! `subscriptions`, `server`, `skills`, `method`; `apps` after `lifecycle`)
//! and all reached here, as `mcpfn_protocol::model::X`.

mod apps;
mod call;
mod completion;
mod input;
mod jsonrpc;
mod lifecycle;
pub mod method;
mod notifications;
mod prompts;
mod resources;
mod server;
mod skills;
mod subscriptions;
mod task;
mod tools;

pub use crate::error::RpcError;
pub use crate::sampling::{
    MessageContent, ModelHint, ModelPreferences, Role, SamplingContent, SamplingMessage,
};
pub use apps::*;
pub use call::*;
pub use completion::*;
pub use input::*;
pub use jsonrpc::*;
pub use lifecycle::*;
pub use notifications::*;
pub use prompts::*;
pub use resources::*;
pub use server::*;
pub use skills::*;
pub use subscriptions::*;
pub use task::*;
pub use tools::*;

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use serde_json::Value;
    use serde_json::json;

    fn round_trip<T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
        value: &T,
        wire: Value,
    ) {
        assert_eq!(serde_json::to_value(value).unwrap(), wire);
        assert_eq!(&serde_json::from_value::<T>(wire).unwrap(), value);
    }

    #[test]
    fn call_results_have_the_contract_shapes() {
        round_trip(
            &CallToolResult::text("hi"),
            json!({"content": [{"type": "text", "text": "hi"}]}),
        );
        round_trip(
            &CallToolResult::error("no"),
            json!({"content": [{"type": "text", "text": "no"}], "isError": true}),
        );
        // Unknown fields are ignored; absent content is empty.
        let read: CallToolResult =
            serde_json::from_value(json!({"structuredContent": {"a": 1}, "future": 1})).unwrap();
        assert!(read.content.is_empty() && read.structured_content == Some(json!({"a": 1})));
    }

    #[test]
    fn blocks_are_tagged_and_resources_untagged() {
        let blocks = vec![
            ContentBlock::Image(ImageContent {
                data: "AA==".into(),
                mime_type: "image/png".into(),
                annotations: Some(BlockAnnotations {
                    audience: vec![Role::User],
                    priority: Some(0.5),
                    last_modified: None,
                }),
                meta: None,
            }),
            ContentBlock::ResourceLink(ResourceLinkContent {
                uri: "file:///a".into(),
                name: "a".into(),
                title: None,
                description: None,
                mime_type: Some("text/plain".into()),
                size: Some(3),
                annotations: None,
                meta: None,
            }),
            ContentBlock::Resource(EmbeddedResource {
                resource: ResourceContents::Blob {
                    uri: "file:///b".into(),
                    mime_type: None,
                    blob: "AA==".into(),
                    meta: None,
                },
                annotations: None,
                meta: None,
            }),
        ];
        round_trip(
            &blocks,
            json!([
                {"type": "image", "data": "AA==", "mimeType": "image/png",
                 "annotations": {"audience": ["user"], "priority": 0.5}},
                {"type": "resource_link", "uri": "file:///a", "name": "a",
                 "mimeType": "text/plain", "size": 3},
                {"type": "resource", "resource": {"uri": "file:///b", "blob": "AA=="}},
            ]),
        );
        // `kind` is the tag each block is written with.
        let audio = ContentBlock::Audio(AudioContent {
            data: "AA==".into(),
            mime_type: "audio/wav".into(),
            annotations: None,
            meta: None,
        });
        let text = ContentBlock::Text(TextContent {
            text: "t".into(),
            annotations: None,
            meta: None,
        });
        for block in blocks.iter().chain([&audio, &text]) {
            assert_eq!(serde_json::to_value(block).unwrap()["type"], block.kind());
        }
    }

    #[test]
    fn a_tool_skips_what_it_lacks() {
        let tool = Tool {
            name: "t".into(),
            title: None,
            description: None,
            input_schema: serde_json::from_value(json!({"type": "object"})).unwrap(),
            output_schema: None,
            annotations: Some(ToolAnnotations {
                read_only_hint: Some(true),
                ..ToolAnnotations::default()
            }),
            icons: Vec::new(),
            execution: None,
            meta: None,
        };
        round_trip(
            &tool,
            json!({"name": "t", "inputSchema": {"type": "object"},
                   "annotations": {"readOnlyHint": true}}),
        );
    }

    #[test]
    fn result_types_are_told_apart() {
        let legacy: CallToolResponse =
            serde_json::from_value(json!({"content": [], "isError": true})).unwrap();
        assert!(matches!(legacy, CallToolResponse::Complete(r) if r.is_error));
        let wire = json!({
            "resultType": "input_required",
            "inputRequests": {"guest": {"method": "elicitation/create",
                "params": {"mode": "form", "message": "who?",
                           "requestedSchema": {"type": "object", "properties": {}}}}},
            "requestState": "s1",
        });
        let asked: CallToolResponse = serde_json::from_value(wire.clone()).unwrap();
        let CallToolResponse::InputRequired(result) = &asked else {
            panic!("{asked:?}")
        };
        assert_eq!(result.request_state.as_deref(), Some("s1"));
        assert!(
            matches!(&result.input_requests["guest"], InputRequest::Elicit(e) if e.message == "who?")
        );
        assert_eq!(serde_json::to_value(&asked).unwrap(), wire);
        let task = json!({"resultType": "task", "taskId": "t1", "status": "working",
            "createdAt": "2026-12-02T00:00:00Z", "lastUpdatedAt": "2026-12-02T00:00:00Z", "ttlMs": null});
        let created: CallToolResponse = serde_json::from_value(task.clone()).unwrap();
        assert!(matches!(&created, CallToolResponse::Task(t) if t.task.task_id == "t1"));
        assert_eq!(
            serde_json::to_value(&created).unwrap(),
            task,
            "one resultType, the task's fields flat"
        );
        let unknown = serde_json::from_value::<CallToolResponse>(json!({"resultType": "later"}));
        assert!(
            unknown
                .unwrap_err()
                .to_string()
                .contains("unknown resultType")
        );
    }

    #[test]
    fn messages_are_told_apart_by_their_members() {
        let parse = |text: &str| serde_json::from_str::<Message>(text);
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap(),
            Message::Request {
                id: RequestId::String(_),
                ..
            }
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#).unwrap(),
            Message::Notification { .. }
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":1,"result":null}"#).unwrap(),
            Message::Response {
                result: Value::Null,
                ..
            }
        ));
        let error =
            parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#).unwrap();
        assert_eq!(
            error,
            Message::Error {
                id: None,
                error: RpcError::parse_error("x")
            }
        );
        assert!(parse(r#"{"jsonrpc":"1.0","id":1,"result":{}}"#).is_err());
        assert!(parse(r#"{"jsonrpc":"2.0","id":1}"#).is_err());
        assert!(
            parse(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#)
                .is_err()
        );
        for text in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"c"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"m","data":{"method":"x"}}}"#,
        ] {
            let message = parse(text).unwrap();
            assert_eq!(serde_json::to_string(&message).unwrap(), text);
        }
    }

    #[test]
    fn server_notifications_and_requests_are_typed_by_method() {
        let progress = ServerNotification::parse(
            method::PROGRESS,
            Some(json!({"progressToken": 1, "progress": 0.5})),
        )
        .unwrap();
        assert!(matches!(progress, ServerNotification::Progress(p) if p.progress == 0.5));
        let cancelled = ServerNotification::parse(
            method::CANCELLED,
            Some(json!({"requestId": 3, "reason": "r"})),
        )
        .unwrap();
        assert!(
            matches!(cancelled, ServerNotification::Cancelled(c) if c.request_id == RequestId::Number(3))
        );
        let sample = ServerRequest::parse(
            method::CREATE_MESSAGE,
            Some(
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": "q"}}],
                        "maxTokens": 10}),
            ),
        )
        .unwrap();
        assert!(matches!(sample, ServerRequest::CreateMessage(p) if p.max_tokens == 10));
        assert!(ServerRequest::parse(method::ELICIT, None).is_err());
    }

    #[test]
    fn prompts_and_completions_have_the_contract_shapes() {
        round_trip(
            &PromptMessage::assistant("hi"),
            json!({"role": "assistant", "content": {"type": "text", "text": "hi"}}),
        );
        let complete: GetPromptResponse =
            serde_json::from_value(json!({"messages": [], "description": "d"})).unwrap();
        assert!(
            matches!(&complete, GetPromptResponse::Complete(r) if r.description.as_deref() == Some("d"))
        );
        let asked: GetPromptResponse = serde_json::from_value(json!({
            "resultType": "input_required", "requestState": "s",
            "inputRequests": {"k": {"method": "roots/list"}}}))
        .unwrap();
        assert!(
            matches!(&asked, GetPromptResponse::InputRequired(r) if r.request_state.as_deref() == Some("s"))
        );
        assert_eq!(
            serde_json::to_value(&asked).unwrap()["resultType"],
            "input_required"
        );
        let unknown = serde_json::from_value::<GetPromptResponse>(json!({"resultType": 3}));
        assert!(
            unknown
                .unwrap_err()
                .to_string()
                .contains("unknown resultType")
        );
        round_trip(
            &CompletionRef::Prompt {
                name: "p".into(),
                title: None,
            },
            json!({"type": "ref/prompt", "name": "p"}),
        );
        round_trip(
            &CompletionRef::Resource {
                uri: "file:///{a}".into(),
            },
            json!({"type": "ref/resource", "uri": "file:///{a}"}),
        );
        let many = Completion::capped((0..101).map(|i| i.to_string()).collect());
        assert_eq!(
            (many.values.len(), many.total, many.has_more),
            (100, Some(101), Some(true))
        );
        let few = Completion::capped(vec!["a".into()]);
        assert_eq!((few.total, few.has_more), (Some(1), Some(false)));
    }

    #[test]
    fn listen_needs_its_filter_and_defaults_its_members() {
        let params: ListenParams<'_> =
            serde_json::from_str(r#"{"notifications":{},"_meta":{}}"#).unwrap();
        assert_eq!(params.notifications, SubscriptionFilter::default());
        let params: ListenParams<'_> = serde_json::from_str(
            r#"{"notifications":{"toolsListChanged":true,"taskIds":["a"],"promptsListChanged":true}}"#,
        )
        .unwrap();
        assert_eq!(params.notifications.tools_list_changed, Some(true));
        assert_eq!(params.notifications.task_ids, ["a"]);
        let missing = serde_json::from_str::<ListenParams<'_>>("{}").unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("missing field `notifications`")
        );
    }
}
