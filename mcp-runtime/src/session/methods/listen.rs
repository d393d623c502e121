//! `subscriptions/listen` (2026-07-28) and the change notifications of
//! both eras: list changes (tools, resources, prompts) and resource
//! updates, delivered to each listening connection as its client asked
//! ([`deliver`]); a listen stream that names `taskIds` also carries their
//! `notifications/tasks` (Tasks extension), read from the store, so the
//! stream may be on any replica.

use crate::changes::Change;
use crate::conn::connection::{Connection, Subscription, canonical_id};
use crate::conn::lifecycle::Lifecycle;
use crate::conn::watched::MAX_URI_BYTES;
use crate::protocol::frame::Frame;
use crate::protocol::model::TASKS_EXTENSION;
use crate::protocol::model::method::Listen;
use crate::protocol::model::{ListenParams, SubscriptionFilter};
use crate::protocol::outgoing;
use crate::protocol::{ProtocolVersion, RpcError};
use crate::session::era::RequestInfo;
use crate::session::method::{Acknowledge, Streaming};
use crate::session::methods::subscriptions::check_uri;
use crate::session::methods::tools::{declares_tasks, tasks_required};
use crate::session::{Session, announced};
use crate::task::{TaskError, Tasks};
use serde_json::value::RawValue;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::broadcast;

/// What a `subscriptions/listen` stream was accepted for: its id (the
/// request's, canonical, which tags every message of the stream) and the
/// notifications it carries (the part of the client's filter honoured:
/// resource URIs sorted, without repeats; at most
/// [`MAX_TASKS_PER_SUBSCRIPTION`] task ids, sorted, without repeats).
#[derive(Debug)]
pub(in crate::session) struct Subscribed {
    id: Box<RawValue>,
    honoured: SubscriptionFilter,
}

impl Acknowledge for Subscribed {
    fn acknowledge(&self) -> Frame {
        outgoing::subscription_acknowledged(&self.id, &self.honoured)
    }
}

/// `subscriptions/listen` (2026-07-28): a stream of the notifications the
/// client asks for, acknowledged first, open until it cancels the request.
impl Streaming for Listen {
    type ParamsRef<'p> = ListenParams<'p>;
    type Ack = Subscribed;

    fn accept(
        session: &Session,
        id: &RawValue,
        info: &RequestInfo,
        params: ListenParams<'_>,
    ) -> Result<Subscribed, RpcError> {
        let SubscriptionFilter {
            tools_list_changed,
            prompts_list_changed,
            resources_list_changed,
            mut resource_subscriptions,
            mut task_ids,
        } = params.notifications;
        // What this server sends, as it announces it; the rest of the
        // filter is left out of the acknowledgement.
        let offers = session.capabilities(info.version, false);
        let resources = offers.resources.unwrap_or_default();
        let honour =
            |asked: Option<bool>, offered: bool| (asked == Some(true) && offered).then_some(true);
        if !resources.subscribe {
            resource_subscriptions.clear();
        }
        resource_subscriptions.sort();
        resource_subscriptions.dedup();
        let max = session.shared.max_resource_subscriptions;
        if resource_subscriptions.len() > max {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: this server takes at most {max} resources per subscriptions/listen \
                 stream, and {} were named; listen for fewer",
                resource_subscriptions.len()
            )));
        }
        for uri in &resource_subscriptions {
            check_uri(uri)?;
        }
        let bytes: usize = resource_subscriptions.iter().map(String::len).sum();
        if bytes > MAX_URI_BYTES {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: the resource URIs named take {bytes} bytes, more than this \
                 server takes per subscriptions/listen stream ({MAX_URI_BYTES}); listen for fewer"
            )));
        }
        if !task_ids.is_empty() && !crate::task::ENABLED {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: this server does not offer the {TASKS_EXTENSION} extension, so it has no task to watch"
            )));
        }
        if !task_ids.is_empty() && !declares_tasks(&info.client.capabilities) {
            return Err(tasks_required("a subscription to task status"));
        }
        task_ids.sort();
        task_ids.dedup();
        task_ids.truncate(MAX_TASKS_PER_SUBSCRIPTION);
        let id = RawValue::from_string(canonical_id(id.get()).into_owned())
            .unwrap_or_else(|_| id.to_owned());
        // Every task id asked for is accepted: whether it names a task of
        // this caller is not said (another caller's task and one that does
        // not exist alike never get a notification). So is every resource
        // URI: whether it names a resource is not checked here (an update
        // comes only if the server tells one).
        Ok(Subscribed {
            id,
            honoured: SubscriptionFilter {
                tools_list_changed: honour(
                    tools_list_changed,
                    offers.tools.is_some_and(|tools| tools.list_changed),
                ),
                prompts_list_changed: honour(
                    prompts_list_changed,
                    offers.prompts.is_some_and(|prompts| prompts.list_changed),
                ),
                resources_list_changed: honour(resources_list_changed, resources.list_changed),
                resource_subscriptions,
                task_ids,
            },
        })
    }

    fn start(session: &Session, ack: Subscribed) {
        let Subscribed { id, honoured } = ack;
        let yes = |flag: Option<bool>| flag == Some(true);
        session.connection.subscribe(Subscription {
            id: id.clone(),
            tools_list_changed: yes(honoured.tools_list_changed),
            resources_list_changed: yes(honoured.resources_list_changed),
            prompts_list_changed: yes(honoured.prompts_list_changed),
            resources: honoured
                .resource_subscriptions
                .into_iter()
                .map(String::into_boxed_str)
                .collect(),
        });
        let task_ids = honoured.task_ids;
        if crate::task::ENABLED && !task_ids.is_empty() {
            tokio::spawn(watch_tasks(
                session.shared.tasks.clone(),
                Arc::downgrade(&session.connection),
                id,
                task_ids,
            ));
        }
    }
}

