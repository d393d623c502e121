//! `subscriptions/listen` (2026-07-28) and list-changed notifications in
//! both eras.

use crate::conn::connection::{Connection, Subscription, canonical_id};
use crate::conn::lifecycle::Lifecycle;
use crate::protocol::ProtocolVersion;
use crate::protocol::outgoing;
use crate::session::{Failure, Session, parse_params};
use serde::Deserialize;
use serde_json::value::RawValue;

impl Session {
    pub(in crate::session) fn listen(
        &mut self,
        id: &RawValue,
        _: ProtocolVersion,
        params: Option<&RawValue>,
    ) -> Result<(), Failure> {
        #[derive(Deserialize)]
        struct Listen {
            notifications: Filter,
        }
        #[derive(Deserialize)]
        struct Filter {
            #[serde(rename = "toolsListChanged", default)]
            tools_list_changed: bool,
        }
        let params: Listen = parse_params(params, "subscriptions/listen")?;
        let tools_list_changed = params.notifications.tools_list_changed;
        let id = RawValue::from_string(canonical_id(id.get()).into_owned())
            .unwrap_or_else(|_| id.to_owned());
        // The acknowledgement is the first message tagged with this subscription.
        self.connection
            .send(outgoing::subscription_acknowledged(&id, tools_list_changed));
        self.connection.subscribe(Subscription {
            id,
            tools_list_changed,
        });
        Ok(())
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
