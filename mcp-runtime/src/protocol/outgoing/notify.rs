//! Notifications and requests the server sends: progress, log messages,
//! cancellations of its own requests, list changes and the
//! `subscriptions/listen` stream, and the questions for the client
//! (`elicitation/create`, `sampling/createMessage`).

use super::{JSONRPC, Response, notification};
use crate::level::Level;
use crate::protocol::ProtocolVersion;
use crate::protocol::frame::{self, Frame, FrameKind};
use crate::protocol::meta;
use crate::protocol::model::method;
use crate::protocol::model::{CreateMessageParams, SubscriptionFilter};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A `notifications/progress` a call sends, borrowed from the call: the
/// one form every peer takes (the wire writes it as it is, the in-process
/// door turns it into the model's `ProgressParams`). Its keys are in the
/// order the server has always written them.
#[derive(Debug, Serialize)]
pub(crate) struct Progress<'a> {
    /// What the call is doing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<&'a str>,
    /// How far it is.
    pub(crate) progress: f64,
    /// The token of the request it reports on.
    #[serde(rename = "progressToken")]
    pub(crate) token: &'a Value,
    /// Of how much, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) total: Option<f64>,
}

/// `notifications/progress`.
pub(crate) fn progress(progress: &Progress<'_>) -> Frame {
    notification(method::PROGRESS, progress)
}

/// A `notifications/message` a call sends: the one form every peer takes,
/// like [`Progress`] (the in-process door turns it into the model's
/// `LoggingMessageParams`).
#[derive(Debug, Serialize)]
pub(crate) struct LogMessage<'a> {
    /// What it says.
    pub(crate) data: Value,
    /// Its level, written by its wire name.
    #[serde(serialize_with = "level_name")]
    pub(crate) level: Level,
    /// The tool that logs it.
    pub(crate) logger: &'a str,
}

/// A [`Level`] as its wire name (`"warning"`).
fn level_name<S: Serializer>(level: &Level, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(level.as_str())
}

/// `notifications/message`: a log line for the client.
pub(crate) fn log_message(message: &LogMessage<'_>) -> Frame {
    notification(method::MESSAGE, message)
}

/// `notifications/cancelled` for a request of ours the client need not answer.
pub(crate) fn cancelled(request_id: &RawValue, reason: &str) -> Frame {
    #[derive(Serialize)]
    struct Cancelled<'a> {
        reason: &'a str,
        #[serde(rename = "requestId")]
        request_id: &'a RawValue,
    }
    notification(method::CANCELLED, Cancelled { reason, request_id })
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
    list_changed(method::TOOLS_LIST_CHANGED, subscription)
}

/// `notifications/resources/list_changed`, tagged with a subscription's id
/// in the 2026-07-28 era.
pub(crate) fn resources_list_changed(subscription: Option<&RawValue>) -> Frame {
    list_changed(method::RESOURCES_LIST_CHANGED, subscription)
}

/// `notifications/prompts/list_changed`, tagged with a subscription's id in
/// the 2026-07-28 era.
pub(crate) fn prompts_list_changed(subscription: Option<&RawValue>) -> Frame {
    list_changed(method::PROMPTS_LIST_CHANGED, subscription)
}

/// A list change `method`: params with only the subscription's `_meta`.
fn list_changed(method: &'static str, subscription: Option<&RawValue>) -> Frame {
    #[derive(Serialize)]
    struct Changed<'a> {
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<SubscriptionMeta<'a>>,
    }
    notification(
        method,
        Changed {
            meta: subscription.map(SubscriptionMeta),
        },
    )
}

/// `notifications/resources/updated` for `uri`, tagged with a
/// subscription's id in the 2026-07-28 era.
pub(crate) fn resource_updated(uri: &str, subscription: Option<&RawValue>) -> Frame {
    #[derive(Serialize)]
    struct Updated<'a> {
        #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<SubscriptionMeta<'a>>,
        uri: &'a str,
    }
    notification(
        method::RESOURCES_UPDATED,
        Updated {
            meta: subscription.map(SubscriptionMeta),
            uri,
        },
    )
}

/// `notifications/subscriptions/acknowledged`: the first message of a
/// `subscriptions/listen` stream, with the notifications it will carry
/// (`honoured`: the part of the client's filter the server agreed to; the
/// status of its `taskIds` is the Tasks extension's).
pub(crate) fn subscription_acknowledged(id: &RawValue, honoured: &SubscriptionFilter) -> Frame {
    #[derive(Serialize)]
    struct Acknowledged<'a> {
        #[serde(rename = "_meta")]
        meta: SubscriptionMeta<'a>,
        notifications: &'a SubscriptionFilter,
    }
    notification(
        method::SUBSCRIPTIONS_ACKNOWLEDGED,
        Acknowledged {
            meta: SubscriptionMeta(id),
            notifications: honoured,
        },
    )
}

/// `notifications/tasks` (Tasks extension) on the `subscriptions/listen`
/// stream `subscription`: the task as `tasks/get` would answer now.
pub(crate) fn task_status(subscription: &RawValue, task: &super::task_view::TaskView<'_>) -> Frame {
    #[derive(Serialize)]
    struct Status<'a> {
        #[serde(flatten)]
        task: &'a super::task_view::TaskView<'a>,
        #[serde(rename = "_meta")]
        meta: SubscriptionMeta<'a>,
    }
    notification(
        method::TASKS_STATUS,
        Status {
            task,
            meta: SubscriptionMeta(subscription),
        },
    )
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
        FrameKind::Result,
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