/// The most tasks one subscription watches (the rest are left out).
const MAX_TASKS_PER_SUBSCRIPTION: usize = 100;

/// How often a subscription's tasks are read for a change.
const TASK_WATCH: Duration = Duration::from_millis(250);

/// Sends `notifications/tasks` on subscription `id` of `connection` each
/// time one of `task_ids` changes (status, message, inputs), until each
/// ended, expired or was never this caller's, or the subscription or the
/// connection is gone. The first read sends each task's state as it is.
async fn watch_tasks(
    tasks: Tasks,
    connection: Weak<Connection>,
    id: Box<RawValue>,
    task_ids: Vec<String>,
) {
    let mut seen: Vec<(String, Option<u64>)> =
        task_ids.into_iter().map(|task| (task, None)).collect();
    while !seen.is_empty() {
        let owner = match connection.upgrade() {
            Some(connection) if connection.is_subscribed(id.get()) => connection
                .principal()
                .map(|principal| principal.subject().to_owned()),
            _ => return,
        };
        let mut ended = Vec::new();
        for (task, last) in &mut seen {
            match tasks.load(task, owner.as_deref()).await {
                Ok((_, record)) => {
                    if *last != Some(record.updated_ms) {
                        *last = Some(record.updated_ms);
                        let status = record.task(task);
                        let Some(connection) = connection.upgrade() else {
                            return;
                        };
                        connection.send(outgoing::task_status(&id, &record.view(&status)));
                    }
                    if record.status.is_terminal() {
                        ended.push(task.clone());
                    }
                }
                Err(TaskError::Unknown) => ended.push(task.clone()),
                Err(TaskError::Store(e)) => {
                    tracing::warn!(task = %task, error = %e, "could not read a watched task");
                }
            }
        }
        seen.retain(|(task, _)| !ended.contains(task));
        tokio::time::sleep(TASK_WATCH).await;
    }
}

/// Sends `change` to the connection's client if it asked for it: a legacy
/// session gets every list change the server announces for its revision
/// and the updates of the resources it subscribed to; in the 2026-07-28
/// era, each subscription that asked gets it, tagged with its id. Dropped
/// while the client leaves too much output unread (a change is a hint to
/// read again, and a client that does not read must not make the server
/// hold them without bound).
pub(crate) fn deliver(connection: &Connection, change: &Change) {
    match connection.lifecycle() {
        Lifecycle::Legacy { version } => {
            let frame = match change {
                Change::ToolsListChanged => Some(outgoing::tools_list_changed(None)),
                Change::ResourcesListChanged => {
                    announces(version, change).then(|| outgoing::resources_list_changed(None))
                }
                Change::PromptsListChanged => {
                    announces(version, change).then(|| outgoing::prompts_list_changed(None))
                }
                Change::ResourceUpdated(uri) => connection
                    .watched()
                    .contains(uri)
                    .then(|| outgoing::resource_updated(uri, None)),
            };
            if let Some(frame) = frame {
                connection.notify(frame);
            }
        }
        Lifecycle::Modern | Lifecycle::Fresh => {
            for subscription in connection.subscriptions() {
                let id = Some(&*subscription.id);
                let frame = match change {
                    Change::ToolsListChanged => subscription
                        .tools_list_changed
                        .then(|| outgoing::tools_list_changed(id)),
                    Change::ResourcesListChanged => subscription
                        .resources_list_changed
                        .then(|| outgoing::resources_list_changed(id)),
                    Change::PromptsListChanged => subscription
                        .prompts_list_changed
                        .then(|| outgoing::prompts_list_changed(id)),
                    Change::ResourceUpdated(uri) => subscription
                        .resources
                        .binary_search_by(|held| (**held).cmp(uri))
                        .is_ok()
                        .then(|| outgoing::resource_updated(uri, id)),
                };
                if let Some(frame) = frame {
                    connection.notify(frame);
                }
            }
        }
    }
}

