//! What a running tool can know and do besides its arguments: the call's
//! identity and revision, progress, logging, cancellation, state, the live
//! tool set, and (through [`elicit`], beside it) asking the user or the
//! client's model. The test builder is `test_context.rs`, above this
//! module and `tool/`. The context's methods are split by concept: what
//! it sends (`report`), what it asks (`questions`), how the call becomes a
//! task (`task`).

pub(crate) mod ask;
pub(crate) mod elicit;
mod form;
mod questions;
mod report;
mod sample;
pub(crate) mod seal;
mod sent_meta;
mod task;

use crate::changes::Notifier;
use crate::conn::client::ClientInfo;
use crate::conn::connection::{CancelSignal, Connection};
use crate::conn::peer::Peer;
use crate::context::elicit::Interrupt;
use crate::level::Level;
use crate::principal::Principal;
use crate::protocol::ProtocolVersion;
use crate::quota::WindowQuota;
use crate::state::{State, StateMap};
use crate::store::Store;
use crate::util::lock;
pub(crate) use sent_meta::SentMeta;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::any::Any;
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
pub(crate) use task::{TaskBegun, TaskStart};
use tokio::sync::Notify;

/// The context of one tool call: who is calling, under which protocol
/// revision, and the channels back to the client (progress, logging,
/// elicitation, cancellation). As a `#[tool]` parameter of type `Context` it
/// is injected and never appears in the inputSchema.
///
/// Cancellation: when the client sends `notifications/cancelled` for the
/// call, the tool's future is dropped at its next `.await` and no response is
/// sent. Code that runs long without awaiting can check
/// [`Context::is_cancelled`]; [`Context::progress`] returns an error once the
/// call is cancelled, so `?` ends the tool there.
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("request_id", &self.inner.request_id)
            .field("tool", &self.inner.tool)
            .field("version", &self.inner.version)
            .finish_non_exhaustive()
    }
}

/// What every call of one server reaches through its `Context`: built once,
/// and shared by one reference per call rather than one per part.
#[derive(Debug)]
pub(crate) struct Reach {
    pub(crate) states: StateMap,
    pub(crate) store: Arc<dyn Store>,
    /// The server's live tool set (a `ToolSet`), held without naming its
    /// type: a tool receives a `Context` and the tool set holds tools, so
    /// `context/` sits below `tool/` and carries the set as a handle passed
    /// down. `Context::tools`, in `tool/toolset.rs` where the type is known,
    /// reads it.
    pub(crate) tools: Box<dyn Any + Send + Sync>,
    /// Tells the clients what changed (`Context::notifier`).
    pub(crate) notifier: Notifier,
    /// Legacy: how long `elicit` waits for the user.
    pub(crate) elicitation_timeout: Duration,
    /// The largest message the server sends or takes
    /// (`Server::max_message_size`): a prompt's result must fit in it.
    pub(crate) max_message_size: usize,
    /// How many [`Handles`](crate::Handles) each client may create within
    /// their lifetime (`Server::max_handles_per_client`).
    pub(crate) handle_quota: Arc<WindowQuota>,
}

struct Inner {
    request_id: Box<RawValue>,
    tool: Arc<str>,
    version: ProtocolVersion,
    client: Arc<ClientInfo>,
    /// The request's `params._meta`, made only when asked for.
    sent_meta: Option<SentMeta>,
    meta: OnceLock<Option<Value>>,
    /// 2026-07-28: the request's `logLevel`; legacy: `None` (the session's applies).
    request_log_level: Option<Level>,
    cancel: CancelSignal,
    connection: Arc<Connection>,
    reach: Arc<Reach>,
    last_progress: Mutex<Option<f64>>,
    /// Set once the response is decided: nothing more may be sent for the call.
    done: AtomicBool,
    /// 2026-07-28: answers gathered so far, by input request key.
    answers: Map<String, Value>,
    interrupt: Mutex<Option<Interrupt>>,
    interrupted: Notify,
    /// The call's client: the connection it came on (the wire), or the
    /// in-process door's callbacks.
    peer: Arc<dyn Peer>,
    /// How the call becomes a task (Tasks extension), when it may.
    task_start: OnceLock<Arc<dyn TaskStart>>,
    /// The task's side of the seam once the call became one: progress and
    /// questions go to the task's record from then on.
    task: tokio::sync::OnceCell<Arc<dyn Peer>>,
}

/// Everything a context is made from; built by the dispatcher.
#[derive(Clone)]
pub(crate) struct ContextParts {
    pub(crate) request_id: Box<RawValue>,
    pub(crate) tool: Arc<str>,
    pub(crate) version: ProtocolVersion,
    pub(crate) client: Arc<ClientInfo>,
    pub(crate) meta: Option<SentMeta>,
    pub(crate) request_log_level: Option<Level>,
    pub(crate) cancel: CancelSignal,
    pub(crate) connection: Arc<Connection>,
    pub(crate) reach: Arc<Reach>,
    pub(crate) answers: Map<String, Value>,
    /// The call's client when it is not `connection` (the in-process
    /// door's callbacks); `None`: the wire, the connection itself.
    pub(crate) peer: Option<Arc<dyn Peer>>,
}

