//! Per-connection state shared by the reader loop, call tasks and contexts:
//! the outbox, calls in flight (for cancellation), requests this server sent
//! the client (legacy elicitation; in `client_requests`), the legacy
//! session, and subscriptions.

use super::client::ClientInfo;
use super::lifecycle::Lifecycle;
use super::outbox::Outbox;
use super::stream_close::StreamClose;
use super::watched::Watched;
use crate::level::Level;
use crate::principal::Principal;
use crate::protocol::frame::Frame;
use crate::protocol::trace_context::TraceContext;
use crate::util::FastMap;
use crate::util::lock;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use tokio::sync::{Notify, oneshot};

mod client_requests;
pub(crate) use client_requests::ClientReply;

/// A cooperative cancellation signal, set once.
#[derive(Clone, Debug, Default)]
pub(crate) struct CancelSignal(Arc<(AtomicBool, Notify)>);

impl CancelSignal {
    pub(crate) fn cancel(&self) {
        self.0.0.store(true, Ordering::SeqCst);
        self.0.1.notify_waiters();
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.0.0.load(Ordering::SeqCst)
    }

    pub(crate) async fn cancelled(&self) {
        loop {
            let notified = self.0.1.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// A call in flight, found by its request id.
#[derive(Debug)]
struct InFlight {
    cancel: CancelSignal,
    abort: Option<tokio::task::AbortHandle>,
}

/// An open `subscriptions/listen` stream, with what it carries.
#[derive(Clone, Debug)]
pub(crate) struct Subscription {
    /// The listen request's id, canonical.
    pub(crate) id: Box<RawValue>,
    pub(crate) tools_list_changed: bool,
    pub(crate) resources_list_changed: bool,
    pub(crate) prompts_list_changed: bool,
    /// The resources whose updates it carries: sorted, without repeats.
    pub(crate) resources: Arc<[Box<str>]>,
}

/// State of one connection.
#[derive(Debug)]
pub(crate) struct Connection {
    out: Outbox,
    /// [`Lifecycle::to_bits`]: read by every request, so no lock.
    lifecycle: AtomicU8,
    /// What the client said in `initialize`: set once, as a connection
    /// accepts `initialize` once; read by every legacy request, so no lock.
    client_info: OnceLock<Arc<ClientInfo>>,
    in_flight: Mutex<FastMap<Arc<str>, InFlight>>,
    server_requests: Mutex<FastMap<String, oneshot::Sender<ClientReply>>>,
    /// What the connections of one HTTP session share ([`Connection::fork`]).
    forked: Arc<Forked>,
    subscriptions: Mutex<Vec<Subscription>>,
    /// Notified whenever the last call in flight ends.
    idle: Notify,
    /// The client is gone (input ended): requests to it fail at once.
    client_gone: AtomicBool,
    /// The caller the transport verified for this connection's requests
    /// (HTTP with authorization); `None` on stdio.
    principal: Option<Arc<Principal>>,
    /// The trace context of the HTTP request this connection answers (its
    /// `traceparent` and `tracestate` headers); `None` on stdio.
    trace: Option<TraceContext>,
    /// Set when the session refused a call for the caller's scopes, so the
    /// transport can answer with its own denial (HTTP: `403` and the
    /// `insufficient_scope` challenge). The session decides; this only
    /// tells.
    scope_denial: OnceLock<ScopeDenial>,
    /// Who this connection's requests count against, for the limits that
    /// give each client its share (run slots, open input requests): the
    /// verified subject, else the peer's address; `None` on stdio, which
    /// serves one client.
    client_key: Option<Arc<str>>,
    /// How a call asks to close the stream its response goes on (legacy
    /// Streamable HTTP POSTs); `None` where there is no such stream.
    stream_close: Option<Arc<StreamClose>>,
}

/// What the connections of one HTTP session share (one allocation: a
/// POST makes a connection per request).
#[derive(Debug)]
struct Forked {
    /// The next id of a request to the client, unique within the session.
    next_server_request: AtomicU64,
    /// Legacy `logging/setLevel` threshold; 0 = nothing is sent. The level
    /// set on one POST applies to the calls of every other.
    log_level: AtomicU8,
    /// Legacy `resources/subscribe`: subscribed on one POST, delivered on
    /// the session's GET stream.
    watched: Watched,
}

/// A call refused because the caller's token lacks the tool's scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScopeDenial {
    /// The tool that was not run.
    pub(crate) tool: Arc<str>,
    /// Every scope the tool needs (a new token needs all of them).
    pub(crate) scopes: Vec<String>,
}

impl Connection {
    pub(crate) fn new(out: Outbox) -> Connection {
        Connection {
            out,
            lifecycle: AtomicU8::new(Lifecycle::Fresh.to_bits()),
            client_info: OnceLock::new(),
            in_flight: Mutex::new(FastMap::default()),
            server_requests: Mutex::new(FastMap::default()),
            forked: Arc::new(Forked {
                next_server_request: AtomicU64::new(1),
                log_level: AtomicU8::new(0),
                watched: Watched::default(),
            }),
            subscriptions: Mutex::new(Vec::new()),
            idle: Notify::new(),
            client_gone: AtomicBool::new(false),
            principal: None,
            trace: None,
            scope_denial: OnceLock::new(),
            client_key: None,
            stream_close: None,
        }
    }

    /// This connection with a response stream its calls may ask to close.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_stream_close(self, close: Arc<StreamClose>) -> Connection {
        Connection {
            stream_close: Some(close),
            ..self
        }
    }

    /// The close request of this connection's response stream, if it has one.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn stream_close(&self) -> Option<&Arc<StreamClose>> {
        self.stream_close.as_ref()
    }

