//! What changed, for the clients that asked to be told: a resource's
//! contents (`notifications/resources/updated`) and the lists of tools,
//! resources and prompts (`notifications/*/list_changed`).
//!
//! A change is told once, to the server's [`Notifier`]; every connection
//! that listens (a stdio connection, a legacy HTTP session's GET stream, a
//! 2026-07-28 `subscriptions/listen` stream) receives it from one broadcast
//! channel and sends it on if its client asked
//! (`session::methods::listen::deliver`). Changes told through a
//! `Notifier` also travel through the server's [`Store`] to every replica
//! sharing it ([`Store::publish`], [`Store::listen`]), each tagged with the
//! replica it came from, which does not take it twice. Tool list changes
//! stay in their process: a `ToolSet` is one process's.

use crate::store::Store;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::{Arc, OnceLock, Weak};
use tokio::sync::{broadcast, mpsc};

/// The store channel the replicas' changes travel on.
const CHANNEL: &str = "changes";

/// Changes a listening connection may fall behind by; one that falls
/// further behind is told that everything it asked for may have changed.
const BACKLOG: usize = 1024;

/// Changes waiting to be published to the store, and messages from it
/// waiting to be read; past either, one is dropped with a warning.
const RELAY_QUEUE: usize = 1024;

/// The largest message from the store that is read (bigger ones are not
/// changes this server sent): 64 KiB.
const MAX_RELAYED: usize = 64 << 10;

/// One change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// The tool list changed (this process's `ToolSet`).
    ToolsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource at this URI changed.
    ResourceUpdated(Arc<str>),
}

/// A change as it travels through the store.
#[derive(Serialize, Deserialize)]
struct Relayed {
    /// The replica that sent it ([`Hub::origin`]).
    origin: String,
    /// `resources`, `prompts` (list changes) or `updated`.
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
}

impl Relayed {
    fn new(origin: &str, change: &Change) -> Option<Relayed> {
        let (kind, uri) = match change {
            Change::ToolsListChanged => return None,
            Change::ResourcesListChanged => ("resources", None),
            Change::PromptsListChanged => ("prompts", None),
            Change::ResourceUpdated(uri) => ("updated", Some(uri.to_string())),
        };
        Some(Relayed {
            origin: origin.to_owned(),
            kind: kind.to_owned(),
            uri,
        })
    }

    fn change(self) -> Option<Change> {
        match (self.kind.as_str(), self.uri) {
            ("resources", None) => Some(Change::ResourcesListChanged),
            ("prompts", None) => Some(Change::PromptsListChanged),
            ("updated", Some(uri)) => Some(Change::ResourceUpdated(uri.into())),
            _ => None,
        }
    }
}

/// Tells the server's clients that something changed: a resource's
/// contents, the resource list, the prompt list. Clone it freely: get one
/// from [`Server::notifier`](crate::Server::notifier) before serving (for a
/// background task that watches files or a database) or from
/// [`Context::notifier`](crate::Context::notifier) inside a tool.
///
/// Each change goes to the clients that asked for it, on every replica
/// sharing the server's [`Store`](crate::store::Store): a legacy session
/// subscribed to the resource (`resources/subscribe`) or a 2026-07-28
/// `subscriptions/listen` stream that named it (`resourceSubscriptions`)
/// or the list (`resourcesListChanged`, `promptsListChanged`). Telling
/// never waits and never fails; a change nobody asked for costs nothing
/// more. Tool list changes need no call: [`ToolSet`](crate::ToolSet) tells
/// them.
///
/// ```
/// use mcpfn_runtime::Server;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = Server::new("files", "1.0.0");
/// let notifier = server.notifier();
/// tokio::spawn(async move {
///     // Each time the file changes on disk…
///     notifier.resource_updated("file:///notes.txt");
/// });
/// # }
/// ```
#[derive(Clone)]
pub struct Notifier {
    hub: Arc<Hub>,
}

