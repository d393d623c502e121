//! `subscriptions/listen` (2026-07-28) and list-changed notifications in
//! both eras; a listen stream that names `taskIds` also carries their
//! `notifications/tasks` (Tasks extension), read from the store, so the
//! stream may be on any replica.

use crate::conn::connection::{Connection, Subscription, canonical_id};
use crate::conn::lifecycle::Lifecycle;
use crate::protocol::RpcError;
use crate::protocol::outgoing;
use crate::session::era::RequestInfo;
use crate::session::methods::tools::{declares_tasks, tasks_required};
use crate::session::{Session, parse_params};
use crate::task::{TaskError, Tasks};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::sync::{Arc, Weak};
use std::time::Duration;

impl Session {
    pub(in crate::session) fn listen(
        &mut self,
        id: &RawValue,
        info: RequestInfo,
        params: Option<&RawValue>,
    ) -> Result<(), RpcError> {
        #[derive(Deserialize)]
        struct Listen {
            notifications: Filter,
        }
        #[derive(Deserialize)]
        struct Filter {
            #[serde(rename = "toolsListChanged", default)]
            tools_list_changed: bool,
            #[serde(rename = "taskIds", default)]
            task_ids: Vec<String>,
        }
        let params: Listen = parse_params(params, "subscriptions/listen")?;
        let Filter {
            tools_list_changed,
            mut task_ids,
        } = params.notifications;
        if !task_ids.is_empty() && !declares_tasks(&info.client.capabilities) {
            return Err(tasks_required("a subscription to task status"));
        }
        task_ids.sort();
        task_ids.dedup();
        task_ids.truncate(MAX_TASKS_PER_SUBSCRIPTION);
        let id = RawValue::from_string(canonical_id(id.get()).into_owned())
            .unwrap_or_else(|_| id.to_owned());
        // The acknowledgement is the first message tagged with this
        // subscription. Every task id asked for is accepted: whether it
        // names a task of this caller is not said (another caller's task
        // and one that does not exist alike never get a notification).
        self.connection.send(outgoing::subscription_acknowledged(
            &id,
            tools_list_changed,
            &task_ids,
        ));
        self.connection.subscribe(Subscription {
            id: id.clone(),
            tools_list_changed,
        });
        if !task_ids.is_empty() {
            tokio::spawn(watch_tasks(
                self.shared.tasks.clone(),
                Arc::downgrade(&self.connection),
                id,
                task_ids,
            ));
        }
        Ok(())
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