    /// This connection with its requests made by `principal`.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_principal(self, principal: Option<Arc<Principal>>) -> Connection {
        Connection { principal, ..self }
    }

    /// This connection with its requests traced under `trace` (from HTTP
    /// headers; a call's own `_meta` context wins over it).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_trace(self, trace: Option<TraceContext>) -> Connection {
        Connection { trace, ..self }
    }

    /// The trace context of the transport's request, if any.
    pub(crate) fn trace(&self) -> Option<&TraceContext> {
        self.trace.as_ref()
    }

    /// The verified caller of this connection's requests, if any.
    pub(crate) fn principal(&self) -> Option<&Arc<Principal>> {
        self.principal.as_ref()
    }

    /// This connection with its requests counted against `client` (see
    /// [`Connection::client_key`]).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_client_key(self, client: Option<Arc<str>>) -> Connection {
        Connection {
            client_key: client,
            ..self
        }
    }

    /// Who this connection's requests count against, if it serves one of
    /// several clients.
    pub(crate) fn client_key(&self) -> Option<&str> {
        self.client_key.as_deref()
    }

    /// Records that a call was refused for the caller's scopes (the first
    /// refusal; an HTTP connection answers one request).
    pub(crate) fn set_scope_denial(&self, denial: ScopeDenial) {
        let _ = self.scope_denial.set(denial);
    }

    /// The scope refusal of this connection's request, if there was one.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn scope_denial(&self) -> Option<&ScopeDenial> {
        self.scope_denial.get()
    }

    /// A connection of the same legacy session writing to `out`: the era and
    /// the client's handshake are copied; the log level and the counter of
    /// ids of requests to the client are shared. (Streamable HTTP answers each
    /// POST on its own stream.)
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn fork(&self, out: Outbox) -> Connection {
        let fork = Connection::new(out);
        fork.set_lifecycle(self.lifecycle());
        if let Some(client) = self.client_info.get() {
            let _ = fork.client_info.set(Arc::clone(client));
        }
        Connection {
            forked: Arc::clone(&self.forked),
            ..fork
        }
    }

    /// Queues a frame for the writer, however much output waits unread:
    /// responses and requests to the client are never dropped.
    pub(crate) fn send(&self, frame: impl Into<Frame>) {
        self.out.send(frame.into());
    }

    /// Queues a notification a tool sends at will (progress, a log message),
    /// or drops it when the output this connection has waiting is past its
    /// bound ([`Outbox::send_lossy`]): a client that does not read must not
    /// make the server hold what a call emits without limit.
    pub(crate) fn notify(&self, frame: impl Into<Frame>) {
        self.out.send_lossy(frame.into());
    }

    pub(crate) fn lifecycle(&self) -> Lifecycle {
        Lifecycle::from_bits(self.lifecycle.load(Ordering::Acquire))
    }

    pub(crate) fn set_lifecycle(&self, lifecycle: Lifecycle) {
        self.lifecycle.store(lifecycle.to_bits(), Ordering::Release);
    }

    /// The client's `initialize` (empty before one).
    pub(crate) fn client_info(&self) -> Arc<ClientInfo> {
        static NONE: LazyLock<Arc<ClientInfo>> = LazyLock::new(Arc::default);
        Arc::clone(self.client_info.get().unwrap_or(&NONE))
    }

    /// Keeps what the client said in `initialize`; only the first call
    /// counts (`era::initialize_version` refuses a second `initialize`).
    pub(crate) fn set_client_info(&self, client: ClientInfo) {
        let _ = self.client_info.set(Arc::new(client));
    }

    /// How many calls are in flight, or `None` when `id` is one of them.
    pub(crate) fn in_flight_besides(&self, id: &str) -> Option<usize> {
        let calls = lock(&self.in_flight);
        (!calls.contains_key(id)).then_some(calls.len())
    }

    /// Tracks call `id` from now until [`Connection::finish_call`] or a
    /// cancellation. Only calls that go on running are tracked: one that
    /// finishes while it is being dispatched cannot be cancelled or
    /// collide with a later id, so it costs the table nothing. The caller
    /// has checked `id` with [`Connection::in_flight_besides`] in the same
    /// dispatch.
    pub(crate) fn track_call(&self, id: &Arc<str>, cancel: &CancelSignal) {
        lock(&self.in_flight).insert(
            Arc::clone(id),
            InFlight {
                cancel: cancel.clone(),
                abort: None,
            },
        );
    }

    /// Attaches the task running call `id`, unless it already finished.
    pub(crate) fn attach_task(&self, id: &str, abort: tokio::task::AbortHandle) {
        if let Some(call) = lock(&self.in_flight).get_mut(id) {
            call.abort = Some(abort);
        }
    }

    /// Ends call `id`; `false` when it was cancelled, so its response must
    /// not be sent.
    pub(crate) fn finish_call(&self, id: &str) -> bool {
        let mut calls = lock(&self.in_flight);
        let found = calls.remove(id).is_some();
        if calls.is_empty() {
            self.idle.notify_waiters();
        }
        found
    }

    /// Cancels call `id`: signals it, drops its future, forgets it. Unknown
    /// or finished ids are ignored.
    pub(crate) fn cancel_call(&self, id: &str) -> bool {
        let call = {
            let mut calls = lock(&self.in_flight);
            let call = calls.remove(id);
            if calls.is_empty() {
                self.idle.notify_waiters();
            }
            call
        };
        let Some(call) = call else {
            return false;
        };
        call.cancel.cancel();
        if let Some(abort) = call.abort {
            abort.abort();
        }
        true
    }

    /// Completes once no call is in flight.
    pub(crate) async fn wait_idle(&self) {
        loop {
            let notified = self.idle.notified();
            if lock(&self.in_flight).is_empty() {
                return;
            }
            notified.await;
        }
    }

    /// Cancels every call in flight; returns their ids.
    pub(crate) fn cancel_all(&self) -> Vec<String> {
        let ids: Vec<Arc<str>> = lock(&self.in_flight).keys().cloned().collect();
        ids.into_iter()
            .filter(|id| self.cancel_call(id))
            .map(|id| id.to_string())
            .collect()
    }

    /// The legacy session's log threshold.
    pub(crate) fn log_level(&self) -> Option<Level> {
        Level::from_u8(self.forked.log_level.load(Ordering::Relaxed))
    }

    pub(crate) fn set_log_level(&self, level: Level) {
        self.forked.log_level.store(level as u8, Ordering::Relaxed);
    }

    /// The resources the legacy session subscribed to (shared by its
    /// connections).
    pub(crate) fn watched(&self) -> &Watched {
        &self.forked.watched
    }

    pub(crate) fn subscribe(&self, subscription: Subscription) {
        lock(&self.subscriptions).push(subscription);
    }

    /// Ends a subscription; `false` when `id` is not one.
    pub(crate) fn unsubscribe(&self, id: &str) -> bool {
        let mut subscriptions = lock(&self.subscriptions);
        let before = subscriptions.len();
        subscriptions.retain(|s| s.id.get() != id);
        subscriptions.len() != before
    }

    pub(crate) fn subscriptions(&self) -> Vec<Subscription> {
        lock(&self.subscriptions).clone()
    }

    /// Whether the subscription `id` (canonical) is still open.
    pub(crate) fn is_subscribed(&self, id: &str) -> bool {
        lock(&self.subscriptions)
            .iter()
            .any(|subscription| subscription.id.get() == id)
    }

    /// Takes every open subscription (at shutdown).
    pub(crate) fn take_subscriptions(&self) -> Vec<Subscription> {
        std::mem::take(&mut *lock(&self.subscriptions))
    }
}