struct Hub {
    /// Every listening connection's receiver.
    local: broadcast::Sender<Change>,
    /// To the task that relays changes through the store, once serving.
    relay: OnceLock<mpsc::Sender<Change>>,
    /// This server's tag on what it relays (random, per process).
    origin: String,
}

impl fmt::Debug for Notifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notifier")
            .field("origin", &self.hub.origin)
            .field("listeners", &self.hub.local.receiver_count())
            .field("relayed", &self.hub.relay.get().is_some())
            .finish()
    }
}

impl Notifier {
    pub(crate) fn new() -> Notifier {
        let mut random = [0u8; 8];
        // A collision of tags would only make two replicas drop each
        // other's changes; without randomness the address still differs.
        let origin = match getrandom::fill(&mut random) {
            Ok(()) => random.iter().map(|b| format!("{b:02x}")).collect(),
            Err(_) => format!("{:p}-{}", &random, std::process::id()),
        };
        Notifier {
            hub: Arc::new(Hub {
                local: broadcast::Sender::new(BACKLOG),
                relay: OnceLock::new(),
                origin,
            }),
        }
    }

    /// The resource at `uri` changed: its subscribers may read it again
    /// (`notifications/resources/updated`).
    pub fn resource_updated(&self, uri: &str) {
        self.tell(Change::ResourceUpdated(uri.into()));
    }

    /// The list of resources changed (`notifications/resources/list_changed`).
    pub fn resource_list_changed(&self) {
        self.tell(Change::ResourcesListChanged);
    }

    /// The list of prompts changed (`notifications/prompts/list_changed`).
    pub fn prompt_list_changed(&self) {
        self.tell(Change::PromptsListChanged);
    }

    /// The tool list of this process changed (told by `ToolSet`; not
    /// relayed: another replica's tools did not change).
    pub(crate) fn tools_changed(&self) {
        let _ = self.hub.local.send(Change::ToolsListChanged);
    }

    /// The changes told from now on, for one listening connection.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.hub.local.subscribe()
    }

    fn tell(&self, change: Change) {
        if let Some(relay) = self.hub.relay.get()
            && let Err(mpsc::error::TrySendError::Full(_)) = relay.try_send(change.clone())
        {
            tracing::warn!(
                "too many changes waiting for the store; one is not sent to the other replicas"
            );
        }
        // No receiver: no connection listens, nothing to do.
        let _ = self.hub.local.send(change);
    }

    /// Relays changes through `store` from now on: those told here to the
    /// other servers sharing it, theirs to this server's connections. Needs
    /// a Tokio runtime (serving has one); without one, or done twice, it
    /// does nothing.
    pub(crate) fn relay_through(&self, store: Arc<dyn Store>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (to_store, outgoing) = mpsc::channel(RELAY_QUEUE);
        if self.hub.relay.set(to_store).is_err() {
            return;
        }
        runtime.spawn(relay(
            store,
            Arc::downgrade(&self.hub),
            self.hub.origin.clone(),
            outgoing,
        ));
    }
}

/// Publishes `outgoing` to the store and passes what other servers publish
/// to the hub's connections, until every [`Notifier`] is gone.
async fn relay(
    store: Arc<dyn Store>,
    hub: Weak<Hub>,
    origin: String,
    mut outgoing: mpsc::Receiver<Change>,
) {
    let (to, mut incoming) = mpsc::channel(RELAY_QUEUE);
    let listening = store.listen(CHANNEL, to);
    let mut listening = std::pin::pin!(listening);
    let mut listened = false;
    loop {
        tokio::select! {
            change = outgoing.recv() => {
                let Some(change) = change else { return };
                let Some(message) = Relayed::new(&origin, &change) else { continue };
                let bytes = serde_json::to_vec(&message).unwrap_or_default();
                if let Err(err) = store.publish(CHANNEL, bytes).await {
                    tracing::warn!(error = %err, "a change was not sent to the other replicas");
                }
            }
            message = incoming.recv() => {
                let Some(bytes) = message else { continue };
                let Some(change) = read_relayed(&origin, &bytes) else { continue };
                let Some(hub) = hub.upgrade() else { return };
                let _ = hub.local.send(change);
            }
            ended = &mut listening, if !listened => {
                listened = true;
                if let Err(err) = ended {
                    tracing::warn!(error = %err, "not listening to the other replicas' changes");
                }
            }
        }
    }
}