/// Whether a legacy session of `version` was told (in `initialize`) that
/// the server sends this list change, when it has resources and prompts
/// (a change is only ever told of what the server has).
fn announces(version: ProtocolVersion, change: &Change) -> bool {
    let offers = announced(version);
    match change {
        Change::ToolsListChanged => offers.tools.is_some_and(|t| t.list_changed),
        Change::ResourcesListChanged => offers.resources.is_some_and(|r| r.list_changed),
        Change::PromptsListChanged => offers.prompts.is_some_and(|p| p.list_changed),
        Change::ResourceUpdated(_) => offers.resources.is_some_and(|r| r.subscribe),
    }
}

/// Every change the connection's client asked for, as if each had just
/// happened: what a connection that fell behind the changes is told, so it
/// misses none (each is a hint to read again).
fn deliver_everything(connection: &Connection) {
    let lists = [
        Change::ToolsListChanged,
        Change::ResourcesListChanged,
        Change::PromptsListChanged,
    ];
    let uris: Vec<Box<str>> = match connection.lifecycle() {
        Lifecycle::Legacy { .. } => connection.watched().all(),
        Lifecycle::Modern | Lifecycle::Fresh => {
            let mut uris: Vec<Box<str>> = connection
                .subscriptions()
                .iter()
                .flat_map(|s| s.resources.iter().cloned())
                .collect();
            uris.sort();
            uris.dedup();
            uris
        }
    };
    for change in lists.into_iter().chain(
        uris.into_iter()
            .map(|uri| Change::ResourceUpdated(uri.into())),
    ) {
        deliver(connection, &change);
    }
}

