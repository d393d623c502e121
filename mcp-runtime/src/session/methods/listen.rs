//! `subscriptions/listen` (2026-07-28) and list-changed notifications in
//! both eras; a listen stream that names `taskIds` also carries their
//! `notifications/tasks` (Tasks extension), read from the store, so the
//! stream may be on any replica.

use crate::conn::connection::{Connection, Subscription, canonical_id};
use crate::conn::lifecycle::Lifecycle;
use crate::protocol::RpcError;
use crate::protocol::frame::Frame;
use crate::protocol::model::TASKS_EXTENSION;
use crate::protocol::model::method::Listen;
use crate::protocol::model::{ListenParams, SubscriptionFilter};
use crate::protocol::outgoing;
use crate::session::Session;
use crate::session::era::RequestInfo;
use crate::session::method::{Acknowledge, Streaming};
use crate::session::methods::tools::{declares_tasks, tasks_required};
use crate::task::{TaskError, Tasks};
use serde_json::value::RawValue;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// What a `subscriptions/listen` stream was accepted for: its id (the
/// request's, canonical, which tags every message of the stream) and the
/// notifications it carries.
#[derive(Debug)]
pub(in crate::session) struct Subscribed {
    id: Box<RawValue>,
    tools_list_changed: bool,
    /// Sorted, without repeats, at most [`MAX_TASKS_PER_SUBSCRIPTION`].
    task_ids: Vec<String>,
}

impl Acknowledge for Subscribed {
    fn acknowledge(&self) -> Frame {
        outgoing::subscription_acknowledged(&self.id, self.tools_list_changed, &self.task_ids)
    }
}

/// `subscriptions/listen` (2026-07-28): a stream of the notifications the
/// client asks for, acknowledged first, open until it cancels the request.
impl Streaming for Listen {
    type ParamsRef<'p> = ListenParams<'p>;
    type Ack = Subscribed;

    fn accept(
        _: &Session,
        id: &RawValue,
        info: &RequestInfo,
        params: ListenParams<'_>,
    ) -> Result<Subscribed, RpcError> {
        // What this server can send; the rest of the filter is ignored.
        let SubscriptionFilter {
            tools_list_changed,
            mut task_ids,
            ..
        } = params.notifications;
        let tools_list_changed = tools_list_changed.unwrap_or(false);
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
        // not exist alike never get a notification).
        Ok(Subscribed {
            id,
            tools_list_changed,
            task_ids,
        })
    }

    fn start(session: &Session, ack: Subscribed) {
        let Subscribed {
            id,
            tools_list_changed,
            task_ids,
        } = ack;
        session.connection.subscribe(Subscription {
            id: id.clone(),
            tools_list_changed,
        });
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

/// Tells the connection's client that the tool list changed: a legacy session
/// gets `notifications/tools/list_changed`; in the 2026-07-28 era only
/// subscriptions that asked for it do, tagged with their id.
pub(crate) fn notify_tools_changed(connection: &Connection) {
    match connection.lifecycle() {
        Lifecycle::Legacy { .. } => connection.send(outgoing::tools_list_changed(None)),
        Lifecycle::Modern | Lifecycle::Fresh => {
            for subscription in connection.subscriptions() {
                if subscription.tools_list_changed {
                    connection.send(outgoing::tools_list_changed(Some(&subscription.id)));
                }
            }
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
        assert!(ack.tools_list_changed);
        assert_eq!(ack.task_ids, ["a", "b"]);
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
        assert_eq!(ack.task_ids.len(), MAX_TASKS_PER_SUBSCRIPTION);
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
    }
}