/// The server's borrowed rendering of a question for the client
/// ([`crate::protocol::model::InputRequest`] is the concept): a legacy server
/// request's `method` and `params`, or one entry of a 2026-07-28
/// `inputRequests` map (the same `{method, params}` object).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "method", content = "params")]
pub(crate) enum InputRequestRef<'a> {
    /// `elicitation/create`.
    #[serde(rename = "elicitation/create")]
    Elicit(ElicitForm<'a>),
    /// `sampling/createMessage`.
    #[serde(rename = "sampling/createMessage")]
    Sample(&'a CreateMessageParams),
    /// `roots/list` (its params an empty object).
    #[serde(rename = "roots/list")]
    ListRoots(NoParams),
}

/// The empty `params` object of a request that takes none (`roots/list`):
/// written `{}`, as the schemas show it, rather than left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub(crate) struct NoParams {}

/// A request to the client (legacy sessions): `elicitation/create`,
/// `sampling/createMessage` or `roots/list`.
pub(crate) fn client_request(id: &RawValue, request: &InputRequestRef<'_>) -> Frame {
    #[derive(Serialize)]
    struct ClientRequest<'a> {
        jsonrpc: &'static str,
        id: &'a RawValue,
        #[serde(flatten)]
        request: &'a InputRequestRef<'a>,
    }
    frame::encode(
        &ClientRequest {
            jsonrpc: JSONRPC,
            id,
            request,
        },
        256,
        FrameKind::Message,
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::protocol::outgoing::tests::{raw, text};

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
    fn client_requests_put_method_and_params_after_the_id() {
        let schema = serde_json::json!({"type": "object"});
        let form = ElicitForm::new("q", &schema, ProtocolVersion::V2025_06_18);
        assert_eq!(
            text(client_request(
                &raw("\"s1\""),
                &InputRequestRef::Elicit(form)
            )),
            "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"elicitation/create\",\
             \"params\":{\"message\":\"q\",\"requestedSchema\":{\"type\":\"object\"}}}\n"
        );
    }

    /// The written input requests carry the method table's names (the
    /// model's reader is held to them in `mcpfn_protocol::model::method`).
    #[test]
    fn input_requests_are_written_under_the_tables_names() {
        use crate::protocol::model::method::{Elicit, Request};
        let schema = serde_json::json!({"type": "object"});
        let form = ElicitForm::new("m", &schema, ProtocolVersion::LATEST);
        let written = serde_json::to_value(InputRequestRef::Elicit(form)).unwrap();
        assert_eq!(written["method"], Elicit::METHOD);
    }

    /// The filter of a stream that carries only tool list changes.
    pub(crate) fn tools_only() -> SubscriptionFilter {
        SubscriptionFilter {
            tools_list_changed: Some(true),
            ..SubscriptionFilter::default()
        }
    }

    #[test]
    fn resource_notifications_carry_the_uri_and_the_subscription() {
        let id = raw("\"listen-1\"");
        assert_eq!(
            text(resource_updated("test://a b", None)),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"test://a b\"}}\n"
        );
        assert_eq!(
            text(resource_updated("test://a", Some(&id))),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":\
             {\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"listen-1\"},\"uri\":\"test://a\"}}\n"
        );
        assert_eq!(
            text(resources_list_changed(Some(&id))),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/list_changed\",\"params\":\
             {\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"listen-1\"}}}\n"
        );
        assert_eq!(
            text(prompts_list_changed(None)),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\",\"params\":{}}\n"
        );
        let every = SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resources_list_changed: Some(true),
            resource_subscriptions: vec!["test://a".into()],
            task_ids: vec!["t1".into()],
        };
        assert_eq!(
            text(subscription_acknowledged(&id, &every)),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":\
             {\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"listen-1\"},\"notifications\":\
             {\"toolsListChanged\":true,\"promptsListChanged\":true,\"resourcesListChanged\":true,\
             \"resourceSubscriptions\":[\"test://a\"],\"taskIds\":[\"t1\"]}}}\n"
        );
    }

    #[test]
    fn notifications_are_typed() {
        let id = raw("3");
        assert_eq!(
            text(tools_list_changed(None)),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{}}\n"
        );
        assert_eq!(
            text(subscription_acknowledged(&id, &tools_only())),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":\
             {\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":3},\"notifications\":{\"toolsListChanged\":true}}}\n"
        );
        assert_eq!(
            text(subscription_closed(&id)),
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":3},\"resultType\":\"complete\"}}\n"
        );
        let token = Value::from("t");
        assert_eq!(
            text(progress(&Progress {
                message: None,
                progress: 1.0,
                token: &token,
                total: Some(2.0),
            })),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1.0,\"progressToken\":\"t\",\"total\":2.0}}\n"
        );
        assert_eq!(
            text(progress(&Progress {
                message: Some("half"),
                progress: 1.0,
                token: &token,
                total: None,
            })),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"message\":\"half\",\"progress\":1.0,\"progressToken\":\"t\"}}\n"
        );
        assert_eq!(
            text(log_message(&LogMessage {
                data: Value::from("m"),
                level: Level::Warning,
                logger: "x",
            })),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"m\",\"level\":\"warning\",\"logger\":\"x\"}}\n"
        );
    }
}