/// The change in a store message, unless it is this server's own (`origin`)
/// or not a change this runtime sends.
fn read_relayed(origin: &str, bytes: &[u8]) -> Option<Change> {
    if bytes.len() > MAX_RELAYED {
        tracing::debug!(
            bytes = bytes.len(),
            "ignored an oversized message on the changes channel"
        );
        return None;
    }
    let relayed: Relayed = serde_json::from_slice(bytes)
        .inspect_err(
            |err| tracing::debug!(error = %err, "ignored a message on the changes channel"),
        )
        .ok()?;
    if relayed.origin == origin {
        return None;
    }
    relayed.change()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use std::time::Duration;

    async fn next(changes: &mut broadcast::Receiver<Change>) -> Change {
        tokio::time::timeout(Duration::from_secs(5), changes.recv())
            .await
            .expect("a change arrives")
            .expect("the hub is alive")
    }

    #[tokio::test]
    async fn a_change_reaches_every_server_sharing_the_store_once() {
        let store = MemoryStore::new();
        let (a, b) = (Notifier::new(), Notifier::new());
        a.relay_through(Arc::new(store.clone()));
        b.relay_through(Arc::new(store.clone()));
        // The relays start listening once their tasks first run.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let (mut at_a, mut at_b) = (a.subscribe(), b.subscribe());
        a.resource_updated("test://r");
        assert_eq!(
            next(&mut at_a).await,
            Change::ResourceUpdated("test://r".into())
        );
        assert_eq!(
            next(&mut at_b).await,
            Change::ResourceUpdated("test://r".into())
        );
        b.prompt_list_changed();
        b.resource_list_changed();
        assert_eq!(next(&mut at_a).await, Change::PromptsListChanged);
        assert_eq!(next(&mut at_a).await, Change::ResourcesListChanged);
        assert_eq!(next(&mut at_b).await, Change::PromptsListChanged);
        assert_eq!(next(&mut at_b).await, Change::ResourcesListChanged);
        // Tool changes stay home.
        a.tools_changed();
        assert_eq!(next(&mut at_a).await, Change::ToolsListChanged);
        a.resource_updated("test://last");
        assert_eq!(
            next(&mut at_b).await,
            Change::ResourceUpdated("test://last".into())
        );
        // Nothing came back to `a` twice: its own relayed copies were dropped.
        assert_eq!(
            next(&mut at_a).await,
            Change::ResourceUpdated("test://last".into())
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(at_a.try_recv().is_err(), "{:?}", at_a.try_recv());
        assert!(at_b.try_recv().is_err());
    }

    #[test]
    fn store_messages_are_read_only_when_they_are_another_servers_changes() {
        let theirs = br#"{"origin":"b","kind":"updated","uri":"test://x"}"#;
        assert_eq!(
            read_relayed("a", theirs),
            Some(Change::ResourceUpdated("test://x".into()))
        );
        assert_eq!(read_relayed("b", theirs), None, "our own");
        for junk in [
            &br#"{"origin":"b","kind":"updated"}"#[..],
            br#"{"origin":"b","kind":"tools"}"#,
            br#"{"origin":"b","kind":"prompts","uri":"x"}"#,
            b"not json",
        ] {
            assert_eq!(read_relayed("a", junk), None);
        }
        let huge = format!(
            r#"{{"origin":"b","kind":"updated","uri":"{}"}}"#,
            "x".repeat(MAX_RELAYED)
        );
        assert_eq!(read_relayed("a", huge.as_bytes()), None);
        let written = Relayed::new("a", &Change::PromptsListChanged).unwrap();
        assert_eq!(
            serde_json::to_string(&written).unwrap(),
            r#"{"origin":"a","kind":"prompts"}"#
        );
        assert!(Relayed::new("a", &Change::ToolsListChanged).is_none());
    }
}