/// Delivers each change of `changes` to `connection` ([`deliver`]) while it
/// exists. A connection that fell more than the channel's backlog behind is
/// told everything it asked for ([`deliver_everything`]).
pub(crate) async fn watch_changes(
    mut changes: broadcast::Receiver<Change>,
    connection: Weak<Connection>,
) {
    loop {
        let change = match changes.recv().await {
            Ok(change) => Some(change),
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::debug!(
                    missed,
                    "a connection fell behind the changes; telling it all"
                );
                None
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(connection) = connection.upgrade() else {
            return;
        };
        match change {
            Some(change) => deliver(&connection, &change),
            None => deliver_everything(&connection),
        }
    }
}

/// Gives every open subscription its final response (at shutdown).
pub(crate) fn close_subscriptions(connection: &Connection) {
    for subscription in connection.take_subscriptions() {
        connection.send(outgoing::subscription_closed(&subscription.id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conn::client::ClientInfo;
    use crate::protocol::model::TASKS_EXTENSION;
    use crate::protocol::{ErrorCode, ProtocolVersion};
    use crate::server::Server;
    use crate::session::test_session;
    use serde_json::{Value, json};

    /// `server` with one resource: a server announces (and honours)
    /// resource subscriptions only when it has resources.
    fn with_a_resource(server: Server) -> Server {
        let resource = crate::resource::ResourceBuilder::new("test://a", "a", |read| {
            Box::pin(async move { Ok(vec![read.text("a")]) })
        })
        .build()
        .unwrap();
        server.resources([resource])
    }

    fn info(capabilities: Value) -> RequestInfo {
        RequestInfo {
            version: ProtocolVersion::V2026_07_28,
            client: Arc::new(ClientInfo {
                info: None,
                capabilities,
            }),
            log_level: None,
        }
    }

    fn listen(tools_list_changed: bool, task_ids: &[&str]) -> ListenParams<'static> {
        ListenParams {
            notifications: SubscriptionFilter {
                tools_list_changed: Some(tools_list_changed),
                task_ids: task_ids.iter().map(|&id| id.to_owned()).collect(),
                ..SubscriptionFilter::default()
            },
            meta: Default::default(),
        }
    }

    #[test]
    fn accept_tags_the_stream_with_the_canonical_id_and_tidies_the_task_ids() {
        let (session, mut frames) = test_session(Server::new("t", "0"));
        let id = RawValue::from_string(r#""\u0061b""#.to_owned()).unwrap();
        let tasks = json!({"extensions": {TASKS_EXTENSION: {}}});
        let ack = Listen::accept(&session, &id, &info(tasks), listen(true, &["b", "a", "b"]))
            .expect("accepted");
        assert_eq!(ack.id.get(), r#""ab""#);
        assert_eq!(ack.honoured.tools_list_changed, Some(true));
        assert_eq!(ack.honoured.task_ids, ["a", "b"]);
        // Accepting writes and subscribes nothing: the router acknowledges,
        // then starts.
        assert!(frames.try_recv().is_none());
        assert!(session.connection.subscriptions().is_empty());
        let many: Vec<String> = (0..MAX_TASKS_PER_SUBSCRIPTION + 5)
            .map(|n| format!("t{n:03}"))
            .collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let tasks = json!({"extensions": {TASKS_EXTENSION: {}}});
        let ack = Listen::accept(&session, &id, &info(tasks), listen(false, &many)).unwrap();
        assert_eq!(ack.honoured.task_ids.len(), MAX_TASKS_PER_SUBSCRIPTION);
    }

    fn listen_to(uris: &[String], prompts: bool) -> ListenParams<'static> {
        ListenParams {
            notifications: SubscriptionFilter {
                resource_subscriptions: uris.to_vec(),
                resources_list_changed: Some(true),
                prompts_list_changed: Some(prompts),
                ..SubscriptionFilter::default()
            },
            meta: Default::default(),
        }
    }

    #[test]
    fn accept_honours_what_the_server_announces_and_caps_the_resources() {
        let server = with_a_resource(Server::new("t", "0")).max_resource_subscriptions(3);
        let (session, _frames) = test_session(server);
        let id = RawValue::from_string("9".to_owned()).unwrap();
        let uris: Vec<String> = ["c", "a", "c", "b"].map(String::from).to_vec();
        let ack = Listen::accept(&session, &id, &info(json!({})), listen_to(&uris, true)).unwrap();
        assert_eq!(
            ack.honoured.resource_subscriptions,
            ["a", "b", "c"],
            "repeats count once"
        );
        assert_eq!(ack.honoured.resources_list_changed, Some(true));
        let prompts = session
            .capabilities(ProtocolVersion::V2026_07_28, false)
            .prompts
            .is_some_and(|p| p.list_changed);
        assert_eq!(
            ack.honoured.prompts_list_changed,
            prompts.then_some(true),
            "asked, honoured only when announced"
        );
        assert_eq!(ack.honoured.tools_list_changed, None, "not asked");
        let four: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let refused = Listen::accept(&session, &id, &info(json!({})), listen_to(&four, false))
            .expect_err("past the cap");
        assert_eq!(refused.error_code(), ErrorCode::INVALID_PARAMS);
        assert_eq!(
            refused.message,
            "Invalid params: this server takes at most 3 resources per subscriptions/listen \
             stream, and 4 were named; listen for fewer"
        );
        let long = vec!["x".repeat(crate::session::methods::subscriptions::MAX_URI_LEN + 1)];
        let refused = Listen::accept(&session, &id, &info(json!({})), listen_to(&long, false))
            .expect_err("too long a URI");
        assert_eq!(refused.error_code(), ErrorCode::INVALID_PARAMS);
        let (roomy, _frames) = test_session(with_a_resource(Server::new("t", "0")));
        let big: Vec<String> = (0..40)
            .map(|n| format!("{n:02}{}", "u".repeat(7_998)))
            .collect();
        let refused = Listen::accept(&roomy, &id, &info(json!({})), listen_to(&big, false))
            .expect_err("too many bytes");
        assert!(
            refused
                .message
                .contains("per subscriptions/listen stream (262144)"),
            "{}",
            refused.message
        );
    }

    /// The frames the connection of `frames` was sent, as JSON.
    fn sent(frames: &mut crate::conn::outbox::Frames) -> Vec<Value> {
        std::iter::from_fn(|| frames.try_recv())
            .map(|frame| serde_json::from_slice(&frame.into_bytes()).unwrap())
            .collect()
    }

    #[test]
    fn each_subscription_gets_only_what_it_asked_for_tagged_with_its_id() {
        let (session, mut frames) = test_session(with_a_resource(Server::new("t", "0")));
        session.connection.set_lifecycle(Lifecycle::Modern);
        let subscribe = |id: &str, uris: &[&str], tools: bool| {
            let id = RawValue::from_string(id.to_owned()).unwrap();
            let mut params = listen(tools, &[]);
            params.notifications.resource_subscriptions =
                uris.iter().map(|u| (*u).to_owned()).collect();
            let ack = Listen::accept(&session, &id, &info(json!({})), params).unwrap();
            Listen::start(&session, ack);
        };
        subscribe("1", &["test://a", "test://b"], false);
        subscribe("\"two\"", &["test://b"], true);
        deliver(
            &session.connection,
            &Change::ResourceUpdated("test://b".into()),
        );
        deliver(
            &session.connection,
            &Change::ResourceUpdated("test://a".into()),
        );
        deliver(
            &session.connection,
            &Change::ResourceUpdated("test://c".into()),
        );
        deliver(&session.connection, &Change::ToolsListChanged);
        deliver(&session.connection, &Change::ResourcesListChanged);
        let tag = |id: Value| json!({crate::protocol::meta::SUBSCRIPTION_ID: id});
        let updated = |uri: &str, id: Value| {
            json!({"jsonrpc": "2.0",
            "method": "notifications/resources/updated", "params": {"_meta": tag(id), "uri": uri}})
        };
        assert_eq!(
            sent(&mut frames),
            [
                updated("test://b", json!(1)),
                updated("test://b", json!("two")),
                updated("test://a", json!(1)),
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                    "params": {"_meta": tag(json!("two"))}}),
            ]
        );
        // Fallen behind: told all it asked for, once per URI and list.
        deliver_everything(&session.connection);
        assert_eq!(
            sent(&mut frames),
            [
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                    "params": {"_meta": tag(json!("two"))}}),
                updated("test://a", json!(1)),
                updated("test://b", json!(1)),
                updated("test://b", json!("two")),
            ]
        );
    }

    #[test]
    fn a_legacy_session_gets_the_updates_of_what_it_subscribed_to() {
        let (session, mut frames) = test_session(Server::new("t", "0"));
        session.connection.set_lifecycle(Lifecycle::Legacy {
            version: ProtocolVersion::V2025_11_25,
        });
        session.connection.watched().add("test://a", 10).unwrap();
        deliver(
            &session.connection,
            &Change::ResourceUpdated("test://b".into()),
        );
        deliver(
            &session.connection,
            &Change::ResourceUpdated("test://a".into()),
        );
        deliver(&session.connection, &Change::ResourcesListChanged);
        let mut expected = vec![
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": "test://a"}}),
        ];
        if announces(ProtocolVersion::V2025_11_25, &Change::ResourcesListChanged) {
            expected.push(json!({"jsonrpc": "2.0",
                "method": "notifications/resources/list_changed", "params": {}}));
        }
        assert_eq!(sent(&mut frames), expected);
    }

    #[test]
    fn accept_refuses_task_ids_without_the_tasks_extension() {
        let (session, _frames) = test_session(Server::new("t", "0"));
        let id = RawValue::from_string("4".to_owned()).unwrap();
        let failure = Listen::accept(&session, &id, &info(json!({})), listen(true, &["a"]))
            .expect_err("no extension declared");
        assert_eq!(failure.error_code(), ErrorCode::MISSING_CLIENT_CAPABILITY);
        // Without task ids the extension is not needed.
        assert!(Listen::accept(&session, &id, &info(json!({})), listen(true, &[])).is_ok());
    }

    #[test]
    fn the_acknowledgement_names_what_the_stream_carries_and_start_subscribes() {
        let (session, _frames) = test_session(Server::new("t", "0"));
        let id = RawValue::from_string("4".to_owned()).unwrap();
        let ack = Listen::accept(&session, &id, &info(json!({})), listen(true, &[])).unwrap();
        let frame: Value = serde_json::from_slice(&ack.acknowledge().into_bytes()).unwrap();
        assert_eq!(frame["method"], "notifications/subscriptions/acknowledged");
        assert_eq!(
            frame["params"]["notifications"],
            json!({"toolsListChanged": true})
        );
        assert_eq!(
            frame["params"]["_meta"][crate::protocol::meta::SUBSCRIPTION_ID],
            json!(4)
        );
        Listen::start(&session, ack);
        let subscriptions = session.connection.subscriptions();
        assert_eq!(subscriptions.len(), 1);
        assert!(subscriptions[0].tools_list_changed);
        assert!(!subscriptions[0].resources_list_changed);
        assert!(subscriptions[0].resources.is_empty());
    }
}