/// The canonical JSON text of a request id, so `1`, `"a"` and `"\u0061"` are
/// found however the client spelled them.
pub(crate) fn canonical_id(raw: &str) -> Cow<'_, str> {
    // Integers and strings without escapes are canonical already (the common case).
    if !raw.contains('\\') {
        return Cow::Borrowed(raw);
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(value) => Cow::Owned(value.to_string()),
        Err(_) => Cow::Borrowed(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancelling_a_call_prevents_its_response() {
        let (tx, _rx) = crate::conn::outbox::channel(usize::MAX);
        let conn = Connection::new(tx);
        let signal = CancelSignal::default();
        assert_eq!(conn.in_flight_besides("1"), Some(0));
        conn.track_call(&Arc::from("1"), &signal);
        assert_eq!(conn.in_flight_besides("1"), None, "duplicate in-flight id");
        assert_eq!(conn.in_flight_besides("2"), Some(1));
        assert!(conn.cancel_call("1"));
        assert!(signal.is_cancelled());
        assert!(!conn.finish_call("1"), "a cancelled call sends nothing");
        assert!(!conn.cancel_call("1"), "a second cancel is ignored");
        conn.track_call(&Arc::from("2"), &CancelSignal::default());
        assert!(conn.finish_call("2"));
        assert_eq!(conn.in_flight_besides("2"), Some(0));
    }

    #[test]
    fn ids_are_canonical() {
        assert_eq!(canonical_id("\"\\u0061\""), "\"a\"");
        assert_eq!(canonical_id("7"), "7");
    }
}