impl Context {
    pub(crate) fn new(parts: ContextParts) -> Context {
        let peer = match parts.peer {
            Some(peer) => peer,
            None => Arc::clone(&parts.connection) as Arc<dyn Peer>,
        };
        Context {
            inner: Arc::new(Inner {
                request_id: parts.request_id,
                tool: parts.tool,
                version: parts.version,
                client: parts.client,
                sent_meta: parts.meta,
                meta: OnceLock::new(),
                request_log_level: parts.request_log_level,
                cancel: parts.cancel,
                connection: parts.connection,
                reach: parts.reach,
                last_progress: Mutex::new(None),
                done: AtomicBool::new(false),
                answers: parts.answers,
                interrupt: Mutex::new(None),
                interrupted: Notify::new(),
                peer,
                task_start: OnceLock::new(),
                task: tokio::sync::OnceCell::new(),
            }),
        }
    }

    /// The JSON-RPC id of the call, as JSON text (`7`, `"abc"`).
    pub fn request_id(&self) -> &str {
        self.inner.request_id.get()
    }

    /// The JSON-RPC id of the call, as the response echoes it.
    pub(crate) fn raw_request_id(&self) -> &RawValue {
        &self.inner.request_id
    }

    /// The name the tool was called by.
    pub fn tool_name(&self) -> &str {
        &self.inner.tool
    }

    /// The protocol revision of the session (legacy) or the request (2026-07-28).
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// The client's self-reported `Implementation` (`name`, `version`, …), if sent.
    pub fn client_info(&self) -> Option<&Value> {
        self.inner.client.info.as_ref()
    }

    /// The client's declared capabilities (`{}` when none).
    pub fn client_capabilities(&self) -> &Value {
        &self.inner.client.capabilities
    }

    /// Whether the client renders MCP Apps: its capabilities declare the
    /// extension `io.modelcontextprotocol/ui` with the MIME type
    /// `text/html;profile=mcp-app`. A tool with an app still answers with
    /// content a text-only client can show; this lets it say less there.
    pub fn client_renders_apps(&self) -> bool {
        crate::protocol::model::client_renders_apps(self.client_capabilities())
    }

    /// The request's `params._meta`, if any.
    pub fn meta(&self) -> Option<&Value> {
        self.inner
            .meta
            .get_or_init(|| {
                let sent = self.inner.sent_meta.as_ref()?;
                Some(sent.to_value(self.inner.version, &self.inner.client))
            })
            .as_ref()
    }

    /// The verified caller (Streamable HTTP with authorization): subject,
    /// scopes and token claims. `None` on stdio and on HTTP without
    /// authorization.
    pub fn principal(&self) -> Option<&Principal> {
        self.inner
            .connection
            .principal()
            .map(|principal| &**principal)
    }

    /// Whether the client cancelled the call.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the client cancels the call.
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await;
    }

    /// A value registered with [`Server::state`](crate::Server::state).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.inner.reach.states.get::<T>()
    }

    /// [`Context::state`] without its bound, for `__private::state` (see
    /// `StateMap::get`).
    pub(crate) fn state_unbounded<T: 'static>(&self) -> Option<State<T>> {
        self.inner.reach.states.get::<T>()
    }

    /// The server's state store ([`Server::store`](crate::Server::store)),
    /// where [`Handles`](crate::Handles) keep their values; shared by
    /// replicas when the store is.
    pub fn store(&self) -> &dyn Store {
        &*self.inner.reach.store
    }

    /// Tells the server's clients that a resource or a list changed (the
    /// server's [`Notifier`], as [`Server::notifier`](crate::Server::notifier)
    /// gives it): e.g. a tool that writes a file tells the subscribers of
    /// its resource.
    pub fn notifier(&self) -> &Notifier {
        &self.inner.reach.notifier
    }

    /// The quota of handles each client may create, and this call's client
    /// (`None` on stdio, which serves one).
    pub(crate) fn handle_quota(&self) -> (&Arc<WindowQuota>, Option<&str>) {
        (
            &self.inner.reach.handle_quota,
            self.inner.connection.client_key(),
        )
    }

    /// The tool set this call's server serves, untyped (see [`Reach::tools`]).
    pub(crate) fn tool_set(&self) -> &(dyn Any + Send + Sync) {
        &*self.inner.reach.tools
    }

    /// The call's client: the task's record once the call became a task,
    /// else the in-process door's callbacks or the connection the call came
    /// on.
    pub(crate) fn peer(&self) -> &dyn Peer {
        match self.inner.task.get() {
            Some(task) => &**task,
            None => &*self.inner.peer,
        }
    }

    /// The connection the call came on.
    pub(crate) fn connection(&self) -> &Connection {
        &self.inner.connection
    }

    /// Legacy: how long `elicit` waits for the user.
    pub(crate) fn max_message_size(&self) -> usize {
        self.inner.reach.max_message_size
    }

    pub(crate) fn elicitation_timeout(&self) -> Duration {
        self.inner.reach.elicitation_timeout
    }

    /// Where an elicitation records why the call stopped (2026-07-28).
    pub(crate) fn interrupt_slot(&self) -> &Mutex<Option<Interrupt>> {
        &self.inner.interrupt
    }

    /// Wakes [`Context::interrupted`].
    pub(crate) fn notify_interrupted(&self) {
        self.inner.interrupted.notify_one();
    }

    /// Completes when the tool stopped to wait for input (2026-07-28).
    pub(crate) async fn interrupted(&self) -> Interrupt {
        loop {
            let notified = self.inner.interrupted.notified();
            if let Some(interrupt) = lock(&self.inner.interrupt).clone() {
                return interrupt;
            }
            notified.await;
        }
    }

    /// The answers gathered so far (2026-07-28).
    pub(crate) fn answers(&self) -> &Map<String, Value> {
        &self.inner.answers
    }
}
